"""Free leaf shapes (issue 36 item 1): down- and uplinks chosen independently.

Numbered like tests/unit/test_generators.py, as a new family:
  5xx leaf shapes: uplinks slower or faster than the server links, ratios below 1, one-tier
  planes (one leaf or an MLAG pair), three tiers with faster uplinks.

Each shape is built from the seed catalog, validated, budgeted (power), simulated (flow),
counted (BOM) and exported (point-to-point sheet). Where the seed catalog has no module or
cable for a switch-to-switch link at the new speed (800G between SN5600s, 200G between
QM9700s), the shape is checked without media: those are catalog facts the generator matrix
reports (``python -m tests.bench_matrix``), not shapes the generator refuses.
"""

from __future__ import annotations

import numpy as np
import pytest

from planner.analyses.flow import Network, simulate
from planner.analyses.power import power_budget
from planner.analyses.traffic import all_to_all, place_job, rail_rings
from planner.analyses.validate import validate_fabric
from planner.domain.catalog import DeviceModel, PortGroup
from planner.domain.fabric import ROLE, TIER, FabricError
from planner.domain.generator_plans import leaf_split
from planner.domain.generators import generate_topology
from planner.domain.layout import assign_layout
from planner.domain.outputs.bom import bill_of_materials
from planner.domain.outputs.exports import p2p_lines
from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, parse_spec
from planner.domain.summary import summarize

GB = 1e9


def spec(**doc):
    return parse_spec({"name": "shape", **doc})


def topology(facts, **doc):
    """Generated and laid out, no media (for links the seed has no part for yet)."""
    s = spec(**doc)
    fabric = generate_topology(s, facts)
    assign_layout(fabric, s, facts)
    return fabric


def errors(fabric, facts) -> list[str]:
    report = validate_fabric(fabric, facts)
    return [f"{p.code}: {p.message}" for p in report.problems if p.severity == "error"]


def links(fabric, tier):
    return np.flatnonzero(fabric.link_tier == TIER[tier])


def assert_budgeted_simulated_exported(fabric, facts, *, traffic="all-to-all"):
    """Power, flow, BOM and the point-to-point export all take the fabric."""
    power = power_budget(fabric, facts)
    assert power.total_w > 0
    bom = bill_of_materials(fabric, facts)
    switches = sum(
        line.quantity for line in bom.lines if line.category == "switch" and line.tier != "spares"
    )
    assert switches == int(
        np.isin(fabric.node_role, [ROLE["leaf"], ROLE["spine"], ROLE["core"]]).sum()
    )
    rows = list(p2p_lines(fabric, facts))
    assert len(rows) == fabric.link_count + 1  # a header and a row per link
    net = Network.from_fabric(fabric)
    ranks = place_job(net, net.gpu_count)
    flows = all_to_all(ranks, 0.01 * GB) if traffic == "all-to-all" else rail_rings(net, ranks, GB)
    result = simulate(net, flows, "spraying")
    assert np.isfinite(result.completion_time_s) and result.completion_time_s > 0
    return result


# --- uplinks faster or slower than the server links ---------------------------------------


def test_501_faster_uplinks_400g_servers_800g_leaf_spine(facts):
    """[XE9680]--400G--[SN5600 2x400G]==800G==[SN5600]: 64 x 400G down, 32 x 800G up."""
    fabric = topology(
        facts,
        topology="rail-optimized",
        server="XE9680",
        servers=8,
        uplink_speed_gbps=800,
        switches={"leaf": "SN5600"},
    )
    info = fabric.info
    assert (info["leaf_down"], info["leaf_up"]) == (64, 32)
    assert info["oversubscription"]["leaf"] == 1.0
    up = links(fabric, "leaf-spine")
    assert set(fabric.link_speed_gbps[up].tolist()) == {800}
    # An 800G uplink fills one whole 800G cage of the leaf (2 x 400G ports) by itself.
    leaf = fabric.link_a[up]
    cage = fabric.link_a_port[up] // fabric.node_ports_per_cage[leaf]
    assert np.unique(leaf.astype(np.int64) * 1000 + cage).size == up.size
    assert (fabric.link_a_port[up] % 2 == 0).all()
    assert errors(fabric, facts) == []
    summary = summarize(fabric)
    assert summary["oversubscription_text"]["leaf"] == "1:1 down:up (1:1)"
    assert summary["leaf_bandwidth_gbps"] == {"down": 25_600, "up": 25_600}
    assert_budgeted_simulated_exported(fabric, facts)


def test_502_slower_uplinks_400g_servers_200g_leaf_spine(facts):
    """[XE9680]--400G--[SN5600 4x200G]==200G==[SN5600]: the leaf's ports count at 200G."""
    fabric = topology(
        facts,
        topology="rail-optimized",
        server="XE9680",
        servers=8,
        uplink_speed_gbps=200,
        switches={"leaf": "SN5600"},
    )
    info = fabric.info
    assert (info["leaf_down"], info["leaf_up"]) == (64, 128)  # 64 x 400G = 128 x 200G
    assert info["radix"]["leaf"] == 256
    down = links(fabric, "server-leaf")
    assert (fabric.link_b_port[down] % 2 == 0).all()  # a 400G link takes two 200G lanes
    assert errors(fabric, facts) == []
    assert summarize(fabric)["oversubscription"]["leaf"] == 1.0
    assert_budgeted_simulated_exported(fabric, facts)


def test_503_one_to_two_leaf_with_media(facts):
    """A "1:2" leaf: twice the uplink bandwidth of its downlinks, built through media."""
    fabric = build_fabric(
        spec(
            topology="rail-optimized",
            server="DGX-H100",
            servers=8,
            oversubscription=0.5,
            switches={"leaf": "QM9700"},
        ),
        facts,
    )
    assert leaf_split(64, 0.5) == (21, 42)
    assert (fabric.info["leaf_down"], fabric.info["leaf_up"]) == (21, 42)
    summary = summarize(fabric)
    assert summary["oversubscription"]["leaf"] == 0.5
    assert summary["oversubscription_text"]["leaf"] == "1:2 down:up (0.5:1)"
    assert summary["leaf_bandwidth_gbps"] == {"down": 8_400, "up": 16_800}
    assert fabric.link_a_part is not None and (fabric.link_a_part >= 0).all()
    report = validate_fabric(fabric, facts)
    assert report.ok, report.codes("error")
    assert "oversubscription-above-design" not in report.codes()
    assert_budgeted_simulated_exported(fabric, facts)


@pytest.mark.parametrize("ratio", [0.25, 0.5, 0.75, 1.5, 1.0666667, 7])
def test_504_any_ratio_above_zero_keeps_bandwidth_ratio_and_ports(ratio):
    for radix, stride, down_units in ((64, 1, 1), (128, 2, 1), (256, 1, 2)):
        down, up = leaf_split(radix, ratio, stride, down_units=down_units)
        assert down * down_units + up * stride <= radix
        assert down * down_units / (up * stride) == pytest.approx(ratio, rel=1e-3)


# --- one tier: a single leaf or an MLAG pair per plane -------------------------------------


def test_505_one_leaf_plane_with_media(facts):
    """[8 x DGX-H100]--64 x 400G--[QM9700]: no spines, two hops GPU to GPU."""
    fabric = build_fabric(
        spec(topology="clos", server="DGX-H100", servers=8, tiers=1, switches={"leaf": "QM9700"}),
        facts,
    )
    summary = summarize(fabric)
    assert summary["switches"] == {"leaf": 1, "spine": 0, "core": 0}
    assert summary["links"] == {"server-leaf": 64, "leaf-spine": 0, "spine-core": 0}
    assert (summary["tiers"], summary["max_hops"]) == (1, 2)
    assert summary["oversubscription_text"] == {"leaf": "— (no uplinks)"}
    assert errors(fabric, facts) == []
    assert_budgeted_simulated_exported(fabric, facts)


def test_506_mlag_pair_dual_homes_every_server(facts):
    """[12 x DGX-H100] each with 4 ports on leaf A and 4 on leaf B (an MLAG pair)."""
    fabric = build_fabric(
        spec(topology="clos", server="DGX-H100", servers=12, tiers=1, switches={"leaf": "QM9700"}),
        facts,
    )
    leaves = fabric.nodes_with_role("leaf")
    assert leaves.size == 2 and not fabric.nodes_with_role("spine").size
    down = links(fabric, "server-leaf")
    pairs = set(zip(fabric.link_a[down].tolist(), fabric.link_b[down].tolist(), strict=True))
    for server in fabric.nodes_with_role("server").tolist():
        assert {b for a, b in pairs if a == server} == set(leaves.tolist())
    assert np.bincount(fabric.link_b[down])[leaves].tolist() == [48, 48]
    assert errors(fabric, facts) == []
    # No peer link joins the two leaves (not modelled): rail-aligned traffic (NCCL's rings,
    # rail r on leaf r mod 2) stays on one leaf.
    assert_budgeted_simulated_exported(fabric, facts, traffic="rail-rings")


def test_507_one_leaf_per_plane_two_planes(facts):
    """DGX-B300, each 800G port split 2 x 400G: one QM9700 per plane, 64 links each."""
    fabric = build_fabric(
        spec(
            topology="clos",
            server="DGX-B300",
            servers=8,
            planes=2,
            tiers=1,
            switches={"leaf": "QM9700"},
        ),
        facts,
    )
    assert fabric.nodes_with_role("leaf").size == 2
    assert summarize(fabric)["links_per_plane"]["server-leaf"] == {"1": 64, "2": 64}
    assert errors(fabric, facts) == []
    assert_budgeted_simulated_exported(fabric, facts)


def test_508_three_tiers_with_faster_uplinks(facts):
    fabric = topology(
        facts,
        topology="clos",
        server="XE9680",
        servers=40,
        tiers=3,
        uplink_speed_gbps=800,
        switches={"leaf": "SN5600"},
    )
    assert fabric.info["tiers"] == 3
    for tier in ("leaf-spine", "spine-core"):
        assert set(fabric.link_speed_gbps[links(fabric, tier)].tolist()) == {800}
    assert errors(fabric, facts) == []
    assert_budgeted_simulated_exported(fabric, facts, traffic="rail-rings")


# --- published rows (shared/reference/next-wave.md §4.2) -----------------------------------


def _with_server(facts, slug: str, group: PortGroup) -> None:
    facts.devices[slug] = DeviceModel(slug, "server", (group,), gpus=8)


def test_509_bytedance_megascale_tor_200g_down_400g_up(facts):
    """ByteDance MegaScale (NSDI '24, as quoted in next-wave.md §4.2, secondary): a 64 x 400G
    ToR, "1:1 at every layer (32 down / 32 up)", "each ToR 400G downlink split into 2 x 200G",
    "8 x 200G NICs multi-rail", "up to 64 servers under the same ToR set". Here the 64 x 400G
    ToR is the catalog's SN5400 (64 x 400G, 2 x 200G listed); the 8 x 200G server is a test
    part. Each rail's ToR takes 64 servers' 200G ports and has 32 x 400G uplinks."""
    _with_server(facts, "MEGASCALE-NODE", PortGroup(8, 1, 200))
    fabric = topology(
        facts,
        topology="rail-optimized",
        server="MEGASCALE-NODE",
        servers=64,
        uplink_speed_gbps=400,
        switches={"leaf": "SN5400"},
    )
    info = fabric.info
    assert (info["servers_per_su"], info["leaf_down"], info["leaf_up"]) == (64, 64, 32)
    assert fabric.nodes_with_role("leaf").size == 8  # one ToR per rail
    assert summarize(fabric)["oversubscription"]["leaf"] == 1.0
    assert errors(fabric, facts) == []


def test_510_alibaba_hpn_tor_at_1_067(facts):
    """Alibaba HPN (next-wave.md §4.2, secondary): dual-plane, "2 x 200G per NIC", "ToR
    ≈ 1.067:1". On a 51.2T ToR (SN5600) with 200G down and 400G up, 16:15 gives 128 x 200G
    down and 60 x 400G up (inferred: the largest whole split at that ratio)."""
    _with_server(facts, "HPN-NODE", PortGroup(8, 1, 400, breakouts=("2x200G",)))
    fabric = topology(
        facts,
        topology="rail-optimized",
        server="HPN-NODE",
        servers=16,
        planes=2,
        oversubscription=1.0666667,
        uplink_speed_gbps=400,
        switches={"leaf": "SN5600"},
    )
    assert (fabric.info["leaf_down"], fabric.info["leaf_up"]) == (128, 60)
    text = summarize(fabric)["oversubscription_text"]["leaf"]
    assert text == "16:15 down:up (1.067:1)"
    assert errors(fabric, facts) == []


# --- refusals name the physical fact -------------------------------------------------------


def test_511_one_tier_too_large_names_the_leaf_ports(facts):
    with pytest.raises(FabricError) as caught:
        generate_topology(
            spec(
                topology="clos", server="DGX-H100", servers=20, tiers=1, switches={"leaf": "QM9700"}
            ),
            facts,
        )
    assert caught.value.field == "tiers"
    assert "160 links at 400G" in str(caught.value) and "64 ports" in str(caught.value)


def test_512_uplink_speed_must_share_lanes(facts):
    with pytest.raises(FabricError) as caught:
        generate_topology(
            spec(
                topology="clos",
                server="DGX-H100",
                servers=8,
                uplink_speed_gbps=300,
                switches={"leaf": "SN5600"},
            ),
            facts,
        )
    assert caught.value.field == "uplink_speed_gbps"
    assert "equal lanes" in str(caught.value)


@pytest.mark.parametrize(
    "doc, field",
    [
        ({"oversubscription": 0}, "oversubscription"),
        ({"oversubscription": -1}, "oversubscription"),
        ({"tiers": 1, "spines": 2}, "spines"),
        ({"tiers": 1, "uplink_speed_gbps": 800}, "uplink_speed_gbps"),
        ({"tiers": 1, "oversubscription": 3}, "oversubscription"),
    ],
)
def test_513_spec_refusals_name_the_field(doc, field):
    with pytest.raises(SpecError) as caught:
        spec(topology="clos", server="DGX-H100", servers=8, switches={"leaf": "QM9700"}, **doc)
    assert field in dict(caught.value.problems)


# --- day-0 configuration of a leaf with two link speeds ------------------------------------


def test_514_day0_config_splits_each_cage_at_its_own_speed(facts):
    """400G server links on 2 x 400G cages, 200G uplinks on 4 x 200G cages of one SN5600."""
    from planner.domain.outputs.config import config_chunks

    fabric = topology(
        facts,
        topology="rail-optimized",
        server="XE9680",
        servers=8,
        uplink_speed_gbps=200,
        switches={"leaf": "SN5600"},
    )
    nvue = "".join(config_chunks("nvue", fabric, facts, name="x", revision=1))
    leaf = nvue.split("leaf-su001-r1 (SN5600, leaf) ----", 1)[1].split(" ----", 1)[0]
    assert "nv set interface swp1-4 link breakout 2x" in leaf  # 8 servers: 4 cages
    assert "nv set interface swp33-64 link breakout 4x" in leaf  # 128 x 200G uplinks
    assert "swp1s1 description 'gpu00002" in leaf  # the second 400G leg, not lane 3
    sonic = "".join(config_chunks("sonic", fabric, facts, name="x", revision=1))
    # the modes as SN5600's platform.json keys them
    assert '"Ethernet0":{"brkout_mode":"2x400G[200G,' in sonic.replace(" ", "")
    assert '"Ethernet256":{"brkout_mode":"4x200G[100G,' in sonic.replace(" ", "")


def test_515_slower_uplinks_go_to_a_spine_a_port_at_a_time(facts):
    """4 x 200G uplinks of one 800G leaf port reach one spine port (one straight cable or
    fibre can carry them); each leaf still has the same number of links to every spine."""
    fabric = topology(
        facts,
        topology="rail-optimized",
        server="XE9680",
        servers=8,
        uplink_speed_gbps=200,
        switches={"leaf": "SN5600"},
    )
    up = links(fabric, "leaf-spine")
    leaf, spine = fabric.link_a[up].astype(np.int64), fabric.link_b[up].astype(np.int64)
    leaf_port = fabric.link_a_port[up] // 4  # the 800G port (4 x 200G)
    spine_port = fabric.link_b_port[up] // 4
    pairs = {
        (a, pa): (b, pb) for a, pa, b, pb in zip(leaf, leaf_port, spine, spine_port, strict=True)
    }
    assert len(pairs) == up.size // 4
    for a, pa, b, pb in zip(leaf, leaf_port, spine, spine_port, strict=True):
        assert pairs[a, pa] == (b, pb)
    counts = np.unique(leaf * fabric.node_count + spine, return_counts=True)[1]
    assert set(counts.tolist()) == {32}


def test_516_three_tiers_with_slower_uplinks(facts):
    fabric = topology(
        facts,
        topology="clos",
        server="XE9680",
        servers=40,
        tiers=3,
        uplink_speed_gbps=200,
        switches={"leaf": "SN5600"},
    )
    assert fabric.info["tiers"] == 3
    for tier in ("leaf-spine", "spine-core"):
        assert set(fabric.link_speed_gbps[links(fabric, tier)].tolist()) == {200}
    assert errors(fabric, facts) == []
    assert_budgeted_simulated_exported(fabric, facts, traffic="rail-rings")


def test_517_mlag_pair_flow_job_keeps_traffic_on_the_rails(facts):
    """No link joins the pair's two leaves: ring collectives run one ring per rail, and
    other traffic is handed over NVLink to the GPU on the destination's rail first (NCCL's
    PXN), so every fabric flow stays on one leaf."""
    from planner.analyses.scenario import run_scenario

    fabric = build_fabric(
        spec(topology="clos", server="DGX-H100", servers=12, tiers=1, switches={"leaf": "QM9700"}),
        facts,
    )
    ring = run_scenario(fabric, traffic="all-reduce", size_bytes=1e8, summary_only=True)
    assert ring["rings"] == "rail" and ring["pxn"] and ring["completion_time_s"] > 0
    a2a = run_scenario(fabric, traffic="all-to-all", size_bytes=96e6, summary_only=True)
    # Each NIC carries its server's 8 GPUs' data for its rail on the 11 other servers:
    # 8 x 11 x 1 MB at 400 Gb/s (50 GB/s) = 1.76 ms.
    assert a2a["completion_time_s"] == pytest.approx(8 * 11 * 1e6 / 50e9, rel=1e-6)


@pytest.mark.parametrize(
    ("sus", "nodes", "leaf", "spine", "node_leaf", "leaf_spine"),
    [(1, 64, 16, 8, 512, 512), (2, 128, 32, 16, 1024, 1024), (4, 256, 64, 32, 2048, 2048)],
)
def test_518_b300_spectrum_x_leaf_400g_down_800g_up(
    facts, sus, nodes, leaf, spine, node_leaf, leaf_spine
):
    """NVIDIA DGX SuperPOD B300 on Spectrum-X, twin-plane, Table 3 (next-wave.md §4.2 names
    the design; the rows as tests/unit/test_todays_systems.py cites them): each GPU 2 x 400GbE
    in two planes on SN5600 leaves, leaf-spine 800G. With 800G uplinks the leaf-spine links
    are the published cables one for one."""
    fabric = topology(
        facts,
        topology="rail-optimized",
        server="DGX-B300",
        servers=nodes,
        planes=2,
        uplink_speed_gbps=800,
        switches={"leaf": "SN5600"},
    )
    summary = summarize(fabric)
    assert summary["scalable_units"] == sus
    assert summary["switches"] == {"leaf": leaf, "spine": spine, "core": 0}
    assert summary["physical_ports"]["server-leaf"] == node_leaf
    assert summary["links"]["leaf-spine"] == leaf_spine
    assert (fabric.info["leaf_down"], fabric.info["leaf_up"]) == (64, 32)
    assert set(fabric.link_speed_gbps[links(fabric, "leaf-spine")].tolist()) == {800}
    if sus == 1:
        assert errors(fabric, facts) == []


def test_519_one_tier_rail_optimized(facts):
    """Two rails, one SU: a rail leaf each (a pair, each server on both); eight rails would
    need eight leaves: refused, naming tiers."""
    pair = generate_topology(
        spec(
            topology="rail-optimized",
            server="DGX-H100",
            servers=8,
            rails=2,
            tiers=1,
            switches={"leaf": "QM9700"},
        ),
        facts,
    )
    assert pair.info["mlag_pair"] and pair.nodes_with_role("leaf").size == 2
    assert errors(pair, facts) == []
    with pytest.raises(FabricError) as caught:
        generate_topology(
            spec(
                topology="rail-optimized",
                server="DGX-H100",
                servers=8,
                tiers=1,
                switches={"leaf": "QM9700"},
            ),
            facts,
        )
    assert caught.value.field == "tiers" and "8 rail leaves" in str(caught.value)


@pytest.mark.parametrize(("text", "value"), [("1:2", 0.5), ("3:1", 3.0), ("16:15", 1.066667)])
def test_520_ratio_written_down_to_up(text, value):
    parsed = spec(
        topology="clos", server="S", servers=8, switches={"leaf": "L"}, oversubscription=text
    )
    assert parsed.oversubscription == value


@pytest.mark.parametrize("text", ["0:1", "1:0", "fast", "1/2"])
def test_521_ratio_text_that_is_not_a_ratio_names_the_field(text):
    with pytest.raises(SpecError) as caught:
        spec(topology="clos", server="S", servers=8, switches={"leaf": "L"}, oversubscription=text)
    assert [field for field, _ in caught.value.problems] == ["oversubscription"]


@pytest.mark.parametrize("uplink", [200, 800])
def test_522_canvas_edit_round_trip_of_a_two_speed_leaf(facts, uplink):
    """The canvas's edit document of a leaf with slower or faster uplinks reads back as the
    same fabric: ports counted at the leaf's slower speed, a faster link taking its lanes."""
    from planner.domain.canvas import edit_document, fabric_from_edit, validate_edit

    fabric = topology(
        facts,
        topology="rail-optimized",
        server="XE9680",
        servers=8,
        uplink_speed_gbps=uplink,
        switches={"leaf": "SN5600"},
    )
    document = edit_document(fabric)
    assert [v.code for v in validate_edit(document, facts)] == []
    again = fabric_from_edit(document, facts)
    assert (again.node_ports == fabric.node_ports).all()
    assert (again.node_ports_per_cage == fabric.node_ports_per_cage).all()
    assert errors(again, facts) == []
