"""Customer-facing quote documents (issue 22 item 3), read back as a customer would.

A quote with a switch and transceiver discount and an 18.5 % margin (so no cost equals a sell
price), for a customer whose name and address mix scripts, sent and re-priced (``v2``). Its
PDF, XLSX and CSV, fetched through the API in the customer's and the internal version, are
read back (PDF text with pypdf) and every figure on them is checked against the API's priced
answer: each line's quantity, unit price and line total, the subtotals and the totals, and in
the internal version also the book price, discount, unit cost, cost and margin. The customer's
version must hold no cost, discount, margin, price book, seller or note. Both print the
customer's address under the name and the quote's own terms after the standard ones.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from collections import Counter
from decimal import Decimal

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from inventory.models import PriceBook
from inventory.services import price_book_import_csv
from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.services import design_create
from planner.quotes import files
from planner.quotes.files import content as file_content
from planner.quotes.files import pdf as file_pdf
from planner.quotes.services import quote_create, quote_price, quote_reprice, quote_send
from tests.factories import ONE_SU_SPEC

# Test prices (not real ones): fibers and the flat-top module stay unpriced.
PRICES_CSV = """part,price,currency,seller,condition,length_m
QM9700,30000,USD,Seller Alpha,new,
DGX-H100,300000,USD,Seller Bravo,new,
MMA4Z00-NS,800,USD,Seller Charlie,new,
"""
NAME = "Société Générale Müller"
#: Scripts DejaVu Sans draws (CJK names, set in the large Noto Sans CJK, are in
#: tests/services/test_quote_pdf.py: a second of font subsetting per file).
ADDRESS = ["Αθηνών 12, 105 58 Αθήνα", "ул. Ленина 5, Новосибирск", "شارع الملك فهد، الرياض"]
NOTES = "INTERNAL-NOTE-QQ"
#: The quote's own terms; the bullet line begins with "-", which a spreadsheet would read as a
#: formula: its XLSX row is written with a "'" before it.
TERMS = [
    "Payment: 30 days net from the invoice date.",
    "Delivery: 6 weeks after the order.",
    "- Warranty: 3 years, return to base.",
]
#: A figure with two decimals and thousands separators, not a percentage.
MONEY = r"\d{1,3}(?:,\d{3})*\.\d\d"
_MONEY_TOKEN = re.compile(rf"(?<![\d.,]){MONEY}(?![\d%]| %)")
_CUSTOMER_ROW = re.compile(rf"(?:^|\s)(\d{{1,3}}(?:,\d{{3}})*) ({MONEY}|—) ({MONEY}|not priced)$")
_INTERNAL_ROW = re.compile(
    rf"(?:^|\s)(?P<qty>\d[\d,]*) (?P<spares>\d[\d,]*) (?P<book>{MONEY}|—) "
    rf"(?:(?P<disc>\d+(?:\.\d+)?) )?(?P<cost>{MONEY}|—) (?P<unit>{MONEY}|—) "
    rf"(?P<total>{MONEY}|unpriced)(?:\s|$)"
)


@pytest.fixture
def scene(seed_catalog, prices_visible, api_client):
    """Version 2 of a quote (sent, then re-priced) and the API's priced answer for it."""
    user = prices_visible
    design = design_create(owner=user, spec_document=ONE_SU_SPEC)
    book = PriceBook.objects.create(slug="doc-book", name="Docbook Prices", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    quote = quote_create(
        design=design,
        actor=user,
        customer=NAME,
        customer_address="\n".join(ADDRESS),
        terms="\n".join(TERMS),
        price_book=book,
        discounts_pct={"switch": 12.5, "transceiver": 7},
        margin_pct=Decimal("18.5"),
        notes=NOTES,
    )
    quote = quote_reprice(
        quote=quote_send(quote=quote, actor=user, may_view_prices=True, confirm_unpriced=True),
        actor=user,
        may_view_prices=True,
    )
    base = f"/api/planner/designs/{design.pk}/quotes/{quote.pk}/"
    priced = api_client.get(f"{base}priced/")
    assert priced.status_code == 200, priced.content
    return {"quote": quote, "base": base, "api": priced.json(), "client": api_client}


def _get(scene, fmt: str, audience: str | None = None):
    query = {"audience": audience} if audience else {}
    response = scene["client"].get(f"{scene['base']}{fmt}/", query)
    assert response.status_code == 200, response.content[:500]
    return response


def _pages(content: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(content)).pages]


def _money(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def _d(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _customer_lines(api: dict) -> list[dict]:
    """The API's lines as the customer sees them: one line per part, length and unit price
    (tiers added), in the order they first come."""
    merged: dict[tuple, dict] = {}
    for line in api["lines"]:
        key = (line["part"], line["length_m"], line["unit_sell"])
        item = merged.setdefault(key, {"quantity": 0, "unit": _d(line["unit_sell"]), "total": None})
        item["quantity"] += line["quantity"]
        if line["extended_sell"] is not None:
            item["total"] = (item["total"] or Decimal(0)) + Decimal(line["extended_sell"])
    return list(merged.values())


def _groups(api: dict) -> list[dict]:
    return api["categories"] + api["networks"]


def _priced_groups(api: dict) -> list[dict]:
    return [g for g in _groups(api) if g["lines"] > g["unpriced_lines"]]


def _cost_figures(api: dict) -> set[Decimal]:
    """Every cost, book price and margin figure of the API's answer that is not also a sell
    figure (those the customer's version must not show)."""
    costs = {_d(line[key]) for line in api["lines"] for key in ("unit_book", "unit_cost")}
    costs |= {_d(line["extended_cost"]) for line in api["lines"]}
    costs |= {_d(group["cost"]) for group in _groups(api)}
    costs |= {_d(api["totals"]["cost"]), _d(api["totals"]["margin"])}
    sells = {_d(line[key]) for line in api["lines"] for key in ("unit_sell", "extended_sell")}
    sells |= {_d(group["sell"]) for group in _groups(api)} | {_d(api["totals"]["sell"])}
    return {c for c in costs - sells if c}


def _formats(amount: Decimal) -> set[str]:
    return {f"{amount:,.2f}", f"{amount:.2f}"}


def _totals_amounts(text: str, labels: list[str]) -> dict[str, Decimal | None]:
    """Label -> amount of each row of the totals block (``None`` for "—")."""
    block = text[text.index("\nTotals\n") :]
    found = {}
    for label in labels:
        row = re.search(
            rf"^{re.escape(label)} ({MONEY}) [A-Z]{{3}}|^{re.escape(label)} —", block, re.M
        )
        assert row, f"no totals row {label!r}"
        found[label] = _money(row.group(1)) if row.group(1) else None
    return found


def _group_label(group: dict, *, customer: bool) -> str:
    if "network" in group:
        return f"{files.network_label(group['network'])} network"
    return files.CATEGORY_LABELS[group["category"]] if customer else group["category"]


def test_customer_pdf_shows_the_api_figures_and_no_cost(scene):
    api, quote = scene["api"], scene["quote"]
    response = _get(scene, "pdf", "customer")
    assert f'filename="{quote.number}-v2-customer.pdf"' in response["Content-Disposition"]
    pages = _pages(response.content)
    text = "\n".join(pages)

    assert quote.label == f"{quote.number} v2" and f"Quote {quote.label}" in text
    assert NAME in text and ADDRESS[0] in text and ADDRESS[1] in text
    assert all(word in text for word in ADDRESS[2].split())  # right-to-left, word by word
    assert f"Valid until {quote.valid_until.isoformat()}" in text
    assert "Terms" in text and "Quantities include spares." in text
    # The address under the name; the quote's own terms after the standard ones, as typed.
    assert text.index(NAME) < text.index(ADDRESS[0]) < text.index(ADDRESS[1])
    assert text.index("Quantities include spares.") < text.index(TERMS[0])
    assert all(term in text for term in TERMS)

    # Each line: quantity, unit price and line total, in order.
    rows = [m.groups() for line in text.splitlines() if (m := _CUSTOMER_ROW.search(line))]
    expected = _customer_lines(api)
    assert len(rows) == len(expected) < len(api["lines"])  # the tiers of a part are one line
    for (quantity, unit, total), line in zip(rows, expected, strict=True):
        assert int(quantity.replace(",", "")) == line["quantity"]
        assert (None if unit == "—" else _money(unit)) == line["unit"]
        assert (None if total == "not priced" else _money(total)) == line["total"]
    # The subtotals and the total.
    labels = {_group_label(g, customer=True): g for g in _groups(api)}
    total_label = "Total" if api["totals"]["complete"] else "Total of priced lines"
    amounts = _totals_amounts(text, [*labels, total_label])
    for label, group in labels.items():
        priced = group["lines"] > group["unpriced_lines"]
        assert amounts[label] == (Decimal(group["sell"]) if priced else None), label
    assert amounts[total_label] == Decimal(api["totals"]["sell"])

    # Every amount on the document is one of those, and each appears where expected.
    wanted = Counter()
    for line in expected:
        wanted.update(v for v in (line["unit"], line["total"]) if v is not None)
    wanted.update(Decimal(g["sell"]) for g in _priced_groups(api))
    wanted[Decimal(api["totals"]["sell"])] += 1
    assert Counter(_money(m) for m in _MONEY_TOKEN.findall(text)) == wanted

    # No cost, book price, margin, discount, seller, price book or note.
    costs = _cost_figures(api)
    assert len(costs) > 10
    shown = {needle for cost in costs for needle in _formats(cost) if needle in text}
    assert not shown
    assert "%" not in text and "12.5" not in text and "18.5" not in text
    for hidden in ("Seller", "Docbook", NOTES, "price book", "unpriced", "Cost", "Margin"):
        assert hidden not in text, hidden


def test_internal_pdf_shows_every_api_figure(scene):
    api, quote = scene["api"], scene["quote"]
    response = _get(scene, "pdf")  # the default: the internal version, as before
    assert f'filename="{quote.number}-v2.pdf"' in response["Content-Disposition"]
    text = "\n".join(_pages(response.content))
    assert files.INTERNAL_MARK in text and NOTES in text and "Docbook Prices" in text
    assert ADDRESS[0] in text and ADDRESS[1] in text and all(term in text for term in TERMS)

    rows = [m for line in text.splitlines() if (m := _INTERNAL_ROW.search(line))]
    assert len(rows) == len(api["lines"])
    wanted = Counter()
    for row, line in zip(rows, api["lines"], strict=True):
        assert int(row["qty"].replace(",", "")) == line["quantity"]
        assert int(row["spares"]) == line["spares"]
        for key, column in (("unit_book", "book"), ("unit_cost", "cost"), ("unit_sell", "unit")):
            assert (None if row[column] == "—" else _money(row[column])) == _d(line[key])
        total = None if row["total"] == "unpriced" else _money(row["total"])
        assert total == _d(line["extended_sell"])
        if line["priced"]:
            assert Decimal(row["disc"]) == Decimal(line["discount_pct"])
            assert line["source"]["seller"] in text
            wanted.update(_d(line[k]) for k in ("unit_book", "unit_cost", "unit_sell"))
            wanted[_d(line["extended_sell"])] += 1
    labels = {_group_label(g, customer=False): g for g in _groups(api)}
    amounts = _totals_amounts(text, [*labels, "Total of priced lines", "Cost", "Margin"])
    for label, group in labels.items():
        priced = group["lines"] > group["unpriced_lines"]
        assert amounts[label] == (Decimal(group["sell"]) if priced else None), label
    totals = api["totals"]
    assert amounts["Total of priced lines"] == Decimal(totals["sell"])
    assert (amounts["Cost"], amounts["Margin"]) == (_d(totals["cost"]), _d(totals["margin"]))
    assert f"{api['margin_pct']} % of the sell price" in text
    wanted.update(Decimal(g["sell"]) for g in _priced_groups(api))
    wanted.update(_d(totals[key]) for key in ("sell", "cost", "margin"))
    assert Counter(_money(m) for m in _MONEY_TOKEN.findall(text)) == wanted


def test_customer_xlsx_and_csv_have_the_five_columns_and_the_api_figures(scene):
    api, quote = scene["api"], scene["quote"]
    expected = _customer_lines(api)
    costs = _cost_figures(api)
    response = _get(scene, "xlsx", "customer")
    assert f'filename="{quote.number}-v2-customer.xlsx"' in response["Content-Disposition"]
    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = list(sheet.iter_rows(values_only=True))
    assert sheet.max_column == 5
    header = rows.index(("Part", "Description", "Quantity", "Unit price (USD)", "Line total (USD)"))
    labels = {row[0]: row[1] for row in rows[:header] if row[0]}
    assert labels["Customer"] == NAME and labels["Address"] == ADDRESS[0]
    first = [row[0] for row in rows].index("Address")
    assert [row[1] for row in rows[first : first + 3]] == ADDRESS
    cells = [row[0] for row in rows if isinstance(row[0], str)]
    typed = cells[cells.index("Terms") :]
    assert typed[-3:] == [TERMS[0], TERMS[1], f"'{TERMS[2]}"]  # neutralised, not a formula
    assert labels["Quote"] == quote.label
    lines = rows[header + 1 : header + 1 + len(expected)]
    for row, line in zip(lines, expected, strict=True):
        assert row[2] == line["quantity"]
        unit = None if row[3] == files.NOT_PRICED else Decimal(str(row[3]))
        total = None if row[4] is None else Decimal(str(row[4])).quantize(Decimal("0.01"))
        assert (unit, total) == (line["unit"], line["total"])
    total_row = next(r for r in rows if r[0] and str(r[0]).startswith("Total"))
    assert Decimal(str(total_row[4])).quantize(Decimal("0.01")) == Decimal(api["totals"]["sell"])
    numbers = {
        Decimal(str(v)).quantize(Decimal("0.01"))
        for row in rows
        for v in row
        if isinstance(v, int | float) and not isinstance(v, bool)
    }
    assert not numbers & costs
    cells = " ".join(str(v) for row in rows for v in row if isinstance(v, str))
    assert "%" not in cells and "Seller" not in cells and NOTES not in cells

    text = _get(scene, "csv", "customer").content.decode()
    table = list(csv.reader(io.StringIO(text)))
    assert table[0][1] == NAME and table[0][3] == "\n".join(ADDRESS)
    assert table[1] == list(files.CUSTOMER_CSV_COLUMNS)
    assert table[-1] == ["terms", "\n".join(TERMS)]
    for row, line in zip(table[2:-2], expected, strict=True):
        assert int(row[2]) == line["quantity"]
        assert (_d(row[4] or None), row[3]) == (
            line["total"],
            f"{line['unit']:.2f}" if line["unit"] else files.NOT_PRICED,
        )
    assert table[-2][0] == "total" and Decimal(table[-2][4]) == Decimal(api["totals"]["sell"])
    assert not {n for c in costs for n in _formats(c) if n in text} and "Seller" not in text


def test_audience_is_chosen_by_query_and_recorded(scene, logged_in_client):
    quote, api_client = scene["quote"], scene["client"]
    links = api_client.get(scene["base"]).json()["links"]
    assert links["pdf_customer"] == f"{links['pdf']}?audience=customer"
    for audience in ("everyone", ""):  # given empty is not "not given"
        refused = api_client.get(f"{scene['base']}pdf/", {"audience": audience})
        assert refused.status_code == 400 and "audience" in refused.json()
    page_refused = logged_in_client.get(f"{quote.get_absolute_url()}csv/?audience=")
    assert page_refused.status_code == 400 and b"Unknown audience" in page_refused.content
    page = logged_in_client.get(quote.get_absolute_url()).content.decode()
    assert 'data-testid="quote-pdf-customer"' in page and "Internal PDF" in page
    assert f'data-testid="quote-customer">{NAME}<' in page
    assert f"{ADDRESS[0]}<br>{ADDRESS[1]}<br>" in page  # the address lines as typed
    assert TERMS[1] in page
    download = logged_in_client.get(f"{quote.get_absolute_url()}xlsx/?audience=customer")
    assert download.status_code == 200
    assert f'filename="{quote.number}-v2-customer.xlsx"' in download["Content-Disposition"]
    assert logged_in_client.get(f"{quote.get_absolute_url()}pdf/?audience=x").status_code == 400
    events = AuditEvent.objects.filter(action=AuditActionChoices.EXPORT_DOWNLOADED)
    assert sorted(events.values_list("details__audience", flat=True)) == ["customer"]


def test_every_page_of_a_long_customer_pdf_is_numbered(scene):
    """Page numbers ("Page 2 of 3"), the quote number with its version and the validity on
    every page, the table's headings repeated; the totals and terms close the last page."""
    document = quote_price(scene["quote"])
    priced = document.priced
    server = next(line for line in priced.lines if line.line.category == "server")
    lines = priced.lines + tuple(
        dataclasses.replace(server, line=dataclasses.replace(server.line, part=f"DGX-{n:02d}"))
        for n in range(110)
    )
    longer = dataclasses.replace(document, priced=dataclasses.replace(priced, lines=lines))
    pages = _pages(files.quote_pdf(longer, audience=files.CUSTOMER))
    assert len(pages) >= 3
    valid = scene["quote"].valid_until.isoformat()
    for number, text in enumerate(pages, start=1):
        footer = f"Quote {scene['quote'].label} · valid until {valid} · Page {number} of "
        assert f"{footer}{len(pages)}" in text, number
        assert "Unit price (USD)" in text
    assert "Totals" in pages[-1] and "Terms" in pages[-1]


def test_customer_totals_block_moves_whole_to_the_next_page(scene):
    """The customer's totals block started 20 mm above the page break is drawn whole on the
    next page: it ends where the same block started at a page's top ends."""
    rows = files.total_rows(quote_price(scene["quote"]).priced, audience=files.CUSTOMER)
    assert len(rows) >= 5
    ends = []
    for room_mm in (None, 20):
        pdf = file_pdf._QuotePDF("Quote", texts=[], orientation="P")
        pdf.add_page()
        if room_mm is not None:
            pdf.set_y(pdf.page_break_trigger - room_mm)
        file_pdf._totals(pdf, rows, "USD", (70, 50, 70))
        ends.append((pdf.page_no(), round(pdf.get_y(), 3)))
    (top_page, top_end), (page, end) = ends
    assert (top_page, page) == (1, 2) and end == top_end


def test_amounts_have_the_places_of_the_currency_and_the_source_its_rate():
    """No database: yen print whole (as the API gives them), and the internal copy's source of
    a converted line names the offer's own price and the rate."""
    from planner.domain.outputs.bom import BomLine
    from planner.domain.outputs.quote import ExchangeRate, PricedLine, PriceOffer

    assert file_pdf._money(Decimal("1234567"), "JPY") == "1,234,567"
    assert file_pdf._money(Decimal("1234.5"), "USD") == "1,234.50"
    assert (files.money_format("JPY"), files.money_format("EUR")) == ("#,##0", "#,##0.00")
    bom_line = BomLine("SW", "", "Switch", "acme", "switch", "leaf", None, 1, 0, 1, "device")
    offer = PriceOffer("SW", Decimal("100"), "USD", seller="Seller D", as_of="2026-01-02")
    rate = ExchangeRate("USD", "EUR", Decimal("0.9"), "2026-01-05", "ECB")
    amounts = [Decimal("90.00")] * 3 + [Decimal("90.00")] * 2
    line = PricedLine(bom_line, offer, "", Decimal(0), *amounts, rate=rate)
    assert file_content.price_source(line) == (
        "Seller D, 2026-01-02; 100 USD at 1 USD = 0.9 EUR (2026-01-05, ECB)"
    )


def test_typed_texts_never_become_spreadsheet_formulas(scene):
    """The customer's name, address and terms reach XLSX and CSV cells through the one
    neutralising function (a "'" before text a spreadsheet would read as a formula), in both
    copies."""
    document = dataclasses.replace(
        quote_price(scene["quote"]),
        customer_name='=HYPERLINK("http://x","Click")',
        customer_address="@SUM(A1)\n+1 Main Street",
        terms="=1+1\n-2",
    )
    for audience in files.AUDIENCES:
        sheet = load_workbook(io.BytesIO(files.quote_xlsx(document, audience))).active
        cells = [v for row in sheet.iter_rows(values_only=True) for v in row if isinstance(v, str)]
        for typed in ('=HYPERLINK("http://x","Click")', "@SUM(A1)", "+1 Main Street"):
            assert f"'{typed}" in cells and typed not in cells, (audience, typed)
        assert any(cell.startswith("'=1+1") for cell in cells), audience
        assert not [c for c in cells if c[:1] in ("=", "+", "-", "@")], audience
        table = list(csv.reader(io.StringIO(files.quote_csv(document, audience).decode())))
        assert table[0][1] == '\'=HYPERLINK("http://x","Click")', audience
        assert table[0][-1] == "'@SUM(A1)\n+1 Main Street"
        assert table[-1] == ["terms", "'=1+1\n-2"]
