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
from inventory.services import price_book_import_csv
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
