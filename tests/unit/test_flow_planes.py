"""Multi-plane fabrics in the flow simulation: a GPU with one NIC link per plane splits each
transfer across its planes. The fabrics come from the generators with hand-made parts (a
2 x 800G server split into 2 planes of 400G), as tests/unit/test_generators.py builds them."""

from __future__ import annotations

import numpy as np
import pytest

from planner.analyses.errors import JobInputError
from planner.analyses.flow import Flows, Network, RoutingError, route, simulate, sub_flows
from planner.analyses.scenario import flow_dump, run_scenario
from planner.analyses.traffic import permutation, ring_allreduce
from planner.domain.catalog import CatalogFacts, DeviceModel, PortGroup
from planner.domain.fabric import FabricBuilder
from planner.domain.generators import generate_topology
from planner.domain.spec import parse_spec

GB = 1e9


def _facts() -> CatalogFacts:
    facts = CatalogFacts()
    facts.devices["SW8x800"] = DeviceModel(
        "SW8x800", "switch", (PortGroup(8, 1, 800, breakouts=("2x400G",)),)
    )
    facts.devices["SRV2x800"] = DeviceModel(
        "SRV2x800", "server", (PortGroup(2, 1, 800, breakouts=("2x400G", "4x200G")),), gpus=2
    )
    return facts


def multi_plane_fabric(planes: int, servers: int = 20):
    """``servers`` 2-GPU servers with 2 x 800G ports, rail-optimized over ``planes`` planes."""
    spec = {
        "name": f"p{planes}",
        "topology": "rail-optimized",
        "server": "SRV2x800",
        "servers": servers,
        "planes": planes,
        "switches": {"leaf": "SW8x800"},
    }
    return generate_topology(parse_spec(spec), _facts())


@pytest.fixture(scope="module")
def two_planes():
    """20 servers x 2 GPUs, each GPU with one 400G NIC link in each of 2 planes (3 SUs)."""
    return multi_plane_fabric(2)


@pytest.fixture(scope="module")
def one_plane():
    """The same servers on one plane of 800G."""
    return multi_plane_fabric(1)


def test_every_gpu_gets_one_nic_link_per_plane(two_planes):
    net = Network.from_fabric(two_planes)
    assert net.planes == 2 and net.gpu_count == 40 and net.gpus_per_server == 2
    assert net.nic_gbps == 800  # both 400G planes together
    assert (two_planes.link_plane[net.gpu_nics] == [0, 1]).all()
    assert (two_planes.node_plane[net.gpu_leaves] == [0, 1]).all()
    assert (net.gpu_server == two_planes.link_a[net.gpu_nics[:, 1]]).all()
    assert np.unique(net.gpu_nics).size == net.gpu_nics.size  # no NIC link shared
    assert (net.gpu_nic == net.gpu_nics[:, 0]).all() and (
        net.gpu_leaf == net.gpu_leaves[:, 0]
    ).all()


@pytest.mark.parametrize("routing", ["rail", "ecmp", "adaptive"])
def test_each_part_of_a_flow_stays_in_its_plane(two_planes, routing):
    net = Network.from_fabric(two_planes)
    flows = permutation(np.arange(net.gpu_count), GB, seed=3)
    sub, parent = sub_flows(net, flows)
    assert len(sub) == 2 * len(flows)
    assert (parent == np.repeat(np.arange(len(flows)), 2)).all()
    assert (sub.plane == np.tile([0, 1], len(flows))).all()
    assert np.allclose(sub.size, GB / 2)
    a = route(net, sub, routing, seed=3).tocoo()
    assert (two_planes.link_plane[a.col // 2] == sub.plane[a.row]).all()
    a = a.tocsr()
    rows = np.arange(len(sub))
    assert np.allclose(a[rows, 2 * net.gpu_nics[sub.src, sub.plane]], 1)
    assert np.allclose(a[rows, 2 * net.gpu_nics[sub.dst, sub.plane] + 1], 1)


@pytest.mark.parametrize("routing", ["rail", "adaptive"])
def test_ring_allreduce_reaches_the_bandwidth_of_all_planes(two_planes, routing):
    result = run_scenario(two_planes, traffic="all-reduce", routing=routing, size_bytes=GB)
    assert result["bound_busbw_gbps"] == 800  # 2 x 400G
    assert result["busbw_gbps"] == pytest.approx(800, rel=1e-9)
    assert result["flows"] == 40  # one ring edge per GPU, each split in 2 by the engine
    assert result["per_tier_load"]["server-leaf"]["busy_links"] == 2 * 40  # every NIC link


def test_a_flow_runs_on_both_planes_and_needs_both(two_planes):
    # GPU 0 -> GPU 2 alone: a half on each 400G plane, done when both halves are
    net = Network.from_fabric(two_planes)
    alone = simulate(net, Flows([0], [2], GB), "rail")
    assert alone.completion_time_s == pytest.approx(GB * 8 / 800e9, rel=1e-12)
    assert np.allclose(alone.sub_finish, GB / 2 * 8 / 400e9, rtol=1e-12)
    # fail GPU 0's plane-1 NIC link: no route for that half
    dead = net.with_failures(links=[int(net.gpu_nics[0, 1])])
    with pytest.raises(RoutingError, match="NIC"):
        simulate(dead, Flows([0], [2], GB), "rail")
    with pytest.raises(ValueError, match="plane"):
        route(net, Flows([0], [2], GB, plane=[2]), "rail")


def test_scale_up_flows_are_not_split(two_planes):
    net = Network.from_fabric(two_planes, scale_up_gbps=900)
    flows = Flows([0, 0], [1, 2], GB)  # GPU 1 is on GPU 0's server, GPU 2 is not
    sub, parent = sub_flows(net, flows)
    assert parent.tolist() == [0, 1, 1]
    res = simulate(net, flows, "rail")
    assert res.finish[0] == pytest.approx(GB * 8 / 900e9, rel=1e-12)
    assert res.finish[1] == pytest.approx(GB * 8 / 800e9, rel=1e-12)


def test_single_plane_flows_are_the_engine_flows(one_plane):
    net = Network.from_fabric(one_plane)
    flows = ring_allreduce(np.arange(net.gpu_count), GB)
    sub, parent = sub_flows(net, flows)
    assert sub is flows and (parent == np.arange(len(flows))).all()
    assert net.planes == 1 and (net.gpu_nics[:, 0] == net.gpu_nic).all()


def test_flow_dump_lists_each_plane(two_planes):
    net = Network.from_fabric(two_planes)
    flows = permutation(np.arange(net.gpu_count), GB, seed=1)
    result = simulate(net, flows, "ecmp", seed=1)
    dump = flow_dump(net, flows, result, "ecmp", seed=1)
    assert len(dump["flows"]) == 2 * len(flows)
    for entry in dump["flows"]:
        assert entry["plane"] in (0, 1) and entry["size_bytes"] == GB / 2
        link = int(entry["links"][0].split(":")[1])
        assert two_planes.link_plane[link] == entry["plane"]
        assert entry["finish_s"] <= result.finish[entry["id"]]


def test_gpus_sharing_a_nic_link_are_refused():
    builder = FabricBuilder()
    servers = builder.add_nodes(["s0", "s1"], role="server", model="srv", ports=1, ports_per_cage=1)
    leaf = builder.add_nodes(["leaf"], role="leaf", model="sw", ports=8, ports_per_cage=1)
    builder.add_links(
        servers, [0, 0], [leaf[0]] * 2, [0, 1], tier="server-leaf", plane=0, speed_gbps=400
    )
    fabric = builder.build({"gpus": 4, "servers": 2})
    with pytest.raises(JobInputError, match="NIC links of its own"):
        Network.from_fabric(fabric)
