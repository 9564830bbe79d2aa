"""The bill of materials of a fabric: every part with its quantity, grouped by tier and category.

Counting conventions (reference-architectures.md §1, the same rule as
:func:`planner.domain.summary.summarize`, through
:func:`planner.domain.summary.first_link_of_units`):

- servers and switches: one per device, per model and role;
- NICs: only cards the catalog names as a server's ``compute_nic`` (on-board NICs, whose
  record's ``card_form_factor`` is ``on-board``, are part of the server); per server, enough
  cards to fill its compute cages;
- transceivers: one per module, i.e. per cage; a twin-port module carrying two links counts
  once. A module's tier is the tier of the first link through it; on a campus, links
  between two buildings are the ``campus`` tier (:meth:`planner.domain.fabric.Fabric.report_tiers`);
- cables and fibers: one per assembly at its ordered length; a breakout (1:N) cable or a 1:2
  splitter fiber counts once for all its legs. The ordered length is the shortest length the
  part is sold in that covers the run (``lengths_m``), else the run rounded up by the ordering
  policy (:func:`planner.domain.media.order_length_m`); each line's ``length_rule`` says which,
  and its ``part_number`` is the orderable part number of that length (``length_parts``,
  :func:`planner.domain.media.part_number_at`; empty when the catalog lists none);
- racks: one line per kind of rack (:func:`racks_by_kind`): compute racks (the layout's racks
  of servers), network racks (the layout's racks of compute-fabric switches) and management
  racks (the cluster networks' ``MGMT-nn``). Compute racks are the layout's catalog rack
  (``layout.rack``); a rack-scale system's compute racks are the systems themselves (no line
  of their own, said in the notes); a kind without a catalog rack is the catalog's generic
  19-inch cabinet (:data:`CABINET_PART`, a class entry that a price book can price), or, in a
  catalog without it, is listed by its description, without part number;
- the cluster's other networks (a spec with ``networks``; :mod:`planner.domain.networks`):
  lines whose tier is the network (``storage``, ``converged``, ``inband``, ``oob``), counted
  as that network's conventions say (each line's ``counted_per`` names its link groups); a
  part the catalog lacks is listed by its reference part number and named in the notes. Their
  cables and fibers are counted from the networks' links as the cabling plan lists them
  (:func:`planner.domain.networks.elements.cluster_elements`), one per cable at the length
  ordered for its run (:func:`planner.domain.outputs.cabling.network_ordered_lengths_m`).

Spares
------
Published counts carry no spares. Spares are figured per field-replaceable unit (FRU): a line's
spares are ``ceil(installed * pct / 100)`` with its category's percentage (default 0), where
``installed`` is the FRUs in service that the line stands for (:attr:`BomLine.installed`):

- servers, switches, NICs, modules, cables and fibers: the line's own count;
- a rack-scale system (catalog ``kind: rack-system``): none, the system is never spared
  whole. Its FRUs are its compute trays (category ``server``: a compute node, as a server)
  and its NVLink switch trays (category ``switch``), per the catalog's ``trays.compute`` and
  ``trays.switch``, each a line of its own that orders spares only (count 0, ``installed`` =
  systems x trays per system). The catalog has no tray part (no part number published), so
  these lines carry none and name the system's tray;
- the cluster's management systems are groups of their own, each with its own percentage:
  fabric-manager (UFM) appliances and management (head) nodes (``management``), rack PDUs
  (``pdu``);
- power supplies (``psu``): a device whose catalog record gives ``psu_count`` (servers,
  rack-scale systems' power shelves, switches, appliances) has its PSUs on a line of their
  own per model and network that orders spares only (count 0, ``installed`` = devices x
  PSUs each), at their own percentage: spare PSUs beside, not instead of, spare devices;
- racks: none (a rack is not replaced in the field; :data:`SPARES_CATEGORIES` has no racks).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric
from planner.domain.media import (
    part_number_at,
)
from planner.domain.physical.structured import (
    plan_structured,
)
from planner.domain.summary import racks_by_kind

from .bom_categories import (
    CABINET_PART,
    CATEGORIES,
    COUNTED_PER,
    MAX_SPARES_PCT,
    RACK_KINDS,
    SPARES_CATEGORIES,
    TIER_ORDER,
)
from .bom_categories import CATEGORY_LABELS as CATEGORY_LABELS
from .bom_counts import (
    CABLES,
    _count_devices,
    _count_media,
    _count_network_cables,
    _count_networks,
    _count_psus,
    _count_racks,
    _count_structured,
    length_rule,
)


class BomError(ValueError):
    """Bad BOM input (for example a spares percentage), naming the field at fault."""

    def __init__(self, message: str, *, field: str = ""):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class BomLine:
    """One orderable line: a part (at one length for cables and fibers) in one tier."""

    part: str
    part_number: str
    name: str
    manufacturer: str
    category: str
    tier: str
    length_m: float | None
    base_quantity: int
    spares: int
    quantity: int
    counted_per: str
    length_rule: str = ""  # how the ordered length was chosen (cables and fibers)
    #: Field-replaceable units in service that the spares cover (module docstring); not
    #: given: ``base_quantity``.
    installed: int | None = None

    def __post_init__(self) -> None:
        if self.installed is None:
            object.__setattr__(self, "installed", self.base_quantity)

    def to_dict(self) -> dict:
        return {
            "part": self.part,
            "part_number": self.part_number,
            "name": self.name,
            "manufacturer": self.manufacturer,
            "category": self.category,
            "tier": self.tier,
            "length_m": self.length_m,
            "base_quantity": self.base_quantity,
            "spares": self.spares,
            "quantity": self.quantity,
            "counted_per": self.counted_per,
            "length_rule": self.length_rule,
            "installed": self.installed,
        }


@dataclass(frozen=True)
class BillOfMaterials:
    """BOM lines sorted by category (:data:`CATEGORIES` order), tier, part and length."""

    lines: tuple[BomLine, ...]
    spares_pct: dict[str, float]
    notes: tuple[str, ...] = field(default=())

    def ordered_lines(self) -> tuple[BomLine, ...]:
        """The lines that order something (quantity above 0): what a quote prices. A
        rack-scale system's tray lines and PSU lines order nothing without spares."""
        return tuple(line for line in self.lines if line.quantity)

    def quantity_by_part(self) -> dict[str, int]:
        """Total quantity (with spares) per part, all tiers and lengths together."""
        totals: Counter = Counter()
        for line in self.lines:
            totals[line.part] += line.quantity
        return dict(totals)

    def quantity_by_category(self) -> dict[str, int]:
        """Total quantity (with spares) per category, in :data:`CATEGORIES` order."""
        totals = dict.fromkeys(CATEGORIES, 0)
        for line in self.lines:
            totals[line.category] += line.quantity
        return {category: count for category, count in totals.items() if count}

    def to_dict(self) -> dict:
        return {
            "spares_pct": dict(self.spares_pct),
            "lines": [line.to_dict() for line in self.lines],
            "quantity_by_category": self.quantity_by_category(),
            "notes": list(self.notes),
        }


def clean_spares_pct(spares_pct: Mapping[str, float] | None) -> dict[str, float]:
    """Validated spares percentages per category (0 to 1000; unknown categories refused).

    Raises
    ------
    BomError
        A category that is not in :data:`SPARES_CATEGORIES` (racks are never spared), or a
        value that is not a number in range; ``field`` is ``spares_pct.<category>``.
    """
    cleaned: dict[str, float] = {}
    for category, value in (spares_pct or {}).items():
        where = f"spares_pct.{category}"
        if category == "rack":
            raise BomError(
                f"{where}: racks are not replaced in the field, so they take no spares",
                field=where,
            )
        if category not in SPARES_CATEGORIES:
            raise BomError(
                f"{where}: unknown category; use one of {', '.join(SPARES_CATEGORIES)}",
                field=where,
            )
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise BomError(f"{where}: {value!r} is not a number", field=where) from None
        if not math.isfinite(number) or not 0 <= number <= MAX_SPARES_PCT:
            raise BomError(f"{where}: must be between 0 and {MAX_SPARES_PCT:g}", field=where)
        if number:
            cleaned[category] = number
    return cleaned


def spares_for(base_quantity: int, pct: float) -> int:
    """Spares for ``base_quantity`` parts at ``pct`` percent, rounded up (decimal arithmetic).

    Examples
    --------
    >>> spares_for(1536, 2), spares_for(7, 0), spares_for(10, 10)
    (31, 0, 1)
    """
    if not pct or not base_quantity:
        return 0
    try:
        exact = Decimal(str(pct)) * base_quantity / 100
    except InvalidOperation:  # pragma: no cover - clean_spares_pct refuses these
        return 0
    return int(exact.to_integral_value(rounding="ROUND_CEILING"))


def bill_of_materials(
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    spares_pct: Mapping[str, float] | None = None,
    elements=None,
) -> BillOfMaterials:
    """Count every part of ``fabric`` (see the module docstring for the rules).

    Parameters
    ----------
    fabric
        A generated or edited fabric; media columns may be absent (then no transceivers,
        cables or fibers are listed).
    facts
        Catalog facts: part names, part numbers, manufacturers and categories.
    spares_pct
        Percent of spares per category (missing = 0).
    elements
        The cluster networks' devices and links to count instead of the fabric's stored ones
        (those by default: :func:`planner.domain.networks.elements.network_elements`).

    Returns
    -------
    BillOfMaterials

    Raises
    ------
    BomError
        A bad spares percentage.

    Long because: it calls each counting rule (devices, media, structured, racks, networks)
    in turn, then turns the counts into lines (canonical slugs, descriptions, spares) in one
    loop.
    """
    pct = clean_spares_pct(spares_pct)
    counts: Counter = Counter()  # (category, tier, part, length_m) -> base quantity
    installed: Counter = Counter()  # the same keys -> FRUs in service, where not the count
    counted_per: dict[tuple, str] = {}
    described: dict[str, tuple[str, str]] = {}  # part not in the catalog -> (number, name)
    notes: list[str] = []

    def canonical(slug: str) -> str:
        record = facts.parts.get(slug)
        return str(record.get("slug") or slug) if record else slug

    _count_devices(fabric, facts, counts, installed, counted_per, described, notes, canonical)
    plan = None
    if fabric.link_a_part is not None and fabric.settings.cabling:
        plan = plan_structured(fabric, fabric.settings.cabling, facts)
        if not plan.structured.any():
            plan = None
    if fabric.link_a_part is not None:
        _count_media(fabric, facts, counts, canonical, plan)
    if plan is not None:
        _count_structured(fabric, facts, plan, counts, counted_per, notes, canonical)
    _count_racks(fabric, facts, counts, installed, counted_per, described, notes, canonical)
    _count_networks(fabric, facts, counts, counted_per, described, notes, canonical)
    _count_network_cables(fabric, facts, counts, counted_per, canonical, elements)
    _count_psus(facts, counts, installed, counted_per, described)

    lines = []
    for key, base in counts.items():
        category, tier, part, length_m = key
        record = facts.parts.get(part) or {}
        units = int(installed[key]) if key in installed else int(base)
        spares = spares_for(units, pct.get(category, 0.0))
        part_number, name = described.get(part, ("", ""))
        rule = length_rule(record, length_m) if category in CABLES else ""
        if record and category in CABLES:
            part_number = part_number_at(record, length_m)
        else:
            part_number = str(record.get("part_number") or part_number)
        lines.append(
            BomLine(
                part=part,
                part_number=part_number,
                name=str(record.get("name") or name),
                manufacturer=str(record.get("manufacturer") or ""),
                category=category,
                tier=tier,
                length_m=length_m,
                base_quantity=int(base),
                spares=spares,
                quantity=int(base) + spares,
                counted_per=counted_per.get((category, tier, part, length_m))
                or COUNTED_PER[category],
                length_rule=rule,
                installed=units,
            )
        )
    lines.sort(
        key=lambda line: (
            CATEGORIES.index(line.category),
            _tier_rank(line),
            line.part,
            -1.0 if line.length_m is None else line.length_m,
        )
    )
    unnumbered = sorted(
        {line.part for line in lines if line.category in CABLES and not line.part_number}
    )
    if unnumbered:
        notes.append(
            f"no orderable part number per length for {', '.join(unnumbered)}: the catalog "
            "lists no part number for the lengths shown (order them by part and length)"
        )
    return BillOfMaterials(lines=tuple(lines), spares_pct=pct, notes=tuple(notes))


def _tier_rank(line: BomLine) -> int:
    """A line's place within its category: racks by kind, other lines by tier."""
    order = tuple(RACK_KINDS) if line.category == "rack" else TIER_ORDER
    return order.index(line.tier) if line.tier in order else len(order)


__all__ = [
    "CABINET_PART",
    "BillOfMaterials",
    "BomError",
    "BomLine",
    "bill_of_materials",
    "clean_spares_pct",
    "racks_by_kind",
    "spares_for",
]
