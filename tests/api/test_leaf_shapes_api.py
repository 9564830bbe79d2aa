"""Free leaf shapes through the API (issue 36 item 1): the summary states the ratio both
ways, a one-tier plane builds, and a spec the hardware cannot give is a 400 naming the field."""

from __future__ import annotations

SUMMARY = "/api/planner/summary/"
BASE = {"name": "shape", "server": "DGX-H100", "servers": 8, "switches": {"leaf": "QM9700"}}


def test_summary_of_a_one_to_two_leaf_says_both_ways(api_client, seed_catalog):
    spec = {**BASE, "topology": "rail-optimized", "oversubscription": 0.5}
    response = api_client.post(SUMMARY, {"spec": spec}, format="json")
    assert response.status_code == 200, response.content
    summary = response.json()
    assert summary["oversubscription"]["leaf"] == 0.5
    assert summary["oversubscription_text"]["leaf"] == "1:2 down:up (0.5:1)"
    assert summary["leaf_bandwidth_gbps"] == {"down": 8400, "up": 16800}


def test_summary_of_a_one_leaf_plane(api_client, seed_catalog):
    spec = {**BASE, "topology": "clos", "tiers": 1}
    response = api_client.post(SUMMARY, {"spec": spec}, format="json")
    assert response.status_code == 200, response.content
    summary = response.json()
    assert (summary["tiers"], summary["switches"]["leaf"], summary["switches"]["spine"]) == (
        1,
        1,
        0,
    )


def test_refusals_are_400_naming_the_field(api_client, seed_catalog):
    for extra, field in (
        ({"topology": "clos", "oversubscription": 0}, "oversubscription"),
        ({"topology": "clos", "tiers": 1, "servers": 20}, "tiers"),
        ({"topology": "clos", "uplink_speed_gbps": 300}, "uplink_speed_gbps"),
    ):
        response = api_client.post(SUMMARY, {"spec": {**BASE, **extra}}, format="json")
        assert response.status_code == 400, (extra, response.content)
        fields = [p["field"] for p in response.json()["problems"]]
        assert field in fields, (extra, response.json())
