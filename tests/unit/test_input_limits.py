"""Issue 34: hostile uploads end in the parser's own error, never an exception escaping it.

Integer size, nesting depth and text a response cannot carry, for every text parser (pure:
no database)."""

from __future__ import annotations

import json

import pytest

from inventory.library.documents import MAX_NUMBER_CHARS, DocumentError, load_json, load_yaml
from planner.domain.asbuilt.counters import CountersError, parse_counters
from planner.domain.asbuilt.parsers import ParseError, parse
from planner.domain.spec import SpecError, load_spec_text

HUGE = "9" * 5000  # over Python's 4,300-digit limit of int(str)


@pytest.mark.parametrize(
    "text",
    [
        f'{{"name": "x", "servers": {HUGE}}}',
        f"name: x\nservers: {HUGE}\n",
        f"name: x\nservers: 0x{'f' * 5000}\n",
        f'{{"name": "x", "servers": {HUGE}.5}}',
    ],
    ids=["json-int", "yaml-int", "yaml-hex", "json-float"],
)
def test_a_5000_digit_number_in_a_spec_is_a_spec_error(text):
    with pytest.raises(SpecError) as caught:
        load_spec_text(text)
    assert f"the limit is {MAX_NUMBER_CHARS} characters" in str(caught.value)


def test_numbers_up_to_the_limit_and_long_strings_still_read():
    digits = "1" * MAX_NUMBER_CHARS
    assert load_json(f"[{digits}]") == [int(digits)]
    assert load_yaml(f"a: {digits}") == {"a": int(digits)}
    sha512 = "f" + "0" * 127  # a long hex text is text, not a number
    assert load_yaml(f"a: {sha512}") == {"a": sha512}
    with pytest.raises(DocumentError) as caught:
        load_yaml(f"a: 1\nb: {digits}1")
    assert caught.value.code == "long-number" and str(caught.value).startswith("line 2:")


@pytest.mark.parametrize("text", ["[" * 100_000, '{"a":' * 30_000], ids=["lists", "objects"])
def test_deep_lldp_json_is_a_parse_error(text):
    with pytest.raises(ParseError) as caught:
        parse("lldp-json", text)
    assert "nested deeper than" in str(caught.value)


@pytest.mark.parametrize("text", ["[" * 100_000, '{"a":' * 30_000, f"[{HUGE}]"])
def test_deep_or_huge_counters_json_is_a_counters_error(text):
    with pytest.raises(CountersError) as caught:
        parse_counters(text, "counters-json")
    assert caught.value.problems[0].code == "bad-json"


@pytest.mark.parametrize(
    "document",
    [
        [{"device": "\ud800", "port": "1/1", "interval_s": 10, "rx_bytes": 1}],
        {"leaf\ud800": {"1/1": {"interval_s": 10, "rx_bytes": 1}}},
    ],
    ids=["value", "key"],
)
def test_a_lone_surrogate_in_counters_json_gives_an_encodable_error(document):
    text = json.dumps(document)  # "\ud800" written as its JSON escape, as a client sends it
    with pytest.raises(CountersError) as caught:
        parse_counters(text, "counters-json")
    body = json.dumps([p.as_dict() for p in caught.value.problems], ensure_ascii=False)
    body.encode("utf-8")  # what a response does with it; a lone surrogate raises here
    assert "lone surrogate" in body


def test_a_lone_surrogate_in_lldp_json_is_refused_encodably():
    text = json.dumps({"leaf01": {"lldp": {"interface": {"swp1": {"chassis": {"\ud800": {}}}}}}})
    with pytest.raises(ParseError) as caught:
        parse("lldp-json", text)
    (str(caught.value) + caught.value.field).encode("utf-8")


# --- numbers inside their physical range (inventory.library.quantities) ----------------------

COUNTERS_HEADER = "device,port,interval_s,rx_bytes,temperature_c\n"


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ("leaf-1,1,1e308,100,40", "interval_s"),
        ("leaf-1,1,1e-27,100,40", "interval_s"),
        ("leaf-1,1,10,1e308,40", "rx_bytes"),
        ("leaf-1,1,10,100,1e308", "temperature_c"),
        ("leaf-1,1,10,100,-300", "temperature_c"),
        ("leaf-1,1,10,100,NaN", "temperature_c"),
    ],
)
def test_counters_out_of_range_are_refused_naming_row_and_field(row, field):
    with pytest.raises(CountersError) as caught:
        parse_counters(COUNTERS_HEADER + row + "\n", "counters-csv")
    (problem,) = caught.value.problems
    assert (problem.row, problem.field) == (2, field), problem
    assert "row 2" in problem.message


def test_counters_in_range_still_read():
    snapshot = parse_counters(
        COUNTERS_HEADER + "leaf-1,1,0.5,18446744073709551615,85\n", "counters-csv"
    )
    (port,) = snapshot.rows
    assert (port.interval_s, port.rx_bytes, port.temperature_c) == (0.5, 2**64 - 1, 85)


IB = (
    'Switch\t65 "S-1"\t# "MF0;leaf:MQM9700/U1" lid 1\n'
    '[1]\t"H-2"[1](2)\t# "gpu00001 mlx5_0" lid 12 {width}xNDR\n'
    'Ca\t1 "H-2"\t# "gpu00001 mlx5_0"\n'
    '[1](2)\t"S-1"[1]\t# "MF0;leaf:MQM9700/U1" lid 1 {width}xNDR\n'
)


def test_an_ibnetdiscover_width_that_is_not_one_is_a_parse_error():
    (link,) = parse("ibnetdiscover", IB.format(width=4))
    assert link.speed_gbps == 400
    for width in ("99999999999999", "3", "16"):
        with pytest.raises(ParseError) as caught:
            parse("ibnetdiscover", IB.format(width=width))
        assert (caught.value.row, caught.value.field) == (2, "width")


NETBOX = "side_a_device,side_a_name,side_b_device,side_b_name,length,length_unit\n"


@pytest.mark.parametrize(
    ("length", "unit"),
    [("1e308", "m"), ("NaN", "m"), ("-1", "m"), ("300", "km"), ("3", "parsecs"), ("far", "")],
)
def test_a_netbox_cable_length_out_of_range_is_a_parse_error(length, unit):
    with pytest.raises(ParseError) as caught:
        parse("netbox-cables", NETBOX + f"gpu1,eth0,leaf1,swp1,{length},{unit}\n")
    assert caught.value.row == 2 and caught.value.field in ("length", "length_unit")


def test_a_netbox_cable_length_in_range_reads():
    (cable,) = parse("netbox-cables", NETBOX + "gpu1,eth0,leaf1,swp1,30,ft\n")
    assert cable.a_device == "gpu1"


@pytest.mark.parametrize("speed", ["1e308", "99999999999999999999G", "-4"])
def test_an_lldp_speed_out_of_range_is_a_parse_error(speed):
    text = f"local_device,local_port,remote_device,remote_port,speed\nl1,1,l2,2,{speed}\n"
    with pytest.raises(ParseError) as caught:
        parse("lldp-csv", text)
    assert caught.value.row == 2


@pytest.mark.parametrize("length_m", [1e308, float("nan"), -1, 300_000])
def test_a_canvas_link_length_out_of_range_is_refused_naming_the_link(facts, length_m):
    from planner.domain.canvas.edit_documents import validate_edit

    document = {
        "nodes": [
            {"name": "s1", "model": "DGX-H100", "role": "server"},
            {"name": "l1", "model": "QM9700", "role": "leaf"},
        ],
        "links": [{"a": "s1", "a_port": 1, "b": "l1", "b_port": 1, "length_m": length_m}],
    }
    problems = [v for v in validate_edit(document, facts) if v.severity == "error"]
    assert [v.code for v in problems] == ["malformed"]
    assert "length_m" in problems[0].message
    document["links"][0]["length_m"] = 10
    assert [v for v in validate_edit(document, facts) if v.severity == "error"] == []


@pytest.mark.parametrize("fmt", ["lldp-csv", "netbox-cables", "ibnetdiscover", "lldp-json"])
def test_a_file_over_the_line_limit_is_refused_before_parsing(fmt):
    from planner.domain.asbuilt.parsers import MAX_LINES

    with pytest.raises(ParseError) as caught:
        parse(fmt, "\n" * MAX_LINES, device="leaf01")
    assert f"the limit is {MAX_LINES:,}" in str(caught.value)


@pytest.mark.parametrize("loss_db", [float("nan"), float("inf"), 1e308])
def test_an_optics_loss_out_of_range_is_refused_naming_it(loss_db):
    from inventory.library.optics import OpticsFileError, _loss

    with pytest.raises(OpticsFileError) as caught:
        _loss(loss_db, "fiber.OM4.attenuation_db_per_km")
    assert caught.value.field == "fiber.OM4.attenuation_db_per_km"
    assert _loss(0.35, "fiber.OM4.attenuation_db_per_km") == 0.35
