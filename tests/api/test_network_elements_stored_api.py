"""Issue 33 item 1 through the API: a cluster revision stores its other networks' devices and
links; its pages and downloads read them (never rebuilt); a revision stored before they were
kept is read by building them once, and a canvas edit of it stores them with the new revision.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

import planner.domain.networks.elements as elements_module
from planner.designs.adapters import fabric_unpack
from planner.designs.models import DesignRevision
from planner.designs.services import design_create

BASE = "/api/planner"
EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


@pytest.fixture
def cluster(seed_catalog, user):
    text = (EXAMPLES / "h100-superpod-4su-cluster.yaml").read_text()
    return design_create(owner=user, spec_document=text)


def _refuse_rebuilds(monkeypatch) -> None:
    def refused(fabric, facts):
        raise AssertionError("the networks' elements were rebuilt")

    monkeypatch.setattr(elements_module, "cluster_elements", refused)


def _downloads(client, design) -> dict[str, bytes]:
    url = f"{BASE}/designs/{design.pk}/revisions/1"
    out = {}
    for path in ("canvas/", "exports/netbox-cables/", "exports/p2p/", "exports/json/"):
        response = client.get(f"{url}/{path}")
        assert response.status_code == 200, (path, getattr(response, "content", b""))
        streamed = getattr(response, "streaming_content", None)
        out[path] = b"".join(streamed) if streamed is not None else response.content
    return out


def test_a_cluster_revision_stores_its_network_elements(cluster, api_client, monkeypatch):
    revision = cluster.revisions.get(number=1)
    stored = json.loads(zlib.decompress(bytes(revision.topology)))["networks"]
    assert len(stored["links"]["a"]) > 1000 and stored["devices"]["name"]
    _refuse_rebuilds(monkeypatch)
    bodies = _downloads(api_client, cluster)
    assert b"stor-leaf-01" in bodies["exports/netbox-cables/"]
    assert b"oob" in bodies["canvas/"]


def test_an_old_revision_is_upgraded_on_read_and_an_edit_stores_them(
    cluster, api_client, monkeypatch
):
    revision = cluster.revisions.get(number=1)
    document = json.loads(zlib.decompress(bytes(revision.topology)))
    stored = document.pop("networks")  # as stored before the elements were kept
    DesignRevision.objects.filter(pk=revision.pk).update(
        topology=zlib.compress(json.dumps(document).encode())
    )
    calls = []
    build = elements_module.cluster_elements

    def counted(fabric, facts):
        calls.append(1)
        return build(fabric, facts)

    monkeypatch.setattr(elements_module, "cluster_elements", counted)
    bodies = _downloads(api_client, cluster)
    assert b"stor-leaf-01" in bodies["exports/netbox-cables/"]
    assert len(calls) == 1  # built once, on the first read, for every page after it

    topology = api_client.get(f"{BASE}/designs/{cluster.pk}/revisions/1/topology/").json()
    edit = {"nodes": topology["nodes"], "links": topology["links"][1:]}  # one link removed
    saved = api_client.put(
        f"{BASE}/designs/{cluster.pk}/topology/",
        {"base_revision": 1, "message": "one link less", **edit},
        format="json",
    )
    assert saved.status_code == 201, saved.content
    edited = fabric_unpack(cluster.revisions.get(number=2).topology)
    assert edited.network_columns == stored
