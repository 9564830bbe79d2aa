"""Property tests (Hypothesis) of the pure readers: the design spec and catalog YAML files.

Whatever document comes in, the readers either return their result or raise their own
documented error, whose problems name the field (spec) or the file and entry (catalog);
never another exception. Valid generated specs survive a round trip through ``as_dict`` and
through YAML and JSON text. The CSV importers, which write to the database, are
tests/services/test_import_properties.py.

Bounded: a fixed number of examples per test, no deadline (a loaded CI machine is slow);
derandomized in CI so that a run there is repeatable, random locally to explore more.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inventory.library.files import CatalogFileError, part_from_entry, read_catalog_folder
from inventory.library.schema import FILES
from planner.domain.spec import SpecError, parse_spec
from planner.domain.spec import spec_schema as load_spec_schema
from planner.domain.spec_model import MEDIA_KINDS, TIERS, TOPOLOGIES, DesignSpec

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
SEED = Path(__file__).resolve().parents[2] / "inventory" / "library" / "seed"


def bounded(examples: int):
    """Hypothesis settings of these tests: ``examples`` runs, no deadline, no example store."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=IN_CI,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


# --- strategies ----------------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
)
#: What JSON can hold.
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
#: What YAML can hold beyond JSON: keys that are not strings, dates.
YAML_KEYS = st.text(max_size=10) | st.integers(-5, 5) | st.none() | st.booleans()
YAML_VALUES = st.recursive(
    SCALARS | st.dates(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(YAML_KEYS, children, max_size=4)
    ),
    max_leaves=12,
)
#: Text a valid spec may hold: any Unicode but NUL and lone surrogates, which the parser refuses
#: (the database cannot store them).
VALID_CHARACTERS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")


def valid_text(**kwargs):
    return st.text(alphabet=VALID_CHARACTERS, **kwargs)


NAMES = valid_text(min_size=1, max_size=40)
SLUGS = valid_text(min_size=1, max_size=20)
PARTS_MEDIA = st.fixed_dictionaries(
    {}, optional={"a": valid_text(max_size=12), "b": valid_text(max_size=12), "cable": SLUGS}
).filter(bool)


@st.composite
def valid_spec_documents(draw) -> dict:
    """Spec documents the schema and the rules accept (the strategy mirrors the schema)."""
    topology = draw(st.sampled_from(TOPOLOGIES))
    document = {"name": draw(NAMES), "topology": topology, "server": draw(SLUGS)}
    switches = {"leaf": draw(SLUGS)}
    for tier in ("spine", "core"):
        if draw(st.booleans()):
            switches[tier] = draw(SLUGS)
    document["switches"] = switches
    if topology == "fat-tree":
        document["k"] = 2 * draw(st.integers(2, 64))
        if draw(st.booleans()):
            document["tiers"] = draw(st.sampled_from(["auto", 3]))
        if draw(st.booleans()):
            document["servers"] = draw(st.integers(1, 100_000))
    else:
        document["servers"] = draw(st.integers(1, 100_000))
        if draw(st.booleans()):
            document["tiers"] = draw(st.sampled_from(["auto", 2, 3]))
        if topology == "rail-optimized" and draw(st.booleans()):
            document["servers_per_su"] = draw(st.integers(1, 256))
    optional = {
        "description": valid_text(max_size=80),
        "rails": st.integers(1, 16),
        "planes": st.integers(1, 8),
        "oversubscription": st.integers(1, 16) | st.floats(1, 16),
        "reserved_leaf_ports": st.integers(0, 8),
        "price_book": SLUGS,
        "media": st.dictionaries(
            st.sampled_from(TIERS), st.sampled_from(MEDIA_KINDS) | PARTS_MEDIA, max_size=3
        ),
        "layout": st.fixed_dictionaries(
            {},
            optional={
                "servers_per_rack": st.integers(1, 64),
                "rack": SLUGS,
                "rack_units": st.integers(10, 60),
                "racks_per_row": st.integers(2, 64),
                "rack_width_m": st.floats(0.1, 2),
                "row_pitch_m": st.floats(0.5, 10),
                "tray_height_m": st.floats(0, 2),
                "slack_m": st.floats(0, 10),
                "switches_per_network_rack": st.integers(1, 64),
            },
        ),
        "naming": st.fixed_dictionaries(
            {}, optional={tier: valid_text(max_size=20) for tier in ("server", "leaf", "spine")}
        ),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            document[key] = draw(strategy)
    if draw(st.booleans()):  # JSON clients may send counts as 8.0
        for key in ("servers", "planes", "k", "tiers"):
            if isinstance(document.get(key), int):
                document[key] = float(document[key])
    return document


SPEC_KEYS = sorted(load_spec_schema()["properties"])
NESTED_KEYS = {
    "switches": ["leaf", "spine", "core"],
    "media": list(TIERS),
    "layout": [],
    "naming": [],
}


@st.composite
def near_valid_spec_documents(draw) -> dict:
    """A valid document with one or two keys (top level or nested) removed or replaced by any
    YAML value: the inputs that get past the first checks."""
    document = draw(valid_spec_documents())
    for _ in range(draw(st.integers(1, 2))):
        key = draw(st.sampled_from([*SPEC_KEYS, "unknown"]))
        action = draw(st.sampled_from(["replace", "remove", "nested"]))
        if action == "remove":
            document.pop(key, None)
        elif action == "nested" and isinstance(document.get(key), dict):
            inner = draw(st.sampled_from([*NESTED_KEYS.get(key, []), *document[key], "x"]))
            document[key] = {**document[key], inner: draw(YAML_VALUES)}
        else:
            document[key] = draw(YAML_VALUES)
    return document


def assert_problems_name_fields(error: SpecError, document) -> None:
    """Each problem is (field, message) text; a named field is a spec key or the document's."""
    assert error.problems, "a SpecError without problems"
    known = set(SPEC_KEYS) | (
        {str(key) for key in document} if isinstance(document, dict) else set()
    )
    for field, message in error.problems:
        assert isinstance(field, str) and isinstance(message, str) and message.strip()
        if field:
            assert field.split(".")[0] in known, (field, message)
    assert str(error)


def assert_counts_are_whole_and_numbers_finite(spec: DesignSpec) -> None:
    assert isinstance(spec, DesignSpec)
    for name in ("servers", "rails", "planes", "servers_per_su", "reserved_leaf_ports", "k"):
        value = getattr(spec, name)
        assert value is None or type(value) is int, (name, value)
    assert spec.tiers in ("auto", 2, 3) and type(spec.tiers) in (str, int)
    for value in (spec.oversubscription, *vars(spec.layout).values()):
        assert not isinstance(value, float) or math.isfinite(value), value


# --- design spec -----------------------------------------------------------------------------


@bounded(150)
@given(document=YAML_VALUES | near_valid_spec_documents())
def test_any_document_parses_or_raises_a_spec_error_naming_the_field(document):
    try:
        spec = parse_spec(document)
    except SpecError as error:
        assert_problems_name_fields(error, document)
    else:
        assert_counts_are_whole_and_numbers_finite(spec)


@bounded(150)
@given(text=st.text(max_size=200) | near_valid_spec_documents().map(yaml.safe_dump))
def test_any_text_parses_or_raises_a_spec_error(text):
    try:
        spec = parse_spec(text)
    except SpecError as error:
        assert error.problems and str(error)
    else:
        assert isinstance(spec, DesignSpec)


@pytest.mark.no_cover  # a walk over many cases, untraced: see tests.conftest.untraced
@bounded(150)
@given(document=valid_spec_documents())
def test_valid_specs_round_trip_through_dict_yaml_and_json(document):
    spec = parse_spec(document)
    assert_counts_are_whole_and_numbers_finite(spec)
    again = parse_spec(spec.as_dict())
    assert again == spec
    assert parse_spec(yaml.safe_dump(spec.as_dict(), sort_keys=False)) == spec
    assert parse_spec(json.dumps(spec.as_dict())) == spec
    assert again.as_dict() == spec.as_dict()


# --- catalog YAML files ----------------------------------------------------------------------


def _seed_entries(filename: str) -> list:
    # libyaml's loader, as the catalog reader's: the pure-Python one took 2 s at each import.
    return yaml.load((SEED / filename).read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)


SEED_ENTRIES = {category: _seed_entries(name)[:8] for category, name in FILES.items()}
CATEGORY_FILES = st.sampled_from(sorted(FILES.items()))


@st.composite
def mutated_seed_entries(draw):
    """A real seed entry with one or two keys removed or replaced (sources and provenance
    wrappers included)."""
    category = draw(st.sampled_from(sorted(SEED_ENTRIES)))
    entry = dict(draw(st.sampled_from(SEED_ENTRIES[category])))
    for _ in range(draw(st.integers(1, 2))):
        key = draw(st.sampled_from([*entry, "source", "sources", "unknown"]))
        if draw(st.booleans()):
            entry.pop(key, None)
        else:
            entry[key] = draw(YAML_VALUES)
    return category, entry


@bounded(150)
@given(case=mutated_seed_entries() | st.tuples(st.sampled_from(sorted(FILES)), YAML_VALUES))
def test_a_catalog_entry_reads_or_raises_an_error_naming_it(case):
    category, entry = case
    try:
        record = part_from_entry(category, entry, FILES[category])
    except CatalogFileError as error:
        assert str(error).startswith(FILES[category]), error
    else:
        assert record.slug == entry["slug"] and record.category == category


FILE_TEXTS = (
    YAML_VALUES.map(lambda value: yaml.safe_dump(value, allow_unicode=True))
    | st.text(max_size=120)
    | st.binary(max_size=40).map(lambda data: data.decode("latin-1"))
)


@bounded(100)
@given(
    files=st.dictionaries(
        st.sampled_from(["manufacturers.yaml", "prices.yaml", *FILES.values()]),
        FILE_TEXTS
        | mutated_seed_entries().map(lambda case: yaml.safe_dump([case[1]], allow_unicode=True)),
        min_size=1,
        max_size=3,
    )
)
def test_a_catalog_folder_reads_or_raises_an_error_naming_the_file(files):
    with tempfile.TemporaryDirectory() as folder:
        for name, text in files.items():
            (Path(folder) / name).write_text(text, encoding="utf-8")
        try:
            result = read_catalog_folder(Path(folder))
        except CatalogFileError as error:
            assert any(str(error).startswith(name) for name in files), error
        else:
            assert all(record.slug for record in result.parts)
