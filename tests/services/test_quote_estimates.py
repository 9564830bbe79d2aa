"""A line priced from an estimate is marked († and a footnote) on the quote page and in every
file: the customer's copy says the price is an estimate, the internal copy gives its basis
(issue 37, item 1)."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse
from openpyxl import load_workbook
from pypdf import PdfReader

from inventory.models import PriceBook
from inventory.services import SEED_PRICE_BOOK, price_book_import_csv
from planner.designs.services import design_create
from planner.quotes.files import CUSTOMER, ESTIMATE_MARK, quote_csv, quote_pdf, quote_xlsx
from planner.quotes.services import quote_create, quote_price
from tests.factories import ONE_SU_SPEC

# Test prices (not real ones): the DGX H100 from an estimate, the leaf at a seen price.
PRICES_CSV = """part,price,currency,seller,condition,grade,note
QM9700,30000,USD,Seller A,new,secondary,
DGX-H100,300000,USD,Estimate,new,estimate,Basis: a test list price
"""


@pytest.fixture
def document(seed_catalog, user):
    design = design_create(owner=user, spec_document=ONE_SU_SPEC)
    book = PriceBook.objects.create(slug="est-book", name="Estimates", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    quote = quote_create(design=design, actor=user, customer="ACME", price_book=book)
    return quote_price(quote)


def _rows(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode())))


def test_csv_copies_mark_the_estimate_and_say_why(document):
    assert document.priced.estimated_lines == 1
    customer = _rows(quote_csv(document, CUSTOMER))
    marked = [row for row in customer[:-1] if ESTIMATE_MARK in "".join(row[:2])]
    assert [row[0] for row in marked] == ["DGX-H100"]
    assert marked[0][1].endswith(f" {ESTIMATE_MARK}")
    assert customer[-1][0] == "note" and "Estimated price" in customer[-1][1]
    assert "Basis" not in customer[-1][1]  # the basis stays internal
    internal = _rows(quote_csv(document))
    dgx = next(row for row in internal if row[0] == "DGX-H100")
    assert dgx[-1] == f"{ESTIMATE_MARK} estimate: Basis: a test list price"
    assert internal[-1][0] == "note" and "source column" in internal[-1][1]


def test_pdf_and_xlsx_copies_carry_the_mark_and_the_footnote(document):
    for audience in (CUSTOMER, "internal"):
        text = "\n".join(
            p.extract_text() for p in PdfReader(io.BytesIO(quote_pdf(document, audience))).pages
        )
        text = re.sub(r"\s+", " ", text)
        assert ESTIMATE_MARK in text and "Estimated price" in text, text
        sheet = load_workbook(io.BytesIO(quote_xlsx(document, audience))).active
        cells = [str(c) for row in sheet.iter_rows(values_only=True) for c in row if c]
        assert any("Estimated price" in c for c in cells)
        assert any(c.endswith(ESTIMATE_MARK) or c.startswith(ESTIMATE_MARK) for c in cells)


def test_the_quote_page_marks_the_line(document, logged_in_client, prices_visible):
    quote = document.quote
    url = reverse("planner:quote-detail", args=[quote.design.pk, quote.pk])
    html = logged_in_client.get(url).content.decode()
    assert html.count('data-testid="estimated-line"') == 1
    assert "Basis: a test list price" in html and 'data-testid="estimate-note"' in html


@pytest.fixture
def seed_book_document(seed_catalog, user):
    """A 1 SU design quoted at the seed book (`inventory/library/seed/prices.yaml`)."""
    design = design_create(owner=user, spec_document=ONE_SU_SPEC)
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    quote = quote_create(design=design, actor=user, customer="ACME", price_book=book)
    return quote_price(quote)


def test_the_seed_book_prices_every_line_its_racks_marked(
    seed_book_document, logged_in_client, prices_visible
):
    """At the seed book a quote has no unpriced line; its rack lines (the generic cabinet) are
    estimates, marked † like every other estimated line in the CSV (the internal copy with the
    basis), XLSX and PDF copies and on the page."""
    priced = seed_book_document.priced
    assert priced.unpriced_lines == 0 and priced.complete
    racks = [line for line in priced.lines if line.line.category == "rack"]
    assert racks and all(line.offer.estimated for line in racks)
    customer = _rows(quote_csv(seed_book_document, CUSTOMER))
    marked = [row for row in customer[:-1] if ESTIMATE_MARK in "".join(row[:2])]
    # the customer copy has a row per part number (a rack part's tiers merged): each rack part
    # is one of the marked rows
    assert {line.line.part_number or line.line.part for line in racks} <= {r[0] for r in marked}
    internal = _rows(quote_csv(seed_book_document))
    cabinet = next(row for row in internal if row[0] == racks[0].line.part)
    assert cabinet[-1].startswith(f"{ESTIMATE_MARK} estimate: Basis:")
    assert "SR42UBDP" in cabinet[-1]  # the basis names the nearest sold model
    sheet = load_workbook(io.BytesIO(quote_xlsx(seed_book_document, CUSTOMER))).active
    names = [str(c) for row in sheet.iter_rows(values_only=True) for c in row if c]
    assert f"{racks[0].line.name} {ESTIMATE_MARK}" in names
    text = " ".join(
        page.extract_text()
        for page in PdfReader(io.BytesIO(quote_pdf(seed_book_document, CUSTOMER))).pages
    )
    text = re.sub(r"\s+", " ", text)
    assert f"{racks[0].line.name} {ESTIMATE_MARK}" in text and "Estimated price" in text
    quote = seed_book_document.quote
    url = reverse("planner:quote-detail", args=[quote.design.pk, quote.pk])
    html = logged_in_client.get(url).content.decode()
    assert html.count('data-testid="estimated-line"') == priced.estimated_lines
