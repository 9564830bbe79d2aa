"""The quote as a PDF (fpdf2): the customer's copy on A4 portrait, the internal one on A4
landscape (more columns).

Every page ends with the quote number and version and "Page 2 of 3"; the totals block is kept
on one page. Every text is set in DejaVu Sans (Latin, Greek, Cyrillic, Arabic, Hebrew), with
Noto Sans CJK as the fallback for Chinese, Japanese and Korean, both embedded (subset) in the
file, and, when a text is right-to-left or has combining marks, shaped with HarfBuzz so that it
reads right: any customer name and address prints as typed (:func:`pdf_fonts`; the files come
from the operating system's font packages, :mod:`planner.quotes.fonts`). Unpriced amounts print
as "—" (with "unpriced" or "not priced"), never as a zero.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from fontTools.ttLib import TTFont
from fpdf import FPDF
from fpdf.fonts import FontFace

from planner.domain.outputs.quote import DISCOUNT_RULE, MARGIN_RULE, ROUNDING_RULE
from planner.presentation import money_text
from planner.quotes.files.content import (
    CUSTOMER,
    DASH,
    ESTIMATE_NOTE_INTERNAL,
    INTERNAL,
    INTERNAL_MARK,
    NOT_PRICED,
    TotalRow,
    as_text,
    check_audience,
    customer_block,
    customer_quote_lines,
    customer_terms,
    design_text,
    length_text,
    line_description,
    price_source,
    sent_gaps_text,
    terms_text,
    total_rows,
)
from planner.quotes.fonts import font_files

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


def _money(value: Decimal | None, currency: str) -> str:
    """An amount with thousands separators and the places of ``currency``'s minor unit
    (``12,345.60`` USD, ``12,346`` JPY), as on the quote page; ``unpriced`` for none."""
    return "unpriced" if value is None else money_text(value, currency)


def _amount(value: Decimal, currency: str, *, priced: bool) -> str:
    """A subtotal or total: "—" when nothing in it has a price (never "0.00")."""
    return f"{money_text(value, currency)} {currency}" if priced else DASH


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
    yield from (as_text(document.customer_name), as_text(document.customer_address))
    yield from (as_text(document.terms), as_text(document.design_name), as_text(quote.notes))
    yield as_text(document.price_book_name)
    for line in priced.lines:
        bom_line = line.line
        yield from (as_text(bom_line.part), as_text(bom_line.name), as_text(bom_line.manufacturer))
        yield from (as_text(bom_line.part_number), as_text(line.unpriced_reason))
        if line.offer is not None:
            yield price_source(line)


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
    check_audience(audience)
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
            as_text(line.part),
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
        ("Design", design_text(document)),
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
        pdf.multi_cell(0, 5, as_text(value), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)

    rows = []
    for line in priced.lines:
        bom_line = line.line
        rows.append(
            [
                as_text(bom_line.part),
                line_description(bom_line),
                bom_line.category,
                bom_line.tier,
                length_text(bom_line.length_m),
                f"{bom_line.quantity:,}",
                f"{bom_line.spares:,}",
                DASH if line.unit_book is None else _money(line.unit_book, quote.currency),
                f"{line.discount_pct}" if line.priced else "",
                DASH if line.unit_cost is None else _money(line.unit_cost, quote.currency),
                DASH if line.unit_sell is None else _money(line.unit_sell, quote.currency),
                _money(line.extended_sell, quote.currency),
                price_source(line),
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
                what = " ".join(
                    bit for bit in (line.line.part, length_text(line.line.length_m)) if bit
                )
                texts.append(f"{what} x {line.line.quantity:,}: {line.unpriced_reason}")
        _paragraphs(pdf, texts, size=8)
    if terms_text(document):
        pdf.ln(2)
        _heading(pdf, "Terms (printed on the customer's copy)")
        _paragraphs(pdf, [terms_text(document)])
    if quote.notes:
        pdf.ln(2)
        _heading(pdf, "Notes")
        _paragraphs(pdf, [as_text(quote.notes)])
    pdf.ln(2)
    pdf.set_font(FONT, "I", 7)
    rules = f"{DISCOUNT_RULE} {MARGIN_RULE} {ROUNDING_RULE} Quantities include spares."
    pdf.multi_cell(0, 3.5, rules)
    return bytes(pdf.output())
