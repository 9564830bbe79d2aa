"""The optical budget of a stored revision (issue 19 item 3): the design page's margin
histogram and worst links, and the API the canvas's margin overlay reads."""

from __future__ import annotations

import pytest

from planner.designs.services import design_create
from planner.domain.names import end_text

BASE = "/api/planner"
# One SU of DGX H100 on QM9700, multimode optics, leaf-spine through end-of-row patch panels:
# 2 mated MPO pairs (1.5 dB worst case) leave little of 400GBASE-SR4's 1.9 dB channel limit.
SPEC = {
    "name": "1 SU structured",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 31,
    "servers_per_su": 32,
    "reserved_leaf_ports": 4,
    "switches": {"leaf": "QM9700"},
    "media": {"server-leaf": "MMF", "leaf-spine": "MMF"},
    "cabling": {"leaf-spine": {"type": "patch-panel", "panels": "end-of-row"}},
}


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=SPEC)


def test_design_page_shows_histogram_and_worst_links(logged_in_client, design):
    summary = design.revisions.get().summary["optical_budget"]
    assert summary["links_budgeted"] > 0 and len(summary["worst"]) == 10
    assert summary["under_threshold"] > 0  # the panelled leaf-spine links
    margins = [row["margin_db"] for row in summary["worst"]]
    assert margins == sorted(margins) and margins[0] == summary["margin_min_db"]
    assert sum(b["count"] for b in summary["histogram"]) == summary["links_known"]
    html = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert 'data-testid="margin-histogram"' in html and "<svg" in html
    assert 'data-testid="optical-worst"' in html
    worst = summary["worst"][0]
    # the link named as every page names it (planner.domain.names), not "port <n>"
    a, b = end_text(worst["a"], worst["a_port_name"]), end_text(worst["b"], worst["b_port_name"])
    assert worst["ends"] == f"{a} → {b}" and worst["ends"] in html
    assert "/" in worst["a_port_name"] + worst["b_port_name"]
    assert f"{summary['under_threshold']} under the 1.0 dB margin asked" in html


def test_api_gives_margins_per_link_for_the_overlay(api_client, design):
    body = api_client.get(f"{BASE}/designs/{design.pk}/revisions/1/optical-budget/").json()
    assert body["threshold_db"] == 1.0 and body["revision"] == 1
    assert len(body["links"]) == body["summary"]["links_known"]
    worst = body["summary"]["worst"][0]
    assert body["links"][f"link:{worst['link']}"] == pytest.approx(worst["margin_db"], abs=0.01)
    assert min(body["links"].values()) == pytest.approx(body["summary"]["margin_min_db"], abs=0.01)


def test_api_hides_other_users_designs(seed_catalog, other_user, api_client):
    theirs = design_create(owner=other_user, spec_document={**SPEC, "name": "theirs"})
    url = f"{BASE}/designs/{theirs.pk}/revisions/1/optical-budget/"
    assert api_client.get(url).status_code == 404
