"""Sending with gaps is a decision (issue 37, item 2): a quote with unpriced lines is sent only
with ``confirm_unpriced``; who confirmed, when and how many lines are recorded and printed on
the internal copy, never on the customer's; lines priced from an estimate are counted."""

from __future__ import annotations

import io

import pytest
from django.core.exceptions import ValidationError
from openpyxl import load_workbook
from pypdf import PdfReader

from inventory.models import PriceBook
from inventory.services import price_book_import_csv
from planner.audit.models import AuditEvent
from planner.designs.services import design_create
from planner.quotes.models import Quote, QuoteStatusChoices
from planner.quotes.services import QuoteGaps, quote_create, quote_export, quote_price, quote_send
from tests.factories import ONE_SU_SPEC

# Test prices (not real ones); the transceiver's is an estimate.
PRICES_CSV = """part,price,currency,seller,grade,condition,length_m
QM9700,30000,USD,Seller A,secondary,new,
DGX-H100,300000,USD,Seller B,secondary,new,
MMA4Z00-NS,800,USD,Seller C,estimate,new,
"""


@pytest.fixture
def quote(seed_catalog, user):
    design = design_create(owner=user, spec_document=ONE_SU_SPEC)
    book = PriceBook.objects.create(slug="gaps-book", name="Gaps book", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    return quote_create(design=design, actor=user, customer="ACME Labs", price_book=book)


def _pdf_text(content: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


def _xlsx_text(content: bytes) -> str:
    sheet = load_workbook(io.BytesIO(content)).active
    return "\n".join(str(c) for row in sheet.iter_rows(values_only=True) for c in row if c)


def test_gaps_count_unpriced_and_estimated_lines(quote):
    priced = quote_price(quote).priced
    gaps = QuoteGaps.of(priced)
    assert gaps.lines == len(priced.lines)
    assert gaps.unpriced_lines == sum(1 for line in priced.lines if not line.priced) > 0
    estimated = [line for line in priced.lines if line.line.part == "MMA4Z00-NS"]
    assert gaps.estimated_lines == len(estimated) > 0
    assert f"{gaps.unpriced_lines:,} of {gaps.lines:,} lines unpriced" in gaps.text()


def test_sending_with_unpriced_lines_needs_the_confirmation(quote, user):
    with pytest.raises(ValidationError) as caught:
        quote_send(quote=quote, actor=user, may_view_prices=True)
    assert list(caught.value.message_dict) == ["confirm_unpriced"]
    assert "unpriced" in caught.value.message_dict["confirm_unpriced"][0]
    stored = Quote.objects.get(pk=quote.pk)
    assert stored.status == QuoteStatusChoices.DRAFT and stored.snapshot is None
    assert not AuditEvent.objects.filter(details__change="status").exists()


def test_the_confirmation_is_recorded_and_printed_on_the_internal_copy_only(quote, user):
    gaps = QuoteGaps.of(quote_price(quote).priced)
    sent = quote_send(quote=quote, actor=user, may_view_prices=True, confirm_unpriced=True)
    record = Quote.objects.get(pk=sent.pk).snapshot["gaps"]
    assert record["by"] == user.get_username() and record["at"]
    assert (record["unpriced_lines"], record["estimated_lines"], record["lines"]) == (
        gaps.unpriced_lines,
        gaps.estimated_lines,
        gaps.lines,
    )
    assert record["unpriced_confirmed"] is True
    event = AuditEvent.objects.get(details__change="status")
    assert event.details["unpriced_lines"] == gaps.unpriced_lines
    assert event.details["unpriced_confirmed"] is True
    said = f"{gaps.unpriced_lines:,} of {gaps.lines:,} lines unpriced"
    files = {
        (fmt, audience): quote_export(
            quote=sent, actor=user, fmt=fmt, may_view_prices=True, audience=audience
        ).content
        for fmt in ("pdf", "xlsx")
        for audience in ("internal", "customer")
    }
    internal_pdf = " ".join(_pdf_text(files["pdf", "internal"]).split())
    assert said in internal_pdf and f"confirmed by {user.get_username()}" in internal_pdf
    assert said in _xlsx_text(files["xlsx", "internal"])
    assert "confirmed by" not in _pdf_text(files["pdf", "customer"])
    assert "confirmed by" not in _xlsx_text(files["xlsx", "customer"])
