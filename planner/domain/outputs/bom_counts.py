"""How a fabric's parts are counted into bill-of-materials lines, one rule per kind of part.

Split from :mod:`planner.domain.outputs.bom`, whose docstring states the counting rules and
whose :func:`~planner.domain.outputs.bom.bill_of_materials` calls these: devices, NVLink trays,
power supplies, NICs, media at each ordered length, structured cabling, racks and the other
networks' devices and cables."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping

import numpy as np

from inventory.library.provenance import provenance_for
from inventory.library.vocab import ON_BOARD
from planner.domain.fabric import REPORT_TIER_NAMES, ROLE, SWITCH_ROLES, TIER_NAMES
from planner.domain.media import (
    POLICY_TEXT,
    order_lengths_of,
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
)
from planner.domain.summary import first_link_of_units, ordered_cable_length_m, racks_by_kind

from .bom_categories import (
    CABINET_PART,
    CATEGORIES,
    COUNTED_PER,
    NETWORK_TIERS,
    RACK_KINDS,
)

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
        elif CABINET_PART in facts.parts:
            part = canonical(CABINET_PART)
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
