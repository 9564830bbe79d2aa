"""Quote services: numbering, validation, pricing from a price book, update and delete (all
audited), PDF and XLSX files read back, and the revision diff with cost and power deltas."""

from __future__ import annotations

import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone
from openpyxl import load_workbook
from pypdf import PdfReader

from inventory.models import PriceBook
from inventory.services import price_book_import_csv
from planner.analyses.power import power_budget
from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.bom import revision_bom, revision_bom_diff
from planner.designs.services import design_create, design_revise
from planner.quotes.models import Quote
from planner.quotes.services import (
    quote_create,
    quote_delete,
    quote_export,
    quote_price,
    quote_update,
)
from tests.factories import ONE_SU_SPEC

# Test prices (not real ones): a new and an MSRP offer for the switch, a EUR offer that a USD
# quote must ignore, nothing for the DGX-side module or the fibers.
PRICES_CSV = """part,price,currency,seller,condition,length_m
QM9700,30000,USD,Seller A,new,
QM9700,40000,USD,Seller A,msrp,
DGX-H100,300000,USD,Seller B,new,
MMA4Z00-NS,800,USD,Seller C,new,
MMA4Z00-NS,700,EUR,Seller D,new,
"""


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU_SPEC)


@pytest.fixture
def book(seed_catalog):
    book = PriceBook.objects.create(slug="test-book", name="Test book", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    return book


def _server_module(revision) -> str:
    """The module media chose for the DGX side (a flat-top twin-port 2xSR4; the book above
    has no price for it)."""
    (part,) = {
        line.part
        for line in revision_bom(revision).lines
        if line.category == "transceiver"
        and line.tier == "server-leaf"
        and line.part != "MMA4Z00-NS"
    }
    return part


def _quote(design, book, user, **terms):
    return quote_create(design=design, actor=user, customer="ACME Labs", price_book=book, **terms)


def test_numbers_are_sequential_per_year_and_creation_is_audited(design, book, user):
    first = _quote(design, book, user)
    second = _quote(design, book, user)
    year = timezone.localdate().year
    assert (first.number, second.number) == (f"Q-{year}-0001", f"Q-{year}-0002")
    assert first.currency == "USD"  # the book's
    assert first.revision == design.latest_revision
    assert first.valid_until == timezone.localdate() + timedelta(days=30)
    events = AuditEvent.objects.filter(action=AuditActionChoices.QUOTE_CHANGED)
    assert sorted(events.values_list("object_ref", flat=True)) == [first.number, second.number]
    quote_delete(quote=second, actor=user)
    assert _quote(design, book, user).number == f"Q-{year}-0003"  # a number is never reused


BAD_TERMS = [
    ({"margin_pct": 100}, "margin_pct"),
    ({"margin_pct": -5}, "margin_pct"),
    ({"discounts_pct": {"switch": 150}}, "discounts_pct"),
    ({"discounts_pct": {"widgets": 5}}, "discounts_pct"),
    ({"spares_pct": {"cable": -1}}, "spares_pct"),
    ({"valid_until": timezone.localdate()}, "valid_until"),
    ({"valid_until": date(9999, 12, 31)}, "valid_until"),  # issue 34: at most a year ahead
    ({"valid_until": timezone.localdate() + timedelta(days=367)}, "valid_until"),
    ({"currency": "dollars"}, "currency"),
]


def test_bad_terms_are_refused_by_field_and_nothing_is_written(design, book, user):
    for terms, field in BAD_TERMS:
        with pytest.raises(ValidationError) as caught:
            _quote(design, book, user, **terms)
        assert field in caught.value.message_dict, terms
    other = design_create(owner=user, spec_document={**ONE_SU_SPEC, "name": "Other"})
    with pytest.raises(ValidationError) as caught:
        _quote(design, book, user, revision=other.latest_revision)
    assert "revision" in caught.value.message_dict
    assert not Quote.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditActionChoices.QUOTE_CHANGED).exists()


def test_pricing_discounts_margin_spares_and_unpriced_parts(design, book, user):
    quote = _quote(
        design,
        book,
        user,
        discounts_pct={"switch": 10},
        margin_pct=25,
        spares_pct={"transceiver": 10},
    )
    document = quote_price(quote)
    priced = document.priced
    bom = revision_bom(design.latest_revision, spares_pct={"transceiver": 10})
    assert [p.line for p in priced.lines] == list(bom.lines)

    switches = [p for p in priced.lines if p.line.part == "QM9700"]
    assert switches and all(p.offer.condition == "new" for p in switches)
    # 10 % off 30,000 = 27,000 cost; 25 % margin on the sell price: 27,000 / 0.75 = 36,000
    assert {p.unit_cost for p in switches} == {Decimal("27000.00")}
    assert {p.unit_sell for p in switches} == {Decimal("36000.00")}
    optics = [p for p in priced.lines if p.line.part == "MMA4Z00-NS"]
    assert {p.offer.currency for p in optics} == {"USD"}  # the EUR offer is ignored
    assert {p.unit_sell for p in optics} == {Decimal("1066.67")}  # 800 / 0.75, half-up
    assert all(p.line.spares == -(-p.line.base_quantity * 10 // 100) for p in optics)

    unpriced = [p for p in priced.lines if not p.priced]
    assert {p.line.part for p in unpriced} >= {_server_module(design.latest_revision)}
    assert all(p.extended_sell is None and p.unpriced_reason for p in unpriced)
    expected = sum(p.unit_sell * p.line.quantity for p in priced.lines if p.priced)
    assert priced.sell_total == expected
    assert not priced.complete and priced.status.startswith("incomplete:")

    hidden = quote_price(quote, with_prices=False)
    assert hidden.priced is None
    assert "unit_sell" not in hidden.as_dict()["lines"][0]
    assert "totals" not in hidden.as_dict()


def test_msrp_condition_picks_the_msrp_offer(design, book, user):
    quote = _quote(design, book, user, price_condition="msrp")
    priced = quote_price(quote).priced
    switches = [p for p in priced.lines if p.line.part == "QM9700"]
    assert {p.unit_book for p in switches} == {Decimal("40000")}
    assert all(not p.priced for p in priced.lines if p.line.part == "DGX-H100")


def test_update_names_the_changed_fields_and_keeps_the_number(design, book, user):
    quote = _quote(design, book, user)
    changed = quote_update(quote=quote, actor=user, margin_pct=Decimal("12.5"), notes="Net 30")
    assert changed.number == quote.number
    assert changed.margin_pct == Decimal("12.5")
    event = AuditEvent.objects.filter(action=AuditActionChoices.QUOTE_CHANGED).first()
    assert "margin_pct" in event.summary and "notes" in event.summary
    assert event.details["fields"]["margin_pct"] == {"old": "0.00", "new": "12.5"}
    with pytest.raises(ValidationError):
        quote_update(quote=quote, actor=user, margin_pct=100)
    quote.refresh_from_db()
    assert quote.margin_pct == Decimal("12.5")  # nothing half-written
    with pytest.raises(TypeError):
        quote_update(quote=quote, actor=user, number="Q-1999-0001")


def test_pdf_holds_number_customer_validity_lines_totals_and_unpriced(design, book, user):
    quote = _quote(design, book, user, notes="Delivery in 8 weeks")
    with pytest.raises(PermissionDenied, match="price"):
        quote_export(quote=quote, actor=user, fmt="pdf", may_view_prices=False)
    assert not AuditEvent.objects.filter(action=AuditActionChoices.EXPORT_DOWNLOADED).exists()
    export = quote_export(quote=quote, actor=user, fmt="pdf", may_view_prices=True)
    assert export.content.startswith(b"%PDF")
    assert export.filename == f"{quote.number}.pdf"
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(export.content)).pages)
    priced = quote_price(quote).priced
    assert quote.number in text
    assert "ACME Labs" in text
    assert quote.valid_until.isoformat() in text
    assert "QM9700" in text and "Delivery in 8 weeks" in text
    assert f"{priced.sell_total:,.2f}" in text
    assert "Unpriced parts" in text and _server_module(design.latest_revision) in text
    assert priced.status in text
    event = AuditEvent.objects.get(action=AuditActionChoices.EXPORT_DOWNLOADED)
    assert event.object_ref == quote.number and event.details["format"] == "pdf"


def test_xlsx_totals_match_its_lines(design, book, user):
    quote = _quote(design, book, user, margin_pct=20)
    export = quote_export(quote=quote, actor=user, fmt="xlsx", may_view_prices=True)
    sheet = load_workbook(io.BytesIO(export.content)).active
    rows = list(sheet.iter_rows(values_only=True))
    header = rows.index(next(r for r in rows if r and r[0] == "Part"))
    columns = rows[header]
    lines = []
    for row in rows[header + 1 :]:
        if not row or row[0] is None:
            break
        lines.append(dict(zip(columns, row, strict=False)))
    assert len(lines) == len(quote_price(quote).priced.lines)
    priced_lines = [r for r in lines if r["Status"] == "priced"]
    unpriced_lines = [r for r in lines if r["Status"].startswith("unpriced")]
    assert unpriced_lines and all(r["Extended price"] is None for r in unpriced_lines)
    for row in priced_lines:
        assert (
            Decimal(str(row["Extended price"])) == Decimal(str(row["Unit price"])) * row["Quantity"]
        )
    total = next(r for r in rows if r and r[0] == "Total")
    expected = sum(Decimal(str(r["Extended price"])) for r in priced_lines)
    assert Decimal(str(total[14])).quantize(Decimal("0.01")) == expected
    assert total[15].startswith("incomplete:")
    assert rows[0][:2] == ("Quote", quote.number)


def test_revision_diff_parts_cost_and_power(design, book, user):
    old = design.latest_revision
    new = design_revise(
        design=design, user=user, spec_document={**ONE_SU_SPEC, "servers": 63}, base_revision=1
    )
    diff = revision_bom_diff(old, new, price_book=book)
    old_bom, new_bom = revision_bom(old), revision_bom(new)

    def total(bom, part):
        return sum(line.quantity for line in bom.lines if line.part == part)

    servers = next(r for r in diff.changed if r.part == "DGX-H100")
    assert (servers.old_quantity, servers.new_quantity) == (31, 63)
    switch = next(r for r in diff.rows if r.part == "QM9700")
    assert switch.delta == total(new_bom, "QM9700") - total(old_bom, "QM9700")
    assert diff.added or diff.changed
    expected_cost = sum(r.unit_price * r.delta for r in diff.rows if r.unit_price is not None)
    assert diff.cost_delta == expected_cost
    assert diff.cost_delta >= 32 * 300000  # at least the 32 servers added
    assert _server_module(new) in diff.unpriced_parts
    from planner.designs.adapters import catalog_facts
    from planner.designs.selectors import revision_fabric

    facts = catalog_facts()
    expected_w = (
        power_budget(revision_fabric(new), facts).total_w
        - power_budget(revision_fabric(old), facts).total_w
    )
    assert diff.power_delta_w == pytest.approx(expected_w)
    assert diff.power_delta_w > 0
    assert revision_bom_diff(old, new).cost_delta is None  # no book, no cost


def test_xlsx_text_cells_are_never_formulas(design, book, user):
    # Issue 14: a customer and notes written as formulas became live formulas in the XLSX.
    quote = quote_create(
        design=design,
        actor=user,
        customer='=HYPERLINK("http://evil.example","Click")',
        price_book=book,
        notes="=1+2",
    )
    export = quote_export(quote=quote, actor=user, fmt="xlsx", may_view_prices=True)
    sheet = load_workbook(io.BytesIO(export.content)).active
    cells = [cell for row in sheet.iter_rows() for cell in row if cell.value is not None]
    assert not [cell.coordinate for cell in cells if cell.data_type == "f"]
    by_label = {row[0].value: row[1] for row in sheet.iter_rows(max_col=2) if row[0].value}
    assert by_label["Customer"].value == '\'=HYPERLINK("http://evil.example","Click")'
    assert by_label["Customer"].data_type == "s"
    assert by_label["Notes"].value == "'=1+2"
    assert by_label["Margin %"].data_type == "n"  # numbers stay numbers
