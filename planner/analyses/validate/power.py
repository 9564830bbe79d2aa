"""Power (rule 20): module and cable-end power known for the total, and the totals themselves
(one module per module id, one head and its legs per cable id), in ``report.power``."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from planner.analyses.validate.context import Context, Finding, LinkGroup
from planner.analyses.validate.parts import num, power_w
from planner.analyses.validate.registry import register
from planner.domain.part_facts import legs_of


@register(stage="group", order=260, codes=("power-unknown",), media=("optics", "cable"))
def power_unknown(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """A module or active cable whose power is unknown is left out of the total."""
    if g.kind == "cable":
        ends = (g.cable.get("power_end_a_w"), g.cable.get("power_end_b_w"))
        if g.cable.get("cable_type") != "dac" and any(num(value) is None for value in ends):
            yield Finding(
                "power-unknown",
                f"power per end unknown for {g.cable_slug}: left out of the power total (rule 20)",
            )
        return
    for slug, part in ((g.a_slug, g.a_part), (g.b_slug, g.b_part)):
        if part is not None and power_w(part) is None:
            yield Finding(
                "power-unknown",
                f"power unknown for {slug}: left out of the power total (rule 20)",
            )


@register(stage="module", order=110)
def module_power(ctx: Context) -> None:
    """``modules_w``: one module per module id; ``unknown_modules`` counts those unknown."""
    ends = ctx.module_ends
    if ends is None:
        return
    watts = [power_w(ctx.facts.parts.get(slug) or {}) for slug in ctx.fabric.parts]
    power = np.array([np.nan if w is None else w for w in watts] + [np.nan])
    first_parts = ends.parts[ends.start]
    module_power = power[np.where(first_parts >= 0, first_parts, -1)]
    ctx.power["modules_w"] += float(np.nansum(module_power))
    ctx.power["unknown_modules"] += int(np.isnan(module_power).sum())


@register(stage="module", order=140)
def cable_power(ctx: Context) -> None:
    """``cable_ends_w``: both ends of every cable assembly, one head and its legs per id."""
    runs = ctx.cable_runs
    if runs is None:
        return
    fabric = ctx.fabric
    watts = np.full(len(fabric.parts), np.nan)
    for i, slug in enumerate(fabric.parts):
        part = ctx.facts.parts.get(slug) or {}
        if part.get("category") == "cable":
            ends = (num(part.get("power_end_a_w")), num(part.get("power_end_b_w")))
            if None not in ends:
                watts[i] = ends[0] + (legs_of(part) or 1) * ends[1]
    ctx.power["cable_ends_w"] += float(np.nansum(watts[runs.parts[runs.first]]))
