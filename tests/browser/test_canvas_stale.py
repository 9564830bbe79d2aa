"""Issue 15 item 1 in Chromium: before saving a canvas edit that makes spec parameters
untrue, the canvas lists them; "Save anyway" saves and the revision keeps its racks."""

import re

from playwright.sync_api import expect

from tests.browser.test_canvas import add_device, live_catalog, wait_ready  # noqa: F401
from tests.conftest import keep_screenshot


def test_canvas_names_the_parameters_an_edit_makes_untrue_before_saving(
    live_catalog,  # noqa: F811
    browser_login,
    live_server,
    django_user_model,
):
    from planner.designs.services import design_create
    from planner.domain.presets import preset_get

    carol = django_user_model.objects.get(username="carol")
    design = design_create(owner=carol, spec_document=preset_get("h100-superpod-1su").spec)
    page = browser_login
    page.goto(f"{live_server.url}/designs/{design.pk}/canvas/?view=detail&scope=all")
    wait_ready(page)
    add_device(page, "DGX-H100")  # one more server, not linked yet
    page.get_by_role("button", name="Save", exact=True).click()

    notice = page.locator('[data-c="stale"]')
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("servers: the spec says 31; the fabric now has 32")
    expect(notice).to_contain_text("has 0 NIC links while the others have 8")
    expect(page.locator("[data-canvas]")).to_have_attribute("data-save-status", "idle")
    keep_screenshot(page, "canvas_stale_parameters")
    assert design.revisions.count() == 1  # nothing saved before the user agrees

    page.get_by_role("button", name="Save anyway").click()
    expect(page.locator('[data-c="revision"]')).to_have_text(re.compile(r"^revision 2"))
    expect(notice).to_be_hidden()
    revision = design.revisions.get(number=2)
    fields = {item["field"] for item in revision.summary["stale_parameters"]}
    assert {"servers", "rails"} <= fields
    assert revision.summary["racks"] == design.revisions.get(number=1).summary["racks"]
