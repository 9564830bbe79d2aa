"""Issue 18: the cluster's other networks as canvas layers (planner.domain.canvas.networks).

The 4 SU H100 SuperPOD with storage, in-band and OOB (RA-11333-001 V11 Tables 7/8; its counts
are checked in test_networks.py): every storage and in-band link is drawn, the OOB network's
managed ports are drawn aggregated per OOB switch, and every view stays within the element
budget, aggregating the networks (or leaving them out) when it must.
"""

from collections import Counter
from pathlib import Path

import pytest

from planner.domain.canvas import MAX_ELEMENTS, detail_elements, overview_elements
from planner.domain.canvas import networks as canvas_networks
from planner.domain.canvas import views as canvas_views
from planner.domain.networks.elements import cluster_elements
from planner.domain.pipeline import build_fabric
from planner.domain.spec import load_spec_text, parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


def _build(facts, name, networks=None):
    document = load_spec_text((EXAMPLES / name).read_text())
    if networks is not None:
        document["networks"] = networks
    fabric = build_fabric(parse_spec(document), facts)
    return fabric, cluster_elements(fabric, facts)


@pytest.fixture(scope="module")
def cluster4(facts):
    return _build(facts, "h100-superpod-4su-cluster.yaml")


@pytest.fixture(scope="module")
def cluster16(facts):
    networks = {"compute": {}, "storage": {}, "inband": {"cores": 4}, "oob": {}}
    return _build(facts, "h100-superpod-16su.yaml", networks)


def _nodes(view):
    return {n["data"]["id"]: n for n in view["elements"]["nodes"]}


def _edges(view, kind=None, network=None):
    return [
        e["data"]
        for e in view["elements"]["edges"]
        if (kind is None or e["data"]["kind"] == kind)
        and (network is None or e["data"]["network"] == network)
    ]


def _well_formed(view):
    nodes = _nodes(view)
    assert len(nodes) == len(view["elements"]["nodes"]), "node ids are unique"
    edge_ids = [e["data"]["id"] for e in view["elements"]["edges"]]
    assert len(set(edge_ids)) == len(edge_ids), "edge ids are unique"
    for edge in view["elements"]["edges"]:
        assert edge["data"]["source"] in nodes and edge["data"]["target"] in nodes
        assert edge["data"]["network"]
    for node in view["elements"]["nodes"]:
        assert node["data"]["network"]
        if node["data"]["kind"] != "group":
            assert "position" in node
    counts = view["counts"]
    assert counts["elements"] == len(view["elements"]["nodes"]) + len(view["elements"]["edges"])
    assert counts["elements"] <= MAX_ELEMENTS


def test_whole_fabric_draws_storage_and_inband_link_by_link(cluster4):
    fabric, cluster = cluster4
    view = detail_elements(fabric, "all", cluster=cluster)
    _well_formed(view)
    for network in ("storage", "inband"):
        drawn = _edges(view, "network-link", network)
        bundles = _edges(view, "network-bundle", network)
        assert len(drawn) + sum(b["links"] for b in bundles) == len(cluster.links_of(network))
        # parallel links of two devices are one bundle; every other link its own edge
        pairs = Counter(
            frozenset((link.a_device, link.b_device)) for link in cluster.links_of(network)
        )
        assert len(drawn) == sum(1 for n in pairs.values() if n == 1)
        assert len(bundles) == sum(1 for n in pairs.values() if n > 1)
    # a DGX's two storage ports reach two leaves: drawn link by link, ports named
    port = next(e for e in _edges(view, "network-link", "storage") if e["group"] == "node-leaf")
    assert port["a_port"].startswith("stor") and port["speed_gbps"] == 400
    # every switch of the networks is a node, with its network, model and rack
    nodes = _nodes(view)
    for device in cluster.devices:
        if device.network in ("storage", "inband", "oob") and "leaf" in device.role:
            data = nodes[f"net:{device.name}"]["data"]
            assert (data["network"], data["model"], data["role"]) == (
                device.network,
                device.model,
                device.role,
            )
            assert data["rack"] == (device.rack or None)
    # a storage leaf's link count is every link it has (its storage links and its OOB port)
    leaf = next(d for d in cluster.devices_of("storage") if d.role == "leaf")
    expected = sum(leaf.name in (link.a_device, link.b_device) for link in cluster.links)
    assert nodes[f"net:{leaf.name}"]["data"]["links"] == expected
    assert nodes[f"net:{leaf.name}"]["data"]["links_by_network"]["oob"] == 1


def test_oob_is_drawn_aggregated_with_every_port_counted(cluster4):
    fabric, cluster = cluster4
    view = detail_elements(fabric, "all", cluster=cluster)
    oob_links = cluster.links_of("oob")
    bundles = _edges(view, "network-bundle", "oob")
    singles = _edges(view, "network-link", "oob")
    switches = [d for d in cluster.devices_of("oob") if d.role == "leaf"]
    assert len(bundles) == len(switches)  # one managed-ports bundle per OOB switch
    assert sum(b["links"] for b in bundles) + len(singles) == len(oob_links)
    assert len(bundles) + len(singles) < len(oob_links) / 10  # not one edge per Cat5e cable
    assert all(b["label"].endswith("× 1G") for b in bundles)
    managed = [n["data"] for n in view["elements"]["nodes"] if n["data"].get("role") == "managed"]
    assert sorted(m["switch"] for m in managed) == sorted(s.name for s in switches)
    assert sum(m["count"] for m in managed) == sum(b["links"] for b in bundles)
    # the BMC of every DGX is among the managed ports
    bmcs = sum(m["managed"].get("node BMCs", 0) for m in managed)
    assert bmcs == sum(1 for link in oob_links if link.group == "node BMCs") == 127


def test_servers_belong_to_the_layers_that_reach_them(cluster4):
    fabric, cluster = cluster4
    view = detail_elements(fabric, "all", cluster=cluster)
    by_role = Counter()
    for node in view["elements"]["nodes"]:
        data = node["data"]
        if data["kind"] == "device":
            assert data["network"] == "compute"
            by_role[(data["role"], tuple(data.get("layers") or ["compute"]))] += 1
    assert by_role[("server", ("compute", "storage", "inband"))] == 127
    assert not any(role == "leaf" and layers != ("compute",) for role, layers in by_role)
    # what switching a layer off hides: nodes shown by it alone, and its edges
    layers = view["counts"]["layers"]
    storage_edges = _edges(view, network="storage")
    assert layers["storage"]["edges"] == len(storage_edges)
    assert sum(e.get("links", 1) for e in storage_edges) == len(cluster.links_of("storage"))
    assert layers["compute"]["edges"] == fabric.link_count
    assert layers["compute"]["nodes"] == fabric.node_count - 127
    assert [n["id"] for n in view["networks"]] == ["compute", "storage", "inband", "oob"]


def test_overview_bundles_network_links_to_server_aggregates(cluster4):
    fabric, cluster = cluster4
    view = overview_elements(fabric, cluster=cluster)
    _well_formed(view)
    nodes = _nodes(view)
    to_servers = [
        b
        for b in _edges(view, "network-bundle", "storage")
        if nodes[b["source"]]["data"].get("role") == "server"
    ]
    node_leaf = [link for link in cluster.links_of("storage") if link.group == "node-leaf"]
    assert sum(b["links"] for b in to_servers) == len(node_leaf)
    assert all(b["label"] == f"{b['links']:,} × 400G" for b in to_servers)
    servers = [n["data"] for n in nodes.values() if n["data"].get("role") == "server"]
    assert servers and all("storage" in s["layers"] for s in servers)


def test_a_scope_draws_only_the_network_links_of_its_servers(cluster4):
    fabric, cluster = cluster4
    view = detail_elements(fabric, "su:1", cluster=cluster)
    _well_formed(view)
    servers = {
        n["data"]["id"]
        for n in view["elements"]["nodes"]
        if n["data"]["kind"] == "device" and n["data"]["role"] == "server"
    }
    to_servers = [
        e
        for e in _edges(view, "network-link", "storage")
        if e["source"] in servers or e["target"] in servers
    ]
    assert len(to_servers) == 2 * len(servers) == 64  # two storage ports per DGX, two leaves
    # a rack group shows while any server inside it does
    racks = [
        n["data"] for n in view["elements"]["nodes"] if n["data"]["id"].startswith("group:rack")
    ]
    assert racks and all("storage" in r["layers"] for r in racks)


def test_views_are_deterministic(cluster4):
    fabric, cluster = cluster4
    assert detail_elements(fabric, "all", cluster=cluster) == detail_elements(
        fabric, "all", cluster=cluster
    )


def test_a_large_view_aggregates_the_networks_per_role(cluster16):
    fabric, cluster = cluster16
    view = detail_elements(fabric, "core", cluster=cluster)
    _well_formed(view)
    assert any("one node per network and role" in note for note in view["notes"])
    nodes = _nodes(view)
    assert not [i for i in nodes if i.startswith("net:")]
    leaves = nodes["netagg:storage:leaf"]["data"]
    storage = cluster.devices_of("storage")
    assert leaves["count"] == sum(1 for d in storage if d.role == "leaf")
    assert leaves["label"] == f"Storage: {leaves['count']:,} leaves"
    uplinks = [link for link in cluster.links_of("storage") if link.group == "leaf-spine"]
    between = [
        b for b in _edges(view, "network-bundle", "storage") if b["groups"].get("leaf-spine")
    ]
    assert sum(b["groups"]["leaf-spine"] for b in between) == len(uplinks)
    # an SU of the same design has room for them device by device
    su = detail_elements(fabric, "su:1", cluster=cluster)
    _well_formed(su)
    assert f"net:{storage[0].name}" in _nodes(su)
    assert not any("networks" in note for note in su["notes"])


def test_layers_left_out_when_even_one_node_per_role_does_not_fit(cluster4, monkeypatch):
    fabric, cluster = cluster4
    budget = fabric.node_count + fabric.link_count + 20  # room for the compute fabric only
    monkeypatch.setattr(canvas_networks, "MAX_ELEMENTS", budget)
    monkeypatch.setattr(canvas_views, "MAX_ELEMENTS", budget)
    view = detail_elements(fabric, "all", cluster=cluster)
    assert view["counts"]["elements"] == fabric.node_count + fabric.link_count
    assert not [n for n in view["elements"]["nodes"] if n["data"]["kind"].startswith("network")]
    assert any("other networks are left out" in note for note in view["notes"])
    assert [n["id"] for n in view["networks"]] == ["compute", "storage", "inband", "oob"]


def test_a_fabric_without_networks_has_only_the_compute_layer(facts):
    fabric, cluster = _build(facts, "h100-superpod-1su.yaml")
    assert not cluster.devices
    view = detail_elements(fabric, "all", cluster=cluster)
    assert view["networks"] == [
        {
            "id": "compute",
            "label": "Compute",
            "devices": fabric.node_count,
            "links": fabric.link_count,
        }
    ]
    assert {e["data"]["network"] for e in view["elements"]["edges"]} == {"compute"}
    assert view == detail_elements(fabric, "all")
