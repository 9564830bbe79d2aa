"""The event loop's local re-solve (planner.analyses.flow.simulate) against the textbook loop
that re-solves every running flow at every event, and the routing against plain per-target
shortest paths. Toy fabrics from test_flow; sizes and start times at random (seeded)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

from planner.analyses.flow import Flows, Network, events, max_min_rates, route, simulate, solver
from planner.analyses.traffic import all_to_all, incast, permutation
from tests.unit.test_flow import clos_3tier, rail_2tier, toy_fabric

MB = 1_000_000


def textbook(net: Network, flows: Flows, routing: str, *, seed: int):
    """Finish times and first rates when every event re-solves all running flows."""
    a = route(net, flows, routing, seed=seed)
    cap = np.where(net.alive, net.capacity, 0.0)
    n = len(flows)
    remaining = flows.size * 8.0
    finish = np.full(n, np.nan)
    started = flows.start <= 0
    done = np.zeros(n, dtype=bool)
    first_rates = None
    now = 0.0
    while not done.all():
        running = np.flatnonzero(started & ~done)
        later = flows.start[~started]
        arrival = later.min() if later.size else np.inf
        if running.size == 0:
            now = arrival
            started |= flows.start <= now
            continue
        rate = max_min_rates(a[running], cap)
        if first_rates is None:
            first_rates = np.zeros(n)
            first_rates[running] = rate
        ttf = remaining[running] / rate
        step = ttf.min()
        ending = running[ttf <= step * (1 + 1e-9)]
        if now + step > arrival:
            step, ending = arrival - now, running[:0]
        remaining[running] -= rate * step
        now += step
        finish[ending] = now
        done[ending] = True
        started |= flows.start <= now * (1 + 1e-9)
    return finish, first_rates


def _random_flows(pattern: Flows, seed: int, *, late: float) -> Flows:
    rng = np.random.default_rng(seed)
    n = len(pattern)
    sizes = np.round(rng.lognormal(np.log(MB), 1.0, n))
    start = np.where(rng.random(n) < late, rng.random(n) * 2e-5, 0.0)
    return Flows(pattern.src, pattern.dst, sizes, start)


def _patterns(n: int, seed: int) -> dict[str, Flows]:
    ranks = np.arange(n)
    return {
        "permutation": permutation(ranks, 1, seed=seed),
        "all-to-all": all_to_all(ranks, 1),
        "incast": incast(ranks, 1, target=seed % n),
    }


# The two ways of re-solving: the affected flows (compiled), and all running flows at once.
# Each setting forces one of them where it can.
PATHS = {
    "default": {},
    "full": {"LOCAL_FRACTION": 0.0},
}


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("routing", ["rail", "ecmp", "adaptive"])
@pytest.mark.parametrize("topology", [rail_2tier, clos_3tier], ids=["rail-2tier", "clos-3tier"])
def test_local_resolve_matches_full_resolve_at_every_event(monkeypatch, topology, routing, path):
    for name, value in PATHS[path].items():
        monkeypatch.setattr(solver, name, value)
    net = Network.from_fabric(topology())
    solves = {"full": 0, "local": 0, "component": 0}
    for seed in (1, 2):
        failed = net.with_failures(random_links=2, seed=seed) if seed == 2 else net
        for name, pattern in _patterns(net.gpu_count, seed).items():
            flows = _random_flows(pattern, seed, late=0.3)
            ours = simulate(failed, flows, routing, seed=seed)
            finish, first_rates = textbook(failed, flows, routing, seed=seed)
            assert np.allclose(ours.finish, finish, rtol=1e-9, atol=0), (name, seed)
            assert np.allclose(ours.first_rates, first_rates, rtol=1e-9), (name, seed)
            for kind, count in ours.solves.items():
                solves[kind] += count
    if path == "default":
        assert solves["local"] > 0
    else:
        assert solves["local"] == 0


def test_equal_flows_finishing_in_rate_order_need_no_resolve():
    # Equal sizes started together: a flow that finishes was among the fastest, so no flow
    # left loses its bottleneck and no event after the first re-solves anything.
    net = Network.from_fabric(clos_3tier())
    res = simulate(net, permutation(np.arange(net.gpu_count), MB, seed=4), "ecmp", seed=4)
    assert res.events > 1
    assert res.solves == {"full": 1, "local": 0, "component": 0}


def test_utilization_and_peak_follow_the_rates():
    # Two flows share the 400G spine path; the 2 GB one runs alone at 400G once the 1 GB one
    # ends, so every link of the shared path peaks at 100 % and averages 100 %.
    net = Network.from_fabric(toy_fabric(servers_per_pod=4, leaves_per_pod=2, spines_per_pod=1))
    res = simulate(net, Flows([0, 1], [2, 3], [1e9, 2e9]), "ecmp")
    shared = np.flatnonzero(np.isclose(res.link_util_avg, 1.0))
    assert shared.size == 2  # leaf 0 -> spine, spine -> leaf 1
    assert np.allclose(res.link_util_peak[shared], 1.0)
    nic_first = 2 * net.gpu_nic[0]  # 200G for 0.04 s of 0.06 s
    assert res.link_util_peak[nic_first] == pytest.approx(0.5)
    assert res.link_util_avg[nic_first] == pytest.approx(1e9 * 8 / (400e9 * 0.06))


@pytest.mark.parametrize("seed", range(4))
def test_routes_follow_shortest_paths_around_failures(seed):
    fabric = toy_fabric(pods=2, servers_per_pod=4, leaves_per_pod=2, spines_per_pod=3, cores=3)
    net = Network.from_fabric(fabric).with_failures(random_links=5, seed=seed)
    flows = all_to_all(np.arange(net.gpu_count), MB)
    fab = np.arange(2 * net.fabric_links)
    keep = fab[net.alive[fab] & net.is_switch[net.link_from[fab]] & net.is_switch[net.link_to[fab]]]
    graph = sp.csr_matrix(
        (np.ones(keep.size), (net.link_from[keep], net.link_to[keep])),
        shape=(net.node_count, net.node_count),
    )
    hops = csgraph.shortest_path(graph, unweighted=True)  # hops[v, t] from v to t
    src_leaf, dst_leaf = net.gpu_leaf[flows.src], net.gpu_leaf[flows.dst]
    for routing in ("rail", "ecmp", "adaptive"):
        a = route(net, flows, routing, seed=seed).tocoo()
        switch = (
            net.is_switch[np.maximum(net.link_from[a.col], 0)]
            & net.is_switch[np.maximum(net.link_to[a.col], 0)]
        )
        row, col, weight = a.row[switch], a.col[switch], a.data[switch]
        target = dst_leaf[row]
        # every switch hop gets one hop closer to the destination leaf
        closer = hops[net.link_to[col], target] == hops[net.link_from[col], target] - 1
        assert closer.all(), routing
        # and the flow's weight over its switch hops adds up to the distance
        total = np.bincount(row, weights=weight, minlength=len(flows))
        assert np.allclose(total, hops[src_leaf, dst_leaf]), routing


# Lockstep: every flow starts at once and the routes split the flows into components that
# share no link; each component runs on its own clock and a round takes the next
# completion(s) of all of them. Each setting forces one way of re-solving a round.
LOCKSTEP_PATHS = {
    "local": {"CLOSED_MAX": 0},  # every hurt component re-solved locally (certificates)
    "closed": {"CLOSED_MAX": 10**9},  # every hurt component re-solved whole
    "resplit-each-round": {"RESPLIT": 1e-12},  # components found again after every round
    "never-resplit": {"RESPLIT": 1.0},
}


@pytest.mark.parametrize("path", sorted(LOCKSTEP_PATHS))
def test_lockstep_components_match_full_resolve_at_every_event(monkeypatch, path):
    monkeypatch.setattr(events, "LOCKSTEP_MIN_FLOWS", 0)
    monkeypatch.setattr(events, "LOCKSTEP_MAX_SHARE", 1.0)
    for name, value in LOCKSTEP_PATHS[path].items():
        monkeypatch.setattr(events, name, value)
    rounds = []
    lockstep = events._lockstep
    monkeypatch.setattr(events, "_lockstep", lambda *a, **k: rounds.append(1) or lockstep(*a, **k))
    fabric = toy_fabric(pods=4, servers_per_pod=8, leaves_per_pod=4, spines_per_pod=4, cores=4)
    net = Network.from_fabric(fabric)
    ranks = np.arange(net.gpu_count)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        mixed = permutation(ranks, 1, seed=seed)
        mixed = Flows(mixed.src, mixed.dst, np.round(rng.lognormal(np.log(MB), 1.0, len(mixed))))
        groups = all_to_all(ranks, 4 * MB, group=4)  # equal sizes: completions tie
        for flows in (mixed, groups):
            for routing in ("ecmp", "rail"):
                ours = simulate(net, flows, routing, seed=seed)
                finish, first_rates = textbook(net, flows, routing, seed=seed)
                assert np.allclose(ours.finish, finish, rtol=1e-9, atol=0), (routing, seed)
                assert np.allclose(ours.first_rates, first_rates, rtol=1e-9), (routing, seed)
                assert ours.events == np.unique(finish).size  # distinct completion times
    assert len(rounds) == 12  # every run went through the lockstep


def test_components_of_an_incidence():
    # flows 0-1 share link 5, flow 2 is alone, flows 3-4-5 chain over links 7 and 8
    a = sp.csr_matrix(
        (np.ones(8), ([0, 0, 1, 2, 3, 4, 4, 5], [1, 5, 5, 2, 7, 7, 8, 8])), shape=(6, 10)
    )
    row = np.repeat(np.arange(6), np.diff(a.indptr))
    count, label = events.components(row, a.indices, 6)
    assert count == 3
    assert label[0] == label[1] != label[2] != label[3] == label[4] == label[5]
    assert label[0] != label[3]


def test_the_compiled_re_solves_leave_their_scratch_marks_clear(monkeypatch):
    # The kernels mark flows and links in two scratch arrays kept at -1 between calls; a mark
    # left behind would make a later event skip a flow. Late starts take the per-event path,
    # lockstep the per-round one.
    kept = []
    monkeypatch.setattr(events, "LOCKSTEP_MIN_FLOWS", 0)
    monkeypatch.setattr(events, "LOCKSTEP_MAX_SHARE", 1.0)
    monkeypatch.setattr(events, "Rates", lambda *a: kept.append(solver.Rates(*a)) or kept[-1])
    net = Network.from_fabric(toy_fabric(pods=4, servers_per_pod=8, leaves_per_pod=4, cores=4))
    for late in (0.0, 0.5):
        flows = _random_flows(permutation(np.arange(net.gpu_count), 1, seed=2), 2, late=late)
        assert simulate(net, flows, "ecmp", seed=2).solves["local"] > 0
    assert len(kept) == 2
    for rates in kept:
        position, column = rates._g[-2:]
        assert (position == -1).all() and (column == -1).all()
