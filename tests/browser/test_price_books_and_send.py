"""Issue 37 items 2 and 3 in Chromium: a price book upload is previewed before anything is
written and a file removing many offers asks again; a quote with unpriced lines says so next
to Send and is sent only with the confirmation, which the page then shows; one offer is
archived (kept, greyed apart) and restored."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import grant_catalog_editor, keep_screenshot
from tests.factories import ONE_SU_SPEC


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def _carol(*, editor: bool):
    from django.contrib.auth import get_user_model

    from planner.teams.models import Team, TeamMembership

    carol = get_user_model().objects.get(username="carol")
    team = Team.objects.create(name="Sales", slug="sales")
    TeamMembership.objects.create(team=team, user=carol, role="owner", can_view_prices=True)
    return grant_catalog_editor(carol) if editor else carol


def test_header_only_upload_is_previewed_and_asks_again(live_catalog, browser_login, live_server):
    from inventory.models import PriceBook
    from inventory.services import SEED_PRICE_BOOK, price_book_export_csv

    _carol(editor=True)
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    offers = book.prices.count()
    header = price_book_export_csv(book).splitlines()[0] + "\n"
    page = browser_login
    page.goto(f"{live_server.url}/catalog/price-books/{SEED_PRICE_BOOK}/")
    page.get_by_label("CSV file").set_input_files(
        {"name": "empty.csv", "mimeType": "text/csv", "buffer": header.encode()}
    )
    page.get_by_role("button", name="Upload and preview").click()
    preview = page.get_by_test_id("upload-preview")
    expect(preview).to_contain_text(f"{offers:,} removed")
    expect(preview).to_contain_text("nothing is written yet")
    assert book.prices.count() == offers
    keep_screenshot(page, "price-book-upload-preview")

    page.get_by_role("button", name="Apply empty.csv").click()
    field = page.locator('[data-field="confirm_removals"]')
    expect(field).to_contain_text(f"removes {offers:,} of the book's {offers:,} offers")
    assert book.prices.count() == offers
    keep_screenshot(page, "price-book-upload-confirm-needed")

    page.get_by_label("Yes, remove these offers from the book").check()
    page.get_by_role("button", name="Apply empty.csv").click()
    expect(page.locator(".messages")).to_contain_text(
        f"0 added, 0 changed, {offers:,} removed; the book now holds 0 offers"
    )
    assert book.prices.count() == 0

    # one offer, added in the page: an unknown part is named next to its field
    page.get_by_test_id("price-add").click()
    page.get_by_label("Part:", exact=True).fill("NO-SUCH-PART")
    page.get_by_label("Price:", exact=True).fill("28500")
    page.get_by_label("Seller:", exact=True).fill("Example shop")
    page.get_by_role("button", name="Add the offer").click()
    expect(page.locator('[data-field="part"]')).to_contain_text("No part with slug")
    keep_screenshot(page, "price-offer-form-error", full_page=False)
    page.get_by_label("Part:", exact=True).fill("QM9700")
    page.get_by_role("button", name="Add the offer").click()
    expect(page.locator(".messages")).to_contain_text("Added the offer for QM9700: 28,500.00 USD.")
    assert list(book.prices.values_list("part_slug", flat=True)) == ["QM9700"]


def test_send_with_unpriced_lines_needs_the_checkbox(live_catalog, browser_login, live_server):
    from inventory.models import PriceBook
    from inventory.services import price_book_import_csv
    from planner.designs.services import design_create
    from planner.quotes.models import Quote
    from planner.quotes.services import quote_create

    carol = _carol(editor=False)
    design = design_create(owner=carol, spec_document=ONE_SU_SPEC)
    book = PriceBook.objects.create(slug="test-book", name="Test book", currency="USD")
    price_book_import_csv(
        book=book,
        text="part,price,currency,seller,grade\nQM9700,30000,USD,Seller A,secondary\n"
        "MMA4Z00-NS,800,USD,Seller C,estimate\n",
    )
    quote = quote_create(design=design, actor=carol, customer="Initech", price_book=book)
    page = browser_login
    page.goto(f"{live_server.url}{quote.get_absolute_url()}")
    gaps = page.get_by_test_id("send-gaps-text")
    expect(gaps).to_have_text(re.compile(r"^\d+ of \d+ lines unpriced \(the total is partial"))
    expect(gaps).to_contain_text("priced from an estimate")
    keep_screenshot(page, "quote-send-gaps", full_page=False)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("quote-send").click()  # the unchecked box keeps the form from sending
    assert Quote.objects.get(pk=quote.pk).status == "draft"
    page.get_by_test_id("confirm-unpriced").check()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("quote-send").click()
    expect(page.get_by_test_id("quote-sent-gaps")).to_contain_text("confirmed by carol on")
    keep_screenshot(page, "quote-sent-gaps", full_page=False)
    assert Quote.objects.get(pk=quote.pk).snapshot["gaps"]["by"] == "carol"


def test_one_offer_archived_and_restored_in_the_page(live_catalog, browser_login, live_server):
    from inventory.models import Price, PriceBook
    from inventory.services import price_book_import_csv

    _carol(editor=True)
    book = PriceBook.objects.create(slug="test-book", name="Test book", currency="USD")
    price_book_import_csv(
        book=book, text="part,price,currency,seller,grade\nQM9700,30000,USD,Seller A,secondary\n"
    )
    offer = book.prices.get()
    page = browser_login
    page.goto(f"{live_server.url}/catalog/price-books/test-book/")
    page.get_by_test_id(f"price-archive-{offer.pk}").click()
    expect(page.locator(".messages")).to_contain_text("it no longer prices anything")
    fold = page.get_by_test_id("archived-offers")
    fold.locator("summary").click()
    row = page.get_by_test_id(f"archived-offer-{offer.pk}")
    expect(row).to_contain_text("by carol")
    assert Price.objects.get(pk=offer.pk).archived_at is not None
    keep_screenshot(page, "price-offer-archived")
    page.get_by_test_id(f"price-restore-{offer.pk}").click()
    expect(page.locator(".messages")).to_contain_text("Restored the offer QM9700")
    expect(page.get_by_test_id("archived-offers")).to_have_count(0)
    assert Price.objects.get(pk=offer.pk).archived_at is None
