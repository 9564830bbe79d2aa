"""Bill of materials (planner.domain.outputs.bom): published counts, agreement with the
summary, breakouts, NICs, racks and spares."""

import copy
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from planner.domain.fabric import FabricBuilder
from planner.domain.outputs import CATEGORIES, BomError, bill_of_materials, spares_for
from planner.domain.pipeline import build_fabric
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


def test_superpod_bom_gives_nvidia_published_counts(superpod, facts):
    bom = bill_of_materials(superpod, facts)
    switch_side = _total(bom, category="transceiver", part="MMA4Z00-NS")
    server_side = sum(
        line.quantity
        for line in bom.lines
        if line.category == "transceiver" and line.part != "MMA4Z00-NS"
    )
    assert switch_side == 1536  # 48 switches x 32 cages (RA-11333-001 Table 8)
    assert server_side == 508  # 127 DGX x 4 twin-port cages
    cables = _total(bom, category="fiber") + _total(bom, category="cable")
    assert cables == 2040  # 1016 node links + 1024 leaf-spine links
    assert _total(bom, category="fiber", tier="server-leaf") == 1016
    assert _total(bom, category="fiber", tier="leaf-spine") == 1024
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


def test_layout_rack_is_a_line_when_the_layout_names_a_catalog_rack(superpod, gb200, facts):
    bom = bill_of_materials(superpod, facts)
    racks = [line for line in bom.lines if line.category == "rack"]
    assert [(r.part, r.quantity) for r in racks] == [
        ("DGX-H100-SuperPOD-rack", len(superpod.racks))
    ]
    unnamed = bill_of_materials(gb200, facts)
    assert not [line for line in unnamed.lines if line.category == "rack"]
    assert any("layout.rack" in note for note in unnamed.notes)


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
    assert sum(line.quantity for line in fibers) == 2040  # the published count is kept
    sold = {
        float(item["length_m"]): item["part_number"]
        for item in facts.parts["MFP7E10-Nxxx"]["length_parts"]
    }
    for line in fibers:
        assert line.part == "MFP7E10-Nxxx"
        assert line.part_number == sold[line.length_m]  # the part number of that length
        assert line.length_rule.startswith("a length the part is sold in")
    # Every fiber is ordered at least as long as its run, at the next length sold.
    runs = superpod.link_length_m.astype(float)
    ordered = superpod.link_cable_length_m.astype(float)
    fiber = superpod.link_cable >= 0
    assert (ordered[fiber] >= runs[fiber] - 1e-4).all()
    shorter = np.array([max((v for v in sold if v < o), default=0.0) for o in ordered[fiber]])
    assert (shorter < runs[fiber] - 1e-4).all()  # no shorter length sold would do
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
