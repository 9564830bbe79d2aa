"""Issue 33 in Chromium, as the issue tried it: on the GB300 NVL72 preset, one link's length
changed to 25 m on the canvas saves at once (no "Save anyway"), and the design page still runs
the revision's own transport settings."""

import re

from playwright.sync_api import expect

from tests.browser.test_canvas import (  # noqa: F401
    cy,
    cy_run,
    live_catalog,
    open_link_dialog,
    wait_ready,
)
from tests.conftest import keep_screenshot


def test_one_length_on_gb300_saves_without_warning_and_keeps_the_transport(
    live_catalog,  # noqa: F811
    browser_login,
    live_server,
    django_user_model,
):
    from planner.designs.selectors import revision_fabric
    from planner.designs.services import design_create
    from planner.domain.presets import preset_get

    carol = django_user_model.objects.get(username="carol")
    design = design_create(owner=carol, spec_document=preset_get("gb300-nvl72-xdr").spec)
    page = browser_login
    page.goto(f"{live_server.url}/designs/{design.pk}/canvas/?view=detail&scope=all")
    wait_ready(page)

    link = "link:0"
    cy_run(page, "cy.$(':selected').unselect()")
    cy_run(page, f"cy.getElementById('{link}').select()")
    dialog = open_link_dialog(page)
    dialog.get_by_label("Length (m)").fill("25")
    expect(dialog).to_contain_text("compatible choice")  # the media for 25 m are offered
    dialog.get_by_role("button", name="Change link").click()
    expect(dialog).to_be_hidden()
    assert cy(page, f"cy.getElementById('{link}').data('length_m')") == 25
    page.get_by_role("button", name="Save", exact=True).click()

    expect(page.locator('[data-c="revision"]')).to_have_text(re.compile(r"^revision 2"))
    expect(page.locator('[data-c="stale"]')).to_be_hidden()
    keep_screenshot(page, "canvas_gb300_one_length_saved")
    first, second = (design.revisions.get(number=n) for n in (1, 2))
    assert "stale_parameters" not in second.summary
    saved = revision_fabric(second)
    assert float(saved.link_length_m[0]) == 25.0
    assert saved.settings.transport == revision_fabric(first).settings.transport
    assert saved.settings.transport.transport == "infiniband"

    page.goto(f"{live_server.url}/designs/{design.pk}/")
    current = page.get_by_test_id("transport-current")
    expect(current).to_contain_text("InfiniBand")
    expect(current).not_to_contain_text("saved before transport settings were kept")
