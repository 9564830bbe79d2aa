"""The documentation in Chromium: from the header's Docs link to the walkthrough and a search,
with no console error and no failed request under the app's Content-Security-Policy."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.api.test_docs_site import build_site
from tests.browser.test_no_console_errors import _watch


@pytest.fixture(scope="module")
def docs_site(tmp_path_factory):
    site = tmp_path_factory.mktemp("docs-site")
    assert build_site(site).returncode == 0
    return site


def test_docs_walkthrough_and_search(docs_site, settings, browser_login, live_server):
    settings.DOCS_SITE_DIR = docs_site
    page = browser_login
    seen = _watch(page)
    page.get_by_role("link", name="Docs", exact=True).click()
    expect(page).to_have_url(re.compile(r"/docs/$"))
    expect(page.get_by_role("heading", name="Fabric Planner", level=1)).to_be_visible()

    page.get_by_role("link", name="10-minute walkthrough").first.click()
    expect(page).to_have_url(re.compile(r"/docs/walkthrough/$"))
    wizard = page.locator("img[src$='01-wizard.png']")
    expect(wizard).to_be_visible()  # laid out, perhaps still loading: wait until it is done
    page.wait_for_function("img => img.complete", arg=wizard.element_handle())
    assert wizard.evaluate("img => img.naturalWidth") == 1280  # the screenshot loaded

    # The theme's search runs in a web worker and needs base_url, which comes from a file
    # (docs/theme/js/site-config.js), not an inline script the CSP would block. ?q= searches
    # once the worker has loaded the index (typing before that would be ignored).
    page.goto(f"{live_server.url}/docs/walkthrough/?q=busbw")
    expect(page.locator("#mkdocs-search-results")).to_contain_text("Glossary")
    assert seen == [], seen
