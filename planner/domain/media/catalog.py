"""The catalog's media parts (transceivers, cables, fibers) and their prices."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import FabricError

PriceOf = Callable[[str], float | None] | None


@dataclass
class MediaCatalog:
    """The catalog's media parts by canonical slug, with their compat dataclasses."""

    facts: CatalogFacts
    price_of: PriceOf
    transceivers: list[dict] = field(default_factory=list)
    cables: list[dict] = field(default_factory=list)
    fibers: list[dict] = field(default_factory=list)
    _prices: dict = field(default_factory=dict)

    def __post_init__(self):
        seen = set()
        for slug in sorted(self.facts.parts):
            part = self.facts.parts[slug]
            if part.get("slug", slug) != slug or slug in seen:
                continue  # an alias
            seen.add(slug)
            bucket = {"transceiver": self.transceivers, "cable": self.cables, "fiber": self.fibers}
            if part.get("category") in bucket:
                bucket[part["category"]].append(part)

    def price(self, slug: str | None) -> float | None:
        if slug is None:
            return 0.0
        if slug not in self._prices:
            value = self.price_of(slug) if self.price_of else None
            self._prices[slug] = float(value) if value is not None else None
        return self._prices[slug]

    def named(self, slug: str, categories: tuple[str, ...], field_name: str) -> dict:
        part = self.facts.parts.get(slug)
        if part is None or part.get("category") not in categories:
            kinds = " or ".join(categories)
            raise FabricError(f"{slug!r} is not a {kinds} in the catalog", field=field_name)
        return part
