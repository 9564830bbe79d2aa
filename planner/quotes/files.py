"""A priced quote as files: PDF (fpdf2) for the customer, XLSX (openpyxl) and CSV to work with.

All are made from one :class:`planner.quotes.services.QuoteDocument` (a sent quote's: its
snapshot, so a file downloaded later is the one sent) and show the same figures: the quote
number and version, customer, validity, every line with its quantity (spares included), unit
and extended sell prices, category subtotals, the total, and the unpriced parts with the
reason. The XLSX and CSV add the book price, discount and unit cost of each line (internal).
Their text cells are strings, never formulas: text that begins with ``=``, ``+``, ``-``,
``@``, tab or CR is written with a ``'`` before it (:func:`inventory.library.cells.safe_cell`).

The PDF sets every text in DejaVu Sans (Latin, Greek, Cyrillic, Arabic, Hebrew), with Noto Sans
CJK as the fallback for Chinese, Japanese and Korean, both embedded (subset) in the file, and
shapes text with HarfBuzz so right-to-left names read right: any customer name prints as typed
(:func:`pdf_fonts`). Unpriced amounts print as "—" with the word "unpriced", never as a zero,
and the totals block is kept on one page.
"""

from __future__ import annotations

import csv
import functools
import importlib.util
import io
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import noto_cjk_sans_otc
from fontTools.ttLib import TTFont
from fpdf import FPDF
from fpdf.fonts import FontFace
from openpyxl import Workbook
from openpyxl.styles import Font

from inventory.library.cells import safe_cell
from planner.domain.outputs.quote import DISCOUNT_RULE, MARGIN_RULE, ROUNDING_RULE
from planner.presentation import NETWORK_LABELS

__all__ = ["PdfFonts", "pdf_fonts", "quote_csv", "quote_pdf", "quote_xlsx"]

MONEY_FORMAT = "#,##0.00"
DASH = "\u2014"  # "—": no amount (the line or category is unpriced)
FONT = "DejaVu"
CJK_FONT = "NotoSansCJK"
CJK_FACE = 0  # face of the Noto Sans CJK collection: JP (every CJK ideograph, kana and Hangul)


@dataclass(frozen=True)
class PdfFonts:
    """Font files of the quote PDF (all shipped by packages in requirements.lock).

    ``regular``, ``bold`` and ``italic`` are DejaVu Sans (static TrueType files in matplotlib's
    ``mpl-data``: found by path, matplotlib is never imported); ``cjk`` is the Noto Sans CJK
    collection of ``noto-cjk-sans-otc``; ``covered`` the code points DejaVu Sans draws.
    """

    regular: Path
    bold: Path
    italic: Path
    cjk: Path
    covered: frozenset[int]


@functools.cache
def pdf_fonts() -> PdfFonts:
    """The fonts the quote PDF embeds (looked up once per process).

    >>> fonts = pdf_fonts()
    >>> fonts.regular.name, ord("Ж") in fonts.covered, ord("東") in fonts.covered
    ('DejaVuSans.ttf', True, False)
    """
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("DejaVu Sans comes with matplotlib: pip install -r requirements.lock")
    ttf = Path(next(iter(spec.submodule_search_locations))) / "mpl-data" / "fonts" / "ttf"
    regular = ttf / "DejaVuSans.ttf"
    with TTFont(regular, lazy=True) as font:
        covered = frozenset(font.getBestCmap())
    return PdfFonts(
        regular=regular,
        bold=ttf / "DejaVuSans-Bold.ttf",
        italic=ttf / "DejaVuSans-Oblique.ttf",
        cjk=Path(str(noto_cjk_sans_otc.FONT_PATH)),
        covered=covered,
    )


def _text(value) -> str:
    return "" if value is None else str(value)


def _money(value: Decimal | None) -> str:
    return "unpriced" if value is None else f"{value:,.2f}"


def _amount(value: Decimal, currency: str, *, priced: bool) -> str:
    """A subtotal or total: "—" when nothing in it has a price (never "0.00")."""
    return f"{value:,.2f} {currency}" if priced else DASH


def _length(value: float | None) -> str:
    return "" if value is None else f"{value:g} m"


class _QuotePDF(FPDF):
    def __init__(self, number: str, *, texts):
        super().__init__(orientation="L", unit="mm", format="A4")
        self.number = number
        self.set_auto_page_break(auto=True, margin=14)
        fonts = pdf_fonts()
        self.add_font(FONT, "", fonts.regular)
        self.add_font(FONT, "B", fonts.bold)
        self.add_font(FONT, "I", fonts.italic)
        # The CJK collection is large (19 MB): open it only when a text needs it.
        if any(ord(char) not in fonts.covered for text in texts for char in text if char > "~"):
            self.add_font(CJK_FONT, "", fonts.cjk, collection_font_number=CJK_FACE)
            self.add_font(CJK_FONT, "B", fonts.cjk, collection_font_number=CJK_FACE)
            self.set_fallback_fonts([CJK_FONT], exact_match=False)
        self.set_text_shaping(True)  # Arabic joining, right-to-left order (HarfBuzz)

    def footer(self):
        self.set_y(-10)
        self.set_font(FONT, size=7)
        self.cell(0, 5, f"Quote {self.number} - page {self.page_no()}/{{nb}}", align="C")


def _texts(document):
    """Every user-typed or catalog text the PDF prints (to pick its fonts)."""
    quote, priced = document.quote, document.priced
    yield from (_text(quote.customer), _text(document.design_name), _text(quote.notes))
    yield _text(document.price_book_name)
    for line in priced.lines:
        bom_line = line.line
        yield from (_text(bom_line.part), _text(bom_line.name), _text(bom_line.manufacturer))
        yield from (_text(bom_line.part_number), _text(line.unpriced_reason))


# Totals block: label, amount, note (what is missing); widths in mm.
_TOTALS_WIDTHS = (62, 45, 100)


def network_label(network: str) -> str:
    """``compute`` -> "Compute", ``oob`` -> "Out-of-band management"."""
    return NETWORK_LABELS.get(network, network.capitalize())


def _totals_rows(priced, currency: str) -> list[tuple[str, str, str, str]]:
    """(style, label, amount, note) per row of the totals block."""
    rows = []
    networks = [(f"{network_label(n.category)} network", n) for n in priced.networks]
    for label, category in [(c.category, c) for c in priced.categories] + networks:
        priced_lines = category.lines - category.unpriced_lines
        if not priced_lines:
            note = "unpriced"
        elif category.unpriced_lines:
            note = f"incomplete: {category.unpriced_lines} unpriced"
        else:
            note = ""
        amount = _amount(category.sell, currency, priced=bool(priced_lines))
        rows.append(("", label, amount, note))
    any_priced = any(line.priced for line in priced.lines)
    label = "Total" if priced.complete else "Total of priced lines"
    note = "" if priced.complete else priced.status
    rows.append(("B", label, _amount(priced.sell_total, currency, priced=any_priced), note))
    return rows


def _totals(pdf: FPDF, priced, currency: str) -> None:
    """The totals block: one row per category and the total, each cell wrapping in its own
    column (a long label never runs into its amount); kept on one page."""
    line_height = 5
    rows = _totals_rows(priced, currency)
    heights = []
    for style, *cells in rows:
        pdf.set_font(FONT, style, 10 if style else 9)
        lines = max(
            len(pdf.multi_cell(width, line_height, text, dry_run=True, output="LINES"))
            for width, text in zip(_TOTALS_WIDTHS, cells, strict=True)
        )
        heights.append(lines * line_height)
    if pdf.get_y() + 6 + sum(heights) > pdf.page_break_trigger:
        pdf.add_page()
    pdf.set_font(FONT, "B", 10)
    pdf.cell(0, 6, "Totals", new_x="LMARGIN", new_y="NEXT")
    for (style, *cells), height in zip(rows, heights, strict=True):
        pdf.set_font(FONT, style, 10 if style else 9)
        top = pdf.get_y()
        for width, text, align in zip(_TOTALS_WIDTHS, cells, ("L", "R", "L"), strict=True):
            x = pdf.get_x()
            pdf.multi_cell(width, line_height, text, align=align, new_x="RIGHT", new_y="TOP")
            pdf.set_xy(x + width + (2 if align == "R" else 0), top)
        pdf.set_xy(pdf.l_margin, top + height)
    pdf.set_font(FONT, size=9)


def _design_text(document) -> str:
    return f"{document.design_name}, revision {document.revision_number}"


def quote_pdf(document) -> bytes:
    """The quote as a PDF (A4 landscape); ``document`` must carry prices."""
    quote, priced = document.quote, document.priced
    pdf = _QuotePDF(quote.label, texts=_texts(document))
    pdf.set_title(f"Quote {quote.label}")
    pdf.set_author("Fabric Planner")
    if document.frozen and document.quote.sent_at:
        pdf.set_creation_date(document.quote.sent_at)  # the same file at every download
    pdf.add_page()
    pdf.set_font(FONT, "B", 16)
    pdf.cell(0, 9, f"Quote {quote.label}", new_x="LMARGIN", new_y="NEXT")
    facts = [
        ("Customer", quote.customer),
        ("Design", _design_text(document)),
        ("Date", document.priced_on.isoformat()),
        ("Valid until", quote.valid_until.isoformat()),
        ("Currency", quote.currency),
        ("Prices", f"{document.price_book_name} ({quote.price_condition} offers)"),
        ("Status", priced.status),
    ]
    for label, value in facts:
        pdf.set_font(FONT, "B", 9)
        pdf.cell(28, 5, label)
        pdf.set_font(FONT, size=9)
        pdf.multi_cell(0, 5, _text(value), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)

    pdf.set_font(FONT, size=8)
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
                    _text(bom_line.part),
                    _text(description),
                    bom_line.category,
                    bom_line.tier,
                    _length(bom_line.length_m),
                    f"{bom_line.quantity:,}",
                    f"{bom_line.spares:,}",
                    DASH if line.unit_sell is None else _money(line.unit_sell),
                    _money(line.extended_sell),
                ]
            )
    pdf.ln(3)
    _totals(pdf, priced, quote.currency)

    if not priced.complete:
        pdf.ln(2)
        pdf.set_font(FONT, "B", 10)
        pdf.cell(0, 6, "Unpriced parts (not in the total)", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font(FONT, size=8)
        for line in priced.lines:
            if not line.priced:
                what = " ".join(bit for bit in (line.line.part, _length(line.line.length_m)) if bit)
                text = f"{what} x {line.line.quantity:,}: {line.unpriced_reason}"
                pdf.multi_cell(0, 4.5, text, new_x="LMARGIN", new_y="NEXT")
    if quote.notes:
        pdf.ln(2)
        pdf.set_font(FONT, "B", 10)
        pdf.cell(0, 6, "Notes", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font(FONT, size=9)
        pdf.multi_cell(0, 4.5, _text(quote.notes), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    pdf.set_font(FONT, "I", 7)
    pdf.multi_cell(0, 3.5, f"{ROUNDING_RULE} Quantities include spares.")
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
        ("Quote", quote.label),
        ("Customer", quote.customer),
        ("Design", _design_text(document)),
        ("Date", document.priced_on),
        ("Valid until", quote.valid_until),
        ("Currency", quote.currency),
        ("Price book", f"{document.price_book_name} ({quote.price_condition} offers)"),
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
    for network in priced.networks:
        status = f"incomplete: {network.unpriced_lines} unpriced" if network.unpriced_lines else ""
        label = f"Subtotal {network_label(network.category)} network"
        _append(sheet, [label, *[None] * 13, network.sell, status])
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


#: Columns of the CSV file, one row per line of the quote.
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


def quote_csv(document) -> bytes:
    """The quote's lines as CSV (UTF-8): :data:`CSV_COLUMNS`, amounts with two decimals and no
    thousands separator, an unpriced line with empty price cells and ``unpriced: <reason>``;
    then one ``total`` row (sell total in ``extended_price``, cost total in ``unit_cost``)."""
    quote, priced = document.quote, document.priced
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")

    def money(value: Decimal | None) -> str:
        return "" if value is None else f"{value:.2f}"

    writer.writerow([safe_cell(f"Quote {quote.label}"), safe_cell(quote.customer)])
    writer.writerow(CSV_COLUMNS)
    for line in priced.lines:
        bom_line = line.line
        row = [
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
            money(line.unit_book),
            str(line.discount_pct),
            money(line.unit_cost),
            money(line.unit_sell),
            money(line.extended_sell),
            "priced" if line.priced else f"unpriced: {line.unpriced_reason}",
            line.offer.describe() if line.offer else "",
        ]
        writer.writerow([safe_cell(value) if isinstance(value, str) else value for value in row])
    total = ["total", *[""] * 11, money(priced.cost_total), "", money(priced.sell_total)]
    writer.writerow([*total, priced.status, f"{quote.currency}"])
    return out.getvalue().encode()
