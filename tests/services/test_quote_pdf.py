"""The quote PDF read back with pypdf: customer names and addresses in any script (fonts
embedded; in the customer's copy, issue 22 item 3), unpriced categories as "—" and "unpriced", a
totals label that never runs into its amount, and a totals block kept on one page (issue 15
item 3)."""

from __future__ import annotations

import dataclasses
import io
import re

import pytest
from pypdf import PdfReader

from inventory.models import PriceBook
from inventory.services import price_book_import_csv
from planner.designs.services import design_create
from planner.quotes.files import CUSTOMER, pdf_fonts, quote_pdf
from planner.quotes.services import quote_create, quote_price
from tests.factories import ONE_SU_SPEC

# Test prices (not real ones): fibers and racks stay unpriced, the transceiver category is
# half priced (the DGX-side module has no offer).
PRICES_CSV = """part,price,currency,seller,condition,length_m
QM9700,30000,USD,Seller A,new,
DGX-H100,300000,USD,Seller B,new,
MMA4Z00-NS,800,USD,Seller C,new,
"""

NAMES = {
    "latin": "Société Générale Müller & Søn",
    "greek": "Αθηναϊκή Τεχνολογία Α.Ε.",
    "cyrillic": "ООО «Ромашка» Новосибирск",
    "cjk": "東京電力株式会社 삼성전자",
    "arabic": "شركة الاتصالات السعودية",
    "hebrew": "חברת החשמל לישראל",
}
#: An address line in each script (the quote's customer_address).
ADDRESSES = {
    "latin": "Straße des 17. Juni 135, Łódź",
    "greek": "Λεωφόρος Κηφισίας 44, Μαρούσι",
    "cyrillic": "ул. Красный проспект 25",
    "cjk": "東京都千代田区丸の内 1-1 서울특별시",
    "arabic": "طريق الملك فهد، الرياض",
    "hebrew": "רחוב הרצל 12, תל אביב",
}


@pytest.fixture
def document(seed_catalog, user):
    design = design_create(owner=user, spec_document=ONE_SU_SPEC)
    book = PriceBook.objects.create(slug="pdf-book", name="PDF book", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    quote = quote_create(design=design, actor=user, customer="ACME", price_book=book)
    return quote_price(quote)


def _with_customer(document, name, address="", terms=""):
    """The document with another customer and terms (the PDF prints the document's)."""
    return dataclasses.replace(document, customer_name=name, customer_address=address, terms=terms)


def _reader(content: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(content))


def _text(reader: PdfReader) -> str:
    return "\n".join(page.extract_text() for page in reader.pages)


def _fonts(reader: PdfReader) -> dict[str, dict]:
    """Base font name -> its descriptor, for every font of every page (CID fonts included)."""
    fonts = {}
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descendant = font.get("/DescendantFonts")
            described = descendant[0].get_object() if descendant else font
            fonts[str(font["/BaseFont"])] = described["/FontDescriptor"].get_object()
    return fonts


def _squeeze(text: str) -> str:
    """Without white space, nor the NUL pypdf puts before each glyph of a CID-keyed CFF font
    (poppler's pdftotext reads the same file cleanly)."""
    return re.sub(r"[\s\x00]+", "", text)


@pytest.mark.parametrize("script", list(NAMES))
def test_customer_names_in_any_script_print_with_embedded_fonts(document, script):
    """The customer's copy prints the name and the address lines as typed."""
    name, address = NAMES[script], ADDRESSES[script]
    reader = _reader(quote_pdf(_with_customer(document, name, f"{address}\n{address}"), CUSTOMER))
    text = _text(reader)
    assert "?" * 3 not in text
    for typed in (name, address):
        if script in ("arabic", "hebrew"):
            # Right-to-left: the words come out in visual order; each word is intact.
            assert all(word.strip(",") in text for word in typed.split())
        elif script == "cjk":
            assert all(word in _squeeze(text) for word in typed.split())
        else:
            assert typed in text
    if script not in ("arabic", "hebrew", "cjk"):
        assert text.count(address) == 2  # both address lines, each as typed
    fonts = _fonts(reader)
    assert any("DejaVuSans" in base for base in fonts)
    assert all("/FontFile2" in d or "/FontFile3" in d for d in fonts.values()), "embedded"
    cjk = [base for base in fonts if "NotoSansCJK" in base]
    assert bool(cjk) == (script == "cjk")  # the large CJK font only when a text needs it


def test_fonts_come_from_the_operating_systems_packages():
    fonts = pdf_fonts()
    paths = (fonts.regular, fonts.bold, fonts.italic, fonts.cjk)
    names = [path.name for path in paths]
    assert names == [
        "DejaVuSans.ttf",
        "DejaVuSans-Bold.ttf",
        "DejaVuSans-Oblique.ttf",
        "NotoSansCJK-Regular.ttc",
    ]
    for path in paths:
        assert path.is_file() and "site-packages" not in str(path)
    assert ord("Ω") in fonts.covered and ord("ש") in fonts.covered


def test_unpriced_category_shows_a_dash_not_zero(document):
    priced = document.priced
    unpriced = [c for c in priced.categories if c.unpriced_lines == c.lines]
    assert unpriced, "the test book leaves whole categories unpriced"
    text = _text(_reader(quote_pdf(document)))
    totals = text[text.index("Totals") :]
    for category in unpriced:
        row = next(line for line in totals.splitlines() if line.startswith(category.category))
        assert "0.00" not in row and "—" in row and "unpriced" in row
    partial = [c for c in priced.categories if 0 < c.unpriced_lines < c.lines]
    for category in partial:
        row = next(line for line in totals.splitlines() if line.startswith(category.category))
        assert f"{category.sell:,.2f} USD" in row and "incomplete" in row


def _positions(page) -> list[tuple[str, float, float]]:
    found = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            found.append((text.strip(), tm[4] * cm[0] + cm[4], tm[5] * cm[3] + cm[5]))

    page.extract_text(visitor_text=visit)
    return found


def test_total_of_priced_lines_label_does_not_overprint_its_amount(document):
    priced = document.priced
    assert not priced.complete
    reader = _reader(quote_pdf(document))
    amount = f"{priced.sell_total:,.2f} USD"
    for page in reader.pages:
        spans = _positions(page)
        labels = [s for s in spans if s[0].startswith("Total of priced lines")]
        if labels:
            break
    (label, label_x, label_y) = labels[0]
    assert label == "Total of priced lines"  # the status is not glued to the label
    amounts = [s for s in spans if s[0] == amount and abs(s[2] - label_y) < 1]
    assert amounts, "the amount is on the label's row"
    # The label's right end (DejaVu Sans Bold 10 pt, in pt) stays left of the amount.
    from fpdf import FPDF

    measure = FPDF(unit="pt")
    measure.add_font("DejaVu", "B", pdf_fonts().bold)
    measure.set_font("DejaVu", "B", 10)
    assert label_x + measure.get_string_width(label) < amounts[0][1]
    status = [s for s in spans if s[0] == priced.status and abs(s[2] - label_y) < 1]
    assert status and status[0][1] > amounts[0][1]


def test_totals_block_never_splits_across_pages(document):
    priced = document.priced
    server = next(line for line in priced.lines if line.line.category == "server")
    first_pages = set()
    # One-line table rows added four at a time (~20 mm) walk the end of the table over the
    # ~45 mm totals block and the page boundary: some counts would have split it.
    for extra in range(6, 26, 4):
        lines = priced.lines[:3] + (server,) * extra
        bigger = dataclasses.replace(document, priced=dataclasses.replace(priced, lines=lines))
        texts = [page.extract_text() for page in _reader(quote_pdf(bigger)).pages]
        heading = next(i for i, text in enumerate(texts) if "\nTotals\n" in f"\n{text}\n")
        assert "Total of priced lines" in texts[heading], f"{extra} extra lines: split"
        assert all(c.category in texts[heading] for c in priced.categories)
        first_pages.add(heading)
    assert first_pages == {0, 1}  # the block fitted on page 1, then moved whole to page 2


def test_a_cluster_quote_has_a_subtotal_per_network_in_page_pdf_and_xlsx(
    seed_catalog, user, client, prices_visible
):
    """Issue 18: the quote of a design with storage, in-band and OOB networks subtotals each
    network (the compute fabric's tiers together) on its page, in the PDF's totals block and
    in the XLSX; the subtotals add up to the total."""
    from openpyxl import load_workbook

    from planner.domain.presets import EXAMPLES_DIR
    from planner.domain.spec import load_spec_text
    from planner.quotes.files import quote_xlsx

    spec = load_spec_text((EXAMPLES_DIR / "h100-superpod-4su-cluster.yaml").read_text())
    design = design_create(owner=user, spec_document=spec)
    book = PriceBook.objects.create(slug="cluster-book", name="Cluster book", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    quote = quote_create(design=design, actor=user, customer="ACME", price_book=book)
    document = quote_price(quote)
    networks = {n.category: n for n in document.priced.networks}
    assert list(networks) == ["compute", "storage", "inband", "oob", "management"]
    assert sum(n.sell for n in networks.values()) == document.priced.sell_total
    assert networks["storage"].sell > 0  # 16 QM9700 at the test price
    text = _squeeze(_text(_reader(quote_pdf(document))))
    for label in ("Computenetwork", "Storagenetwork", "Out-of-bandmanagementnetwork"):
        assert label in text
    sheet = load_workbook(io.BytesIO(quote_xlsx(document))).active
    labels = [row[0] for row in sheet.iter_rows(values_only=True) if row and row[0]]
    assert "Subtotal In-band management network" in labels
    client.force_login(user)
    page = client.get(quote.get_absolute_url()).content.decode()
    assert 'data-testid="quote-networks"' in page and "Out-of-band management" in page


def test_address_block_is_under_the_name_and_terms_follow_the_standard_terms(document):
    """The address lines print under the name, left-aligned with it, in order; the quote's own
    terms (here in Greek and CJK, which needs the CJK font) print under Terms after the standard
    lines; the internal copy prints them too."""
    terms = "Πληρωμή: 30 ημέρες.\n納期: 6週間\nWarranty: 3 years, return to base."
    address = "Λεωφόρος Κηφισίας 44\n\n  Μαρούσι 151 24  "
    content = quote_pdf(_with_customer(document, "Αθηναϊκή Τεχνολογία", address, terms), CUSTOMER)
    reader = _reader(content)
    spans = {text: (x, y) for text, x, y in _positions(reader.pages[0])}
    name = spans["Αθηναϊκή Τεχνολογία"]
    first, second = spans["Λεωφόρος Κηφισίας 44"], spans["Μαρούσι 151 24"]
    assert abs(first[0] - name[0]) < 0.5 and abs(second[0] - name[0]) < 0.5
    assert name[1] > first[1] > second[1]  # PDF y grows upwards: each line under the last
    assert name[1] - second[1] < 35  # two 5 mm lines (14 pt each): the blank one left out
    text = _text(reader)
    standard = text.index("Quantities include spares.")
    assert text.index("Terms") < standard < text.index("Πληρωμή: 30 ημέρες.")
    assert text.index("Warranty: 3 years, return to base.") > text.index("Πληρωμή")
    assert "納期:6週間" in _squeeze(text)
    assert any("NotoSansCJK" in base for base in _fonts(reader))

    internal = _text(_reader(quote_pdf(_with_customer(document, "N", address, terms))))
    assert "Μαρούσι 151 24" in internal and "Warranty: 3 years, return to base." in internal
    assert "Pricing" in internal  # the margin and discounts line is not called Terms


def test_long_terms_continue_on_the_next_page(document):
    """Terms longer than a page are printed whole, the heading kept with the standard lines."""
    terms = "\n".join(f"Clause {n}: delivery and payment as agreed." for n in range(1, 91))
    pages = [
        p.extract_text()
        for p in _reader(quote_pdf(_with_customer(document, "N", "", terms), CUSTOMER)).pages
    ]
    text = "\n".join(pages)
    assert len(pages) >= 3
    assert all(f"Clause {n}: delivery" in text for n in range(1, 91))
    heading = next(i for i, page in enumerate(pages) if "\nTerms\n" in f"\n{page}\n")
    assert "Quantities include spares." in pages[heading]
