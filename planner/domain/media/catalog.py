"""The catalog's media parts (transceivers, cables, fibers) and their prices."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from inventory.library.compat import Fiber, Optic, Plug, fiber_fits_optic
from inventory.library.facts import cable_plugs_of, fiber_of, optic_of, plug_of
from inventory.library.rules import Violation
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import FabricError

PriceOf = Callable[[str], float | None] | None


@dataclass
class MediaCatalog:
    """The catalog's media parts by canonical slug, with their compat dataclasses.

    A part's compat dataclasses (:meth:`plug`, :meth:`optic`, :meth:`fiber`,
    :meth:`cable_plugs`) and whether a fiber plugs into a module (:meth:`fiber_fits`) are worked
    out once per part (pair) and kept while the catalog is in use (one build): the candidate
    search asks them for every module pair of every link group, a few thousand times per
    design (about half of its time before).
    """

    facts: CatalogFacts
    price_of: PriceOf
    transceivers: list[dict] = field(default_factory=list)
    cables: list[dict] = field(default_factory=list)
    fibers: list[dict] = field(default_factory=list)
    _prices: dict = field(default_factory=dict)
    _derived: dict = field(default_factory=dict, repr=False)

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

    def _once(self, kind: str, key, make):
        found = self._derived.get((kind, key))
        if found is None:
            found = self._derived[(kind, key)] = make()
        return found

    def plug(self, part: dict) -> Plug:
        """The :class:`~inventory.library.compat.Plug` of a transceiver record."""
        return self._once("plug", part["slug"], lambda: plug_of(part))

    def optic(self, part: dict) -> Optic:
        """The :class:`~inventory.library.compat.Optic` of a transceiver record."""
        return self._once("optic", part["slug"], lambda: optic_of(part))

    def fiber(self, part: dict) -> Fiber:
        """The :class:`~inventory.library.compat.Fiber` of a fiber record."""
        return self._once("fiber", part["slug"], lambda: fiber_of(part))

    def cable_plugs(self, part: dict) -> tuple[Plug, Plug]:
        """The head and one leg of a cable-assembly record
        (:func:`~inventory.library.facts.cable_plugs_of`)."""
        return self._once("cable", part["slug"], lambda: cable_plugs_of(part))

    def fiber_fits(self, fiber: dict, module: dict) -> list[Violation]:
        """:func:`~inventory.library.compat.fiber_fits_optic` of a fiber and a transceiver
        record (a shared list: read it, do not change it)."""
        key = (fiber["slug"], module["slug"])
        return self._once(
            "fits", key, lambda: fiber_fits_optic(self.fiber(fiber), self.optic(module))
        )

    def named(self, slug: str, categories: tuple[str, ...], field_name: str) -> dict:
        part = self.facts.parts.get(slug)
        if part is None or part.get("category") not in categories:
            kinds = " or ".join(categories)
            raise FabricError(f"{slug!r} is not a {kinds} in the catalog", field=field_name)
        return part
