"""No dead ends in Chromium (issue 37 item 7): every page of the presets (design page, canvas,
outputs, quotes, a new quote and its page, wizard with and without the preset) loads with no
console error and no 4xx/5xx response; and the design page leads (item 5): its action bar
stays on screen while scrolling."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_canvas import live_catalog, wait_ready  # noqa: F401
from tests.conftest import keep_screenshot

PRESETS = ["gb300-nvl72-xdr", "b300-spectrum-x-twin-plane", "h100-superpod-4su-cluster"]


def _watch(page) -> list[str]:
    """Console errors and failed responses of ``page``, as they come."""
    seen: list[str] = []
    page.on("console", lambda m: seen.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.append(f"page error: {e}"))

    def failed(response):
        if response.status >= 400:
            seen.append(f"{response.status} {response.request.method} {response.url}")

    page.on("response", failed)
    return seen


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_pages_load_without_console_errors_or_failed_requests(
    live_catalog,  # noqa: F811
    browser_login,
    live_server,
    django_user_model,
    preset,
):
    from planner.designs.services import design_create
    from planner.domain.presets import preset_get
    from planner.teams.models import Team, TeamMembership

    carol = django_user_model.objects.get(username="carol")
    team = Team.objects.create(name="Sales", slug="sales")
    TeamMembership.objects.create(team=team, user=carol, role="owner", can_view_prices=True)
    design = design_create(owner=carol, spec_document=preset_get(preset).spec)
    page = browser_login
    seen = _watch(page)
    base = f"{live_server.url}/designs/{design.pk}"
    pages = {
        "design": f"{base}/",
        "outputs": f"{base}/revisions/1/outputs/",
        "quotes": f"{base}/quotes/",
        "wizard": f"{live_server.url}/designs/new/",
        "wizard-preset": f"{live_server.url}/designs/new/?preset={preset}",
    }
    for name, url in pages.items():
        page.goto(url)
        if name.startswith("wizard"):
            # the live summary answers (or says what to fill in) before the page is done
            expect(page.locator("[data-summary-panel]")).not_to_have_attribute(
                "data-state", "loading"
            )
        page.wait_for_load_state("networkidle")
        assert not seen, (name, seen)
    # a quote of the preset, made through its form, and its page
    page.goto(f"{base}/quotes/new/")
    page.get_by_label("Customer name").fill("Initech")
    page.get_by_role("button", name="Create quote").click()
    expect(page).to_have_url(re.compile(r"/quotes/\d+/$"))
    page.wait_for_load_state("networkidle")
    assert not seen, ("quote", seen)
    page.goto(f"{base}/canvas/")
    wait_ready(page)
    page.wait_for_load_state("networkidle")
    assert not seen, ("canvas", seen)


def test_design_page_action_bar_stays_on_top_and_sections_fold(
    live_catalog,  # noqa: F811
    browser_login,
    live_server,
    django_user_model,
):
    from planner.designs.services import design_create
    from planner.domain.presets import preset_get

    carol = django_user_model.objects.get(username="carol")
    design = design_create(owner=carol, spec_document=preset_get("gb300-nvl72-xdr").spec)
    page = browser_login
    page.goto(f"{live_server.url}/designs/{design.pk}/")
    bar = page.get_by_test_id("action-bar")
    expect(bar.get_by_role("button", name="Validate")).to_be_visible()
    keep_screenshot(page, "design_page_top", full_page=False)
    height = page.evaluate("() => document.documentElement.scrollHeight")
    # the index opens a folded section; the bar is still at the top of the window
    index = page.get_by_test_id("page-index")
    index.get_by_role("link", name="Transport").click()
    expect(page.get_by_test_id("transport-current")).to_be_hidden()  # folded: summary only
    page.locator("#fold-transport > summary").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("transport-current")).to_be_visible()
    box = bar.bounding_box()
    assert box is not None and box["y"] <= 1  # sticky: at the top after scrolling
    assert page.evaluate("() => window.scrollY") > 200
    keep_screenshot(page, "design_page_transport_open", full_page=False)
    unfolded = page.evaluate(
        "() => { for (const d of document.querySelectorAll('details')) d.open = true;"
        " return document.documentElement.scrollHeight; }"
    )
    assert unfolded > height  # the folds hold the long analyses
    print(f"\nGB300 design page: {height:,} px folded, {unfolded:,} px with every section open")
    # Validate from the bar submits the Analysis section's form: a job page opens
    bar.get_by_role("button", name="Validate").click()
    expect(page).to_have_url(re.compile(r"/jobs/[0-9a-f-]+/$"))
