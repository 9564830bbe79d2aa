"""Quote API and pages: CRUD under a design, priced JSON, PDF and XLSX downloads, who sees
prices (a reader without the price right sees quantities, and 403 on prices and files), and
the revision diff with parts, power and cost."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from inventory.models import PriceBook
from inventory.services import price_book_import_csv
from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.services import design_create, design_revise
from planner.quotes.models import Quote
from planner.teams.models import Team, TeamMembership
from tests.factories import ONE_SU_SPEC

PRICES_CSV = """part,price,currency,seller
QM9700,30000,USD,Seller A
DGX-H100,300000,USD,Seller B
MMA4Z00-NS,800,USD,Seller C
"""


@pytest.fixture
def setting(seed_catalog, user, other_user):
    """alice owns a design shared read-only with a team; alice has the price right, bob (a
    viewer of the team) has not."""
    team = Team.objects.create(name="Sales", slug="sales")
    TeamMembership.objects.create(team=team, user=user, role="owner", can_view_prices=True)
    TeamMembership.objects.create(team=team, user=other_user, role="viewer")
    design = design_create(owner=user, spec_document=ONE_SU_SPEC, team=team, sharing="team-read")
    book = PriceBook.objects.create(slug="test-book", name="Test book", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    return design, book


@pytest.fixture
def bob_client(other_user):
    client = APIClient()
    client.force_authenticate(other_user)
    return client


def _base(design):
    return f"/api/planner/designs/{design.pk}/quotes/"


def _create(api_client, design, **extra):
    body = {"customer": "ACME Labs", "price_book": "test-book", **extra}
    return api_client.post(_base(design), body, format="json")


def test_create_list_change_delete(setting, api_client):
    design, _ = setting
    response = _create(api_client, design, margin_pct="20", discounts_pct={"switch": 10})
    assert response.status_code == 201, response.json()
    created = response.json()
    assert created["number"].startswith("Q-") and created["revision"] == 1
    assert created["currency"] == "USD" and created["price_book"] == "test-book"
    assert created["links"]["pdf"].endswith(f"/quotes/{created['id']}/pdf/")

    listed = api_client.get(_base(design)).json()
    assert [q["number"] for q in listed] == [created["number"]]

    url = f"{_base(design)}{created['id']}/"
    changed = api_client.patch(url, {"customer": "ACME Research"}, format="json")
    assert changed.status_code == 200 and changed.json()["customer"] == "ACME Research"
    assert changed.json()["number"] == created["number"]

    bad = api_client.patch(url, {"margin_pct": "100"}, format="json")
    assert bad.status_code == 400 and "margin_pct" in bad.json()
    assert Quote.objects.get().margin_pct == Decimal("20")

    assert api_client.delete(url).status_code == 204
    assert not Quote.objects.exists()
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert AuditActionChoices.QUOTE_CHANGED in actions


def test_bad_input_names_the_field(setting, api_client):
    design, _ = setting
    assert "price_book" in _create(api_client, design, price_book="nope").json()
    response = _create(api_client, design, discounts_pct={"widgets": 5})
    assert response.status_code == 400 and "discounts_pct" in response.json()
    response = _create(api_client, design, revision=9)
    assert response.status_code == 404


def test_priced_json_pdf_and_xlsx_for_a_user_with_the_price_right(setting, api_client):
    design, _ = setting
    quote = _create(api_client, design, margin_pct="25").json()
    priced = api_client.get(f"{_base(design)}{quote['id']}/priced/")
    assert priced.status_code == 200
    data = priced.json()
    priced_lines = [line for line in data["lines"] if line["priced"]]
    unpriced_lines = [line for line in data["lines"] if not line["priced"]]
    total = sum(Decimal(line["extended_sell"]) for line in priced_lines)
    assert Decimal(data["totals"]["sell"]) == total
    assert unpriced_lines and all(line["extended_sell"] is None for line in unpriced_lines)
    assert data["totals"]["complete"] is False
    assert (
        data["totals"]["status"]
        == f"incomplete: {len(data['totals']['unpriced_parts'])} parts unpriced"
    )
    switch = next(line for line in priced_lines if line["part"] == "QM9700")
    assert switch["unit_sell"] == "40000.00"  # 30,000 / (1 - 0.25)

    pdf = api_client.get(f"{_base(design)}{quote['id']}/pdf/")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF")
    assert f'filename="{quote["number"]}.pdf"' in pdf["Content-Disposition"]
    xlsx = api_client.get(f"{_base(design)}{quote['id']}/xlsx/")
    assert xlsx.status_code == 200 and xlsx.content[:2] == b"PK"  # a zip container
    downloads = AuditEvent.objects.filter(action=AuditActionChoices.EXPORT_DOWNLOADED)
    assert sorted(downloads.values_list("details__format", flat=True)) == ["pdf", "xlsx"]


def test_a_reader_without_the_price_right_gets_no_prices(setting, api_client, bob_client):
    design, _ = setting
    quote = _create(api_client, design).json()
    base = f"{_base(design)}{quote['id']}/"
    assert bob_client.get(base).status_code == 200  # the terms
    for suffix in ("priced/", "pdf/", "xlsx/"):
        response = bob_client.get(base + suffix)
        assert response.status_code == 403, suffix
        assert "price" in response.json()["detail"].lower()
    assert not AuditEvent.objects.filter(action=AuditActionChoices.EXPORT_DOWNLOADED).exists()
    # a reader may not write
    assert _create(bob_client, design).status_code == 403
    assert bob_client.delete(base).status_code == 403


def test_strangers_do_not_see_the_quotes(setting, api_client, django_user_model):
    design, _ = setting
    quote = _create(api_client, design).json()
    stranger = APIClient()
    stranger.force_authenticate(django_user_model.objects.create_user("eve", password="x-eve-1!"))
    assert stranger.get(_base(design)).status_code == 404
    assert stranger.get(f"{_base(design)}{quote['id']}/pdf/").status_code == 404


def test_pages_show_quantities_without_prices_and_refuse_the_pdf(
    setting, api_client, client, other_user
):
    design, _ = setting
    quote = Quote.objects.get(pk=_create(api_client, design).json()["id"])
    client.force_login(other_user)
    page = client.get(quote.get_absolute_url())
    assert page.status_code == 200
    text = page.content.decode()
    assert quote.number in text and "ACME Labs" in text
    assert 'data-testid="prices-hidden"' in text
    assert "Unit price" not in text and "30,000" not in text and "PDF" not in text
    for query in ("", "?audience=customer", "?audience=nobody"):
        refused = client.get(f"/designs/{design.pk}/quotes/{quote.pk}/pdf/{query}")
        assert refused.status_code == 403 and b"price right" in refused.content


def test_quote_pages_for_the_sales_user(setting, client, user):
    design, book = setting
    client.force_login(user)
    valid_until = date.today() + timedelta(days=60)  # a quote is valid at most 366 days ahead
    form = client.get(f"/designs/{design.pk}/quotes/new/")
    assert form.status_code == 200
    response = client.post(
        f"/designs/{design.pk}/quotes/new/",
        {
            "customer": "Initech",
            "revision": 1,
            "price_book": book.slug,
            "price_condition": "new",
            "currency": "",
            "margin_pct": "10",
            "valid_until": valid_until.isoformat(),
            "discount_switch": "5",
            "spares_transceiver": "2",
        },
    )
    quote = Quote.objects.get()
    assert response.status_code == 302 and response["Location"] == quote.get_absolute_url()
    # stored as exact decimal text, never floats
    assert quote.discounts_pct == {"switch": "5"} and quote.spares_pct == {"transceiver": "2"}
    page = client.get(quote.get_absolute_url()).content.decode()
    assert "Initech" in page and "unpriced" in page
    assert "Customer PDF" in page and "Internal PDF" in page
    bad = client.post(
        f"/designs/{design.pk}/quotes/{quote.pk}/edit/",
        {
            "customer": "Initech",
            "revision": 1,
            "price_book": book.slug,
            "price_condition": "new",
            "margin_pct": "10",
            "valid_until": "2001-01-01",
        },
    )
    assert bad.status_code == 200 and "must stay valid after" in bad.content.decode()
    quote.refresh_from_db()
    assert quote.valid_until == valid_until
    listing = client.get(f"/designs/{design.pk}/quotes/").content.decode()
    assert quote.number in listing
    assert "quotes-link" in client.get(design.get_absolute_url()).content.decode()
    # a file in a format quotes are not written in is not found; a draft is deleted
    assert client.get(f"/designs/{design.pk}/quotes/{quote.pk}/docx/").status_code == 404
    deleted = client.post(f"/designs/{design.pk}/quotes/{quote.pk}/delete/")
    assert deleted.status_code == 302 and not Quote.objects.filter(pk=quote.pk).exists()


def test_revision_diff_api_and_page_parts_power_cost(setting, api_client, bob_client, client, user):
    design, book = setting
    design_revise(
        design=design, user=user, spec_document={**ONE_SU_SPEC, "servers": 63}, base_revision=1
    )
    url = f"/api/planner/designs/{design.pk}/diff/?from=1&to=2"
    plain = api_client.get(url).json()["bom"]
    servers = next(row for row in plain["changed"] if row["part"] == "DGX-H100")
    assert (servers["old_quantity"], servers["new_quantity"], servers["delta"]) == (31, 63, 32)
    assert plain["power"]["delta_w"] == pytest.approx(
        plain["power"]["new_w"] - plain["power"]["old_w"]
    )
    assert plain["power"]["delta_w"] > 0
    assert "cost" not in plain

    priced = api_client.get(url + "&price_book=test-book").json()["bom"]
    assert Decimal(priced["cost"]["delta"]) >= 32 * 300000
    assert priced["cost"]["complete"] is False and priced["cost"]["unpriced_parts"]
    assert bob_client.get(url + "&price_book=test-book").status_code == 403
    assert "cost" not in bob_client.get(url).json()["bom"]

    client.force_login(user)
    page = client.get(f"/designs/{design.pk}/diff/?from=1&to=2&price_book=test-book").content
    assert b'data-testid="parts-diff"' in page and b'data-testid="cost-delta"' in page
    assert b'data-testid="power-delta"' in page


def test_send_freeze_reprice_and_diff_over_the_api(setting, api_client, bob_client, user):
    """Issue 22: a sent quote's priced answer does not move when the book does; steps the
    status does not allow are 409 naming it; re-price makes v2 with a line diff; a reader
    without the price right gets quantities only and may not send."""
    from inventory.models import Price
    from inventory.services import price_save

    design, book = setting
    quote = _create(api_client, design, margin_pct="20").json()
    base = f"{_base(design)}{quote['id']}/"
    assert quote["status"] == "draft" and quote["label"] == quote["number"]
    assert (
        bob_client.post(base + "send/", {"confirm_unpriced": True}, format="json").status_code
        == 403
    )
    sent = api_client.post(base + "send/", {"confirm_unpriced": True}, format="json")
    assert sent.status_code == 200 and sent.json()["status"] == "sent"
    assert sent.json()["reprice"] == {
        "available": False,
        "reasons": [],
        "price_changes": [],
        "exchange_rate_changes": [],
        "newer_revision": None,
    }
    before = api_client.get(base + "priced/").json()

    offer = Price.objects.get(book=book, part_slug="QM9700")
    offer.price = Decimal("36000")
    price_save(price=offer, actor=user)
    after = api_client.get(base + "priced/").json()
    assert after["totals"] == before["totals"] and after["lines"] == before["lines"]
    assert after["reprice"]["available"] is True
    assert after["reprice"]["price_changes"] == [
        {
            "part": "QM9700",
            "length_m": None,
            "sent": "30000.00",
            "sent_currency": "USD",
            "today": "36000.00",
            "today_currency": "USD",
        }
    ]
    assert "reprice" not in bob_client.get(base).json()

    refused = api_client.patch(base, {"customer": "Other"}, format="json")
    assert refused.status_code == 409 and refused.json()["status"] == "sent"
    assert "only a draft quote can be changed" in refused.json()["detail"]
    again = api_client.post(base + "send/", {"confirm_unpriced": True}, format="json")
    assert again.status_code == 409 and "is sent: only a draft" in again.json()["detail"]
    assert api_client.delete(base).status_code == 409

    repriced = api_client.post(base + "reprice/", {}, format="json")
    assert repriced.status_code == 201, repriced.content
    new = repriced.json()
    assert (new["number"], new["version"], new["label"]) == (
        quote["number"],
        2,
        f"{quote['number']} v2",
    )
    assert new["previous_version"] == 1 and new["status"] == "draft"
    assert api_client.get(base).json()["status"] == "superseded"
    diff = api_client.get(new["links"]["diff"]).json()
    switch = next(row for row in diff["changed"] if row["part"] == "QM9700")
    assert (switch["old_unit_sell"], switch["new_unit_sell"]) == ("37500.00", "45000.00")
    assert switch["changes"] == ["price"]
    delta = Decimal(diff["totals"]["new_sell"]) - Decimal(diff["totals"]["old_sell"])
    assert Decimal(diff["totals"]["sell_delta"]) == delta > 0
    hidden = bob_client.get(new["links"]["diff"]).json()
    assert hidden["changed"] == [] and "totals" not in hidden and hidden["prices_hidden"]
    first = api_client.get(f"{base}diff/").json()
    assert first["from"] is None and "first version" in first["detail"]


def test_an_expired_quote_is_not_accepted_over_the_api(setting, api_client):
    from datetime import timedelta

    from django.utils import timezone

    design, _ = setting
    quote = _create(api_client, design).json()
    base = f"{_base(design)}{quote['id']}/"
    assert (
        api_client.post(base + "send/", {"confirm_unpriced": True}, format="json").status_code
        == 200
    )
    Quote.objects.filter(pk=quote["id"]).update(
        created=timezone.now() - timedelta(days=40),
        valid_until=timezone.localdate() - timedelta(days=1),
    )
    assert api_client.get(base).json()["status"] == "expired"
    refused = api_client.post(base + "accept/")
    assert refused.status_code == 409 and refused.json()["status"] == "expired"
    assert "is expired: only a sent, unexpired quote can be accepted" in refused.json()["detail"]
    declined = api_client.post(base + "decline/")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"


def test_quote_page_shows_status_version_and_the_steps_allowed(setting, api_client, client, user):
    from inventory.models import Price
    from inventory.services import price_save

    design, book = setting
    quote = Quote.objects.get(pk=_create(api_client, design).json()["id"])
    client.force_login(user)

    def steps(page) -> set[str]:
        return {s for s in ("send", "accept", "decline", "reprice") if f'quote-{s}"' in page}

    page = client.get(quote.get_absolute_url()).content.decode()
    assert steps(page) == {"send"} and 'data-testid="quote-lifecycle">Draft<' in page
    sent = client.post(f"{quote.get_absolute_url()}send/", {"confirm_unpriced": "on"})
    assert sent.status_code == 302
    page = client.get(quote.get_absolute_url()).content.decode()
    assert steps(page) == {"accept", "decline", "reprice"} and ">Sent<" in page
    assert 'data-testid="reprice-available"' not in page and "Edit</a>" not in page
    refused = client.post(f"{quote.get_absolute_url()}send/", {"confirm_unpriced": "on"})
    assert refused.status_code == 400
    assert (
        f"Quote {quote.number} is sent: only a draft quote can be sent." in refused.content.decode()
    )

    offer = Price.objects.get(book=book, part_slug="QM9700")
    offer.price = Decimal("29000")
    price_save(price=offer, actor=user)
    page = client.get(quote.get_absolute_url()).content.decode()
    assert 'data-testid="reprice-available"' in page and "30,000.00 USD → 29,000.00 USD" in page
    repriced = client.post(f"{quote.get_absolute_url()}reprice/")
    new = Quote.objects.get(number=quote.number, version=2)
    assert repriced["Location"] == f"{new.get_absolute_url()}diff/"
    diff = client.get(repriced["Location"]).content.decode()
    assert f"Changes in {quote.number} v2" in diff and 'data-testid="quote-diff-lines"' in diff
    old = client.get(quote.get_absolute_url()).content.decode()
    assert ">Superseded<" in old and not steps(old) and f"{quote.number} v2" in old
