"""The design wizard in Chromium: preset, live summary, a problem by its field, save."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import keep_screenshot


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def test_wizard_preset_live_summary_and_save(
    live_catalog, browser_login, live_server, django_user_model
):
    page = browser_login
    carol = django_user_model.objects.get(username="carol")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Designs").click()
    page.get_by_role("link", name="New design").click()
    expect(page).to_have_url(re.compile(r"/designs/new/$"))

    page.get_by_role("button", name="DGX H100 SuperPOD, 4 SU", exact=True).click()
    expect(page.locator("#id_servers")).to_have_value("127")
    expect(page.get_by_test_id("summary-gpus")).to_have_text("1,016")
    expect(page.get_by_test_id("summary-switches")).to_have_text("48")
    panel = page.locator("[data-summary-panel]")
    expect(panel).to_contain_text("MMA4Z00-NS")  # media: the switch-side optics
    expect(page.get_by_test_id("summary-power")).to_have_text(re.compile(r"^[\d,]+\.\d kW$"))
    expect(page.get_by_test_id("summary-cost")).to_have_count(0)  # no price right, no cost
    expect(panel.locator("[data-summary-jump]")).to_be_hidden()
    keep_screenshot(page, "design_wizard")

    # A problem shows next to the field it names, and goes away once fixed.
    servers = page.locator("#id_servers")
    servers.fill("0")
    problem = page.locator('[data-field="servers"] [data-live-problem]')
    expect(problem).to_contain_text("minimum")
    expect(panel).to_have_attribute("data-state", "problems")

    # With the price right, the summary also prices the design at the seed book.
    from planner.teams.models import Team, TeamMembership

    sales = Team.objects.create(name="Sales", slug="sales")
    TeamMembership.objects.create(team=sales, user=carol, can_view_prices=True)
    servers.fill("63")
    expect(page.get_by_test_id("summary-gpus")).to_have_text("504")
    expect(page.get_by_test_id("summary-switches")).to_have_text("24")
    expect(problem).to_have_count(0)
    expect(page.get_by_test_id("summary-cost")).to_have_text(
        re.compile(r"^(\$[\d,]+|unpriced \(\d+ parts?\))$")
    )
    keep_screenshot(page, "design_wizard_cost")

    # The fields as text: the spec the server built from them.
    page.get_by_text("Or write the spec as YAML or JSON").click()
    page.get_by_role("button", name="Copy the fields above into the text").click()
    expect(page.get_by_label("The YAML/JSON text")).to_be_checked()
    expect(page.get_by_label("Spec as YAML or JSON")).to_have_value(re.compile('"servers": 63'))
    page.get_by_label("The fields above").check()

    page.locator("#id_name").fill("Pod B")
    page.get_by_role("button", name="Save design").click()
    expect(page).to_have_url(re.compile(r"/designs/\d+/$"))
    expect(page.get_by_test_id("design-name")).to_have_text("Pod B")
    expect(page.get_by_test_id("summary-gpus")).to_have_text("504")
    expect(page.get_by_test_id("revisions")).to_contain_text("Generated")


def test_edit_conflict_then_keep_mine(live_catalog, browser_login, live_server, django_user_model):
    from planner.designs.services import design_create, design_revise
    from planner.domain.presets import preset_get

    carol = django_user_model.objects.get(username="carol")
    spec = preset_get("h100-superpod-4su").spec
    design = design_create(owner=carol, spec_document=spec)
    page = browser_login
    page.goto(f"{live_server.url}/designs/{design.pk}/")
    page.get_by_role("link", name="Edit spec").click()
    editor = page.get_by_label("Spec (YAML or JSON)")
    editor.fill(editor.input_value().replace("servers: 127", "servers: 31"))
    # Someone else saves while this page is open.
    design_revise(design=design, user=carol, spec_document={**spec, "servers": 63}, base_revision=1)
    page.get_by_role("button", name="Save revision").click()
    conflict = page.get_by_test_id("conflict")
    expect(conflict).to_contain_text("Someone saved revision 2")
    expect(conflict).to_contain_text("servers")
    expect(conflict.get_by_role("link", name="Reload (discard my text)")).to_be_visible()
    keep_screenshot(page, "design_edit_conflict")
    conflict.get_by_role("button", name="Keep mine (save on top of revision 2)").click()
    expect(page).to_have_url(re.compile(rf"/designs/{design.pk}/$"))
    expect(page.get_by_test_id("summary-gpus")).to_have_text("248")
    expect(page.get_by_test_id("revisions")).to_contain_text("Edited")
    # Restore revision 1 from the list.
    page.get_by_test_id("revisions").locator("tr", has_text="Generated").get_by_role(
        "button", name="Restore"
    ).click()
    expect(page.get_by_test_id("summary-gpus")).to_have_text("1,016")
    expect(page.get_by_test_id("revisions")).to_contain_text("Restored")
