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
    edit = cabling_edit(fabric, text, document)
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
    assert "link:3 (s4 port 1, 200G)" in legs.message
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
    assert "2 x 400G legs" in problems[0].message and "(s2 port 1, 200G)" in problems[0].message


def test_legs_in_two_cages_are_two_assemblies(facts):
    document = _breakout()
    document["links"][1]["b_port"] = 3  # cage 2: each cage gets its own splitter, one leg used
    fabric = fabric_from_edit(copy.deepcopy(document), facts)
    assert len(set(fabric.link_cable.tolist())) == 2
    cables = [line for line in bill_of_materials(fabric, facts).lines if line.category == "cable"]
    assert sum(line.quantity for line in cables) == 2
