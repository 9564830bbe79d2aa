"""Failure domains and graph measurements of a stored revision (issue 24): the design page's
sections and the API."""

from __future__ import annotations

import pytest

from planner.designs.services import design_create

BASE = "/api/planner"
# A small 3:1 Clos (8 servers of 8 x 400G on one SN5600 leaf pair) with A/B feeds on its racks.
SPEC = {
    "name": "small 3:1",
    "topology": "clos",
    "server": "XE9680",
    "servers": 24,
    "oversubscription": 3,
    "switches": {"leaf": "SN5600"},
    "power": {"feeds": ["A", "B"]},
}


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=SPEC)


def test_api_and_page_show_measured_bisection_and_domains(api_client, logged_in_client, design):
    body = api_client.get(f"{BASE}/designs/{design.pk}/revisions/1/resilience/").json()
    bisection = body["graph"]["bisection"]
    assert bisection["measured_gbps"] == bisection["formula_gbps"]
    assert bisection["measured_gbps"] < bisection["nonblocking_gbps"]
    kinds = {k["kind"]: k for k in body["domains"]["kinds"]}
    assert body["domains"]["feeds_stated"] and kinds["feed"]["count"] == 2
    assert kinds["feed"]["largest"]["gpus"] == 0  # every device on A and B
    html = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert 'data-testid="bisection-measured"' in html and "Tb/s" in html
    assert 'data-testid="below-nonblocking"' in html
    assert 'data-testid="domains-table"' in html and "Power feed" in html
    assert "The split: servers 1–" in html and "Halves:" not in html  # words, not a bar


def test_numbered_domains_read_with_their_kind():
    from planner.designs.resilience import _domain_name

    assert _domain_name("su", "2") == "SU 2" and _domain_name("plane", 1) == "plane 1"
    assert _domain_name("rack", "R002-01") == "R002-01" and _domain_name("tier", "leaf") == "leaf"


def test_api_hides_other_users_designs(seed_catalog, other_user, api_client):
    theirs = design_create(owner=other_user, spec_document={**SPEC, "name": "theirs"})
    url = f"{BASE}/designs/{theirs.pk}/revisions/1/resilience/"
    assert api_client.get(url).status_code == 404
