"""Quote arithmetic: offers per line, discounts, margin on sell price, rounding, missing
prices, currency mismatch, and the bill-of-materials diff."""

from decimal import Decimal

import pytest

from planner.domain.outputs.bom import BillOfMaterials, BomLine
from planner.domain.outputs.bom_diff import bom_diff
from planner.domain.outputs.quote import (
    CurrencyMismatchError,
    PriceChoice,
    PriceOffer,
    PriceTable,
    QuoteError,
    QuoteTerms,
    price_quote,
)


def line(part, category, quantity, *, length_m=None, tier="leaf", spares=0):
    return BomLine(
        part=part,
        part_number=f"PN-{part}",
        name=f"Name of {part}",
        manufacturer="acme",
        category=category,
        tier=tier,
        length_m=length_m,
        base_quantity=quantity - spares,
        spares=spares,
        quantity=quantity,
        counted_per="device",
    )


def bom(*lines):
    return BillOfMaterials(lines=tuple(lines), spares_pct={})


def usd(part, amount, **extra):
    return PriceOffer(part=part, amount=Decimal(amount), currency="USD", **extra)


SWITCH = line("SW", "switch", 4)
OPTIC = line("OPT", "transceiver", 10, spares=2)
CABLE = line("AOC", "cable", 3, length_m=5.0, tier="leaf-spine")


def test_a_line_ordering_nothing_is_not_quoted():
    """Issue 33: a rack-scale system's tray line without spares orders nothing (count 0);
    it is neither priced nor reported unpriced."""
    trays = line("TRAY", "server", 0)
    quote = price_quote(
        bom(SWITCH, trays), {("SW", None): usd("SW", "1000")}, QuoteTerms("USD", {})
    )
    assert [p.line.part for p in quote.lines] == ["SW"]
    assert quote.complete
    spared = price_quote(
        bom(SWITCH, line("TRAY", "server", 2, spares=2)),
        {("SW", None): usd("SW", "1000")},
        QuoteTerms("USD", {}),
    )
    assert not spared.complete  # ordered spares without a price are unpriced, as any part
    # nor is it a change between two bills (a revision that gained the tray line)
    diff = bom_diff(bom(SWITCH), bom(SWITCH, trays))
    assert not (diff.added or diff.removed or diff.changed)


def test_discount_per_category_then_margin_on_sell_price():
    quote = price_quote(
        bom(SWITCH, OPTIC),
        {("SW", None): usd("SW", "1000"), ("OPT", None): usd("OPT", "200")},
        QuoteTerms("USD", {"switch": 10}, margin_pct=20),
    )
    switch, optic = quote.lines
    # switch: 10 % off 1000 -> cost 900; 20 % margin on the sell price -> 900 / 0.8 = 1125
    assert switch.unit_cost == Decimal("900.00")
    assert switch.unit_sell == Decimal("1125.00")
    assert switch.unit_sell * (1 - Decimal("0.20")) == switch.unit_cost  # margin, not markup
    assert switch.extended_sell == Decimal("4500.00")
    # optics: no discount for the category; quantity 10 includes 2 spares
    assert optic.discount_pct == 0
    assert optic.unit_cost == Decimal("200.00")
    assert optic.unit_sell == Decimal("250.00")
    assert optic.extended_sell == Decimal("2500.00")
    assert quote.cost_total == 4 * Decimal(900) + 10 * Decimal(200)
    assert quote.sell_total == Decimal("7000.00")
    assert quote.margin_total == quote.sell_total - quote.cost_total
    assert [c.category for c in quote.categories] == ["switch", "transceiver"]
    assert quote.categories[0].sell == Decimal("4500.00")
    assert quote.complete and quote.status == "complete"


def test_zero_margin_and_full_discount():
    quote = price_quote(
        bom(SWITCH), {("SW", None): usd("SW", "999.99")}, QuoteTerms("USD", {"switch": 100})
    )
    assert quote.lines[0].unit_cost == Decimal("0.00")
    assert quote.sell_total == Decimal("0.00")
    assert quote.complete


def test_missing_prices_are_listed_never_counted_as_zero():
    quote = price_quote(
        bom(SWITCH, OPTIC, CABLE),
        {
            ("SW", None): usd("SW", "1000"),
            ("OPT", None): PriceChoice(None, "no offer in USD (offers in EUR)"),
            # the cable's key is missing altogether
        },
        QuoteTerms("USD"),
    )
    switch, optic, cable = quote.lines
    assert switch.priced and not optic.priced and not cable.priced
    assert optic.unit_sell is None and optic.extended_sell is None
    assert optic.unpriced_reason == "no offer in USD (offers in EUR)"
    assert cable.unpriced_reason  # says why
    assert quote.sell_total == Decimal("4000.00")  # the priced line only
    assert not quote.complete
    assert quote.unpriced_lines == 2
    assert quote.unpriced_parts == ("OPT", "AOC (5 m)")
    assert quote.status == "incomplete: 2 parts unpriced"
    by_category = {c.category: c for c in quote.categories}
    assert by_category["transceiver"].unpriced_lines == 1
    assert not by_category["transceiver"].complete
    totals = quote.as_dict()["totals"]
    assert totals["complete"] is False and totals["unpriced_parts"] == ["OPT", "AOC (5 m)"]
    assert quote.as_dict()["lines"][1]["unit_sell"] is None


def test_rounding_half_up_at_the_line_level():
    quote = price_quote(
        bom(line("A", "nic", 3), line("B", "nic", 1)),
        {("A", None): usd("A", "10"), ("B", None): usd("B", "10.005")},
        QuoteTerms("USD", margin_pct=33),
    )
    a, b = quote.lines
    # 10 / 0.67 = 14.92537...; the unit is rounded, then multiplied: 3 * 14.93 = 44.79
    assert a.unit_sell == Decimal("14.93")
    assert a.extended_sell == Decimal("44.79")  # rounding 3 * 14.925... would give 44.78
    # 10.005 is rounded half-up (banker's rounding would give 10.00)
    assert b.unit_cost == Decimal("10.01")
    assert b.unit_sell == Decimal("14.94")  # 10.01 / 0.67 = 14.9402...
    assert quote.sell_total == a.extended_sell + b.extended_sell
    assert quote.as_dict()["lines"][0]["unit_sell"] == "14.93"


def test_currency_mismatch_is_a_clear_error():
    with pytest.raises(CurrencyMismatchError) as caught:
        price_quote(
            bom(SWITCH),
            {("SW", None): PriceOffer("SW", Decimal("900"), "EUR")},
            QuoteTerms("USD"),
        )
    assert caught.value.field == "prices.SW"
    assert "EUR" in str(caught.value) and "USD" in str(caught.value)


@pytest.mark.parametrize(
    ("terms", "field"),
    [
        (QuoteTerms("USD", {"switch": 101}), "discounts_pct.switch"),
        (QuoteTerms("USD", {"switch": -1}), "discounts_pct.switch"),
        (QuoteTerms("USD", {"switch": "ten"}), "discounts_pct.switch"),
        (QuoteTerms("USD", {"widgets": 5}), "discounts_pct.widgets"),
        (QuoteTerms("USD", margin_pct=100), "margin_pct"),
        (QuoteTerms("USD", margin_pct="nan"), "margin_pct"),
        (QuoteTerms("usd"), "currency"),
    ],
)
def test_bad_terms_name_the_field(terms, field):
    with pytest.raises(QuoteError) as caught:
        price_quote(bom(SWITCH), {}, terms)
    assert caught.value.field == field


OFFERS = [
    usd("SW", "1000", seller="B"),
    usd("SW", "950", seller="A"),
    usd("SW", "400", seller="C", condition="used"),
    PriceOffer("SW", Decimal("800"), "EUR"),
    usd("AOC", "120", length_m=3.0),
    usd("AOC", "150", length_m=5.0),
    usd("AOC", "99"),  # no length named
    usd("DAC-1M", "40"),
    PriceOffer("EU-ONLY", Decimal("10"), "EUR"),
]
TABLE = PriceTable(OFFERS, part_lengths_m={"AOC": [3, 5, 7], "DAC-1M": [1]})


def test_price_table_picks_the_lowest_offer_of_the_condition_and_currency():
    assert TABLE.choose("SW", None, currency="USD").offer.seller == "A"
    assert TABLE.choose("SW", None, currency="USD", condition="used").offer.amount == 400
    assert TABLE.choose("SW", None, currency="EUR").offer.amount == 800
    assert TABLE.lowest("SW", currency="USD").amount == 950


def test_price_table_lengths():
    assert TABLE.choose("AOC", 5.0, currency="USD").offer.amount == 150
    assert TABLE.choose("AOC", 3.0004, currency="USD").offer.amount == 120
    # a part in several lengths: an offer without a length does not price 7 m
    seven = TABLE.choose("AOC", 7.0, currency="USD")
    assert seven.offer is None and "7 m" in seven.reason and "3, 5" in seven.reason
    # a fixed-length part number: its offer (no length given) prices the line
    assert TABLE.choose("DAC-1M", 1.0, currency="USD").offer.amount == 40


def test_price_table_reasons_for_unpriced_parts():
    assert TABLE.choose("NOPE", None, currency="USD").reason == "not in the price book"
    assert "offers in EUR" in TABLE.choose("EU-ONLY", None, currency="USD").reason
    assert "no msrp offer" in TABLE.choose("SW", None, currency="USD", condition="msrp").reason


def test_bom_diff_parts_added_removed_changed_with_cost_and_power():
    old = bom(SWITCH, OPTIC, line("OLD", "nic", 2))
    new = bom(
        line("SW", "switch", 6),  # changed 4 -> 6
        OPTIC,  # unchanged: not listed
        CABLE,  # added, unpriced
        line("AOC", "cable", 1, length_m=3.0),  # added, priced
    )
    diff = bom_diff(
        old,
        new,
        prices={
            ("SW", None): usd("SW", "1000"),
            ("AOC", 3.0): usd("AOC", "120", length_m=3.0),
            ("OLD", None): usd("OLD", "50"),
        },
        currency="USD",
        old_power_w=1500.0,
        new_power_w=2100.5,
    )
    assert [(r.part, r.delta) for r in diff.changed] == [("SW", 2)]
    assert [(r.part, r.length_m) for r in diff.added] == [("AOC", 3.0), ("AOC", 5.0)]
    assert [(r.part, r.old_quantity) for r in diff.removed] == [("OLD", 2)]
    assert diff.cost_delta == 2 * Decimal(1000) + 120 - 2 * 50
    assert diff.unpriced_parts == ("AOC (5 m)",)
    assert not diff.cost_complete
    assert diff.power_delta_w == pytest.approx(600.5)
    public = diff.as_dict(with_prices=False)
    assert "cost" not in public and "unit_price" not in public["added"][0]


def test_bom_diff_without_prices_or_power():
    diff = bom_diff(bom(SWITCH), bom(SWITCH, OPTIC))
    assert diff.cost_delta is None and diff.power_delta_w is None
    assert [r.part for r in diff.added] == ["OPT"]
    with pytest.raises(QuoteError):
        bom_diff(bom(SWITCH), bom(OPTIC), prices={})  # prices need their currency
    with pytest.raises(CurrencyMismatchError):
        bom_diff(bom(), bom(SWITCH), prices={("SW", None): usd("SW", "1")}, currency="EUR")


def test_subtotals_per_network_when_the_bill_has_other_networks():
    """Issue 18: a quote of a cluster gives a subtotal per network (the compute fabric's tiers
    together, each other network its own), adding up to the totals; a compute-only bill has
    none."""
    storage_switch = line("QM", "switch", 2, tier="storage")
    oob_cable = line("CAT5E", "cable", 30, length_m=3.0, tier="oob")
    unpriced = line("PDU", "server", 6, tier="management")
    prices = {
        ("SW", None): usd("SW", "1000"),
        ("AOC", 5.0): usd("AOC", "100", length_m=5.0),
        ("QM", None): usd("QM", "20000"),
        ("CAT5E", 3.0): usd("CAT5E", "4", length_m=3.0),
    }
    quote = price_quote(
        bom(SWITCH, CABLE, storage_switch, oob_cable, unpriced),
        prices,
        QuoteTerms("USD", {}, margin_pct=0),
    )
    by_network = {n.category: n for n in quote.networks}
    assert list(by_network) == ["compute", "storage", "oob", "management"]
    assert by_network["compute"].sell == Decimal(4 * 1000 + 3 * 100)
    assert by_network["storage"].sell == Decimal(2 * 20000)
    assert by_network["oob"].quantity == 30 and by_network["oob"].sell == Decimal(120)
    assert by_network["management"].unpriced_lines == 1 and by_network["management"].sell == 0
    assert sum(n.sell for n in quote.networks) == quote.sell_total
    assert quote.as_dict()["networks"][1] == {
        "network": "storage",
        "lines": 1,
        "unpriced_lines": 0,
        "quantity": 2,
        "cost": "40000.00",
        "sell": "40000.00",
    }
    plain = price_quote(bom(SWITCH, CABLE), prices, QuoteTerms("USD", {}, margin_pct=0))
    assert plain.networks == () and plain.as_dict()["networks"] == []
