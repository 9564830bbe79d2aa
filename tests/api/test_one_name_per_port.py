"""One name per port, device and rack, everywhere (issue 33, item 3).

For three presets (GB300 NVL72 XDR, B300 Spectrum-X twin plane, H100 4 SU cluster) a few
links are picked (the first server link, a leaf-spine link, the last link) and each page,
API answer and export that names them is read: the name found must be the one
:mod:`planner.domain.names` gives (``3/2``, ``tray 2 NIC 1``, the switch OS's interface
name, the rack's layout name), never ``port <n>`` or an element id.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from planner.analyses.validate.report import describe_link
from planner.designs.adapters import catalog_facts, fabric_unpack
from planner.designs.services import design_create
from planner.domain.asbuilt.names import FabricNames
from planner.domain.fabric import TIER
from planner.domain.names import Names, end_text
from planner.domain.presets import preset_get
from simulation.presentation import ElementNames

PRESETS = ("gb300-nvl72-xdr", "b300-spectrum-x-twin-plane", "h100-superpod-4su-cluster")


@pytest.fixture(params=PRESETS)
def built(request, seed_catalog, user):
    design = design_create(owner=user, spec_document=preset_get(request.param).spec)
    fabric = fabric_unpack(design.revisions.get().topology)
    names = Names(fabric, catalog_facts())
    leaf_spine = int((fabric.link_tier == TIER["leaf-spine"]).argmax())
    picked = [0, leaf_spine, fabric.link_count - 1]
    return request.param, design, fabric, names, picked


def _api(design, tail: str) -> str:
    return f"/api/planner/designs/{design.pk}/revisions/1/{tail}"


def _body(response) -> str:
    assert response.status_code == 200, getattr(response, "content", b"")
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def _csv(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(_body(response))))


def _ends(fabric, link: int) -> tuple[int, int, int, int]:
    return (
        int(fabric.link_a[link]),
        int(fabric.link_a_port[link]),
        int(fabric.link_b[link]),
        int(fabric.link_b_port[link]),
    )


def test_every_output_names_a_port_as_the_naming_function_does(api_client, built):
    preset, design, fabric, names, picked = built
    expected = {}
    for link in picked:
        a, ap, b, bp = _ends(fabric, link)
        expected[link] = (names.device(a), names.port(a, ap), names.device(b), names.port(b, bp))
    # the names are the cage/lane (or tray/NIC) forms, not a bare index
    a_name = expected[0][1]
    if preset == "gb300-nvl72-xdr":
        assert a_name == "tray 1 NIC 1"
    else:
        assert "/" in a_name
    assert all("/" in expected[link][3] for link in picked)  # twin-port switch cages

    # canvas (REST API): link edges, and a rack-scale system's tray table
    canvas = api_client.get(_api(design, "canvas/"), {"view": "detail", "scope": "all"}).json()
    edges = {e["data"]["id"]: e["data"] for e in canvas["elements"]["edges"]}
    nodes = {
        n["data"].get("name") or n["data"]["label"]: n["data"] for n in canvas["elements"]["nodes"]
    }
    for link, (_, a_port, _, b_port) in expected.items():
        edge = edges[f"link:{link}"]
        assert (edge["a_port_name"], edge["b_port_name"]) == (a_port, b_port)
    if preset == "gb300-nvl72-xdr":
        rack = nodes[expected[0][0]]
        nic = rack["trays"][0]["nics"][0]
        assert (nic["port_name"], nic["peer"], nic["peer_port_name"]) == expected[0][1:]
        rack_name = names.rack(int(fabric.link_a[0]))
        assert rack_name and f"in rack {rack_name}" in rack["label"]
        assert rack["rack"] == rack_name

    # cabling plan, NetBox cables and P2P exports
    plan = _csv(api_client.get(_api(design, "exports/cabling-csv/")))
    netbox = _csv(api_client.get(_api(design, "exports/netbox-cables/")))
    p2p = _csv(api_client.get(_api(design, "exports/p2p/")))
    for a_dev, a_port, b_dev, b_port in expected.values():
        row = next(r for r in plan if (r["a_device"], r["a_port"]) == (a_dev, a_port))
        assert (row["b_device"], row["b_port"]) == (b_dev, b_port)
        if preset == "gb300-nvl72-xdr" and row["a_role"] == "server":
            assert a_port == f"tray {row['a_tray']} NIC {row['rail']}"
        row = next(r for r in netbox if (r["side_a_device"], r["side_a_name"]) == (a_dev, a_port))
        assert (row["side_b_device"], row["side_b_name"]) == (b_dev, b_port)
        row = next(r for r in p2p if (r["A-Node Name"], r["A-Port"]) == (a_dev, a_port))
        assert (row["Z-Node Name"], row["Z-Port"]) == (b_dev, b_port)

    # day-0 configuration intent: the switch end's interface, its OS names and its peer
    intent = json.loads(_body(api_client.get(_api(design, "exports/config-intent-json/"))))
    switches = {s["name"]: s for s in intent["switches"]}
    for link, (a_dev, a_port, b_dev, b_port) in expected.items():
        b, bp = int(fabric.link_b[link]), int(fabric.link_b_port[link])
        interface = next(i for i in switches[b_dev]["interfaces"] if i["port"] == b_port)
        assert (interface["peer"], interface["peer_port"]) == (a_dev, a_port)
        assert interface["names"] == names.interfaces(b, bp)
    if preset == "b300-spectrum-x-twin-plane":  # Ethernet: the OS names are known
        b, bp = int(fabric.link_b[0]), int(fabric.link_b_port[0])
        os_names = names.interfaces(b, bp)
        assert set(os_names) == {"nvue", "sonic"}  # NVIDIA Spectrum: Cumulus and SONiC
        peer = end_text(*expected[0][:2])
        sonic = _body(api_client.get(_api(design, "exports/config-sonic/")))
        ports = json.loads(sonic)[expected[0][2]]["PORT"]
        assert ports[os_names["sonic"]]["description"] == peer
        nvue = _body(api_client.get(_api(design, "exports/config-nvue/")))
        switch = nvue[nvue.index(f"# ---- switch {expected[0][2]} (") :]
        line = next(
            x
            for x in switch.splitlines()
            if x.startswith(f"nv set interface {os_names['nvue']} description")
        )
        assert peer in line
        # and an as-built file's vendor name reads back to the same port
        assert FabricNames(fabric, catalog_facts()).port(b, os_names["sonic"], os="sonic") == bp

    # validation, job pages and what-if: the link by its named ends
    element_names = ElementNames(fabric)
    for link, (a_dev, a_port, b_dev, b_port) in expected.items():
        text = f"{end_text(a_dev, a_port)} → {end_text(b_dev, b_port)}"
        assert names.link(link) == text
        assert element_names(f"link:{link}") == text
        assert describe_link(fabric, link).startswith(text)
        answer = api_client.post(
            _api(design, "what-if/"), {"failed": [f"link:{link}"]}, format="json"
        )
        assert answer.status_code == 200, answer.content
        assert answer.json()["failed_names"] == [text]

    # as-built: an end read from a file reports the same name
    asbuilt = FabricNames(fabric)
    a, ap, b, bp = _ends(fabric, picked[1])
    assert asbuilt.end(a, ap).port_name == expected[picked[1]][1]
    assert asbuilt.port(a, expected[picked[1]][1]) == ap


def test_the_design_page_names_the_worst_optical_links_so(logged_in_client, built):
    _, design, fabric, names, _ = built
    summary = design.revisions.get().summary["optical_budget"]
    page = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    for row in summary["worst"]:
        assert row["ends"] == names.link(row["link"])
        assert row["ends"] in page
    assert "node:" not in page.split('data-testid="optical-worst"')[-1].split("</table>")[0]
