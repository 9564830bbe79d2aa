"""Issue 18 item 6: a bad ``networks`` block is refused naming the field, through the API, and
nothing stored changes (no design created, no revision added, the latest spec untouched)."""

from __future__ import annotations

from planner.designs.models import Design, DesignRevision

BASE = "/api/planner"
SPEC = {
    "name": "4 SU cluster",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 127,
    "servers_per_su": 32,
    "reserved_leaf_ports": 4,
    "switches": {"leaf": "QM9700"},
    "networks": {"storage": {}, "inband": {}, "oob": {}},
}

BAD = [
    # a switch without enough ports: 1 GbE access switches cannot be storage leaves at 400G
    ({"storage": {"leaf": "SN2201"}}, "networks.storage.leaf"),
    # an OOB design larger than its uplinks allow (the SN2201 has 4 x 100G uplink ports)
    ({"oob": {"uplinks": 5}}, "networks.oob.uplinks"),
    # an endpoint count that is not an integer
    ({"oob": {"pdus_per_rack": 2.5}}, "networks.oob.pdus_per_rack"),
    ({"storage": {"storage_ports": "96 ports"}}, "networks.storage.storage_ports"),
    ({"management_nodes": -1}, "networks.management_nodes"),
]


def _problems(response) -> dict[str, str]:
    assert response.status_code == 400, response.content
    return {p["field"]: p["message"] for p in response.json()["problems"]}


def test_bad_network_blocks_are_refused_and_nothing_is_stored(api_client, seed_catalog):
    created = api_client.post(f"{BASE}/designs/", {"spec": SPEC}, format="json")
    assert created.status_code == 201, created.content
    design = created.json()
    before = DesignRevision.objects.get(design_id=design["id"], number=1)
    for networks, field in BAD:
        spec = {**SPEC, "networks": networks}
        refused = api_client.post(f"{BASE}/designs/", {"spec": spec}, format="json")
        assert field in _problems(refused), field
        assert Design.objects.count() == 1

        revised = api_client.post(
            f"{BASE}/designs/{design['id']}/revisions/",
            {"spec": spec, "base_revision": 1},
            format="json",
        )
        assert field in _problems(revised), field
        assert DesignRevision.objects.filter(design_id=design["id"]).count() == 1
        after = DesignRevision.objects.get(pk=before.pk)
        assert after.spec == before.spec and after.summary == before.summary

        summary = api_client.post(f"{BASE}/summary/", {"spec": spec}, format="json")
        assert field in _problems(summary), field
