"""Money done right and bad input (issue 22, items 2 and 5), through the services: dated
exchange rates (the rate valid on the quote's date converts offers, and is frozen when the quote
is sent), a currency without a rate refused naming ``currency``, team price books kept from
other teams, a team's margin floor that needs an owner's approval before sending, and bad input
refused naming the field with nothing written."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from inventory.models import ExchangeRate, Price, PriceBook
from inventory.selectors import exchange_rates_valid_on
from inventory.services import exchange_rate_save, price_book_import_csv, price_save
from planner.audit.models import AuditEvent
from planner.designs.services import DesignError, design_create
from planner.quotes.models import Quote, QuoteStatusChoices
from planner.quotes.services import (
    QuoteStatusError,
    quote_approve,
    quote_create,
    quote_margin_floor,
    quote_price,
    quote_reprice_check,
    quote_send,
    quote_update,
)
from planner.teams.models import Team, TeamMembership
from tests.factories import TINY_SPEC

# Test prices and rates (not real ones).
PRICES_CSV = """part,price,currency,seller,condition,length_m
QM9700,30000,USD,Seller A,new,
DGX-H100,300000,USD,Seller B,new,
"""
TODAY = timezone.localdate()


def _rate(code_from, code_to, rate, valid_from, source="Test rate"):
    return exchange_rate_save(
        rate=ExchangeRate(
            from_currency=code_from,
            to_currency=code_to,
            rate=Decimal(rate),
            valid_from=valid_from,
            source=source,
            source_url="https://rates.example.test/",
        )
    )


@pytest.fixture
def scene(seed_catalog, django_user_model):
    """Team Alpha (floor 15 %): owner Olga and seller Sam (editor), both with the price
    right; team Beta: owner Bea. Sam's design is shared with Alpha; a USD book."""
    make = django_user_model.objects.create_user
    people = {n: make(username=n, password=f"pw-{n}-123!") for n in ("olga", "sam", "bea")}
    alpha = Team.objects.create(name="Alpha", slug="alpha", margin_floor_pct=Decimal("15"))
    beta = Team.objects.create(name="Beta", slug="beta")
    for team, name, role in (
        (alpha, "olga", "owner"),
        (alpha, "sam", "editor"),
        (beta, "bea", "owner"),
    ):
        TeamMembership.objects.create(team=team, user=people[name], role=role, can_view_prices=True)
    book = PriceBook.objects.create(slug="usd-book", name="USD book", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    design = design_create(
        owner=people["sam"], spec_document=TINY_SPEC, team=alpha, sharing="team-edit"
    )
    return {**people, "alpha": alpha, "beta": beta, "book": book, "design": design}


def _quote(scene, **terms):
    terms = {"margin_pct": 20, **terms}
    return quote_create(
        design=scene["design"],
        actor=scene["sam"],
        customer="ACME",
        price_book=scene["book"],
        **terms,
    )


def test_the_rate_valid_on_the_day_is_the_latest_from_that_day_or_before(db):
    _rate("USD", "EUR", "0.90", date(2026, 1, 5))
    _rate("USD", "EUR", "0.95", date(2026, 3, 1))
    _rate("GBP", "EUR", "1.15", date(2026, 2, 1))
    _rate("EUR", "USD", "1.08", date(2026, 1, 1))  # the other direction does not count

    def on(day):
        return {k: v.rate for k, v in exchange_rates_valid_on("EUR", day).items()}

    assert on(date(2026, 1, 4)) == {}
    assert on(date(2026, 2, 15)) == {"USD": Decimal("0.90"), "GBP": Decimal("1.15")}
    assert on(date(2026, 3, 1)) == {"USD": Decimal("0.95"), "GBP": Decimal("1.15")}


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"rate": Decimal("0")}, "rate"),
        ({"rate": Decimal("-1.2")}, "rate"),
        ({"to_currency": "USD"}, "to_currency"),
        ({"from_currency": "usd"}, "from_currency"),
        ({"source": " "}, "source"),
        ({"valid_from": date(2026, 1, 5)}, "valid_from"),  # the pair has a rate that day
    ],
)
def test_a_bad_rate_is_refused_naming_the_field(db, fields, field):
    _rate("USD", "EUR", "0.90", date(2026, 1, 5))
    values = {
        "from_currency": "USD",
        "to_currency": "EUR",
        "rate": Decimal("0.91"),
        "valid_from": date(2026, 1, 6),
        "source": "Test rate",
        **fields,
    }
    with pytest.raises(ValidationError) as caught:
        exchange_rate_save(rate=ExchangeRate(**values))
    assert field in caught.value.message_dict
    assert ExchangeRate.objects.count() == 1


def test_a_quote_converts_with_todays_rate_and_keeps_it_when_sent(scene):
    _rate("USD", "EUR", "0.80", TODAY - timedelta(days=30))
    rate = _rate("USD", "EUR", "0.9137", TODAY - timedelta(days=2))
    _rate("USD", "EUR", "0.50", TODAY + timedelta(days=3))  # not valid yet
    quote = _quote(scene, currency="EUR")
    switch = next(p for p in quote_price(quote).priced.lines if p.line.part == "QM9700")
    assert switch.rate.rate == Decimal("0.9137") and switch.rate.reference == str(rate.pk)
    assert switch.unit_book == Decimal("27411.00")  # 30,000 USD x 0.9137
    assert switch.unit_sell == Decimal("34263.75")  # 27,411 / 0.8

    sent = quote_send(quote=quote, actor=scene["sam"], may_view_prices=True, confirm_unpriced=True)
    frozen = sent.snapshot["priced"]
    assert frozen["exchange_rates"] == [
        {
            "from_currency": "USD",
            "to_currency": "EUR",
            "rate": "0.9137",
            "valid_from": (TODAY - timedelta(days=2)).isoformat(),
            "source": "Test rate",
            "source_url": "https://rates.example.test/",
            "reference": str(rate.pk),
        }
    ]
    before = quote_price(sent).as_dict()
    # a newer rate moves drafts, not the sent quote, which says re-price is available
    _rate("USD", "EUR", "0.99", TODAY)
    assert quote_price(Quote.objects.get(pk=sent.pk)).as_dict() == before
    check = quote_reprice_check(sent)
    assert check.available and not check.price_moves
    assert [m.today.rate for m in check.rate_moves] == [Decimal("0.99")]
    assert "exchange rate from USD to EUR is 0.99" in check.reasons()[0]
    draft = _quote(scene, currency="EUR")
    assert {p.rate.rate for p in quote_price(draft).priced.lines if p.rate} == {Decimal("0.99")}


def test_a_currency_without_a_rate_is_refused_naming_it_and_nothing_is_written(scene):
    _rate("USD", "EUR", "0.9", TODAY - timedelta(days=1))
    events = AuditEvent.objects.count()
    for currency in ("JPY", "CHF"):
        with pytest.raises(ValidationError) as caught:
            _quote(scene, currency=currency)
        assert list(caught.value.message_dict) == ["currency"]
        assert (
            f"no exchange rate from USD (the currency of USD book) to {currency}"
            in (caught.value.message_dict["currency"][0])
        )
    assert not Quote.objects.exists() and AuditEvent.objects.count() == events
    quote = _quote(scene)
    with pytest.raises(ValidationError) as caught:
        quote_update(quote=quote, actor=scene["sam"], currency="GBP")
    assert "currency" in caught.value.message_dict
    assert Quote.objects.get(pk=quote.pk).currency == "USD"
    # the rate goes away while the quote is a draft: sending is refused the same way
    quote = quote_update(quote=quote, actor=scene["sam"], currency="EUR")
    ExchangeRate.objects.all().delete()
    with pytest.raises(ValidationError) as caught:
        quote_send(quote=quote, actor=scene["sam"], may_view_prices=True, confirm_unpriced=True)
    assert "currency" in caught.value.message_dict
    assert Quote.objects.get(pk=quote.pk).status == QuoteStatusChoices.DRAFT


def test_below_the_margin_floor_a_quote_needs_an_owners_approval(scene):
    quote = _quote(scene, margin_pct=Decimal("12.5"))
    floor = quote_margin_floor(quote)
    assert (floor.team, floor.floor_pct) == (scene["alpha"], Decimal("15"))
    with pytest.raises(QuoteStatusError) as caught:
        quote_send(quote=quote, actor=scene["sam"], may_view_prices=True, confirm_unpriced=True)
    message = caught.value.message_dict["margin_pct"][0]
    assert "margin of 12.5 %" in message and "floor of 15 %" in message and "Alpha" in message
    assert Quote.objects.get(pk=quote.pk).status == QuoteStatusChoices.DRAFT
    # the seller (an editor) and another team's owner may not approve; the owner does
    for who in ("sam", "bea"):
        with pytest.raises(PermissionDenied):
            quote_approve(quote=quote, actor=scene[who], may_view_prices=True)
    approved = quote_approve(quote=quote, actor=scene["olga"], may_view_prices=True)
    assert approved.margin_approved and approved.approved_by == scene["olga"]
    event = AuditEvent.objects.filter(object_ref=quote.number, details__change="approved").get()
    assert event.actor == scene["olga"] and event.details["floor_pct"] == "15.00"
    assert "approved at a margin of 12.5 %" in event.summary
    # a changed margin withdraws the approval; approving again, then sending, works
    changed = quote_update(quote=approved, actor=scene["sam"], margin_pct=Decimal("10"))
    assert not changed.margin_approved and changed.approved_by is None
    with pytest.raises(QuoteStatusError):
        quote_send(quote=changed, actor=scene["sam"], may_view_prices=True, confirm_unpriced=True)
    quote_approve(quote=changed, actor=scene["olga"], may_view_prices=True)
    sent = quote_send(
        quote=changed, actor=scene["sam"], may_view_prices=True, confirm_unpriced=True
    )
    assert sent.snapshot["approval"]["by"] == "olga"
    assert sent.snapshot["approval"]["floor_pct"] == "15.00"
    # at or above the floor: nothing to approve, and sending needs none
    plain = _quote(scene, margin_pct=15)
    with pytest.raises(ValidationError) as caught:
        quote_approve(quote=plain, actor=scene["olga"], may_view_prices=True)
    assert "needs no approval" in caught.value.message_dict["margin_pct"][0]
    assert (
        quote_send(
            quote=plain, actor=scene["sam"], may_view_prices=True, confirm_unpriced=True
        ).status
        == "sent"
    )


def test_a_private_design_takes_the_floor_of_its_owners_teams(scene):
    design = design_create(owner=scene["sam"], spec_document=TINY_SPEC)  # private
    quote = quote_create(
        design=design, actor=scene["sam"], customer="X", price_book=scene["book"], margin_pct=5
    )
    assert quote_margin_floor(quote).team == scene["alpha"]
    with pytest.raises(QuoteStatusError):
        quote_send(quote=quote, actor=scene["sam"], may_view_prices=True, confirm_unpriced=True)


BAD_INPUT = [
    ({"discounts_pct": {"switch": Decimal("100.01")}}, "discounts_pct"),
    ({"discounts_pct": {"switch": "lots"}}, "discounts_pct"),
    ({"margin_pct": 100}, "margin_pct"),
    ({"margin_pct": Decimal("100.5")}, "margin_pct"),
    ({"currency": "XTS"}, "currency"),  # no rate from USD
]


@pytest.mark.parametrize(("terms", "field"), BAD_INPUT)
def test_bad_quote_input_is_refused_naming_the_field_and_nothing_is_written(scene, terms, field):
    events = AuditEvent.objects.count()
    with pytest.raises(ValidationError) as caught:
        _quote(scene, **terms)
    assert field in caught.value.message_dict
    assert not Quote.objects.exists() and AuditEvent.objects.count() == events


def test_a_quote_on_a_revision_of_another_teams_design_is_refused(scene):
    theirs = design_create(
        owner=scene["bea"], spec_document=TINY_SPEC, team=scene["beta"], sharing="team-edit"
    )
    with pytest.raises(ValidationError) as caught:
        _quote(scene, revision=theirs.latest_revision)
    assert list(caught.value.message_dict) == ["revision"]
    assert not Quote.objects.exists()


@pytest.mark.parametrize("price", [Decimal("-0.01"), "abc", Decimal("NaN")])
def test_a_negative_or_non_numeric_price_is_refused_naming_it(scene, price):
    offer = Price.objects.get(book=scene["book"], part_slug="QM9700")
    offer.price = price
    with pytest.raises(ValidationError) as caught:
        price_save(price=offer)
    assert "price" in caught.value.message_dict
    assert Price.objects.get(pk=offer.pk).price == Decimal("30000.00")


def test_another_teams_confidential_book_is_kept_from_a_spec(scene):
    secret = PriceBook.objects.create(slug="beta-deal", name="Beta deal", team=scene["beta"])
    with pytest.raises(DesignError) as caught:
        design_create(owner=scene["sam"], spec_document={**TINY_SPEC, "price_book": secret.slug})
    assert [p["field"] for p in caught.value.problems] == ["price_book"]
    assert "no price book 'beta-deal'" in caught.value.problems[0]["message"]
    mine = design_create(owner=scene["bea"], spec_document={**TINY_SPEC, "price_book": "beta-deal"})
    assert mine.latest_revision.spec["price_book"] == "beta-deal"
