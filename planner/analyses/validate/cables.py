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
    """More links on one cable or fiber than it has legs (a cable: head over link speed)."""
    runs = ctx.cable_runs
    if runs is None:
        return
    fabric, facts = ctx.fabric, ctx.facts
    capacity = np.zeros(len(fabric.parts), dtype=np.int64)
    head = np.zeros(len(fabric.parts), dtype=np.int64)
    for i, slug in enumerate(fabric.parts):
        part = facts.parts.get(slug) or {}
        if part.get("category") == "fiber":
            capacity[i] = legs_of(part) or 0
        elif part.get("category") == "cable":
            head[i] = part.get("speed_gbps") or 0
            capacity[i] = legs_of(part) or 0
    parts = runs.parts
    speed = fabric.link_speed_gbps[runs.links].astype(np.int64)
    cap = np.where(head[parts] > 0, head[parts] // np.maximum(speed, 1), capacity[parts])
    first_cap = cap[runs.first]
    over = (runs.counts > first_cap) & (first_cap > 0)
    if over.any():
        bad = runs.links[over[runs.inverse]]
        names = sorted({fabric.parts[int(p)] for p in fabric.link_cable_part[bad]})
        ctx.out.add(
            "fiber-legs-exceeded",
            f"more links share one {', '.join(names)} than it has legs (rule 21)",
            links=bad,
        )
