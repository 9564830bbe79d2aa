"""Home page, header search and help (issue 15 item 10) in Chromium."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import keep_screenshot


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def test_home_search_and_help(live_catalog, browser_login, live_server, django_user_model):
    from planner.designs.services import design_create
    from tests.factories import ONE_SU_SPEC

    carol = django_user_model.objects.get(username="carol")
    design_create(owner=carol, spec_document={**ONE_SU_SPEC, "name": "Pod North"})
    page = browser_login
    page.goto(f"{live_server.url}/")
    expect(page.get_by_role("link", name="New design").first).to_be_visible()
    expect(page.get_by_test_id("recent-designs")).to_contain_text("Pod North")
    expect(page.get_by_role("heading", name="Getting started")).to_be_visible()
    keep_screenshot(page, "home")

    box = page.get_by_role("searchbox", name="Search designs, parts and quotes")
    box.fill("qm9700")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/search/\?q=qm9700$"))
    expect(page.get_by_test_id("hits-parts")).to_contain_text("QM9700")
    keep_screenshot(page, "search")
    page.get_by_test_id("hits-parts").get_by_role("link").first.click()
    expect(page).to_have_url(re.compile(r"/catalog/switch/"))

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Help").click()
    expect(page.get_by_role("heading", name="Help", exact=True)).to_be_visible()
