"""Per module id: one part per module (a module is one cage), and rule 8 for twin-port
modules: both ports on the same fiber type, speed and part, of about equal length."""

from __future__ import annotations

import numpy as np

from planner.analyses.validate.context import Context
from planner.analyses.validate.registry import register
from planner.domain.part_facts import legs_of

#: What makes two fibers the same type for rule 8: part numbers may differ (a length, a
#: reference-architecture OPN), the construction may not; a field one part leaves unstated
#: counts as different. (Connectors are the connector rule's: a fiber's ends against the
#: module's.)
FIBER_CONSTRUCTION = ("fiber_type", "fiber_grade", "topology")
LENGTH_SKEW_M = 10.0  # rule 8: the two fibers of a twin-port module should be about equal


@register(stage="module", order=100, codes=("module-part-conflict",))
def module_parts(ctx: Context) -> None:
    """Links that share a module id were given one part."""
    ends = ctx.module_ends
    if ends is None:
        return
    parts, start = ends.parts, ends.start
    conflict = np.minimum.reduceat(parts, start) != np.maximum.reduceat(parts, start)
    if conflict.any():
        ctx.out.add(
            "module-part-conflict",
            "links that share a module (one cage) were given different parts",
            links=ends.links[conflict[ends.per_link]],
        )


@register(
    stage="module",
    order=120,
    codes=("twin-port-mixed-fibers", "twin-port-fiber-parts-differ", "twin-port-length-skew"),
)
def twin_port_fibers(ctx: Context) -> None:
    """Rule 8: both ports of a twin-port module on one fiber type, speed and length."""
    fabric, facts = ctx.fabric, ctx.facts
    ends = ctx.module_ends
    cable_part = fabric.link_cable_part
    if ends is None or cable_part is None or not (ends.sizes > 1).any():
        return
    topo = np.full(len(fabric.parts) + 1, -1, dtype=np.int64)
    build = np.arange(-1, len(fabric.parts), dtype=np.int64)  # a fiber's construction, by id
    constructions: dict[tuple, int] = {}
    for i, slug in enumerate(fabric.parts):
        part = facts.parts.get(slug) or {}
        if part.get("category") == "fiber":
            topo[i + 1] = {"straight": 1}.get(part.get("topology"), 0) or (legs_of(part) or -1)
            key = tuple(part.get(name) for name in FIBER_CONSTRUCTION)
            build[i + 1] = constructions.setdefault(key, len(fabric.parts) + len(constructions))
    links, per_link = ends.links, ends.per_link
    sel = (cable_part[links] >= 0) & (ends.sizes > 1)[per_link]
    if not sel.any():
        return
    l2, m2 = links[sel], per_link[sel]
    _, s2, n2 = np.unique(m2, return_index=True, return_counts=True)
    ok = n2 > 1
    t = topo[cable_part[l2].astype(np.int64) + 1]
    speed = fabric.link_speed_gbps[l2]
    cab = cable_part[l2].astype(np.int64)
    made = build[cab + 1]  # two part numbers of one construction are the same fiber type
    mixed = (np.minimum.reduceat(t, s2) != np.maximum.reduceat(t, s2)) | (
        np.minimum.reduceat(speed, s2) != np.maximum.reduceat(speed, s2)
    )
    mixed &= ok
    differ = (np.minimum.reduceat(made, s2) != np.maximum.reduceat(made, s2)) & ok & ~mixed
    expand = np.repeat(np.arange(s2.size), n2)
    if mixed.any():
        ctx.out.add(
            "twin-port-mixed-fibers",
            "the ports of one twin-port module use different fiber types or speeds "
            "(straight and 1:2 splitter): the switch port runs either 2 x 400G or "
            "4 x 200G, so both ports take the same fiber type (rule 8)",
            links=l2[mixed[expand]],
            suggestion="use the same fiber on both ports (both straight or both splitter)",
        )
    if differ.any():
        names = sorted({fabric.parts[int(c)] for c in cab[differ[expand]]})
        ctx.out.add(
            "twin-port-fiber-parts-differ",
            f"the ports of one twin-port module use fibers of another construction "
            f"({', '.join(names)}: fiber or grade differ or are not stated); both "
            "should be the same type (rule 8)",
            links=l2[differ[expand]],
        )
    if fabric.link_length_m is not None:
        length = fabric.link_length_m[l2].astype(np.float64)
        skew = np.maximum.reduceat(length, s2) - np.minimum.reduceat(length, s2)
        skew = np.where(ok, skew, 0.0)
        far = skew > LENGTH_SKEW_M
        if far.any():
            ctx.out.add(
                "twin-port-length-skew",
                f"the two fibers of a twin-port module differ by more than "
                f"{LENGTH_SKEW_M:g} m (4.5 ns/m of skew; rule 8: roughly equal lengths)",
                links=l2[far[expand]],
            )
