"""A priced quote as files: PDF (fpdf2, :mod:`.pdf`), XLSX (openpyxl, :mod:`.xlsx`) and CSV
(:mod:`.csv`), each in two versions; what every copy says, whatever its format, is in
:mod:`.content`.

All are made from one :class:`planner.quotes.services.QuoteDocument` (a sent quote's: its
snapshot, so a file downloaded later is the one sent). :data:`AUDIENCES` names the versions:

- ``customer``: what the customer is sent. The customer's name and address (lines under the
  name), the quote number with its version, date, validity and currency; per line only the
  part, a description, the quantity (spares included), the unit price and the line total;
  subtotals, the total and the terms: what the figures mean and how long they hold, then the
  quote's own terms (payment, delivery, warranty) when it has some. No book price, discount,
  cost, margin, price book, seller or offer source, no internal notes and no reason a line is
  unpriced (it reads "not priced").
- ``internal``: everything, for the sales team: the above plus the book price, discount, unit
  cost and offer source of each line, category and tier, the cost and margin totals, the
  price book, the unpriced parts with the reason, the quote's terms, the internal notes and
  the pricing rules. Every page says it is internal.

The customer's name, address and terms come from the document (a sent quote's: as sent).

Every PDF page ends with the quote number and version and "Page 2 of 3"; the totals block is
kept on one page. Text cells of the XLSX and CSV are strings, never formulas: text that begins
with ``=``, ``+``, ``-``, ``@``, tab or CR is written with a ``'`` before it
(:func:`inventory.library.cells.safe_cell`).

The PDF sets every text in DejaVu Sans (Latin, Greek, Cyrillic, Arabic, Hebrew), with Noto Sans
CJK as the fallback for Chinese, Japanese and Korean, both embedded (subset) in the file, and,
when a text is right-to-left or has combining marks, shapes text with HarfBuzz so that it reads
right: any customer name and address prints as typed (:func:`pdf_fonts`; the files come from the
operating system's font packages, :mod:`planner.quotes.fonts`). Unpriced amounts
print as "—" (with "unpriced" or "not priced"), never as a zero.
"""

from __future__ import annotations

from planner.quotes.files.content import (
    AUDIENCES,
    CATEGORY_LABELS,
    CUSTOMER,
    ESTIMATE_MARK,
    ESTIMATE_NOTE,
    ESTIMATE_NOTE_INTERNAL,
    INTERNAL,
    INTERNAL_MARK,
    NOT_PRICED,
    CustomerLine,
    TotalRow,
    check_audience,
    customer_block,
    customer_quote_lines,
    file_suffix,
    is_estimated,
    network_label,
    total_rows,
)
from planner.quotes.files.csv import CSV_COLUMNS, CUSTOMER_CSV_COLUMNS, quote_csv
from planner.quotes.files.pdf import PdfFonts, pdf_fonts, quote_pdf
from planner.quotes.files.xlsx import money_format, quote_xlsx

__all__ = [
    "AUDIENCES",
    "CATEGORY_LABELS",
    "CSV_COLUMNS",
    "CUSTOMER",
    "CUSTOMER_CSV_COLUMNS",
    "CustomerLine",
    "ESTIMATE_MARK",
    "ESTIMATE_NOTE",
    "ESTIMATE_NOTE_INTERNAL",
    "INTERNAL",
    "INTERNAL_MARK",
    "NOT_PRICED",
    "PdfFonts",
    "RENDERERS",
    "TotalRow",
    "customer_block",
    "customer_quote_lines",
    "file_suffix",
    "is_estimated",
    "money_format",
    "network_label",
    "pdf_fonts",
    "quote_csv",
    "quote_file",
    "quote_pdf",
    "quote_xlsx",
    "total_rows",
]


#: The file of each format, by :func:`quote_file`.
RENDERERS = {"pdf": quote_pdf, "xlsx": quote_xlsx, "csv": quote_csv}


def quote_file(document, fmt: str, *, audience: str = INTERNAL) -> bytes:
    """The quote as a ``fmt`` file (:data:`RENDERERS`) for ``audience`` (:data:`AUDIENCES`).

    Raises
    ------
    ValueError
        An unknown format or audience (the message names which).
    """
    if fmt not in RENDERERS:
        raise ValueError(f"format: use one of {', '.join(RENDERERS)}")
    check_audience(audience)
    return RENDERERS[fmt](document, audience=audience)
