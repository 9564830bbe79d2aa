"""Canvas views of rack-scale systems (a GB300-NVL72 rack drawn as one node whose trays and
NICs the inspector lists) and of multi-plane fabrics (one plane at a time, or all). The
fabrics are generated and placed in racks without media (planner.domain.canvas)."""

from __future__ import annotations

import numpy as np
import pytest

from planner.domain.canvas import CanvasError, detail_elements, overview_elements, parse_plane
from planner.domain.canvas.racks import rack_label, rack_trays
from planner.domain.fabric import ROLE
from planner.domain.generators import generate_topology
from planner.domain.layout import assign_layout
from planner.domain.spec import parse_spec

NVL72 = {
    "name": "nvl",
    "topology": "rail-optimized",
    "server": "GB300-NVL72",
    "racks": 8,
    "servers_per_su": 8,
    "switches": {"leaf": "Q3400-RA"},
    "layout": {"servers_per_rack": 1},
}
TWO_PLANES = {
    "name": "p2",
    "topology": "rail-optimized",
    "server": "DGX-B300",
    "servers": 8,
    "planes": 2,
    "switches": {"leaf": "Q3400-RA"},
}


def _placed(document: dict, facts):
    spec = parse_spec(document)
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    return fabric


@pytest.fixture(scope="module")
def nvl72(facts):
    return _placed(NVL72, facts)


@pytest.fixture(scope="module")
def two_planes(facts):
    return _placed(TWO_PLANES, facts)


def _devices(view: dict, role: str | None = None) -> list[dict]:
    return [
        n["data"]
        for n in view["elements"]["nodes"]
        if n["data"]["kind"] == "device" and role in (None, n["data"]["role"])
    ]


# --- rack-scale systems -------------------------------------------------------------------------


def test_a_rack_lists_its_trays_and_where_each_nic_goes(nvl72):
    rack = int(np.flatnonzero(nvl72.node_role == ROLE["server"])[2])
    trays = rack_trays(nvl72, rack)
    assert [t["tray"] for t in trays] == list(range(1, 19))
    assert {t["gpus"] for t in trays} == {4}
    assert all(len(t["nics"]) == 4 for t in trays)
    # port (tray * rails + rail) * planes + plane, 0-based; the canvas shows ports 1-based
    nic = trays[5]["nics"][2]  # tray 6, rail 3
    assert (nic["rail"], nic["plane"], nic["port"]) == (3, 1, (5 * 4 + 2) + 1)
    link = np.flatnonzero((nvl72.link_a == rack) & (nvl72.link_a_port == 5 * 4 + 2))[0]
    assert nic["peer"] == nvl72.node_name[nvl72.link_b[link]]
    assert nic["peer_port"] == int(nvl72.link_b_port[link]) + 1
    assert nvl72.node_rail[nvl72.link_b[link]] == 2, "rail 3 of every tray goes to a rail-3 leaf"
    # names as every output names them (planner.domain.names): tray/NIC, cage/lane, rack name
    assert nic["port_name"] == "tray 6 NIC 3"
    per_cage = int(nvl72.node_ports_per_cage[nvl72.link_b[link]])
    leaf_port = int(nvl72.link_b_port[link])
    assert nic["peer_port_name"] == f"{leaf_port // per_cage + 1}/{leaf_port % per_cage + 1}"
    rack_name = nvl72.racks[int(nvl72.node_rack[rack])]["name"]
    label = f"{nvl72.node_name[rack]} · GB300-NVL72 in rack {rack_name} · 18 trays · 72 GPUs"
    assert rack_label(nvl72, rack) == label


def test_an_ordinary_server_has_no_trays(two_planes):
    server = int(np.flatnonzero(two_planes.node_role == ROLE["server"])[0])
    assert rack_trays(two_planes, server) is None
    assert rack_label(two_planes, server) is None
    assert "trays" not in _devices(detail_elements(two_planes, "su:1"), "server")[0]


def test_views_draw_racks_of_trays(nvl72):
    racks = _devices(detail_elements(nvl72, "su:1"), "server")
    assert len(racks) == 8
    first = racks[0]
    # the system by its device name, the rack by its layout name, as on every other page
    assert first["label"] == f"gpu00001 · GB300-NVL72 in rack {first['rack']} · 18 trays · 72 GPUs"
    assert first["rack"] == nvl72.racks[int(nvl72.node_rack[0])]["name"]
    assert first["name"] == "gpu00001", "the device name stays for finding and renaming"
    assert (first["compute_trays"], first["gpus"], len(first["trays"])) == (18, 72, 18)
    assert first["trays"][0]["nics"][0] == {
        "rail": 1,
        "plane": 1,
        "port": 1,
        "port_name": "tray 1 NIC 1",
        "peer": first["trays"][0]["nics"][0]["peer"],
        "peer_port": first["trays"][0]["nics"][0]["peer_port"],
        "peer_port_name": first["trays"][0]["nics"][0]["peer_port_name"],
    }
    assert first["trays"][0]["nics"][0]["peer"].startswith("leaf-")
    overview = overview_elements(nvl72)
    labels = [n["data"]["label"] for n in overview["elements"]["nodes"]]
    assert "SU 1: 8 GB300-NVL72 racks · 144 trays · 576 GPUs" in labels


# --- planes -------------------------------------------------------------------------------------


def test_parse_plane(two_planes):
    assert parse_plane(None, two_planes) is None
    assert parse_plane("", two_planes) is None
    assert parse_plane("All", two_planes) is None
    assert parse_plane(" 2 ", two_planes) == 1
    for bad in ("0", "3", "-1", "x", "1.5"):
        with pytest.raises(CanvasError) as caught:
            parse_plane(bad, two_planes)
        assert caught.value.field == "plane"


@pytest.mark.parametrize("scope", [None, "su:1", "all", "core"])
def test_one_plane_shows_its_switches_and_links_and_every_server(two_planes, scope):
    def build(plane):
        if scope is None:
            return overview_elements(two_planes, plane)
        return detail_elements(two_planes, scope, plane)

    whole = build(None)
    assert (whole["plane"], whole["planes"]) == (None, 2)
    for plane in (0, 1):
        view = build(plane)
        assert (view["plane"], view["planes"]) == (plane + 1, 2)
        nodes = [n["data"] for n in view["elements"]["nodes"] if n["data"]["kind"] != "group"]
        switches = [n for n in nodes if n["role"] in ("leaf", "spine", "core", "manager")]
        assert switches and {n["plane"] for n in switches} == {plane + 1}
        servers = [n for n in nodes if n["role"] == "server"]
        whole_servers = [
            n["data"]["id"] for n in whole["elements"]["nodes"] if n["data"].get("role") == "server"
        ]
        assert [n["id"] for n in servers] == whole_servers, "servers stay"
        links = [e["data"] for e in view["elements"]["edges"] if e["data"]["kind"] == "link"]
        for link in links:
            index = int(link["id"].split(":")[1])
            assert two_planes.link_plane[index] == plane, "link ids stay those of the fabric"
    one = build(0)["counts"]["links_shown"]
    assert one * 2 == whole["counts"]["links_shown"]


def test_a_one_plane_fabric_takes_plane_1_only(nvl72):
    assert overview_elements(nvl72, parse_plane("1", nvl72))["planes"] == 1
    with pytest.raises(CanvasError, match="no plane 2"):
        parse_plane("2", nvl72)
