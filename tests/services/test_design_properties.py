"""Property test (Hypothesis) of building a design from a spec, on the seed catalog.

``design_build`` is what ``POST /api/planner/designs/`` and the design wizard call with a
user's spec. Starting from a worked example, a few keys (counts, switches, media, layout,
naming) are changed to other plausible or hostile values; the build either succeeds or raises
:class:`DesignError` whose problems name a field, never another exception (a 500).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from planner.designs.services import DesignError, design_build
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from planner.domain.spec_model import MEDIA_KINDS, TIERS
from tests.unit.test_properties import SPEC_KEYS, YAML_VALUES

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
EXAMPLE = load_spec_text((EXAMPLES_DIR / "h100-superpod-4su.yaml").read_text())
SLUGS = st.sampled_from(["DGX-H100", "QM9700", "SN5600", "MMA4Z00-NS", "DGX-B300", "nope", ""])
COUNTS = st.integers(-2, 80) | st.floats(-1, 80) | st.sampled_from([0, 2**40, 1e300])
CHANGES = {
    "servers": COUNTS,
    "rails": COUNTS,
    "planes": st.integers(0, 9) | st.floats(0, 9),
    "tiers": st.sampled_from(["auto", 2, 3, 4, 2.0, "3"]),
    "servers_per_su": COUNTS,
    "oversubscription": st.floats(0, 20) | st.integers(0, 20),
    "reserved_leaf_ports": COUNTS,
    "server": SLUGS,
    "switches": st.fixed_dictionaries({"leaf": SLUGS}, optional={"spine": SLUGS, "core": SLUGS}),
    "topology": st.sampled_from(["rail-optimized", "clos", "fat-tree"]),
    "k": st.integers(2, 12).map(lambda half: 2 * half),
    "media": st.dictionaries(st.sampled_from(TIERS), st.sampled_from(MEDIA_KINDS), max_size=3),
    "layout": st.fixed_dictionaries(
        {},
        optional={
            "servers_per_rack": COUNTS,
            "rack": SLUGS,
            "rack_units": st.integers(8, 62),
            "racks_per_row": st.integers(1, 65),
            "slack_m": st.floats(0, 1e6),
        },
    ),
    "naming": st.fixed_dictionaries(
        {},
        optional={
            role: st.sampled_from(["x{index}", "{index:03d}-{plane}", "{bogus}", "{", "{0}", "n"])
            for role in ("server", "leaf", "spine", "core")
        },
    ),
}


@st.composite
def changed_examples(draw) -> dict:
    """The 4-SU SuperPOD example cut to a few servers, with one to three keys changed."""
    spec = {**EXAMPLE, "servers": draw(st.integers(1, 64))}
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from([*CHANGES, *SPEC_KEYS]))
        spec[key] = draw(CHANGES.get(key, YAML_VALUES))
    return spec


@pytest.mark.no_cover  # a walk over many cases, untraced: see tests.conftest.untraced
@settings(
    max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "30")),
    deadline=None,
    derandomize=IN_CI,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(spec=changed_examples())
def test_a_spec_builds_or_is_refused_naming_the_field(seed_catalog, spec):
    try:
        built, fabric, summary = design_build(spec_document=spec)
    except DesignError as error:
        event("refused")
        assert error.problems and str(error)
        for problem in error.problems:
            assert isinstance(problem["field"], str) and problem["message"].strip(), problem
    else:
        event("built")
        assert summary["servers"] >= 1 and summary["gpus"] >= summary["servers"]
