"""Issue 34: a Hypothesis fuzz test per upload format read by pure code (no database).

Each starts from a real sample of its format (tests/data, the design presets) and changes it
at random: cells and lines replaced by hostile tokens (NaN, 1e308, a 5,000-digit number, deep
brackets, quotes, NUL, lone surrogates written as JSON escapes), or whole JSON documents of
any shape. Whatever comes in, the parser returns or raises its own documented error, whose
message a response can carry (encodes as UTF-8); never another exception, which a view would
turn into a 500. The catalog and price book CSV imports (which need the database) have theirs
in tests/services/test_import_properties.py; the API as a whole in tests/api/test_schema_fuzz.py.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inventory.library.netbox import NetboxFileError, parse_devicetype
from planner.domain.asbuilt.counters import CountersError, parse_counters
from planner.domain.asbuilt.parsers import FORMATS, ParseError, parse
from planner.domain.spec import SpecError, load_spec_text, parse_spec

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
FAST = settings(
    max_examples=int(os.environ.get("FUZZ_UPLOAD_EXAMPLES", "40")),
    deadline=None,
    derandomize=IN_CI,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: What an attacker types into a cell or a value.
HOSTILE = st.sampled_from(
    [
        "",
        "NaN",
        "nan",
        "inf",
        "-Infinity",
        "1e308",
        "-1e308",
        "1e-27",
        "-1",
        "0",
        "9" * 5000,
        "0x" + "f" * 200,
        "[" * 2000,
        '{"a":' * 2000,
        '"',
        ",",
        "\n",
        "\x00",
        "\\ud800",
        "99999999999999xNDR",
        "2026-12-01T10:00:00Z",
        "9999-12-31",
        "{}",
        "[]",
        "null",
        "true",
        "swp1",
        "1/1",
    ]
)
TOKEN = HOSTILE | st.text(max_size=12)


def _encodable(exc: Exception) -> None:
    """The error's words can be sent back (a lone surrogate in them would fail here)."""
    text = str(exc) + "".join(str(getattr(exc, name, "")) for name in ("field", "path"))
    text.encode("utf-8")


@st.composite
def mutated(draw, sample: str) -> str:
    """``sample`` with a few of its pieces (split at separators) replaced or duplicated."""
    pieces = sample.replace(",", "\x1f,\x1f").replace("\n", "\x1f\n\x1f").split("\x1f")
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(pieces) - 1))
        action = draw(st.sampled_from(["replace", "insert", "repeat", "drop"]))
        if action == "replace":
            pieces[index] = draw(TOKEN)
        elif action == "insert":
            pieces.insert(index, draw(TOKEN))
        elif action == "repeat":
            pieces[index:index] = [pieces[index]] * draw(st.integers(1, 50))
        elif len(pieces) > 1:
            pieces.pop(index)
    return "".join(pieces)


JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.sampled_from([10**40, 2**64, -(2**63), "\ud800", "a\x00b"])
    | st.text(max_size=10)
)
JSON_ANY = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TOKEN, inner, max_size=4),
    max_leaves=20,
)


#: JSON nested past any parser's recursion (lldpd, counters): ``[[[...`` or ``{"a":{"a":...``.
DEEP_JSON = st.builds(
    lambda opener, depth, tail: opener * depth + tail,
    st.sampled_from(["[", '{"a":', '{"lldp":{"interface":[']),
    st.integers(1, 100_000),
    st.sampled_from(["", "1", "]" * 10, "}"]),
)


def _json_text(value) -> str:
    return json.dumps(value)  # NaN and Infinity written as JavaScript does; "\ud800" escaped


SAMPLES = {
    "lldp-json": (DATA / "asbuilt" / "lldpctl.json").read_text(),
    "lldp-csv": (DATA / "asbuilt" / "nvue-lldp.csv").read_text(),
    "ibnetdiscover": (DATA / "asbuilt" / "ibnetdiscover.txt").read_text(),
    "netbox-cables": (
        (DATA / "asbuilt" / "netbox-cables.csv").read_text()
        + "\n"
        + "side_a_device,side_a_name,side_b_device,side_b_name,status,length,length_unit\n"
        + "gpu00001,mlx5_0,leaf-su001-r1,1/1,connected,3,m\n"
    ),
}
COUNTERS_CSV = (
    "device,port,interval_s,rx_bytes,tx_bytes,fec_corrected,rx_power_dbm,temperature_c\n"
    "leaf-su001-r1,1/1,10,500000000000,400000000000,12,-2.1;-2.3,41.5\n"
    "leaf-su001-r1,1/2,10,1,1,0,-40,39\n"
)
COUNTERS_JSON = _json_text(
    {
        "design": "x",
        "ports": [
            {"device": "leaf-su001-r1", "port": "1/1", "interval_s": 10, "rx_bytes": 5e11},
            {"device": "gpu00001", "port": "mlx5_0", "temperature_c": 40, "rx_power_dbm": [-2]},
        ],
    }
)


def _cabling(fmt: str, text: str) -> None:
    try:
        rows = parse(fmt, text, device="leaf-su001-r1")
    except ParseError as exc:
        _encodable(exc)
        return
    for row in rows:
        assert row.speed_gbps is None or 0 <= row.speed_gbps <= 1e6


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_cabling_files_end_in_a_parse_error_or_rows(fmt):
    @FAST
    @given(mutated(SAMPLES[fmt]))
    def run(text):
        _cabling(fmt, text)

    run()


@FAST
@given(JSON_ANY)
def test_lldp_json_of_any_shape(document):
    _cabling("lldp-json", _json_text(document))
    _cabling("lldp-json", _json_text({"leaf01": {"lldp": {"interface": document}}}))


@FAST
@given(DEEP_JSON)
def test_deep_json_ends_in_the_parsers_error(text):
    _cabling("lldp-json", text)
    _counters(text, "counters-json")


def _counters(text: str, fmt: str) -> None:
    try:
        snapshot = parse_counters(text, fmt)
    except CountersError as exc:
        _encodable(exc)
        json.dumps([p.as_dict() for p in exc.problems], ensure_ascii=False).encode("utf-8")
        return
    for port in snapshot.rows:
        for value in (port.interval_s, port.rx_bytes, port.temperature_c):
            assert value is None or math.isfinite(value)


@FAST
@given(mutated(COUNTERS_CSV))
def test_counters_csv_ends_in_a_counters_error_or_a_snapshot(text):
    _counters(text, "counters-csv")


@FAST
@given(mutated(COUNTERS_JSON) | JSON_ANY.map(_json_text))
def test_counters_json_ends_in_a_counters_error_or_a_snapshot(text):
    _counters(text, "counters-json")


@FAST
@given(
    st.dictionaries(TOKEN, JSON_ANY, max_size=3),
    st.sampled_from(["json", "yaml"]),
)
def test_a_spec_of_any_shape_ends_in_a_spec_error_or_a_spec(extra, form):
    base = load_spec_text((ROOT / "planner/domain/examples/h100-superpod-1su.yaml").read_text())
    document = {**base, **extra}
    text = _json_text(document)
    if form == "yaml":
        text = "\n".join(
            f"{json.dumps(key)}: {json.dumps(value)}" for key, value in document.items()
        )
    try:
        parse_spec(load_spec_text(text))
    except SpecError as exc:
        _encodable(exc)


@FAST
@given(mutated((ROOT / "planner/domain/examples/h100-superpod-1su.yaml").read_text()))
def test_a_mutated_spec_file_ends_in_a_spec_error_or_a_spec(text):
    try:
        parse_spec(load_spec_text(text))
    except SpecError as exc:
        _encodable(exc)


NETBOX_GOOD = sorted((DATA / "netbox" / "good").rglob("*.yaml"))


@FAST
@given(st.sampled_from(NETBOX_GOOD).flatmap(lambda path: mutated(path.read_text())))
def test_a_netbox_device_type_ends_in_its_error_or_a_record(text):
    try:
        parse_devicetype(text, "fuzz.yaml")
    except NetboxFileError as exc:
        _encodable(exc)


@pytest.fixture(scope="module")
def one_su_plan(facts):
    """The 1 SU H100 design and its cabling plan CSV as the product writes it."""
    from planner.domain.outputs import cabling_csv_lines
    from planner.domain.pipeline import build_fabric

    spec = load_spec_text((ROOT / "planner/domain/examples/h100-superpod-1su.yaml").read_text())
    fabric = build_fabric(parse_spec(spec), facts)
    return fabric, "".join(cabling_csv_lines(fabric, facts))


def test_an_edited_cabling_plan_ends_in_its_error_or_a_valid_edit(one_su_plan, facts):
    from planner.domain.canvas import edit_document, validate_edit
    from planner.domain.outputs import CablingImportError, cabling_edit

    fabric, plan = one_su_plan
    document = edit_document(fabric)

    @FAST
    @given(mutated(plan))
    def run(text):
        try:
            edit = cabling_edit(fabric, text, document, facts)
        except CablingImportError as exc:
            _encodable(exc)
            return
        for violation in validate_edit(edit.document, facts):  # problems, never an exception
            violation.message.encode("utf-8")

    run()
