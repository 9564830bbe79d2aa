"""Failure domains and graph measurements (planner.analyses.resilience) on small designs."""

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import yaml

from inventory.library.files import read_catalog_folder
from planner.analyses.resilience import (
    domain_index,
    domain_summary,
    elements_of_domain,
    lost_if_failed,
    measure_graph,
    switch_graph,
)
from planner.analyses.resilience.domains import gpus_per_server
from planner.domain.fabric import ROLE
from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, parse_spec
from planner.domain.summary import summarize

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "planner" / "domain" / "examples"


@pytest.fixture(scope="module")
def facts():
    from planner.domain.catalog import facts_from_records

    return facts_from_records(read_catalog_folder(ROOT / "inventory" / "library" / "seed").parts)


def _example(name: str, **extra) -> dict:
    return {**yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text()), **extra}


@pytest.fixture(scope="module")
def superpod(facts):
    return build_fabric(parse_spec(_example("h100-superpod-4su")), facts)


def test_superpod_4su_measured_bisection_is_the_published_non_blocking_figure(superpod):
    # RA-11333-001: 127 DGX H100, 8 x 400G NDR each, a non-blocking fabric: half of all
    # GPU links' capacity crosses any bisection: 127 * 8 * 400 / 2 = 203,200 Gb/s.
    measures = measure_graph(superpod)
    assert measures.nonblocking_gbps == 127 * 8 * 400 / 2 == 203_200
    assert measures.measured_gbps == measures.formula_gbps == 203_200
    assert summarize(superpod)["bisection_gbps"] == measures.formula_gbps
    assert measures.agrees
    plane = measures.planes[0]
    assert plane["edge_connectivity"] == 32  # 32 uplinks per leaf, 2 to each of 16 spines
    assert plane["twin_classes"] == 1  # every leaf has the same links to every spine
    assert measures.max_hops_measured == measures.max_hops_formula == 4
    assert "SU 1–2" in measures.halves["a"]


def test_oversubscribed_design_is_visibly_below_non_blocking(facts):
    fabric = build_fabric(parse_spec(_example("clos-3to1")), facts)
    measures = measure_graph(fabric)
    # 3:1 at the leaf: a third of the servers' capacity leaves the half
    assert measures.nonblocking_gbps == 307_200
    assert measures.measured_gbps == measures.formula_gbps == 102_400


def test_damage_shows_where_the_formula_only_sees_how_much(superpod):
    leaf = int(superpod.nodes_with_role("leaf")[0])
    uplinks = np.flatnonzero(superpod.link_a == leaf)
    cut = measure_graph(superpod, failed_links=uplinks)
    # the formula loses 32 x 400G of 409,600 Gb/s of leaf-spine capacity (then halves it);
    # the flow loses every GPU of that leaf in half A: 32 x 400G
    assert cut.formula_gbps == 198_400
    assert cut.measured_gbps == 203_200 - 32 * 400 == 190_400
    assert cut.planes[0]["edge_connectivity"] == 0
    spine = int(superpod.nodes_with_role("spine")[0])
    without = measure_graph(superpod, failed_nodes=[spine])
    assert without.measured_gbps < without.nonblocking_gbps
    assert without.planes[0]["edge_connectivity"] == 30


def test_scipy_flows_match_networkx(superpod):
    graph = switch_graph(superpod)
    g = graph.graph
    measures = measure_graph(superpod, graph=graph)
    flow = nx.DiGraph()
    for u, v, data in g.edges(data=True):
        flow.add_edge(u, v, capacity=data["gbps"])
        flow.add_edge(v, u, capacity=data["gbps"])
    for compact in np.flatnonzero(graph.leaf_a_gbps):
        flow.add_edge("A", int(graph.switches[compact]), capacity=int(graph.leaf_a_gbps[compact]))
    for compact in np.flatnonzero(graph.leaf_b_gbps):
        flow.add_edge(int(graph.switches[compact]), "B", capacity=int(graph.leaf_b_gbps[compact]))
    assert nx.maximum_flow_value(flow, "A", "B") == measures.measured_gbps
    leaves = [n for n, d in g.nodes(data=True) if d["role"] == "leaf"]
    counted = nx.Graph()
    counted.add_edges_from((u, v, {"capacity": d["links"]}) for u, v, d in g.edges(data=True))
    assert nx.maximum_flow_value(counted, leaves[0], leaves[-1]) == 32
    assert nx.diameter(g) == measures.planes[0]["diameter"] == 2


def test_rack_domain_gpus_are_its_servers_times_gpus_per_server(superpod):
    index = domain_index(superpod)
    servers = superpod.nodes_with_role("server")
    rack = int(superpod.node_rack[servers[0]])
    name = superpod.racks[rack]["name"]
    in_rack = int((superpod.node_rack[servers] == rack).sum())
    carried = elements_of_domain(superpod, "rack", name, index=index)
    assert gpus_per_server(superpod) == 8
    assert carried.gpus == in_rack * 8 == 32
    lost = lost_if_failed(superpod, "rack", name, index=index)
    assert lost.gpus == 32 and lost.links.size == in_rack * 8
    rows = {k["kind"]: k for k in domain_summary(superpod, index=index)["kinds"]}
    assert rows["rack"]["count"] == len(superpod.racks)
    assert rows["su"]["count"] == 4
    assert rows["feed"]["stated"] is False and rows["feed"]["count"] == 0


def test_a_three_tier_fabric_has_one_pod_domain_per_pod(facts):
    """A fat-tree's pods are failure domains: each holds its k/2 edge (leaf) and k/2
    aggregation (spine) switches, and losing one cuts off the servers under it."""
    fabric = build_fabric(parse_spec(_example("fat-tree-k48", k=8)), facts)
    index = domain_index(fabric)
    rows = {k["kind"]: k for k in domain_summary(fabric, index=index)["kinds"]}
    assert rows["pod"]["count"] == 8
    pod = elements_of_domain(fabric, "pod", "1", index=index)
    roles = fabric.node_role[pod.nodes]
    assert (roles == ROLE["leaf"]).sum() == 4 and (roles == ROLE["spine"]).sum() == 4
    servers_per_pod = fabric.nodes_with_role("server").size // 8
    lost = lost_if_failed(fabric, "pod", "1", index=index)
    assert lost.gpus == servers_per_pod * gpus_per_server(fabric) > 0


def test_power_feeds_make_feed_and_pdu_domains(facts):
    power = {"feeds": ["A", "B"], "by_rack_kind": {"network": ["A"]}}
    fabric = build_fabric(parse_spec(_example("h100-superpod-4su", power=power)), facts)
    index = domain_index(fabric)
    assert index.ids["feed"] == ["A", "B"]
    server = int(fabric.nodes_with_role("server")[0])
    assert elements_of_domain(fabric, "feed", "B", index=index).nodes.tolist().count(server)
    # servers stand on A and B: losing B loses nothing; losing A downs the switch racks
    assert lost_if_failed(fabric, "feed", "B", index=index).nodes.size == 0
    lost = lost_if_failed(fabric, "feed", "A", index=index)
    assert set(fabric.node_role[lost.nodes].tolist()) <= {
        ROLE["leaf"],
        ROLE["spine"],
        ROLE["manager"],
    }
    assert lost.gpus == 1016  # every server cut off
    pdu = f"{fabric.racks[int(fabric.node_rack[server])]['name']}/A"
    assert lost_if_failed(fabric, "pdu", pdu, index=index).nodes.size == 0
    with pytest.raises(KeyError, match="no feed 'C'"):
        lost_if_failed(fabric, "feed", "C", index=index)


def test_power_feeds_parse_and_bad_feeds_name_the_field():
    base = _example("h100-superpod-4su")
    spec = parse_spec({**base, "power": {"feeds": ["A", "B"]}})
    assert spec.power == {"feeds": ["A", "B"]}
    assert parse_spec(spec.as_dict()).power == spec.power
    for power, field in (
        ({"feeds": ["A", "A"]}, "power.feeds"),
        ({"feeds": ["A B"]}, "power.feeds.0"),
        ({"feeds": []}, "power.feeds"),
        ({"by_rack_kind": {"storage": ["A"]}}, "power.by_rack_kind"),
        ({"feed": ["A"]}, "power"),
    ):
        with pytest.raises(SpecError) as caught:
            parse_spec({**base, "power": power})
        assert [f for f, _ in caught.value.problems] == [field], power
    problems = dict(
        pytest.raises(
            SpecError, parse_spec, {**base, "power": {"feeds": ["A", "A"]}}
        ).value.problems
    )
    assert "named twice" in problems["power.feeds"]
