"""Rack layout and cable-run estimates (planner.domain.layout)."""

from pathlib import Path

import numpy as np
import pytest

from inventory.library.files import read_catalog_folder
from planner.domain.catalog import facts_from_records
from planner.domain.fabric import ROLE, TIER, FabricError
from planner.domain.generators import generate_topology
from planner.domain.layout import RU_M, assign_layout, link_lengths
from planner.domain.spec import parse_spec

SEED = Path(__file__).resolve().parents[2] / "inventory" / "library" / "seed"

SUPERPOD = {
    "name": "superpod-4su",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 127,
    "servers_per_su": 32,
    "switches": {"leaf": "QM9700"},
    "reserved_leaf_ports": 4,
}


@pytest.fixture(scope="module")
def facts():
    return facts_from_records(read_catalog_folder(SEED).parts)


def _laid_out(facts, **changes):
    spec = parse_spec({**SUPERPOD, **changes})
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    return fabric, spec


def _servers_per_rack(fabric):
    servers = fabric.nodes_with_role("server")
    return np.bincount(fabric.node_rack[servers])


def test_servers_per_rack_respected(facts):
    fabric, _ = _laid_out(facts, layout={"servers_per_rack": 4})
    counts = _servers_per_rack(fabric)
    assert counts.max() == 4
    assert fabric.info["layout"]["servers_per_rack"] == 4
    # 32 servers per SU in 8 racks; the last SU has 31.
    assert sorted(counts[counts > 0].tolist()) == [3] + [4] * 31
    servers = fabric.nodes_with_role("server")
    in_rack = fabric.node_ru[servers[:4]]
    assert in_rack.tolist() == [1, 9, 17, 25]  # 8 U each, stacked from U1


def test_servers_per_rack_from_ru_and_rack_power(facts):
    fabric, _ = _laid_out(facts)
    assert fabric.info["layout"]["servers_per_rack"] == 5  # (48 - 2) U // 8 U
    fabric, _ = _laid_out(facts, layout={"rack": "DGX-H100-SuperPOD-rack"})
    assert fabric.info["layout"]["servers_per_rack"] == 4  # 40.8 kW // 10.2 kW
    assert max(r["power_w"] for r in fabric.racks if r["kind"] == "server") == 40800


def test_too_many_servers_per_rack_is_an_error(facts):
    with pytest.raises(FabricError) as caught:
        _laid_out(facts, layout={"servers_per_rack": 6})
    assert caught.value.field == "layout.servers_per_rack"


def test_unknown_rack_is_an_error(facts):
    with pytest.raises(FabricError) as caught:
        _laid_out(facts, layout={"rack": "no-such-rack"})
    assert caught.value.field == "layout.rack"


def test_su_leaves_in_the_middle_of_their_row(facts):
    fabric, _ = _laid_out(facts)
    racks = fabric.racks
    leaves = fabric.nodes_with_role("leaf")
    servers = fabric.nodes_with_role("server")
    for su in range(4):
        su_servers = servers[fabric.node_su[servers] == su]
        su_leaves = leaves[fabric.node_su[leaves] == su]
        server_racks = np.unique(fabric.node_rack[su_servers])
        leaf_racks = np.unique(fabric.node_rack[su_leaves])
        rows = {racks[i]["row"] for i in (*server_racks, *leaf_racks)}
        assert len(rows) == 1, f"SU {su} spans rows {rows}"
        assert all(racks[i]["kind"] == "network" for i in leaf_racks)
        positions = sorted(racks[i]["position"] for i in server_racks)
        leaf_position = racks[int(leaf_racks[0])]["position"]
        assert positions[0] < leaf_position < positions[-1]
        block = sorted(racks[i]["position"] for i in (*server_racks, *leaf_racks))
        assert block == list(range(block[0], block[0] + len(block)))  # consecutive


def test_spines_in_rows_after_the_servers(facts):
    fabric, _ = _laid_out(facts)
    rows = np.array([r["row"] for r in fabric.racks])
    spine_rows = rows[fabric.node_rack[fabric.nodes_with_role("spine")]]
    server_rows = rows[fabric.node_rack[fabric.nodes_with_role("server")]]
    assert spine_rows.min() > server_rows.max()


def test_manager_sits_with_its_leaves(facts):
    fabric, _ = _laid_out(facts)
    manager = int(fabric.nodes_with_role("manager")[0])
    leaf = int(fabric.link_b[fabric.link_a == manager][0])
    assert fabric.node_rack[manager] == fabric.node_rack[leaf]
    assert any("fabric-manager" in note for note in fabric.info["layout_notes"])


def test_lengths_positive_symmetric_and_rounded(facts):
    fabric, spec = _laid_out(facts)
    lengths = fabric.link_length_m
    assert lengths.dtype == np.float32 and (lengths > 0).all()
    tenths = lengths.astype(np.float64) * 10
    assert np.allclose(tenths, np.round(tenths), atol=1e-3)
    back = link_lengths(fabric, spec.layout, fabric.link_b, fabric.link_a)
    assert np.array_equal(back, lengths)


def test_same_rack_links_are_short(facts):
    fabric, _ = _laid_out(facts)
    same = fabric.node_rack[fabric.link_a] == fabric.node_rack[fabric.link_b]
    assert same.any()  # the fabric-manager links
    ru_gap = np.abs(
        fabric.node_ru[fabric.link_a[same]].astype(int) - fabric.node_ru[fabric.link_b[same]]
    )
    assert np.allclose(fabric.link_length_m[same], np.ceil((ru_gap * RU_M + 0.5) * 10) / 10)
    assert fabric.link_length_m[same].max() < fabric.link_length_m[~same].min()


def test_length_formula_between_racks(facts):
    fabric, spec = _laid_out(facts)
    layout = spec.layout
    link = int(np.flatnonzero(fabric.link_tier == TIER["leaf-spine"])[0])
    a, b = int(fabric.link_a[link]), int(fabric.link_b[link])
    rack_a, rack_b = fabric.racks[fabric.node_rack[a]], fabric.racks[fabric.node_rack[b]]
    height = 48 * RU_M
    expected = (
        abs(rack_a["position"] - rack_b["position"]) * layout.rack_width_m
        + abs(rack_a["row"] - rack_b["row"]) * layout.row_pitch_m
        + (height - fabric.node_ru[a] * RU_M + layout.tray_height_m)
        + (height - fabric.node_ru[b] * RU_M + layout.tray_height_m)
        + layout.slack_m
    )
    assert fabric.link_length_m[link] == pytest.approx(np.ceil(expected * 10) / 10, abs=1e-5)


def test_row_pitch_moves_spines_away(facts):
    near, _ = _laid_out(facts)
    far, _ = _laid_out(facts, layout={"row_pitch_m": 40})
    up = near.link_tier == TIER["leaf-spine"]
    assert far.link_length_m[up].min() > near.link_length_m[up].max()
    down = (near.link_tier == TIER["server-leaf"]) & (near.node_role[near.link_a] == ROLE["server"])
    assert np.array_equal(far.link_length_m[down], near.link_length_m[down])


def test_clos_blocks_and_unknown_heights(facts):
    spec = parse_spec(
        {
            "name": "clos",
            "topology": "clos",
            "server": "DGX-B300",
            "servers": 40,
            "switches": {"leaf": "Q3400-RA"},
        }
    )
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    assert any("DGX-B300: height unknown" in note for note in fabric.info["layout_notes"])
    assert (fabric.node_rack >= 0).all()
    # Every leaf sits in the row of the servers it serves.
    rows = np.array([r["row"] for r in fabric.racks])
    mask = fabric.link_tier == TIER["server-leaf"]
    assert (
        rows[fabric.node_rack[fabric.link_a[mask]]] == rows[fabric.node_rack[fabric.link_b[mask]]]
    ).all()
    per_row = np.bincount(rows)
    assert per_row.max() <= spec.layout.racks_per_row


def test_large_layout_is_fast(facts):
    import time

    spec = parse_spec(
        {
            "name": "big",
            "topology": "rail-optimized",
            "server": "DGX-B300",
            "servers": 12500,
            "switches": {"leaf": "Q3400-RA"},
        }
    )
    fabric = generate_topology(spec, facts)
    start = time.perf_counter()
    assign_layout(fabric, spec, facts)
    assert time.perf_counter() - start < 1.0
    assert fabric.link_count > 300_000 and (fabric.link_length_m > 0).all()
