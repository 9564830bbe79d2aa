"""Breakouts to different devices drawn as an edit document (issue 19 item 5): an 800G
twin-port cage of a QM9700 split 2 x 400G by one MCP7Y00 splitter DAC to two servers.

The servers are Supermicro SYS-821GE-TNHR (one 400G single-port flat-top OSFP per NIC) and
the cable the catalog's NVIDIA MCP7Y00-N002 (1:2, finned twin-port OSFP head, 2 x 400G
flat-top OSFP legs, 2 m; seed cables.yaml).
"""

import copy

import pytest

from planner.analyses.validate import validate_fabric
from planner.domain.canvas import EditError, fabric_from_edit, link_options, validate_edit
from planner.domain.outputs import (
    CABLING_COLUMNS,
    bill_of_materials,
    cabling_csv_lines,
    cabling_edit,
    cabling_rows,
)

SPLITTER = "MCP7Y00-N002"
SERVER = "SYS-821GE-TNHR"


def _breakout(legs: int = 2, speed: int = 400, cable: str = SPLITTER) -> dict:
    """One QM9700 cage (ports 1..legs at ``speed``) to port 1 of ``legs`` servers."""
    servers = [f"s{i}" for i in range(1, legs + 1)]
    return {
        "nodes": [
            *({"name": name, "model": SERVER, "role": "server"} for name in servers),
            {"name": "l1", "model": "QM9700", "role": "leaf"},
        ],
        "links": [
            {
                "a": name,
                "a_port": 1,
                "b": "l1",
                "b_port": i + 1,
                "speed_gbps": speed,
                "cable": cable,
                "length_m": 1 + 0.5 * i,
            }
            for i, name in enumerate(servers)
        ],
    }


def test_link_options_offer_the_splitter_with_its_legs(facts):
    options = link_options(SERVER, "QM9700", facts=facts, speed_gbps=400).as_dict()
    assert options["b_ports_per_cage"] == 2  # the QM9700's twin-port OSFP at 400G
    by_cable = {o["cable"]: o for o in options["options"]}
    assert (by_cable[SPLITTER]["legs"], by_cable[SPLITTER]["leg_speed_gbps"]) == (2, 400)
    straight = [o for o in options["options"] if o["kind"] in ("MMF", "SMF")]
    assert straight and all(o["legs"] == 1 and o["leg_speed_gbps"] is None for o in straight)


def test_a_1_to_2_breakout_to_two_servers(facts):
    document = _breakout()
    assert validate_edit(document, facts) == []
    fabric = fabric_from_edit(document, facts)
    # Both legs are one assembly, on two different servers.
    assert fabric.link_cable.tolist()[0] == fabric.link_cable.tolist()[1] >= 0
    assert fabric.link_a[0] != fabric.link_a[1]
    # Whole-fabric validation: no cable, cage, speed or wiring rule fires; only that 7 of
    # each server's 8 NIC ports are left unlinked in this two-leg drawing.
    assert validate_fabric(fabric, facts).codes("error") == {"server-ports-unconnected"}

    bom = bill_of_materials(fabric, facts)
    cables = [line for line in bom.lines if line.category == "cable"]
    assert [(line.part, line.quantity) for line in cables] == [(SPLITTER, 1)]
    # Ordered at the shortest listed length that covers the longer leg (1.5 m).
    listed = facts.parts[SPLITTER].get("lengths_m") or [facts.parts[SPLITTER]["max_length_m"]]
    assert cables[0].length_m == min(x for x in listed if x >= 1.5)

    rows = [dict(zip(CABLING_COLUMNS, row, strict=True)) for row in cabling_rows(fabric, facts)]
    assert len(rows) == 2
    assert {row["a_device"] for row in rows} == {"s1", "s2"}
    assert {row["assembly"] for row in rows} == {"l1.P1 1:2"}
    assert sorted(row["leg"] for row in rows) == ["1", "2"]
    assert {row["cable_part"] for row in rows} == {SPLITTER}

    # Re-import of the plan as written keeps the assembly: nothing changes, same cable.
    text = "".join(cabling_csv_lines(fabric, facts))
    edit = cabling_edit(fabric, text, document, facts)
    assert (edit.changed, edit.added_rows, edit.removed) == ([], [], [])
    again = fabric_from_edit(edit.document, facts)
    assert len(set(again.link_cable.tolist())) == 1
    assert "".join(cabling_csv_lines(again, facts)) == text


def test_more_legs_than_the_part_has_are_refused_naming_every_leg(facts):
    # QM9700 at 200G: four logical ports per twin-port cage, all four naming a 1:2 part.
    document = _breakout(legs=4, speed=200)
    problems = {p.code: p for p in validate_edit(document, facts)}
    legs = problems["breakout-legs"]
    assert legs.element_ids == ("node:l1", "link:0", "link:1", "link:2", "link:3")
    assert "1:2 breakout, but 4 links name it" in legs.message
    assert "s4 port 1 (200G)" in legs.message and "link:" not in legs.message
    # The legs are not refused again one group at a time.
    assert "cable-mismatch" not in problems
    with pytest.raises(EditError):
        fabric_from_edit(document, facts)


def test_legs_of_different_speeds_are_refused_naming_both(facts):
    document = _breakout()
    document["links"][1]["speed_gbps"] = 200  # port 2 at 200G is still in cage 1
    problems = [p for p in validate_edit(document, facts) if p.severity == "error"]
    assert [p.code for p in problems] == ["breakout-leg-speed"]
    assert problems[0].element_ids == ("node:l1", "link:0", "link:1")
    assert "2 x 400G legs" in problems[0].message and "s2 port 1 (200G)" in problems[0].message


def test_legs_in_two_cages_are_two_assemblies(facts):
    document = _breakout()
    document["links"][1]["b_port"] = 3  # cage 2: each cage gets its own splitter, one leg used
    fabric = fabric_from_edit(copy.deepcopy(document), facts)
    assert len(set(fabric.link_cable.tolist())) == 2
    cables = [line for line in bill_of_materials(fabric, facts).lines if line.category == "cable"]
    assert sum(line.quantity for line in cables) == 2


# --- 1:4 to four servers: an 800G twin-port cage at 4 x 200G -----------------------------------
#
# NVIDIA runs a 400G ConnectX-7 port at 200G on two of its four lanes: through the MCP7Y50 1:4
# splitter DAC (twin-port OSFP head, 4 x 200G flat-top OSFP legs; seed cables.yaml), or with a
# twin-port MMA4Z00-NS whose two MPO ports each feed an MFP7E20 1:2 splitter fiber to two
# MMA4Z00-NS400 ("will activate only 2-channels ... creating a 200G speed", MMA4Z00-NS400-T).
# Each NIC cage is then one 200G port, one leg.

DAC_1_4 = "MCP7Y50-Nxxx"
SPLITTER_FIBER = "MFP7E20-Nxxx"


def _optics_1_4(fiber: str = SPLITTER_FIBER) -> dict:
    document = _breakout(legs=4, speed=200, cable=fiber)
    for link in document["links"]:
        link.update(a_part="MMA4Z00-NS400", b_part="MMA4Z00-NS", length_m=20)
    return document


def _rows(fabric, facts) -> list[dict]:
    return [dict(zip(CABLING_COLUMNS, row, strict=True)) for row in cabling_rows(fabric, facts)]


def _reimports_unchanged(fabric, facts, document) -> None:
    text = "".join(cabling_csv_lines(fabric, facts))
    edit = cabling_edit(fabric, text, document, facts)
    assert (edit.changed, edit.added_rows, edit.removed) == ([], [], [])
    assert "".join(cabling_csv_lines(fabric_from_edit(edit.document, facts), facts)) == text


def test_link_options_at_200g_offer_the_1_to_4_dac_and_the_splitter_optics(facts):
    options = link_options(SERVER, "QM9700", facts=facts, speed_gbps=200).as_dict()
    assert options["b_ports_per_cage"] == 4  # the twin-port cage at 4 x 200G: one 1:4 head
    by_cable = {(o["cable"], o["a_part"]): o for o in options["options"]}
    assert (by_cable[DAC_1_4, None]["legs"], by_cable[DAC_1_4, None]["leg_speed_gbps"]) == (4, 200)
    optics = by_cable[SPLITTER_FIBER, "MMA4Z00-NS400"]
    assert (optics["b_part"], optics["legs"]) == ("MMA4Z00-NS", 2)
    # A 1:2 DAC with 400G legs no longer fits: the 200G NIC cage is one port, not two.
    assert not any(o["cable"].startswith("MCP7Y00") for o in options["options"])


def test_a_1_to_4_dac_to_four_servers_is_one_assembly_of_four_legs(facts):
    document = _breakout(legs=4, speed=200, cable=DAC_1_4)
    assert validate_edit(document, facts) == []
    fabric = fabric_from_edit(document, facts)
    servers = [fabric.node_name.index(f"s{i}") for i in range(1, 5)]
    assert fabric.node_ports_per_cage[servers].tolist() == [1, 1, 1, 1]
    assert fabric.node_ports_per_cage[fabric.node_name.index("l1")] == 4
    assert len(set(fabric.link_cable.tolist())) == 1
    assert validate_fabric(fabric, facts).codes("error") == {"server-ports-unconnected"}
    cables = [line for line in bill_of_materials(fabric, facts).lines if line.category == "cable"]
    assert [(line.part, line.quantity) for line in cables] == [(DAC_1_4, 1)]
    rows = _rows(fabric, facts)
    assert sorted((row["a_device"], row["leg"]) for row in rows) == [
        ("s1", "1"),
        ("s2", "2"),
        ("s3", "3"),
        ("s4", "4"),
    ]
    assert {row["assembly"] for row in rows} == {"l1.P1 1:4"}
    _reimports_unchanged(fabric, facts, document)


def test_four_nics_at_200g_through_two_splitter_fibers(facts):
    document = _optics_1_4()
    assert validate_edit(document, facts) == []
    fabric = fabric_from_edit(document, facts)
    assert validate_fabric(fabric, facts).codes("error") == {"server-ports-unconnected"}
    optics = {
        line.part: line.quantity
        for line in bill_of_materials(fabric, facts).lines
        if line.category in ("transceiver", "fiber")
    }
    # One twin-port module in the switch cage, one module per NIC, one fiber per MPO port.
    assert optics == {"MMA4Z00-NS": 1, "MMA4Z00-NS400": 4, SPLITTER_FIBER: 2}
    rows = _rows(fabric, facts)
    assemblies = {row["a_device"]: (row["assembly"], row["leg"]) for row in rows}
    assert assemblies == {
        "s1": ("l1.P1.1 1:2", "1"),
        "s2": ("l1.P1.1 1:2", "2"),
        "s3": ("l1.P1.3 1:2", "1"),
        "s4": ("l1.P1.3 1:2", "2"),
    }
    _reimports_unchanged(fabric, facts, document)


def test_a_nic_module_at_half_speed_needs_a_splitter_fiber(facts):
    document = _optics_1_4(fiber="MFP7E10-Nxxx")  # straight: all four lanes, 400G only
    problems = [p for p in validate_edit(document, facts) if p.severity == "error"]
    assert [p.code for p in problems] == ["optics-mismatch"]
    assert "MMA4Z00-NS400 runs 200G only as the leg of a 1:2 splitter fiber" in problems[0].message


def test_splitter_legs_on_two_module_ports_are_two_fibers(facts):
    document = _optics_1_4()
    del document["links"][2:]
    document["links"][0]["b_port"] = 2  # 2nd port of the first MPO, 1st port of the second:
    document["links"][1]["b_port"] = 3  # one cage, two heads
    assert validate_edit(document, facts) == []
    fabric = fabric_from_edit(document, facts)
    assert len(set(fabric.link_cable.tolist())) == 2
    fibers = [line for line in bill_of_materials(fabric, facts).lines if line.category == "fiber"]
    assert [(line.part, line.quantity) for line in fibers] == [(SPLITTER_FIBER, 2)]


def test_a_1_to_4_dac_at_400g_is_refused_naming_its_legs(facts):
    document = _breakout(legs=2, speed=400, cable=DAC_1_4)
    problems = [p for p in validate_edit(document, facts) if p.severity == "error"]
    assert [p.code for p in problems] == ["breakout-leg-speed"]
    assert "4 x 200G legs" in problems[0].message
    assert problems[0].element_ids == ("node:l1", "link:0", "link:1")
