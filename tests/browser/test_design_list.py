"""Designs list in Chromium: search, sort by a column header, power and cost columns; and
the catalog's speed filter with units (issue 15 items 9 and 10)."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import keep_screenshot


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def test_designs_list_sorts_filters_and_shows_power_and_cost(
    live_catalog, browser_login, live_server, django_user_model
):
    from planner.designs.services import design_create
    from planner.teams.models import Team, TeamMembership
    from tests.factories import ONE_SU_SPEC

    carol = django_user_model.objects.get(username="carol")
    sales = Team.objects.create(name="Sales east", slug="sales-east")
    TeamMembership.objects.create(team=sales, user=carol, can_view_prices=True)
    design_create(owner=carol, spec_document={**ONE_SU_SPEC, "name": "Pod North"})
    design_create(
        owner=carol,
        spec_document={**ONE_SU_SPEC, "name": "pod south", "servers": 16},
        team=sales,
        sharing="team-read",
    )
    page = browser_login
    page.goto(f"{live_server.url}/designs/")
    table = page.get_by_test_id("design-table")
    expect(page.get_by_test_id("design-sort")).to_contain_text("Sorted by Updated, newest first")
    expect(table.get_by_role("columnheader", name=re.compile("Updated"))).to_have_attribute(
        "aria-sort", "descending"
    )
    expect(table.get_by_test_id("design-power").first).to_have_text(re.compile(r"^[\d,]+\.\d kW$"))
    expect(table.get_by_test_id("design-cost").first).to_have_text(
        re.compile(r"^(\$[\d,]+|unpriced \(\d+ parts?\))$")
    )
    table.get_by_role("link", name="GPUs").click()
    expect(page).to_have_url(re.compile(r"sort=-gpus"))
    expect(page.get_by_test_id("design-sort")).to_contain_text("Sorted by GPUs, most first")
    expect(page.get_by_test_id("design-table").locator("tbody tr").first).to_contain_text(
        "Pod North"
    )
    keep_screenshot(page, "designs-list")
    page.get_by_label("Team").fill("sales east")
    page.get_by_role("button", name="Apply").click()
    rows = page.get_by_test_id("design-table").locator("tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("pod south")
    expect(page.get_by_test_id("design-sort")).to_contain_text("GPUs")  # the sort is kept


def test_catalog_speed_takes_units(live_catalog, browser_login, live_server):
    page = browser_login
    page.goto(f"{live_server.url}/catalog/switch/")
    page.locator("#id_speed_gbps").fill("800 Gb/s")
    page.get_by_label("Form factor").fill("OSFP")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#parts")).to_contain_text("Q3400-RA")
    expect(page.locator(".errorlist")).to_have_count(0)
    keep_screenshot(page, "catalog-speed-units")
