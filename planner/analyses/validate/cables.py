"""Cable assemblies and breakouts (rule 21): a cable's head and legs match the ports at each
end, and no cable or fiber carries more links than it has legs."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from planner.analyses.validate.context import Context, Finding, LinkGroup, unknown
from planner.analyses.validate.registry import register
from planner.analyses.validate.suggest import suggest_cables
from planner.domain.part_facts import legs_of


@register(
    stage="group",
    order=240,
    codes=("cable-breakout-mismatch",),
    shares=("breakout-unverified",),
    media=("cable",),
)
def cable_breakouts(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """The head runs the b-end cage's ports, each leg an a-end cage's ports."""
    cable, slug = g.cable, g.cable_slug
    legs = legs_of(cable)
    head_speed = cable.get("speed_gbps")
    leg_speed = cable.get("leg_speed_gbps") or (head_speed // legs if head_speed and legs else None)
    if not (head_speed and leg_speed):
        yield Finding("breakout-unverified", unknown("head or leg speed", [slug]))
    elif head_speed != g.b.ppc * g.speed or leg_speed != g.a.ppc * g.speed:
        yield Finding(
            "cable-breakout-mismatch",
            f"{slug} has a {head_speed}G head and {leg_speed}G legs; the ports are "
            f"{g.b.ppc} x {g.speed}G ({g.b.slug}) and {g.a.ppc} x {g.speed}G "
            f"({g.a.slug}) (rule 21)",
            suggest_cables(ctx, g),
        )


@register(stage="module", order=130, codes=("fiber-legs-exceeded",))
def cable_legs(ctx: Context) -> None:
    """More links on one cable or fiber than it has legs.

    A cable carries its head's Gb/s over the link speed. A fiber joins one connector of a
    module at its head (b) end to one module per leg at the other: it carries links that end
    in at most ``legs`` modules there and in one module at the head, within the head
    connector's Gb/s (the head module's ``speed_gbps`` over its ``connector_count``). So a
    straight fiber between two twin-port modules split 4 x 200G carries the two 200G links of
    one MPO-12, as the media picker wires it (NVIDIA twin-port modules: 4 lanes per MPO), and
    never two links to two servers. Where a module or that speed is unknown, or a link is
    wider than one connector, a fiber carries one link per leg."""
    runs = ctx.cable_runs
    if runs is None:
        return
    fabric, facts = ctx.fabric, ctx.facts
    capacity = np.zeros(len(fabric.parts), dtype=np.int64)
    head = np.zeros(len(fabric.parts), dtype=np.int64)
    is_fiber = np.zeros(len(fabric.parts), dtype=bool)
    per_connector = np.zeros(len(fabric.parts), dtype=np.int64)  # Gb/s per module connector
    connectors = np.zeros(len(fabric.parts), dtype=np.int64)
    for i, slug in enumerate(fabric.parts):
        part = facts.parts.get(slug) or {}
        category = part.get("category")
        if category == "fiber":
            capacity[i] = legs_of(part) or 0
            is_fiber[i] = True
        elif category == "cable":
            head[i] = part.get("speed_gbps") or 0
            capacity[i] = legs_of(part) or 0
        elif category == "transceiver":
            speed = part.get("speed_gbps")
            count = part.get("connector_count")
            if speed and count:
                per_connector[i], connectors[i] = int(speed) // int(count), int(count)
    parts = runs.parts
    speed = fabric.link_speed_gbps[runs.links].astype(np.int64)
    cap = np.where(head[parts] > 0, head[parts] // np.maximum(speed, 1), capacity[parts])
    first_cap = cap[runs.first]
    over = (runs.counts > first_cap) & (first_cap > 0)
    fiber_runs = is_fiber[parts[runs.first]] & (first_cap > 0)
    if fiber_runs.any():
        by_fiber = _fiber_over(fabric, runs, speed, first_cap, per_connector, connectors)
        over[fiber_runs] = by_fiber[fiber_runs]
    if over.any():
        bad = runs.links[over[runs.inverse]]
        names = sorted({fabric.parts[int(p)] for p in fabric.link_cable_part[bad]})
        ctx.out.add(
            "fiber-legs-exceeded",
            f"more links share one {', '.join(names)} than it has legs (rule 21)",
            links=bad,
        )


def _fiber_over(fabric, runs, speed, legs, per_connector, connectors) -> np.ndarray:
    """Per cable id: a fiber's links end in more modules than it has legs, or at its head in
    more than one connector (of one module), or exceed that connector's Gb/s; where a module
    or that Gb/s is unknown, more links than legs."""
    count = runs.counts.size
    ids = runs.inverse.astype(np.int64)
    over = runs.counts > legs  # the fallback
    if fabric.link_a_module is None or fabric.link_b_module is None:
        return over
    links = runs.links
    a_mod = fabric.link_a_module[links].astype(np.int64)
    b_mod = fabric.link_b_module[links].astype(np.int64)
    b_part = fabric.link_b_part[links].astype(np.int64)
    known = np.ones(count, dtype=bool)
    np.logical_and.at(known, ids, (a_mod >= 0) & (b_mod >= 0) & (b_part >= 0))
    b_part = np.maximum(b_part, 0)
    head_gbps = np.zeros(count, dtype=np.int64)
    head_gbps[ids] = per_connector[b_part]
    # a link wider than one connector (800G over a 2 x 400G module's two fibers) is judged
    # as before: one link per leg
    widest = np.zeros(count, dtype=np.int64)
    np.maximum.at(widest, ids, speed)
    known &= (head_gbps > 0) & (widest <= head_gbps)
    # the head connector of each link: its port at the link's speed over the ports one
    # connector of the module carries (ports per cage at that speed / connectors)
    scale = fabric.link_port_scale(links, "b")
    per_cage = np.maximum(fabric.node_ports_per_cage[fabric.link_b[links]] // scale, 1)
    per_conn = np.maximum(per_cage // np.maximum(connectors[b_part], 1), 1)
    connector = fabric.link_b_port[links].astype(np.int64) // scale // per_conn
    head = b_mod * (int(connector.max()) + 1) + connector
    by_modules = (
        (_distinct(ids, a_mod, count) > legs)
        | (_distinct(ids, head, count) > 1)
        | (np.bincount(ids, weights=speed, minlength=count) > head_gbps)
    )
    return np.where(known, by_modules, over)


def _distinct(ids: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """Per id 0..count-1: how many distinct ``values`` its rows have."""
    shifted = values - values.min()
    base = int(shifted.max()) + 1
    return np.bincount(np.unique(ids * base + shifted) // base, minlength=count)
