"""Reads of the catalog: filtered lists and the "works with" section of a part."""

from __future__ import annotations

from dataclasses import dataclass, field

from inventory.adapters import cable_plugs, cages_of, fiber_of, optic_of, plug_of
from inventory.library.compat import fiber_fits_optic, optics_interoperate, plug_fits_cage
from inventory.models import (
    CableAssembly,
    CatalogPart,
    FiberCable,
    NICModel,
    Price,
    PriceBook,
    ServerModel,
    SwitchModel,
    Transceiver,
)


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


def _fits_any(plug, cages) -> str | None:
    for cage in cages:
        if not plug_fits_cage(plug, cage):
            return cage.label
    return None


def _hosts():
    return [*NICModel.objects.all(), *ServerModel.objects.all()]


def works_with(part: CatalogPart) -> WorksWith:
    """What fits ``part``, computed by the same rule functions as the link validator."""
    result = WorksWith()
    modules = list(Transceiver.objects.all())
    cables = list(CableAssembly.objects.all())
    if isinstance(part, SwitchModel | NICModel | ServerModel):
        cages = cages_of(part)
        fitting_modules = [m for m in modules if _fits_any(plug_of(m), cages)]
        for module in fitting_modules:
            result.add("Transceivers", module, f"fits {_fits_any(plug_of(module), cages)}")
        for cable in cables:
            head, leg = cable_plugs(cable)
            if _fits_any(head, cages):
                result.add("Cables", cable, "A end (head) fits")
            elif _fits_any(leg, cages):
                result.add("Cables", cable, "B end (leg) fits")
        # Peers: the other side of a cable or of a module pair.
        others = _hosts() if isinstance(part, SwitchModel) else list(SwitchModel.objects.all())
        for other in others:
            other_cages = cages_of(other)
            how = _peer_via_cable(cages, other_cages, cables) or _peer_via_optics(
                fitting_modules, other_cages, modules
            )
            if how:
                result.add("Peers", other, how)
    elif isinstance(part, Transceiver):
        plug, optic = plug_of(part), optic_of(part)
        for other in [*SwitchModel.objects.all(), *_hosts()]:
            label = _fits_any(plug, cages_of(other))
            if label:
                result.add("Cages", other, f"fits {label}")
        for other in modules:
            if other.slug != part.slug and not optics_interoperate(optic, optic_of(other)):
                result.add("Peer modules", other, "links end to end")
        for fiber in FiberCable.objects.all():
            if not fiber_fits_optic(fiber_of(fiber), optic):
                result.add("Fibers", fiber, f"{fiber.topology or 'straight'} fiber fits")
    elif isinstance(part, CableAssembly):
        head, leg = cable_plugs(part)
        for other in [*SwitchModel.objects.all(), *_hosts()]:
            cages = cages_of(other)
            if _fits_any(head, cages):
                result.add("A end (head) fits", other, _fits_any(head, cages))
            if _fits_any(leg, cages):
                result.add("B end (legs) fit", other, _fits_any(leg, cages))
    elif isinstance(part, FiberCable):
        fiber = fiber_of(part)
        for module in modules:
            if not fiber_fits_optic(fiber, optic_of(module)):
                result.add("Transceivers", module, "fiber plugs in")
    return result


def _peer_via_cable(cages_a, cages_b, cables) -> str | None:
    for cable in cables:
        head, leg = cable_plugs(cable)
        if _fits_any(head, cages_a) and _fits_any(leg, cages_b):
            return f"cable {cable.slug}"
        if _fits_any(head, cages_b) and _fits_any(leg, cages_a):
            return f"cable {cable.slug}"
    return None


def _peer_via_optics(modules_a, cages_b, modules) -> str | None:
    modules_b = [m for m in modules if _fits_any(plug_of(m), cages_b)]
    for a in modules_a:
        for b in modules_b:
            if not optics_interoperate(optic_of(a), optic_of(b)):
                return f"optics {a.slug} + {b.slug}"
    return None


def part_prices(part: CatalogPart, *, books=None) -> list[Price]:
    """The part's price in every book, or in ``books`` only (those a user may read; the UI
    shows "unpriced" where there is none)."""
    prices = Price.objects.filter(part_category=part.CATEGORY, part_slug=part.slug)
    if books is not None:
        prices = prices.filter(book__in=[book.pk for book in books])
    return list(prices.select_related("book").order_by("book__name"))


def price_books() -> list[PriceBook]:
    return list(PriceBook.objects.all())
