"""Quote lifecycle (issue 22): a sent quote never changes. Sending freezes it against later
price-book, catalog and design changes (PDF text, XLSX, CSV and the API's totals compared
before and after); steps the status does not allow are refused naming it; an expired quote
cannot be accepted; re-pricing makes version 2 with the same number and a line diff; a price
change shows on drafts at once and on sent quotes as "re-price available"."""

from __future__ import annotations

import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone
from openpyxl import load_workbook
from pypdf import PdfReader

from inventory.models import Price, PriceBook, SwitchModel
from inventory.services import part_save, price_book_import_csv, price_book_save, price_save
from planner.audit.models import AuditEvent
from planner.designs.services import design_create, design_revise, design_update
from planner.quotes.models import Quote, QuoteStatusChoices
from planner.quotes.services import (
    quote_accept,
    quote_create,
    quote_decline,
    quote_delete,
    quote_export,
    quote_price,
    quote_reprice,
    quote_reprice_check,
    quote_send,
    quote_update,
    quote_version_diff,
)
from tests.factories import ONE_SU_SPEC

# Test prices (not real ones).
PRICES_CSV = """part,price,currency,seller,condition,length_m
QM9700,30000,USD,Seller A,new,
DGX-H100,300000,USD,Seller B,new,
MMA4Z00-NS,800,USD,Seller C,new,
"""


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU_SPEC)


@pytest.fixture
def book(seed_catalog):
    book = PriceBook.objects.create(slug="test-book", name="Test book", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    return book


def _quote(design, book, user, **terms):
    return quote_create(
        design=design,
        actor=user,
        customer="ACME Labs",
        price_book=book,
        discounts_pct={"switch": 10},
        margin_pct=20,
        spares_pct={"transceiver": 5},
        **terms,
    )


def _send(quote, user):
    return quote_send(quote=quote, actor=user, may_view_prices=True, confirm_unpriced=True)


def _reads(quote, user) -> dict:
    """Everything a reader of the quote gets: the API's priced answer, the PDF's text, the
    XLSX cells and the CSV."""
    quote = Quote.objects.get(pk=quote.pk)
    files = {
        fmt: quote_export(quote=quote, actor=user, fmt=fmt, may_view_prices=True).content
        for fmt in ("pdf", "xlsx", "csv")
    }
    pdf = PdfReader(io.BytesIO(files["pdf"]))
    sheet = load_workbook(io.BytesIO(files["xlsx"])).active
    return {
        "api": quote_price(quote).as_dict(),
        "hidden": quote_price(quote, with_prices=False).as_dict(),
        "pdf": "\n".join(page.extract_text() for page in pdf.pages),
        "pdf_bytes": files["pdf"],
        "xlsx": list(sheet.iter_rows(values_only=True)),
        "csv": files["csv"],
    }


def _change_price_part_and_design(design, book, user):
    """A catalog editor's price change, a part change and a new revision of the design (with
    a new name), and the book renamed."""
    offer = Price.objects.get(book=book, part_slug="QM9700")
    offer.price = Decimal("31000")
    price_save(price=offer, actor=user)
    switch = SwitchModel.objects.get(slug="QM9700")
    switch.name = f"{switch.name} (renamed)"
    part_save(part=switch, actor=user)
    design_revise(
        design=design, user=user, spec_document={**ONE_SU_SPEC, "servers": 63}, base_revision=1
    )
    design_update(design=design, actor=user, name="1 SU, bigger")
    book.name = "Test book 2"
    price_book_save(book=book, actor=user)


def test_a_sent_quote_never_changes(design, book, user):
    address, terms = "1 Main Street\nSpringfield", "Payment 30 days net."
    sent = _send(_quote(design, book, user, customer_address=address, terms=terms), user)
    assert sent.status == QuoteStatusChoices.SENT and sent.snapshot["revision"] == 1
    assert sent.snapshot["customer"] == {"name": "ACME Labs", "address": address}
    assert sent.snapshot["terms"] == terms
    before = _reads(sent, user)
    assert before["api"]["totals"]["sell"] and before["api"]["frozen"] is True
    assert "Springfield" in before["pdf"] and terms in before["pdf"]
    draft = _quote(design, book, user)  # priced from the book: changes at once
    draft_switch = quote_price(draft).priced.lines
    _change_price_part_and_design(design, book, user)
    # Even a change of the stored row (no service allows one) leaves the documents as sent.
    Quote.objects.filter(pk=sent.pk).update(customer_address="Elsewhere", terms="Other terms")

    after = _reads(sent, user)
    for key in ("api", "hidden", "pdf", "pdf_bytes", "xlsx", "csv"):
        assert after[key] == before[key], key
    assert "1 SU, bigger" not in after["pdf"] and "(renamed)" not in after["pdf"]
    assert f"{Decimal(before['api']['totals']['sell']):,.2f}" in after["pdf"]

    # Item 4: the draft shows the new price (and revision choice stays its own) ...
    switch_cost = {p.unit_book for p in quote_price(draft).priced.lines if p.line.part == "QM9700"}
    assert switch_cost == {Decimal("31000")}
    assert {p.unit_book for p in draft_switch if p.line.part == "QM9700"} == {Decimal("30000")}
    # ... the sent quote says re-price available, with the move and the newer revision.
    check = quote_reprice_check(sent)
    assert check.available and check.newer_revision == 2
    moves = {m.part: (m.sent, m.today) for m in check.price_moves}
    assert moves == {"QM9700": (Decimal("30000"), Decimal("31000"))}
    assert quote_reprice_check(draft) is None


def test_steps_the_status_does_not_allow_are_refused_naming_it(design, book, user, other_user):
    quote = _quote(design, book, user)
    with pytest.raises(ValidationError, match="is draft") as caught:
        quote_accept(quote=quote, actor=user)
    assert list(caught.value.message_dict) == ["status"]
    with pytest.raises(PermissionDenied, match="price right"):
        quote_send(quote=quote, actor=other_user, may_view_prices=False, confirm_unpriced=True)
    quote = _send(quote, user)
    for refused in (
        lambda: _send(quote, user),
        lambda: quote_update(quote=quote, actor=user, customer="Other"),
        lambda: quote_update(quote=quote, actor=user, customer_address="Other street"),
        lambda: quote_update(quote=quote, actor=user, terms="Payment on order."),
        lambda: quote_delete(quote=quote, actor=user),
    ):
        with pytest.raises(ValidationError, match=f"Quote {quote.number} is sent"):
            refused()
    accepted = quote_accept(quote=quote, actor=user)
    assert accepted.status == "accepted" and accepted.answered_at is not None
    for step in (quote_accept, quote_decline):
        with pytest.raises(ValidationError, match="is accepted"):
            step(quote=quote, actor=user)
    with pytest.raises(ValidationError, match="is accepted"):
        quote_reprice(quote=quote, actor=user, may_view_prices=True)
    quote.refresh_from_db()
    assert quote.customer == "ACME Labs" and quote.status == "accepted"
    assert (quote.customer_address, quote.terms) == ("", "")
    changes = list(
        AuditEvent.objects.filter(object_ref=quote.number)
        .order_by("pk")
        .values_list("details__change", "details__status__new")
    )
    assert changes == [("created", None), ("status", "sent"), ("status", "accepted")]


def _made_40_days_ago_valid_until_yesterday(quote):
    Quote.objects.filter(pk=quote.pk).update(
        created=timezone.now() - timedelta(days=40),
        valid_until=timezone.localdate() - timedelta(days=1),
    )
    quote.refresh_from_db()


def test_an_expired_quote_cannot_be_accepted(design, book, user):
    quote = _send(_quote(design, book, user), user)
    _made_40_days_ago_valid_until_yesterday(quote)
    assert quote.lifecycle_status == "expired"
    with pytest.raises(ValidationError, match="is expired: only a sent, unexpired quote"):
        quote_accept(quote=quote, actor=user)
    assert quote_decline(quote=quote, actor=user).status == "declined"

    stale = _quote(design, book, user)
    _made_40_days_ago_valid_until_yesterday(stale)
    with pytest.raises(ValidationError) as caught:
        _send(stale, user)
    assert "valid_until" in caught.value.message_dict
    stale.refresh_from_db()
    assert stale.status == "draft" and stale.snapshot is None


def test_reprice_makes_the_next_version_with_a_line_diff(design, book, user):
    sent = _send(_quote(design, book, user), user)
    _change_price_part_and_design(design, book, user)
    new = quote_reprice(quote=sent, actor=user, may_view_prices=True)
    sent.refresh_from_db()
    assert (new.number, new.version, new.label) == (sent.number, 2, f"{sent.number} v2")
    assert sent.status == "superseded" and new.status == "draft" and new.previous == sent
    assert new.revision.number == 2 and (new.margin_pct, new.discounts_pct) == (20, {"switch": 10})
    assert new.valid_until == timezone.localdate() + timedelta(days=30)

    compared = quote_version_diff(new)
    diff = compared.diff
    switch = next(r for r in diff.rows if r.part == "QM9700" and r.tier == "leaf")
    assert "price" in switch.changes
    # 10 % off and 20 % margin: 30,000 -> 33,750.00 and 31,000 -> 34,875.00
    assert (switch.old_unit_sell, switch.new_unit_sell) == (
        Decimal("33750.00"),
        Decimal("34875.00"),
    )
    servers = next(r for r in diff.rows if r.part == "DGX-H100")
    assert (servers.old_quantity, servers.new_quantity) == (31, 63)
    assert diff.of("added") or diff.of("removed") or "quantity" in switch.changes
    assert (
        diff.sell_delta == quote_price(new).priced.sell_total - quote_price(sent).priced.sell_total
    )
    assert compared.as_dict(with_prices=True)["totals"]["sell_delta"] == f"{diff.sell_delta:.2f}"

    # the old version still reads as sent; the number stays unique per year
    assert quote_price(sent).as_dict()["priced_on"] == sent.snapshot["priced_on"]
    next_quote = _quote(design, book, user)
    assert next_quote.sequence == sent.sequence + 1
    # deleting the new draft puts the sent version back
    quote_delete(quote=new, actor=user)
    sent.refresh_from_db()
    assert sent.status == "sent"
    # a draft version never sent is not counted: the next one is v2 again
    assert quote_reprice(quote=sent, actor=user, may_view_prices=True).label == new.label
