"""The Content-Security-Policy in Chromium: the wizard's live summary, the canvas, Swagger UI
and the page actions (confirm before a delete) work, and the browser reports no violation."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import keep_screenshot


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def test_pages_work_under_the_policy(live_catalog, browser_login, live_server):
    page = browser_login
    violations = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text)
            if "Content Security Policy" in message.text or "Refused to" in message.text
            else None
        ),
    )
    response = page.goto(f"{live_server.url}/designs/new/")
    assert "script-src 'self'" in response.headers["content-security-policy"]

    # The wizard: a preset fills the fields and the live summary (fetch + DOM) updates.
    page.get_by_role("button", name="DGX H100 SuperPOD, 4 SU", exact=True).click()
    expect(page.get_by_test_id("summary-gpus")).to_have_text("1,016")
    page.locator("#id_servers").fill("31")
    expect(page.get_by_test_id("summary-gpus")).to_have_text("248")
    page.locator("#id_name").fill("CSP pod")
    page.get_by_role("button", name="Save design").click()
    expect(page).to_have_url(re.compile(r"/designs/\d+/$"))
    design_url = page.url

    # The canvas bundle (cytoscape) draws the design.
    page.goto(f"{design_url}canvas/")
    expect(page.locator("[data-canvas]")).to_have_attribute("data-state", "ready")
    assert page.evaluate("() => window.fabricCanvas.cy.nodes().length") > 0

    # Swagger UI builds itself from its script URL.
    page.goto(f"{live_server.url}/api/docs/")
    expect(page.locator("#swagger-ui .information-container")).to_be_visible()
    keep_screenshot(page, "api-docs", full_page=False)
    page.get_by_role("link", name="← Fabric Planner").click()
    expect(page).to_have_url(f"{live_server.url}/")

    # A declared confirm (data-confirm) stops a submit when dismissed, no inline handler.
    page.goto(design_url)
    page.evaluate(
        """() => {
            const form = document.createElement("form");
            form.method = "post";
            form.dataset.confirm = "Really?";
            form.action = "/designs/";
            document.body.append(form);
            window.confirmed = [];
            window.confirm = (text) => { window.confirmed.push(text); return false; };
            form.requestSubmit();
        }"""
    )
    assert page.evaluate("() => window.confirmed") == ["Really?"]
    expect(page).to_have_url(design_url)

    assert not violations, violations
