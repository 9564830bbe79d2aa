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
  of their own, said in the notes); a kind without a catalog rack is listed by its
  description, without part number;
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

import numpy as np

from inventory.library.provenance import provenance_for
from inventory.library.vocab import ON_BOARD
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import REPORT_TIER_NAMES, ROLE, SWITCH_ROLES, TIER_NAMES, Fabric
from planner.domain.media import (
    POLICY_TEXT,
    order_lengths_of,
    part_number_at,
    policy_length_m,
    sold_lengths,
)
from planner.domain.networks.elements import network_elements
from planner.domain.networks.management import RA_PARTS
from planner.domain.outputs.cabling_networks import network_ordered_lengths_m
from planner.domain.physical.structured import (
    ADAPTERS_PER_PLATE,
    LC_PER_CASSETTE,
    PANEL_PART,
    plan_structured,
)
from planner.domain.summary import first_link_of_units, ordered_cable_length_m, racks_by_kind

#: Line categories, in display order.
CATEGORIES = (
    "server",
    "management",
    "pdu",
    "switch",
    "nic",
    "psu",
    "transceiver",
    "cable",
    "fiber",
    "rack",
)
#: Categories that take a spares percentage (racks are not replaced in the field).
SPARES_CATEGORIES = tuple(c for c in CATEGORIES if c != "rack")
#: What each category holds, for headings and form labels.
CATEGORY_LABELS = {
    "server": "Servers and compute trays",
    "management": "Management systems (fabric managers, head nodes)",
    "pdu": "Rack PDUs",
    "switch": "Switches and NVLink switch trays",
    "nic": "NICs",
    "psu": "Power supplies (PSUs)",
    "transceiver": "Transceivers",
    "cable": "Cables",
    "fiber": "Fibers",
    "rack": "Racks",
}
#: Kinds of rack, in display order (:data:`planner.domain.summary.RACK_LAYOUT_KINDS`), and
#: what a kind without a catalog rack is listed as.
RACK_KINDS = {
    "compute": "compute rack (servers); the layout names no catalog rack",
    "network": "network rack (compute-fabric switches); cabinet not chosen",
    "management": "management rack (other networks' switches, fabric managers, head nodes); "
    "cabinet not chosen",
}
NETWORK_TIERS = ("storage", "converged", "inband", "oob", "management")
TIER_ORDER = ("server", "leaf", "spine", "core", *REPORT_TIER_NAMES, "", *NETWORK_TIERS)
MAX_SPARES_PCT = 1000.0

COUNTED_PER = {
    "server": "device",
    "switch": "device",
    "nic": "server (one card per {cages} compute cage(s))",
    "transceiver": "module (one per cage)",
    "cable": "cable assembly (a breakout counts once for all legs)",
    "fiber": "fiber (a splitter counts once for both legs)",
    "rack": "rack of the layout",
    "management": "device",
    "pdu": "device",
    "psu": "power supply",
}


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


CABLES = ("cable", "fiber")
LISTED_TEXT = (
    "a length the part is sold in: the shortest that covers the run, or the longest where an "
    "end is outside the layout"
)

UNSOLD_TEXT = (
    "a length this revision recorded that the part is not sold in (no orderable part number): "
    "its cables were ordered before the catalog listed the lengths sold"
)


def length_rule(record: Mapping, length_m: float | None) -> str:
    """How a cable or fiber line's ordered length was chosen (see the module docstring).

    Examples
    --------
    >>> length_rule({"lengths_m": [1, 2]}, 2.0).startswith("a length the part is sold in")
    True
    >>> length_rule({}, 7.0).startswith("no listed lengths")
    True
    >>> length_rule({"lengths_m": [1, 2]}, 1.4).startswith("a length this revision recorded")
    True
    >>> length_rule({}, 6.7)
    'the exact run length, as this revision recorded it (not rounded by the ordering policy)'
    """
    if length_m is None:
        return "length unknown (no run: a link drawn without one, or an end outside the layout)"
    sold = [length for length, _ in sold_lengths(dict(record))]
    if any(abs(length - length_m) <= 1e-4 for length in sold):
        return LISTED_TEXT
    if sold:
        return UNSOLD_TEXT
    if abs(float(policy_length_m(length_m)) - length_m) <= 1e-4:
        return POLICY_TEXT
    return "the exact run length, as this revision recorded it (not rounded by the ordering policy)"


def _count_devices(
    fabric, facts, counts, installed, counted_per, described, notes, canonical
) -> None:
    roles = fabric.node_role
    for role in ("server", *SWITCH_ROLES):
        models = fabric.node_model[roles == ROLE[role]]
        if not models.size:
            continue
        category = "server" if role == "server" else "switch"
        per_model = np.bincount(models.astype(np.int64), minlength=len(fabric.models))
        for index, count in enumerate(per_model.tolist()):
            if not count:
                continue
            slug = fabric.models[index]
            if slug not in facts.parts:
                notes.append(f"{count} {role} device(s) of model {slug!r}: not in the catalog")
            counts[(category, role, canonical(slug), None)] += count
            if role == "server":
                _count_trays(slug, count, facts, counts, installed, counted_per, described, notes)
                _count_nics(slug, count, facts, counts, counted_per, notes, canonical)
    managers = int((roles == ROLE["manager"]).sum())
    if managers:
        notes.append(
            f"{managers} fabric-manager endpoint(s) are not catalog parts and are not listed; "
            "the transceivers and fibers of their links are counted"
        )


#: A rack-scale system's trays: (key of ``trays``, category, what the tray is).
TRAYS = (("compute", "server", "compute tray"), ("switch", "switch", "NVLink switch tray"))


def _count_trays(slug, systems, facts, counts, installed, counted_per, described, notes) -> None:
    """A rack-scale system's FRUs (module docstring): the system's line is never spared, its
    compute and NVLink switch trays are, each on a line that orders spares only."""
    record = facts.parts.get(slug) or {}
    if record.get("kind") != "rack-system":
        return
    system_key = ("server", "server", str(record.get("slug") or slug), None)
    installed[system_key] = 0
    trays = record.get("trays") if isinstance(record.get("trays"), dict) else {}
    name = str(record.get("name") or slug)
    listed = []
    for field_name, category, what in TRAYS:
        per_system = int(trays.get(field_name) or 0)
        if per_system <= 0:
            notes.append(f"{slug}: the catalog gives no {what} count (trays.{field_name})")
            continue
        part = f"{slug} {what}"
        key = (category, "server", part, None)
        counts[key] += 0  # ordered as spares only: the trays come inside the systems
        installed[key] += per_system * systems
        grade = (provenance_for(record.get("provenance") or {}, f"trays.{field_name}") or {}).get(
            "grade"
        )
        counted_per[key] = (
            f"{what} ({per_system} per {slug} x {systems:,}{f'; grade {grade}' if grade else ''}"
            "; spares only: installed in the systems)"
        )
        described[part] = ("", f"{name} {what}")
        listed.append(f"{what}s ({per_system} per system)")
    counted_per[system_key] = f"device (rack-scale system: spared by its {' and '.join(listed)})"
    notes.append(
        f"{slug}: a rack-scale system is spared by its {' and '.join(listed) or 'trays'}, "
        "never whole; the catalog has no tray part (no part number published), so tray lines "
        "carry no part number or price"
    )


#: Line categories of devices that may hold power supplies.
POWERED = ("server", "management", "switch")


def _count_psus(facts, counts, installed, counted_per, described) -> None:
    """The PSUs of every device line whose catalog part gives ``psu_count`` (module
    docstring): one spares-only line per model and network (tier ``""``: the compute
    fabric's tiers together; a network's tier: that network)."""
    devices: Counter = Counter()
    for (category, tier, part, _), count in counts.items():
        if category in POWERED and count:
            devices[(tier if tier in NETWORK_TIERS else "", part)] += count
    for (tier, part), count in devices.items():
        record = facts.parts.get(part) or {}
        per_device = int(record.get("psu_count") or 0)
        if per_device <= 0:
            continue
        key = ("psu", tier, f"{part} PSU", None)
        counts[key] += 0  # ordered as spares only: the PSUs come inside the devices
        installed[key] += per_device * count
        grade = (provenance_for(record.get("provenance") or {}, "psu_count") or {}).get("grade")
        counted_per[key] = (
            f"power supply ({per_device} per {part} x {count:,}"
            f"{f'; grade {grade}' if grade else ''}; spares only: installed in the devices)"
        )
        rating = record.get("psu_rating_w")
        watts = f" ({float(rating):,.0f} W)" if isinstance(rating, int | float) else ""
        described[key[2]] = ("", f"{record.get('name') or part} power supply{watts}")


def _count_nics(server_slug, servers, facts, counts, counted_per, notes, canonical) -> None:
    record = facts.parts.get(server_slug) or {}
    nic_slug = record.get("compute_nic")
    if not nic_slug:
        return  # compute NICs are on board
    nic = facts.parts.get(nic_slug)
    if nic and nic.get("card_form_factor") == ON_BOARD:
        return  # built into the server
    device = facts.devices.get(server_slug)
    cages = sum(group.count for group in device.port_groups) if device else 0
    nic_cages = sum(int(port.get("count") or 0) for port in (nic or {}).get("ports") or [])
    if not nic or not cages or not nic_cages:
        notes.append(
            f"{server_slug}: compute NIC {nic_slug!r} not counted "
            "(the catalog lacks the NIC, its ports or the server's compute cages)"
        )
        return
    per_server = math.ceil(cages / nic_cages)
    key = ("nic", "server", canonical(nic_slug), None)
    counts[key] += per_server * servers
    counted_per[key] = f"server ({per_server} per {server_slug}: {cages} compute cage(s))"


def _length_key(value: float) -> float | None:
    """A cable length as ordered (float32 noise removed); None when unknown."""
    value = float(value)
    return float(f"{value:g}") if math.isfinite(value) else None


def _count_media(fabric, facts, counts, canonical, plan=None) -> None:
    parts = fabric.parts
    tiers = fabric.report_tiers()  # links between buildings: the campus tier
    for part_col, module_col in (
        (fabric.link_a_part, fabric.link_a_module),
        (fabric.link_b_part, fabric.link_b_module),
    ):
        first = first_link_of_units(module_col, part_col)
        pairs = Counter(zip(part_col[first].tolist(), tiers[first].tolist(), strict=True))
        for (part, tier), count in pairs.items():
            counts[("transceiver", REPORT_TIER_NAMES[tier], canonical(parts[part]), None)] += count
    first = first_link_of_units(fabric.link_cable, fabric.link_cable_part)
    if plan is not None:  # structured links: their cords are counted with the panels
        first = first[~plan.structured[first]]
    if not first.size:
        return
    lengths = ordered_cable_length_m(fabric)
    length_of = (
        [_length_key(v) for v in lengths[first].tolist()]
        if lengths is not None
        else [None] * first.size
    )
    units = Counter(
        zip(
            fabric.link_cable_part[first].tolist(),
            tiers[first].tolist(),
            length_of,
            strict=True,
        )
    )
    for (part, tier, length_m), count in units.items():
        slug = parts[part]
        record = facts.parts.get(slug) or {}
        category = "fiber" if record.get("category") == "fiber" else "cable"
        counts[(category, REPORT_TIER_NAMES[tier], canonical(slug), length_m)] += count


def _ordered(record: Mapping, run_m: np.ndarray) -> list[float | None]:
    """Ordered lengths of runs (:func:`planner.domain.media.order_lengths_of`)."""
    return [_length_key(v) for v in order_lengths_of(dict(record), run_m).tolist()]


def _count_structured(fabric, facts, plan, counts, counted_per, notes, canonical) -> None:
    """Patch cords (two per structured link, the link's fiber part at each cord's length),
    trunks by size and length, panels, adapter plates, cassettes and harnesses
    (:mod:`planner.domain.physical.structured`)."""
    links = np.flatnonzero(plan.structured)
    tiers = fabric.link_tier[links]
    cords = fabric.link_cable_part[links]
    for side in ("a", "b"):
        lengths = getattr(plan, f"cord_{side}_m")[links]
        for part in np.unique(cords).tolist():
            slug = fabric.parts[part]
            record = facts.parts.get(slug) or {}
            mine = cords == part
            for tier, length in zip(
                tiers[mine].tolist(), _ordered(record, lengths[mine]), strict=True
            ):
                key = ("fiber", TIER_NAMES[tier], canonical(slug), length)
                counts[key] += 1
                counted_per[key] = "patch cord (two per link through patch panels)"
    missing: set[str] = set()

    def add(category, tier, slug, length, count, why):
        if slug not in facts.parts:
            missing.add(slug)
        key = (category, tier, canonical(slug) if slug in facts.parts else slug, length)
        counts[key] += count
        counted_per[key] = why

    for trunk in plan.trunks:
        grade = "OS2" if trunk["fiber_type"] == "smf" else "OM4"
        slug = f"TRUNK-{trunk['mpo'].upper()}-{trunk['polish'].upper()}-{grade}-{trunk['fibers']}F"
        length = _length_key(float(policy_length_m(np.array([trunk["length_m"]]))[0]))
        add("fiber", trunk["tier"], slug, length, 1, "trunk (panel to panel, made to length)")
    ports = np.zeros(len(plan.panels), dtype=np.int64)
    for side in ("a", "b"):
        panel = getattr(plan, f"panel_{side}")[links]
        np.maximum.at(ports, panel, getattr(plan, f"port_{side}")[links])
    for index, panel in enumerate(plan.panels):
        tier = panel["tier"]
        add("fiber", tier, PANEL_PART, None, 1, "patch panel (1U, 4 module slots)")
        used = int(ports[index])
        if panel["kind"] == "cassette":
            grade = "OS2" if _panel_smf(fabric, plan, index) else "OM4"
            add(
                "fiber",
                tier,
                f"CASSETTE-MPO12-APC-6LC-{grade}",
                None,
                -(-used // LC_PER_CASSETTE),
                "cassette (one per MPO-12 leg, 6 duplex LC)",
            )
        else:
            add(
                "fiber",
                tier,
                f"PLATE-{panel['mpo'].upper()}-APC-6",
                None,
                -(-used // ADAPTERS_PER_PLATE),
                "adapter plate (6 MPO adapters)",
            )
    harness = plan.lc & ~plan.cassette
    if harness.any():
        legs = {}
        for link in np.flatnonzero(harness).tolist():
            legs.setdefault(
                (int(fabric.link_tier[link]), int(plan.trunk[link]), int(plan.trunk_leg[link])),
                link,
            )
        for (tier, _, _), link in legs.items():
            grade = "OS2" if _link_smf(fabric, facts, link) else "OM4"
            add(
                "fiber",
                TIER_NAMES[tier],
                f"HARNESS-MPO12-APC-6LC-{grade}",
                None,
                2,
                "breakout harness (one per MPO-12 leg at each end)",
            )
    for slug in sorted(missing):
        notes.append(f"{slug}: structured-cabling part not in the catalog, listed by its name")


def _link_smf(fabric, facts, link: int) -> bool:
    slug = fabric.parts[int(fabric.link_cable_part[link])]
    return (facts.parts.get(slug) or {}).get("fiber_type") == "smf"


def _panel_smf(fabric, plan, index: int) -> bool:
    for side in ("a", "b"):
        hits = np.flatnonzero(getattr(plan, f"panel_{side}") == index)
        if hits.size:
            trunk = plan.trunks[int(plan.trunk[hits[0]])]
            return trunk["fiber_type"] == "smf"
    return False


def _count_racks(fabric, facts, counts, installed, counted_per, described, notes, canonical):
    """A line per kind of rack (module docstring); racks are never spared."""
    slug = (fabric.settings.layout or {}).get("rack")
    systems = sorted(
        {
            fabric.models[m]
            for m in np.unique(fabric.node_model[fabric.node_role == ROLE["server"]]).tolist()
            if (facts.parts.get(fabric.models[m]) or {}).get("kind") == "rack-system"
        }
    )
    for kind, count in racks_by_kind(fabric).items():
        if not count:
            continue
        if kind == "compute" and slug and slug in facts.parts:
            part = canonical(slug)
        elif kind == "compute" and systems:
            notes.append(
                f"{count:,} compute rack(s): the {', '.join(systems)} rack-scale systems "
                "themselves (their own lines)"
            )
            continue
        else:
            part = f"{kind} rack"
            described[part] = ("", RACK_KINDS[kind])
        key = ("rack", kind, part, None)
        counts[key] += count
        installed[key] = 0
        counted_per[key] = (
            "management rack (networks.management_racks)"
            if kind == "management"
            else f"{kind} rack of the layout"
        )


def _system_category(facts, tier: str, part: str, category: str) -> str:
    """The line category of a network's counted part: the management network's systems are
    ``pdu`` (catalog ``kind: pdu``, or the reference architecture's PDU parts) or
    ``management`` (fabric-manager appliances, management nodes), never servers."""
    if tier != "management" or category != "server":
        return category
    kind = (facts.parts.get(part) or {}).get("kind")
    pdus = {slug for role, (slug, _) in RA_PARTS.items() if role.endswith("_pdu")}
    return "pdu" if kind == "pdu" or part in pdus else "management"


def _count_networks(fabric, facts, counts, counted_per, described, notes, canonical) -> None:
    """Lines of the cluster's other networks (``fabric.settings.networks``); parts the catalog
    lacks go into ``described`` as ``{part: (part number, description)}``."""
    for tier, network in (fabric.settings.networks or {}).items():
        per: dict[tuple, list[str]] = {}

        def add(category, part, count, why, _tier=tier, _per=per):
            key = (category, _tier, part, None)
            counts[key] += count
            _per.setdefault(key, []).append(why)

        for group in network.get("switch_groups") or []:
            why = f"{group['count']} {group['role']}"
            add("switch", canonical(group["model"]), group["count"], why)
        for group in network.get("link_groups") or []:
            # the cables themselves are counted link by link (_count_network_cables)
            if group.get("media"):  # chosen by length
                left = int(group.get("cables") or 0) - sum(int(u["cables"]) for u in group["media"])
                if left > 0:
                    notes.append(
                        f"{tier}: {left} {group['name']} cable(s): parts not chosen, not listed"
                    )
                continue
            cable = group.get("cable")
            if not cable or not group.get("cables"):
                if group.get("cables"):
                    notes.append(
                        f"{tier}: {group['cables']} {group['name']} cable(s) "
                        f"({group['cable_kind']}): parts not chosen, not listed"
                    )
                continue
            if not cable["in_catalog"]:
                described[cable["part"]] = (cable["part_number"], cable["description"])
        for counted in network.get("parts") or []:
            part = canonical(counted["part"]) if counted["in_catalog"] else counted["part"]
            category = _system_category(facts, tier, part, counted["category"])
            add(category, part, counted["count"], f"{counted['counted_per']}")
            if not counted["in_catalog"]:
                described[part] = (counted["part_number"], counted["description"])
        for key, whys in per.items():
            category = key[0]
            unit = "device" if category == "switch" else COUNTED_PER[category].split(" (")[0]
            counted_per[key] = f"{unit} ({'; '.join(whys)})"
        for part in network.get("parts_not_in_catalog") or []:
            notes.append(f"{tier}: part {part} not in catalog; listed by its reference part number")


def _count_network_cables(fabric, facts, counts, counted_per, canonical, elements) -> None:
    """The networks' cables and fibers, one per cable of their links (a splitter's legs once)
    at the length ordered for it, as the cabling plan lists them; a part the network counts
    as its cable but the catalog files otherwise (a CWDM4 module) keeps its category."""
    if not fabric.settings.networks:
        return
    elements = elements if elements is not None else network_elements(fabric, facts)
    ordered = network_ordered_lengths_m(elements, facts)
    filed = {  # how each link group files its cable (a part the catalog lacks, too)
        (tier, group["name"]): (group.get("cable") or {}).get("category")
        for tier, network in fabric.settings.networks.items()
        for group in network.get("link_groups") or []
    }
    groups: dict[tuple, Counter] = {}
    seen: set[tuple[str, str]] = set()
    for index, link in enumerate(elements.links):
        if not link.cable_part or (link.network, link.cable_id) in seen:
            continue
        seen.add((link.network, link.cable_id))
        record = facts.parts.get(link.cable_part)
        category = (record or {}).get("category") or filed.get((link.network, link.group))
        category = category if category in CATEGORIES else "cable"
        length = _length_key(ordered[index]) if category in CABLES and index in ordered else None
        part = canonical(link.cable_part) if record else link.cable_part
        key = (category, link.network, part, length)
        counts[key] += 1
        groups.setdefault(key, Counter())[link.group] += 1
    for key, per_group in groups.items():
        unit = COUNTED_PER[key[0]].split(" (")[0]
        whys = "; ".join(f"{group} {count}" for group, count in per_group.items())
        counted_per[key] = f"{unit} ({whys})"


__all__ = [
    "CATEGORIES",
    "CATEGORY_LABELS",
    "RACK_KINDS",
    "SPARES_CATEGORIES",
    "BillOfMaterials",
    "BomError",
    "BomLine",
    "bill_of_materials",
    "clean_spares_pct",
    "racks_by_kind",
    "spares_for",
]
