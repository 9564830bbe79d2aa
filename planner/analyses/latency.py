"""GPU-to-GPU one-way latency of a fabric per path class, from catalog facts (issue 23).

What a path costs
-----------------
A path from one GPU's NIC port to another's crosses links and switches. Each **link** costs
its propagation (metres × the cable's or fibre's ``propagation_ns_per_m``) plus what its parts
add (each end's transceiver ``latency_ns``, an active cable's ``latency_ns``; a fibre or a
passive DAC adds nothing but propagation). Each **switch** costs its port-to-port
``latency_ns`` as the vendor publishes it (cut-through figures: a congested hop, or a hop
from a slower to a faster port, stores the packet and adds its serialisation, which is not
counted). The NIC and the host (PCIe, GPU) are outside the fabric and not counted: the
catalog has no NIC latency.

The metres of a link are the length of the cable ordered for it (``link_cable_length_m``:
the signal runs the whole cable, slack included), else its run (``link_length_m``).

Path classes
------------
Derived from the tiers the fabric has: ``same-leaf`` (1 switch: leaf), ``via-spine``
(3 switches: leaf, spine, leaf; the same SU when the fabric has cores, otherwise any two
leaves), ``via-core`` (5 switches), and ``across-buildings`` (the top path with the links
between two buildings of a campus). Planes of a multi-plane fabric do not meet in the
fabric, so no path crosses them (said in ``notes``).

For each class: ``min`` adds the smallest value of each part of the path (the shortest link
of each tier, the fastest switch model of each role), ``max`` the largest (an upper bound:
one path rarely has every longest link), ``typical`` the median link of each tier and the
most common switch model of each role. A fact the catalog lacks is never taken as zero: the
class lists it in ``unknown`` (``"switch latency unknown for SN5600 (leaf, spine)"``), its
``complete`` is False and its figures add up the known parts only (a lower bound).

For the flow simulator and the message-size sweep
-------------------------------------------------
:func:`link_latency_ns` (one value per link, NaN where unknown) and
:func:`switch_latency_ns` (one value per node, NaN for servers and unknown models) are the
per-element figures an α–β model adds up along a route. Both are vectorised (NumPy lookups
per part and model, no loop over links).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from inventory.library.facts import latency_facts_of
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, TIER, Fabric

#: Path classes in the order they are shown: key -> (switch roles crossed, link tiers crossed).
PATHS = {
    "same-leaf": (("leaf",), ("server-leaf", "server-leaf")),
    "via-spine": (
        ("leaf", "spine", "leaf"),
        ("server-leaf", "leaf-spine", "leaf-spine", "server-leaf"),
    ),
    "via-core": (
        ("leaf", "spine", "core", "spine", "leaf"),
        ("server-leaf", "leaf-spine", "spine-core", "spine-core", "leaf-spine", "server-leaf"),
    ),
}
STATS = ("min", "typical", "max")
SCOPE = (
    "One way, from a GPU's NIC port to another GPU's NIC port: link propagation, what "
    "modules and active cables add, and each switch's port-to-port latency. The NIC and "
    "host are not included (the catalog has no NIC latency)."
)
TYPICAL = (
    "min: the shortest link of each tier and the fastest switch model of each role; "
    "typical: the median link of each tier and the most common switch model; max: the "
    "longest link of each tier and the slowest model (an upper bound)."
)


@dataclass
class LinkLatency:
    """Per-link latency terms (arrays of ``fabric.link_count``, NaN where unknown).

    Attributes
    ----------
    metres : numpy.ndarray
        Length the signal runs: the ordered cable's length, else the run.
    propagation_ns : numpy.ndarray
        ``metres`` × the cable's or fibre's ``propagation_ns_per_m``.
    added_ns : numpy.ndarray
        Both ends' transceiver ``latency_ns`` plus the cable's (0 for a fibre or a passive
        DAC, 0 for an end without a module).
    total_ns : numpy.ndarray
        ``propagation_ns + added_ns``.
    """

    metres: np.ndarray
    propagation_ns: np.ndarray
    added_ns: np.ndarray

    @property
    def total_ns(self) -> np.ndarray:
        return self.propagation_ns + self.added_ns


def _part_values(fabric: Fabric, facts: CatalogFacts, key: str, missing: float) -> np.ndarray:
    """``key`` of :func:`latency_facts_of` per ``fabric.parts`` index, NaN when unknown, plus
    one last slot (``missing``) that a part index of -1 reads."""
    values = np.full(len(fabric.parts) + 1, np.nan)
    for index, slug in enumerate(fabric.parts):
        value = latency_facts_of(facts.parts.get(slug))[key]
        if value is not None:
            values[index] = value
    values[-1] = missing
    return values


def _column(array, count: int, fill) -> np.ndarray:
    return np.asarray(array) if array is not None else np.full(count, fill)


def link_latency_terms(fabric: Fabric, facts: CatalogFacts) -> LinkLatency:
    """The latency terms of every link (see :class:`LinkLatency`).

    Parameters
    ----------
    fabric : Fabric
        A fabric with layout (lengths) and media (parts per link); without them every term
        is NaN (unknown).
    facts : CatalogFacts
        Catalog facts; each part's record gives ``latency_ns`` and ``propagation_ns_per_m``.

    Returns
    -------
    LinkLatency
    """
    n = fabric.link_count
    run = _column(fabric.link_length_m, n, np.nan).astype(np.float64)
    ordered = _column(fabric.link_cable_length_m, n, np.nan).astype(np.float64)
    metres = np.where(np.isfinite(ordered) & (ordered > 0), ordered, run)
    if fabric.link_cable_part is None or fabric.link_a_part is None:
        nan = np.full(n, np.nan)
        return LinkLatency(metres, nan, nan.copy())
    cable = fabric.link_cable_part.astype(np.int64)
    per_m = _part_values(fabric, facts, "propagation_ns_per_m", np.nan)[cable]
    cable_ns = _part_values(fabric, facts, "latency_ns", np.nan)[cable]
    module_ns = _part_values(fabric, facts, "latency_ns", 0.0)  # no module: adds nothing
    a_ns = module_ns[fabric.link_a_part.astype(np.int64)]
    b_ns = module_ns[_column(fabric.link_b_part, n, -1).astype(np.int64)]
    return LinkLatency(metres, metres * per_m, a_ns + b_ns + cable_ns)


def link_latency_ns(fabric: Fabric, facts: CatalogFacts) -> np.ndarray:
    """One-way latency of every link in ns: propagation plus what modules and cables add.

    The per-link term of an α–β model (the message-size sweep and the flow simulator add it
    up along each route, with :func:`switch_latency_ns` per switch crossed).

    Parameters
    ----------
    fabric : Fabric
        A fabric with layout and media.
    facts : CatalogFacts
        Catalog facts.

    Returns
    -------
    numpy.ndarray
        float64, one value per link (``fabric.link_count``); NaN where a fact is unknown (no
        run length, no cable part, a cable without ``propagation_ns_per_m``, a module or
        active cable without ``latency_ns``). Never 0 for an unknown.

    Examples
    --------
    >>> from planner.domain.fabric import Fabric
    >>> link_latency_ns(Fabric(), CatalogFacts()).shape
    (0,)
    """
    return link_latency_terms(fabric, facts).total_ns


def model_latency_ns(fabric: Fabric, facts: CatalogFacts) -> np.ndarray:
    """Port-to-port latency (ns) per ``fabric.models`` index; NaN for unknowns and servers."""
    values = np.full(len(fabric.models), np.nan)
    for index, slug in enumerate(fabric.models):
        record = facts.parts.get(slug)
        model = facts.devices.get(slug)
        if model is not None and model.category != "switch":
            continue
        value = latency_facts_of(record)["latency_ns"] if record else None
        if value is None and model is not None:
            value = model.latency_ns
        if value is not None:
            values[index] = value
    return values


def switch_latency_ns(fabric: Fabric, facts: CatalogFacts) -> np.ndarray:
    """Port-to-port latency (ns) of every node: its switch model's published figure.

    Parameters
    ----------
    fabric : Fabric
    facts : CatalogFacts

    Returns
    -------
    numpy.ndarray
        float64, one value per node (``fabric.node_count``); NaN for servers and fabric
        managers and for switch models without a published latency.
    """
    values = model_latency_ns(fabric, facts)[fabric.node_model.astype(np.int64)]
    values[fabric.node_role < ROLE["leaf"]] = np.nan
    return values


def _stats(values: np.ndarray) -> dict | None:
    """min, median and max of the finite values (None when none is)."""
    known = values[np.isfinite(values)]
    if not known.size:
        return None
    return {
        "min": float(known.min()),
        "typical": float(np.median(known)),
        "max": float(known.max()),
    }


def _names(fabric_names: list[str], indices: np.ndarray) -> list[str]:
    return [fabric_names[i] for i in np.flatnonzero(np.bincount(indices))]


@dataclass
class _TierFacts:
    metres: dict | None
    latency: dict | None  # propagation + added, per component stats added
    unknown: list[tuple[str, str]]
    links: int


def _tier_facts(
    fabric: Fabric, terms: LinkLatency, facts: CatalogFacts, links: np.ndarray, tier: str
) -> _TierFacts:
    """Stats and unknowns of one set of links (a tier, in one hall or between buildings)."""
    unknown: list[tuple[str, str]] = []  # (what is unknown, where)
    metres = terms.metres[links]
    if np.isnan(metres).any():
        unknown.append((f"run length unknown on {int(np.isnan(metres).sum()):,} links", tier))
    parts_known = fabric.link_cable_part is not None and fabric.link_a_part is not None
    if not parts_known:
        unknown.append(("media not chosen (no cable or module parts)", tier))
        return _TierFacts(_stats(metres), None, unknown, int(links.size))
    names = fabric.parts
    cable = fabric.link_cable_part[links].astype(np.int64)
    no_cable = cable < 0
    if no_cable.any():
        unknown.append((f"no cable or fibre part on {int(no_cable.sum()):,} links", tier))
    prop = terms.propagation_ns[links]
    bad = np.isnan(prop) & ~no_cable & ~np.isnan(metres)
    if bad.any():
        unknown += [
            (f"propagation per metre unknown for {s}", tier) for s in _names(names, cable[bad])
        ]
    module_ns = _part_values(fabric, facts, "latency_ns", 0.0)
    for end in ("link_a_part", "link_b_part"):
        column = getattr(fabric, end)
        if column is None:
            continue
        part = column[links].astype(np.int64)
        bad = np.isnan(module_ns[part])
        if bad.any():
            unknown += [(f"module latency unknown for {s}", tier) for s in _names(names, part[bad])]
    cable_ns = _part_values(fabric, facts, "latency_ns", np.nan)[cable]
    bad = np.isnan(cable_ns) & ~no_cable
    if bad.any():
        unknown += [(f"added latency unknown for {s}", tier) for s in _names(names, cable[bad])]
    parts = [s for s in (_stats(prop), _stats(terms.added_ns[links])) if s]
    latency = {k: sum(s[k] for s in parts) for k in STATS} if parts else None
    return _TierFacts(_stats(metres), latency, list(dict.fromkeys(unknown)), int(links.size))


def _role_facts(fabric: Fabric, facts: CatalogFacts, role: str, by_model: np.ndarray):
    """(stats, unknown models, forwarding modes) of the switches of ``role``."""
    nodes = fabric.node_model[fabric.node_role == ROLE[role]].astype(np.int64)
    if not nodes.size:
        return None, [], set()
    counts = np.bincount(nodes, minlength=len(fabric.models))
    used = np.flatnonzero(counts)
    values = by_model[used]
    unknown = [fabric.models[i] for i in used[np.isnan(values)]]
    modes = {
        latency_facts_of(facts.parts.get(fabric.models[i]))["forwarding_mode"] or "not stated"
        for i in used
    }
    known = used[np.isfinite(values)]
    if not known.size:
        return None, unknown, modes
    common = known[np.argmax(counts[known])]
    stats = {
        "min": float(by_model[known].min()),
        "typical": float(by_model[common]),
        "max": float(by_model[known].max()),
    }
    return stats, unknown, modes


def _add(total: dict | None, part: dict | None, times: int = 1) -> dict | None:
    if part is None:
        return total
    total = total or dict.fromkeys(STATS, 0.0)
    return {k: total[k] + times * part[k] for k in STATS}


def _rounded(stats: dict | None, digits: int = 1) -> dict | None:
    return {k: round(v, digits) for k, v in stats.items()} if stats else None


def latency_report(fabric: Fabric, facts: CatalogFacts) -> dict:
    """GPU-to-GPU one-way latency per path class (see the module notes).

    Parameters
    ----------
    fabric : Fabric
        A built fabric (layout and media give lengths and parts; without them the classes
        say what is unknown).
    facts : CatalogFacts
        Catalog facts (switch, module, cable and fibre latency facts).

    Returns
    -------
    dict
        ``scope`` and ``typical`` (what the figures mean), ``classes`` (path-class key ->
        ``label``, ``description``, ``hops`` (switches crossed), ``switches`` (roles in
        order), ``links`` (tiers in order), ``metres`` and ``latency_ns`` (``min``,
        ``typical``, ``max``; None when nothing is known), ``switch_ns`` and ``link_ns``
        (the two shares of ``latency_ns``), ``complete`` (every fact known) and
        ``unknown`` (what is missing, in words)), ``notes`` (planes, forwarding modes).

    Long because: one row per path class, each with its hop counts and the sourced per-hop figures,
    built in one pass.
    """
    terms = link_latency_terms(fabric, facts)
    by_model = model_latency_ns(fabric, facts)
    roles = {role for role in ("leaf", "spine", "core") if (fabric.node_role == ROLE[role]).any()}
    campus = fabric.link_campus()
    server_end = fabric.node_role[fabric.link_a] == ROLE["server"]
    tier_codes = fabric.link_tier

    def links_of(tier: str, between_buildings: bool) -> np.ndarray:
        mask = (tier_codes == TIER[tier]) & (campus == between_buildings)
        if tier == "server-leaf":
            mask &= server_end
        return np.flatnonzero(mask)

    in_hall = {
        tier: _tier_facts(fabric, terms, facts, links_of(tier, False), tier) for tier in TIER
    }
    role_facts = {role: _role_facts(fabric, facts, role, by_model) for role in roles}
    classes: dict[str, dict] = {}
    for key, (switches, tiers) in PATHS.items():
        if not set(switches) <= roles or not all(in_hall[t].links for t in set(tiers)):
            continue
        classes[key] = _path_class(key, switches, tiers, in_hall, role_facts, "core" in roles)
    if campus.any():
        tiers_between = tier_codes[campus]
        top = max(set(tiers_between.tolist()))
        top_name = next(name for name, code in TIER.items() if code == top)
        key = next(
            (k for k in ("via-core", "via-spine") if k in classes and top_name in PATHS[k][1]),
            None,
        )
        if key is not None:
            switches, tiers = PATHS[key]
            between = {**in_hall}
            between[top_name] = _tier_facts(
                fabric, terms, facts, links_of(top_name, True), f"{top_name} between buildings"
            )
            entry = _path_class(key, switches, tiers, between, role_facts, "core" in roles)
            entry.update(
                label="Across buildings",
                description=(
                    f"GPUs in two buildings, neither holding the top tier: both {top_name} "
                    "links run between buildings (a GPU in the top tier's building crosses "
                    "one)"
                ),
            )
            classes["across-buildings"] = entry
    notes = []
    planes = fabric.settings.planes
    if planes > 1:
        notes.append(
            f"{planes} planes: the planes do not meet in this fabric, so a GPU reaches a GPU "
            "on another plane through a host (NVLink), not through the fabric; each plane's "
            "paths are the classes above."
        )
    modes = set().union(*(r[2] for r in role_facts.values())) if role_facts else set()
    if "store-and-forward" in modes:
        notes.append(
            "Some switches store and forward: each such hop also adds the packet's "
            "serialisation at the port speed (not included)."
        )
    return {"scope": SCOPE, "typical": TYPICAL, "classes": classes, "notes": notes}


def _path_class(key, switches, tiers, tier_facts, role_facts, has_core: bool) -> dict:
    unknown: list[tuple[str, str]] = []  # (what is unknown, a tier or switch role)
    metres = link_ns = switch_ns = None
    for tier in tiers:
        entry = tier_facts[tier]
        metres = _add(metres, entry.metres)
        link_ns = _add(link_ns, entry.latency)
        unknown += entry.unknown
    for role in switches:
        stats, models, _ = role_facts[role]
        switch_ns = _add(switch_ns, stats)
        unknown += [(f"switch latency unknown for {model}", role) for model in models]
    total = _add(_add(None, link_ns), switch_ns)
    labels = {
        "same-leaf": ("Same leaf", "GPUs whose NICs share a leaf (one rail of one SU)"),
        "via-spine": (
            ("Same SU, via spine", "GPUs of one SU (pod) on different leaves")
            if has_core
            else ("Via spine", "GPUs on different leaves (other rails or other SUs)")
        ),
        "via-core": ("Across SUs, via core", "GPUs in different SUs (pods)"),
    }
    label, description = labels[key]
    where: dict[str, list[str]] = {}
    for what, place in unknown:
        places = where.setdefault(what, [])
        if place not in places:
            places.append(place)
    unknown = [f"{what} ({', '.join(places)})" for what, places in where.items()]
    return {
        "label": label,
        "description": description,
        "hops": len(switches),
        "switches": list(switches),
        "links": list(tiers),
        "metres": _rounded(metres, 2),
        "latency_ns": _rounded(total),
        "link_ns": _rounded(link_ns),
        "switch_ns": _rounded(switch_ns),
        "complete": not unknown,
        "unknown": unknown,
    }


__all__ = [
    "LinkLatency",
    "PATHS",
    "latency_report",
    "link_latency_ns",
    "link_latency_terms",
    "model_latency_ns",
    "switch_latency_ns",
]
