"""The congestion report walks the routes as the run kept them (links that carry the same
flows alike merged, flows that leave switches by the same links walked once) and vectorised;
here it must give exactly the report of a plain walk, flow by flow and link by link, of the
full incidence: the same hot ports, trees (links, hops, flows per link), victims and the
same ``congestion`` part of a result. Small fabrics; the 8,192-GPU timing is in
``tests/bench_flow.py`` (``python -m tests.bench_flow congestion``). Pure: no database."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from planner.analyses.flow import Flows, Network, congestion_tree, simulate
from planner.analyses.flow import congestion as congestion_module
from planner.analyses.flow.congestion import OVER_RTOL, offered_load
from planner.analyses.scenario import CONGESTION_LINKS, _directed, congestion_result
from planner.analyses.traffic import incast
from planner.domain.fabric import TIER_NAMES
from planner.domain.generators import generate_topology
from planner.domain.spec import parse_spec
from tests.unit.test_flow_planes import multi_plane_fabric

GB = 1e9


def reference(net: Network, a, flows: Flows, parent=None, max_ports: int = 10):
    """The report by hand: per hot port, each of its flows walked back on its own from the
    hot port's switch along its links entering each switch reached (breadth first, a link
    taken once per flow); a link's hops are the fewest over its flows."""
    a = a.tocsr()
    parent = np.arange(a.shape[0]) if parent is None else np.asarray(parent)
    _, offered = offered_load(net, a, flows)
    cap = np.where(net.alive, net.capacity, 0.0)
    rows = [a.indices[a.indptr[r] : a.indptr[r + 1]].tolist() for r in range(a.shape[0])]
    hot = [
        link
        for link in range(2 * net.fabric_links)
        if net.is_switch[net.link_from[link]]
        and cap[link] > 0
        and offered[link] > cap[link] * (1 + OVER_RTOL)
    ]
    hot.sort(key=lambda link: (-offered[link] / cap[link], link))
    ports = []
    for h in hot[:max_ports]:
        hot_rows = [r for r, row in enumerate(rows) if h in row]
        hops: dict[int, int] = {}
        parents_on: dict[int, set] = {}
        for r in hot_rows:
            into: dict[int, list[int]] = {}
            for link in rows[r]:
                if net.link_from[link] >= 0:
                    into.setdefault(int(net.link_to[link]), []).append(link)
            taken = set()
            queue = deque([(int(net.link_from[h]), 1)])
            while queue:
                node, level = queue.popleft()
                for link in into.get(node, []):
                    if link in taken:
                        continue
                    taken.add(link)
                    hops[link] = min(hops.get(link, level), level)
                    parents_on.setdefault(link, set()).add(int(parent[r]))
                    up = int(net.link_from[link])
                    if net.is_switch[up]:
                        queue.append((up, level + 1))
        tree = sorted(hops, key=lambda link: (hops[link], link))
        hot_parents = {int(parent[r]) for r in hot_rows}
        paused = set(tree)
        crossing = {int(parent[r]) for r, row in enumerate(rows) if paused.intersection(row)}
        ports.append(
            {
                "link": h,
                "offered": float(offered[h] / cap[h]),
                "flows": len(hot_parents),
                "victims": len(crossing - hot_parents),
                "tree": [(link, hops[link], len(parents_on[link])) for link in tree],
            }
        )
    return len(hot), ports


def as_plain(report):
    return report.hot_port_count, [
        {
            "link": h.link,
            "offered": h.offered,
            "flows": h.flows,
            "victims": h.victims,
            "tree": [(p.link, p.hops, p.flows) for p in h.tree],
        }
        for h in report.hot_ports
    ]


def result_part(fabric, net, count, ports, flow_control="lossless"):
    """The ``congestion`` part of a result as it was built from a report, tree link by link."""
    out = []
    for hot in ports:
        by_tier: dict[str, int] = {}
        by_hops: dict[str, int] = {}
        for link, hops, _ in hot["tree"]:
            tier = TIER_NAMES[int(fabric.link_tier[link // 2])]
            by_tier[tier] = by_tier.get(tier, 0) + 1
            by_hops[str(hops)] = by_hops.get(str(hops), 0) + 1
        out.append(
            {
                **_directed(fabric, net, hot["link"]),
                "offered": hot["offered"],
                "flows": hot["flows"],
                "victim_flows": hot["victims"],
                "tree_links": len(hot["tree"]),
                "tree_by_tier": by_tier,
                "tree_by_hops": by_hops,
                "tree": [
                    {**_directed(fabric, net, link), "hops": hops, "flows": flows}
                    for link, hops, flows in hot["tree"][:CONGESTION_LINKS]
                ],
            }
        )
    paused = {link for hot in ports for link, _, _ in hot["tree"]}
    return {
        "flow_control": flow_control,
        "spreads": True,
        "basis": "",
        "hot_port_count": count,
        "paused_links": len(paused),
        "hot_ports": out,
    }


@pytest.fixture(scope="module")
def h100_256(facts):
    """32 DGX H100 (256 GPUs) rail-optimized on QM9700, from the seed catalog."""
    spec = {
        "name": "h100-256",
        "topology": "rail-optimized",
        "server": "DGX-H100",
        "servers": 32,
        "switches": {"leaf": "QM9700"},
    }
    fabric = generate_topology(parse_spec(spec), facts)
    return fabric, Network.from_fabric(fabric)


def _same(fabric, net, result, flows_of_rows, parent, expected=None):
    count, ports = expected or reference(net, result.incidence, flows_of_rows, parent)
    assert count > 0 and len(ports) == min(count, 10)
    routes, merged = result.routes()
    fast = congestion_tree(net, routes, flows_of_rows, parent=parent, merged=merged)
    assert as_plain(fast) == (count, ports)
    full = congestion_tree(net, result.incidence, flows_of_rows, parent=parent)
    assert as_plain(full) == (count, ports)
    part = congestion_result(fabric, net, result, flow_control="lossless")
    assert part == result_part(fabric, net, count, ports)
    return merged, (count, ports)


@pytest.mark.parametrize("routing", ["spraying", "ecmp"])
def test_a_256_gpu_incast_gives_the_plain_walks_report(h100_256, routing):
    fabric, net = h100_256
    result = simulate(net, incast(np.arange(net.gpu_count), GB), routing, seed=3)
    merged, (_, ports) = _same(fabric, net, result, result.sub_flows, result.sub_parent)
    assert (merged is not None) == (routing == "spraying")  # the sprayed uplinks merged
    assert max(h for port in ports for _, h, _ in port["tree"]) >= 3  # spines and NICs


@pytest.mark.parametrize("routing", ["spraying", "ecmp"])
def test_victims_and_shared_parents_count_as_the_plain_walk_does(h100_256, monkeypatch, routing):
    fabric, net = h100_256
    # rail 1 sends to GPU 0 (rail 0) through the spines; rail 2 sends to the other rail-0
    # GPUs through the same spines' ports to leaf 0, never the hot port: victims. Two queue
    # pairs per flow: under spraying two rows of one flow walk as one class, under ECMP they
    # hash apart and share some links
    ranks = np.arange(net.gpu_count)
    into = incast(np.append(0, ranks[ranks % 8 == 1]), GB)
    src, dst = ranks[ranks % 8 == 2], ranks[ranks % 8 == 0]
    flows = Flows(np.append(into.src, src[1:]), np.append(into.dst, dst[1:]), GB)
    result = simulate(net, flows, routing, seed=2, qp_scaling=2)
    _, expected = _same(fabric, net, result, result.sub_flows, result.sub_parent)
    assert any(p["victims"] for p in expected[1])
    # the walk's states numbered by rank instead of class * nodes + node: the same report
    monkeypatch.setattr(congestion_module, "STATES_DENSE_MAX", 0)
    _same(fabric, net, result, result.sub_flows, result.sub_parent, expected)


def test_two_identical_planes_copied_give_the_plain_walks_report():
    fabric = multi_plane_fabric(2, servers=8)
    net = Network.from_fabric(fabric)
    flows = incast(np.arange(0, net.gpu_count, 2), GB)
    result = simulate(net, flows, "spraying", qp_scaling=2)
    assert result.symmetry  # plane 0 simulated, copied: its routes moved to plane 1
    routes, merged = result.routes()
    assert routes.shape == result.incidence.shape
    _same(fabric, net, result, result.sub_flows, result.sub_parent)


def test_queue_pairs_that_part_and_meet_again_count_once():
    from tests.unit.test_flow import toy_fabric

    # two pods, cores above the spines: under ECMP a flow's four queue pairs may leave its
    # leaf by the same spine and part at the cores; such rows are walked apart (different
    # links) yet cross some links together, where their flow counts once
    fabric = toy_fabric(pods=2, servers_per_pod=4, leaves_per_pod=2, spines_per_pod=2, cores=4)
    net = Network.from_fabric(fabric)
    result = simulate(net, incast(np.arange(net.gpu_count), GB), "ecmp", seed=1, qp_scaling=4)
    _same(fabric, net, result, result.sub_flows, result.sub_parent)
