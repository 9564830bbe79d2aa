"""Issue 18: media of the cluster networks' links chosen by length with the compute fabric's
selector (:mod:`planner.domain.networks.media`), for networks whose parts no reference
architecture prints (a converged SN5600 400G fabric for DGX-B300, its OOB uplinks).

The seed's DGX-B300 record lists no storage or converged port (no cage), so most tests add
one to a copy of the record: two 400G QSFP112 storage ports (an assumption of these tests,
not a catalog figure). Expected parts are not hard-coded: each is checked against the
catalog's reach and the stored ranking.
"""

import csv
from collections import Counter, defaultdict
from dataclasses import replace

import pytest

from planner.analyses.power import power_budget
from planner.domain.networks.elements import cluster_elements
from planner.domain.networks.media import apply_network_media
from planner.domain.outputs import cabling_csv_lines
from planner.domain.outputs.bom import bill_of_materials
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from planner.domain.summary import summarize

#: Test assumption (not in the seed): the DGX-B300's storage / converged ports.
B300_PORTS = [{"role": "storage", "count": 2, "form_factor": "QSFP112", "port_speed_gbps": 400}]


def b300(layout=None, management_racks=1):
    document = {
        "name": "b300-converged",
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": 64,
        "switches": {"leaf": "Q3400-RA"},
        "networks": {
            "converged": {"leaf": "SN5600", "speed_gbps": 400, "uplinks": 4},
            "oob": {"leaf": "SN2201"},
            "management_racks": management_racks,
        },
    }
    if layout:
        document["layout"] = layout
    return parse_spec(document)


@pytest.fixture(scope="module")
def ported(facts):
    parts = dict(facts.parts)
    parts["DGX-B300"] = {**parts["DGX-B300"], "other_ports": B300_PORTS}
    return replace(facts, parts=parts)


@pytest.fixture(scope="module")
def built(ported):
    fabric = build_fabric(b300(), ported)
    return fabric, cluster_elements(fabric, ported)


def _options(fabric, network, group):
    found = next(g for g in fabric.settings.networks[network]["link_groups"] if g["name"] == group)
    return found, [c for option in found["media_options"] for c in option["candidates"]]


def test_every_converged_node_and_spine_link_gets_parts_within_reach(built, ported):
    fabric, elements = built
    for group in ("node-leaf", "leaf-spine"):
        info, options = _options(fabric, "converged", group)
        reach = {(c["a"] or "", c["b"] or "", c["cable"]): c["reach_m"] for c in options}
        links = [x for x in elements.links_of("converged") if x.group == group]
        assert len(links) == info["links"] and links
        for link in links:
            assert link.cable_part, link
            key = (link.a_transceiver, link.b_transceiver, link.cable_part)
            assert link.run_length_m is not None and link.run_length_m <= reach[key]
            # an optic has a module at each end; a cable assembly none
            record = ported.parts[link.cable_part]
            assert bool(link.a_transceiver) == (record["category"] == "fiber")
        # the first ranked option that reaches the group's longest run was taken (the runs
        # here share cages, so the longest decides)
        longest = max(x.run_length_m for x in links)
        first = next(c for c in options if c["reach_m"] >= longest)
        assert {x.cable_part for x in links} == {first["cable"]}
    assert not any(
        "Parts are not chosen" in c for c in fabric.settings.networks["converged"]["conventions"]
    )


def test_short_runs_take_copper_long_runs_optics(built, ported):
    """The same stored options applied to runs shortened to 1 m on two leaf cages: those
    links take the first ranked option that reaches 1 m; the others keep the longer reach."""
    fabric, elements = built
    _, options = _options(fabric, "converged", "node-leaf")
    assert options[0]["reach_m"] < options[-1]["reach_m"]
    short_cages = {("conv-leaf-01", "1"), ("conv-leaf-01", "2")}
    links = [
        replace(x, run_length_m=1.0)
        if x.group == "node-leaf" and (x.b_device, x.b_port.split("/")[0]) in short_cages
        else x
        for x in elements.links
    ]
    devices = {d.name: d for d in elements.devices}
    again = apply_network_media(links, fabric.settings.networks, devices, ported)
    node = [x for x in again if x.network == "converged" and x.group == "node-leaf"]
    short = [x for x in node if x.run_length_m == 1.0]
    long = [x for x in node if x.run_length_m != 1.0]
    assert len(short) == 4
    assert {x.cable_part for x in short} == {options[0]["cable"]}
    assert ported.parts[options[0]["cable"]]["category"] == "cable"  # copper or AOC
    assert {x.cable_part for x in long} != {options[0]["cable"]}
    assert all(ported.parts[x.cable_part]["category"] == "fiber" for x in long)


def test_oob_keeps_cat5e_and_says_why_its_uplinks_have_no_part(built):
    fabric, elements = built
    oob = fabric.settings.networks["oob"]
    for group in oob["link_groups"]:
        if group["speed_gbps"] == 1:
            assert group["cable"]["part"].startswith("Cat5e") and "media" not in group
    uplinks = [x for x in elements.links_of("oob") if x.group == "uplinks"]
    assert uplinks and not any(x.cable_part for x in uplinks)
    # SN2201 QSFP28 to SN5600 OSFP at 100G: nothing in the catalog fits both cages
    assert any(c.startswith("oob uplinks") and "not chosen" in c for c in oob["conventions"])


def test_bom_cabling_plan_and_summary_agree(built, ported):
    fabric, elements = built
    rows = list(csv.DictReader(cabling_csv_lines(fabric, ported, elements=elements)))
    bom = bill_of_materials(fabric, ported)
    summary = summarize(fabric)["networks"]["converged"]
    plan = defaultdict(set)
    modules = set()  # (part, device, cage): one module per used cage
    for row in rows:
        if row["network"] != "converged":
            continue
        if row["cable_part"]:
            plan[row["cable_part"]].add(row["assembly"] or row["label"])
    for link in elements.links_of("converged"):
        for device, port, part in (
            (link.a_device, link.a_port, link.a_transceiver),
            (link.b_device, link.b_port, link.b_transceiver),
        ):
            if part:
                modules.add((part, device, port.split("/")[0]))
    listed = Counter()
    optics = Counter()
    for line in bom.lines:
        if line.tier != "converged":
            continue
        if line.category in ("cable", "fiber"):
            listed[line.part] += line.base_quantity
        if line.category == "transceiver":
            optics[line.part] += line.base_quantity
    assert {part: len(ids) for part, ids in plan.items()} == dict(listed)
    assert {k: v for k, v in summary["cables"].items() if k != "not chosen"} == dict(listed)
    assert optics == Counter(part for part, _, _ in modules)
    assert optics == Counter(
        {p: n for side in summary["transceivers_by_side"].values() for p, n in side.items()}
    )


def test_power_budget_counts_the_chosen_transceivers(built, ported):
    fabric, _ = built
    converged = power_budget(fabric, ported).as_dict()["by_network"]["converged"]
    counts = summarize(fabric)["networks"]["converged"]["transceivers"]
    expected = 0.0
    for part, count in counts.items():
        record = ported.parts[part]
        watts = record.get("power_max_w") or record.get("power_typical_w")
        assert watts, part
        expected += watts * count
    assert converged["transceivers_w"] == pytest.approx(expected, abs=0.5)


def test_the_seed_b300_storage_ports_get_parts(facts):
    """The seed's DGX-B300 lists its storage ports (issue 36.4: a pair per the B300 RA,
    QSFP112 on its BlueField-3 cards, 400G as the DGX B200's): converged node links get parts."""
    fabric = build_fabric(b300(), facts)
    converged = fabric.settings.networks["converged"]
    node = next(g for g in converged["link_groups"] if g["name"] == "node-leaf")
    assert node["cable"] is not None and node["links"] == 64 * 2
    assert not any("unknown cage" in c for c in converged["conventions"])


def test_a_node_port_without_a_cage_is_not_chosen_and_said(facts):
    """A DGX-B300 whose record lists no converged port: its links keep no part, saying why."""
    parts = dict(facts.parts)
    parts["DGX-B300"] = {**parts["DGX-B300"], "other_ports": []}
    facts = replace(facts, parts=parts)
    fabric = build_fabric(b300(), facts)
    converged = fabric.settings.networks["converged"]
    node = next(g for g in converged["link_groups"] if g["name"] == "node-leaf")
    assert node["cable"] is None and "media" not in node
    assert any(
        c.startswith("converged node-leaf") and "unknown cage" in c
        for c in converged["conventions"]
    )
    bom = bill_of_materials(fabric, facts)
    assert any("node-leaf cable(s)" in n and "not chosen" in n for n in bom.notes)


def test_runs_past_every_reach_are_refused_and_said(ported):
    fabric = build_fabric(b300(layout={"racks_per_row": 2, "row_pitch_m": 6.0}), ported)
    converged = fabric.settings.networks["converged"]
    node = next(g for g in converged["link_groups"] if g["name"] == "node-leaf")
    assert node["cable"] is None and node["media"] == []
    text = next(c for c in converged["conventions"] if c.startswith("converged node-leaf"))
    assert "no media reach" in text and "not chosen" in text


def test_runs_unknown_everywhere_are_not_guessed(ported):
    """Without management racks the converged switches have no rack, so no run is known."""
    fabric = build_fabric(b300(management_racks=0), ported)
    converged = fabric.settings.networks["converged"]
    node = next(g for g in converged["link_groups"] if g["name"] == "node-leaf")
    assert node["cable"] is None
    assert any("no run length is known" in c for c in converged["conventions"])
