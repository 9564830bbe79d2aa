"""Property tests (Hypothesis) of issue 33's "edits change only what they touch".

On every preset small enough to edit on the canvas (those named in the issue among them:
GB300 NVL72 XDR, B300 Spectrum-X twin-plane, H100 4 SU cluster), a random sequence of the
edits a user can save (a canvas edit: a length, a part, a link removed or added back, a node
moved; a cabling plan re-imported with a run changed; a spec saved with an unrelated field
changed; a revision restored), each stored and read back as a revision is, leaves every
setting it did not edit as the preset has it: the transport and its routing default, the
layout and its racks, the networks, cabling, planes, growth and assumptions, and the other
networks' devices and links as the pipeline stored them (no edit rebuilds them). And one length
changed on a fabric raises no stale parameter and leaves its flow simulation identical.

Bounded as tests/unit/test_properties.py: a few examples, no deadline, derandomized in CI.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

import pytest
from hypothesis import Phase, event, given, settings
from hypothesis import strategies as st

from planner.analyses.scenario import run_scenario, transport_defaults
from planner.domain.canvas import (
    MAX_ELEMENTS,
    EditError,
    edit_document,
    fabric_from_edit,
    link_options,
)
from planner.domain.edits import keep_from_base
from planner.domain.fabric import Fabric
from planner.domain.outputs import cabling_csv_lines
from planner.domain.outputs.cabling_import import cabling_edit
from planner.domain.pipeline import build_fabric
from planner.domain.presets import load_presets, preset_get
from planner.domain.settings import FabricSettings
from planner.domain.spec import parse_spec
from tests.unit.test_properties import bounded

ISSUE_PRESETS = ("gb300-nvl72-xdr", "b300-spectrum-x-twin-plane", "h100-superpod-4su-cluster")
#: Run lengths every preset's optics reach (SR4 multimode: 50 m), metres.
LENGTHS_M = st.integers(10, 400).map(lambda decimetres: decimetres / 10)
INDEX = st.integers(0, 10_000)
EDITS = st.one_of(
    st.tuples(st.just("length"), INDEX, LENGTHS_M),
    st.tuples(st.just("part"), INDEX, INDEX),
    st.tuples(st.just("remove"), INDEX),
    st.tuples(st.just("add"), INDEX),
    st.tuples(st.just("move"), INDEX, st.floats(-5e3, 5e3), st.floats(-5e3, 5e3)),
    st.tuples(st.just("reimport"), INDEX, LENGTHS_M),
    st.tuples(st.just("spec"), st.sampled_from([1.0, 1.5, 3.0])),
    st.tuples(st.just("restore"), INDEX),
)


class Built(dict):
    """The presets' fabrics by slug (a short repr: Hypothesis prints a failing call)."""

    def __repr__(self) -> str:
        return f"<built {', '.join(self)}>"


@pytest.fixture(scope="module")
def presets(facts) -> Built:
    """Every preset whose fabric the canvas edits (at most MAX_ELEMENTS nodes and links)."""
    built = Built()
    for preset in load_presets():
        fabric = build_fabric(parse_spec(preset.spec), facts)
        if fabric.node_count + fabric.link_count <= MAX_ELEMENTS:
            built[preset.slug] = fabric
    assert set(ISSUE_PRESETS) <= set(built)
    return built


def fast(examples: int):
    """:func:`bounded`, without the explain phase (it reruns a failing sequence hundreds of
    times, seconds each)."""
    return settings(bounded(examples), phases=[Phase.explicit, Phase.reuse, Phase.generate])


def _json(value):
    if hasattr(value, "item"):  # NumPy scalars, as the revision store writes them
        return value.item()
    raise TypeError(type(value).__name__)


def stored(fabric: Fabric) -> Fabric:
    """``fabric`` saved as a revision and read back (JSON, as planner.designs.adapters)."""
    return Fabric.from_dict(json.loads(json.dumps(fabric.to_dict(), default=_json)))


def kept(fabric: Fabric) -> tuple:
    """What a user set and an edit must keep: the settings (without the generator's
    parameters, recorded from the first edit on), the racks' places (an edited fabric lists
    its racks in the order of its nodes), the routing default, and the other networks'
    devices and links as stored (``network_columns``: a revision read back has them)."""
    racks = sorted(
        (r["name"], r.get("row"), r.get("position"), r.get("rack_units")) for r in fabric.racks
    )
    return (
        replace(fabric.settings, generated=None),
        racks,
        transport_defaults(fabric.settings.transport),
        fabric.network_columns,
    )


class Session:
    """The revisions of one design, edited as the pages and the API do."""

    def __init__(self, slug: str, base: Fabric, facts):
        self.slug, self.facts = slug, facts
        self.revisions = [stored(base)]
        self.expected = [kept(self.revisions[0])]
        self.pool: list[dict] = []  # links removed by an edit, to add back

    @property
    def current(self) -> Fabric:
        return self.revisions[-1]

    def save(self, fabric: Fabric, expected: tuple) -> None:
        self.revisions.append(stored(fabric))
        self.expected.append(expected)

    def canvas(self, change) -> None:
        document = edit_document(self.current)
        if change(document) is False:
            event("edit left out (nothing to change)")
            return
        self.from_document(document)

    def from_document(self, document: dict) -> None:
        try:
            edited = fabric_from_edit(document, self.facts)
        except EditError:
            event("edit refused by validation")
            return
        keep_from_base(self.current, edited)
        self.save(edited, self.expected[-1])
        event("edit saved")

    def apply(self, edit: tuple) -> None:
        kind, *args = edit
        getattr(self, f"_{kind}")(*args)

    def _length(self, index, length_m):
        def change(document):
            document["links"][index % len(document["links"])]["length_m"] = length_m

        self.canvas(change)

    def _part(self, index, choice):
        """Other media for a link and every link like it (same models and speed: a cage
        holds one kind of module, so the links through it change together)."""

        def change(document):
            link = document["links"][index % len(document["links"])]
            models = {node["name"]: node["model"] for node in document["nodes"]}
            kind = (models[link["a"]], models[link["b"]], link["speed_gbps"])
            options = list(
                link_options(kind[0], kind[1], facts=self.facts, speed_gbps=kind[2], length_m=50)
            )
            if not options:
                return False
            option = options[choice % len(options)]
            for other in document["links"]:
                if (models[other["a"]], models[other["b"]], other["speed_gbps"]) != kind:
                    continue
                for key in ("a_part", "b_part", "cable"):
                    if option.get(key):
                        other[key] = option[key]
                    else:
                        other.pop(key, None)

        self.canvas(change)

    def _remove(self, index):
        def change(document):
            self.pool.append(document["links"].pop(index % len(document["links"])))

        self.canvas(change)

    def _add(self, index):
        def change(document):
            if not self.pool:
                return False
            document["links"].append(self.pool.pop(index % len(self.pool)))

        self.canvas(change)

    def _move(self, index, x, y):
        def change(document):
            node = document["nodes"][index % len(document["nodes"])]
            node["x"], node["y"] = x, y

        self.canvas(change)

    def _reimport(self, index, run_m):
        """The cabling plan downloaded, one compute link's run changed, uploaded again."""
        header, *rows = csv.reader(cabling_csv_lines(self.current, self.facts))
        compute = [row for row in rows if row[header.index("network")] == "compute"]
        compute[index % len(compute)][header.index("run_length_m")] = f"{run_m:g}"
        text = io.StringIO()
        csv.writer(text).writerows([header, *rows])
        edit = cabling_edit(self.current, text.getvalue(), edit_document(self.current), self.facts)
        assert edit.change_count <= 1
        self.from_document(edit.document)

    def _spec(self, margin_db):
        """The spec saved again with its name (unrelated to the fabric) and the optical margin
        changed: the fabric is rebuilt; only the margin may differ."""
        document = {
            **preset_get(self.slug).spec,
            "name": "renamed",
            "optical_margin_min_db": margin_db,
        }
        rebuilt = build_fabric(parse_spec(document), self.facts)
        settings, racks, routing, networks = self.expected[0]
        expected = (replace(settings, optical_margin_min_db=margin_db), racks, routing, networks)
        self.save(rebuilt, expected)
        event("spec saved")

    def _restore(self, index):
        number = index % len(self.revisions)
        self.revisions.append(self.revisions[number])  # the stored bytes, as design_restore
        self.expected.append(self.expected[number])


@pytest.mark.no_cover  # a walk over many cases, untraced: see tests.conftest.untraced
@fast(10)
@given(data=st.data(), edits=st.lists(EDITS, min_size=1, max_size=3))
def test_edits_keep_every_setting_they_did_not_touch(presets, facts, data, edits):
    slug = data.draw(st.sampled_from(sorted(presets)), label="preset")
    session = Session(slug, presets[slug], facts)
    original = session.expected[0]
    assert original[0].transport is not None and original[1]
    assert original[3] is not None  # stored by the pipeline with the revision
    for edit in edits:
        session.apply(edit)
        assert kept(session.current) == session.expected[-1], edit
    settings, racks, routing, networks = kept(session.current)
    assert (racks, routing, networks) == original[1:]
    assert (
        replace(settings, optical_margin_min_db=original[0].optical_margin_min_db) == (original[0])
    )


@fast(4)
@given(
    data=st.data(),
    index=INDEX,
    length_m=LENGTHS_M,
    traffic=st.sampled_from(["all-reduce", "permutation"]),
)
def test_a_length_changed_leaves_the_flow_simulation_identical(
    presets, facts, data, index, length_m, traffic
):
    slug = data.draw(st.sampled_from(sorted(presets)), label="preset")
    session = Session(slug, presets[slug], facts)
    session.apply(("length", index, length_m))
    before, after = session.revisions[0], session.current
    assert len(session.revisions) == 2  # saved
    assert after.info["stale_parameters"] == []  # nothing to confirm with "Save anyway"
    link = index % before.link_count
    assert after.link_length_m[link] == pytest.approx(length_m)
    runs = [
        run_scenario(fabric, traffic=traffic, size_bytes=1e6, summary_only=True)
        for fabric in (before, after)
    ]
    assert runs[1] == runs[0]
    assert runs[0]["routing"] == transport_defaults(before.settings.transport).routing


def test_the_settings_kept_are_not_empty(presets):
    """The properties above compare something: each preset has its transport (and the
    clusters their networks), its layout and racks."""
    assert len(presets) >= 10
    for slug, fabric in presets.items():
        settings = fabric.settings
        assert settings != FabricSettings()
        assert settings.transport is not None and settings.layout and fabric.racks, slug
    assert presets["h100-superpod-4su-cluster"].settings.networks
    assert presets["h100-superpod-4su-cluster"].networks.links
    assert presets["b300-spectrum-x-twin-plane"].settings.planes == 2
    assert presets["gb300-nvl72-xdr"].settings.rack_system["compute_trays"] == 18
