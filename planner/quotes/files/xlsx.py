"""The quote as an XLSX workbook (openpyxl): one sheet, "Quote".

Amounts are numbers in the currency's number format (:func:`money_format`); text cells are
strings, never formulas: text a user typed that begins with ``=``, ``+``, ``-``, ``@``, tab or
CR is written with a ``'`` before it (:func:`inventory.library.cells.safe_cell`).
"""

from __future__ import annotations

import io

from openpyxl import Workbook
from openpyxl.styles import Font

from inventory.library.cells import safe_cell
from planner.domain.outputs.quote import DISCOUNT_RULE, MARGIN_RULE, ROUNDING_RULE, minor_unit
from planner.quotes.files.content import (
    CUSTOMER,
    DASH,
    ESTIMATE_NOTE_INTERNAL,
    INTERNAL,
    INTERNAL_MARK,
    NOT_PRICED,
    check_audience,
    customer_block,
    customer_quote_lines,
    customer_terms,
    design_text,
    network_label,
    price_source,
    sent_gaps_text,
    terms_text,
    total_rows,
)


def money_format(currency: str) -> str:
    """The XLSX number format of ``currency``'s amounts: ``#,##0.00``, ``#,##0`` for JPY.

    >>> money_format("USD"), money_format("JPY"), money_format("KWD")
    ('#,##0.00', '#,##0', '#,##0.000')
    """
    places = minor_unit(currency)
    return "#,##0" + (f".{'0' * places}" if places else "")


def _append(sheet, values) -> None:
    """Append a row; text cells are neutralised (:func:`safe_cell`) and stored as strings, so
    no value a user typed (customer, notes, part names) becomes a formula. Numbers stay numbers.
    """
    values = [safe_cell(value) for value in values]
    sheet.append(values)
    for column, value in enumerate(values, start=1):
        if isinstance(value, str):
            sheet.cell(row=sheet.max_row, column=column).data_type = "s"


def _workbook_bytes(book: Workbook) -> bytes:
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def quote_xlsx(document, audience: str = INTERNAL) -> bytes:
    """The quote as an XLSX workbook for ``audience`` (:data:`AUDIENCES`): sheet "Quote".

    Amounts are numbers (two decimals, the same rounded figures as the PDF); an unpriced line
    has empty price cells, never a zero. The customer's copy has the columns Part, Description,
    Quantity, Unit price and Line total, then subtotals, the total and the terms; the internal
    one every figure of each line, the totals, cost and unpriced parts.
    """
    check_audience(audience)
    if audience == CUSTOMER:
        return _customer_xlsx(document)
    return _internal_xlsx(document)


def _customer_rows(document) -> list[tuple[str, str]]:
    """The customer's name, then each address line (the first labelled), as sheet rows."""
    name, address = customer_block(document)
    return [("Customer", name)] + [
        ("Address" if i == 0 else "", line) for i, line in enumerate(address)
    ]


def _append_labelled(sheet, rows, bold) -> None:
    """``(label, value)`` rows, each label in bold."""
    for label, value in rows:
        _append(sheet, [label, value])
        sheet.cell(row=sheet.max_row, column=1).font = bold


def _customer_xlsx(document) -> bytes:
    quote, priced = document.quote, document.priced
    book = Workbook()
    sheet = book.active
    sheet.title = "Quote"
    bold = Font(bold=True)
    header = [
        ("Quote", quote.label),
        *_customer_rows(document),
        ("Date", document.priced_on),
        ("Valid until", quote.valid_until),
        ("Currency", quote.currency),
    ]
    _append_labelled(sheet, header, bold)
    _append(sheet, [])
    currency = quote.currency
    _append(
        sheet,
        ["Part", "Description", "Quantity", f"Unit price ({currency})", f"Line total ({currency})"],
    )
    header_row = sheet.max_row
    for cell in sheet[header_row]:
        cell.font = bold
    for line in customer_quote_lines(priced):
        _append(
            sheet,
            [
                line.part,
                line.description,
                line.quantity,
                NOT_PRICED if line.unit_sell is None else line.unit_sell,
                line.extended_sell,
            ],
        )
        for column in (4, 5):
            sheet.cell(row=sheet.max_row, column=column).number_format = money_format(
                quote.currency
            )
    _append(sheet, [])
    for row in total_rows(priced, audience=CUSTOMER):
        _append(
            sheet, [row.label, row.note or None, None, None, row.amount if row.priced else DASH]
        )
        sheet.cell(row=sheet.max_row, column=5).number_format = money_format(quote.currency)
        if row.bold:
            sheet.cell(row=sheet.max_row, column=1).font = bold
            sheet.cell(row=sheet.max_row, column=5).font = bold
    _append(sheet, [])
    _append(sheet, ["Terms"])
    sheet.cell(row=sheet.max_row, column=1).font = bold
    for term in customer_terms(document):
        _append(sheet, [term])
    typed = terms_text(document)
    if typed:
        _append(sheet, [])
        for line in typed.splitlines():  # one row per line, as typed
            _append(sheet, [line or None])
    for column, width in {"A": 28, "B": 60, "C": 10, "D": 18, "E": 20}.items():
        sheet.column_dimensions[column].width = width
    sheet.freeze_panes = sheet.cell(row=header_row + 1, column=1)
    return _workbook_bytes(book)


#: Columns of the internal sheet, one row per line of the quote.
INTERNAL_COLUMNS = (
    "Part",
    "Part number",
    "Name",
    "Manufacturer",
    "Category",
    "Tier",
    "Length (m)",
    "Base quantity",
    "Spares",
    "Quantity",
    "Book price",
    "Discount %",
    "Unit cost",
    "Unit price",
    "Extended price",
    "Status",
    "Source",
)
_INTERNAL_MONEY_COLUMNS = (11, 13, 14, 15)  # book price, unit cost, unit price, extended price
_INTERNAL_SELL_COLUMN = 15  # where subtotals and the total go
_INTERNAL_COST_COLUMN = 13


def _internal_xlsx(document) -> bytes:
    """The internal copy: the quote's facts, every figure of each line, the subtotals and
    totals with the cost, then the estimate note, the unpriced parts, terms and notes."""
    book = Workbook()
    sheet = book.active
    sheet.title = "Quote"
    bold = Font(bold=True)
    _append_labelled(sheet, _internal_facts(document), bold)
    _append(sheet, [])
    _append(sheet, list(INTERNAL_COLUMNS))
    header_row = sheet.max_row
    for cell in sheet[header_row]:
        cell.font = bold
    _internal_lines(sheet, document)
    _append(sheet, [])
    _internal_totals(sheet, document, bold)
    _internal_after_totals(sheet, document, bold)
    widths = {"A": 28, "B": 18, "C": 36, "D": 14, "P": 40, "Q": 30}
    for column, width in widths.items():
        sheet.column_dimensions[column].width = width
    sheet.freeze_panes = sheet.cell(row=header_row + 1, column=1)
    return _workbook_bytes(book)


def _internal_facts(document) -> list[tuple]:
    """The ``(label, value)`` rows above the internal copy's lines."""
    quote, priced = document.quote, document.priced
    sent = sent_gaps_text(document)
    return [
        ("Quote", quote.label),
        ("Copy", INTERNAL_MARK),
        *_customer_rows(document),
        ("Design", design_text(document)),
        ("Date", document.priced_on),
        ("Valid until", quote.valid_until),
        ("Currency", quote.currency),
        ("Price book", f"{document.price_book_name} ({quote.price_condition} offers)"),
        ("Margin %", float(priced.margin_pct)),
        ("Status", priced.status),
        *([("Sent", sent)] if sent else []),
        ("Rules", f"{DISCOUNT_RULE} {MARGIN_RULE} {ROUNDING_RULE}"),
    ]


def _internal_lines(sheet, document) -> None:
    """One row of :data:`INTERNAL_COLUMNS` per line of the priced quote."""
    number_format = money_format(document.quote.currency)
    for line in document.priced.lines:
        bom_line = line.line
        _append(
            sheet,
            [
                bom_line.part,
                bom_line.part_number,
                bom_line.name,
                bom_line.manufacturer,
                bom_line.category,
                bom_line.tier,
                bom_line.length_m,
                bom_line.base_quantity,
                bom_line.spares,
                bom_line.quantity,
                line.unit_book,
                float(line.discount_pct),
                line.unit_cost,
                line.unit_sell,
                line.extended_sell,
                "priced" if line.priced else f"unpriced: {line.unpriced_reason}",
                price_source(line),
            ],
        )
        for column in _INTERNAL_MONEY_COLUMNS:
            sheet.cell(row=sheet.max_row, column=column).number_format = number_format


def _internal_totals(sheet, document, bold) -> None:
    """A subtotal row per category and per network, then the total (cost and sell)."""
    priced = document.priced
    number_format = money_format(document.quote.currency)
    subtotals = [(f"Subtotal {c.category}", c) for c in priced.categories] + [
        (f"Subtotal {network_label(n.category)} network", n) for n in priced.networks
    ]
    for label, group in subtotals:
        status = f"incomplete: {group.unpriced_lines} unpriced" if group.unpriced_lines else ""
        _append(sheet, [label, *[None] * 13, group.sell, status])
        sheet.cell(row=sheet.max_row, column=_INTERNAL_SELL_COLUMN).number_format = number_format
    _append(
        sheet, ["Total", *[None] * 11, priced.cost_total, None, priced.sell_total, priced.status]
    )
    total_row = sheet.max_row
    for column in (_INTERNAL_COST_COLUMN, _INTERNAL_SELL_COLUMN):
        sheet.cell(row=total_row, column=column).number_format = number_format
    sheet.cell(row=total_row, column=1).font = bold


def _internal_after_totals(sheet, document, bold) -> None:
    """Below the totals: the estimate note, the unpriced parts, the terms and the notes (each
    only when the quote has some)."""
    quote, priced = document.quote, document.priced
    if priced.estimated_lines:
        _append(sheet, [])
        _append(sheet, ["Note", ESTIMATE_NOTE_INTERNAL])
    if not priced.complete:
        _append(sheet, [])
        _append(sheet, ["Unpriced parts (not in the total)"])
        sheet.cell(row=sheet.max_row, column=1).font = bold
        for part in priced.unpriced_parts:
            _append(sheet, [part])
    if terms_text(document):
        _append(sheet, [])
        _append(sheet, ["Terms", terms_text(document)])
        sheet.cell(row=sheet.max_row, column=1).font = bold
    if quote.notes:
        _append(sheet, [])
        _append(sheet, ["Notes", quote.notes])
