"""Quotes in Chromium: create a quote on a design through the form, see it priced, and
download its PDF."""

import io
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from tests.factories import ONE_SU_SPEC


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def test_create_a_quote_and_download_its_pdf(live_catalog, browser_login, live_server):
    from django.contrib.auth import get_user_model

    from planner.designs.services import design_create
    from planner.teams.models import Team, TeamMembership

    carol = get_user_model().objects.get(username="carol")
    team = Team.objects.create(name="Sales", slug="sales")
    TeamMembership.objects.create(team=team, user=carol, role="owner", can_view_prices=True)
    design = design_create(owner=carol, spec_document=ONE_SU_SPEC)

    page = browser_login
    page.goto(f"{live_server.url}{design.get_absolute_url()}")
    page.get_by_test_id("quotes-link").click()
    page.get_by_role("link", name="New quote").click()
    expect(page).to_have_url(re.compile(r"/quotes/new/$"))
    page.get_by_label("Customer name").fill("Initech")
    page.get_by_label("Customer address").fill("1 Main Street\nSpringfield")
    page.get_by_label("Margin %").fill("15")
    page.get_by_role("group", name="Discount % per category").get_by_label("switch").fill("5")
    page.get_by_role("button", name="Create quote").click()

    expect(page).to_have_url(re.compile(r"/quotes/\d+/$"))
    number = page.get_by_test_id("quote-number").inner_text().removeprefix("Quote ").strip()
    assert re.fullmatch(r"Q-\d{4}-\d{4}", number)
    expect(page.get_by_test_id("quote-customer")).to_have_text("Initech")
    expect(page.get_by_test_id("quote-address")).to_have_text("1 Main StreetSpringfield")
    expect(page.get_by_test_id("quote-lines")).to_contain_text("QM9700")
    expect(page.get_by_test_id("quote-total")).to_have_text(re.compile(r"^[\d,]+\.\d\d$"))

    with page.expect_download() as download_info:
        page.get_by_test_id("quote-pdf").click()
    download = download_info.value
    assert download.suggested_filename == f"{number}.pdf"
    content = Path(download.path()).read_bytes()
    assert content.startswith(b"%PDF")
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(content)).pages)
    assert number in text and "Initech" in text
