"""The wizard's helper API and messages (issue 15 item 5)."""

import pytest

pytestmark = [pytest.mark.api, pytest.mark.django_db]

SUMMARY = "/api/planner/summary/"


def _problems(api_client, spec):
    response = api_client.post(SUMMARY, {"spec": spec}, format="json")
    assert response.status_code == 400, response.content
    return response.json()["problems"]


def test_leaf_options_mark_switches_by_the_link_rules(api_client, seed_catalog):
    response = api_client.get("/api/planner/leaf-options/", {"server": "DGX-H100"})
    assert response.status_code == 200
    rows = {row["slug"]: row for row in response.json()["switches"]}
    assert rows["QM9700"]["fits"] and rows["QM9700"]["reason"] == ""
    assert not rows["7060X6-32PE"]["fits"]
    assert "7060X6-32PE" in rows["7060X6-32PE"]["reason"]
    fits = [row["fits"] for row in response.json()["switches"]]
    assert fits == sorted(fits, reverse=True)  # those that fit first
    assert api_client.get("/api/planner/leaf-options/").status_code == 400


def test_switch_without_ports_names_it(api_client, seed_catalog):
    spec = {
        "name": "x",
        "topology": "rail-optimized",
        "server": "DGX-H100",
        "servers": 8,
        "switches": {"leaf": "7060X6-32PE"},
    }
    [problem] = _problems(api_client, spec)
    assert problem["field"] == "switches.leaf"
    assert "it has G ports" not in problem["message"]
    assert "lists no data ports" in problem["message"]


def test_typo_suggests_the_right_word(api_client, seed_catalog):
    text = "name: x\ntopology: rail-optimised\nserver: DGX-H100\nservers: 8\nrials: 4\n"
    problems = {p["field"]: p["message"] for p in _problems(api_client, text)}
    assert "did you mean 'rail-optimized'?" in problems["topology"]
    assert "rials (did you mean rails?)" in problems["spec"]
