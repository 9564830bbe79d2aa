"""Canvas API of multi-plane and rack-scale designs: ``?plane=N`` shows one plane (a bad
value is a 400 naming ``plane``); a GB300-NVL72 rack's node lists its trays and NICs. The
fabrics are generated without media (the seed has no module for every cage they need) and
stored as a drawn design's revision."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.designs.adapters import fabric_pack
from planner.designs.models import DesignRevision
from planner.designs.services import design_create_drawn
from planner.domain.generators import generate_topology
from planner.domain.layout import assign_layout
from planner.domain.spec import parse_spec

BASE = "/api/planner"
SEED = Path(__file__).resolve().parents[2] / "inventory" / "library" / "seed"
DRAWN = {"nodes": [{"name": "s1", "model": "DGX-H100", "role": "server", "x": 0, "y": 0}]}


def _facts():
    from inventory.library.files import read_catalog_folder
    from planner.domain.catalog import facts_from_records

    return facts_from_records(read_catalog_folder(SEED).parts)


def design_with_fabric(owner, name: str, document: dict):
    """A design whose revision 1 holds ``document``'s fabric, placed in racks, no media."""
    facts = _facts()
    spec = parse_spec(document)
    fabric = generate_topology(spec, facts)
    assign_layout(fabric, spec, facts)
    design = design_create_drawn(owner=owner, name=name, document=DRAWN)
    DesignRevision.objects.filter(design=design, number=1).update(topology=fabric_pack(fabric))
    return design


@pytest.fixture
def two_planes(user, seed_catalog):
    spec = {
        "name": "p2",
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": 8,
        "planes": 2,
        "switches": {"leaf": "Q3400-RA"},
    }
    return design_with_fabric(user, "Two planes", spec)


@pytest.fixture
def nvl72(user, seed_catalog):
    spec = {
        "name": "nvl",
        "topology": "rail-optimized",
        "server": "GB300-NVL72",
        "racks": 2,
        "servers_per_su": 2,
        "switches": {"leaf": "Q3400-RA"},
        "layout": {"servers_per_rack": 1},
    }
    return design_with_fabric(user, "NVL72", spec)


def test_plane_filter(api_client, two_planes):
    url = f"{BASE}/designs/{two_planes.pk}/revisions/1/canvas/"
    whole = api_client.get(url, {"view": "detail", "scope": "all"}).json()
    assert (whole["plane"], whole["planes"]) == (None, 2)
    body = api_client.get(url, {"view": "detail", "scope": "all", "plane": "2"}).json()
    assert (body["plane"], body["planes"]) == (2, 2)
    switches = [n["data"] for n in body["elements"]["nodes"] if n["data"]["role"] != "server"]
    assert switches and all(s["plane"] == 2 for s in switches)
    assert all(s["label"].startswith("p2-") for s in switches)
    assert body["counts"]["links_shown"] * 2 == whole["counts"]["links_shown"]
    overview = api_client.get(url, {"plane": "1"})
    assert overview.status_code == 200 and overview.json()["plane"] == 1
    for bad in ("0", "3", "two"):
        response = api_client.get(url, {"plane": bad})
        assert response.status_code == 400
        assert list(response.json()) == ["plane"], response.json()


def test_rack_node_lists_its_trays(api_client, nvl72):
    url = f"{BASE}/designs/{nvl72.pk}/revisions/1/canvas/"
    body = api_client.get(url, {"view": "detail", "scope": "all"}).json()
    racks = [n["data"] for n in body["elements"]["nodes"] if n["data"]["role"] == "server"]
    assert [r["label"] for r in racks] == [
        f"{r['name']} · GB300-NVL72 in rack {r['rack']} · 18 trays · 72 GPUs" for r in racks
    ]
    assert [r["name"] for r in racks] == ["gpu00001", "gpu00002"] and all(r["rack"] for r in racks)
    trays = racks[1]["trays"]
    assert len(trays) == 18 and trays[0]["gpus"] == 4
    nic = trays[0]["nics"][0]
    assert (nic["rail"], nic["plane"], nic["port"]) == (1, 1, 1)
    assert nic["peer"].startswith("leaf-") and nic["peer_port"] >= 1
