"""The catalog in Chromium: filter a list, open a part, see provenance and what fits it."""

import re

import pytest
from playwright.sync_api import expect

from inventory.models import Manufacturer, SwitchModel, Transceiver
from inventory.services import part_save
from tests.conftest import clear_catalog, grant_catalog_editor

SOURCES = {"ds": {"url": "https://example.com/acme-ds.pdf", "grade": "datasheet"}}


def _save(model, slug, **spec):
    vendor, _ = Manufacturer.objects.get_or_create(slug="acme", defaults={"name": "ACME"})
    provenance = {key: {"source": "ds", "grade": "datasheet"} for key in spec}
    part = model(
        slug=slug,
        name=f"ACME {slug}",
        manufacturer=vendor,
        sources=SOURCES,
        provenance=provenance,
        **spec,
    )
    return part_save(part=part)


def _module(slug, form_factor, top, speed, ports):
    return _save(
        Transceiver,
        slug,
        form_factor=form_factor,
        top=top,
        ports_per_module=ports,
        speed_gbps=speed,
        port_speed_gbps=speed // ports,
        lanes=speed // 100,
        lane_rate_gbps=100,
        media="mmf",
        pmd="2xSR4" if ports == 2 else "SR4",
        connector="mpo12-apc",
        reach_m=50,
        power_max_w=15,
        protocols=["infiniband"],
        side="switch",
    )


@pytest.fixture
def catalog(transactional_db):
    """Only these parts: the seed catalog of the session's load is still there if no
    transactional test ran before in this process (the flush at teardown ends it anyway)."""
    clear_catalog()
    switch = _save(
        SwitchModel,
        "ACME-IB64",
        protocols=["infiniband"],
        rack_units=1,
        power_typical_w=700,
        power_max_w=1700,
        cage_groups=[
            {
                "role": "data",
                "count": 32,
                "form_factor": "OSFP",
                "top": "ihs",
                "ports_per_cage": 2,
                "port_speed_gbps": 400,
                "lanes_per_port": 4,
                "lane_rate_gbps": 100,
                "max_module_power_w": 17,
            }
        ],
    )
    return {
        "switch": switch,
        "twin": _module("ACME-OSFP-2SR4", "OSFP", "ihs", 800, 2),
        "osfp400": _module("ACME-OSFP-SR4", "OSFP", "rhs", 400, 1),
        "qsfp": _module("ACME-QSFP112-SR4", "QSFP112", "", 400, 1),
    }


def test_filter_transceivers_by_form_factor(browser_login, live_server, catalog):
    page = browser_login
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Catalog").click()
    tabs = page.get_by_role("navigation", name="Catalog sections")
    tabs.get_by_role("link", name=re.compile(r"^Transceivers")).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Transceivers")
    rows = page.locator("#parts tbody tr")
    expect(rows).to_have_count(3)

    page.get_by_label("Form factor").fill("OSFP")
    page.get_by_role("button", name="Apply").click()
    expect(page).to_have_url(re.compile(r"form_factor=OSFP"))
    expect(rows).to_have_count(2)
    expect(page.get_by_role("link", name="ACME-OSFP-2SR4")).to_be_visible()
    expect(page.get_by_role("link", name="ACME-OSFP-SR4")).to_be_visible()
    expect(page.get_by_role("link", name="ACME-QSFP112-SR4")).to_have_count(0)

    page.get_by_role("link", name="Max W").click()  # sorting keeps the filter
    expect(page).to_have_url(re.compile(r"form_factor=OSFP.*sort=power_max_w"))
    expect(rows).to_have_count(2)


def test_detail_shows_provenance_and_works_with(browser_login, live_server, catalog):
    page = browser_login
    page.goto(f"{live_server.url}/catalog/transceiver/")
    page.get_by_role("link", name="ACME-OSFP-2SR4").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("ACME-OSFP-2SR4")

    form_factor = page.locator("#spec-form_factor")
    expect(form_factor.locator(".badge.grade-datasheet")).to_have_text("datasheet")
    expect(form_factor.get_by_role("link")).to_have_attribute(
        "href", "https://example.com/acme-ds.pdf"
    )
    expect(page.locator("#spec-dsp .unknown")).to_have_text("unknown")

    works = page.get_by_role("region", name="Works with")
    expect(works.get_by_role("heading", name=re.compile(r"^Cages"))).to_be_visible()
    works.get_by_role("link", name="ACME-IB64").click()
    expect(page).to_have_url(re.compile(r"/catalog/switch/ACME-IB64/$"))
    expect(page.locator("#spec-cage_groups table.nested")).to_contain_text("OSFP")
    expect(
        page.get_by_role("region", name="Works with").get_by_role("link", name="ACME-OSFP-2SR4")
    ).to_be_visible()


def test_part_form_flags_invalid_json_before_saving(
    browser_login, live_server, catalog, django_user_model
):
    grant_catalog_editor(django_user_model.objects.get(username="carol"))  # the form is theirs
    page = browser_login
    page.goto(f"{live_server.url}/catalog/transceiver/new/")
    breakouts = page.get_by_label("Breakouts")
    breakouts.fill('["2x400G"')
    breakouts.blur()
    expect(page.locator("#id_breakouts_json")).to_contain_text("Not valid JSON")
    expect(breakouts).to_have_attribute("aria-describedby", re.compile(r"id_breakouts_json"))
    breakouts.fill('["2x400G"]')
    breakouts.blur()
    expect(page.locator("#id_breakouts_json")).to_be_hidden()
