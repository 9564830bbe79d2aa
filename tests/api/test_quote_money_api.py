"""Money done right over the API and pages (issue 22, items 2 and 5): the exchange-rate table
(read by everyone signed in, changed by catalog editors only, bad rates refused naming the
field), quotes in another currency, the margin-floor approval (403 for a non-owner, 409 naming
``margin_pct`` when sending without it), a team's confidential book kept from other teams on
every route that takes a book, and bad prices refused naming the field."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from inventory.models import ExchangeRate, Price, PriceBook
from inventory.services import SEED_PRICE_BOOK, price_book_import_csv
from planner.audit.models import AuditEvent
from planner.designs.services import design_create, design_revise
from planner.quotes.models import Quote
from planner.teams.models import Team, TeamMembership
from tests.conftest import grant_catalog_editor
from tests.factories import TINY_SPEC

# Test prices (not real ones).
PRICES_CSV = """part,price,currency,seller
QM9700,30000,USD,Seller A
"""
SECRET_PRICE = "16180.33"
RATE = {
    "from_currency": "USD",
    "to_currency": "EUR",
    "rate": "0.9137",
    "valid_from": (timezone.localdate() - timedelta(days=1)).isoformat(),
    "source": "Test rate",
    "source_url": "https://rates.example.test/",
}


def api(user) -> APIClient:
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(user)
    return client


def page(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.fixture
def people(seed_catalog, django_user_model):
    """Team Alpha (floor 15 %): owner Olga, seller Sam (editor), both with the price right;
    team Beta: owner Bea, whose confidential book prices QM9700 at 16,180.33; catalog editor
    Ed; plain user Nora. Sam's design (two revisions) is shared with Alpha."""
    make = django_user_model.objects.create_user
    users = {n: make(username=n, password=f"pw-{n}-123!") for n in ("olga", "sam", "bea", "nora")}
    users["ed"] = grant_catalog_editor(make(username="ed", password="pw-ed-123!"))
    alpha = Team.objects.create(name="Alpha", slug="alpha", margin_floor_pct=Decimal("15"))
    beta = Team.objects.create(name="Beta", slug="beta")
    for team, name, role in (
        (alpha, "olga", "owner"),
        (alpha, "sam", "editor"),
        (beta, "bea", "owner"),
    ):
        TeamMembership.objects.create(team=team, user=users[name], role=role, can_view_prices=True)
    book = PriceBook.objects.create(slug="usd-book", name="USD book", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    secret = PriceBook.objects.create(slug="beta-deal", name="Beta deal", team=beta)
    Price.objects.create(
        book=secret, part_category="switch", part_slug="QM9700", price=SECRET_PRICE, currency="USD"
    )
    design = design_create(
        owner=users["sam"], spec_document=TINY_SPEC, team=alpha, sharing="team-edit"
    )
    design_revise(
        design=design, user=users["sam"], spec_document={**TINY_SPEC, "servers": 6}, base_revision=1
    )
    return {**users, "alpha": alpha, "beta": beta, "book": book, "design": design}


def test_exchange_rates_are_read_by_all_and_changed_by_catalog_editors(people):
    url = "/api/inventory/exchange-rates/"
    assert api(people["nora"]).post(url, RATE, format="json").status_code == 403
    assert api(people["olga"]).post(url, RATE, format="json").status_code == 403  # a team owner
    created = api(people["ed"]).post(url, RATE, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["rate"] == "0.9137000000" and created.json()["source"] == "Test rate"
    listed = api(people["nora"]).get(url, {"from_currency": "USD"}).json()["results"]
    assert [(r["from_currency"], r["to_currency"]) for r in listed] == [("USD", "EUR")]
    rate_url = f"{url}{created.json()['id']}/"
    assert api(people["nora"]).patch(rate_url, {"rate": "1"}, format="json").status_code == 403
    assert api(people["ed"]).patch(rate_url, {"rate": "0.92"}, format="json").status_code == 200
    event = AuditEvent.objects.filter(object_type="exchange-rate", details__change="updated").get()
    assert event.details["fields"]["rate"] == {"old": "0.9137", "new": "0.92"}
    # bad rates name their field; nothing is written
    for body, field in (
        ({**RATE, "rate": "-1"}, "rate"),
        ({**RATE, "rate": "abc"}, "rate"),
        ({**RATE, "to_currency": "USD"}, "to_currency"),
        ({**RATE, "source": ""}, "source"),
        (RATE, "valid_from"),  # a second rate of the pair that day
    ):
        refused = api(people["ed"]).post(url, body, format="json")
        assert refused.status_code == 400 and field in refused.json(), (body, refused.content)
    assert ExchangeRate.objects.count() == 1
    assert api(people["nora"]).delete(rate_url).status_code == 403
    assert api(people["ed"]).delete(rate_url).status_code == 204


def test_the_exchange_rates_page(people):
    url = "/catalog/exchange-rates/"
    nora = page(people["nora"]).get(url)
    assert nora.status_code == 200 and b"Add a rate" not in nora.content
    assert page(people["nora"]).post(url, RATE).status_code == 403
    ed = page(people["ed"])
    assert b"Add a rate" in ed.get(url).content
    refused = ed.post(url, {**RATE, "rate": "0"})
    assert refused.status_code == 400 and b"The rate must be above 0." in refused.content
    assert ed.post(url, RATE).status_code == 302
    rate = ExchangeRate.objects.get()
    shown = ed.get(url).content.decode()
    assert "1 USD = 0.9137 EUR" in shown and "Test rate" in shown
    assert ed.post(f"{url}{rate.pk}/", {**RATE, "rate": "0.95"}).status_code == 302
    assert ExchangeRate.objects.get().rate == Decimal("0.95")
    assert page(people["nora"]).post(f"{url}{rate.pk}/delete/").status_code == 403
    assert ed.post(f"{url}{rate.pk}/delete/").status_code == 302
    assert not ExchangeRate.objects.exists()


def test_a_quote_in_another_currency_over_the_api(people):
    quotes = f"/api/planner/designs/{people['design'].pk}/quotes/"
    sam = api(people["sam"])
    body = {"customer": "ACME", "price_book": "usd-book", "currency": "EUR", "margin_pct": "20"}
    refused = sam.post(quotes, body, format="json")
    assert refused.status_code == 400 and "EUR" in refused.json()["currency"][0]
    assert not Quote.objects.exists()
    ExchangeRate.objects.create(**{**RATE, "rate": Decimal(RATE["rate"])})
    created = sam.post(quotes, body, format="json")
    assert created.status_code == 201, created.content
    priced = sam.get(f"{quotes}{created.json()['id']}/priced/").json()
    switch = next(line for line in priced["lines"] if line["part"] == "QM9700")
    assert switch["unit_book"] == "27411.00" and switch["source"]["currency"] == "USD"
    assert switch["source"]["exchange_rate"]["rate"] == "0.9137"
    assert priced["exchange_rates"][0]["valid_from"] == RATE["valid_from"]
    shown = page(people["sam"]).get(Quote.objects.get().get_absolute_url()).content.decode()
    assert 'data-testid="quote-rates"' in shown and "1 USD = 0.9137 EUR" in shown
    assert "from 30,000.00 USD" in shown


def test_margin_floor_approval_over_the_api_and_page(people):
    quotes = f"/api/planner/designs/{people['design'].pk}/quotes/"
    body = {"customer": "ACME", "price_book": "usd-book", "margin_pct": "12.5"}
    quote = api(people["sam"]).post(quotes, body, format="json").json()
    base = f"{quotes}{quote['id']}/"
    assert quote["approval"] == {
        "team": "alpha",
        "floor_pct": "15.00",
        "needed": True,
        "approved": False,
        "approved_by": None,
        "approved_at": None,
    }
    refused = api(people["sam"]).post(base + "send/", {"confirm_unpriced": True}, format="json")
    assert refused.status_code == 409 and refused.json()["field"] == "margin_pct"
    assert "12.5 %" in refused.json()["detail"] and "15 %" in refused.json()["detail"]
    assert api(people["sam"]).post(base + "approve/").status_code == 403  # not an owner
    detail = page(people["olga"]).get(Quote.objects.get().get_absolute_url()).content.decode()
    assert "Needs an owner's approval" in detail and 'data-testid="quote-approve"' in detail
    approved = api(people["olga"]).post(base + "approve/")
    assert approved.status_code == 200 and approved.json()["approval"]["approved_by"] == "olga"
    detail = page(people["sam"]).get(Quote.objects.get().get_absolute_url()).content.decode()
    assert "Margin approved" in detail and 'data-testid="quote-approve"' not in detail
    assert (
        api(people["sam"])
        .post(base + "send/", {"confirm_unpriced": True}, format="json")
        .status_code
        == 200
    )


def test_another_teams_book_is_kept_from_every_route_that_takes_a_book(people):
    sam = api(people["sam"])
    design = people["design"]
    assert {b["slug"] for b in sam.get("/api/inventory/price-books/").json()["results"]} == {
        SEED_PRICE_BOOK,
        "usd-book",
    }
    assert sam.get("/api/inventory/price-books/beta-deal/").status_code == 404
    prices = sam.get("/api/inventory/prices/?part_slug=QM9700").json()["results"]
    assert "beta-deal" not in {p["book"] for p in prices}
    created = sam.post(
        f"/api/planner/designs/{design.pk}/quotes/",
        {"customer": "X", "price_book": "beta-deal"},
        format="json",
    )
    assert created.status_code == 400 and "price_book" in created.json()
    diff = sam.get(
        f"/api/planner/designs/{design.pk}/diff/", {"from": 1, "to": 2, "price_book": "beta-deal"}
    )
    assert diff.status_code == 400 and "price_book" in diff.json()
    for url in (
        "/catalog/price-books/",
        "/catalog/switch/QM9700/",
        f"/designs/{design.pk}/diff/?from=1&to=2&price_book=beta-deal",
        f"/designs/{design.pk}/quotes/new/",
    ):
        response = page(people["sam"]).get(url)
        assert response.status_code < 500 and b"16,180.33" not in response.content, url
        assert b"16180.33" not in response.content and b"Beta deal" not in response.content, url
    # the team's owner reads it; a catalog editor outside the team does not
    assert api(people["bea"]).get("/api/inventory/price-books/beta-deal/").status_code == 200
    assert api(people["ed"]).get("/api/inventory/price-books/beta-deal/").status_code == 404


def test_a_negative_or_non_numeric_price_is_refused_naming_it(people):
    offer = Price.objects.get(book=people["book"])
    url = f"/api/inventory/prices/{offer.pk}/"
    for value in ("-5", "abc", "NaN"):
        refused = api(people["ed"]).patch(url, {"price": value}, format="json")
        assert refused.status_code == 400 and "price" in refused.json(), (value, refused.content)
    new = {"book": "usd-book", "part_category": "switch", "part_slug": "QM9700", "currency": "USD"}
    refused = api(people["ed"]).post(
        "/api/inventory/prices/", {**new, "price": "-1"}, format="json"
    )
    assert refused.status_code == 400 and "price" in refused.json()
    assert list(Price.objects.filter(book=people["book"]).values_list("price", flat=True)) == [
        Decimal("30000.00")
    ]
