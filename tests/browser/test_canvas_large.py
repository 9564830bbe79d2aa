"""Issue 15 item 4 in Chromium: a design over the 5,000-element edit limit (the 16 SU
SuperPOD) has no "Whole fabric" view, so the canvas must not send the user there: every view
is read-only and says what to use instead (the spec; cabling-plan uploads share the limit)."""

from playwright.sync_api import expect

from tests.browser.test_canvas import cy, live_catalog, wait_ready  # noqa: F401
from tests.conftest import keep_screenshot


def test_a_design_over_the_edit_limit_says_to_change_it_through_its_spec(
    live_catalog,  # noqa: F811
    browser_login,
    live_server,
    django_user_model,
):
    from planner.designs.services import design_create
    from planner.domain.presets import preset_get

    carol = django_user_model.objects.get(username="carol")
    design = design_create(owner=carol, spec_document=preset_get("h100-superpod-16su").spec)
    page = browser_login
    page.goto(f"{live_server.url}/designs/{design.pk}/canvas/")
    wait_ready(page)
    canvas = page.locator("[data-canvas]")
    note = page.locator('[data-c="palette-note"]')

    expect(canvas).to_have_attribute("data-view", "overview")
    expect(canvas).to_have_attribute("data-editable", "false")
    view = page.get_by_label("View", exact=True)
    expect(view.locator("option", has_text="Whole fabric")).to_have_count(0)
    expect(note).to_contain_text("the canvas and cabling-plan uploads edit designs of up to 5,000")
    expect(note).to_contain_text("“Edit spec” on the design page")
    expect(note).not_to_contain_text("Whole fabric")

    # Drilled into one SU: still read-only, with the same honest reason.
    view.select_option("su:1")
    expect(canvas).to_have_attribute("data-scope", "su:1")
    wait_ready(page)
    expect(canvas).to_have_attribute("data-editable", "false")
    expect(note).to_contain_text("Edit spec")
    expect(note).not_to_contain_text("Whole fabric")
    assert cy(page, "cy.nodes(\"[kind = 'device']\").length") > 0
    keep_screenshot(page, "canvas_large_read_only")
