"""Flow-level simulation (planner.analyses.flow, traffic): max-min rates, routing, collectives,
failures. Pure: toy fabrics built here, and the seed catalog's DGX H100 SuperPOD (1 SU)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from planner.analyses.flow import (
    Flows,
    Network,
    RoutingError,
    max_min_rates,
    route,
    simulate,
)
from planner.analyses.traffic import (
    all_to_all,
    bus_bandwidth,
    hierarchical_allreduce,
    incast,
    permutation,
    place_job,
    rail_rings,
    ring_allreduce,
    run_phases,
)
from planner.domain.fabric import Fabric, FabricBuilder
from planner.domain.generators import generate_topology
from planner.domain.spec import load_spec_text, parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"
GB = 1e9


# ---------------------------------------------------------------------------------------------
# toy fabrics


def toy_fabric(
    *,
    pods: int = 1,
    servers_per_pod: int = 2,
    gpus: int = 1,
    leaves_per_pod: int = 2,
    rail: bool = False,
    spines_per_pod: int = 2,
    uplinks: int = 1,
    cores: int = 0,
    core_links: int = 1,
    speed: int = 400,
) -> Fabric:
    """A Clos: rail-optimized (GPU k of each server on leaf k of its pod; leaves_per_pod = gpus)
    or plain (servers spread over the pod's leaves, all GPUs of a server on one leaf); every
    leaf joins every spine of its pod with ``uplinks`` links; every spine joins every core with
    ``core_links`` links."""
    if rail:
        leaves_per_pod = gpus
    builder = FabricBuilder()
    n_servers = pods * servers_per_pod
    servers = builder.add_nodes(
        [f"srv{i}" for i in range(n_servers)],
        role="server",
        model="toy-server",
        ports=gpus,
        ports_per_cage=1,
    )
    leaves = builder.add_nodes(
        [f"leaf{i}" for i in range(pods * leaves_per_pod)],
        role="leaf",
        model="toy-switch",
        ports=64,
        ports_per_cage=1,
    )
    spines = builder.add_nodes(
        [f"spine{i}" for i in range(pods * spines_per_pod)],
        role="spine",
        model="toy-switch",
        ports=64,
        ports_per_cage=1,
    )
    a, a_port, b = [], [], []
    for s in range(n_servers):
        pod, local = divmod(s, servers_per_pod)
        for k in range(gpus):
            leaf = k if rail else local * leaves_per_pod // servers_per_pod
            a.append(servers[s])
            a_port.append(k)
            b.append(leaves[pod * leaves_per_pod + leaf])
    builder.add_links(a, a_port, b, np.zeros(len(a)), tier="server-leaf", plane=0, speed_gbps=speed)
    a, b = [], []
    for pod in range(pods):
        for leaf in range(leaves_per_pod):
            for spine in range(spines_per_pod):
                for _ in range(uplinks):
                    a.append(leaves[pod * leaves_per_pod + leaf])
                    b.append(spines[pod * spines_per_pod + spine])
    zeros = np.zeros(len(a))
    builder.add_links(a, zeros, b, zeros, tier="leaf-spine", plane=0, speed_gbps=speed)
    if cores:
        core_nodes = builder.add_nodes(
            [f"core{i}" for i in range(cores)],
            role="core",
            model="toy-switch",
            ports=64,
            ports_per_cage=1,
        )
        a = [s for s in spines for c in core_nodes for _ in range(core_links)]
        b = [c for s in spines for c in core_nodes for _ in range(core_links)]
        zeros = np.zeros(len(a))
        builder.add_links(a, zeros, b, zeros, tier="spine-core", plane=0, speed_gbps=speed)
    return builder.build({"gpus": n_servers * gpus, "servers": n_servers})


def dumbbell(hosts: int = 2, *, speed: int = 400, bottleneck_links: int = 1) -> Fabric:
    """``hosts`` one-GPU servers on each of two leaves joined through one spine."""
    return toy_fabric(
        servers_per_pod=2 * hosts, leaves_per_pod=2, spines_per_pod=1, uplinks=bottleneck_links,
        speed=speed,
    )  # fmt: skip


def rail_2tier() -> Fabric:
    """4 servers x 4 GPUs, one leaf per rail, 2 spines with 2 links from each leaf: 1:1."""
    return toy_fabric(servers_per_pod=4, gpus=4, rail=True, spines_per_pod=2, uplinks=2)


def clos_3tier() -> Fabric:
    """2 pods x 2 leaves x 2 one-GPU servers per leaf; 2 spines per pod; 4 cores: 1:1."""
    return toy_fabric(
        pods=2, servers_per_pod=4, leaves_per_pod=2, spines_per_pod=2, cores=2, core_links=1
    )


@pytest.fixture(scope="module")
def superpod(facts):
    spec = load_spec_text((EXAMPLES / "h100-superpod-1su.yaml").read_text(), name="1su")
    return generate_topology(parse_spec(spec), facts)


# ---------------------------------------------------------------------------------------------
# max-min fair rates


def slow_max_min(a: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Textbook progressive filling, one bottleneck level at a time (dense, loops)."""
    n_flows, n_links = a.shape
    rate = np.zeros(n_flows)
    frozen = ~(a > 0).any(axis=1)
    rate[frozen] = np.inf
    resid = cap.astype(float).copy()
    while not frozen.all():
        load = a[~frozen].sum(axis=0)
        best = np.inf
        for link in range(n_links):
            if load[link] > 0:
                best = min(best, resid[link] / load[link])
        rate[~frozen] += best
        resid -= load * best
        for link in range(n_links):
            if load[link] > 0 and resid[link] <= 1e-12 * cap[link]:
                frozen |= a[:, link] > 0
    return rate


def test_max_min_classic_three_flows():
    # Two unit links in a row: flow 0 crosses both, flows 1 and 2 one each -> all 1/2.
    a = sp.csr_matrix(np.array([[1, 1], [1, 0], [0, 1]], dtype=float))
    assert np.allclose(max_min_rates(a, [1.0, 1.0]), [0.5, 0.5, 0.5], rtol=1e-12)
    # Second link twice as fast: flow 2 takes what flow 0 leaves -> 1/2, 1/2, 3/2.
    assert np.allclose(max_min_rates(a, [1.0, 2.0]), [0.5, 0.5, 1.5], rtol=1e-12)
    # Bertsekas & Gallager: 3 flows share link 0 (cap 1), flow 3 alone on link 1 (cap 1),
    # flow 0 also on link 1 -> 1/3 each on link 0 and 2/3 for flow 3.
    a = sp.csr_matrix(np.array([[1, 1], [1, 0], [1, 0], [0, 1]], dtype=float))
    rate, bottleneck = max_min_rates(a, [1.0, 1.0], return_bottleneck=True)
    assert np.allclose(rate, [1 / 3, 1 / 3, 1 / 3, 2 / 3], rtol=1e-12)
    assert bottleneck.tolist() == [0, 0, 0, 1]


def test_max_min_weighted_split_and_empty_row():
    # Flow 0 sprays half on each of two unit links; flow 1 is alone on link 1.
    a = sp.csr_matrix(np.array([[0.5, 0.5], [0, 1], [0, 0]], dtype=float))
    rate = max_min_rates(a, [1.0, 1.0])
    # Level x: link 1 carries 0.5x + x = 1 -> x = 2/3 for both.
    assert np.allclose(rate[:2], [2 / 3, 2 / 3], rtol=1e-12)
    assert np.isinf(rate[2])


@pytest.mark.parametrize("seed", range(40))
def test_max_min_matches_slow_reference(seed):
    rng = np.random.default_rng(seed)
    n_flows, n_links = rng.integers(1, 25), rng.integers(1, 12)
    dense = (rng.random((n_flows, n_links)) < 0.3) * rng.choice(
        [1.0, 0.5, 0.25], (n_flows, n_links)
    )
    dense[np.arange(n_flows), rng.integers(0, n_links, n_flows)] = 1.0  # every flow has a link
    cap = rng.uniform(1.0, 10.0, n_links)
    fast = max_min_rates(sp.csr_matrix(dense), cap)
    slow = slow_max_min(dense, cap)
    assert np.allclose(fast, slow, rtol=1e-9, atol=0)
    assert (dense.T @ fast <= cap * (1 + 1e-9)).all()  # feasible


# ---------------------------------------------------------------------------------------------
# network, routing, event loop


def test_network_from_fabric(superpod):
    net = Network.from_fabric(superpod)
    assert net.link_count == 2 * superpod.link_count
    assert net.gpu_count == 248 and net.gpus_per_server == 8 and net.nic_gbps == 400
    assert net.capacity[0] == 400e9
    assert net.link_id(0) == "link:0:up" and net.link_id(5) == "link:2:down"
    assert net.link_index("link:2:down") == 5
    up = Network.from_fabric(superpod, scale_up_gbps=3600)
    assert up.link_count == net.link_count + 2 * 248
    assert up.link_id(up.link_count - 1) == "gpu:247:su-in"
    assert up.link_index("gpu:247:su-in") == up.link_count - 1
    # GPU k of a server is on the rail-k leaf
    rails = superpod.node_rail[net.gpu_leaf]
    assert (rails == net.gpu_local).all()


def test_dumbbell_event_times_and_utilisation():
    net = Network.from_fabric(dumbbell(2))
    # GPUs 0,1 on leaf 0; 2,3 on leaf 1. Two flows share the 400G spine path.
    flows = Flows([0, 1], [2, 3], [1 * GB, 2 * GB])
    res = simulate(net, flows, "ecmp")
    assert res.events == 2
    assert np.allclose(res.finish, [8e9 / 200e9, 8e9 / 200e9 + 8e9 / 400e9], rtol=1e-12)
    assert res.completion_time_s == pytest.approx(0.06, rel=1e-12)
    top = res.hot_spots[0]
    assert top["utilization"] == pytest.approx(1.0) and top["peak"] == pytest.approx(1.0)
    assert top["bottlenecked_flows"]  # who is held back there
    assert res.fct["max"] == pytest.approx(0.06)
    # A late start is an event too: the second flow starts when the first is half done.
    late = simulate(net, Flows([0, 1], [2, 3], [1 * GB, 1 * GB], start=[0.0, 0.01]), "ecmp")
    # 0..0.01: flow 0 alone at 400G sends 0.5 GB; then 200G each: flow 0 ends at 0.03,
    # flow 1 has 0.5 GB left at 0.03 and runs at 400G until 0.04.
    assert np.allclose(late.finish, [0.03, 0.04], rtol=1e-12)


def test_batched_completions_are_one_event():
    net = Network.from_fabric(toy_fabric(servers_per_pod=8, leaves_per_pod=1, spines_per_pod=1))
    res = simulate(net, permutation(np.arange(8), GB, seed=1), "ecmp")
    assert res.events == 1  # all eight finish together at line rate (one leaf)
    assert np.allclose(res.finish, 8 * GB / 400e9, rtol=1e-12)


@pytest.mark.parametrize("routing", ["rail", "ecmp", "adaptive"])
def test_routes_are_shortest_paths_and_conserve_flow(routing):
    net = Network.from_fabric(clos_3tier())
    flows = all_to_all(np.arange(net.gpu_count), GB)
    a = route(net, flows, routing, seed=3).toarray()
    # every flow leaves its NIC and reaches the destination NIC with weight 1
    assert np.allclose(a[np.arange(len(flows)), 2 * net.gpu_nic[flows.src]], 1)
    assert np.allclose(a[np.arange(len(flows)), 2 * net.gpu_nic[flows.dst] + 1], 1)
    # conservation at every switch: in = out
    for node in np.flatnonzero(net.is_switch):
        inflow = a[:, net.link_to == node].sum(axis=1)
        outflow = a[:, net.link_from == node].sum(axis=1)
        assert np.allclose(inflow, outflow)
    # hops: 2 on one leaf, 4 in a pod, 6 across pods
    same_leaf = net.gpu_leaf[flows.src] == net.gpu_leaf[flows.dst]
    pod = net.gpu_ordinal // 4
    same_pod = pod[flows.src] == pod[flows.dst]
    hops = a.sum(axis=1)
    assert np.allclose(hops[same_leaf], 2)
    assert np.allclose(hops[same_pod & ~same_leaf], 4)
    assert np.allclose(hops[~same_pod], 6)
    if routing != "adaptive":
        assert set(np.unique(a)) <= {0.0, 1.0}


def test_routing_is_deterministic_and_seeded():
    net = Network.from_fabric(clos_3tier())
    flows = permutation(np.arange(net.gpu_count), GB, seed=2)
    one = route(net, flows, "ecmp", seed=5)
    assert (one != route(net, flows, "ecmp", seed=5)).nnz == 0
    seeds = [route(net, flows, "ecmp", seed=s) for s in range(10)]
    assert any((seeds[0] != other).nnz for other in seeds[1:])
    with pytest.raises(ValueError, match="routing"):
        route(net, flows, "magic")


# ---------------------------------------------------------------------------------------------
# collectives and bandwidth


def test_flat_ring_allreduce_reaches_nic_line_rate(superpod):
    net = Network.from_fabric(superpod)
    ranks = place_job(net, net.gpu_count)
    size = 1 * GB
    res = simulate(net, ring_allreduce(ranks, size), "adaptive")
    algbw, busbw = bus_bandwidth("all-reduce", size, res.completion_time_s, len(ranks))
    assert busbw == pytest.approx(400e9 / 8, rel=1e-6)  # bytes/s = the NIC line rate
    assert algbw < busbw


def test_rail_rings_stay_on_their_leaf_at_line_rate(superpod):
    net = Network.from_fabric(superpod)
    ranks = place_job(net, net.gpu_count)
    flows = rail_rings(net, ranks, GB)
    a = route(net, flows, "rail")
    assert np.allclose(a.sum(axis=1), 2)  # NIC up, NIC down: never a spine
    res = simulate(net, flows, "rail")
    servers = net.gpu_count // 8
    expected = 2 * (servers - 1) / servers * GB / 8 * 8 / 400e9
    assert res.completion_time_s == pytest.approx(expected, rel=1e-9)


def test_hierarchical_allreduce_time_is_the_sum_of_its_phases():
    fabric = toy_fabric(servers_per_pod=4, gpus=4, rail=True, spines_per_pod=2, uplinks=2)
    net = Network.from_fabric(fabric, scale_up_gbps=900)
    ranks = place_job(net, net.gpu_count)
    size = 4 * GB
    t = run_phases(net, hierarchical_allreduce(net, ranks, size), "rail")
    g, servers = 4, 4
    intra = (g - 1) / g * size * 8 / 900e9
    network = 2 * (servers - 1) / servers * size / g * 8 / 400e9
    assert t == pytest.approx(2 * intra + network, rel=1e-9)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("fabric", [rail_2tier, clos_3tier])
def test_spraying_gives_line_rate_for_any_permutation(fabric, seed):
    net = Network.from_fabric(fabric())
    flows = permutation(np.arange(net.gpu_count), GB, seed=seed)
    res = simulate(net, flows, "adaptive")
    assert np.allclose(res.first_rates, 400e9, rtol=1e-9)
    assert res.completion_time_s == pytest.approx(8 * GB / 400e9, rel=1e-9)


def test_ecmp_max_load_is_balls_into_bins():
    # 8 one-GPU servers on leaf 0 send to 8 on leaf 1 over 8 spines (one uplink each): the
    # busiest uplink carries the maximum of 8 balls in 8 bins, E = 2.6074 (exact, by
    # enumeration; 2.60 in the reference). The max has a standard deviation of about 0.72,
    # so the mean of 1,000 seeds has a standard error of 0.023: 0.1 is more than 4 errors.
    net = Network.from_fabric(toy_fabric(servers_per_pod=16, spines_per_pod=8))
    flows = Flows(np.arange(8), np.arange(8, 16), GB)
    uplinks = np.flatnonzero(
        (net.link_from == net.gpu_leaf[0]) & net.is_switch[np.maximum(net.link_to, 0)]
    )
    assert uplinks.size == 8
    loads = [route(net, flows, "ecmp", seed=s)[:, uplinks].sum(axis=0).max() for s in range(1000)]
    assert np.mean(loads) == pytest.approx(2.6074, abs=0.1)
    # spraying spreads every flow evenly: load 1 per uplink
    sprayed = route(net, flows, "adaptive")[:, uplinks].sum(axis=0)
    assert np.allclose(sprayed, 1.0)


def test_qp_scaling_and_polarization():
    net = Network.from_fabric(toy_fabric(servers_per_pod=16, spines_per_pod=8))
    flows = Flows(np.arange(8), np.arange(8, 16), GB)
    plain = [simulate(net, flows, "ecmp", seed=s).completion_time_s for s in range(40)]
    scaled = [
        simulate(net, flows, "ecmp", seed=s, qp_scaling=8).completion_time_s for s in range(40)
    ]
    assert np.mean(scaled) < np.mean(plain)
    assert min(scaled) >= 8 * GB / 400e9 * (1 - 1e-9)
    # polarization: the same hash at leaf and spine of a 3-tier Clos picks the same member
    # index at both tiers (spine j of the pod -> core j); per-switch seeds decorrelate them.
    net3 = Network.from_fabric(
        toy_fabric(pods=2, servers_per_pod=8, leaves_per_pod=1, spines_per_pod=4, cores=4)
    )
    cross = Flows(np.arange(8), np.arange(8, 16), GB)
    spine_core = (net3.link_from >= 0) & np.isin(
        np.maximum(net3.link_to, 0), net3.node_name.index("core0") + np.arange(4)
    )

    def aligned(polarization: bool, seed: int) -> bool:
        a = route(net3, cross, "ecmp", seed=seed, polarization=polarization).tocsr()
        used = a[:, spine_core].tocoo()
        links = np.flatnonzero(spine_core)[used.col[np.argsort(used.row)]]
        spine = np.asarray([int(net3.node_name[n][5:]) % 4 for n in net3.link_from[links]])
        core = np.asarray([int(net3.node_name[n][4:]) for n in net3.link_to[links]])
        return bool((spine == core).all())

    assert all(aligned(True, s) for s in range(20))
    assert not all(aligned(False, s) for s in range(20))


def test_traffic_patterns():
    ranks = np.arange(16)
    perm = permutation(ranks, GB, seed=4)
    assert sorted(perm.dst.tolist()) == ranks.tolist() and (perm.src != perm.dst).all()
    a2a = all_to_all(ranks, 16 * GB, group=4)
    assert len(a2a) == 4 * 12 and np.allclose(a2a.size, 4 * GB)
    assert (a2a.src // 4 == a2a.dst // 4).all()
    inc = incast(ranks, GB, target=3)
    assert len(inc) == 15 and (inc.dst == 3).all()
    net = Network.from_fabric(rail_2tier())
    frag = place_job(net, 8, fragmented=True, seed=1)
    assert frag.size == 8 and (frag.reshape(2, 4) % 4 == np.arange(4)).all()
    assert place_job(net, 8).tolist() == list(range(8))
    with pytest.raises(ValueError, match="whole servers"):
        place_job(net, 3)
    assert bus_bandwidth("all-gather", 4.0, 1.0, 4) == (4.0, 3.0)


# ---------------------------------------------------------------------------------------------
# failures


@pytest.mark.parametrize("routing", ["rail", "ecmp", "adaptive"])
def test_failed_spine_reroutes_and_lowers_busbw(superpod, routing):
    net = Network.from_fabric(superpod)
    failed = net.with_failures(switches=["spine-001-001"])
    assert len(failed.failed_links()) == 2 * 64  # 8 leaves x 8 links, both directions
    ranks = place_job(net, net.gpu_count)
    flows = ring_allreduce(ranks, GB)
    a = route(failed, flows, routing, seed=1)
    assert a[:, ~failed.alive].nnz == 0  # nobody crosses the dead spine
    if routing == "adaptive":
        healthy = simulate(net, flows, routing).completion_time_s
        t = simulate(failed, flows, routing).completion_time_s
        # every ring edge changes rail: each leaf sends 31 flows over 24 live uplinks
        _, busbw = bus_bandwidth("all-reduce", GB, t, len(ranks))
        assert busbw == pytest.approx(400e9 / 8 * 24 / 31, rel=1e-6)
        assert t > healthy


def test_named_and_random_link_failures():
    net = Network.from_fabric(clos_3tier())
    flows = all_to_all(np.arange(net.gpu_count), GB)
    some = net.with_failures(random_links=3, seed=7)
    assert len(some.failed_links()) == 6
    assert net.alive.all()  # the original is untouched
    a = route(some, flows, "ecmp", seed=2)
    assert a[:, ~some.alive].nnz == 0
    nic = int(net.gpu_nic[0])
    with pytest.raises(RoutingError, match="NIC"):
        route(net.with_failures(links=[f"link:{nic}"]), flows, "ecmp")
    # cut a whole pod's uplinks -> no path across pods
    spines = [i for i, name in enumerate(net.node_name) if name.startswith("spine")]
    cut = net.with_failures(switches=spines[:2])
    with pytest.raises(RoutingError, match="no path"):
        route(cut, flows, "ecmp")
