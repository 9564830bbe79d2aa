"""A priced quote as files: PDF (fpdf2) for the customer, XLSX (openpyxl) to work with.

Both are made from one :class:`planner.quotes.QuoteDocument` and show the same figures: the
quote number, customer, validity, every line with its quantity (spares included), unit and
extended sell prices, category subtotals, the total, and the unpriced parts with the reason.
The XLSX adds the book price, discount and unit cost of each line (an internal sheet). Its
text cells are strings, never formulas: text that begins with ``=``, ``+``, ``-``, ``@``, tab
or CR is written with a ``'`` before it (:func:`planner.domain.outputs.cells.safe_cell`).

The PDF uses the PDF core font Helvetica, which covers Latin-1: other characters are written
as their nearest ASCII (dashes, quotes, arrows) or ``?``.
"""

from __future__ import annotations

import io
from decimal import Decimal

from fpdf import FPDF
from fpdf.fonts import FontFace
from openpyxl import Workbook
from openpyxl.styles import Font

from planner.domain.outputs.cells import safe_cell
from planner.domain.outputs.quote import DISCOUNT_RULE, MARGIN_RULE, ROUNDING_RULE

__all__ = ["pdf_text", "quote_pdf", "quote_xlsx"]

_ASCII = str.maketrans(
    {
        "−": "-",
        "–": "-",
        "—": "-",
        "‘": "'",
        "’": "'",
        "“": '"',
        "”": '"',
        "…": "...",
        "→": "->",
        "›": ">",
        "≤": "<=",
        "≥": ">=",
    }
)
MONEY_FORMAT = "#,##0.00"


def pdf_text(value) -> str:
    """``value`` as text the PDF core fonts can draw (Latin-1).

    >>> pdf_text("Müller – 2 × 400G → spine “A”")
    'Müller - 2 × 400G -> spine "A"'
    >>> pdf_text("東京")
    '??'
    """
    text = "" if value is None else str(value)
    return text.translate(_ASCII).encode("latin-1", "replace").decode("latin-1")


def _money(value: Decimal | None) -> str:
    return "unpriced" if value is None else f"{value:,.2f}"


def _length(value: float | None) -> str:
    return "" if value is None else f"{value:g} m"


class _QuotePDF(FPDF):
    def __init__(self, number: str):
        super().__init__(orientation="L", unit="mm", format="A4")
        self.number = number
        self.set_auto_page_break(auto=True, margin=14)

    def footer(self):
        self.set_y(-10)
        self.set_font("Helvetica", size=7)
        self.cell(0, 5, pdf_text(f"Quote {self.number} - page {self.page_no()}/{{nb}}"), align="C")


def quote_pdf(document) -> bytes:
    """The quote as a PDF (A4 landscape); ``document`` must carry prices."""
    quote, priced = document.quote, document.priced
    pdf = _QuotePDF(quote.number)
    pdf.set_title(pdf_text(f"Quote {quote.number}"))
    pdf.set_author(pdf_text("Fabric Planner"))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 9, pdf_text(f"Quote {quote.number}"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=9)
    facts = [
        ("Customer", quote.customer),
        ("Design", f"{quote.design.name}, revision {quote.revision.number}"),
        ("Date", document.priced_on.isoformat()),
        ("Valid until", quote.valid_until.isoformat()),
        ("Currency", quote.currency),
        ("Prices", f"{quote.price_book.name} ({quote.price_condition} offers)"),
        ("Status", priced.status),
    ]
    for label, value in facts:
        pdf.set_font("Helvetica", "B", 9)
        pdf.cell(28, 5, pdf_text(label))
        pdf.set_font("Helvetica", size=9)
        pdf.cell(0, 5, pdf_text(value), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)

    pdf.set_font("Helvetica", size=8)
    heading = FontFace(emphasis="BOLD", fill_color=(225, 229, 235))
    with pdf.table(
        col_widths=(40, 78, 22, 22, 14, 14, 14, 30, 33),
        text_align=("LEFT", "LEFT", "LEFT", "LEFT", "RIGHT", "RIGHT", "RIGHT", "RIGHT", "RIGHT"),
        headings_style=heading,
        line_height=4.5,
    ) as table:
        table.row(
            [
                "Part",
                "Description",
                "Category",
                "Tier",
                "Length",
                "Qty",
                "Spares",
                f"Unit ({quote.currency})",
                f"Extended ({quote.currency})",
            ]
        )
        for line in priced.lines:
            bom_line = line.line
            description = bom_line.name or bom_line.manufacturer
            if bom_line.part_number and bom_line.part_number != bom_line.part:
                description = f"{description} ({bom_line.part_number})"
            table.row(
                [
                    pdf_text(bom_line.part),
                    pdf_text(description),
                    bom_line.category,
                    bom_line.tier,
                    _length(bom_line.length_m),
                    f"{bom_line.quantity:,}",
                    f"{bom_line.spares:,}",
                    _money(line.unit_sell),
                    _money(line.extended_sell),
                ]
            )
    pdf.ln(3)

    pdf.set_font("Helvetica", "B", 10)
    pdf.cell(0, 6, "Totals", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=9)
    for category in priced.categories:
        missing = (
            f" (incomplete: {category.unpriced_lines} unpriced)" if category.unpriced_lines else ""
        )
        pdf.cell(60, 5, pdf_text(f"{category.category}{missing}"))
        pdf.cell(
            40,
            5,
            f"{category.sell:,.2f} {quote.currency}",
            align="R",
            new_x="LMARGIN",
            new_y="NEXT",
        )
    pdf.set_font("Helvetica", "B", 10)
    label = "Total" if priced.complete else f"Total of priced lines ({priced.status})"
    pdf.cell(60, 6, pdf_text(label))
    pdf.cell(
        40,
        6,
        f"{priced.sell_total:,.2f} {quote.currency}",
        align="R",
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.set_font("Helvetica", size=9)

    if not priced.complete:
        pdf.ln(2)
        pdf.set_font("Helvetica", "B", 10)
        pdf.cell(0, 6, "Unpriced parts (not in the total)", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=8)
        for line in priced.lines:
            if not line.priced:
                what = " ".join(bit for bit in (line.line.part, _length(line.line.length_m)) if bit)
                text = f"{what} x {line.line.quantity:,}: {line.unpriced_reason}"
                pdf.multi_cell(0, 4.5, pdf_text(text), new_x="LMARGIN", new_y="NEXT")
    if quote.notes:
        pdf.ln(2)
        pdf.set_font("Helvetica", "B", 10)
        pdf.cell(0, 6, "Notes", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=9)
        pdf.multi_cell(0, 4.5, pdf_text(quote.notes), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    pdf.set_font("Helvetica", "I", 7)
    pdf.multi_cell(0, 3.5, pdf_text(f"{ROUNDING_RULE} Quantities include spares."))
    return bytes(pdf.output())


def _append(sheet, values) -> None:
    """Append a row; text cells are neutralised (:func:`safe_cell`) and stored as strings, so
    no value a user typed (customer, notes, part names) becomes a formula. Numbers stay numbers.
    """
    values = [safe_cell(value) for value in values]
    sheet.append(values)
    for column, value in enumerate(values, start=1):
        if isinstance(value, str):
            sheet.cell(row=sheet.max_row, column=column).data_type = "s"


def quote_xlsx(document) -> bytes:
    """The quote as an XLSX workbook: sheet "Quote" (header, lines, totals, unpriced parts).

    Amounts are numbers (two decimals, the same rounded figures as the PDF); an unpriced line
    has empty price cells and "unpriced" in its status column, never a zero.
    """
    quote, priced = document.quote, document.priced
    book = Workbook()
    sheet = book.active
    sheet.title = "Quote"
    bold = Font(bold=True)
    header = [
        ("Quote", quote.number),
        ("Customer", quote.customer),
        ("Design", f"{quote.design.name}, revision {quote.revision.number}"),
        ("Date", document.priced_on),
        ("Valid until", quote.valid_until),
        ("Currency", quote.currency),
        ("Price book", f"{quote.price_book.name} ({quote.price_condition} offers)"),
        ("Margin %", float(priced.margin_pct)),
        ("Status", priced.status),
        ("Rules", f"{DISCOUNT_RULE} {MARGIN_RULE} {ROUNDING_RULE}"),
    ]
    for label, value in header:
        _append(sheet, [label, value])
        sheet.cell(row=sheet.max_row, column=1).font = bold
    _append(sheet, [])
    columns = [
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
    ]
    _append(sheet, columns)
    header_row = sheet.max_row
    for cell in sheet[header_row]:
        cell.font = bold
    for line in priced.lines:
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
                line.offer.describe() if line.offer else "",
            ],
        )
        for column in (11, 13, 14, 15):
            sheet.cell(row=sheet.max_row, column=column).number_format = MONEY_FORMAT
    _append(sheet, [])
    for category in priced.categories:
        status = (
            f"incomplete: {category.unpriced_lines} unpriced" if category.unpriced_lines else ""
        )
        _append(sheet, [f"Subtotal {category.category}", *[None] * 13, category.sell, status])
        sheet.cell(row=sheet.max_row, column=15).number_format = MONEY_FORMAT
    _append(
        sheet, ["Total", *[None] * 11, priced.cost_total, None, priced.sell_total, priced.status]
    )
    total_row = sheet.max_row
    for column in (13, 15):
        sheet.cell(row=total_row, column=column).number_format = MONEY_FORMAT
    sheet.cell(row=total_row, column=1).font = bold
    if not priced.complete:
        _append(sheet, [])
        _append(sheet, ["Unpriced parts (not in the total)"])
        sheet.cell(row=sheet.max_row, column=1).font = bold
        for part in priced.unpriced_parts:
            _append(sheet, [part])
    if quote.notes:
        _append(sheet, [])
        _append(sheet, ["Notes", quote.notes])
    widths = {"A": 28, "B": 18, "C": 36, "D": 14, "P": 40, "Q": 30}
    for column, width in widths.items():
        sheet.column_dimensions[column].width = width
    sheet.freeze_panes = sheet.cell(row=header_row + 1, column=1)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
