"""Power and thermal budget of a fabric: per device, rack, row and in total.

Pure Python and NumPy (no Django): :func:`power_budget` reads a built
:class:`~planner.domain.fabric.Fabric` (layout and media assigned) and the
:class:`~planner.domain.catalog.CatalogFacts` it was built from, and grades every figure it uses
by the catalog's provenance (``facts.parts[slug]["provenance"]``).

Figures used (reference-architectures.md §3, catalog-facts.md rule 20)
-----------------------------------------------------------------------
- **Servers** (and fabric-manager nodes): ``power_max_w``, the figure vendors publish for GPU
  servers (DGX H100: 10.2 kW max). No typical figure is published, so the budget is a ceiling.
- **Switches**: ``power_typical_w``, "typical with passive cables", i.e. *without* optics; the
  optics are counted separately below. A switch's ``power_max_w`` already includes active
  modules, so it is never used (that would count the optics twice). A switch without a typical
  figure is unknown.
- **Transceivers**: ``power_max_w`` of each module, once per module (a twin-port module
  carrying two links counts once); ``power_typical_w`` when no maximum is published.
- **Cables**: the head end (``power_end_a_w``, at the upper-tier cage) once per cable, plus
  ``power_end_b_w`` for every lower-tier cage a leg is plugged into. A passive DAC without a
  figure counts 0.1 W per end (rule 20: "≤0.1 W per end"; grade ``inferred``). Fibers are
  passive glass: 0 W.

A figure missing from the catalog adds nothing to ``total_w``; the item is listed under
``unknown`` with a stand-in (``unknown.estimate_w``, *not* in the total): the cage's rated
``max_module_power_w`` for a module, else the highest published maximum of catalog modules of
the same form factor, speed, ports per module and media. ``confidence`` is each provenance
grade's share of ``total_w + unknown.estimate_w``; ``unknown`` is the stand-ins' share (plus
figures with no provenance record).

Racks and rows
--------------
Every watt sits in the rack of the device it is in (a cable end in the rack of the cage it is
plugged into). A rack's limit is its own ``limit_w`` (or ``power_limit_w`` / ``power_kw``) when
the fabric's rack carries one, else the layout's catalog rack type's ``power_kw``. A rack above
its limit is an error ``rack-power-over-limit``; a rack holding both front-to-rear and
rear-to-front devices is a warning ``rack-airflow-mixed``. BTU/h = W × 3.412.

The cluster's other networks (``fabric.settings.networks``, issue 18) sit in racks too, where
:func:`planner.domain.networks.elements.cluster_elements` placed them (stored with the
fabric): their switches
(``power_typical_w``) and management systems (UFM appliances, management nodes, rack PDUs:
``power_max_w``) add to their rack's ``power_w`` and appear as ``network_w`` (and
``network_devices``) of the rack; OOB switches sit in the top 2 U of compute racks, the rest
in the management racks ``MGMT-01``..., listed after the layout's racks (``kind``
``management``, the row after the layout's last, its limit the layout's rack type's). A device
without a figure adds nothing and marks its rack ``incomplete`` (``unknown_devices`` names
it). The networks' modules (``by_network``'s ``transceivers_w``) are in the total but in no
rack: the elements do not say which cage of a device holds each module. Storage arrays, NFS
storage and the customer's core are outside the plan (no rack, no figure).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from inventory.library.provenance import provenance_for
from planner.domain.arrays import unique as unique_sorted
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import REPORT_TIER_NAMES, ROLE, ROLES, SWITCH_ROLES, Fabric
from planner.domain.networks.elements import network_elements
from planner.domain.summary import summarize

BTU_PER_W = 3.412
PASSIVE_DAC_END_W = 0.1
GRADES = ("datasheet", "secondary", "inferred", "estimate", "unknown")
CATEGORIES = ("servers", "switches", "transceivers", "cables")
AIRFLOW_DIRECTIONS = ("front-to-rear", "rear-to-front")
MAX_ELEMENT_IDS = 50
FIGURES = {
    "servers": "power_max_w (the published maximum; GPU servers publish no typical figure)",
    "switches": "power_typical_w (typical with passive cables, without optics)",
    "transceivers": "power_max_w per module (power_typical_w when no maximum is published)",
    "cables": "power_end_a_w once per cable + power_end_b_w per plugged leg; passive DAC "
    "without a figure 0.1 W per end; fibers 0 W",
}

ProgressCallback = Callable[[int, int, str], None] | None


@dataclass
class PowerReport:
    """The power budget; :meth:`as_dict` is the JSON contract used by jobs, CLI and canvas."""

    total_w: float
    by_category: dict[str, float]
    by_tier: dict[str, dict]
    by_role: dict[str, dict]
    racks: list[dict]
    rows: list[dict]
    network_w: float
    network_w_per_gpu: float | None
    network_w_per_tbps: float | None
    optics_share: float | None
    pue: float | None
    facility_w: float | None
    confidence: dict[str, float]
    unknown: dict
    problems: list[dict] = field(default_factory=list)
    gpus: int = 0
    bisection_gbps: float = 0.0
    figures: dict[str, str] = field(default_factory=lambda: dict(FIGURES))
    by_network: dict[str, dict] = field(default_factory=dict)

    @property
    def btu_h(self) -> float:
        return round(self.total_w * BTU_PER_W, 1)

    def as_dict(self) -> dict:
        """JSON-ready dict (see the module docstring for the meaning of each key)."""
        return {
            "total_w": self.total_w,
            "total_kw": round(self.total_w / 1000, 3),
            "btu_h": self.btu_h,
            "by_category": dict(self.by_category),
            "by_tier": {k: dict(v) for k, v in self.by_tier.items()},
            "by_role": {k: dict(v) for k, v in self.by_role.items()},
            "racks": [dict(r) for r in self.racks],
            "rows": [dict(r) for r in self.rows],
            "network_w": self.network_w,
            "network_w_per_gpu": self.network_w_per_gpu,
            "network_w_per_tbps": self.network_w_per_tbps,
            "optics_share": self.optics_share,
            "gpus": self.gpus,
            "bisection_gbps": self.bisection_gbps,
            "pue": self.pue,
            "facility_w": self.facility_w,
            "confidence": dict(self.confidence),
            "unknown": dict(self.unknown),
            "figures": dict(self.figures),
            "problems": [dict(p) for p in self.problems],
            "by_network": {k: dict(v) for k, v in self.by_network.items()},
        }


class _Ledger:
    """Watts by grade, and unknown items with their stand-ins."""

    def __init__(self):
        self.by_grade: Counter = Counter()
        self.unknown_items: dict[str, Counter] = {c: Counter() for c in CATEGORIES}
        self.unknown_estimate_w = 0.0
        self.notes: set[str] = set()

    def known(self, grade: str, watts: float) -> None:
        self.by_grade[grade if grade in GRADES else "unknown"] += watts

    def missing(self, category: str, slug: str, count: int, stand_in_w: float | None) -> None:
        self.unknown_items[category][slug] += count
        if stand_in_w:
            self.add_estimate(stand_in_w * count)

    def add_estimate(self, watts: float) -> None:
        self.unknown_estimate_w += watts
        self.by_grade["unknown"] += watts


def _grade(part: dict | None, path: str) -> str:
    """The provenance grade of ``path`` in a catalog part ("unknown" without a record)."""
    if not part:
        return "unknown"
    record = provenance_for(part.get("provenance") or {}, path)
    return (record or {}).get("grade") or "unknown"


def _round(value: float) -> float:
    return round(float(value), 1)


def _share(part: float, whole: float) -> float | None:
    return round(part / whole, 4) if whole else None


# --- devices ------------------------------------------------------------------------------------


def _device_power(fabric: Fabric, facts: CatalogFacts, ledger: _Ledger):
    """Per-node watts (0 when unknown), whether known, and airflow per model."""
    model_w = np.zeros(len(fabric.models), dtype=np.float64)
    model_known = np.zeros(len(fabric.models), dtype=bool)
    airflow: list[str | None] = [None] * len(fabric.models)
    models, counts = np.unique(fabric.node_model, return_counts=True)
    for index, count in zip(models.tolist(), counts.tolist(), strict=True):
        slug = fabric.models[index]
        device = facts.devices.get(slug)
        part = facts.parts.get(slug)
        category = "switches" if device and device.category == "switch" else "servers"
        if device is not None:
            airflow[index] = device.airflow
        path = "power_typical_w" if category == "switches" else "power_max_w"
        watts = getattr(device, path, None) if device else None
        if watts:
            model_w[index] = float(watts)
            model_known[index] = True
            ledger.known(_grade(part, path), float(watts) * count)
        else:
            ledger.missing(category, slug, count, None)
            ledger.notes.add(f"{slug}: no {path} in the catalog; {count} counted as 0 W")
    return model_w[fabric.node_model], model_known[fabric.node_model], airflow


# --- transceivers ------------------------------------------------------------------------------


def _family_stand_in(facts: CatalogFacts, part: dict) -> float | None:
    """Highest published max of catalog modules like ``part`` (form factor, speed, ports, media)."""
    key = ("form_factor", "speed_gbps", "ports_per_module", "media")
    wanted = tuple(part.get(k) for k in key)
    if wanted[0] is None or wanted[1] is None:
        return None
    best = None
    for other in facts.parts.values():
        if other.get("category") != "transceiver" or other is part:
            continue
        if tuple(other.get(k) for k in key) != wanted:
            continue
        watts = other.get("power_max_w") or other.get("power_typical_w")
        if watts and (best is None or watts > best):
            best = float(watts)
    return best


def _cage_ratings(facts: CatalogFacts, fabric: Fabric) -> np.ndarray:
    """Per model: the highest rated module power of its cages (0 = not rated)."""
    ratings = np.zeros(len(fabric.models), dtype=np.float64)
    for index, slug in enumerate(fabric.models):
        device = facts.devices.get(slug)
        values = (
            [g.max_module_power_w for g in device.port_groups if g.max_module_power_w]
            if device
            else []
        )
        ratings[index] = float(max(values)) if values else 0.0
    return ratings


def _modules(fabric: Fabric):
    """One row per module: (module id, part index, node, tier), first link wins."""
    ids = np.concatenate([fabric.link_a_module, fabric.link_b_module]).astype(np.int64)
    parts = np.concatenate([fabric.link_a_part, fabric.link_b_part]).astype(np.int64)
    nodes = np.concatenate([fabric.link_a, fabric.link_b]).astype(np.int64)
    report = fabric.report_tiers()  # links between buildings: the campus tier
    tiers = np.concatenate([report, report]).astype(np.int64)
    keep = (ids >= 0) & (parts >= 0)
    if not keep.any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    ids, parts, nodes, tiers = ids[keep], parts[keep], nodes[keep], tiers[keep]
    _, first = np.unique(ids, return_index=True)
    return ids[first], parts[first], nodes[first], tiers[first]


def _transceiver_power(fabric, facts, ledger: _Ledger, node_w, node_unknown, tier_w) -> float:
    """Add each module's watts to its node; returns the total."""
    _, parts, nodes, tiers = _modules(fabric)
    if not parts.size:
        return 0.0
    ratings = _cage_ratings(facts, fabric)
    module_w = np.zeros(parts.shape[0], dtype=np.float64)
    for part_index in unique_sorted(parts).tolist():
        slug = fabric.parts[part_index]
        part = facts.parts.get(slug) or {}
        mask = parts == part_index
        count = int(mask.sum())
        path = "power_max_w" if part.get("power_max_w") else "power_typical_w"
        watts = part.get(path)
        if watts:
            module_w[mask] = float(watts)
            ledger.known(_grade(part, path), float(watts) * count)
            if path == "power_typical_w":
                ledger.notes.add(f"{slug}: no maximum published; typical power used")
            continue
        # Unknown: stand-in per module = its cage's rating, else the family's highest maximum.
        family = _family_stand_in(facts, part) or 0.0
        rated = ratings[fabric.node_model[nodes[mask]]]
        stand_ins = np.where(rated > 0, rated, family)
        ledger.missing("transceivers", slug, count, None)
        node_unknown[nodes[mask]] = True
        ledger.add_estimate(float(stand_ins.sum()))
        ledger.notes.add(
            f"{slug}: no power figure in the catalog; {count} module(s) counted as 0 W, "
            f"stand-in {float(stand_ins.sum()):g} W in unknown.estimate_w (the cage's rating, "
            "else the highest maximum of similar modules)"
        )
    np.add.at(node_w, nodes, module_w)
    np.add.at(tier_w["transceivers"], tiers, module_w)
    return float(module_w.sum())


# --- cables -------------------------------------------------------------------------------------


def _cable_power(fabric, facts, ledger: _Ledger, node_w, node_unknown, tier_w) -> float:
    """Add cable-end watts to the nodes whose cages hold them; returns the total."""
    if fabric.link_cable is None or fabric.link_cable_part is None:
        return 0.0
    keep = (fabric.link_cable >= 0) & (fabric.link_cable_part >= 0)
    if not keep.any():
        return 0.0
    links = np.flatnonzero(keep)
    total = 0.0
    report = fabric.report_tiers()
    cable_ids = fabric.link_cable[links].astype(np.int64)
    part_of = fabric.link_cable_part[links].astype(np.int64)
    for part_index in unique_sorted(part_of).tolist():
        slug = fabric.parts[part_index]
        part = facts.parts.get(slug) or {}
        if part.get("category") != "cable":
            continue  # fibers: passive
        sel = links[part_of == part_index]
        ids = cable_ids[part_of == part_index]
        # Head (end A): once per cable, at the b-end (upper-tier) node of its first link.
        _, first = np.unique(ids, return_index=True)
        heads = fabric.link_b[sel[first]].astype(np.int64)
        head_tiers = report[sel[first]].astype(np.int64)
        # Legs (end B): one per distinct lower-tier cage.
        a_nodes = fabric.link_a[sel].astype(np.int64)
        cage = fabric.link_a_port[sel].astype(np.int64) // np.maximum(
            fabric.node_ports_per_cage[a_nodes].astype(np.int64), 1
        )
        _, leg_first = np.unique(np.stack([ids, a_nodes, cage]), axis=1, return_index=True)
        leg_nodes = a_nodes[leg_first]
        leg_tiers = report[sel[leg_first]].astype(np.int64)
        passive = part.get("cable_type") == "dac"
        for path, nodes, tiers in (
            ("power_end_a_w", heads, head_tiers),
            ("power_end_b_w", leg_nodes, leg_tiers),
        ):
            count = int(nodes.shape[0])
            watts = part.get(path)
            grade = _grade(part, path)
            if watts is None and passive:
                watts, grade = PASSIVE_DAC_END_W, "inferred"
                ledger.notes.add(f"{slug}: passive DAC without a figure; {watts:g} W per end")
            if watts is None:
                ledger.missing("cables", f"{slug} ({path})", count, None)
                node_unknown[nodes] = True
                ledger.notes.add(f"{slug}: no {path}; {count} end(s) counted as 0 W")
                continue
            watts = float(watts)
            ledger.known(grade, watts * count)
            np.add.at(node_w, nodes, watts)
            np.add.at(tier_w["cables"], tiers, watts)
            total += watts * count
    return total


# --- racks --------------------------------------------------------------------------------------


def _rack_limit(rack: dict, default_w: float | None) -> float | None:
    for key, scale in (("limit_w", 1.0), ("power_limit_w", 1.0), ("power_kw", 1000.0)):
        value = rack.get(key)
        if value:
            return float(value) * scale
    return default_w


def _layout_rack_limit(fabric: Fabric, facts: CatalogFacts) -> float | None:
    slug = (fabric.settings.layout or {}).get("rack")
    part = facts.parts.get(slug) if slug else None
    power_kw = (part or {}).get("power_kw")
    return float(power_kw) * 1000 if power_kw else None


def _network_loads(fabric: Fabric, facts: CatalogFacts) -> tuple[dict[str, dict], list[dict]]:
    """Per rack name, the cluster networks' devices in it (module docstring): watts, unknown
    models, airflow and count; and the management racks (name, row, position), in order."""
    if not fabric.settings.networks:
        return {}, []

    elements = network_elements(fabric, facts)
    loads: dict[str, dict] = {}
    for placed in elements.devices:
        if placed.network == "compute" or not placed.rack:
            continue
        device = facts.devices.get(placed.model)
        switch = device is not None and device.category == "switch"
        watts = (device.power_typical_w if switch else device.power_max_w) if device else None
        load = loads.setdefault(
            placed.rack, {"w": 0.0, "count": 0, "unknown": Counter(), "airflow": Counter()}
        )
        load["count"] += 1
        if watts:
            load["w"] += float(watts)
        else:
            load["unknown"][placed.model] += 1
        if device is not None and device.airflow in AIRFLOW_DIRECTIONS:
            load["airflow"][device.airflow] += 1
    management = [
        {"name": p.name, "row": p.row, "position": p.position, "kind": "management"}
        for p in elements.rack_places
    ]
    return loads, management


def _racks(fabric, facts, node_w, node_unknown, airflow_of_model, problems):
    """Per-rack power, limits and airflow rows of a placed fabric (none when it has no layout).

    Long because: one vectorised pass over the racks that builds the rack rows and the row totals
    together from the same arrays.
    """
    if not fabric.racks or fabric.node_rack is None:
        return [], []
    network_loads, management_racks = _network_loads(fabric, facts)
    default_limit = _layout_rack_limit(fabric, facts)
    rack_count = len(fabric.racks)
    rack_index = fabric.node_rack.astype(np.int64)
    placed = rack_index >= 0
    rack_w = np.bincount(rack_index[placed], weights=node_w[placed], minlength=rack_count)
    incomplete = np.zeros(rack_count, dtype=bool)
    incomplete[unique_sorted(rack_index[placed & node_unknown])] = True
    airflow = np.array([airflow_of_model[m] or "" for m in range(len(fabric.models))], dtype=object)
    node_airflow = airflow[fabric.node_model] if len(fabric.models) else np.zeros(0, object)
    racks, rows = [], {}
    empty = np.zeros(0, dtype=np.int64)
    every: list[tuple[int | None, dict]] = list(enumerate(fabric.racks))
    every += [(None, rack) for rack in management_racks]
    for index, rack in every:
        name = rack.get("name") or f"rack-{index}"
        load = network_loads.get(name) or {}
        network_w = float(load.get("w") or 0.0)
        watts = (float(rack_w[index]) if index is not None else 0.0) + network_w
        limit = _rack_limit(rack, default_limit)
        members = np.flatnonzero(rack_index == index) if index is not None else empty
        directions = Counter(d for d in node_airflow[members].tolist() if d in AIRFLOW_DIRECTIONS)
        directions.update(load.get("airflow") or {})
        mixed = len(directions) > 1
        unknown_devices = dict(load.get("unknown") or {})
        entry = {
            "rack": name,
            "row": rack.get("row"),
            "kind": rack.get("kind"),
            "power_w": _round(watts),
            "limit_w": _round(limit) if limit else None,
            "utilization": round(watts / limit, 4) if limit else None,
            "btu_h": _round(watts * BTU_PER_W),
            "airflow": dict(directions),
            "airflow_mixed": mixed,
            "incomplete": bool(index is not None and incomplete[index]) or bool(unknown_devices),
        }
        if load:
            entry["network_w"] = _round(network_w)
            entry["network_devices"] = int(load["count"])
            entry["unknown_devices"] = unknown_devices
        racks.append(entry)
        if limit and watts > limit + 1e-6:
            problems.append(
                {
                    "code": "rack-power-over-limit",
                    "severity": "error",
                    "message": f"Rack {name} draws {watts / 1000:,.2f} kW, above its "
                    f"{limit / 1000:,.2f} kW limit.",
                    "element_ids": [f"rack:{name}"],
                    "suggestion": "Put fewer servers in each rack (layout.servers_per_rack) "
                    "or choose a rack type with a higher power_kw.",
                    "rule": "power.rack-limit",
                }
            )
        if mixed:
            minority = min(directions, key=lambda d: (directions[d], d))
            odd = [m for m in members.tolist() if node_airflow[m] == minority]
            problems.append(
                {
                    "code": "rack-airflow-mixed",
                    "severity": "warning",
                    "message": f"Rack {name} mixes airflow directions ("
                    + ", ".join(f"{n} {d}" for d, n in sorted(directions.items()))
                    + "): hot exhaust would feed cold intakes.",
                    "element_ids": [f"rack:{name}"]
                    + [fabric.element_id("node", m) for m in odd[:MAX_ELEMENT_IDS]],
                    "suggestion": f"Order the {minority} devices in the rack's other airflow "
                    "variant, or move them to a rack of their own.",
                    "rule": "power.airflow",
                }
            )
        row_key = rack.get("row")
        row = rows.setdefault(
            row_key, {"row": row_key, "name": name.split("-")[0], "racks": 0, "power_w": 0.0}
        )
        row["racks"] += 1
        row["power_w"] += watts
        row.setdefault("_limits", []).append(limit)
    row_list = []
    for row in rows.values():
        limits = row.pop("_limits")
        row["power_w"] = _round(row["power_w"])
        row["limit_w"] = _round(sum(limits)) if all(limits) else None
        row["btu_h"] = _round(row["power_w"] * BTU_PER_W)
        row_list.append(row)
    row_list.sort(key=lambda r: (r["row"] is None, r["row"] if r["row"] is not None else 0))
    return racks, row_list


# --- the report ---------------------------------------------------------------------------------


def _network_power(fabric: Fabric, facts: CatalogFacts, ledger: _Ledger) -> dict[str, dict]:
    """Watts of the cluster's other networks (``fabric.settings.networks``, issue 18): their
    switches (power_typical_w, as the compute switches), modules (power_max_w, else
    power_typical_w) and management systems (power_max_w), per network. A part without a
    figure adds nothing and is listed under ``unknown``."""
    out: dict[str, dict] = {}
    for name, network in (fabric.settings.networks or {}).items():
        watts = {"switches": 0.0, "transceivers": 0.0, "servers": 0.0}
        items = [(g["model"], g["count"], "switches") for g in network.get("switch_groups") or []]
        for counted in network.get("parts") or []:
            category = counted.get("category")
            bucket = "servers" if category == "server" else "transceivers"
            if category in ("server", "transceiver"):
                items.append((counted["part"], counted["count"], bucket))
        for slug, count, bucket in items:
            part = facts.parts.get(slug)
            if bucket == "switches":
                figure, path = (part or {}).get("power_typical_w"), "power_typical_w"
            elif bucket == "servers":
                figure, path = (part or {}).get("power_max_w"), "power_max_w"
            else:
                figure = (part or {}).get("power_max_w") or (part or {}).get("power_typical_w")
                path = "power_max_w" if (part or {}).get("power_max_w") else "power_typical_w"
            if figure:
                watts[bucket] += float(figure) * count
                ledger.known(_grade(part, path), float(figure) * count)
            else:
                ledger.missing(bucket, slug, count, None)
        out[name] = {
            "switches_w": _round(watts["switches"]),
            "transceivers_w": _round(watts["transceivers"]),
            "systems_w": _round(watts["servers"]),
            "total_w": _round(sum(watts.values())),
        }
    return out


def power_budget(
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    pue: float | None = None,
    on_progress: ProgressCallback = None,
) -> PowerReport:
    """Power and thermal budget of ``fabric`` (figures and rules in the module docstring).

    Parameters
    ----------
    fabric : Fabric
        A built fabric; without media, transceivers and cables count 0 W; without a layout,
        ``racks`` and ``rows`` are empty.
    facts : CatalogFacts
        The catalog it was built from; parts carry ``provenance`` for the confidence grades.
    pue : float, optional
        Power usage effectiveness (≥ 1); gives ``facility_w = total_w × pue``.
    on_progress : callable, optional
        ``on_progress(done, total, message)`` after each step.

    Raises
    ------
    ValueError
        ``pue`` is below 1.

    Long because: it gathers every figure of the budget (per device, per tier, per rack, thermal)
    into one result, each figure a few lines with its source and unknowns.
    """
    if pue is not None and not pue >= 1.0:
        raise ValueError(f"pue: must be at least 1.0 (got {pue})")
    steps = 5

    def progress(done: int, message: str) -> None:
        if on_progress:
            on_progress(done, steps, message)

    ledger = _Ledger()
    node_w, node_known, airflow = _device_power(fabric, facts, ledger)
    node_w = node_w.astype(np.float64, copy=True)
    node_unknown = ~node_known
    roles = fabric.node_role
    is_switch = np.isin(roles, [ROLE[r] for r in SWITCH_ROLES])
    servers_w = float(node_w[~is_switch].sum())
    switches_w = float(node_w[is_switch].sum())
    by_role = {}
    for role in ROLES:
        mask = roles == ROLE[role]
        if mask.any():
            by_role[role] = {
                "count": int(mask.sum()),
                "power_w": _round(node_w[mask].sum()),
                "unknown": int((mask & ~node_known).sum()),
            }
    progress(1, "devices")

    tier_w = {
        "transceivers": np.zeros(len(REPORT_TIER_NAMES), dtype=np.float64),
        "cables": np.zeros(len(REPORT_TIER_NAMES), dtype=np.float64),
    }
    transceivers_w = 0.0
    cables_w = 0.0
    if fabric.link_a_part is not None and fabric.link_a_module is not None:
        transceivers_w = _transceiver_power(fabric, facts, ledger, node_w, node_unknown, tier_w)
        progress(2, "transceivers")
        cables_w = _cable_power(fabric, facts, ledger, node_w, node_unknown, tier_w)
    else:
        ledger.notes.add("media not assigned: transceivers and cables count 0 W")
    progress(3, "cables")

    problems: list[dict] = []
    racks, rows = _racks(fabric, facts, node_w, node_unknown, airflow, problems)
    progress(4, "racks")

    summary = summarize(fabric)
    links = np.bincount(fabric.report_tiers().astype(np.int64), minlength=len(REPORT_TIER_NAMES))
    by_tier = {}  # links between buildings of a campus: their own tier, "campus"
    for code, tier in enumerate(REPORT_TIER_NAMES):
        if not links[code]:
            continue
        optics, cables = float(tier_w["transceivers"][code]), float(tier_w["cables"][code])
        by_tier[tier] = {
            "links": int(links[code]),
            "transceivers_w": _round(optics),
            "cables_w": _round(cables),
            "total_w": _round(optics + cables),
        }
    by_network = _network_power(fabric, facts, ledger)
    servers_w += sum(n["systems_w"] for n in by_network.values())
    switches_w += sum(n["switches_w"] for n in by_network.values())
    transceivers_w += sum(n["transceivers_w"] for n in by_network.values())
    total = servers_w + switches_w + transceivers_w + cables_w
    network = switches_w + transceivers_w + cables_w
    gpus = int(summary.get("gpus") or 0)
    bisection = float(summary.get("bisection_gbps") or 0)
    whole = total + ledger.unknown_estimate_w
    confidence = {
        grade: round(ledger.by_grade.get(grade, 0.0) / whole, 4) if whole else 0.0
        for grade in GRADES
    }
    unknown = {
        "devices": {
            **dict(ledger.unknown_items["servers"]),
            **dict(ledger.unknown_items["switches"]),
        },
        "transceivers": dict(ledger.unknown_items["transceivers"]),
        "cables": dict(ledger.unknown_items["cables"]),
        "estimate_w": _round(ledger.unknown_estimate_w),
        "notes": sorted(ledger.notes),
    }
    progress(5, "summary")
    return PowerReport(
        total_w=_round(total),
        by_category={
            "servers": _round(servers_w),
            "switches": _round(switches_w),
            "transceivers": _round(transceivers_w),
            "cables": _round(cables_w),
        },
        by_tier=by_tier,
        by_role=by_role,
        racks=racks,
        rows=rows,
        network_w=_round(network),
        network_w_per_gpu=round(network / gpus, 2) if gpus else None,
        network_w_per_tbps=round(network / (bisection / 1000), 2) if bisection else None,
        optics_share=_share(transceivers_w, network),
        pue=pue,
        facility_w=_round(total * pue) if pue is not None else None,
        confidence=confidence,
        unknown=unknown,
        problems=problems,
        gpus=gpus,
        bisection_gbps=bisection,
        by_network=by_network,
    )


__all__ = ["FIGURES", "PowerReport", "power_budget"]
