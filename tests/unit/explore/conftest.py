"""Fixtures of the explorer's tests: the seed catalog and its price book, without Django."""

from decimal import Decimal

import pytest

from inventory.library.files import read_catalog_folder
from planner.domain.outputs.quote import PriceOffer, PriceTable
from tests.unit.conftest import SEED


@pytest.fixture(scope="module")
def seed_prices(facts):
    """The seed price book's offers as a :class:`PriceTable` (as test_price_coverage builds it)
    and a ``price_of`` that reads seen USD prices (what media ``auto`` and the budget prune use)."""
    files = read_catalog_folder(SEED)
    offers = [
        PriceOffer(
            p.part,
            Decimal(str(p.price)),
            p.currency,
            p.condition,
            p.length_m,
            p.seller,
            p.date,
            p.url,
            reference=str(index),
            grade=p.grade,
        )
        for index, p in enumerate(files.prices)
    ]
    lengths = {
        slug: part.get("lengths_m") or []
        for slug, part in facts.parts.items()
        if part.get("category") in ("cable", "fiber")
    }
    table = PriceTable(offers, part_lengths_m=lengths)

    def price_of(part):
        offer = table.lowest(part, currency="USD", seen_only=True)
        return None if offer is None else float(offer.amount)

    return table, price_of
