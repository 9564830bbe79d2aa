"""Archiving one offer of a price book (issue 37 item 3): kept and shown apart, excluded from
every price, restored; in the services, the page and the API, audited old -> new.

Uses the seed catalog's reseller book (each test's transaction is rolled back)."""

import pytest
from django.urls import reverse

from inventory import selectors, services
from inventory.models import CATEGORY_MODELS, Price, PriceBook
from inventory.services import SEED_PRICE_BOOK
from planner.audit.models import AuditEvent
from planner.designs.adapters import price_of_factory, price_table
from planner.designs.cache import price_fingerprint


def table_offer(offer):
    """The offer the quote table picks for ``offer``'s part (new, in the book's currency)."""
    found = price_table(offer.book).lowest(offer.part_slug, currency=offer.book.currency)
    return None if found is None else found.reference


@pytest.fixture
def offer(db):
    """The seed book's cheapest new-condition offer of a part priced only once there (so
    archiving it leaves the part unpriced)."""
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    rows = book.prices.filter(condition="new", currency=book.currency).exclude(grade="estimate")
    for row in rows.order_by("pk"):
        if book.prices.filter(part_slug=row.part_slug).count() == 1:
            return row
    pytest.fail("the seed book has no part with a single offer")


def test_archive_keeps_the_offer_and_excludes_it_from_every_price(offer, user):
    book = offer.book
    part = CATEGORY_MODELS[offer.part_category].objects.get(slug=offer.part_slug)
    assert table_offer(offer) == str(offer.pk)
    fingerprint = price_fingerprint(book)
    assert price_of_factory(book.slug)(offer.part_slug) == float(offer.price)
    assert offer in selectors.part_prices(part)

    archived = services.price_archive(price=offer, actor=user)

    assert archived.is_archived and archived.archived_by == user
    assert Price.objects.filter(pk=offer.pk).exists()  # kept
    assert table_offer(offer) is None  # quotes, BOM and link-option prices, coverage
    assert price_fingerprint(book) != fingerprint  # cached quotes and BOMs recompute
    assert price_of_factory(book.slug)(offer.part_slug) is None  # media choice
    assert offer not in selectors.part_prices(part)
    assert offer in selectors.part_prices(part, include_archived=True)  # delete counts it
    exported = services.price_book_export_csv(book).splitlines()
    assert not [line for line in exported if line.startswith(f"{offer.part_slug},")]
    event = (
        AuditEvent.objects.filter(object_type="price", object_ref=str(offer.pk))
        .order_by("pk")
        .last()
    )
    assert event.details["change"] == "archived"
    assert event.details["fields"]["archived"] == {"old": False, "new": True}
    assert event.details["fields"]["archived_by"] == {"old": None, "new": "alice"}

    restored = services.price_restore(price=archived, actor=user)
    assert not restored.is_archived and restored.archived_by is None
    assert table_offer(offer) == str(offer.pk)
    assert price_fingerprint(book) == fingerprint
    event = (
        AuditEvent.objects.filter(object_type="price", object_ref=str(offer.pk))
        .order_by("pk")
        .last()
    )
    assert event.details["change"] == "restored"
    assert event.details["fields"]["archived"] == {"old": True, "new": False}


def test_archiving_twice_writes_and_audits_once(offer, user):
    services.price_archive(price=offer, actor=user)
    services.price_archive(price=offer, actor=user)
    events = AuditEvent.objects.filter(object_type="price", object_ref=str(offer.pk))
    assert events.count() == 1


def test_reimporting_the_export_never_unarchives(offer, user):
    book = offer.book
    services.price_archive(price=offer, actor=user)
    text = services.price_book_export_csv(book)
    preview = services.price_book_import_preview(book=book, text=text, origin="same.csv")
    assert not preview.writes
    # The archived offer's row sent back is a new active offer; the archived one stays.
    row = Price.objects.get(pk=offer.pk)
    line = f"{row.part_slug},{row.part_category},{row.price:.2f},{row.currency},,,,secondary,new,,"
    header = text.splitlines()[0]
    again = services.price_book_import_preview(
        book=book, text=text + line + "\n", origin="more.csv"
    )
    assert len(again.added) == 1 and not again.removed and not again.changed
    assert header.startswith("part,")
    services.price_book_import_csv(book=book, text=text + line + "\n", origin="more.csv")
    assert Price.objects.get(pk=offer.pk).is_archived


@pytest.fixture
def small_offer(offer):
    """``offer``'s part alone in a public book of its own (a short page to render)."""
    book = PriceBook.objects.create(slug="one-offer", name="One offer", currency="USD")
    return Price.objects.create(
        book=book,
        part_category=offer.part_category,
        part_slug=offer.part_slug,
        price=offer.price,
        currency="USD",
    )


def test_page_archives_and_restores_for_editors_only(client, user, small_offer, prices_visible):
    offer = small_offer
    client.force_login(user)
    page = reverse("inventory:price-book-detail", args=[offer.book.slug])
    archive = reverse("inventory:price-archive", args=[offer.book.slug, offer.pk])
    restore = reverse("inventory:price-restore", args=[offer.book.slug, offer.pk])
    assert f'data-testid="price-archive-{offer.pk}"' not in client.get(page).content.decode()
    assert client.post(archive).status_code == 403  # a public book: catalog editors only
    assert not Price.objects.get(pk=offer.pk).is_archived
    assert client.get(archive).status_code == 405

    from tests.conftest import grant_catalog_editor

    client.force_login(grant_catalog_editor(user))
    html = client.get(page).content.decode()
    assert f'data-testid="price-archive-{offer.pk}"' in html
    assert 'data-testid="archived-offers"' not in html
    done = client.post(archive, follow=True).content.decode()
    assert "it no longer prices anything" in done
    fold = done[done.index('data-testid="archived-offers"') :]
    assert f'data-testid="archived-offer-{offer.pk}"' in fold
    assert "by alice" in fold and f'data-testid="price-restore-{offer.pk}"' in fold
    client.post(restore)
    assert not Price.objects.get(pk=offer.pk).is_archived


def test_api_patch_archives_and_restores(api_client, user, offer, prices_visible):
    url = f"/api/inventory/prices/{offer.pk}/"
    body = api_client.get(url).json()
    assert body["archived"] is False and body["archived_at"] is None
    refused = api_client.patch(url, {"archived": True}, format="json")
    assert refused.status_code == 403
    from tests.conftest import grant_catalog_editor

    api_client.force_authenticate(grant_catalog_editor(user))
    done = api_client.patch(url, {"archived": True}, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["archived"] is True and done.json()["archived_by"] == "alice"
    assert Price.objects.get(pk=offer.pk).is_archived
    bad = api_client.patch(url, {"archived": "perhaps"}, format="json")
    assert bad.status_code == 400 and "archived" in bad.json()
    back = api_client.patch(url, {"archived": False}, format="json")
    assert back.json()["archived"] is False
    assert not Price.objects.get(pk=offer.pk).is_archived


def test_the_book_list_counts_the_offers_that_price_things(offer, user, admin_client):
    """The list of books and the book's own page agree: an archived offer is not counted."""
    book = offer.book

    def listed() -> int:
        response = admin_client.get(reverse("inventory:price-book-list"))
        return next(b.price_count for b in response.context["books"] if b.pk == book.pk)

    before = listed()
    assert before == book.prices.for_pricing().count()
    services.price_archive(price=offer, actor=user)
    assert listed() == before - 1
