"""Money done right (issue 22, item 2): Decimal throughout, one rounding rule (half-up to the
currency's minor unit on each line, totals summed from the rounded lines), and offers in
another currency converted with a dated exchange rate."""

from decimal import Decimal

import pytest

from planner.domain.outputs.bom import BillOfMaterials, BomLine
from planner.domain.outputs.quote import (
    ROUNDING_RULE,
    CurrencyMismatchError,
    ExchangeRate,
    PriceOffer,
    PriceTable,
    QuoteTerms,
    format_money,
    minor_unit,
    price_quote,
    prices_for,
    round_money,
)
from planner.domain.outputs.quote_versions import freeze, moved_prices, thaw


def line(part, category, quantity, *, length_m=None):
    return BomLine(
        part=part,
        part_number=f"PN-{part}",
        name=f"Name of {part}",
        manufacturer="acme",
        category=category,
        tier="leaf",
        length_m=length_m,
        base_quantity=quantity,
        spares=0,
        quantity=quantity,
        counted_per="device",
    )


def bom(*lines):
    return BillOfMaterials(lines=tuple(lines), spares_pct={})


#: Prices that round awkwardly under most discounts and margins (test figures, not real ones).
AWKWARD = ["0.01", "0.05", "1.005", "9.99", "10.015", "333.33", "1234.565", "29753.19"]
LINES = [line(f"P{i}", "switch" if i % 2 else "transceiver", 1 + 7 * i) for i in range(8)]


@pytest.mark.parametrize("discount", ["0", "12.5", "33.33", "17.25", "99.99", "100"])
@pytest.mark.parametrize("margin", ["0", "7.77", "23.47", "33.33", "66.67", "99.99"])
@pytest.mark.parametrize("currency", ["USD", "JPY", "KWD"])
def test_the_total_is_the_sum_of_the_rounded_lines(discount, margin, currency):
    offers = {
        (item.part, None): PriceOffer(item.part, Decimal(amount), currency)
        for item, amount in zip(LINES, AWKWARD, strict=True)
    }
    terms = QuoteTerms(currency, {"switch": discount, "transceiver": "3.3"}, margin_pct=margin)
    quote = price_quote(bom(*LINES), offers, terms)
    places = Decimal(1).scaleb(-minor_unit(currency))
    for priced in quote.lines:
        # every unit is at the currency's minor unit, and the line is quantity x unit exactly
        assert priced.unit_cost == priced.unit_cost.quantize(places)
        assert priced.unit_sell == priced.unit_sell.quantize(places)
        assert priced.extended_sell == priced.unit_sell * priced.line.quantity
        assert priced.unit_sell >= priced.unit_cost  # a margin never sells below cost
    assert quote.sell_total == sum(p.extended_sell for p in quote.lines)
    assert quote.cost_total == sum(p.extended_cost for p in quote.lines)
    assert sum(c.sell for c in quote.categories) == quote.sell_total
    # the printed figures add up too: the JSON's line totals sum to its total, digit for digit
    data = quote.as_dict()
    assert sum(Decimal(x["extended_sell"]) for x in data["lines"]) == Decimal(
        data["totals"]["sell"]
    )
    assert all(isinstance(x["unit_sell"], str) for x in data["lines"])  # never floats


def test_rounding_is_half_up_to_the_minor_unit_and_stated_once():
    assert round_money(Decimal("0.125"), "USD") == Decimal("0.13")  # banker's: 0.12
    assert round_money(Decimal("0.135"), "USD") == Decimal("0.14")
    assert round_money(Decimal("2.5"), "JPY") == Decimal("3")  # banker's: 2
    assert round_money(Decimal("1.0005"), "KWD") == Decimal("1.001")
    assert (minor_unit("EUR"), minor_unit("JPY"), minor_unit("XYZ")) == (2, 0, 2)
    assert format_money(Decimal("1500"), "JPY") == "1500"
    assert "half-up" in ROUNDING_RULE and "sums of the lines" in ROUNDING_RULE
    # 1 unit at 0.125 with no discount and no margin is 0.13: the book price is rounded once
    quote = price_quote(
        bom(line("A", "nic", 3)),
        {("A", None): PriceOffer("A", Decimal("0.125"), "USD")},
        QuoteTerms("USD"),
    )
    assert (quote.lines[0].unit_sell, quote.sell_total) == (Decimal("0.13"), Decimal("0.39"))


RATE = ExchangeRate("USD", "EUR", Decimal("0.9137"), "2026-01-05", "Test rate", "https://x.test/")


def test_offers_in_another_currency_convert_with_the_rate_and_keep_it():
    table = PriceTable(
        [
            PriceOffer("SW", Decimal("1000.00"), "USD", seller="US seller"),
            PriceOffer("OPT", Decimal("333.33"), "USD"),
            PriceOffer("OPT", Decimal("310.00"), "EUR", seller="EU seller"),
            PriceOffer("GBP-ONLY", Decimal("5"), "GBP"),
        ]
    )
    lines = bom(line("SW", "switch", 3), line("OPT", "transceiver", 2), line("GBP-ONLY", "nic", 1))
    prices = prices_for(lines, table, currency="EUR", condition="new", rates={"USD": RATE})
    quote = price_quote(lines, prices, QuoteTerms("EUR", {"switch": "10"}, margin_pct="20"))
    switch, optic, other = quote.lines
    # 1000 USD x 0.9137 = 913.70 EUR (rounded once), then 10 % off and a 20 % margin
    assert switch.rate == RATE and switch.offer.currency == "USD"
    assert switch.unit_book == Decimal("913.70")
    assert switch.unit_cost == Decimal("822.33")  # 913.70 x 0.9 = 822.33
    assert switch.unit_sell == Decimal("1027.91")  # 822.33 / 0.8 = 1027.9125
    # an offer in the quote's own currency wins over a converted one (310 EUR, not 304.56)
    assert optic.rate is None and optic.offer.seller == "EU seller"
    # no rate from GBP: unpriced, naming the missing rate
    assert not other.priced and "no exchange rate from GBP to EUR" in other.unpriced_reason
    assert quote.exchange_rates == (RATE,)
    data = quote.as_dict()
    assert data["exchange_rates"] == [RATE.as_dict()] and data["exchange_rates"][0]["rate"] == (
        "0.9137"
    )
    assert data["lines"][0]["source"]["exchange_rate"]["valid_from"] == "2026-01-05"
    assert data["lines"][0]["source"]["amount"] == "1000.00"
    # frozen and thawed with its rate; a new rate is not a book-price move
    assert thaw(freeze(lines, quote)) == (lines, quote)
    newer = ExchangeRate("USD", "EUR", Decimal("0.95"), "2026-02-01", "Test rate")
    assert moved_prices(quote, table, condition="new", rates={"USD": newer}) == ()


def test_an_offer_in_another_currency_without_its_rate_is_refused():
    offer = PriceOffer("SW", Decimal("900"), "USD")
    with pytest.raises(CurrencyMismatchError) as caught:
        price_quote(bom(line("SW", "switch", 1)), {("SW", None): offer}, QuoteTerms("EUR"))
    assert caught.value.field == "prices.SW" and "no exchange rate" in caught.value.message
    other_pair = ExchangeRate("GBP", "EUR", Decimal("1.1"), "2026-01-05")
    table = PriceTable([offer])
    choice = table.choose("SW", None, currency="EUR", rates={"GBP": other_pair})
    assert choice.offer is None and "no exchange rate from USD to EUR" in choice.reason


@pytest.mark.parametrize("amount", ["-1", "NaN", "Infinity"])
def test_a_negative_or_non_numeric_price_is_refused_naming_it(amount):
    offer = PriceOffer("SW", Decimal(amount), "USD")
    with pytest.raises(ValueError) as caught:
        price_quote(bom(line("SW", "switch", 1)), {("SW", None): offer}, QuoteTerms("USD"))
    assert caught.value.field == "prices.SW"
