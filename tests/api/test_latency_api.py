"""GPU-to-GPU latency of a stored revision (issue 23 item 1): the revision's summary, the
design page's Latency table and the API route."""

from __future__ import annotations

import pytest

from planner.designs.services import design_create

BASE = "/api/planner"
SPEC = {  # the smallest rail-optimized fabric with a spine: 4 DGX-H100 on QM9700
    "name": "latency 4 servers",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 4,
    "servers_per_su": 32,
    "switches": {"leaf": "QM9700"},
    "media": {"server-leaf": "MMF", "leaf-spine": "MMF"},
}


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=SPEC)


def test_page_and_api_show_latency_per_path_class(logged_in_client, api_client, design):
    stored = design.revisions.get().summary["latency"]["classes"]
    assert [stored[k]["hops"] for k in stored] == [1, 3]
    body = api_client.get(f"{BASE}/designs/{design.pk}/revisions/1/latency/").json()
    assert body["revision"] == 1 and body["classes"] == stored
    spine = body["classes"]["via-spine"]
    assert spine["switch_ns"]["typical"] == 450.0  # 3 x QM9700's 150 ns
    assert spine["latency_ns"]["min"] >= 450.0 and not spine["complete"]
    html = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert 'data-testid="latency-table"' in html and "Via spine" in html
    assert "switch latency" not in html and "module latency unknown for" in html


def test_api_hides_other_users_designs(seed_catalog, other_user, api_client):
    theirs = design_create(owner=other_user, spec_document={**SPEC, "name": "theirs"})
    assert api_client.get(f"{BASE}/designs/{theirs.pk}/revisions/1/latency/").status_code == 404
