"""The storage-read flow simulation against the analytic read bandwidth (issue 18 item 5).

With adaptive routing (an even split over the spines) the max-min rates of the flow engine
must equal the analysis wherever it is exact (each leaf's uplinks divide evenly over the
spines): every node of the H100 SuperPOD RA's 4 SU storage fabric reads 96 x 200G / 127 /
8 = 18.9 GB/s at once; with 192 x 400G arrays the 4:3 node leaves limit to 2 x 24 x 400G /
32 / 8 = 75 GB/s. Static routing can only do worse than the analysis.
"""

import pytest

from planner.analyses.errors import JobInputError
from planner.analyses.scenario import run_scenario
from planner.domain.networks.elements import cluster_elements
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from planner.domain.summary import summarize
from tests.unit.test_networks import NETWORKS, four_su

NODES = 127


def build(facts, **storage):
    return build_fabric(parse_spec(four_su(**{**NETWORKS, "storage": storage})), facts)


def read(fabric, facts, routing="adaptive", **kw):
    return run_scenario(fabric, traffic="storage-read", routing=routing, facts=facts, **kw)


@pytest.fixture(scope="module")
def ra(facts):
    return build(facts)


def test_every_node_reads_what_the_analysis_says(ra, facts):
    result = read(ra, facts, size_bytes=4e9)
    storage = result["storage_read"]
    analytic = summarize(ra)["networks"]["storage"]["bandwidth"]
    assert storage["readers"] == NODES and storage["node_ports"] == 2 * NODES
    assert storage["storage_array_ports"] == 96
    expected = 96 * 200 / NODES / 8
    for key in ("min", "mean", "max"):
        assert storage["read_gbytes_per_node"][key] == pytest.approx(expected, rel=1e-9)
    assert analytic["all_gbytes_per_node"] == pytest.approx(expected, rel=1e-12)
    assert storage["simulated_vs_analytic"] == pytest.approx(1.0, rel=1e-9)
    assert set(storage["bottleneck_tiers"]) == set(analytic["all_bottleneck"])
    assert set(storage["bottleneck_tiers"]) == {"storage-array ports", "storage-leaf uplinks"}
    # each node reads 4 GB at 18.9 GB/s: the run ends then (every flow is as fast)
    assert result["completion_time_s"] == pytest.approx(4 / expected, rel=1e-9)
    tiers = result["per_tier_load"]
    assert tiers["storage-array ports"]["max_utilization"] == pytest.approx(1.0, rel=1e-9)
    assert tiers["node ports"]["max_utilization"] < 0.2  # a port carries 75.6 of its 400 Gb/s


def test_oversubscribed_node_leaves_agree_too(facts):
    fabric = build(
        facts,
        concurrent_readers="all",
        storage_ports=192,
        storage_port_speed_gbps=400,
        storage_leaves=8,
    )
    analytic = summarize(fabric)["networks"]["storage"]["bandwidth"]
    assert analytic["exact"] is True
    storage = read(fabric, facts)["storage_read"]
    expected = 2 * 24 * 400 / 32 / 8
    assert storage["read_gbytes_per_node"]["min"] == pytest.approx(expected, rel=1e-9)
    assert analytic["all_gbytes_per_node"] == pytest.approx(expected, rel=1e-12)
    assert storage["bottleneck_tiers"] == ["node-leaf uplinks"] == analytic["all_bottleneck"]
    # the last node leaf has 30 ports for its 24 uplinks: its nodes read more
    assert storage["read_gbytes_per_node"]["max"] > expected


@pytest.mark.parametrize("routing", ["ecmp", "rail"])
def test_static_routing_does_no_better(ra, facts, routing):
    storage = read(ra, facts, routing=routing)["storage_read"]
    expected = 96 * 200 / NODES / 8
    assert storage["read_gbytes_per_node"]["min"] <= expected * (1 + 1e-9)
    # the arrays' ports still bind: the mean is their share
    assert storage["read_gbytes_per_node"]["mean"] == pytest.approx(expected, rel=1e-6)


def test_the_graph_is_the_networks_elements(ra, facts):
    from planner.analyses.storage_read import storage_graph

    elements = cluster_elements(ra, facts)
    net, node_ports, array_ports, node_of_port, readers, tier = storage_graph(elements, "storage")
    links = elements.links_of("storage")
    assert net.fabric_links == len(links)
    assert len(readers) == NODES and node_ports.size == 2 * NODES and array_ports.size == 96
    # every node's two ports are endpoints of that node
    assert sorted(node_of_port.tolist()) == sorted(list(range(NODES)) * 2)
    assert int((tier == "node-leaf uplinks").sum()) == 8 * 24  # spine -> node leaf
    assert int((tier == "storage-leaf uplinks").sum()) == 4 * 12  # storage leaf -> spine


def test_a_design_without_storage_is_refused_naming_traffic(facts):
    fabric = build_fabric(parse_spec(four_su()), facts)
    with pytest.raises(JobInputError) as caught:
        read(fabric, facts)
    assert caught.value.field == "traffic" and "networks.storage" in str(caught.value)
