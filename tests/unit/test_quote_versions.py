"""Sent quotes without a database: the snapshot reads back equal (and survives JSON), the diff
of two versions names each line's change, and moved book prices are found."""

import json
from decimal import Decimal

import pytest

from planner.domain.outputs.bom import BillOfMaterials, BomLine
from planner.domain.outputs.quote import PriceOffer, PriceTable, QuoteTerms, price_quote
from planner.domain.outputs.quote_versions import freeze, moved_prices, quote_diff, thaw


def line(part, category, quantity, *, length_m=None, tier="leaf"):
    return BomLine(
        part=part,
        part_number=f"PN-{part}",
        name=f"Name of {part}",
        manufacturer="acme",
        category=category,
        tier=tier,
        length_m=length_m,
        base_quantity=quantity,
        spares=0,
        quantity=quantity,
        counted_per="device",
    )


def usd(part, amount, **extra):
    return PriceOffer(part=part, amount=Decimal(amount), currency="USD", **extra)


def priced(lines, offers, *, margin="12.5"):
    bom = BillOfMaterials(lines=tuple(lines), spares_pct={"switch": 5.0}, notes=("a note",))
    table = PriceTable(offers)
    prices = {(x.part, x.length_m): table.choose(x.part, x.length_m, currency="USD") for x in lines}
    return bom, price_quote(bom, prices, QuoteTerms("USD", {"switch": "7.5"}, margin))


SW = line("SW", "switch", 4)
OOB = line("OOB-SW", "switch", 2, tier="oob")
AOC = line("AOC", "cable", 3, length_m=5.0, tier="leaf-spine")
OPT = line("OPT", "transceiver", 8)


def test_snapshot_reads_back_equal_through_json():
    offers = [
        usd("SW", "1234.57", seller="Seller A", as_of="2026-01", source_url="https://x.test/sw"),
        usd("OOB-SW", "99.99"),
        usd("AOC", "10.01", length_m=5.0),
    ]
    bom, quote = priced([SW, OOB, AOC, OPT], offers)  # OPT has no offer: unpriced
    assert quote.networks and not quote.complete  # subtotals per network, an unpriced line
    stored = json.loads(json.dumps(freeze(bom, quote)))
    assert thaw(stored) == (bom, quote)
    again_bom, again = thaw(stored)
    assert again.as_dict() == quote.as_dict()  # the API answer, to the character
    assert again.lines[0].offer.source_url == "https://x.test/sw"
    assert again.lines[3].unpriced_reason == quote.lines[3].unpriced_reason != ""
    with pytest.raises(ValueError, match="snapshot"):
        thaw({**stored, "format": 99})


def test_diff_names_added_removed_price_quantity_and_offer_changes():
    _, old = priced([SW, AOC, OPT], [usd("SW", "1000"), usd("AOC", "10", length_m=5.0)])
    more_sw = line("SW", "switch", 6)
    _, new = priced(
        [more_sw, AOC, OOB],
        [
            usd("SW", "1000"),
            usd("AOC", "12", length_m=5.0, seller="Seller B"),
            usd("OOB-SW", "50"),
        ],
    )
    diff = quote_diff(old, new)
    by_part = {row.part: row for row in diff.rows}
    assert by_part["SW"].change == "changed" and by_part["SW"].changes == ("quantity",)
    assert by_part["AOC"].changes == ("price", "offer")
    assert by_part["OOB-SW"].change == "added" and by_part["OOB-SW"].old_quantity == 0
    assert by_part["OPT"].change == "removed" and by_part["OPT"].new_quantity == 0
    assert [row.part for row in diff.price_changes] == ["AOC"]
    assert diff.unchanged_lines == 0
    assert diff.sell_delta == new.sell_total - old.sell_total
    assert sum(row.sell_delta or 0 for row in diff.rows) == diff.sell_delta
    hidden = diff.as_dict(with_prices=False)
    assert "totals" not in hidden
    assert [row["part"] for row in hidden["changed"]] == ["SW"]  # the price-only row is left out
    assert not any("sell" in key for row in hidden["changed"] for key in row)
    shown = diff.as_dict(with_prices=True)
    assert shown["totals"]["sell_delta"] == f"{diff.sell_delta:.2f}"


def test_same_versions_have_no_rows_and_a_zero_delta():
    _, old = priced([SW, AOC], [usd("SW", "1000"), usd("AOC", "10", length_m=5.0)])
    diff = quote_diff(old, old)
    assert diff.rows == () and diff.unchanged_lines == 2 and diff.sell_delta == 0


def test_moved_prices_are_the_parts_whose_book_price_differs():
    _, sent = priced([SW, AOC, OPT], [usd("SW", "1000"), usd("AOC", "10", length_m=5.0)])
    same = PriceTable([usd("SW", "1000.00", seller="other"), usd("AOC", "10", length_m=5.0)])
    assert moved_prices(sent, same, condition="new") == ()
    today = PriceTable([usd("SW", "1100"), usd("AOC", "10", length_m=5.0), usd("OPT", "5")])
    moves = {
        move.label: (move.sent, move.today) for move in moved_prices(sent, today, condition="new")
    }
    assert moves == {"SW": (Decimal("1000"), Decimal("1100")), "OPT": (None, Decimal("5"))}
