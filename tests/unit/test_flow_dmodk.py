"""Static destination routing (``rail``, d-mod-k): the destination is the NIC port, each tier
reads its own digit of it, and the GB300 NVL72 preset's ring runs at line rate (issue 33,
item 8: it ran at 44.4 Gb/s, 1/18 of 800 Gb/s, because the 72 NICs of a rack were one
destination and the 18 ring flows leaving a leaf shared one uplink).

Expected figures are counted by hand from the topology: flows per link, then max-min rates
(every flow of a link at capacity / flows on it, the busiest link deciding the ring)."""

from collections import defaultdict

import numpy as np
import pytest

from planner.analyses.flow import Flows, Network, route, simulate
from planner.analyses.scenario import build_network, make_flows, run_scenario
from planner.domain.pipeline import build_fabric
from planner.domain.presets import preset_get
from planner.domain.spec import parse_spec
from tests.unit.test_flow import toy_fabric

GB = 1e9
C = 400e9  # toy_fabric's links, bit/s


def _switch_links(net: Network) -> np.ndarray:
    """Directed switch-to-switch links."""
    fab = np.arange(2 * net.fabric_links)
    return fab[net.is_switch[net.link_from[fab]] & net.is_switch[net.link_to[fab]]]


def _flows_per_link(net: Network, incidence) -> np.ndarray:
    return np.diff(incidence.tocsc().indptr)


def test_the_nics_of_one_server_are_separate_destinations():
    """Two 4-GPU servers, each with all its NICs on one leaf (as an NVL72 rack's trays on a
    rail leaf); 2 spines, 2 links from each leaf to each: 4 uplinks. GPU i of server 0 sends
    to GPU i of server 1: 4 destinations on leaf 1, numbered 4..7 (leaf 1's slots), so
    d mod 4 puts one flow on each uplink and each takes its own link down: line rate. Were
    the server the destination, all four would share one uplink (C / 4 each)."""
    net = Network.from_fabric(toy_fabric(servers_per_pod=2, gpus=4, spines_per_pod=2, uplinks=2))
    assert np.unique(net.gpu_leaf[:4]).size == 1 and (net.gpu_leaf[4:] != net.gpu_leaf[0]).all()
    assert net.gpu_dest[4:, 0].tolist() == [4, 5, 6, 7]
    flows = Flows(np.arange(4), np.arange(4, 8), GB)
    result = simulate(net, flows, "rail")
    assert result.first_rates == pytest.approx([C] * 4, rel=1e-12)
    per_link = _flows_per_link(net, route(net, flows, "rail"))[_switch_links(net)]
    assert per_link.max() == 1 and per_link.sum() == 8  # 4 flows x (up + down)


def test_each_tier_reads_its_own_digit_of_the_destination():
    """2 pods x 2 leaves x 2 one-GPU servers, 2 spines per pod, 2 cores joined to every spine.
    The shift 0..3 -> 4..7 by hand: leaf 0 sends d = 4, 5 up to spines 0, 1 (d mod 2); leaf 1
    sends d = 6, 7 to spines 0, 1. Spine 0 then holds d = 4 and 6: its digit (d // 2) mod 2 =
    0, 1 sends them to different cores (d mod 2 would send both to core 0, at C / 2). Down,
    each core takes the spine d mod 2 (the one the destination's leaf would go up to), and
    one link per spine-leaf pair: one flow per link everywhere."""
    fabric = toy_fabric(pods=2, servers_per_pod=4, leaves_per_pod=2, spines_per_pod=2, cores=2)
    net = Network.from_fabric(fabric)
    flows = Flows(np.arange(4), np.arange(4, 8), GB)
    a = route(net, flows, "rail")
    assert a.sum(axis=1).A1.tolist() == [6.0] * 4  # NIC up, 4 switch hops, NIC down
    per_link = _flows_per_link(net, a)[_switch_links(net)]
    assert per_link.max() == 1
    assert simulate(net, flows, "rail").first_rates == pytest.approx([C] * 4, rel=1e-12)


def test_the_way_down_mirrors_the_way_up_over_parallel_links():
    """2 pods x 2 leaves x 2 one-GPU servers; each leaf has 2 links to its pod's one spine,
    each spine 2 links to the one core. Leaf slots: d = 4 on leaf 2, d = 6 on leaf 3; flows
    0 -> 4 and 2 -> 6. Up: each leaf takes link d mod 2 = 0 (W_1 = 2); spine 0 takes core link
    (d // 2) mod 2 = 0 and 1. Down, the core takes the parallel link of that same digit to
    spine 1, 0 and 1: one flow per link, both at C. ``d mod 2`` at the core would put both on
    link 0 (C / 2 each)."""
    fabric = toy_fabric(
        pods=2, servers_per_pod=4, leaves_per_pod=2, spines_per_pod=1, uplinks=2, cores=1,
        core_links=2,
    )  # fmt: skip
    net = Network.from_fabric(fabric)
    flows = Flows([0, 2], [4, 6], GB)
    assert net.gpu_dest[[4, 6], 0].tolist() == [4, 6]
    a = route(net, flows, "rail")
    per_link = _flows_per_link(net, a)[_switch_links(net)]
    assert per_link.max() == 1 and per_link.sum() == 8  # 2 flows x 4 switch hops
    assert simulate(net, flows, "rail").first_rates == pytest.approx([C, C], rel=1e-12)


@pytest.mark.parametrize(
    "fabric",
    [
        lambda: toy_fabric(pods=2, servers_per_pod=8, gpus=2, leaves_per_pod=2, cores=2),
        lambda: toy_fabric(servers_per_pod=4, gpus=4, rail=True, spines_per_pod=2, uplinks=2),
    ],
    ids=["3-tier", "rail-2-tier"],
)
def test_every_switch_sends_a_destination_one_way(fabric):
    """A forwarding table: all-to-all, and for every (switch, destination NIC) one out-link,
    whatever the source."""
    net = Network.from_fabric(fabric())
    gpus = np.arange(net.gpu_count)
    src, dst = np.meshgrid(gpus, gpus, indexing="ij")
    off = src != dst
    flows = Flows(src[off], dst[off], GB)
    a = route(net, flows, "rail").tocoo()
    switch_link = np.zeros(net.link_count, dtype=bool)
    switch_link[_switch_links(net)] = True
    ways = defaultdict(set)
    for f, link in zip(a.row, a.col, strict=True):
        if switch_link[link]:
            ways[(int(net.link_from[link]), int(flows.dst[f]))].add(int(link))
    assert ways and all(len(out) == 1 for out in ways.values())


@pytest.fixture(scope="module")
def gb300(facts):
    return build_fabric(parse_spec(preset_get("gb300-nvl72-xdr").spec), facts)


def test_gb300_ring_by_hand(gb300):
    """The GB300 NVL72 XDR preset: 8 racks x 72 GPUs, NIC k of a rack on rail k mod 4; a
    rail has 2 leaves (racks 1-4, racks 5-8), each with 72 uplinks (18 to each of 4 spines).
    The flat ring goes GPU k of racks 1..8, then GPU k+1: per GPU index k two flows change
    leaf (rack 4 -> 5, rack 8 -> rack 1 of the next rail), 144 in all, 18 from each leaf to
    18 different NICs of one rack. Counted here from the fabric's links, not the router: the
    18 destinations' leaf slots differ mod 72, so d-mod-k gives each its own uplink, and on
    the way down its own spine-to-leaf link: no link carries 2 ring flows, the ring runs at
    the NIC's 800 Gb/s, the bound."""
    leaves = gb300.nodes_with_role("leaf")
    # NIC link of every GPU: server links in port order, rack by rack
    nic = np.flatnonzero(np.isin(gb300.link_a, gb300.nodes_with_role("server")))
    nic = nic[np.lexsort((gb300.link_a_port[nic], gb300.link_a[nic]))]
    assert nic.size == 576
    leaf_of = gb300.link_b[nic]
    # leaf slot: leaf number x 72 + rank of the port on its leaf
    slot = np.empty(nic.size, dtype=np.int64)
    for number, leaf in enumerate(leaves):
        on = np.flatnonzero(leaf_of == leaf)
        slot[on[np.argsort(gb300.link_b_port[nic[on]], kind="stable")]] = number * 72 + np.arange(
            on.size
        )
    ring = np.arange(576).reshape(8, 72).T.ravel()  # GPU k of every rack, then k + 1
    src, dst = ring, np.roll(ring, -1)
    cross = leaf_of[src] != leaf_of[dst]
    assert cross.sum() == 144
    uplinks = {leaf: int((gb300.link_a == leaf).sum()) for leaf in leaves}
    assert set(uplinks.values()) == {72}
    for leaf in leaves:
        mine = cross & (leaf_of[src] == leaf)
        assert mine.sum() == 18
        assert np.unique(gb300.link_a[nic[dst[mine]]]).size == 1  # one destination rack
        assert np.unique(slot[dst[mine]] % 72).size == 18  # 18 uplinks, one flow each

    result = run_scenario(gb300, traffic="all-reduce", routing="rail", summary_only=True)
    assert result["flows"] == 576
    assert result["bound_busbw_gbps"] == pytest.approx(800.0)
    assert result["busbw_gbps"] == pytest.approx(800.0, rel=1e-9)
    assert result["efficiency"] == pytest.approx(1.0, rel=1e-9)


def test_gb300_all_to_all_takes_one_link_per_destination_down(gb300):
    """All-to-all in groups of 288 GPUs (4 racks): every destination NIC gets its own
    spine-to-leaf link (72 NICs and 72 links per leaf), so d-mod-k is non-blocking here."""
    net = build_network(gb300)
    flows, *_ = make_flows(net, "all-to-all", GB, placement="contiguous", seed=0)
    a = route(net, flows, "rail").tocoo()
    down = net.is_switch[net.link_from[a.col]] & np.isin(
        net.link_to[a.col], gb300.nodes_with_role("leaf")
    )
    destinations = defaultdict(set)
    for link, gpu in zip(a.col[down], flows.dst[a.row[down]], strict=True):
        destinations[int(link)].add(int(gpu))
    assert len(destinations) == 8 * 72
    assert all(len(d) == 1 for d in destinations.values())
    result = run_scenario(gb300, traffic="all-to-all", routing="rail", summary_only=True)
    assert result["efficiency"] == pytest.approx(1.0, rel=1e-9)


def test_each_plane_numbers_its_destinations_alike(facts):
    """B300 twin-plane: 512 GPUs, a NIC link on each of 2 planes, 8 leaves per plane with 64
    NIC links each. A plane is a fabric of its own, so each numbers its 512 NICs 0..511, leaf
    by leaf (64 numbers a leaf), and the two planes route alike (what lets the simulation
    run plane 0 and copy it to plane 1)."""
    spec = parse_spec(preset_get("b300-spectrum-x-twin-plane").spec)
    net = build_network(build_fabric(spec, facts))
    assert net.gpu_dest.shape == (512, 2)
    for plane in range(2):
        leaves = net.gpu_leaves[:, plane]
        assert np.unique(leaves).size == 8 and (np.bincount(leaves)[leaves] == 64).all()
        assert sorted(net.gpu_dest[:, plane].tolist()) == list(range(512))
        pairs = np.unique(np.stack([leaves, net.gpu_dest[:, plane] // 64]), axis=1)
        assert pairs.shape[1] == 8  # one leaf, one block of 64 numbers
    assert (net.gpu_dest[:, 0] == net.gpu_dest[:, 1]).all()


def test_gb300_ecmp_job_page_says_which_link_is_shared_and_what_to_pick(gb300):
    """ECMP on the same ring: a hash puts each flow on one of a leaf's 72 uplinks and one of
    the 72 links into the target leaf, so some links draw several of the 18 flows. Counted
    from the routes: the busiest switch link carries M flows, the ring runs at 800 / M Gb/s,
    and the job page names that link, M, and the routings that split flows instead."""
    from simulation.presentation import ElementNames, simulation_context

    net = build_network(gb300)
    flows, *_ = make_flows(net, "all-reduce", GB, placement="contiguous", seed=0)
    per_link = _flows_per_link(net, route(net, flows, "ecmp", seed=0))[_switch_links(net)]
    busiest = int(per_link.max())
    assert busiest > 1
    result = run_scenario(gb300, traffic="all-reduce", routing="ecmp", seed=0)
    assert result["busbw_gbps"] == pytest.approx(800 / busiest, rel=1e-9)
    limit = result["limit"]
    assert limit["flows"] == busiest and limit["tier"] == "leaf-spine"
    assert limit["capacity_gbps"] == 800 and limit["flow_gbps"] == pytest.approx(800 / busiest)
    text = simulation_context(result, ElementNames(gb300))["limit"]
    assert text.startswith("Below the bound because of leaf-") and "spine-" in text
    assert f": {busiest} flows share its 800 Gb/s ({800 / busiest:,.1f} Gb/s each" in text
    assert "Packet spraying" in text and "InfiniBand adaptive routing" in text
    assert "link:" not in text
    rail = run_scenario(gb300, traffic="all-reduce", routing="rail")
    assert "limit" not in rail
    assert simulation_context(rail, ElementNames(gb300))["limit"] == ""
