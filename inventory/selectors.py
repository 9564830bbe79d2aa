"""Reads of the catalog: filtered lists, the "works with" section of a part, and the exchange
rates valid on a day."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from inventory.adapters import part_record
from inventory.library.works_with import Catalog
from inventory.library.works_with import works_with as library_works_with
from inventory.models import CATEGORY_MODELS, CatalogPart, ExchangeRate, Price


@dataclass
class WorksWith:
    """Compatible parts, by section; each entry is ``(part, how)``."""

    sections: dict[str, list[tuple[CatalogPart, str]]] = field(default_factory=dict)

    def add(self, section: str, part: CatalogPart, how: str) -> None:
        entries = self.sections.setdefault(section, [])
        if all(existing.slug != part.slug for existing, _ in entries):
            entries.append((part, how))

    def as_dict(self) -> dict:
        return {
            section: [
                {"category": p.CATEGORY, "slug": p.slug, "name": p.name, "how": how}
                for p, how in entries
            ]
            for section, entries in self.sections.items()
        }


def works_with(part: CatalogPart) -> WorksWith:
    """What fits ``part``: :func:`inventory.library.works_with.works_with` over the catalog's
    records (one query per category), the parts as rows."""
    rows: dict[tuple[str, str], CatalogPart] = {}
    aliases: dict[str, str] = {}
    for category, model in CATEGORY_MODELS.items():
        if category == "rack":
            continue
        for row in model.objects.select_related("manufacturer"):
            rows[category, row.slug] = row
            aliases.update(dict.fromkeys(row.aliases or [], row.slug))
    catalog = Catalog([part_record(row) for row in rows.values()], aliases)
    result = WorksWith()
    for section, category, slug, how in library_works_with(part_record(part), catalog):
        result.add(section, rows[category, slug], how)
    return result


def part_prices(part: CatalogPart, *, books=None, include_archived=False) -> list[Price]:
    """The part's price in every book, or in ``books`` only (those a user may read; the UI
    shows "unpriced" where there is none); archived offers only with ``include_archived``."""
    prices = Price.objects.filter(part_category=part.CATEGORY, part_slug=part.slug)
    if not include_archived:
        prices = prices.for_pricing()
    if books is not None:
        prices = prices.filter(book__in=[book.pk for book in books])
    return list(prices.select_related("book").order_by("book__name"))


def exchange_rates_valid_on(to_currency: str, day: date) -> dict[str, ExchangeRate]:
    """The rate into ``to_currency`` from every currency that has one on ``day``: per pair the
    rate with the latest ``valid_from`` on or before ``day``, by the currency it converts
    from. Rates are per direction: a USD -> EUR rate does not convert EUR into USD."""
    rows = ExchangeRate.objects.filter(to_currency=to_currency, valid_from__lte=day).order_by(
        "from_currency", "-valid_from"
    )
    found: dict[str, ExchangeRate] = {}
    for row in rows:
        found.setdefault(row.from_currency, row)
    return found
