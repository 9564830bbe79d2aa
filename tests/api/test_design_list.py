"""The designs list, page and API: search by name, owner and team, sortable columns with the
current sort shown, power for everyone and cost (at the seed price book) with the price right
(issue 15 item 10)."""

from __future__ import annotations

import re

import pytest

from planner.designs.models import DesignRevision
from planner.designs.services import design_create
from planner.teams.models import Team, TeamMembership

SPEC = {
    "name": "Alpha pod",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 32,
    "servers_per_su": 32,
    "switches": {"leaf": "QM9700"},
}


@pytest.fixture
def designs(seed_catalog, user, other_user):
    team = Team.objects.create(name="Research lab", slug="research")
    TeamMembership.objects.create(team=team, user=user)
    TeamMembership.objects.create(team=team, user=other_user)
    alpha = design_create(owner=user, spec_document=SPEC)
    beta = design_create(owner=user, spec_document={**SPEC, "name": "beta big", "servers": 127})
    zeta = design_create(
        owner=other_user,
        spec_document={**SPEC, "name": "Zeta shared", "servers": 64},
        team=team,
        sharing="team-read",
    )
    return {"alpha": alpha, "beta": beta, "zeta": zeta}


def _names(html: str) -> list[str]:
    table = html.split('data-testid="design-table"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<td><a href="/designs/\d+/">([^<]+)</a></td>', table)


def test_page_sorts_by_each_column_and_says_how(logged_in_client, designs):
    html = logged_in_client.get("/designs/").content.decode()
    assert _names(html) == ["Zeta shared", "beta big", "Alpha pod"]  # newest change first
    assert "Sorted by Updated, newest first." in html
    assert re.search(r'aria-sort="descending"[^>]*>\s*<a href="\?sort=updated">Updated', html)
    html = logged_in_client.get("/designs/", {"sort": "name"}).content.decode()
    assert _names(html) == ["Alpha pod", "beta big", "Zeta shared"]  # case does not matter
    assert "Sorted by Name, A to Z." in html and 'href="?sort=-name"' in html
    html = logged_in_client.get("/designs/", {"sort": "-gpus"}).content.decode()
    assert _names(html) == ["beta big", "Zeta shared", "Alpha pod"]
    html = logged_in_client.get("/designs/", {"sort": "owner"}).content.decode()
    assert _names(html)[-1] == "Zeta shared"  # alice before bob
    html = logged_in_client.get("/designs/", {"sort": "pk"}).content.decode()
    assert "Sorted by Updated, newest first." in html  # an unknown sort falls back


def test_page_filters_by_name_owner_and_team(logged_in_client, designs):
    html = logged_in_client.get("/designs/", {"q": "BETA"}).content.decode()
    assert _names(html) == ["beta big"] and 'value="BETA"' in html
    html = logged_in_client.get("/designs/", {"q": "bob"}).content.decode()
    assert _names(html) == ["Zeta shared"]
    html = logged_in_client.get("/designs/", {"team": "research lab"}).content.decode()
    assert _names(html) == ["Zeta shared"]
    assert '<option value="Research lab">' in html  # the team box suggests team names
    html = logged_in_client.get("/designs/", {"q": "nothing like it"}).content.decode()
    assert "No designs match these filters." in html


def test_page_shows_power_and_no_cost_without_the_price_right(logged_in_client, designs):
    html = logged_in_client.get("/designs/", {"sort": "name"}).content.decode()
    power = re.findall(r'data-testid="design-power">([^<]+)<', html)
    assert len(power) == 3 and all(re.fullmatch(r"[\d,]+\.\d kW", p) for p in power), power
    watts = designs["alpha"].revisions.get().summary["power_w"]
    assert f"{watts / 1000:,.1f} kW" == power[0]
    assert "design-cost" not in html and "Cost" not in html and "$" not in html


def test_page_shows_cost_at_the_seed_book_with_the_price_right(
    logged_in_client, designs, prices_visible
):
    html = logged_in_client.get("/designs/", {"sort": "name"}).content.decode()
    assert "Cost: the bill of materials at “Reseller list prices" in html
    costs = re.findall(r'data-testid="design-cost">([^<]+)<', html)
    assert len(costs) == 3
    # The seed book does not price every part of these designs: never a partial total.
    assert all(re.fullmatch(r"\$[\d,]+|unpriced \(\d+ parts?\)", c) for c in costs), costs


def test_a_revision_saved_before_power_was_stored_gets_it_on_first_list(logged_in_client, designs):
    revision = designs["alpha"].revisions.get()
    stored = revision.summary.pop("power_w")
    DesignRevision.objects.filter(pk=revision.pk).update(summary=revision.summary)
    html = logged_in_client.get("/designs/", {"sort": "name"}).content.decode()
    assert f"{stored / 1000:,.1f} kW" in html
    assert DesignRevision.objects.get(pk=revision.pk).summary["power_w"] == stored


def test_api_orders_and_filters(api_client, designs):
    def names(**params):
        response = api_client.get("/api/planner/designs/", params)
        assert response.status_code == 200, response.content
        return [row["name"] for row in response.json()["results"]]

    assert names(ordering="-gpus") == ["beta big", "Zeta shared", "Alpha pod"]
    assert names(ordering="owner_name,name")[-1] == "Zeta shared"
    assert names(q="zeta") == ["Zeta shared"]
    assert names(team="research") == ["Zeta shared"]
    assert names(owner="ALICE", ordering="name") == ["Alpha pod", "beta big"]
    assert api_client.get("/api/planner/designs/", {"team": ""}).status_code == 400
    row = api_client.get("/api/planner/designs/", {"q": "alpha"}).json()["results"][0]
    assert row["summary"]["power_w"] > 0
    schema = api_client.get("/api/schema/?format=json").json()
    params = {p["name"] for p in schema["paths"]["/api/planner/designs/"]["get"]["parameters"]}
    assert {"q", "owner", "team", "sharing", "ordering"} <= params
