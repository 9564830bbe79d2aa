"""A priced quote as files: PDF (fpdf2), XLSX (openpyxl) and CSV, each in two versions.

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

import csv
import functools
import io
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from fontTools.ttLib import TTFont
from fpdf import FPDF
from fpdf.fonts import FontFace
from openpyxl import Workbook
from openpyxl.styles import Font

from inventory.library.cells import safe_cell
from planner.domain.outputs.quote import (
    DISCOUNT_RULE,
    MARGIN_RULE,
    ROUNDING_RULE,
    format_money,
    minor_unit,
)
from planner.presentation import NETWORK_LABELS, money_text
from planner.quotes.fonts import font_files
from planner.quotes.models import address_lines

__all__ = [
    "AUDIENCES",
    "CUSTOMER",
    "CustomerLine",
    "INTERNAL",
    "PdfFonts",
    "customer_block",
    "TotalRow",
    "pdf_fonts",
    "quote_csv",
    "quote_file",
    "quote_pdf",
    "quote_xlsx",
    "customer_quote_lines",
    "total_rows",
]

DASH = "\u2014"  # "—": no amount (the line or category is unpriced)
FONT = "DejaVu"
CJK_FONT = "NotoSansCJK"
CJK_FACE = 0  # face of the Noto Sans CJK collection: JP (every CJK ideograph, kana and Hangul)


@dataclass(frozen=True)
class PdfFonts:
    """Font files of the quote PDF (from the operating system's font packages).

    ``regular``, ``bold`` and ``italic`` are DejaVu Sans; ``cjk`` is the Noto Sans CJK
    collection; ``covered`` the code points DejaVu Sans draws. Where they are looked for, and
    what to install: :mod:`planner.quotes.fonts`.
    """

    regular: Path
    bold: Path
    italic: Path
    cjk: Path
    covered: frozenset[int]


@functools.cache
def pdf_fonts() -> PdfFonts:
    """The fonts the quote PDF embeds (looked up once per process).

    Raises :class:`planner.quotes.fonts.FontsMissing` (naming the packages) when one is not
    installed.

    >>> fonts = pdf_fonts()
    >>> fonts.regular.name, ord("Ж") in fonts.covered, ord("東") in fonts.covered
    ('DejaVuSans.ttf', True, False)
    """
    files = font_files()
    with TTFont(files["regular"], lazy=True) as font:
        covered = frozenset(font.getBestCmap())
    return PdfFonts(
        regular=files["regular"],
        bold=files["bold"],
        italic=files["italic"],
        cjk=files["cjk"],
        covered=covered,
    )


#: Who a quote file is for (the ``audience`` of a download): its version.
CUSTOMER = "customer"
INTERNAL = "internal"
AUDIENCES = {
    CUSTOMER: "the customer's copy: part, description, quantity, unit price and line total per "
    "line, totals and terms; no cost, discount, margin or offer source",
    INTERNAL: "the sales team's copy: everything, with book price, discount, unit cost, margin, "
    "offer source and internal notes",
}
#: Printed on every page of an internal PDF and at the top of an internal XLSX.
INTERNAL_MARK = "Internal: costs, discounts and sources. Not for the customer."
#: Subtotal labels of the customer's copy (the internal one shows the category names).
CATEGORY_LABELS = {
    "server": "Servers",
    "management": "Management systems",
    "pdu": "Rack PDUs",
    "switch": "Switches",
    "psu": "Power supplies",
    "nic": "NICs",
    "transceiver": "Transceivers",
    "cable": "Cables",
    "fiber": "Fibers",
    "rack": "Racks",
}
NOT_PRICED = "not priced"  # a line without a price, in the customer's copy
#: The mark of a line priced from an estimate (an offer graded ``estimate``), on every copy.
ESTIMATE_MARK = "\u2020"
#: The footnote of the mark: the customer's copy, and the internal one (whose source column
#: gives each estimate's basis).
ESTIMATE_NOTE = (
    f"{ESTIMATE_MARK} Estimated price: no public price of this part was found; the price is an "
    "estimate on a stated basis (the nearest model or length priced), not an offer."
)
ESTIMATE_NOTE_INTERNAL = (
    f"{ESTIMATE_MARK} Estimated price (the offer is graded estimate): its basis is in the "
    "source column. Confirm it with the vendor before the quote is final."
)


def is_estimated(line) -> bool:
    """Whether a priced line's price is an estimate (:attr:`PriceOffer.estimated`)."""
    return line.offer is not None and line.offer.estimated


def _text(value) -> str:
    return "" if value is None else str(value)


def _money(value: Decimal | None, currency: str) -> str:
    """An amount with thousands separators and the places of ``currency``'s minor unit
    (``12,345.60`` USD, ``12,346`` JPY), as on the quote page; ``unpriced`` for none."""
    return "unpriced" if value is None else money_text(value, currency)


def _amount(value: Decimal, currency: str, *, priced: bool) -> str:
    """A subtotal or total: "—" when nothing in it has a price (never "0.00")."""
    return f"{money_text(value, currency)} {currency}" if priced else DASH


def money_format(currency: str) -> str:
    """The XLSX number format of ``currency``'s amounts: ``#,##0.00``, ``#,##0`` for JPY.

    >>> money_format("USD"), money_format("JPY"), money_format("KWD")
    ('#,##0.00', '#,##0', '#,##0.000')
    """
    places = minor_unit(currency)
    return "#,##0" + (f".{'0' * places}" if places else "")


def _source(line) -> str:
    """Where a line's price comes from (internal copy): the offer's seller and date, and the
    exchange rate that converted it into the quote's currency."""
    if line.offer is None:
        return ""
    offer = line.offer
    text = offer.describe()
    if offer.estimated:
        text = f"{ESTIMATE_MARK} estimate: {offer.note or text}"
    if line.rate is None:
        return text
    return f"{text}; {offer.amount} {offer.currency} at {line.rate.describe()}"


def _length(value: float | None) -> str:
    return "" if value is None else f"{value:g} m"


def customer_block(document) -> tuple[str, list[str]]:
    """The customer's name and the lines of the address (blank ones left out) of ``document``
    (a sent quote's: as sent)."""
    return _text(document.customer_name).strip(), address_lines(document.customer_address)


def sent_gaps_text(document) -> str:
    """For the internal copy only: how many lines a sent quote lacked prices for (or priced
    from an estimate), and who confirmed sending it so, when; "" when it had none or is a
    draft. Never printed on the customer's copy."""
    gaps = (document.quote.snapshot or {}).get("gaps") if document.frozen else None
    if not gaps:
        return ""
    bits = []
    if gaps["unpriced_lines"]:
        bits.append(
            f"{gaps['unpriced_lines']:,} of {gaps['lines']:,} lines unpriced (the total is partial)"
        )
    if gaps["estimated_lines"]:
        count = gaps["estimated_lines"]
        bits.append(f"{count:,} line{'s' if count != 1 else ''} priced from an estimate")
    text = f"Sent with {' and '.join(bits)}"
    if gaps.get("unpriced_confirmed"):
        at = gaps["at"][:16].replace("T", " ")
        text += f"; confirmed by {_text(gaps['by']) or 'an unknown user'} on {at} UTC"
    return text + "."


def terms_text(document) -> str:
    """The quote's own terms for the customer (payment, delivery, warranty), "" for none."""
    return _text(document.terms).strip()


def line_description(bom_line, *, with_length: bool = False, shown: str | None = None) -> str:
    """A line's name (or maker), its part number when it differs from the part ``shown`` next
    to it (the catalog part by default), and, when asked, its ordered length:
    ``"NVIDIA 400G cable (MCP4Y10-N003), 3 m"``."""
    description = bom_line.name or bom_line.manufacturer
    shown = bom_line.part if shown is None else shown
    if bom_line.part_number and bom_line.part_number != shown:
        description = f"{description} ({bom_line.part_number})"
    if with_length and bom_line.length_m is not None:
        description = f"{description}, {_length(bom_line.length_m)}"
    return _text(description)


@dataclass(frozen=True)
class CustomerLine:
    """A line of the customer's copy: one orderable item (a part at one length, ``part`` its
    orderable part number when the catalog has one), its tiers added together. ``unit_sell``
    and ``extended_sell`` are ``None`` when it has no price."""

    part: str
    description: str
    quantity: int
    unit_sell: Decimal | None
    extended_sell: Decimal | None
    estimated: bool = False  # priced from an estimate (its description ends with the mark)


def customer_quote_lines(priced) -> list[CustomerLine]:
    """The lines of the customer's copy: the priced quote's lines of one part at one length
    (and one unit price) as one line, in the order they first come; quantities and line
    totals add up (a unit price times the summed quantity is the sum of the line totals).

    The customer is not told which tier of the fabric a part goes to (the internal copy is).
    """
    merged: dict[tuple, list] = {}
    for line in priced.lines:
        bom_line = line.line
        key = (bom_line.part, bom_line.length_m, line.unit_sell)
        if key not in merged:
            # the part number to order (a cable's is that of its length), else the part
            part = bom_line.part_number or bom_line.part
            description = line_description(bom_line, with_length=True, shown=part)
            if is_estimated(line):
                description = f"{description} {ESTIMATE_MARK}"
            merged[key] = [part, description, 0, line.unit_sell, None, is_estimated(line)]
        item = merged[key]
        item[2] += bom_line.quantity
        if line.extended_sell is not None:
            item[4] = (item[4] or Decimal("0.00")) + line.extended_sell
    return [CustomerLine(*item) for item in merged.values()]


def file_suffix(audience: str) -> str:
    """What a file name gets for ``audience``: ``-customer`` for the customer's copy (the
    internal one keeps the plain name it always had)."""
    return "-customer" if audience == CUSTOMER else ""


def _check_audience(audience: str) -> None:
    if audience not in AUDIENCES:
        raise ValueError(f"audience: use {' or '.join(AUDIENCES)}, not {audience!r}")


class _QuotePDF(FPDF):
    """A4 page with a footer on every page: ``footer`` and "Page 2 of 3"."""

    def __init__(self, footer: str, *, texts, orientation: str = "L"):
        super().__init__(orientation=orientation, unit="mm", format="A4")
        self.footer_text = footer
        self.set_auto_page_break(auto=True, margin=14)
        fonts = pdf_fonts()
        self.add_font(FONT, "", fonts.regular)
        self.add_font(FONT, "B", fonts.bold)
        self.add_font(FONT, "I", fonts.italic)
        beyond_ascii = {char for text in texts for char in text if char > "~"}
        # The CJK collection is large (19 MB): open it only when a text needs it.
        if any(ord(char) not in fonts.covered for char in beyond_ascii):
            self.add_font(CJK_FONT, "", fonts.cjk, collection_font_number=CJK_FACE)
            self.add_font(CJK_FONT, "B", fonts.cjk, collection_font_number=CJK_FACE)
            self.set_fallback_fonts([CJK_FONT], exact_match=False)
        # HarfBuzz only where a text needs it: it shapes every cell, a quarter of a PDF's time.
        self.set_text_shaping(any(map(_needs_shaping, beyond_ascii)))

    def footer(self):
        self.set_y(-10)
        self.set_font(FONT, size=7)
        self.set_text_color(80)
        text = f"{self.footer_text} \u00b7 Page {self.page_no()} of {{nb}}"
        self.cell(0, 5, text, align="C")
        self.set_text_color(0)

    def keep_together(self, height: float) -> None:
        """Start a new page unless ``height`` mm still fit on this one."""
        if self.get_y() + height > self.page_break_trigger:
            self.add_page()


#: Unicode bidirectional classes and mark categories that need text shaping.
_RIGHT_TO_LEFT = frozenset({"R", "AL", "AN"})
_COMBINING_MARKS = frozenset({"Mn", "Mc", "Me"})


def _needs_shaping(char: str) -> bool:
    """Whether ``char`` needs text shaping to print right: right-to-left order and Arabic
    joining, or a combining mark (Indic and Thai vowels, accents typed apart).

    >>> [_needs_shaping(c) for c in ("é", "Ж", "東", "ب", "א", "\u0301", "ि")]
    [False, False, False, True, True, True, True]
    """
    return (
        unicodedata.bidirectional(char) in _RIGHT_TO_LEFT
        or unicodedata.category(char) in _COMBINING_MARKS
    )


def _texts(document):
    """Every user-typed or catalog text the PDF prints (to pick its fonts)."""
    quote, priced = document.quote, document.priced
    yield from (_text(document.customer_name), _text(document.customer_address))
    yield from (_text(document.terms), _text(document.design_name), _text(quote.notes))
    yield _text(document.price_book_name)
    for line in priced.lines:
        bom_line = line.line
        yield from (_text(bom_line.part), _text(bom_line.name), _text(bom_line.manufacturer))
        yield from (_text(bom_line.part_number), _text(line.unpriced_reason))
        if line.offer is not None:
            yield _source(line)


def network_label(network: str) -> str:
    """``compute`` -> "Compute", ``oob`` -> "Out-of-band management"."""
    return NETWORK_LABELS.get(network, network.capitalize())


@dataclass(frozen=True)
class TotalRow:
    """A row of the totals block: a category or network subtotal, the total, or (internal
    copy) the cost and margin. ``priced`` is false when nothing in it has a price: its amount
    is then shown as "—", never as 0.00."""

    label: str
    amount: Decimal
    priced: bool
    note: str = ""
    bold: bool = False


def total_rows(priced, *, audience: str) -> list[TotalRow]:
    """The totals block of ``audience``'s copy: category and network subtotals and the total;
    the internal copy adds the cost and the margin."""
    customer = audience == CUSTOMER
    rows = []
    categories = [
        (CATEGORY_LABELS.get(c.category, c.category) if customer else c.category, c)
        for c in priced.categories
    ]
    networks = [(f"{network_label(n.category)} network", n) for n in priced.networks]
    for label, category in categories + networks:
        priced_lines = category.lines - category.unpriced_lines
        if not priced_lines:
            note = NOT_PRICED if customer else "unpriced"
        elif category.unpriced_lines and customer:
            note = f"excludes lines {NOT_PRICED}"
        elif category.unpriced_lines:
            note = f"incomplete: {category.unpriced_lines} unpriced"
        else:
            note = ""
        rows.append(TotalRow(label, category.sell, bool(priced_lines), note))
    any_priced = any(line.priced for line in priced.lines)
    label = "Total" if priced.complete else "Total of priced lines"
    # The customer's copy says it in its label and terms.
    note = "" if priced.complete or customer else priced.status
    rows.append(TotalRow(label, priced.sell_total, any_priced, note, bold=True))
    if not customer and any_priced:
        margin = f"{priced.margin_pct} % of the sell price (quote terms)"
        rows.append(TotalRow("Cost", priced.cost_total, True))
        rows.append(TotalRow("Margin", priced.margin_total, True, margin))
    return rows


def _totals(pdf: _QuotePDF, totals: list[TotalRow], currency: str, widths) -> None:
    """The totals block: one row per subtotal and the total, each cell wrapping in its own
    column (a long label never runs into its amount); kept on one page. ``widths``: label,
    amount and note columns in mm."""
    line_height = 5
    rows = [
        (
            "B" if row.bold else "",
            row.label,
            _amount(row.amount, currency, priced=row.priced),
            row.note,
        )
        for row in totals
    ]
    heights = []
    for style, *cells in rows:
        pdf.set_font(FONT, style, 10 if style else 9)
        lines = max(
            len(pdf.multi_cell(width, line_height, text, dry_run=True, output="LINES"))
            for width, text in zip(widths, cells, strict=True)
        )
        heights.append(lines * line_height)
    pdf.keep_together(6 + sum(heights))
    pdf.set_font(FONT, "B", 10)
    pdf.cell(0, 6, "Totals", new_x="LMARGIN", new_y="NEXT")
    for (style, *cells), height in zip(rows, heights, strict=True):
        pdf.set_font(FONT, style, 10 if style else 9)
        top = pdf.get_y()
        for width, text, align in zip(widths, cells, ("L", "R", "L"), strict=True):
            x = pdf.get_x()
            pdf.multi_cell(width, line_height, text, align=align, new_x="RIGHT", new_y="TOP")
            pdf.set_xy(x + width + (2 if align == "R" else 0), top)
        pdf.set_xy(pdf.l_margin, top + height)
    pdf.set_font(FONT, size=9)


def _design_text(document) -> str:
    return f"{document.design_name}, revision {document.revision_number}"


def customer_terms(document) -> list[str]:
    """The terms printed on the customer's copy (what the figures mean and how long they hold)."""
    quote, priced = document.quote, document.priced
    terms = [
        f"Prices are in {quote.currency} and valid until {quote.valid_until.isoformat()} "
        f"(quote {quote.label}).",
        "Quantities include spares.",
        "Each line total is the quantity times the unit price; the total is the sum of the "
        "line totals.",
    ]
    if not priced.complete:
        terms.append(
            f'Lines marked "{NOT_PRICED}" have no price in this quote and are not in the total.'
        )
    if priced.estimated_lines:
        terms.append(ESTIMATE_NOTE)
    return terms


def _heading(pdf: FPDF, text: str) -> None:
    pdf.set_font(FONT, "B", 10)
    pdf.cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")


def _paragraphs(pdf: FPDF, texts: list[str], *, size: float = 9, height: float = 4.5) -> None:
    pdf.set_font(FONT, size=size)
    for text in texts:
        pdf.multi_cell(0, height, text, new_x="LMARGIN", new_y="NEXT")


def _paragraphs_height(pdf: FPDF, texts: list[str], *, size: float = 9, height: float = 4.5):
    pdf.set_font(FONT, size=size)
    width = pdf.epw
    return sum(
        height * len(pdf.multi_cell(width, height, text, dry_run=True, output="LINES"))
        for text in texts
    )


def _new_pdf(document, footer: str, *, orientation: str) -> _QuotePDF:
    quote = document.quote
    pdf = _QuotePDF(footer, texts=_texts(document), orientation=orientation)
    pdf.set_title(f"Quote {quote.label}")
    pdf.set_author("Fabric Planner")
    if document.frozen and quote.sent_at:
        pdf.set_creation_date(quote.sent_at)  # the same file at every download
    return pdf


#: Columns of the customer's PDF (A4 portrait, 190 mm): heading, width in mm, alignment.
CUSTOMER_COLUMNS = (
    ("Part", 36, "LEFT"),
    ("Description", 68, "LEFT"),
    ("Quantity", 20, "RIGHT"),
    ("Unit price", 31, "RIGHT"),
    ("Line total", 35, "RIGHT"),
)
#: Columns of the internal PDF (A4 landscape, 277 mm).
INTERNAL_COLUMNS = (
    ("Part", 30, "LEFT"),
    ("Description", 46, "LEFT"),
    ("Category", 18, "LEFT"),
    ("Tier", 18, "LEFT"),
    ("Length", 12, "RIGHT"),
    ("Qty", 11, "RIGHT"),
    ("Spares", 12, "RIGHT"),
    ("Book price", 21, "RIGHT"),
    ("Disc. %", 11, "RIGHT"),
    ("Unit cost", 21, "RIGHT"),
    ("Unit price", 21, "RIGHT"),
    ("Line total", 24, "RIGHT"),
    ("Source", 32, "LEFT"),
)
_PRICED_HEADINGS = {"Book price", "Unit cost", "Unit price", "Line total"}
_HEADING_STYLE = FontFace(emphasis="BOLD", fill_color=(225, 229, 235))


def _lines_table(pdf: FPDF, columns, rows, *, currency: str, size: float, height: float):
    pdf.set_font(FONT, size=size)
    with pdf.table(
        col_widths=[width for _, width, _ in columns],
        text_align=[align for _, _, align in columns],
        headings_style=_HEADING_STYLE,
        line_height=height,
        v_align="TOP",
    ) as table:
        table.row(
            [f"{name} ({currency})" if name in _PRICED_HEADINGS else name for name, *_ in columns]
        )
        for row in rows:
            table.row(row)


def quote_pdf(document, audience: str = INTERNAL) -> bytes:
    """The quote as a PDF for ``audience`` (:data:`AUDIENCES`); ``document`` must carry prices.

    The customer's copy is A4 portrait, the internal one A4 landscape (more columns).
    """
    _check_audience(audience)
    if audience == CUSTOMER:
        return _customer_pdf(document)
    return _internal_pdf(document)


def _customer_pdf(document) -> bytes:
    quote, priced = document.quote, document.priced
    footer = f"Quote {quote.label} \u00b7 valid until {quote.valid_until.isoformat()}"
    pdf = _new_pdf(document, footer, orientation="P")
    pdf.add_page()
    pdf.set_font(FONT, "B", 18)
    pdf.cell(0, 10, f"Quote {quote.label}", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    top = pdf.get_y()
    name, address = customer_block(document)
    pdf.set_font(FONT, size=8)
    pdf.set_text_color(80)
    pdf.cell(100, 5, "Customer", new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0)
    pdf.set_font(FONT, "B", 11)
    pdf.multi_cell(100, 5.5, name, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(FONT, size=10)
    for line in address:
        pdf.multi_cell(100, 5, line, new_x="LMARGIN", new_y="NEXT")
    bottom = pdf.get_y()
    facts = [
        ("Date", document.priced_on.isoformat()),
        ("Valid until", quote.valid_until.isoformat()),
        ("Currency", quote.currency),
    ]
    pdf.set_y(top)
    for label, value in facts:
        pdf.set_x(pdf.l_margin + 115)
        pdf.set_font(FONT, "B", 9)
        pdf.cell(25, 5.5, label)
        pdf.set_font(FONT, size=9)
        pdf.multi_cell(50, 5.5, value, new_x="LMARGIN", new_y="NEXT")
    pdf.set_y(max(bottom, pdf.get_y()) + 6)

    rows = [
        [
            _text(line.part),
            line.description,
            f"{line.quantity:,}",
            DASH if line.unit_sell is None else _money(line.unit_sell, quote.currency),
            NOT_PRICED
            if line.extended_sell is None
            else _money(line.extended_sell, quote.currency),
        ]
        for line in customer_quote_lines(priced)
    ]
    _lines_table(pdf, CUSTOMER_COLUMNS, rows, currency=quote.currency, size=8.5, height=4.6)
    pdf.ln(4)
    _totals(pdf, total_rows(priced, audience=CUSTOMER), quote.currency, (70, 50, 70))
    pdf.ln(4)
    _terms_section(pdf, customer_terms(document), terms_text(document))
    return bytes(pdf.output())


def _terms_section(pdf: _QuotePDF, boilerplate: list[str], terms: str) -> None:
    """The "Terms" heading, ``boilerplate`` (what the figures mean) and then the quote's own
    ``terms`` as typed, when given. Kept on one page when it fits on one; a longer text
    continues on the next page (the heading and the boilerplate stay together)."""
    typed = [terms] if terms else []
    head = 6 + _paragraphs_height(pdf, boilerplate)
    whole = head + (2 + _paragraphs_height(pdf, typed) if typed else 0)
    fits = whole <= pdf.page_break_trigger - pdf.t_margin
    pdf.keep_together(whole if fits else head)
    _heading(pdf, "Terms")
    _paragraphs(pdf, boilerplate)
    if typed:
        pdf.ln(2)
        _paragraphs(pdf, typed)


def _internal_pdf(document) -> bytes:
    quote, priced = document.quote, document.priced
    pdf = _new_pdf(document, f"Quote {quote.label} \u00b7 {INTERNAL_MARK}", orientation="L")
    pdf.add_page()
    pdf.set_font(FONT, "B", 16)
    pdf.cell(0, 9, f"Quote {quote.label} (internal)", new_x="LMARGIN", new_y="NEXT")
    discounts = ", ".join(f"{k} {v} %" for k, v in priced.discounts_pct.items() if v) or "none"
    name, address = customer_block(document)
    facts = [
        ("Customer", name),
        *([("Address", "\n".join(address))] if address else []),
        ("Design", _design_text(document)),
        ("Date", document.priced_on.isoformat()),
        ("Valid until", quote.valid_until.isoformat()),
        ("Currency", quote.currency),
        ("Prices", f"{document.price_book_name} ({quote.price_condition} offers)"),
        ("Pricing", f"margin {priced.margin_pct} %; discounts: {discounts}"),
        ("Status", priced.status),
        *([("Sent", sent_gaps_text(document))] if sent_gaps_text(document) else []),
    ]
    for label, value in facts:
        pdf.set_font(FONT, "B", 9)
        pdf.cell(28, 5, label)
        pdf.set_font(FONT, size=9)
        pdf.multi_cell(0, 5, _text(value), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)

    rows = []
    for line in priced.lines:
        bom_line = line.line
        rows.append(
            [
                _text(bom_line.part),
                line_description(bom_line),
                bom_line.category,
                bom_line.tier,
                _length(bom_line.length_m),
                f"{bom_line.quantity:,}",
                f"{bom_line.spares:,}",
                DASH if line.unit_book is None else _money(line.unit_book, quote.currency),
                f"{line.discount_pct}" if line.priced else "",
                DASH if line.unit_cost is None else _money(line.unit_cost, quote.currency),
                DASH if line.unit_sell is None else _money(line.unit_sell, quote.currency),
                _money(line.extended_sell, quote.currency),
                _source(line),
            ]
        )
    _lines_table(pdf, INTERNAL_COLUMNS, rows, currency=quote.currency, size=7, height=3.8)
    pdf.ln(3)
    _totals(pdf, total_rows(priced, audience=INTERNAL), quote.currency, (62, 45, 100))
    if priced.estimated_lines:
        pdf.ln(2)
        _paragraphs(pdf, [ESTIMATE_NOTE_INTERNAL], size=8)

    if not priced.complete:
        pdf.ln(2)
        _heading(pdf, "Unpriced parts (not in the total)")
        texts = []
        for line in priced.lines:
            if not line.priced:
                what = " ".join(bit for bit in (line.line.part, _length(line.line.length_m)) if bit)
                texts.append(f"{what} x {line.line.quantity:,}: {line.unpriced_reason}")
        _paragraphs(pdf, texts, size=8)
    if terms_text(document):
        pdf.ln(2)
        _heading(pdf, "Terms (printed on the customer's copy)")
        _paragraphs(pdf, [terms_text(document)])
    if quote.notes:
        pdf.ln(2)
        _heading(pdf, "Notes")
        _paragraphs(pdf, [_text(quote.notes)])
    pdf.ln(2)
    pdf.set_font(FONT, "I", 7)
    rules = f"{DISCOUNT_RULE} {MARGIN_RULE} {ROUNDING_RULE} Quantities include spares."
    pdf.multi_cell(0, 3.5, rules)
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
    _check_audience(audience)
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


def _internal_xlsx(document) -> bytes:
    quote, priced = document.quote, document.priced
    book = Workbook()
    sheet = book.active
    sheet.title = "Quote"
    bold = Font(bold=True)
    header = [
        ("Quote", quote.label),
        ("Copy", INTERNAL_MARK),
        *_customer_rows(document),
        ("Design", _design_text(document)),
        ("Date", document.priced_on),
        ("Valid until", quote.valid_until),
        ("Currency", quote.currency),
        ("Price book", f"{document.price_book_name} ({quote.price_condition} offers)"),
        ("Margin %", float(priced.margin_pct)),
        ("Status", priced.status),
        *([("Sent", sent_gaps_text(document))] if sent_gaps_text(document) else []),
        ("Rules", f"{DISCOUNT_RULE} {MARGIN_RULE} {ROUNDING_RULE}"),
    ]
    _append_labelled(sheet, header, bold)
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
                _source(line),
            ],
        )
        for column in (11, 13, 14, 15):
            sheet.cell(row=sheet.max_row, column=column).number_format = money_format(
                quote.currency
            )
    _append(sheet, [])
    for category in priced.categories:
        status = (
            f"incomplete: {category.unpriced_lines} unpriced" if category.unpriced_lines else ""
        )
        _append(sheet, [f"Subtotal {category.category}", *[None] * 13, category.sell, status])
        sheet.cell(row=sheet.max_row, column=15).number_format = money_format(quote.currency)
    for network in priced.networks:
        status = f"incomplete: {network.unpriced_lines} unpriced" if network.unpriced_lines else ""
        label = f"Subtotal {network_label(network.category)} network"
        _append(sheet, [label, *[None] * 13, network.sell, status])
        sheet.cell(row=sheet.max_row, column=15).number_format = money_format(quote.currency)
    _append(
        sheet, ["Total", *[None] * 11, priced.cost_total, None, priced.sell_total, priced.status]
    )
    total_row = sheet.max_row
    for column in (13, 15):
        sheet.cell(row=total_row, column=column).number_format = money_format(quote.currency)
    sheet.cell(row=total_row, column=1).font = bold
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
    widths = {"A": 28, "B": 18, "C": 36, "D": 14, "P": 40, "Q": 30}
    for column, width in widths.items():
        sheet.column_dimensions[column].width = width
    sheet.freeze_panes = sheet.cell(row=header_row + 1, column=1)
    return _workbook_bytes(book)


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
    _check_audience(audience)
    quote, priced = document.quote, document.priced
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")

    def row(values):
        writer.writerow([safe_cell(value) if isinstance(value, str) else value for value in values])

    name, address = customer_block(document)
    terms = terms_text(document)
    if audience == CUSTOMER:
        valid = f"valid until {quote.valid_until.isoformat()}"
        row([f"Quote {quote.label}", name, valid, *(["\n".join(address)] if address else [])])
        writer.writerow(CUSTOMER_CSV_COLUMNS)
        for line in customer_quote_lines(priced):
            row(
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
        writer.writerow(
            ["total", "", "", "", _csv_money(priced.sell_total, quote.currency), quote.currency]
        )
        if terms:
            row(["terms", terms])
        if priced.estimated_lines:
            row(["note", ESTIMATE_NOTE])
        return out.getvalue().encode()

    row([f"Quote {quote.label}", name, *(["\n".join(address)] if address else [])])
    writer.writerow(CSV_COLUMNS)
    for line in priced.lines:
        bom_line = line.line
        row(
            [
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
                _csv_money(line.unit_book, quote.currency),
                str(line.discount_pct),
                _csv_money(line.unit_cost, quote.currency),
                _csv_money(line.unit_sell, quote.currency),
                _csv_money(line.extended_sell, quote.currency),
                "priced" if line.priced else f"unpriced: {line.unpriced_reason}",
                _source(line),
            ]
        )
    total = [
        "total",
        *[""] * 11,
        _csv_money(priced.cost_total, quote.currency),
        "",
        _csv_money(priced.sell_total, quote.currency),
    ]
    writer.writerow([*total, priced.status, f"{quote.currency}"])
    if terms:
        row(["terms", terms])
    if priced.estimated_lines:
        row(["note", ESTIMATE_NOTE_INTERNAL])
    return out.getvalue().encode()


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
    _check_audience(audience)
    return RENDERERS[fmt](document, audience=audience)
