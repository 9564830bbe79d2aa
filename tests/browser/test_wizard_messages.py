"""The wizard's defaults and messages (issue 15 item 5): nothing red before the user types,
a default leaf that fits the default server, the leaf list marked by the link rules, long
notes at the field they are about, each error once, a greyed summary while there are errors,
and the first error scrolled to."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import keep_screenshot


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def _wizard(page, live_server):
    page.goto(f"{live_server.url}/designs/new/")
    return page.locator("[data-summary-panel]")


def test_first_load_is_calm_and_the_defaults_fit(live_catalog, browser_login, live_server):
    page = browser_login
    panel = _wizard(page, live_server)
    expect(panel).to_have_attribute("data-state", "pending")
    servers = page.locator("#id_servers")
    expect(servers).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator('[data-field="servers"] .error')).to_have_count(0)
    expect(panel.locator("[data-summary-jump]")).to_be_hidden()
    # The default leaf is one the default server can connect to.
    leaf = page.locator("#id_leaf")
    server = page.locator("#id_server").input_value()
    chosen = leaf.locator("option:checked")
    expect(chosen.locator("xpath=..")).to_have_attribute("label", f"Can connect to {server}")
    keep_screenshot(page, "wizard_first_load")

    servers.fill("8")
    expect(page.get_by_test_id("summary-servers")).to_have_text("8")
    expect(panel).to_have_attribute("data-state", "ok")


def test_leaf_list_marks_switches_that_cannot_connect(live_catalog, browser_login, live_server):
    page = browser_login
    _wizard(page, live_server)
    page.locator("#id_server").select_option("DGX-H100")
    bad = page.locator('#id_leaf optgroup[label="Cannot connect to DGX-H100"]')
    expect(bad.locator('option[value="SN4600C"]')).to_contain_text("cannot connect to DGX-H100:")
    good = page.locator('#id_leaf optgroup[label="Can connect to DGX-H100"]')
    expect(good.locator('option[value="QM9700"]')).to_have_count(1)
    # The long "no transceiver for the … cage" note sits at the leaf switch, cut, with a "more".
    page.locator("#id_server").select_option("DGX-B200")
    page.locator("#id_leaf").select_option("Q3400-RA")
    page.locator("#id_servers").fill("8")
    note = page.locator('[data-field="leaf"] [data-live-problem]')
    expect(note).to_contain_text("no transceiver for the Q3400-RA")
    expect(note.locator("details.more")).to_have_count(1)
    expect(page.locator('[data-field="media_server_leaf"] [data-live-problem]')).to_have_count(0)
    summary_text = note.locator("details.more summary").inner_text()
    assert len(summary_text) <= 161
    keep_screenshot(page, "wizard_leaf_marks")


def test_errors_once_summary_greyed_first_error_focused(live_catalog, browser_login, live_server):
    page = browser_login
    page.set_viewport_size({"width": 1400, "height": 600})
    panel = _wizard(page, live_server)
    page.get_by_role("button", name="DGX H100 SuperPOD, 4 SU", exact=True).click()
    expect(page.get_by_test_id("summary-gpus")).to_have_text("1,016")

    # An error: the old figures are greyed out and say why.
    page.locator("#id_servers").fill("-5")
    expect(panel).to_have_attribute("data-state", "problems")
    expect(panel.locator("[data-summary-stale]")).to_have_text(
        "Fix the errors to update the summary."
    )
    expect(panel.locator("[data-summary-jump]")).to_be_visible()
    keep_screenshot(page, "wizard_stale_summary")

    # Saved anyway: each error once, next to its field, and the first one focused.
    page.locator("#id_servers").fill("127")
    page.locator("#id_reserved_leaf_ports").fill("-1")
    page.get_by_role("button", name="Save design").click()
    expect(page.locator(".problems")).to_contain_text("Not saved")
    field = page.locator('[data-field="reserved_leaf_ports"]')
    expect(page.locator("#id_reserved_leaf_ports")).to_be_focused()
    expect(page.locator("#id_reserved_leaf_ports")).to_be_in_viewport()
    expect(field.locator("[data-live-problem]")).to_have_count(1)
    expect(field.locator(".errorlist")).to_have_count(0)
    expect(field.get_by_text(re.compile("minimum|greater than"))).to_have_count(1)
    keep_screenshot(page, "wizard_error_focused", full_page=False)


def test_yaml_typo_suggests_and_shows_once(live_catalog, browser_login, live_server):
    page = browser_login
    _wizard(page, live_server)
    page.get_by_text("Or write the spec as YAML or JSON").click()
    page.get_by_label("The YAML/JSON text").check()
    page.get_by_label("Spec as YAML or JSON").fill(
        "name: x\ntopology: rail-optimised\nserver: DGX-H100\nservers: 8\n"
        "switches: {leaf: QM9700}\n"
    )
    page.get_by_role("button", name="Save design").click()
    expect(page.locator(".problems")).to_contain_text("Not saved")
    field = page.locator('[data-field="spec_text"]')
    expect(field).to_contain_text("did you mean 'rail-optimized'?")
    shown = field.locator("[data-live-problem], .errorlist")
    expect(shown.get_by_text(re.compile("rail-optimised"))).to_have_count(1)
    keep_screenshot(page, "wizard_yaml_typo")
