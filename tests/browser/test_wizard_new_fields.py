"""The wizard in Chromium: presets that use the new spec keys (racks of a rack-scale system,
grow_to, the cluster networks) fill the fields from the server's mapping, and the live
summary builds."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import keep_screenshot


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


def test_network_steps_storage_and_oob_on_a_dgx_h100_design(
    live_catalog, browser_login, live_server, django_user_model
):
    """Issue 18: tick Storage and OOB on the 4 SU DGX-H100 design; the RA's defaults show
    as placeholders, the live summary counts each network's switches (16 QM9700 storage
    switches at 4 SU = 127 DGX H100, RA-11333-001 V11 Table 7), a bad value is named beside
    its field, and the saved spec has the networks block."""
    from planner.designs.models import Design

    page = browser_login
    page.goto(f"{live_server.url}/designs/new/")
    panel = page.locator("[data-summary-panel]")
    page.get_by_role("button", name="DGX H100 SuperPOD, 4 SU", exact=True).click()
    expect(page.get_by_test_id("summary-gpus")).to_have_text("1,016")
    storage_fields = page.locator('[data-network="storage"] [data-network-fields]')
    expect(storage_fields).to_be_hidden()

    page.locator("#id_network_storage").check()
    page.locator("#id_network_oob").check()
    expect(storage_fields).to_be_visible()
    expect(page.locator("#id_storage_storage_ports")).to_have_attribute("placeholder", "96")
    expect(page.locator("#id_storage_leaf option[value='']")).to_have_text("Default: QM9700")
    expect(page.locator("[data-network-shared]")).to_be_visible()
    networks = page.get_by_test_id("summary-networks")
    storage_row = networks.locator("tr", has_text="Storage")
    expect(storage_row).to_contain_text("QM9700 (8 leaf, 4 storage leaf, 4 spine)")
    expect(storage_row.locator("td").last).to_have_text("16")
    expect(networks.locator("tr", has_text="Out-of-band management")).to_contain_text("SN2201")
    expect(panel).to_have_attribute("data-state", "ok")
    keep_screenshot(page, "wizard_networks")

    # A count that is not a whole number: named beside its field, the summary marked stale.
    ports = page.locator("#id_storage_storage_ports")
    ports.fill("many")
    problem = page.locator('[data-field="storage_storage_ports"] [data-live-problem]')
    expect(problem).to_contain_text("networks.storage.storage_ports")
    expect(panel).to_have_attribute("data-state", "problems")
    keep_screenshot(page, "wizard_networks_problem")
    ports.fill("")
    expect(problem).to_have_count(0)
    expect(panel).to_have_attribute("data-state", "ok")

    page.locator("#id_name").fill("Pod with storage")
    page.get_by_role("button", name="Save design").click()
    expect(page).to_have_url(re.compile(r"/designs/\d+/$"))
    spec = Design.objects.get(name="Pod with storage").revisions.get().spec
    assert spec["networks"] == {"storage": {}, "oob": {}}


def test_the_cluster_preset_fills_the_network_steps(live_catalog, browser_login, live_server):
    page = browser_login
    page.goto(f"{live_server.url}/designs/new/")
    page.locator('[data-preset="h100-superpod-4su-cluster"]').click()
    expect(page.get_by_label("The fields above")).to_be_checked()  # not opened as its text
    for network in ("storage", "inband", "oob"):
        expect(page.locator(f"#id_network_{network}")).to_be_checked()
    expect(page.locator("#id_network_converged")).not_to_be_checked()
    expect(page.locator('[data-network="converged"] [data-network-fields]')).to_be_hidden()
    networks = page.get_by_test_id("summary-networks")
    expect(networks.locator("tr", has_text="In-band management")).to_contain_text("SN4600C")
    expect(networks.locator("tbody tr")).to_have_count(3)
    # Another preset sets the steps back to none.
    page.locator('[data-preset="h100-superpod-4su"]').click()
    expect(page.locator("#id_network_storage")).not_to_be_checked()
    expect(page.get_by_test_id("summary-networks")).to_have_count(0)


def test_the_transport_step_follows_the_preset_and_the_profile(
    live_catalog, browser_login, live_server
):
    """Issue 20: the Arista preset fills the transport step (RoCE, Arista's profile, the
    B3140H NICs marking DSCP 24); choosing another profile swaps each empty box's default and
    its source (Spectrum-X: ECN 150 KB, Onyx `show roce`); InfiniBand shows its own fields."""
    page = browser_login
    page.goto(f"{live_server.url}/designs/new/")
    page.locator('[data-preset="arista-7060x6-rail"]').click()
    expect(page.get_by_label("Transport:", exact=True)).to_have_value("roce")
    expect(page.get_by_label("NIC data DSCP")).to_have_value("24")
    expect(page.get_by_label("Lossless priority")).to_have_attribute("placeholder", "3")
    ecn = page.get_by_label("ECN min threshold (KB)")
    expect(ecn).to_have_attribute("placeholder", "no default")
    expect(page.get_by_test_id("summary-gpus")).to_have_text("1,024")

    page.get_by_label("Switch QoS profile").select_option("nvidia-spectrum-x")
    expect(ecn).to_have_attribute("placeholder", "150")
    help_text = page.locator("#id_transport_ecn_min_kb_helptext")
    expect(help_text).to_contain_text("NVIDIA Spectrum-X profile: 150. Primary source")
    expect(help_text.get_by_role("link", name="(source)")).to_have_attribute(
        "href", re.compile(r"Onyx.*RoCE\+Commands")
    )

    page.get_by_label("Transport:", exact=True).select_option("infiniband")
    expect(page.locator('[data-transport-kind="roce"]')).to_be_hidden()
    expect(page.get_by_label("Routing engine")).to_be_visible()
    problem = page.locator('[data-field="transport_type"] [data-live-problem]')
    expect(problem).to_contain_text("transport.type: infiniband needs infiniband switches")
