"""Routed by OpenSM (issue 38 item 3): the real OpenSM (Debian's 3.3.23, on ibsim 0.10) routes
the 1 SU DGX H100 SuperPOD's exported topology, the product reads its forwarding tables back
(:mod:`planner.analyses.opensm`) and the flow simulation runs on them (``opensm`` routing).

What should hold, and why:

- every adapter is reachable from every switch (so every adapter pair has a path: an
  adapter's route starts at its leaf), and the routes' channel dependency graph has no cycle:
  updn and ftree are deadlock-free by construction on a fat tree (OpenSM's
  ``doc/current-routing.txt``), and minhop is on a two-tier Clos (every route goes up, then
  down: no down-to-up turn, so no cycle);
- with ``ftree`` on a healthy fat tree the flow simulation gives what our d-mod-k model
  (``rail``) gives, to the nanosecond: ftree routes each destination through one port per
  tier, spread round-robin over destinations ordered leaf by leaf, which is d-mod-k
  (Zahavi, "D-Mod-K Routing Providing Non-Blocking Traffic for Shift Permutations on Real
  Life Fat Trees", 2010, which describes OpenSM's ftree so);
- InfiniBand adaptive routing (``ib-ar``: the load split evenly over the minimal-hop ports)
  is never slower than one fixed path per destination, whatever the engine;
- with ``updn`` (what the design's ``ar_updn,updn`` fragment routes with on upstream OpenSM)
  the ring all-reduce matches d-mod-k (ring neighbours share a leaf, the rail), while an
  all-to-all is slower: updn balances destinations per port switch by switch, not the
  shift permutations d-mod-k keeps non-blocking (measured here: 3.5 x the NIC-bound time);
- with a leaf-spine link unplugged OpenSM routes around it (no route on it, none unrouted),
  and ftree, which needs every leaf to have the same up ports, falls back to minhop.

Without the tools these tests skip, except in CI (``CI`` set), where ``.ci/run`` installs
``opensm infiniband-diags ibsim-utils libumad2sim0`` and a missing tool fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import yaml

from planner.analyses import opensm as opensm_module
from planner.analyses.errors import JobInputError
from planner.analyses.flow import Flows, ForwardingTables, Network, RoutingError, route, simulate
from planner.analyses.opensm import missing_tools, report_line, route_with_opensm
from planner.analyses.opensm import runner as opensm_runner
from planner.analyses.opensm.tables import check_routes, tables_for
from planner.analyses.scenario import make_flows, run_scenario
from planner.domain.fabric import FabricBuilder
from planner.domain.outputs.ib_topology import ca_guid, switch_guid
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"
SIZE = 1e8


def _need_tools() -> None:
    if problem := missing_tools():
        if os.environ.get("CI"):
            pytest.fail(f"{problem} (CI installs them: .ci/run)")
        pytest.skip(problem)


@pytest.fixture(scope="module")
def su1(facts):
    spec = yaml.safe_load((EXAMPLES / "h100-superpod-1su.yaml").read_text())
    return build_fabric(parse_spec(spec), facts)


@pytest.fixture(scope="module")
def routed(su1):
    """The 1 SU routed by ftree and by updn: engine -> (network with tables, report)."""
    _need_tools()
    net = Network.from_fabric(su1)
    return {engine: route_with_opensm(su1, net, engine=engine) for engine in ("ftree", "updn")}


def _times(net: Network, traffic: str) -> dict[str, float]:
    flows = make_flows(net, traffic, SIZE, placement="contiguous", seed=0)[0]
    return {r: simulate(net, flows, r).completion_time_s for r in ("opensm", "rail", "ib-ar")}


@pytest.mark.parametrize("engine", ["ftree", "updn"])
def test_every_adapter_is_routed_without_credit_loops(routed, engine):
    net, report = routed[engine]
    assert report["routed_by"] == engine and not report["fallback"]
    # 31 DGX x 8 NIC ports + the UFM appliance's 4; 8 leaves + 4 spines
    assert (report["adapters"], report["switches"]) == (31 * 8 + 4, 12)
    assert report["routes"] == 252 * 12 and report["unrouted"] == report["unrouted_lids"] == 0
    assert report["adapters_without_lid"] == 0
    assert report["dependencies"] > 0 and not report["credit_loops"]
    assert "0 unrouted, no credit loop" in report_line(report)
    # every GPU pair has a path: an all-to-all over all 248 GPUs routes, one path per flow
    flows = make_flows(net, "all-to-all", SIZE, placement="contiguous", seed=0)[0]
    incidence = route(net, flows, "opensm")
    assert np.all(incidence.data == 1.0)
    hops = np.diff(incidence.indptr)  # NIC up + NIC down, + leaf-spine-leaf between leaves
    same_leaf = net.gpu_leaf[flows.src] == net.gpu_leaf[flows.dst]
    assert set(hops[same_leaf]) == {2} and set(hops[~same_leaf]) == {4}


def test_ftree_is_d_mod_k_and_adaptive_routing_is_never_slower(routed):
    net = routed["ftree"][0]
    for traffic in ("all-to-all", "permutation"):
        t = _times(net, traffic)
        assert t["opensm"] == pytest.approx(t["rail"], rel=1e-9), traffic
        assert t["ib-ar"] <= t["opensm"] * (1 + 1e-9), traffic
        if traffic == "all-to-all":  # at the NIC's line rate: 247/248 of the bytes leave
            assert t["opensm"] == pytest.approx(SIZE * 8 / 400e9 * 247 / 248)


def test_updn_matches_d_mod_k_on_the_ring_and_not_on_the_all_to_all(routed):
    net = routed["updn"][0]
    ring = _times(net, "all-reduce")
    assert ring["opensm"] == pytest.approx(ring["rail"], rel=1e-9)
    mesh = _times(net, "all-to-all")
    assert mesh["ib-ar"] == pytest.approx(mesh["rail"], rel=1e-9)
    assert mesh["opensm"] > 1.5 * mesh["rail"]


def test_opensm_routes_around_a_missing_link(su1):
    _need_tools()
    healthy = Network.from_fabric(su1)
    up = np.arange(0, 2 * healthy.fabric_links, 2)
    spine_links = up[
        healthy.is_switch[healthy.link_from[up]] & healthy.is_switch[healthy.link_to[up]]
    ]
    gone = int(spine_links[0] // 2)
    broken = healthy.with_failures(links=[gone])
    net, report = route_with_opensm(su1, broken, engine="updn")
    assert report["failed_links"] == 1 and report["unrouted"] == 0
    assert not report["credit_loops"]
    flows = make_flows(net, "all-to-all", SIZE, placement="contiguous", seed=0)[0]
    incidence = route(net, flows, "opensm").tocsc()
    assert incidence[:, 2 * gone].nnz == 0 and incidence[:, 2 * gone + 1].nnz == 0
    assert np.all(np.diff(incidence.tocsr().indptr) >= 2)  # every flow still has its path
    # ftree needs every leaf to have the same up ports: OpenSM falls back to minhop
    _, fallback = route_with_opensm(su1, broken, engine="ftree")
    assert (fallback["routed_by"], fallback["fallback"]) == ("minhop", True)
    assert fallback["unrouted"] == 0 and not fallback["credit_loops"]
    assert "asked ftree: OpenSM fell back" in report_line(fallback)


def test_the_simulate_scenario_reports_the_run(su1):
    _need_tools()
    out = run_scenario(su1, traffic="all-reduce", routing="opensm", size_bytes=SIZE, fail_links=2)
    assert out["routing"] == "opensm" and out["failed_links"] == 2
    assert out["opensm"]["routed_by"] == "updn" and out["opensm"]["failed_links"] == 2
    assert out["opensm"]["unrouted"] == 0 and out["completion_time_s"] > 0


# --- without the tools ---------------------------------------------------------------------------


def test_without_the_tools_the_option_is_refused_saying_how_to_install_them(su1, monkeypatch):
    monkeypatch.setattr(opensm_runner, "UMAD2SIM_GLOB", "/nonexistent/libumad2sim.so")
    problem = missing_tools()
    assert "libumad2sim" in problem
    assert "apt-get install opensm ibsim-utils libumad2sim0 infiniband-diags" in problem
    with pytest.raises(opensm_module.OpenSMUnavailable, match="apt-get install") as caught:
        route_with_opensm(su1, Network.from_fabric(su1))
    assert caught.value.field == "routing"


def test_a_design_larger_than_ibsim_holds_is_refused(su1, monkeypatch):
    monkeypatch.setattr(opensm_module, "MAX_NODES", 263)  # the 1 SU has 252 adapters + 12 switches
    with pytest.raises(JobInputError, match="at most 263 nodes .* this design has 264 nodes"):
        route_with_opensm(su1, Network.from_fabric(su1))


def test_a_roce_design_or_an_unknown_engine_is_refused(su1, facts):
    spec = yaml.safe_load((EXAMPLES / "clos-3to1.yaml").read_text())
    roce = build_fabric(parse_spec(spec), facts)
    with pytest.raises(JobInputError, match="RoCE"):
        route_with_opensm(roce, Network.from_fabric(roce))
    with pytest.raises(JobInputError, match="opensm_engine"):
        route_with_opensm(su1, Network.from_fabric(su1), engine="ar_updn")


def test_the_flow_engine_follows_the_tables_and_names_a_gap():
    r"""Two leaves under one spine, one GPU on each (no tools needed)::

    [g0]--[L0]--[S]--[L1]--[g1]
    """
    from tests.unit.test_flow import toy_fabric

    net = Network.from_fabric(toy_fabric(servers_per_pod=2, spines_per_pod=1))
    flows = Flows([0], [1], 1e6)
    with pytest.raises(RoutingError, match="simulate job"):
        route(net, flows, "opensm")
    switches = np.flatnonzero(net.is_switch)
    row = np.full(net.node_count, -1)
    row[switches] = np.arange(switches.size)
    dest = np.full(net.fabric_links, -1)
    dest[net.gpu_nics[:, 0]] = np.arange(net.gpu_count)
    # each switch's link towards GPU 1's leaf, by the d-mod-k routes of the same fabric
    rail = route(net, flows, "rail")
    table = np.full((switches.size, net.gpu_count), -1)
    for link in rail.indices:
        if net.is_switch[net.link_from[link]] and net.is_switch[net.link_to[link]]:
            table[row[net.link_from[link]], 1] = link
    net.forwarding = ForwardingTables(row, dest, table, "by hand")
    assert (route(net, flows, "opensm") != rail).nnz == 0
    table[:, 1] = -1  # no switch has an entry for GPU 1: the first one on the way says so
    with pytest.raises(RoutingError, match="1 flows meet a switch with no route"):
        route(net, flows, "opensm")


def test_the_route_tracer_finds_dead_ends_strays_loops_and_credit_loops():
    r"""A ring of three switches, one adapter on each (no tools needed)::

    [h0]--[s0]--[s1]--[h1]
            \   /
             [s2]--[h2]

    Switch ``k`` has its adapter on port 1 and its ring neighbours on ports 2 and 3 (dump_fts
    numbers ports from 1; the design's logical ports from 0).
    """
    builder = FabricBuilder()
    hosts = builder.add_nodes(
        ["h0", "h1", "h2"], role="server", model="x", ports=1, ports_per_cage=1
    )
    s = builder.add_nodes(["s0", "s1", "s2"], role="leaf", model="y", ports=3, ports_per_cage=1)
    builder.add_links(hosts, [0, 0, 0], s, [0, 0, 0], tier="server-leaf", plane=0, speed_gbps=400)
    # s0:1 - s1:1, s1:2 - s2:1, s2:2 - s0:2
    builder.add_links(s, [1, 2, 2], [s[1], s[2], s[0]], [1, 1, 2], tier="leaf-spine", plane=0,
                      speed_gbps=400)  # fmt: skip
    fabric = builder.build({"gpus": 3, "servers": 3})
    alive = np.ones(fabric.link_count, dtype=bool)

    def fts(entries: dict[int, dict[int, int]]) -> str:
        lines = []
        for k, table in entries.items():
            lines.append(
                f"Unicast lids [0x0-0x3] of switch DR path slid 0; guid "
                f"0x{switch_guid(int(s[k])):016x} (x):"
            )
            for lid, port in table.items():
                guid = ca_guid(int(hosts[lid - 1]), 0) + 1
                lines.append(f"0x{lid:04x} {port:03d} : (Channel Adapter portguid 0x{guid:x}: 'h')")
        return "\n".join(lines)

    def check(entries):
        return check_routes(fabric, tables_for(fabric, fts(entries), alive, source="test"))

    # LID k + 1 is h_k; s0's port 2 goes to s1, port 3 to s2; s1: 2 -> s0, 3 -> s2; s2: 2 -> s1,
    # 3 -> s0
    shortest = {0: {1: 1, 2: 2, 3: 3}, 1: {1: 2, 2: 1, 3: 3}, 2: {1: 3, 2: 2, 3: 1}}
    ok = check(shortest)
    assert (ok.adapters, ok.switches, ok.pairs, ok.unrouted) == (3, 3, 9, 0)
    # the 6 remote routes: one ring hop, then the delivery to the adapter (no chain longer)
    assert ok.credit_loop_links == [] and ok.dependencies == 6
    dead = check({**shortest, 0: {1: 1, 3: 3}})  # s0 has no entry for h1
    assert dead.unrouted == 1 and "s0: no route towards h1" in dead.examples[0]
    assert dead.unrouted_adapters == 1
    astray = check({**shortest, 0: {1: 1, 2: 2, 3: 1}})  # s0 delivers h2's LID to h0
    assert astray.unrouted == 1 and "delivered to another host towards h2" in astray.examples[0]
    looped = check({**shortest, 1: {1: 2, 2: 2, 3: 3}})  # s1 sends h1 back to s0
    assert looped.unrouted == 3 and any("loop" in e for e in looped.examples)
    assert looped.unrouted_adapters == 1  # every switch's route to h1 loops: one LID
    # every remote route turns the same way round the ring s0 -> s1 -> s2 -> s0: a credit loop
    ring = check({0: {1: 1, 2: 2, 3: 2}, 1: {1: 3, 2: 1, 3: 3}, 2: {1: 3, 2: 3, 3: 1}})
    assert ring.unrouted == 0 and len(ring.credit_loop_links) == 3


def test_the_report_line_names_what_went_wrong():
    report = {
        "engine": "updn", "routed_by": "updn", "fallback": False, "version": "3.3.23",
        "lids": 1_068, "routes": 48_960, "unrouted": 96, "unrouted_lids": 2,
        "credit_loops": True, "credit_loop_links": ["link:7:up", "link:9:down"],
        "credit_loop_link_count": 2, "seconds": 3.81,
    }  # fmt: skip
    assert report_line(report) == (
        "OpenSM 3.3.23 routed with updn: 1,068 LIDs, 48,960 switch-to-adapter routes, 96 "
        "unrouted (to 2 LIDs), credit loops through 2 links (3.8 s)"
    )
