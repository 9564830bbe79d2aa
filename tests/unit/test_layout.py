"""Rack layout and cable-run estimates (planner.domain.layout)."""

from dataclasses import replace

import numpy as np
import pytest

from planner.domain.fabric import ROLE, TIER, FabricError
from planner.domain.generators import generate_topology
from planner.domain.layout import assign_layout
from planner.domain.layout_distances import RU_M, link_lengths
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from planner.domain.summary import summarize

SUPERPOD = {
    "name": "superpod-4su",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 127,
    "servers_per_su": 32,
    "switches": {"leaf": "QM9700"},
    "reserved_leaf_ports": 4,
}


def _laid_out(facts, **changes):
    spec = parse_spec({**SUPERPOD, **changes})
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    return fabric, spec


def _b300_height_unknown(facts):
    """The catalog with DGX-B300's height removed, for the rules of a server of unknown height
    (the seed gives 10 U from a secondary source)."""
    model = facts.devices["DGX-B300"]
    return replace(facts, devices={**facts.devices, "DGX-B300": replace(model, rack_units=None)})


def _servers_per_rack(fabric):
    servers = fabric.nodes_with_role("server")
    return np.bincount(fabric.node_rack[servers])


def test_servers_per_rack_respected(facts):
    fabric, _ = _laid_out(facts, layout={"servers_per_rack": 4})
    counts = _servers_per_rack(fabric)
    assert counts.max() == 4
    assert fabric.settings.layout["servers_per_rack"] == 4
    # 32 servers per SU in 8 racks; the last SU has 31.
    assert sorted(counts[counts > 0].tolist()) == [3] + [4] * 31
    servers = fabric.nodes_with_role("server")
    in_rack = fabric.node_ru[servers[:4]]
    assert in_rack.tolist() == [1, 9, 17, 25]  # 8 U each, stacked from U1


def test_servers_per_rack_from_ru_and_rack_power(facts):
    fabric, _ = _laid_out(facts)
    assert fabric.settings.layout["servers_per_rack"] == 5  # (48 - 2) U // 8 U
    fabric, _ = _laid_out(facts, layout={"rack": "DGX-H100-SuperPOD-rack"})
    assert fabric.settings.layout["servers_per_rack"] == 4  # 40.8 kW // 10.2 kW
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


def _rows(fabric):
    return np.array([r["row"] for r in fabric.racks])


def _xy(fabric, spec, racks):
    """Tray coordinates (m) of ``racks``."""
    layout = spec.layout
    position = np.array([r["position"] for r in fabric.racks], dtype=float)
    return position[racks] * layout.rack_width_m, _rows(fabric)[racks] * layout.row_pitch_m


def test_two_tier_spines_in_the_middle_of_the_hall(facts):
    fabric, _ = _laid_out(facts)
    assert fabric.info["tiers"] == 2
    rows = _rows(fabric)
    spine_rows = np.unique(rows[fabric.node_rack[fabric.nodes_with_role("spine")]])
    servers = fabric.nodes_with_role("server")
    server_rows = rows[fabric.node_rack[servers]]
    # 127 servers in 4 SUs: the spines follow SU 2 (64 servers), in rows of their own.
    assert (server_rows < spine_rows.min()).sum() == 64
    assert (server_rows > spine_rows.max()).sum() == 63
    kinds = {r["kind"] for r in fabric.racks if r["row"] in set(spine_rows.tolist())}
    assert kinds == {"network"}


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
    facts = _b300_height_unknown(facts)
    spec = parse_spec(
        {
            "name": "clos",
            "topology": "clos",
            "server": "DGX-B300",
            "servers": 40,
            "switches": {"leaf": "Q3400-RA"},
            "layout": {"servers_per_rack": 4},
        }
    )
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    assert any("DGX-B300: height unknown" in note for note in fabric.info["layout_notes"])
    assert (fabric.node_rack >= 0).all()
    # Every leaf sits in the row of the first server it serves.
    rows = _rows(fabric)
    mask = fabric.link_tier == TIER["server-leaf"]
    leaves = fabric.nodes_with_role("leaf")
    first = np.full(fabric.node_count, fabric.node_count)
    np.minimum.at(first, fabric.link_b[mask], fabric.link_a[mask])
    assert (rows[fabric.node_rack[first[leaves]]] == rows[fabric.node_rack[leaves]]).all()
    per_row = np.bincount(rows)
    assert spec.layout.racks_per_row is None  # automatic
    assert per_row.max() <= fabric.settings.layout["racks_per_row"]


def test_large_layout_gives_every_link_a_length(facts):
    """32 SUs of DGX-B300; tests/bench_domain.py times the layout at 12,500 (100k GPUs)."""
    spec = parse_spec(
        {
            "name": "big",
            "topology": "rail-optimized",
            "server": "DGX-B300",
            "servers": 2304,
            "switches": {"leaf": "Q3400-RA"},
            "layout": {"servers_per_rack": 4},
        }
    )
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    assert fabric.link_count > 50_000 and (fabric.link_length_m > 0).all()


# 8,000 DGX H100 on QM9700: 250 SUs, 3 tiers, 63 pods of 4 SUs (32 leaves, 32 spines each).
H100_8000 = {
    "name": "h100-8000",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 8000,
    "switches": {"leaf": "QM9700"},
    "media": {"server-leaf": "MMF", "leaf-spine": "SMF", "spine-core": "SMF"},
}


@pytest.fixture(scope="module")
def h100_8000(facts):
    spec = parse_spec(H100_8000)
    return build_fabric(spec, facts), spec


def _media_of(facts, fabric, tier):
    mask = fabric.link_tier == TIER[tier]
    parts = np.unique(np.concatenate([fabric.link_a_part[mask], fabric.link_b_part[mask]]))
    return {facts.parts[fabric.parts[i]].get("media") for i in parts if i >= 0}


def test_8000_h100_three_tiers_fit_single_mode_reach(facts, h100_8000):
    fabric, _ = h100_8000
    assert (fabric.info["tiers"], fabric.info["pods"]) == (3, 63)
    assert _media_of(facts, fabric, "server-leaf") == {"mmf"}
    assert _media_of(facts, fabric, "leaf-spine") == {"smf"}
    assert _media_of(facts, fabric, "spine-core") == {"smf"}
    lengths = {
        name: float(fabric.link_length_m[fabric.link_tier == code].max())
        for name, code in TIER.items()
    }
    # Automatic rows: 2,189 racks in 64-rack rows (eight 8-rack SUs), 37 rows (111 m x 38 m).
    # A pod is 4 SUs (32 racks) and its 2 spine racks along a row: leaf-spine runs reach
    # ~37 m (~20 m in 10-rack rows; ~760 m with every spine after the servers).
    assert fabric.settings.layout["racks_per_row"] == 64
    assert lengths["leaf-spine"] < 45
    # The cores sit in the middle of the 37 rows: the longest spine-core run is 97.4 m
    # (408 m in 257 rows of 10 racks, 560 m+ for 12,500 DGX-B300).
    assert lengths["spine-core"] < 150


def test_cores_in_the_middle_third_of_the_rows(h100_8000):
    fabric, _ = h100_8000
    rows = _rows(fabric)
    core_rows = np.unique(rows[fabric.node_rack[fabric.nodes_with_role("core")]])
    total = rows.max() + 1
    assert total / 3 <= core_rows.min() and core_rows.max() < 2 * total / 3
    kinds = {r["kind"] for r in fabric.racks if r["row"] in set(core_rows.tolist())}
    assert kinds == {"network"}  # dedicated core rows
    servers = fabric.nodes_with_role("server")
    before = (rows[fabric.node_rack[servers]] < core_rows.min()).sum()
    assert before == 31 * 128  # 31 pods of 128 servers: the pod boundary nearest 4,000


SMALL_THREE_TIER = {
    "rail-optimized": {
        "topology": "rail-optimized",
        "server": "DGX-H100",
        "servers": 512,
        "tiers": 3,
        "switches": {"leaf": "QM9700"},
    },
    "clos": {
        "topology": "clos",
        "server": "DGX-H100",
        "servers": 512,
        "tiers": 3,
        "switches": {"leaf": "QM9700"},
    },
    "fat-tree": {
        "topology": "fat-tree",
        "server": "DGX-H100",
        "k": 16,
        "switches": {"leaf": "QM9700"},
        "layout": {"servers_per_rack": 2},
    },
}


@pytest.mark.parametrize("kind", sorted(SMALL_THREE_TIER))
def test_pod_spines_sit_beside_their_pod(facts, kind):
    # In 10-rack rows a pod spans rows and Clos blocks straddle pods (a pod is 32 leaves, a
    # block 5), so a pod's spines follow its middle leaf's block, amid its own leaves.
    document = SMALL_THREE_TIER[kind]
    layout = {**document.get("layout", {}), "racks_per_row": 10}
    spec = parse_spec({"name": kind, **document, "layout": layout})
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    assert fabric.info["tiers"] == 3 and fabric.info["pods"] >= 4
    leaves, spines = fabric.nodes_with_role("leaf"), fabric.nodes_with_role("spine")
    leaf_pod, spine_pod = fabric.node_group[leaves], fabric.node_su[spines]
    spine_racks = fabric.node_rack[spines]
    spine_x, spine_y = _xy(fabric, spec, spine_racks)
    rows = _rows(fabric)
    for pod in range(fabric.info["pods"]):
        leaf_x, leaf_y = _xy(fabric, spec, fabric.node_rack[leaves[leaf_pod == pod]])
        # Mean tray distance from the pod's leaves to each spine.
        mean = np.abs(spine_x[:, None] - leaf_x).mean(1) + np.abs(spine_y[:, None] - leaf_y).mean(1)
        own = spine_pod == pod
        assert mean[own].max() < mean[~own].min(), f"pod {pod}"
        # The pod's spines come right after the block of the pod's middle leaf.
        leaf_racks = np.sort(fabric.node_rack[leaves[leaf_pod == pod]])
        anchor = leaf_racks[(leaf_racks.size - 1) // 2]
        assert rows[spine_racks[own]].min() in (rows[anchor], rows[anchor] + 1)
        assert all(fabric.racks[r]["kind"] == "network" for r in spine_racks[own])
    # A rack holds one pod's spines.
    pods_per_rack = [np.unique(spine_pod[spine_racks == r]).size for r in np.unique(spine_racks)]
    assert max(pods_per_rack) == 1


def test_unknown_server_height_never_blocks_the_build(facts):
    """Issue 17: no height for DGX-B300 still lays out; the published per-rack figure (or
    one per rack, assumed) decides, and the assumption is listed with its source."""
    known = facts
    facts = _b300_height_unknown(facts)
    document = {
        "name": "b300",
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": 144,
        "switches": {"leaf": "Q3400-RA"},
    }
    spec = parse_spec(document)
    model = facts.devices["DGX-B300"]
    assert model.rack_units is None
    # Without a published figure: one per rack, said to be assumed.
    bare = replace(
        facts, devices={**facts.devices, "DGX-B300": replace(model, systems_per_rack=None)}
    )
    fabric = generate_topology(spec, bare)
    assign_layout(fabric, spec, bare)
    assert fabric.settings.layout["servers_per_rack"] == 1
    (assumption,) = fabric.settings.assumptions
    assert assumption["field"] == "layout.servers_per_rack" and assumption["value"] == 1
    assert assumption["source"].startswith("assumed")
    # The catalog's published figure (NVIDIA's B300 XDR RA: four per rack): used, and named
    # with its source.
    assert model.systems_per_rack == 4
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    assert fabric.settings.layout["servers_per_rack"] == 4
    source = fabric.settings.assumptions[0]["source"]
    assert source.startswith("published") and "four DGX B300 fit within a single rack" in source
    assert summarize(fabric)["assumptions"] == list(fabric.settings.assumptions)
    # A rack with power_kw decides it: 56 kW // 14.5 kW, and nothing is assumed.
    spec = parse_spec({**document, "layout": {"rack": "DGX-B300-rack"}})
    assign_layout(fabric, spec, facts)
    assert fabric.settings.layout["servers_per_rack"] == 3
    assert fabric.settings.assumptions == ()
    # With the catalog's height (10 U): four fit the 46 U usable, nothing is assumed, and
    # the servers stack 10 U apart.
    assert known.devices["DGX-B300"].rack_units == 10
    spec = parse_spec(document)
    fabric = generate_topology(spec, known)
    assign_layout(fabric, spec, known)
    assert fabric.settings.layout["servers_per_rack"] == 4
    assert fabric.settings.assumptions == ()
    servers = fabric.nodes_with_role("server")
    first = servers[fabric.node_rack[servers] == fabric.node_rack[servers[0]]]
    assert fabric.node_ru[first].tolist() == [1, 11, 21, 31]


def test_unknown_switch_height_counts_as_one_unit(facts):
    spec = parse_spec({**SUPERPOD, "switches": {"leaf": "QM9700"}})
    fabric = generate_topology(spec, facts)
    devices = {**facts.devices, "QM9700": replace(facts.devices["QM9700"], rack_units=None)}
    assign_layout(fabric, spec, replace(facts, devices=devices))
    assert any("QM9700: height unknown" in note for note in fabric.info["layout_notes"])
    leaves = fabric.nodes_with_role("leaf")
    first = fabric.node_rack[leaves] == fabric.node_rack[leaves[0]]
    assert fabric.node_ru[leaves[first]].tolist()[:3] == [1, 2, 3]


B300_12500 = {
    "name": "b300-12500",
    "topology": "rail-optimized",
    "server": "DGX-B300",
    "servers": 12500,
    "switches": {"leaf": "Q3400-RA"},
    "layout": {"servers_per_rack": 4},
}


def _hall(fabric, spec):
    """(depth, width) in metres: rows x row pitch, racks per row x rack width."""
    info = fabric.settings.layout
    return info["rows"] * spec.layout.row_pitch_m, info["racks_per_row"] * spec.layout.rack_width_m


def test_12500_b300_with_four_per_rack_builds(facts):
    # The hall's shape is a property of this size, so it stays here; the build's time is
    # measured by tests/bench_domain.py (make bench).
    # 174 SUs of 72 in 18 racks + a leaf rack (19), 3,514 racks in all. A square hall would
    # want ~133 racks per row; the 64-rack limit gives 57 (3 SUs; 34 m) and 67 rows (201 m).
    # The longest run is a spine-core one of 133.4 m. With 10-rack rows an SU wrapped over
    # two rows, the hall grew to 375 rows (1.1 km) and core runs to ~560 m, beyond the 500 m
    # of every catalog XDR optic with known connectors.
    spec = parse_spec(B300_12500)
    fabric = build_fabric(spec, facts)
    servers = fabric.nodes_with_role("server")
    assert _servers_per_rack(fabric).max() == 4
    assert (fabric.link_cable_part >= 0).all()
    assert fabric.link_length_m.max() < 200
    assert servers.size == 12500
    info = fabric.settings.layout
    assert (info["racks_per_row"], info["racks_per_row_auto"]) == (57, True)
    assert not any("wraps" in note for note in fabric.info["layout_notes"])
    depth, width = _hall(fabric, spec)
    assert depth < 250 and width > 30  # as square as 64-rack rows allow


def test_auto_rows_make_a_near_square_hall(facts):
    # 1,000 DGX-H100: 32 SUs of 7 server racks + a leaf rack, 275 racks in all:
    # ceil(sqrt(275 * 3 / 0.6)) = 38, rounded up to 5 SUs = 40 racks (24 m), 9 rows (27 m).
    spec = parse_spec({**H100_8000, "servers": 1000})
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    assert fabric.settings.layout["racks_per_row"] == 40
    depth, width = _hall(fabric, spec)
    assert 0.5 < depth / width < 2
    # Every SU (servers and leaves) sits in one row.
    rows = _rows(fabric)
    for su in range(int(fabric.node_su[fabric.nodes_with_role("server")].max()) + 1):
        members = np.flatnonzero(
            (fabric.node_su == su) & np.isin(fabric.node_role, [ROLE["server"], ROLE["leaf"]])
        )
        assert np.unique(rows[fabric.node_rack[members]]).size == 1, f"SU {su}"


def test_auto_rows_limits(facts):
    # A small hall still gets 10-rack rows (rounded up to whole 8-rack SUs: 16).
    fabric, _ = _laid_out(facts, servers=31)
    assert fabric.settings.layout["racks_per_row"] == 16
    # A block wider than 64 racks (a 72-server SU, one per rack): rows of 64; it wraps (noted).
    spec = parse_spec({**B300_12500, "servers": 144, "layout": {"servers_per_rack": 1}})
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    assert fabric.settings.layout["racks_per_row"] == 64
    assert any("wraps" in note for note in fabric.info["layout_notes"])


def test_explicit_racks_per_row_is_honoured(facts):
    spec = parse_spec({**H100_8000, "layout": {"racks_per_row": 10}})
    assert spec.layout.racks_per_row == 10
    assert parse_spec(spec.as_dict()) == spec
    assert "racks_per_row" not in parse_spec(H100_8000).as_dict()["layout"]
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    info = fabric.settings.layout
    assert (info["racks_per_row"], info["racks_per_row_auto"], info["rows"]) == (10, False, 257)
    assert np.bincount(_rows(fabric)).max() == 10
    # 257 rows: the cores in the middle, the longest spine-core run about half the hall.
    core_links = fabric.link_tier == TIER["spine-core"]
    assert 300 < fabric.link_length_m[core_links].max() < 500
