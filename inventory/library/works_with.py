"""What else in the catalog fits a part: the "works with" lists, from part records.

Pure: records in (see :mod:`inventory.library.facts`), ``(section, category, slug, how)``
entries out. A part is listed only when the rules of :mod:`inventory.library.compat` find no
problem at all, not even an unknown fact ("known to fit"); the design validator judges a
link with the same converters and the same rule functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from inventory.library.compat import fiber_fits_optic, optics_interoperate, plug_fits_cage
from inventory.library.facts import cable_plugs_of, cages_of, fiber_of, optic_of, plug_of

#: ``(section, category, slug, how)``.
Entry = tuple[str, str, str, str]


class Catalog:
    """Part records by category, with each device's cages and each module's facts made once.

    Parameters
    ----------
    records : iterable of mapping
        Every part record (``category`` and ``slug`` set).
    aliases : mapping, optional
        Other names of parts -> their slug (a server's ``compute_nic`` may name one).
    """

    def __init__(self, records: Iterable[Mapping], aliases: Mapping[str, str] | None = None):
        self.by_category: dict[str, list[Mapping]] = {}
        self.by_name: dict[str, Mapping] = {}
        for record in records:
            self.by_category.setdefault(record["category"], []).append(record)
            self.by_name.setdefault(record["slug"], record)
        for alias, slug in (aliases or {}).items():
            if slug in self.by_name:
                self.by_name.setdefault(alias, self.by_name[slug])
        self._cages: dict[str, list] = {}
        self._plugs = {m["slug"]: plug_of(m) for m in self.of("transceiver")}
        self._optics = {m["slug"]: optic_of(m) for m in self.of("transceiver")}
        self._cables = {c["slug"]: cable_plugs_of(c) for c in self.of("cable")}

    def all(self) -> list[Mapping]:
        return [record for records in self.by_category.values() for record in records]

    def of(self, *categories: str) -> list[Mapping]:
        return [record for category in categories for record in self.by_category.get(category, [])]

    def cages(self, record: Mapping) -> list:
        """A device's cages; a server's are completed by its ``compute_nic`` record."""
        slug = record["slug"]
        if slug not in self._cages:
            nic = None
            if record.get("category") == "server" and record.get("compute_nic"):
                nic = self.by_name.get(record["compute_nic"])
                nic = nic if nic is not None and nic.get("category") == "nic" else None
            self._cages[slug] = cages_of(record, nic=nic)
        return self._cages[slug]

    def plug(self, record: Mapping):
        return self._plugs.get(record["slug"]) or plug_of(record)

    def optic(self, record: Mapping):
        return self._optics.get(record["slug"]) or optic_of(record)

    def cable_plugs(self, record: Mapping):
        return self._cables.get(record["slug"]) or cable_plugs_of(record)


def fitting_cage(plug, cages) -> str | None:
    """The label of the first cage ``plug`` fits with no problem, else None."""
    for cage in cages:
        if not plug_fits_cage(plug, cage):
            return cage.label
    return None


def works_with(record: Mapping, catalog: Catalog) -> list[Entry]:
    """What fits the part ``record``, by section, each part once per section.

    Examples
    --------
    >>> sw = {"category": "switch", "slug": "S", "cage_groups": [{"count": 32,
    ...       "form_factor": "OSFP", "top": "ihs", "port_speed_gbps": 800,
    ...       "lane_rate_gbps": 100}]}
    >>> ok = {"category": "transceiver", "slug": "M", "form_factor": "OSFP", "top": "ihs",
    ...       "speed_gbps": 800, "lane_rate_gbps": 100}
    >>> flat = dict(ok, slug="F", top="rhs")
    >>> works_with(sw, Catalog([sw, ok, flat]))
    [('Transceivers', 'transceiver', 'M', 'fits S 32 x OSFP')]
    """
    out: list[Entry] = []
    seen: set[tuple[str, str]] = set()

    def add(section: str, part: Mapping, how: str) -> None:
        if (section, part["slug"]) not in seen:
            seen.add((section, part["slug"]))
            out.append((section, part["category"], part["slug"], how))

    category = record.get("category")
    modules, cables = catalog.of("transceiver"), catalog.of("cable")
    if category in ("switch", "nic", "server"):
        cages = catalog.cages(record)
        fitting = []
        for module in modules:
            label = fitting_cage(catalog.plug(module), cages)
            if label:
                fitting.append(module)
                add("Transceivers", module, f"fits {label}")
        for cable in cables:
            head, leg = catalog.cable_plugs(cable)
            if fitting_cage(head, cages):
                add("Cables", cable, "A end (head) fits")
            elif fitting_cage(leg, cages):
                add("Cables", cable, "B end (leg) fits")
        # Peers: the other side of a cable or of a module pair.
        others = catalog.of("nic", "server") if category == "switch" else catalog.of("switch")
        for other in others:
            other_cages = catalog.cages(other)
            how = _peer_via_cable(catalog, cages, other_cages, cables) or _peer_via_optics(
                catalog, fitting, other_cages, modules
            )
            if how:
                add("Peers", other, how)
    elif category == "transceiver":
        plug, optic = catalog.plug(record), catalog.optic(record)
        for other in catalog.of("switch", "nic", "server"):
            label = fitting_cage(plug, catalog.cages(other))
            if label:
                add("Cages", other, f"fits {label}")
        for other in modules:
            if other["slug"] != record["slug"] and not optics_interoperate(
                optic, catalog.optic(other)
            ):
                add("Peer modules", other, "links end to end")
        for fiber in catalog.of("fiber"):
            if not fiber_fits_optic(fiber_of(fiber), optic):
                add("Fibers", fiber, f"{fiber.get('topology') or 'straight'} fiber fits")
    elif category == "cable":
        head, leg = catalog.cable_plugs(record)
        for other in catalog.of("switch", "nic", "server"):
            cages = catalog.cages(other)
            label = fitting_cage(head, cages)
            if label:
                add("A end (head) fits", other, label)
            label = fitting_cage(leg, cages)
            if label:
                add("B end (legs) fit", other, label)
    elif category == "fiber":
        fiber = fiber_of(record)
        for module in modules:
            if not fiber_fits_optic(fiber, catalog.optic(module)):
                add("Transceivers", module, "fiber plugs in")
    return out


def _peer_via_cable(catalog, cages_a, cages_b, cables) -> str | None:
    for cable in cables:
        head, leg = catalog.cable_plugs(cable)
        if fitting_cage(head, cages_a) and fitting_cage(leg, cages_b):
            return f"cable {cable['slug']}"
        if fitting_cage(head, cages_b) and fitting_cage(leg, cages_a):
            return f"cable {cable['slug']}"
    return None


def _peer_via_optics(catalog, modules_a, cages_b, modules) -> str | None:
    modules_b = [m for m in modules if fitting_cage(catalog.plug(m), cages_b)]
    for a in modules_a:
        for b in modules_b:
            if not optics_interoperate(catalog.optic(a), catalog.optic(b)):
                return f"optics {a['slug']} + {b['slug']}"
    return None


__all__ = ["Catalog", "Entry", "fitting_cage", "works_with"]
