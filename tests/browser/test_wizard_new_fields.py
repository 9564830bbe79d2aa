"""The wizard in Chromium: presets that use the new spec keys (racks of a rack-scale system,
grow_to) fill the fields from the server's mapping, and the live summary builds."""

import pytest
from playwright.sync_api import expect


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def test_rack_scale_and_growth_presets_fill_the_form(live_catalog, browser_login, live_server):
    page = browser_login
    page.goto(f"{live_server.url}/designs/new/")
    panel = page.locator("[data-summary-panel]")

    page.locator('[data-preset="gb300-nvl72-xdr"]').click()
    expect(page.locator("#id_server")).to_have_value("GB300-NVL72")
    expect(page.locator("#id_servers")).to_have_value("8")  # racks, in the servers field
    expect(page.locator("#id_leaf")).to_have_value("Q3400-RA")
    expect(panel).to_have_attribute("data-state", "ok")
    expect(page.get_by_test_id("summary-gpus")).to_have_text("576")

    page.locator('[data-preset="h100-superpod-grow-to-16su"]').click()
    expect(page.locator("#id_grow_to_gpus")).to_have_value("4096")
    expect(page.locator("#id_min_spines")).to_have_value("2")
    expect(page.locator("#id_spines")).to_have_value("")
    expect(page.get_by_test_id("summary-gpus")).to_have_text("1,024")
    expect(panel).to_have_attribute("data-state", "ok")
    expect(page.get_by_label("Grow to (GPUs)")).to_be_visible()
