"""Canvas API of a cluster design (issue 18): the 4 SU H100 SuperPOD with storage, in-band
and OOB answers its layers (``networks``), every element with its ``network``, and the other
networks' devices beside the compute fabric; a design without networks has the compute
layer only."""

from pathlib import Path

from planner.designs.services import design_create

BASE = "/api/planner"
EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


def test_cluster_canvas_has_a_layer_per_network(api_client, user, seed_catalog):
    text = (EXAMPLES / "h100-superpod-4su-cluster.yaml").read_text()
    design = design_create(owner=user, spec_document=text)
    url = f"{BASE}/designs/{design.pk}/revisions/1/canvas/"
    body = api_client.get(url, {"view": "detail", "scope": "all"}).json()
    assert [n["id"] for n in body["networks"]] == ["compute", "storage", "inband", "oob"]
    storage = next(n for n in body["networks"] if n["id"] == "storage")
    assert storage["devices"] >= 16  # RA-11333-001 Table 7: 16 QM9700 storage switches
    nodes = body["elements"]["nodes"]
    edges = body["elements"]["edges"]
    assert all(e["data"]["network"] for e in nodes + edges)
    kinds = {(n["data"]["kind"], n["data"]["network"]) for n in nodes}
    assert ("network-device", "storage") in kinds and ("network-device", "oob") in kinds
    storage_edges = [e["data"] for e in edges if e["data"]["network"] == "storage"]
    assert sum(e.get("links", 1) for e in storage_edges) == storage["links"]
    assert body["counts"]["elements"] == len(nodes) + len(edges) <= 5000
    overview = api_client.get(url).json()
    assert [n["id"] for n in overview["networks"]] == ["compute", "storage", "inband", "oob"]
    assert any(n["data"]["kind"] == "network-aggregate" for n in overview["elements"]["nodes"])


def test_design_without_networks_has_the_compute_layer_only(api_client, user, seed_catalog):
    text = (EXAMPLES / "h100-superpod-1su.yaml").read_text()
    design = design_create(owner=user, spec_document=text)
    body = api_client.get(f"{BASE}/designs/{design.pk}/revisions/1/canvas/").json()
    assert [n["id"] for n in body["networks"]] == ["compute"]
    assert {n["data"]["network"] for n in body["elements"]["nodes"]} == {"compute"}
