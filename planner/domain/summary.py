"""One summary of a fabric, shown in the UI and API and printed by the CLI, and a diff of two.

Counting conventions (reference-architectures.md §1): a cable is one link (or one breakout
assembly), counted once, not per end; transceivers are counted per module, so a twin-port
module carrying two links counts once, per cage; no spares.
"""

from __future__ import annotations

import copy
from collections import Counter
from fractions import Fraction

import numpy as np

from planner.domain.fabric import (
    CAMPUS_TIER,
    ROLE,
    ROLES,
    SWITCH_ROLES,
    TIER,
    TIER_NAMES,
    Fabric,
)

#: Kinds of rack a design counts, in display order, and the layout's rack ``kind`` each
#: counts (``None``: the cluster networks' management racks, ``networks.management_racks``).
RACK_LAYOUT_KINDS = {"compute": "server", "network": "network", "management": None}


def racks_by_kind(fabric: Fabric) -> dict[str, int]:
    """Racks of the design per kind (:data:`RACK_LAYOUT_KINDS` order): the layout's racks of servers
    (``compute``) and of compute-fabric switches (``network``), and the cluster networks'
    management racks (``networks.management_racks``; their ``MGMT-nn`` racks).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> racks_by_kind(SimpleNamespace(
    ...     racks=[{"kind": "server"}] * 32 + [{"kind": "network"}] * 6,
    ...     settings=SimpleNamespace(
    ...         networks={"management": {"settings": {"management_racks": 6}}})))
    {'compute': 32, 'network': 6, 'management': 6}
    """
    kinds = Counter(rack.get("kind") for rack in fabric.racks)
    networks = fabric.settings.networks or {}
    settings = (networks.get("management") or {}).get("settings") or {}
    if "management_racks" in settings:
        management = int(settings["management_racks"] or 0)
    else:  # designs built before the management plan was kept: the OOB network's count
        endpoints = (networks.get("oob") or {}).get("endpoints") or {}
        management = int(endpoints.get("management racks") or 0)
    out = {kind: kinds[layout] for kind, layout in RACK_LAYOUT_KINDS.items() if layout}
    out["management"] = management
    return out


def ratio_both_ways(value: float | None) -> str:
    """A leaf's (or spine's) downlink:uplink bandwidth ratio in whole numbers and as ``x:1``.

    Vendors publish both: "3:1" oversubscription, and "1:2" for a leaf with twice as much
    uplink as downlink bandwidth. ``None`` (a one-tier fabric: no uplinks) gives a dash.

    Examples
    --------
    >>> ratio_both_ways(0.5)
    '1:2 down:up (0.5:1)'
    >>> ratio_both_ways(3)
    '3:1 down:up (3:1)'
    >>> ratio_both_ways(1.0667)
    '16:15 down:up (1.067:1)'
    >>> ratio_both_ways(None)
    '— (no uplinks)'
    """
    if value is None or not float(value) > 0:
        return "— (no uplinks)"
    exact = Fraction(float(value)).limit_denominator(64)
    return f"{exact.numerator}:{exact.denominator} down:up ({float(value):.4g}:1)"


def first_link_of_units(ids: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """The counting rule shared by the summary and the bill of materials.

    A unit is one module (``link_*_module``) or one cable (``link_cable``): links that share
    an id and a part are one unit. Links with an id or a part below 0 carry no unit.

    Parameters
    ----------
    ids, parts
        Per-link unit ids and part indices (same length).

    Returns
    -------
    numpy.ndarray
        Index (into ``ids``) of the first link of every distinct (part, id) pair, ascending.

    Examples
    --------
    >>> first_link_of_units(np.array([0, 0, 1, -1]), np.array([2, 2, 2, 2])).tolist()
    [0, 2]
    """
    keep = np.flatnonzero((ids >= 0) & (parts >= 0))
    if not keep.size:
        return keep
    key = parts[keep].astype(np.int64) * (int(ids.max()) + 1) + ids[keep].astype(np.int64)
    _, first = np.unique(key, return_index=True)
    return np.sort(keep[first])


def _count_by(ids: np.ndarray, parts: np.ndarray, names: list[str]) -> dict[str, int]:
    """Distinct ids per part name (ids < 0 and parts < 0 ignored)."""
    first = first_link_of_units(ids, parts)
    if not first.size:
        return {}
    counts = np.bincount(parts[first].astype(np.int64), minlength=len(names))
    return {names[i]: int(c) for i, c in enumerate(counts) if c}


def summarize(fabric: Fabric, *, name: str = "") -> dict:
    """Counts, bandwidth and parts of a fabric.

    Returns
    -------
    dict
        ``gpus``, ``servers``, ``switches`` (per tier), ``switches_by_model``, ``links`` (per
        tier), ``reserved_leaf_ports``, ``transceivers`` (per part, per module),
        ``transceivers_by_side`` (``switch`` / ``server``), ``cables`` (per part),
        ``cables_by_length`` (part -> {length: count}), ``bisection_gbps``,
        ``oversubscription`` (per tier), ``max_hops``, ``racks``, ``tiers``, ``planes``;
        ``networks`` (a spec with a ``networks`` block only: per network ``switches`` by role
        and model, ``switches_total``, ``links`` and ``link_groups``, ``cables`` by part and
        ``cables_by_kind``, ``cables_total``, ``transceivers`` (and ``_by_side``),
        ``endpoints``, ``parts_not_in_catalog``, ``conventions``; OOB also ``managed_ports``;
        see :mod:`planner.domain.networks`); and ``stale_parameters`` (a hand-edited fabric
        only, when the edit made spec parameters untrue: see :mod:`planner.domain.edits`).

    Long because: it computes every figure of the summary (counts, bandwidths, ratios, parts) from
    the same arrays; each figure is a few lines.
    """
    info = fabric.info
    roles = fabric.node_role
    switches = {role: int((roles == ROLE[role]).sum()) for role in SWITCH_ROLES}
    by_model: dict[str, dict[str, int]] = {}
    for role in SWITCH_ROLES:
        models = fabric.node_model[roles == ROLE[role]]
        if models.size:
            counts = np.bincount(models, minlength=len(fabric.models))
            by_model[role] = {fabric.models[i]: int(c) for i, c in enumerate(counts) if c}
    tiers = fabric.link_tier
    links = {tier: int((tiers == TIER[tier]).sum()) for tier in TIER_NAMES}
    server_links = (tiers == TIER["server-leaf"]) & (roles[fabric.link_a] == ROLE["server"])
    capacity = {
        "server-leaf": int(fabric.link_speed_gbps[server_links].sum()),
        "leaf-spine": int(fabric.link_speed_gbps[tiers == TIER["leaf-spine"]].sum()),
        "spine-core": int(fabric.link_speed_gbps[tiers == TIER["spine-core"]].sum()),
    }
    present = [value for tier, value in capacity.items() if links[tier]]
    tier_count = int(
        info.get("tiers") or (3 if links["spine-core"] else 2 if links["leaf-spine"] else 1)
    )
    summary = {
        "name": name,
        "topology": info.get("topology"),
        "gpus": int(info.get("gpus", 0)),
        "servers": int((roles == ROLE["server"]).sum()),
        "rails": info.get("rails"),
        "planes": fabric.settings.planes,
        "tiers": tier_count,
        "speed_gbps": info.get("speed_gbps"),
        "switches": switches,
        "switches_total": sum(switches.values()),
        "switches_by_model": by_model,
        "links": links,
        "reserved_leaf_ports": int(info.get("reserved_leaf_ports", 0)) * fabric.settings.planes,
        "capacity_gbps": capacity,
        "bisection_gbps": min(present) / 2 if present else 0,
        "oversubscription": dict(info.get("oversubscription") or {}),
        # the same ratio both ways ("1:2 down:up (0.5:1)") and a leaf's bandwidth each way
        "oversubscription_text": {
            role: ratio_both_ways(value)
            for role, value in (info.get("oversubscription") or {"leaf": None}).items()
        },
        "leaf_bandwidth_gbps": {
            "down": int(info.get("leaf_down") or 0) * int(info.get("speed_gbps") or 0),
            "up": int(info.get("leaf_up") or 0)
            * int(info.get("uplink_speed_gbps") or info.get("speed_gbps") or 0),
        },
        "max_hops": 2 * tier_count,
        "servers_per_su": info.get("servers_per_su"),
        "scalable_units": info.get("sus"),
        "transceivers": {},
        "transceivers_by_side": {"switch": {}, "server": {}},
        "transceivers_per_link_end": {},
        "cables": {},
        "cables_by_length": {},
        "racks": sum(racks_by_kind(fabric).values()),
        "racks_by_kind": racks_by_kind(fabric),
        "gpus_unconnected": int(info.get("gpus_unconnected", 0)),
        "uplink_speed_gbps": info.get("uplink_speed_gbps", info.get("speed_gbps")),
        "links_per_plane": _links_per_plane(fabric),
        "physical_ports": _physical_ports(fabric, capacity),
        "assumptions": list(fabric.settings.assumptions),
    }
    for key in ("rack_system", "growth"):
        if getattr(fabric.settings, key):
            summary[key] = copy.deepcopy(getattr(fabric.settings, key))
    if fabric.settings.networks:
        summary["networks"] = copy.deepcopy(fabric.settings.networks)
    if fabric.link_a_part is not None:
        _media_counts(fabric, summary)
    campus = fabric.link_campus()
    if campus.any():
        _campus_summary(fabric, campus, summary)
    if info.get("stale_parameters"):  # a hand edit made these spec parameters untrue
        summary["stale_parameters"] = list(info["stale_parameters"])
    return summary


def _campus_summary(fabric: Fabric, campus: np.ndarray, summary: dict) -> None:
    """Links between buildings as their own tier (:data:`CAMPUS_TIER`): ``links`` and
    ``links_per_plane`` count them under ``campus`` and no longer under the tier they belong
    to in the topology; ``summary["campus"]`` holds the buildings, the run lengths and the
    transceivers and fibers of those links (modules counted per cage, first link wins)."""
    info = fabric.settings.campus or {}
    crossing = TIER_NAMES[int(np.bincount(fabric.link_tier[campus]).argmax())]
    summary["links"][crossing] -= int(campus.sum())
    summary["links"][CAMPUS_TIER] = int(campus.sum())
    # capacity and physical ports as the links: the campus share moves to its own tier
    # (bisection_gbps, computed before, stays the topology's)
    gbps = int(fabric.link_speed_gbps[campus].sum())
    capacity = summary["capacity_gbps"]
    share = gbps / capacity[crossing] if capacity.get(crossing) else 0.0
    capacity[crossing] -= gbps
    capacity[CAMPUS_TIER] = gbps
    physical = summary["physical_ports"]
    if physical.get(crossing):
        moved = round(physical[crossing] * share)
        physical[crossing] -= moved
        physical[CAMPUS_TIER] = moved
    planes, counts = np.unique(fabric.link_plane[campus], return_counts=True)
    per_plane = summary["links_per_plane"].get(crossing, {})
    for plane, count in zip(planes, counts, strict=True):
        key = str(int(plane) + 1)
        per_plane[key] = per_plane.get(key, 0) - int(count)
    summary["links_per_plane"][CAMPUS_TIER] = {
        str(int(p) + 1): int(c) for p, c in zip(planes, counts, strict=True)
    }
    block = {
        "buildings": info.get("buildings"),
        "distances_m": info.get("distances_m"),
        "core_building": info.get("core_building"),
        "servers_per_building": info.get("servers_per_building"),
        "crossing_tier": crossing,
        "links": int(campus.sum()),
        "capacity_gbps": int(fabric.link_speed_gbps[campus].sum()),
    }
    lengths = fabric.link_length_m[campus] if fabric.link_length_m is not None else None
    if lengths is not None and lengths.size:
        block["run_m"] = {"min": float(lengths.min()), "max": float(lengths.max())}
    if fabric.link_a_part is not None:
        parts = fabric.parts
        modules = Counter()
        for part_col, module_col in (
            (fabric.link_a_part[campus], fabric.link_a_module[campus]),
            (fabric.link_b_part[campus], fabric.link_b_module[campus]),
        ):
            modules.update(_count_by(module_col, part_col, parts))
        block["transceivers"] = dict(sorted(modules.items()))
        block["fibers"] = dict(
            sorted(
                _count_by(fabric.link_cable[campus], fabric.link_cable_part[campus], parts).items()
            )
        )
    summary["campus"] = block


def _links_per_plane(fabric: Fabric) -> dict[str, dict[str, int]]:
    """Links of each tier in each plane (``"1"``, ``"2"``, ...), as the multi-plane reference
    architectures count them."""
    out: dict[str, dict[str, int]] = {}
    for tier in TIER_NAMES:
        mask = fabric.link_tier == TIER[tier]
        if not mask.any():
            continue
        planes, counts = np.unique(fabric.link_plane[mask], return_counts=True)
        out[tier] = {str(int(p) + 1): int(c) for p, c in zip(planes, counts, strict=True)}
    return out


def _physical_ports(fabric: Fabric, capacity: dict[str, int]) -> dict[str, int]:
    """Physical ports the links of each tier fill at their lower end: a server's 800G port
    split into two 400G planes is one port (one cable, as NVIDIA counts node-leaf cables), a
    leaf's 800G uplink one. Per tier: capacity / the lower device's physical port speed."""
    native = fabric.info.get("native_speed_gbps") or {}
    lower = {"server-leaf": "server", "leaf-spine": "leaf", "spine-core": "spine"}
    out = {}
    for tier, gbps in capacity.items():
        speed = native.get(lower[tier])
        if gbps and speed:
            out[tier] = int(-(-gbps // speed))
    return out


def _media_counts(fabric: Fabric, summary: dict) -> None:
    parts = fabric.parts
    switch_role = np.isin(fabric.node_role, [ROLE[r] for r in SWITCH_ROLES])
    by_side = {"switch": Counter(), "server": Counter()}
    ends = Counter()
    for node_col, part_col, module_col in (
        (fabric.link_a, fabric.link_a_part, fabric.link_a_module),
        (fabric.link_b, fabric.link_b_part, fabric.link_b_module),
    ):
        on_switch = switch_role[node_col]
        for side, mask in (("switch", on_switch), ("server", ~on_switch)):
            by_side[side].update(_count_by(module_col[mask], part_col[mask], parts))
        with_module = (part_col >= 0) & (module_col >= 0)  # transceivers, not cable ends
        for index, count in zip(*np.unique(part_col[with_module], return_counts=True), strict=True):
            ends[parts[index]] += int(count)
    total = by_side["switch"] + by_side["server"]
    summary["transceivers"] = dict(sorted(total.items()))
    summary["transceivers_by_side"] = {side: dict(sorted(c.items())) for side, c in by_side.items()}
    summary["transceivers_per_link_end"] = dict(sorted(ends.items()))
    summary["cables"] = dict(
        sorted(_count_by(fabric.link_cable, fabric.link_cable_part, parts).items())
    )
    by_length: dict[str, dict[str, int]] = {}
    first = first_link_of_units(fabric.link_cable, fabric.link_cable_part)
    lengths = ordered_cable_length_m(fabric)
    if first.size and lengths is not None:
        part_of = fabric.link_cable_part[first]
        length_of = lengths[first]
        for part, length in zip(part_of, length_of, strict=True):
            if not np.isfinite(length):
                continue  # a hand-drawn link without a length
            bucket = by_length.setdefault(parts[part], {})
            key = f"{float(length):g}"
            bucket[key] = bucket.get(key, 0) + 1
    summary["cables_by_length"] = {
        p: dict(sorted(v.items(), key=lambda kv: float(kv[0])))
        for p, v in sorted(by_length.items())
    }


def ordered_cable_length_m(fabric: Fabric) -> np.ndarray | None:
    """Per link, the length of the cable ordered for it (the run length when not recorded)."""
    if fabric.link_cable_length_m is not None:
        return fabric.link_cable_length_m
    return fabric.link_length_m


def diff_summaries(old: dict, new: dict) -> dict:
    """What changed between two summaries: ``{path: {"old", "new", "delta"?}}`` for every
    number or string that differs (nested dicts flattened with dots).

    Examples
    --------
    >>> diff_summaries({"gpus": 8, "links": {"a": 1}}, {"gpus": 16, "links": {"a": 1}})
    {'gpus': {'old': 8, 'new': 16, 'delta': 8}}
    """
    changes: dict[str, dict] = {}

    def walk(a, b, path):
        if isinstance(a, dict) or isinstance(b, dict):
            a, b = a if isinstance(a, dict) else {}, b if isinstance(b, dict) else {}
            for key in sorted(set(a) | set(b), key=str):
                walk(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))
            return
        if a == b:
            return
        entry = {"old": a, "new": b}
        if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
            entry["delta"] = b - a
        elif a is None and isinstance(b, int | float):
            entry["delta"] = b
        elif b is None and isinstance(a, int | float):
            entry["delta"] = -a
        changes[path] = entry

    walk(old, new, "")
    return changes


#: Networks in the order a diff lists them (``compute`` is the fabric itself).
NETWORK_ORDER = ("compute", "storage", "converged", "inband", "oob", "management")
_HEADLINE = {"switches", "switches_total", "cables", "cables_by_kind", "cables_total"}


def _network_figures(summary: dict | None) -> dict[str, dict]:
    """``{network: figures}`` of a summary: its ``networks`` and the compute fabric's own
    switch and cable counts."""
    if not summary:
        return {}
    out = {name: dict(value) for name, value in (summary.get("networks") or {}).items()}
    if "switches_total" in summary or summary.get("cables"):
        by_model = summary.get("switches_by_model") or {
            role: {"": count} for role, count in (summary.get("switches") or {}).items()
        }
        out["compute"] = {
            "switches": by_model,
            "switches_total": int(summary.get("switches_total") or 0),
            "cables_total": int(sum((summary.get("cables") or {}).values())),
        }
    return out


def _scalars(value: dict) -> dict:
    """A network's figures without its lists (conventions, link and switch groups, parts)
    and without the headline counts (shown on their own)."""
    out = {}
    for key, item in value.items():
        if key in _HEADLINE or isinstance(item, list):
            continue
        out[key] = _scalars(item) if isinstance(item, dict) else item
    return out


def diff_networks(old: dict | None, new: dict | None) -> dict[str, dict]:
    """Per network, what changed between two summaries: switches and cables first.

    Every network of either summary (``compute``, ``storage``, ``converged``, ``inband``,
    ``oob``, ``management``) whose figures differ, or that only one has, gives::

        {"status": "changed" | "added" | "removed",
         "switches": {"old", "new", "delta"}, "cables": {"old", "new", "delta"},
         "switches_by_model": {"<role> <model>": {"old", "new", "delta"}},   # those that differ
         "cables_by_kind": {"<kind>": {"old", "new", "delta"}},               # those that differ
         "figures": {path: {"old", "new", "delta"?}},  # other numbers, as diff_summaries
         "text": "storage: 16 → 17 switches (+1), 548 → 612 cables (+64)"}

    A network only one summary has counts 0 switches and cables in the other.

    Examples
    --------
    >>> old = {"networks": {"storage": {"switches": {"leaf": {"QM9700": 16}},
    ...        "switches_total": 16, "cables_total": 548}}}
    >>> new = {"networks": {"storage": {"switches": {"leaf": {"QM9700": 20}},
    ...        "switches_total": 20, "cables_total": 612}}}
    >>> diff_networks(old, new)["storage"]["text"]
    'storage: 16 → 20 switches (+4), 548 → 612 cables (+64)'
    >>> diff_networks(old, {"networks": {}})["storage"]["status"]
    'removed'
    >>> diff_networks(old, old)
    {}
    """
    before, after = _network_figures(old), _network_figures(new)
    names = [n for n in NETWORK_ORDER if n in before or n in after]
    names += sorted((set(before) | set(after)) - set(names))
    out: dict[str, dict] = {}
    for name in names:
        a, b = before.get(name), after.get(name)
        status = "added" if a is None else "removed" if b is None else "changed"
        a, b = a or {}, b or {}
        entry: dict = {"status": status}
        for key, total in (("switches", "switches_total"), ("cables", "cables_total")):
            was, now = int(a.get(total) or 0), int(b.get(total) or 0)
            entry[key] = {"old": was, "new": now, "delta": now - was}
        keys = sorted(
            {
                f"{role} {model}".strip()
                for figures in (a, b)
                for role, models in (figures.get("switches") or {}).items()
                for model in models or {}
            }
        )
        changes = {key: _change(a, b, "switches", key) for key in keys}
        entry["switches_by_model"] = {k: c for k, c in changes.items() if c["delta"]}
        kinds = sorted(set(a.get("cables_by_kind") or {}) | set(b.get("cables_by_kind") or {}))
        entry["cables_by_kind"] = {}
        for kind in kinds:
            was = int((a.get("cables_by_kind") or {}).get(kind) or 0)
            now = int((b.get("cables_by_kind") or {}).get(kind) or 0)
            if was != now:
                entry["cables_by_kind"][kind] = {"old": was, "new": now, "delta": now - was}
        entry["figures"] = diff_summaries(_scalars(a), _scalars(b)) if a and b else {}
        moved = any(entry[key]["delta"] for key in ("switches", "cables"))
        if status == "changed" and not (
            moved or entry["switches_by_model"] or entry["cables_by_kind"] or entry["figures"]
        ):
            continue
        entry["text"] = _network_text(name, status, entry)
        out[name] = entry
    return out


def _change(a: dict, b: dict, key: str, role_model: str) -> dict:
    role, _, model = role_model.partition(" ")
    was = int(((a.get(key) or {}).get(role) or {}).get(model) or 0)
    now = int(((b.get(key) or {}).get(role) or {}).get(model) or 0)
    return {"old": was, "new": now, "delta": now - was}


def _network_text(name: str, status: str, entry: dict) -> str:
    def count(change: dict, noun: str) -> str:
        if status == "added":
            return f"{change['new']:,} {noun}"
        if status == "removed":
            return f"{change['old']:,} {noun}"
        if not change["delta"]:
            return f"{change['new']:,} {noun}"
        return f"{change['old']:,} → {change['new']:,} {noun} ({change['delta']:+,})"

    counts = f"{count(entry['switches'], 'switches')}, {count(entry['cables'], 'cables')}"
    if status == "changed":
        return f"{name}: {counts}"
    return f"{name}: {status} ({counts})"


__all__ = [
    "NETWORK_ORDER",
    "ROLES",
    "diff_networks",
    "diff_summaries",
    "first_link_of_units",
    "ordered_cable_length_m",
    "summarize",
]
