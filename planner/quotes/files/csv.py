"""The quote's lines as CSV (UTF-8): amounts with the places of the currency's minor unit and
no thousands separator, an unpriced line with empty price cells. Text cells a user typed are
neutralised (:func:`inventory.library.cells.safe_cell`): never read as formulas.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal

from inventory.library.cells import safe_cell
from planner.domain.outputs.quote import format_money
from planner.quotes.files.content import (
    CUSTOMER,
    ESTIMATE_NOTE,
    ESTIMATE_NOTE_INTERNAL,
    INTERNAL,
    NOT_PRICED,
    check_audience,
    customer_block,
    customer_quote_lines,
    price_source,
    terms_text,
)

#: Columns of the internal CSV file, one row per line of the quote.
CSV_COLUMNS = (
    "part",
    "part_number",
    "name",
    "manufacturer",
    "category",
    "tier",
    "length_m",
    "base_quantity",
    "spares",
    "quantity",
    "book_price",
    "discount_pct",
    "unit_cost",
    "unit_price",
    "extended_price",
    "status",
    "source",
)
#: Columns of the customer's CSV file.
CUSTOMER_CSV_COLUMNS = ("part", "description", "quantity", "unit_price", "line_total")


def _csv_money(value: Decimal | None, currency: str) -> str:
    return format_money(value, currency) or ""


def quote_csv(document, audience: str = INTERNAL) -> bytes:
    """The quote's lines as CSV (UTF-8), amounts with two decimals and no thousands separator,
    an unpriced line with empty price cells; then one ``total`` row, and a ``terms`` row (the
    quote's terms in its second cell) when the quote has terms.

    The first row names the quote, the customer, (customer's copy) the validity, and the
    address (one cell, its lines as typed). The internal copy has :data:`CSV_COLUMNS` (an
    unpriced line's status ``unpriced: <reason>``; the total row has the sell total in
    ``extended_price`` and the cost total in ``unit_cost``), the customer's
    :data:`CUSTOMER_CSV_COLUMNS` (the total in ``line_total``).
    """
    check_audience(audience)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if audience == CUSTOMER:
        _customer_csv(_Rows(writer), document)
    else:
        _internal_csv(_Rows(writer), document)
    return out.getvalue().encode()


class _Rows:
    """A CSV writer whose :meth:`row` neutralises text cells (:func:`safe_cell`) and whose
    :meth:`plain` writes ours (column names, totals) as they are."""

    def __init__(self, writer):
        self.plain = writer.writerow

    def row(self, values) -> None:
        self.plain([safe_cell(value) if isinstance(value, str) else value for value in values])


def _customer_csv(rows: _Rows, document) -> None:
    """The customer's copy: :data:`CUSTOMER_CSV_COLUMNS`, the total, terms and estimate note."""
    quote, priced = document.quote, document.priced
    name, address = customer_block(document)
    valid = f"valid until {quote.valid_until.isoformat()}"
    rows.row([f"Quote {quote.label}", name, valid, *(["\n".join(address)] if address else [])])
    rows.plain(CUSTOMER_CSV_COLUMNS)
    for line in customer_quote_lines(priced):
        rows.row(
            [
                line.part,
                line.description,
                line.quantity,
                NOT_PRICED
                if line.unit_sell is None
                else _csv_money(line.unit_sell, quote.currency),
                _csv_money(line.extended_sell, quote.currency),
            ]
        )
    rows.plain(["total", "", "", "", _csv_money(priced.sell_total, quote.currency), quote.currency])
    _closing_rows(rows, document, ESTIMATE_NOTE)


def _internal_csv(rows: _Rows, document) -> None:
    """The internal copy: :data:`CSV_COLUMNS`, the total (cost and sell), terms and note."""
    quote, priced = document.quote, document.priced
    name, address = customer_block(document)
    rows.row([f"Quote {quote.label}", name, *(["\n".join(address)] if address else [])])
    rows.plain(CSV_COLUMNS)
    for line in priced.lines:
        rows.row(_internal_line(line, quote.currency))
    total = [
        "total",
        *[""] * 11,
        _csv_money(priced.cost_total, quote.currency),
        "",
        _csv_money(priced.sell_total, quote.currency),
    ]
    rows.plain([*total, priced.status, f"{quote.currency}"])
    _closing_rows(rows, document, ESTIMATE_NOTE_INTERNAL)


def _internal_line(line, currency: str) -> list:
    """A priced line's cells, in the order of :data:`CSV_COLUMNS`."""
    bom_line = line.line
    return [
        bom_line.part,
        bom_line.part_number,
        bom_line.name,
        bom_line.manufacturer,
        bom_line.category,
        bom_line.tier,
        "" if bom_line.length_m is None else f"{bom_line.length_m:g}",
        bom_line.base_quantity,
        bom_line.spares,
        bom_line.quantity,
        _csv_money(line.unit_book, currency),
        str(line.discount_pct),
        _csv_money(line.unit_cost, currency),
        _csv_money(line.unit_sell, currency),
        _csv_money(line.extended_sell, currency),
        "priced" if line.priced else f"unpriced: {line.unpriced_reason}",
        price_source(line),
    ]


def _closing_rows(rows: _Rows, document, estimate_note: str) -> None:
    """The ``terms`` row when the quote has terms, the ``note`` row when a price is estimated."""
    terms = terms_text(document)
    if terms:
        rows.row(["terms", terms])
    if document.priced.estimated_lines:
        rows.row(["note", estimate_note])
