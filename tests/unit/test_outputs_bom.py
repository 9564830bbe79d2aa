"""Bill of materials (planner.domain.outputs.bom): published counts, agreement with the
summary, breakouts, NICs, racks and spares."""

import copy
import math
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from inventory.library.provenance import provenance_for
from planner.domain.fabric import ROLE, TIER, FabricBuilder
from planner.domain.media import sold_lengths
from planner.domain.outputs import CATEGORIES, BomError, bill_of_materials, spares_for
from planner.domain.outputs.bom import CABINET_PART, racks_by_kind
from planner.domain.pipeline import build_fabric
from planner.domain.settings import FabricSettings
from planner.domain.spec import parse_spec
from planner.domain.summary import summarize
from tests.unit.test_validate_rules import GB200

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"
GB200_DAC = {**GB200, "media": {"server-leaf": "DAC"}}


def _example(name: str) -> dict:
    return yaml.safe_load((EXAMPLES / name).read_text())


@pytest.fixture(scope="module")
def superpod(facts):
    """The 4 SU DGX H100 SuperPOD example: multimode optics on both tiers."""
    return build_fabric(parse_spec(_example("h100-superpod-4su.yaml")), facts)


@pytest.fixture(scope="module")
def gb200(facts):
    return build_fabric(parse_spec(GB200_DAC), facts)


def _total(bom, **match) -> int:
    return sum(
        line.quantity
        for line in bom.lines
        if all(getattr(line, key) == value for key, value in match.items())
    )


#: NVIDIA DGX SuperPOD H100 reference architecture RA-11333-001 V11, Table 8 (primary): the
#: compute fabric's cables and optics of the 4 SU, 127-node SuperPOD, by printed part number.
TABLE_8 = {
    ("fiber", "980-9I570-00N030"): 2040,  # NDR 400G: 1,016 node links + 1,024 leaf-spine
    ("fiber", "980-9I557-00N030"): 2,  # "NDR Cables, 200 Gbps, UFM to leaf ports"
    ("transceiver", "980-9I510-00NS00"): 1536,  # switch twin-port OSFP: 48 switches x 32 cages
    ("transceiver", "980-9I51A-00NS00"): 508,  # DGX twin-port flat-top OSFP: 127 x 4
    ("transceiver", "980-9I51S-00NS00"): 4,  # "UFM System Transceivers"
}


def _table_8_part(facts, line) -> str:
    """The part number Table 8 prints for a BOM line: a fibre sold in several lengths is the
    one of them Table 8 prints ("part number will depend on exact cable lengths", its note 1),
    else the line's own part number."""
    sold = {number for _, number in sold_lengths(facts.parts[line.part])}
    printed = sold & {number for _, number in TABLE_8}
    return printed.pop() if len(sold) > 1 and printed else line.part_number


#: RA-11333-001 V11 Table 4 (primary): node+UFM -> leaf cables of the 4 SU fabric, 1,016 node
#: links and 4 UFM links.
TABLE_4_NODE_LEAF_CABLES, NODE_LINKS = 1020, 1016


@pytest.mark.parametrize("preset", ["h100-superpod-4su.yaml", "h100-superpod-4su-cluster.yaml"])
def test_superpod_bom_reproduces_table_8(preset, facts):
    """Issue 33 items 4-5: the compute fabric's BOM lines are RA-11333-001 Table 8, row by
    row, the UFM -> leaf fibres and the 4 UFM-side modules included. One row differs, as the
    RA differs from itself: Table 8 prints 2 UFM -> leaf cables where Table 4 counts 4 UFM
    cables among its 1,020 node+UFM -> leaf cables; the QM97x0 manual runs a UFM port as one
    400 Gb/s port, so the BOM orders one per UFM link, as many as the UFM-side modules."""
    fabric = build_fabric(parse_spec(_example(preset)), facts)
    bom = bill_of_materials(fabric, facts)
    compute = [line for line in bom.lines if line.tier in ("server-leaf", "leaf-spine")]
    rows = Counter()
    for line in compute:
        if line.category in ("transceiver", "cable", "fiber"):
            rows[(line.category, _table_8_part(facts, line))] += line.base_quantity
    ufm_links = TABLE_4_NODE_LEAF_CABLES - NODE_LINKS
    assert rows == {**TABLE_8, ("fiber", "980-9I557-00N030"): ufm_links}
    assert rows[("transceiver", "980-9I51S-00NS00")] == ufm_links
    assert int((fabric.link_tier == TIER["server-leaf"]).sum()) == TABLE_4_NODE_LEAF_CABLES
    assert _total(bom, category="server") == 127
    assert _total(bom, category="switch", tier="leaf") == 32
    assert _total(bom, category="switch", tier="spine") == 16


def test_bom_agrees_with_the_summary(superpod, facts):
    bom = bill_of_materials(superpod, facts)
    summary = summarize(superpod)
    by_part = {}
    for line in bom.lines:
        if line.category in ("transceiver", "cable", "fiber"):
            key = (line.category == "transceiver", line.part)
            by_part[key] = by_part.get(key, 0) + line.base_quantity
    assert {p: n for (is_module, p), n in by_part.items() if is_module} == summary["transceivers"]
    assert {p: n for (is_module, p), n in by_part.items() if not is_module} == summary["cables"]
    for part, lengths in summary["cables_by_length"].items():
        for length, count in lengths.items():
            assert _total(bom, part=part, length_m=float(length)) == count, f"{part} at {length} m"


def test_every_line_states_its_counting_rule_and_lines_are_sorted(superpod, facts):
    bom = bill_of_materials(superpod, facts)
    assert all(line.counted_per for line in bom.lines)
    ranks = [CATEGORIES.index(line.category) for line in bom.lines]
    assert ranks == sorted(ranks)
    assert {line.category for line in bom.lines} >= {"server", "switch", "transceiver", "fiber"}
    modules = [line for line in bom.lines if line.category == "transceiver"]
    assert all("module" in line.counted_per for line in modules)
    named = next(line for line in bom.lines if line.part == "MMA4Z00-NS")
    assert named.part_number == facts.parts["MMA4Z00-NS"]["part_number"]
    assert named.manufacturer == "nvidia" and named.name


def test_racks_are_a_line_per_kind_and_never_spared(superpod, gb200, facts):
    """Issue 33: the layout's compute racks are its catalog rack, its switch racks a network
    rack line of their own (they were all ordered as compute racks); racks take no spares."""
    bom = bill_of_materials(superpod, facts, spares_pct={"server": 50, "switch": 50})
    racks = [line for line in bom.lines if line.category == "rack"]
    kinds = Counter(rack["kind"] for rack in superpod.racks)
    assert kinds["server"] and kinds["network"]
    assert [(r.tier, r.part, r.base_quantity) for r in racks] == [
        ("compute", "DGX-H100-SuperPOD-rack", kinds["server"]),
        ("network", CABINET_PART, kinds["network"]),
    ]
    assert sum(r.quantity for r in racks) == len(superpod.racks)
    assert all(r.spares == 0 and r.installed == 0 for r in racks)
    # a kind the layout names no catalog rack for is the catalog's generic cabinet (issue 37)
    assert racks[1].name == facts.parts[CABINET_PART]["name"] and not racks[1].part_number
    # a rack-scale system's compute racks are the systems: no rack line of their own
    rack_scale = bill_of_materials(gb200, facts)
    lines = [line for line in rack_scale.lines if line.category == "rack"]
    network_racks = sum(1 for rack in gb200.racks if rack["kind"] == "network")
    assert [(r.tier, r.base_quantity) for r in lines] == [("network", network_racks)]
    compute_racks = sum(1 for rack in gb200.racks if rack["kind"] == "server")
    assert any(f"{compute_racks:,} compute rack" in note for note in rack_scale.notes)


def test_racks_by_kind_reads_the_layout_and_the_management_racks():
    fabric = SimpleNamespace(
        racks=[{"kind": "server"}] * 3 + [{"kind": "network"}],
        settings=FabricSettings(networks={"oob": {"endpoints": {"management racks": 2}}}),
    )
    assert racks_by_kind(fabric) == {"compute": 3, "network": 1, "management": 2}
    fabric.settings = FabricSettings()
    assert racks_by_kind(fabric)["management"] == 0


def test_a_rack_scale_system_is_spared_by_its_trays_never_whole(gb200, facts):
    """Issue 33: spares of a GB200 NVL72 are compute trays (at the servers' percentage) and
    NVLink switch trays (at the switches'), from the catalog's trays per system; the tray
    lines order spares only."""
    trays = facts.parts["GB200-NVL72"]["trays"]
    systems = int((gb200.node_role == ROLE["server"]).sum())
    bom = bill_of_materials(gb200, facts, spares_pct={"server": 10, "switch": 5})
    by_part = {line.part: line for line in bom.lines}
    system = by_part["GB200-NVL72"]
    assert (system.base_quantity, system.installed, system.spares) == (systems, 0, 0)
    compute = by_part["GB200-NVL72 compute tray"]
    switch = by_part["GB200-NVL72 NVLink switch tray"]
    assert (compute.category, switch.category) == ("server", "switch")
    assert compute.installed == systems * trays["compute"]
    assert switch.installed == systems * trays["switch"]
    assert compute.spares == math.ceil(compute.installed * 10 / 100)
    assert switch.spares == math.ceil(switch.installed * 5 / 100)
    for line in (compute, switch):
        assert line.base_quantity == 0 and line.quantity == line.spares
        assert 0 < line.spares <= line.installed
        assert not line.part_number and line.name.startswith(facts.parts["GB200-NVL72"]["name"])
    provenance = facts.parts["GB200-NVL72"]["provenance"]
    for line, field in ((compute, "trays.compute"), (switch, "trays.switch")):
        assert provenance_for(provenance, field)["grade"] in line.counted_per
    assert bom.quantity_by_part()["GB200-NVL72"] == systems


def test_power_supplies_are_spared_per_model_where_the_catalog_counts_them(facts):
    """Issue 33: PSUs are field-replaceable; a device model with a catalog ``psu_count``
    has a spares-only PSU line (devices x PSUs each) at the PSU percentage alone."""
    fabric = build_fabric(parse_spec(_example("gb300-nvl72-xdr.yaml")), facts)
    plain = bill_of_materials(fabric, facts, spares_pct={"switch": 50, "server": 50})
    spared = bill_of_materials(fabric, facts, spares_pct={"psu": 2})
    devices: Counter = Counter()
    for line in plain.lines:
        if line.category in ("server", "switch") and line.part in facts.parts:
            devices[line.part] += line.base_quantity
    expected = {
        f"{part} PSU": count * facts.parts[part]["psu_count"]
        for part, count in devices.items()
        if facts.parts[part].get("psu_count")
    }
    assert {"GB300-NVL72 PSU", "Q3400-RA PSU"} <= set(expected)
    for bom, pct in ((plain, 0), (spared, 2)):
        psus = {line.part: line for line in bom.lines if line.category == "psu"}
        assert {part: line.installed for part, line in psus.items()} == expected
        for line in psus.values():
            assert line.base_quantity == 0
            assert line.spares == line.quantity == math.ceil(line.installed * pct / 100)
    rating = facts.parts["GB300-NVL72"]["psu_rating_w"]
    psu = next(line for line in spared.lines if line.part == "GB300-NVL72 PSU")
    assert f"({rating:,.0f} W)" in psu.name and "inferred" in psu.counted_per


def test_management_systems_and_pdus_take_their_own_percentage(facts):
    """Issue 33: UFM appliances, management nodes and PDUs are not servers; each group takes
    only its own spares percentage."""
    spec = {**_example("h100-superpod-4su-cluster.yaml")}
    fabric = build_fabric(parse_spec(spec), facts)
    bom = bill_of_materials(fabric, facts, spares_pct={"pdu": 10, "server": 1})
    by_category: dict[str, list] = {}
    for line in bom.lines:
        by_category.setdefault(line.category, []).append(line)
    servers = int((fabric.node_role == ROLE["server"]).sum())
    assert sum(line.base_quantity for line in by_category["server"]) == servers
    pdus, management = by_category["pdu"], by_category["management"]
    assert all(line.spares == math.ceil(line.base_quantity * 10 / 100) for line in pdus)
    assert all(line.spares == 0 for line in management)
    assert all(facts.parts[line.part]["kind"] == "pdu" for line in pdus)
    assert {facts.parts[line.part]["kind"] for line in management} == {
        "appliance",
        "management",
    }


def test_a_breakout_cable_counts_once_for_its_legs(gb200, facts):
    bom = bill_of_materials(gb200, facts)
    down = gb200.link_tier == 0
    legs = int(down.sum())
    dac = [line for line in bom.lines if line.category == "cable"]
    assert dac and all(line.part.startswith("MCP7Y00") for line in dac)
    assert sum(line.quantity for line in dac) == legs // 2
    assert all(line.length_m in (1.0, 1.5, 2.0, 2.5, 3.0) for line in dac)
    # no module is counted for a cable assembly's ends
    assert not [
        line for line in bom.lines if line.category == "transceiver" and "server" in line.tier
    ]


def test_nics_are_counted_only_for_servers_with_a_catalog_compute_nic(facts):
    builder = FabricBuilder()
    builder.add_nodes(["a1", "a2"], role="server", model="XE9680", ports=8, ports_per_cage=1)
    builder.add_nodes(["d1"], role="server", model="DGX-H100", ports=8, ports_per_cage=2)
    empty = np.zeros(0, dtype=np.int32)
    builder.add_links(empty, empty, empty, empty, tier="server-leaf", plane=0, speed_gbps=400)
    fabric = builder.build({})
    bom = bill_of_materials(fabric, facts)
    nics = [line for line in bom.lines if line.category == "nic"]
    cages = sum(group.count for group in facts.devices["XE9680"].port_groups)
    nic_cages = sum(p["count"] for p in facts.parts["B3140H"]["ports"])
    assert [(line.part, line.quantity) for line in nics] == [
        ("B3140H", 2 * math.ceil(cages / nic_cages))
    ]
    assert "XE9680" in nics[0].counted_per


def test_spares_are_a_rounded_up_percentage_per_category(superpod, facts):
    plain = bill_of_materials(superpod, facts)
    spared = bill_of_materials(superpod, facts, spares_pct={"transceiver": 2, "fiber": 0})
    assert spared.spares_pct == {"transceiver": 2.0}
    for before, after in zip(plain.lines, spared.lines, strict=True):
        assert after.base_quantity == before.base_quantity
        expected = (
            math.ceil(before.base_quantity * 2 / 100) if after.category == "transceiver" else 0
        )
        assert after.spares == expected
        assert after.quantity == after.base_quantity + after.spares
    assert (
        spared.quantity_by_category()["transceiver"] > plain.quantity_by_category()["transceiver"]
    )
    assert spared.quantity_by_category()["server"] == plain.quantity_by_category()["server"]


@pytest.mark.parametrize(
    ("spares", "field"),
    [
        ({"widgets": 5}, "spares_pct.widgets"),
        ({"cable": -1}, "spares_pct.cable"),
        ({"cable": "lots"}, "spares_pct.cable"),
        ({"fiber": 5000}, "spares_pct.fiber"),
        ({"rack": 1}, "spares_pct.rack"),
    ],
)
def test_bad_spares_are_refused_naming_the_category(superpod, facts, spares, field):
    with pytest.raises(BomError) as caught:
        bill_of_materials(superpod, facts, spares_pct=spares)
    assert caught.value.field == field


def test_spares_use_decimal_arithmetic():
    assert spares_for(100, 7) == 7  # 100 * 0.07 is 7.000000000000001 in binary floats
    assert spares_for(1536, 2) == 31
    assert spares_for(0, 50) == 0


def test_superpod_fibers_are_ordered_in_a_handful_of_lengths(superpod, facts):
    """Issue 15 item 8: not one line per 0.1 m of run. Issue 33 item 5: the MFP7E10 fibers
    are sold in listed lengths, so each run is rounded up to the next length sold and each
    line names that length's orderable part number (slack is in the run)."""
    bom = bill_of_materials(superpod, facts)
    fibers = [line for line in bom.lines if line.category == "fiber"]
    lengths = {line.length_m for line in fibers}
    assert len(lengths) <= 6 and len(fibers) <= 8
    # the published counts are kept (RA-11333-001 Table 8): 2,040 400G fibres; 4 UFM fibres
    # (Table 4's 4 UFM cables; Table 8 prints 2, see test_superpod_bom_reproduces_table_8)
    by_part = Counter()
    for line in fibers:
        by_part[line.part] += line.quantity
    assert by_part == {"MFP7E10-Nxxx": 2040, "980-9I557-00N030": 4}
    for line in fibers:
        sold = dict(sold_lengths(facts.parts[line.part]))
        assert line.part_number == sold[line.length_m]  # the part number of that length
        assert line.length_rule.startswith("a length the part is sold in")
    # Every fiber is ordered at least as long as its run, at the next length sold.
    runs = superpod.link_length_m.astype(float)
    ordered = superpod.link_cable_length_m.astype(float)
    fiber = np.flatnonzero(superpod.link_cable >= 0)
    assert (ordered[fiber] >= runs[fiber] - 1e-4).all()
    for link in fiber.tolist():
        part = facts.parts[superpod.parts[int(superpod.link_cable_part[link])]]
        shorter = [v for v, _ in sold_lengths(part) if v < ordered[link]]
        assert not shorter or max(shorter) < runs[link] - 1e-4  # no shorter length would do
    assert (ordered[fiber] != runs[fiber]).any()


def test_parts_sold_in_listed_lengths_are_ordered_at_a_listed_length(gb200, facts):
    bom = bill_of_materials(gb200, facts)
    cables = [line for line in bom.lines if line.category == "cable"]
    assert cables
    for line in cables:
        listed = facts.parts[line.part].get("lengths_m")
        assert listed and line.length_m in listed
        assert line.length_rule.startswith("a length the part is sold in")
    assert all(
        not line.length_rule for line in bom.lines if line.category not in ("cable", "fiber")
    )


def test_a_revision_saved_with_exact_runs_says_so(superpod, facts):
    fabric = copy.deepcopy(superpod)
    fabric.link_cable_length_m = fabric.link_length_m.copy()  # as saved before the policy
    fibers = [line for line in bill_of_materials(fabric, facts).lines if line.category == "fiber"]
    # MFP7E10 is sold in listed lengths (issue 33): a recorded run that is not one of them is
    # named as such and gets no part number, rather than a part number of another length
    unsold = [line for line in fibers if line.length_rule.startswith("a length this revision")]
    assert unsold and all(not line.part_number for line in unsold)
