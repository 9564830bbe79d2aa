"""Expected failures at scale (issue 24): failures per day by category, interruptions of a job
spanning N GPUs, and the spares that keep a service level over a replenishment lead time.

Rates
-----
A part with a catalog ``mtbf_hours`` (:func:`inventory.library.facts.failure_facts_of`) fails
``24 / mtbf_hours`` times a day on average (a constant failure rate: the flat part of the
bathtub curve; infant mortality and wear-out are not modelled). A design's figure for a
category is the sum over its field-replaceable units, counted as the bill of materials counts
what its spares cover (:attr:`planner.domain.outputs.bom.BomLine.installed`: servers and
switches per device, a rack-scale system by its compute trays and NVLink switch trays, NIC
cards per server, transceivers per module, cables per assembly, management systems and rack
PDUs per device, power supplies per device as the catalog counts them;
:func:`planner.domain.outputs.bom.bill_of_materials`).

Where no part of a group has a figure, and only then, the group takes its rate from the one
published field count at this scale, stated as such (``basis: "llama3"``, grade
``inferred``): Meta's Llama 3 405B pre-training, 419 unexpected interruptions in 54 days on
16,384 H100 GPUs (arXiv 2407.21783, Table 5; :data:`LLAMA3`). Per GPU-day a group's rate is
its interruptions / (16,384 GPUs x 54 days); a design's is that times its GPUs. The groups:

- ``server``: the GPU rows (faulty GPU 148, HBM3 72, SRAM 19, GPU system processor 17,
  silent data corruption 6, thermal interface and sensor 6) and the host rows (SSD, power
  supply, chassis, IO expansion board, CPU, system memory: 14): 282. Every one of them is
  replaced with the compute node that holds it: a server, or a rack-scale system's compute
  tray (GPUs, Grace CPUs, memory and drives on one tray), so the spares are of those;
- ``nic``: NIC, 7;
- ``network``: network switch and cable, 35 (switches, transceivers and cables together: the
  table does not split them, so neither does this module).

Software bugs (54), host maintenance (32), NCCL watchdog timeouts (7) and dependencies (2)
are not part failures and are left out (95 of the 419). The management systems
(``management``: fabric-manager appliances, management nodes), rack PDUs (``pdu``) and
power supplies (``psu``, where the catalog gives a device's PSU count) are groups of their
own: the table has no row for them (its 3 power-supply failures are hosts', counted in the
``server`` group), so without a catalog MTBF they have no rate and their spares are the
percentage the user sets on the BOM (default none). A group with some parts figured and
others not sums the figured ones only (a lower bound) and names the others.

Interruptions of a job
----------------------
A job spanning N GPUs is placed on the first ``ceil(N / GPUs per server)`` servers in fabric
order (a compact placement) and taken to stop when anything it depends on fails:

- its servers and their NIC cards;
- every link with an end at one of them, with the link's modules (each module once) and
  cable assembly, and the leaves those links reach;
- when its servers do not all reach the same leaves (the job spans more than one leaf
  group), the links above those leaves and the switches they reach, tier by tier up to the
  top: an upper bound (adaptive routing or ECMP may carry a job past a failed uplink).

The job's rate is the sum of those parts' rates (per group, the Llama 3 rate scaled by the
job's N GPUs where the group has no figure); the mean time between interruptions is
``24 / rate`` hours.

Spares
------
Over a replenishment lead time of T days (default 30), failures of a category are Poisson
with mean ``rate x T``; the spares that keep the service level L (default 99 %) are the
smallest s with P(failures <= s) >= L. The spares percentage for the BOM is the largest
two-decimal percentage whose BOM rounding (``ceil(base x pct / 100)``) gives s (a tiny
installed base with a tiny percentage may round to s + 1, said in the row). The BOM uses it
only when the user picks "spares from failure rates" (its ``spares_<category>`` fields).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from inventory.library.facts import failure_facts_of
from planner.analyses.resilience.domains import gpus_per_server
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, Fabric
from planner.domain.outputs.bom import bill_of_materials

#: Meta, "The Llama 3 Herd of Models" (arXiv 2407.21783), Table 5: root causes of the 419
#: unexpected interruptions in a 54-day snapshot of Llama 3 405B pre-training on 16,384 H100
#: GPUs (component, interruptions, the group this module puts it in or None: not a part).
LLAMA3 = {
    "source": "https://arxiv.org/abs/2407.21783",
    "read_at": "https://glennklockwood.com/garden/component-reliability",
    "title": "Llama 3 405B pre-training, Table 5: 419 unexpected interruptions in 54 days on "
    "16,384 H100 GPUs",
    "gpus": 16_384,
    "days": 54,
    "rows": (
        ("Faulty GPU", 148, "server"),
        ("GPU HBM3 memory", 72, "server"),
        ("Software bug", 54, None),
        ("Network switch/cable", 35, "network"),
        ("Host maintenance", 32, None),
        ("GPU SRAM memory", 19, "server"),
        ("GPU system processor", 17, "server"),
        ("NIC", 7, "nic"),
        ("NCCL watchdog timeouts", 7, None),
        ("Silent data corruption", 6, "server"),
        ("GPU thermal interface + sensor", 6, "server"),
        ("SSD", 3, "server"),
        ("Power supply", 3, "server"),
        ("Server chassis", 2, "server"),
        ("IO expansion board", 2, "server"),
        ("Dependency", 2, None),
        ("CPU", 2, "server"),
        ("System memory", 2, "server"),
    ),
}

#: Part categories in display order, their group (for the Llama 3 rate) and label.
CATEGORIES = {
    "server": ("server", "Servers and compute trays (GPUs, memory, host)"),
    "nic": ("nic", "NICs"),
    "switch": ("network", "Switches and NVLink switch trays"),
    "transceiver": ("network", "Optics (transceivers)"),
    "cable": ("network", "Cables (DAC, ACC, AEC, AOC)"),
    "management": ("management", "Management systems (fabric managers, head nodes)"),
    "pdu": ("pdu", "Rack PDUs"),
    "psu": ("psu", "Power supplies (PSUs)"),
}
GROUP_LABELS = {
    "server": "Servers and compute trays (GPUs, memory, host)",
    "nic": "NICs",
    "network": "Switches, optics and cables",
    "management": "Management systems (fabric managers, head nodes)",
    "pdu": "Rack PDUs",
    "psu": "Power supplies (PSUs)",
}
DEFAULT_LEAD_TIME_DAYS = 30.0
DEFAULT_LEVEL = 0.99
APPROXIMATION = (
    "A job is placed on the first servers in fabric order and depends on its servers, their "
    "NICs, their links' modules and cables, the leaves they reach and, when its servers reach "
    "different leaves, every link and switch above those leaves (an upper bound: adaptive "
    "routing or ECMP may carry a job past a failed uplink). The servers of one rail-optimized "
    "SU all reach the same leaves (one per rail), so a job inside one SU depends on no spine: "
    "this holds when NCCL keeps its traffic on the rails (PXN, NCCL 2.12 and later, first "
    "moves data over NVLink to the GPU on the destination's rail). Failures are taken to come "
    "at a constant rate (24 / MTBF a day per part)."
)


def llama3_counts() -> dict[str, int]:
    """Interruptions per group of the Llama 3 table (parts only).

    >>> llama3_counts()
    {'server': 282, 'network': 35, 'nic': 7}
    """
    out: dict[str, int] = {}
    for _, count, group in LLAMA3["rows"]:
        if group:
            out[group] = out.get(group, 0) + count
    return out


def llama3_rate_per_gpu_day(group: str) -> float:
    """A group's Llama 3 rate per GPU per day: interruptions / (16,384 GPUs x 54 days).

    >>> round(llama3_rate_per_gpu_day("network") * 16_384 * 54, 6)
    35.0
    """
    return llama3_counts()[group] / (LLAMA3["gpus"] * LLAMA3["days"])


def poisson_spares(mean: float, level: float) -> int:
    """The smallest s with P(X <= s) >= ``level`` for X Poisson with ``mean``.

    >>> poisson_spares(0.0, 0.99), poisson_spares(1.0, 0.99), poisson_spares(2.0, 0.95)
    (0, 4, 5)
    """
    if not 0 < level < 1:
        raise ValueError("level must be between 0 and 1")
    if mean <= 0:
        return 0
    term = math.exp(-mean)
    if term == 0.0:  # a huge mean: the normal approximation's quantile, then walk down
        return _large_mean_spares(mean, level)
    total, s = term, 0
    while total < level:
        s += 1
        term *= mean / s
        total += term
    return s


def _large_mean_spares(mean: float, level: float) -> int:
    from scipy.stats import poisson

    return int(poisson.ppf(level, mean))


def spares_pct_for(spares: int, installed: int) -> float:
    """The spares percentage (two decimals) that the BOM's ``ceil(base x pct / 100)`` turns
    into ``spares`` on ``installed`` parts: the largest such, or the smallest that gives at
    least ``spares`` when none gives it exactly.

    >>> spares_pct_for(3, 1536), spares_pct_for(0, 10), spares_pct_for(2, 7)
    (0.19, 0.0, 28.57)
    """
    if spares <= 0 or installed <= 0:
        return 0.0
    exact = Decimal(spares) * 100 / Decimal(installed)
    pct = exact.quantize(Decimal("0.01"), rounding="ROUND_FLOOR")
    if pct * installed / 100 <= spares - 1:  # no two-decimal value gives exactly ``spares``
        pct = exact.quantize(Decimal("0.01"), rounding="ROUND_CEILING")
    return float(pct)


@dataclass(frozen=True)
class PartRate:
    """One catalog part of a design: how many, and its MTBF (None: unknown)."""

    category: str
    part: str
    count: int
    mtbf_hours: float | None
    grade: str = ""
    source: str = ""

    @property
    def per_day(self) -> float:
        return self.count * 24.0 / self.mtbf_hours if self.mtbf_hours else 0.0


def design_parts(fabric: Fabric, facts: CatalogFacts) -> list[PartRate]:
    """Every field-replaceable unit of the categories of :data:`CATEGORIES` with its count
    (the BOM's installed units, all tiers and networks together) and MTBF."""
    counts: dict[tuple[str, str], int] = {}
    for line in bill_of_materials(fabric, facts).lines:
        if line.category in CATEGORIES and line.installed:
            key = (line.category, line.part)
            counts[key] = counts.get(key, 0) + int(line.installed)
    out = []
    for (category, part), count in counts.items():
        known = failure_facts_of(facts.parts.get(part))
        out.append(
            PartRate(
                category=category,
                part=part,
                count=count,
                mtbf_hours=known["mtbf_hours"],
                grade=known["mtbf_grade"],
                source=known["mtbf_source"],
            )
        )
    order = list(CATEGORIES)
    return sorted(out, key=lambda p: (order.index(p.category), p.part))


def _group_rates(
    parts: list[PartRate], gpus: int, fallback: bool
) -> tuple[list[dict], dict[str, dict]]:
    """Rows per category and per group: failures a day, basis, unknown parts.

    Long because: one loop over the categories and groups that builds each row with its rate, basis
    and unknown parts together.
    """
    categories = []
    for category, (group, label) in CATEGORIES.items():
        mine = [p for p in parts if p.category == category]
        if not mine:
            continue
        known = [p for p in mine if p.mtbf_hours]
        categories.append(
            {
                "category": category,
                "group": group,
                "label": label,
                "parts": sum(p.count for p in mine),
                "per_day": sum(p.per_day for p in known) if known else None,
                "unknown": [p.part for p in mine if not p.mtbf_hours],
                "figured": [
                    {
                        "part": p.part,
                        "mtbf_hours": p.mtbf_hours,
                        "grade": p.grade,
                        "source": p.source,
                        "count": p.count,
                    }
                    for p in known
                ],
            }
        )
    if categories and not any(r["category"] == "nic" for r in categories):
        server = next((r for r in categories if r["category"] == "server"), None)
        if server is not None and server["per_day"] is None:  # NICs on the servers' boards
            categories.insert(
                1,
                {
                    "category": "nic",
                    "group": "nic",
                    "label": "NICs (on the servers' boards)",
                    "parts": 0,
                    "per_day": None,
                    "unknown": [],
                    "figured": [],
                    "on_board": True,
                },
            )
    groups: dict[str, dict] = {}
    for row in categories:
        entry = groups.setdefault(
            row["group"],
            {
                "group": row["group"],
                "label": row["label"] if row.get("on_board") else GROUP_LABELS[row["group"]],
                "categories": [],
                "parts": 0,
                "figured": False,
                "unknown": [],
            },
        )
        entry["categories"].append(row["category"])
        entry["parts"] += row["parts"]
        entry["figured"] = entry["figured"] or row["per_day"] is not None
        entry["unknown"] += row["unknown"]
    for entry in groups.values():
        rows = [r for r in categories if r["group"] == entry["group"]]
        if entry["figured"]:
            entry["basis"] = "parts"
            entry["per_day"] = sum(r["per_day"] or 0.0 for r in rows)
            entry["complete"] = not entry["unknown"]
        elif fallback and gpus and entry["group"] in llama3_counts():
            entry["basis"] = "llama3"
            entry["per_day"] = llama3_rate_per_gpu_day(entry["group"]) * gpus
            entry["complete"] = True
        else:
            entry["basis"] = "unknown"
            entry["per_day"] = None
            entry["complete"] = False
        for row in rows:
            row["basis"] = "parts" if row["per_day"] is not None else entry["basis"]
            if entry["basis"] != "parts":
                row["per_day"] = None  # the Llama 3 rate is the group's, not split by part
    return categories, groups


def _nics_per_server(slug: str, facts: CatalogFacts) -> tuple[str, int]:
    """The server's compute NIC and cards per server, as the BOM counts them (0: none)."""
    record = facts.parts.get(slug) or {}
    nic_slug = record.get("compute_nic")
    nic = facts.parts.get(nic_slug) if nic_slug else None
    device = facts.devices.get(slug)
    cages = sum(group.count for group in device.port_groups) if device else 0
    nic_cages = sum(int(port.get("count") or 0) for port in (nic or {}).get("ports") or [])
    if not nic or not cages or not nic_cages:
        return "", 0
    return nic_slug, math.ceil(cages / nic_cages)


def _mtbf(facts: CatalogFacts, slug: str) -> float | None:
    return failure_facts_of(facts.parts.get(slug))["mtbf_hours"]


def _leaf_sets(a: np.ndarray, b: np.ndarray, servers: np.ndarray, is_server: np.ndarray) -> set:
    """The distinct sets (sorted tuples) of far ends of each server's links (``a`` the server
    end), at once: one sort of the (server, far end) pairs instead of a pass over every link
    per server (quadratic at 100,000 GPUs)."""
    own = is_server[a]
    pairs = np.unique(np.stack([a[own], b[own]], axis=1).astype(np.int64), axis=0)
    lows = np.searchsorted(pairs[:, 0], servers, side="left")
    highs = np.searchsorted(pairs[:, 0], servers, side="right")
    far = pairs[:, 1].tolist()
    return {tuple(far[lo:hi]) for lo, hi in zip(lows.tolist(), highs.tolist(), strict=True)}


def job_dependencies(fabric: Fabric, gpus: int) -> dict[str, np.ndarray]:
    """The servers, links and switches a job of ``gpus`` GPUs depends on (see the module
    docstring): ``servers``, ``links``, ``switches`` as sorted index arrays."""
    role = fabric.node_role
    servers = np.flatnonzero(role == ROLE["server"])
    per = gpus_per_server(fabric) or 1
    servers = servers[: max(1, math.ceil(gpus / per))]
    node_in = np.zeros(fabric.node_count, dtype=bool)
    node_in[servers] = True
    a, b = fabric.link_a, fabric.link_b
    link_in = node_in[a] | node_in[b]
    first = np.flatnonzero(link_in)
    ends = np.where(node_in[a[first]], b[first], a[first])
    leaves = np.unique(ends[role[ends] >= ROLE["leaf"]])
    switch_in = np.zeros(fabric.node_count, dtype=bool)
    switch_in[leaves] = True
    leaf_sets = _leaf_sets(a[first], b[first], servers, node_in)
    if len(leaf_sets) > 1:
        frontier = switch_in.copy()
        while frontier.any():
            up = frontier[a] & (role[b] > role[a])
            link_in |= up
            reached = np.zeros(fabric.node_count, dtype=bool)
            reached[b[up]] = True
            frontier = reached & ~switch_in
            switch_in |= reached
    return {
        "servers": servers,
        "links": np.flatnonzero(link_in),
        "switches": np.flatnonzero(switch_in),
    }


def _job_part_counts(fabric: Fabric, facts: CatalogFacts, deps: dict) -> dict[str, dict]:
    """Per category, ``{part slug: count}`` of what the job depends on."""
    out: dict[str, dict[str, int]] = {c: {} for c in CATEGORIES}

    def add(category: str, slug: str, count: int) -> None:
        if count:
            out[category][slug] = out[category].get(slug, 0) + int(count)

    models = fabric.node_model
    for node_set, category in ((deps["servers"], "server"), (deps["switches"], "switch")):
        for model, count in zip(*np.unique(models[node_set], return_counts=True), strict=True):
            slug = fabric.models[int(model)]
            add(category, slug, count)
            if category == "server":
                nic, per = _nics_per_server(slug, facts)
                add("nic", nic, per * int(count))
    links = deps["links"]
    if fabric.link_a_part is not None and links.size:
        for part_col, module_col in (
            (fabric.link_a_part, fabric.link_a_module),
            (fabric.link_b_part, fabric.link_b_module),
        ):
            # one per module (a twin-port module carries two links), one per moduleless end
            for part, count in _module_counts(part_col[links], module_col[links]):
                add("transceiver", fabric.parts[part], count)
        if fabric.link_cable_part is not None:
            parts = fabric.link_cable_part[links]
            ids = fabric.link_cable[links] if fabric.link_cable is not None else None
            for part, count in _cable_counts(parts, ids):
                slug = fabric.parts[part]
                if (facts.parts.get(slug) or {}).get("category") == "cable":
                    add("cable", slug, count)
    return out


def _module_counts(parts: np.ndarray, modules: np.ndarray) -> list[tuple[int, int]]:
    """``(part, modules)`` of one link end column, by part index: distinct (part, module)
    pairs, and each end without a module id on its own."""
    keep = parts >= 0
    parts, modules = parts[keep].astype(np.int64), modules[keep].astype(np.int64)
    counts: dict[int, int] = {}
    with_id = modules >= 0
    if with_id.any():
        span = int(modules[with_id].max()) + 1  # (part, module) packed in one int64
        keys = np.unique(parts[with_id] * span + modules[with_id])
        for part, n in zip(*np.unique(keys // span, return_counts=True), strict=True):
            counts[int(part)] = counts.get(int(part), 0) + int(n)
    for part, n in zip(*np.unique(parts[~with_id], return_counts=True), strict=True):
        counts[int(part)] = counts.get(int(part), 0) + int(n)
    return sorted(counts.items())


def _cable_counts(parts: np.ndarray, ids: np.ndarray | None) -> list[tuple[int, int]]:
    """``(part, cables)`` in the order each part first appears: distinct (part, cable id)
    pairs (each link its own cable without ids)."""
    keep = parts >= 0
    parts = parts[keep].astype(np.int64)
    if not parts.size:
        return []
    if ids is None:
        unique, first, counts = np.unique(parts, return_index=True, return_counts=True)
    else:
        cable = ids[keep].astype(np.int64)
        cable = cable - cable.min()
        span = int(cable.max()) + 1  # (part, cable id) packed in one int64, in pair order
        distinct, where = np.unique(parts * span + cable, return_index=True)
        unique, index, counts = np.unique(distinct // span, return_index=True, return_counts=True)
        # first appearance of each part: the earliest of its pairs' first appearances
        first = np.minimum.reduceat(where, index) if where.size else where
    order = np.argsort(first, kind="stable")
    return [(int(unique[k]), int(counts[k])) for k in order]


def job_interruptions(
    fabric: Fabric, facts: CatalogFacts, gpus: int, *, fallback: bool = True
) -> dict:
    """Expected interruptions a day of a job spanning ``gpus`` GPUs and the mean time between
    them (see the module docstring for what the job depends on).

    Returns
    -------
    dict
        ``gpus``, ``servers``, ``switches``, ``links``, ``per_day`` (None when some group has
        neither a figure nor the Llama 3 rate), ``mtbi_hours``, ``groups`` ({group: {per_day,
        basis, parts, unknown}}), ``approximation``.
    """
    gpus = int(gpus)
    deps = job_dependencies(fabric, gpus)
    counts = _job_part_counts(fabric, facts, deps)
    groups: dict[str, dict] = {}
    for category, (group, _) in CATEGORIES.items():
        entry = groups.setdefault(
            group,
            {
                "label": GROUP_LABELS[group],
                "parts": 0,
                "known": 0.0,
                "figured": False,
                "unknown": [],
            },
        )
        for slug, count in counts[category].items():
            entry["parts"] += count
            mtbf = _mtbf(facts, slug)
            if mtbf:
                entry["figured"] = True
                entry["known"] += count * 24.0 / mtbf
            else:
                entry["unknown"].append(slug)
    if not groups["nic"]["parts"] and groups["server"]["parts"] and not groups["server"]["figured"]:
        groups["nic"].update(parts=-1, label="NICs (on the servers' boards)")
    total: float | None = 0.0
    out_groups = {}
    for group, entry in groups.items():
        if not entry["parts"]:
            continue
        entry["parts"] = max(entry["parts"], 0)
        if entry["figured"]:
            basis, rate = "parts", entry["known"]
        elif fallback and group in llama3_counts():
            basis, rate = "llama3", llama3_rate_per_gpu_day(group) * gpus
        else:
            basis, rate = "unknown", None
        out_groups[group] = {
            "label": entry["label"],
            "parts": entry["parts"],
            "per_day": rate,
            "basis": basis,
            "unknown": sorted(set(entry["unknown"])),
        }
        total = None if total is None or rate is None else total + rate
    return {
        "gpus": gpus,
        "servers": int(deps["servers"].size),
        "switches": int(deps["switches"].size),
        "links": int(deps["links"].size),
        "per_day": total,
        "mtbi_hours": (24.0 / total) if total else None,
        "groups": out_groups,
        "approximation": APPROXIMATION,
    }


def expected_failures(
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    job_gpus: int | None = None,
    lead_time_days: float = DEFAULT_LEAD_TIME_DAYS,
    level: float = DEFAULT_LEVEL,
    fallback: bool = True,
) -> dict:
    """A design's expected failures a day by category, the interruptions of a job spanning
    ``job_gpus`` GPUs (default: every GPU) and the spares per category for ``level`` over
    ``lead_time_days`` (see the module docstring).

    Raises
    ------
    ValueError
        ``job_gpus`` below 1 or above the design's GPUs, a lead time of 0 or less (or over
        365 days), a level outside (0, 1); the message names the parameter.

    Long because: it checks its inputs, then builds the result's sections (rates, interruptions,
    spares) from the same counts; each section is a few lines.
    """
    gpus = int(fabric.info.get("gpus") or 0)
    job_gpus = gpus if job_gpus is None else int(job_gpus)
    if gpus and not 1 <= job_gpus <= gpus:
        raise ValueError(f"job_gpus: between 1 and the design's {gpus:,} GPUs")
    if not 0 < lead_time_days <= 365:
        raise ValueError("lead_time_days: more than 0 and at most 365")
    if not 0 < level < 1:
        raise ValueError("level: above 0 % and below 100 %")
    parts = design_parts(fabric, facts)
    categories, groups = _group_rates(parts, gpus, fallback)
    spares = []
    for row in categories:
        if row.get("on_board"):
            continue  # no NIC cards to keep spares of: spare servers cover them
        installed = row["parts"]
        entry = {"category": row["category"], "label": row["label"], "installed": installed}
        if row["per_day"] is not None:
            mean = row["per_day"] * lead_time_days
            s = poisson_spares(mean, level)
            pct = spares_pct_for(s, installed)
            entry.update(
                mean=mean, spares=s, spares_pct=pct, basis="parts", complete=not row["unknown"]
            )
        elif row["basis"] == "llama3" and row["group"] != "network":
            mean = groups[row["group"]]["per_day"] * lead_time_days
            s = poisson_spares(mean, level)
            entry.update(
                mean=mean,
                spares=s,
                spares_pct=spares_pct_for(s, installed),
                basis="llama3",
                complete=True,
            )
        else:
            entry.update(
                mean=None, spares=None, spares_pct=None, basis=row["basis"], complete=False
            )
        spares.append(entry)
    network = groups.get("network")
    network_spares = None
    if network and network["basis"] == "llama3":
        mean = network["per_day"] * lead_time_days
        network_spares = {"mean": mean, "spares": poisson_spares(mean, level)}
    known_total = [g["per_day"] for g in groups.values() if g["per_day"] is not None]
    notes = []
    if any(g["basis"] == "llama3" for g in groups.values()):
        notes.append(
            "Groups without a catalog MTBF take Meta's Llama 3 field rate (419 unexpected "
            "interruptions in 54 days on 16,384 H100 GPUs, arXiv 2407.21783 Table 5; grade "
            "inferred): the group's interruptions / (16,384 x 54) per GPU-day, times this "
            "design's GPUs. Software, maintenance and NCCL timeouts (95) are left out."
        )
    if network_spares is not None:
        notes.append(
            "The Llama 3 table counts switches and cables together (35), so spares of "
            "switches, optics and cables are given as one figure, not split by part."
        )
    unrated = [
        groups[g]["label"]
        for g in ("management", "pdu", "psu")
        if g in groups and groups[g]["basis"] == "unknown"
    ]
    if unrated:
        notes.append(
            f"{' and '.join(unrated)}: no catalog MTBF and no row in the Llama 3 table, so no "
            "spares are suggested; give their own percentage on the BOM."
        )
    return {
        "gpus": gpus,
        "groups": list(groups.values()),
        "categories": categories,
        "total_per_day": sum(known_total) if known_total else None,
        "complete": all(g["complete"] for g in groups.values()),
        "job": job_interruptions(fabric, facts, job_gpus or 1, fallback=fallback)
        if fabric.node_count
        else None,
        "spares": {
            "lead_time_days": lead_time_days,
            "level": level,
            "rows": spares,
            "network": network_spares,
            "bom_pct": {r["category"]: r["spares_pct"] for r in spares if r["spares_pct"]},
        },
        "sources": [
            {
                "title": LLAMA3["title"],
                "url": LLAMA3["source"],
                "grade": "inferred",
                "read_at": LLAMA3["read_at"],
            }
        ],
        "notes": notes,
    }


__all__ = [
    "APPROXIMATION",
    "CATEGORIES",
    "DEFAULT_LEAD_TIME_DAYS",
    "DEFAULT_LEVEL",
    "LLAMA3",
    "PartRate",
    "design_parts",
    "expected_failures",
    "job_dependencies",
    "job_interruptions",
    "llama3_counts",
    "llama3_rate_per_gpu_day",
    "poisson_spares",
    "spares_pct_for",
]
