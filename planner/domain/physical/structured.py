"""Structured cabling: patch panels, MPO trunks, cassettes and patch cords for a tier.

A tier whose spec says ``cabling: {<tier>: patch-panel}`` runs each of its optical links
(two modules and a fiber; cables such as DAC or AOC stay point to point) as::

    port -> patch cord -> panel A / port -> trunk leg -> panel B / port -> patch cord -> port

Our rules (inferred unless a source is named):

- Panels (``panels``). ``in-rack``: in the rack of each link end, in the top units below the
  layout's management reserve (U46, U45, ... of a 48 U rack). ``end-of-row``: in a panel rack
  at the end of the row of each end (``R<row>-PP``, one position past the row's last rack),
  stacked from U1. A link whose two ends share the panel place (one rack, or one row at
  end-of-row) stays point to point.
- A panel is a 1U enclosure of 4 module slots (secondary: a common 1U enclosure takes 4
  adapter panels or 4 MPO cassettes, fiberopticshare.com buying guide). A slot holds an MPO
  adapter plate of 6 adapters (inferred) for MPO optics and harnesses, or one MPO-12 to
  6 x duplex LC cassette (12 fibers = 6 duplex, arithmetic). So a panel has 24 front ports.
- Links between the same two panel places share trunks. An MPO optic takes one trunk leg
  (MPO position) per MPO connector of its port; six duplex-LC links share one MPO-12 leg
  through a cassette or a harness. ``trunk_fibers`` fixes the trunk size; ``auto`` takes
  144-fiber trunks (12 x MPO-12) or 32-fiber (2 x MPO-16) for the bulk and the smallest size
  that carries the rest.
- Lengths follow the layout's run rule (:func:`planner.domain.layout.run_lengths_m`): a cord
  in the rack by the in-rack rule, a cord to an end-of-row rack and every trunk between racks
  by the tray rule (with its slack). Cords are the link's own fiber part; trunks are ordered
  made to length (the ordering policy, :func:`planner.domain.media.policy_length_m`). A
  trunk between two buildings of a campus carries the route between them: at least the
  link's whole run (in-hall runs to both fiber entrances, the entrance allowances and the
  distance between the buildings, :mod:`planner.domain.campus`) less its two cords.
- Mated pairs per link (next-wave.md §1.4, inferred from the TIA FOTC channel definitions:
  the connectors at the modules are not counted): each panel crossing adds 1 (an MPO adapter,
  optics or harness) or 2 (a cassette: MPO at the rear, LC at the front); no splices.

:func:`plan_structured` is pure and deterministic from the fabric and the tier options, so the
pipeline, the channels, the BOM and the cabling plan all compute the same plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from planner.domain.fabric import TIER, TIER_NAMES, Fabric
from planner.domain.layout_distances import layout_distances, run_lengths_m
from planner.domain.physical.channels import Channels, Segment, point_to_point_channels

MANAGEMENT_RU = 2  # the layout's top-of-rack reserve
SLOTS_PER_PANEL = 4  # secondary: fiberopticshare.com, 1U enclosure of 4 modules
ADAPTERS_PER_PLATE = 6  # inferred
LC_PER_CASSETTE = 6  # 12 fibers / 2 (arithmetic)
PORTS_PER_PANEL = SLOTS_PER_PANEL * ADAPTERS_PER_PLATE
TRUNK_SIZES = {"mpo12": (12, 24, 144), "mpo16": (16, 32)}
MPO_UNIT = {"mpo12": 12, "mpo16": 16}
PANEL_PART = "PANEL-1U-4SLOT"
DEFAULTS = {
    "type": "point-to-point",
    "panels": "in-rack",
    "trunk_fibers": "auto",
    "lc_termination": "cassette",
    "polarity": "type-b",
    "mpo": "mpo12",
    "polish": "apc",
}


def tier_options(cabling: dict | None, tier: str) -> dict:
    """The options of ``tier`` from a ``cabling`` block (a string or a mapping per tier),
    defaults filled in."""
    value = (cabling or {}).get(tier)
    if value is None:
        return dict(DEFAULTS)
    if isinstance(value, str):
        return {**DEFAULTS, "type": value}
    return {**DEFAULTS, **value}


def structured_tiers(cabling: dict | None) -> list[str]:
    """The tiers cabled through patch panels."""
    return [t for t in TIER_NAMES if tier_options(cabling, t)["type"] == "patch-panel"]


def trunk_sizes(positions: int, mpo: str, fixed) -> list[int]:
    """Fiber counts of the trunks carrying ``positions`` MPO legs.

    >>> trunk_sizes(25, "mpo12", "auto"), trunk_sizes(3, "mpo16", "auto")
    ([144, 144, 12], [32, 16])
    >>> trunk_sizes(5, "mpo12", 24)
    [24, 24, 24]
    """
    unit = MPO_UNIT[mpo]
    if positions <= 0:
        return []
    if fixed != "auto":
        per = max(1, int(fixed) // unit)
        return [int(fixed)] * (-(-positions // per))
    sizes = TRUNK_SIZES[mpo]
    big = sizes[-1]
    out = [big] * (positions // (big // unit))
    rest = positions - len(out) * (big // unit)
    if rest:
        out.append(next(s for s in sizes if s // unit >= rest))
    return out


@dataclass
class StructuredPlan:
    """Panels, trunks and per-link segments of the structured tiers of a fabric.

    Per-link columns (``len == fabric.link_count``) are meaningful where ``structured``.
    """

    structured: np.ndarray  # bool
    lc: np.ndarray  # bool: a duplex-LC link (cassette or harness)
    cassette: np.ndarray  # bool
    cord_a_m: np.ndarray
    cord_b_m: np.ndarray
    trunk_m: np.ndarray
    trunk: np.ndarray  # trunk id, -1
    trunk_leg: np.ndarray  # 1-based MPO leg in the trunk
    panel_a: np.ndarray  # panel id, -1
    panel_b: np.ndarray
    port_a: np.ndarray  # 1-based front port on the panel
    port_b: np.ndarray
    panels: list[dict] = field(default_factory=list)  # {rack, row, position, ru, kind, site}
    trunks: list[dict] = field(default_factory=list)  # {fibers, mpo, fiber_type, length_m}
    notes: list[str] = field(default_factory=list)

    def mated_pairs(self) -> np.ndarray:
        per_panel = np.where(self.cassette, 2, 1)
        return np.where(self.structured, 2 * per_panel, 0).astype(np.int16)


def _connector_info(fabric: Fabric, facts) -> tuple[list[str], list[int], list[str]]:
    """Per part index of ``fabric.parts``: connector, MPO connectors per logical port, and
    fiber type; from the catalog facts, else from ``fabric.info["structured"]``."""
    stored = (fabric.info.get("structured") or {}).get("parts") or {}
    connectors, per_port, types = [], [], []
    for slug in fabric.parts:
        record = (facts.parts.get(slug) if facts is not None else None) or stored.get(slug) or {}
        connectors.append(str(record.get("connector") or record.get("connector_a") or ""))
        count = int(record.get("connector_count") or 1)
        ports = int(record.get("ports_per_module") or 1)
        per_port.append(max(1, count // max(1, ports)))
        types.append(
            str(record.get("fiber_type") or record.get("media") or record.get("category") or "")
        )
    return connectors, per_port, types


def part_summary(fabric: Fabric, facts) -> dict:
    """What :func:`plan_structured` reads of the parts, kept in ``fabric.info["structured"]``
    so that the plan can be rebuilt without the catalog."""
    out = {}
    for slug in fabric.parts:
        record = facts.parts.get(slug) or {}
        keep = {
            key: record.get(key)
            for key in (
                "category",
                "connector",
                "connector_count",
                "ports_per_module",
                "media",
                "fiber_type",
                "connector_a",
                "polarity",
                "lengths_m",
            )
            if record.get(key) is not None
        }
        out[slug] = keep
    return out


def plan_structured(fabric: Fabric, cabling: dict | None, facts=None) -> StructuredPlan:
    """The structured plan of ``fabric`` (module docstring); nothing structured when no tier
    asks for patch panels or the fabric has no layout or media.

    Long because: one pass that places panels, trunks and MPO legs per panel pair (see its
    comments); the steps share the same index arrays.
    """
    count = fabric.link_count
    nan = np.full(count, np.nan, dtype=np.float32)
    minus = np.full(count, -1, dtype=np.int32)
    plan = StructuredPlan(
        structured=np.zeros(count, dtype=bool),
        lc=np.zeros(count, dtype=bool),
        cassette=np.zeros(count, dtype=bool),
        cord_a_m=nan.copy(),
        cord_b_m=nan.copy(),
        trunk_m=nan.copy(),
        trunk=minus.copy(),
        trunk_leg=minus.copy(),
        panel_a=minus.copy(),
        panel_b=minus.copy(),
        port_a=minus.copy(),
        port_b=minus.copy(),
    )
    tiers = structured_tiers(cabling)
    if not tiers or fabric.node_rack is None or fabric.link_a_part is None or not fabric.racks:
        return plan
    layout = layout_distances(fabric.settings.layout)
    connectors, per_port, types = _connector_info(fabric, facts)
    stored = (fabric.info.get("structured") or {}).get("parts") or {}
    is_fiber = np.array(
        [
            ((facts.parts.get(s) if facts is not None else None) or stored.get(s) or {}).get(
                "category"
            )
            == "fiber"
            for s in fabric.parts
        ]
        + [False],
        dtype=bool,
    )  # index -1 (no part) reads the last entry: False
    connector_arr = np.array(connectors + [""], dtype=object)
    mpo_per_port = np.array(per_port + [1], dtype=np.int64)
    row = np.array([r["row"] for r in fabric.racks], dtype=np.int64)
    position = np.array([r["position"] for r in fabric.racks], dtype=np.int64)
    units = np.array([r["rack_units"] for r in fabric.racks], dtype=np.int64)
    row_end = np.zeros(int(row.max()) + 1, dtype=np.int64)
    np.maximum.at(row_end, row, position + 1)
    rack_units = int(units.max())
    next_panel_ru: dict = {}
    for tier in tiers:
        options = tier_options(cabling, tier)
        eor = options["panels"] == "end-of-row"
        links = np.flatnonzero(fabric.link_tier == TIER[tier])
        links = links[is_fiber[fabric.link_cable_part[links]]]
        if not links.size:
            continue
        a, b = fabric.link_a[links], fabric.link_b[links]
        rack_a, rack_b = fabric.node_rack[a].astype(np.int64), fabric.node_rack[b].astype(np.int64)
        placed = (rack_a >= 0) & (rack_b >= 0)
        site_a = np.where(eor, row[rack_a], rack_a)
        site_b = np.where(eor, row[rack_b], rack_b)
        keep = placed & (site_a != site_b)
        links, a, b = links[keep], a[keep], b[keep]
        rack_a, rack_b, site_a, site_b = rack_a[keep], rack_b[keep], site_a[keep], site_b[keep]
        if not links.size:
            continue
        conn = connector_arr[fabric.link_a_part[links]]
        lc = np.array([str(c).startswith("lc") for c in conn], dtype=bool)
        legs = np.where(lc, 0, mpo_per_port[fabric.link_a_part[links]])
        order = np.lexsort((links, site_b, site_a))
        # per panel pair, assign MPO legs (LC links share a leg six at a time)
        trunk_leg_of = np.zeros(links.size, dtype=np.int64)
        pair_keys = np.stack([site_a[order], site_b[order]], axis=1)
        cuts = np.flatnonzero(np.any(np.diff(pair_keys, axis=0) != 0, axis=1)) + 1
        lc_index = np.zeros(links.size, dtype=np.int64)
        for group in np.split(order, cuts):
            group_lc = group[lc[group]]
            group_mpo = group[~lc[group]]
            mpo_legs = np.cumsum(legs[group_mpo]) - legs[group_mpo]
            trunk_leg_of[group_mpo] = mpo_legs
            positions = int(legs[group_mpo].sum())
            trunk_leg_of[group_lc] = positions + np.arange(group_lc.size) // LC_PER_CASSETTE
            lc_index[group_lc] = np.arange(group_lc.size) % LC_PER_CASSETTE
            positions += -(-group_lc.size // LC_PER_CASSETTE)
            first = len(plan.trunks)
            sizes = trunk_sizes(positions, options["mpo"], options["trunk_fibers"])
            per = [s // MPO_UNIT[options["mpo"]] for s in sizes]
            starts = np.cumsum([0, *per])
            g0 = group[0]
            for s in sizes:
                plan.trunks.append(
                    {
                        "fibers": s,
                        "mpo": options["mpo"],
                        "polish": options["polish"],
                        "fiber_type": types[int(fabric.link_cable_part[links[g0]])],
                        "tier": tier,
                        "length_m": 0.0,
                    }
                )
            which = np.searchsorted(starts, trunk_leg_of[group], side="right") - 1
            plan.trunk[links[group]] = first + which
            plan.trunk_leg[links[group]] = trunk_leg_of[group] - starts[which] + 1
            # panel ports at both sites, in leg order
            for side, site_col, rack_col in (("a", site_a, rack_a), ("b", site_b, rack_b)):
                site = int(site_col[g0])
                for members, is_lc in ((group_mpo, False), (group_lc, True)):
                    if not members.size:
                        continue
                    cassette = is_lc and options["lc_termination"] == "cassette"
                    kind = "cassette" if cassette else "plate"
                    key = (tier, site, kind, options["mpo"] if not cassette else "mpo12")
                    state = next_panel_ru.setdefault(key, {"used": 0, "panels": []})
                    for idx in members:
                        leg = int(trunk_leg_of[idx])
                        step = leg - int(trunk_leg_of[members[0]])
                        if cassette:
                            port_index = state["used"] + step * LC_PER_CASSETTE + int(lc_index[idx])
                        else:
                            port_index = state["used"] + step
                        per_panel = PORTS_PER_PANEL
                        panel_no = port_index // per_panel
                        while panel_no >= len(state["panels"]):
                            state["panels"].append(
                                _new_panel(
                                    plan,
                                    fabric,
                                    tier,
                                    site,
                                    kind,
                                    eor,
                                    int(rack_col[idx]),
                                    row,
                                    row_end,
                                    rack_units,
                                    next_panel_ru,
                                    key[3],
                                )
                            )
                        getattr(plan, f"panel_{side}")[links[idx]] = state["panels"][panel_no]
                        getattr(plan, f"port_{side}")[links[idx]] = port_index % per_panel + 1
                    ends = trunk_leg_of[members] + np.where(lc[members], 1, legs[members])
                    span = int(ends.max() - trunk_leg_of[members[0]])
                    state["used"] += span * (LC_PER_CASSETTE if cassette else 1)
        plan.structured[links] = True
        plan.lc[links] = lc
        plan.cassette[links] = lc & (options["lc_termination"] == "cassette")
    _lengths(plan, fabric, layout, row, position, units)
    return plan


def _new_panel(plan, fabric, tier, site, kind, eor, rack, row, row_end, rack_units, rus, mpo):
    """Add a panel at ``site`` (a rack, or a row's end-of-row rack); returns its id."""
    key = ("ru", site, eor)
    used = rus.get(key, 0)
    rus[key] = used + 1
    if eor:
        name = f"R{site + 1:03d}-PP"
        ru = used + 1
        place = {
            "rack": name,
            "row": int(site),
            "position": int(row_end[site]),
            "ru": ru,
            "rack_units": rack_units,
            "rack_index": -1,
        }
    else:
        info = fabric.racks[rack]
        ru = int(info["rack_units"]) - MANAGEMENT_RU - used
        place = {
            "rack": str(info["name"]),
            "row": int(info["row"]),
            "position": int(info["position"]),
            "ru": ru,
            "rack_units": int(info["rack_units"]),
            "rack_index": int(rack),
        }
    plan.panels.append({**place, "kind": kind, "mpo": mpo, "tier": tier})
    return len(plan.panels) - 1


def _lengths(plan, fabric, layout, row, position, units) -> None:
    links = np.flatnonzero(plan.structured)
    if not links.size:
        return
    p_row = np.array([p["row"] for p in plan.panels], dtype=np.int64)
    p_pos = np.array([p["position"] for p in plan.panels], dtype=np.int64)
    p_units = np.array([p["rack_units"] for p in plan.panels], dtype=np.int64)
    p_ru = np.array([p["ru"] for p in plan.panels], dtype=np.int64)
    p_rack = np.array([p["rack_index"] for p in plan.panels], dtype=np.int64)
    for side, node_col in (("a", fabric.link_a), ("b", fabric.link_b)):
        node = node_col[links]
        rack = fabric.node_rack[node].astype(np.int64)
        panel = getattr(plan, f"panel_{side}")[links]
        length = run_lengths_m(
            layout,
            row_a=row[rack],
            position_a=position[rack],
            units_a=units[rack],
            ru_a=fabric.node_ru[node],
            row_b=p_row[panel],
            position_b=p_pos[panel],
            units_b=p_units[panel],
            ru_b=p_ru[panel],
            same_rack=p_rack[panel] == rack,
        )
        getattr(plan, f"cord_{side}_m")[links] = length
    pa, pb = plan.panel_a[links], plan.panel_b[links]
    trunk = run_lengths_m(
        layout,
        row_a=p_row[pa],
        position_a=p_pos[pa],
        units_a=p_units[pa],
        ru_a=p_ru[pa],
        row_b=p_row[pb],
        position_b=p_pos[pb],
        units_b=p_units[pb],
        ru_b=p_ru[pb],
        same_rack=np.zeros(links.size, dtype=bool),
    )
    if fabric.link_length_m is not None:
        # a trunk between buildings carries the route between them: the whole run less the
        # two patch cords (the in-hall distance between the panels alone drops the campus)
        crossing = fabric.link_campus()[links]
        run = np.asarray(fabric.link_length_m, dtype=np.float64)[links]
        rest = run - plan.cord_a_m[links] - plan.cord_b_m[links]
        trunk = np.where(crossing & np.isfinite(rest), np.maximum(trunk, rest), trunk)
    longest = np.zeros(len(plan.trunks), dtype=np.float64)
    np.maximum.at(longest, plan.trunk[links], trunk)
    for index, value in enumerate(longest.tolist()):
        plan.trunks[index]["length_m"] = round(value, 1)
    plan.trunk_m[links] = longest[plan.trunk[links]].astype(np.float32)


def structured_channels(fabric: Fabric, cabling: dict | None, facts=None) -> Channels:
    """Every link's channel with the structured tiers through their panels and trunks
    (module docstring); other links as :func:`point_to_point_channels`."""
    base = point_to_point_channels(fabric)
    plan = plan_structured(fabric, cabling, facts)
    on = plan.structured
    if not on.any():
        return base
    fiber = base.fiber_m.copy()
    fiber[on] = (plan.cord_a_m + plan.trunk_m + plan.cord_b_m)[on]
    mated = plan.mated_pairs()
    mpo = np.where(on, 2, 0).astype(np.int16)
    return _StructuredChannels(
        fiber_m=fiber,
        mated_pairs=mated,
        mpo_pairs=mpo,
        splices=np.zeros(fabric.link_count, dtype=np.int16),
        kind="structured",
        plan=plan,
    )


@dataclass(frozen=True)
class _StructuredChannels(Channels):
    plan: StructuredPlan | None = None

    def segments(self, link: int) -> list[Segment]:
        plan = self.plan
        if plan is None or not plan.structured[link]:
            return super().segments(link)
        per = 2 if plan.cassette[link] else 1
        pa, pb = plan.panels[plan.panel_a[link]], plan.panels[plan.panel_b[link]]
        return [
            Segment(
                "patch cord",
                f"patch cord {float(plan.cord_a_m[link]):g} m",
                float(plan.cord_a_m[link]),
            ),
            Segment("panel", f"{pa['rack']}.U{pa['ru']:02d}.P{plan.port_a[link]}", 0.0, per),
            Segment(
                "trunk",
                f"trunk T{plan.trunk[link] + 1} leg {plan.trunk_leg[link]}",
                float(plan.trunk_m[link]),
            ),
            Segment("panel", f"{pb['rack']}.U{pb['ru']:02d}.P{plan.port_b[link]}", 0.0, per),
            Segment(
                "patch cord",
                f"patch cord {float(plan.cord_b_m[link]):g} m",
                float(plan.cord_b_m[link]),
            ),
        ]


__all__ = [
    "StructuredPlan",
    "part_summary",
    "plan_structured",
    "structured_channels",
    "structured_tiers",
    "tier_options",
    "trunk_sizes",
]
