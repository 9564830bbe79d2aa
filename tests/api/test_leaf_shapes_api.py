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


def test_a_ratio_written_as_vendors_publish_it(api_client, seed_catalog):
    spec = {**BASE, "topology": "rail-optimized", "oversubscription": "1:2"}
    response = api_client.post(SUMMARY, {"spec": spec}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["oversubscription_text"]["leaf"] == "1:2 down:up (0.5:1)"


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


def test_the_wizard_fields_take_a_one_tier_plane_and_a_one_to_two_leaf(api_client, seed_catalog):
    from tests.api.test_wizard_api import FIELDS

    one_tier = {**FIELDS, "topology": "clos", "servers": "8", "tiers": "1"}
    one_tier.update(reserved_leaf_ports="0", media_server_leaf="auto")
    response = api_client.post(SUMMARY, {"fields": one_tier}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["spec"]["tiers"] == 1
    assert response.json()["switches"] == {"leaf": 1, "spine": 0, "core": 0}
    half = {**FIELDS, "servers": "8", "servers_per_su": "", "oversubscription": "0.5"}
    half["reserved_leaf_ports"] = "0"
    response = api_client.post(SUMMARY, {"fields": half}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["oversubscription_text"]["leaf"] == "1:2 down:up (0.5:1)"
    zero = {**half, "oversubscription": "0"}
    response = api_client.post(SUMMARY, {"fields": zero}, format="json")
    assert response.status_code == 400, response.content
    assert "oversubscription" in [p["field"] for p in response.json()["problems"]]
