"""Reach and lengths: each link's length against its optics, fiber or cable reach (rules 11,
12, 16) and against the cable ordered for it. NumPy comparisons per chunk of a link group."""

from __future__ import annotations

import numpy as np

from planner.analyses.rules_catalog import RULES
from planner.analyses.validate.context import Context, LinkGroup, unknown
from planner.analyses.validate.parts import ieee_reach_m, num
from planner.analyses.validate.registry import register
from planner.analyses.validate.suggest import suggest_link
from planner.domain.part_facts import COPPER_REACH_M, reach_cap_m

TOLERANCE_M = 1e-3

# (limit m, code, what limits it); ("unknown", "reach-unknown", slug) when nothing states one.
Reach = tuple


@register(
    stage="chunk",
    order=100,
    codes=("reach-exceeded", "reach-unknown", "ieee-reach-exceeded", "copper-reach-exceeded"),
)
def reach(ctx: Context, g: LinkGroup, links: np.ndarray) -> None:
    """Links longer than the shortest reach that applies to their group."""
    if "reach" not in g.memo:
        g.memo["reach"] = group_reach(ctx, g) if ctx.has_media else None
    limit = g.memo["reach"]
    if limit is None:
        return
    limit_m, code, what = limit
    if limit_m == "unknown":
        who = [s for s in (g.cable_slug, g.a_slug, g.b_slug) if s]
        ctx.out.add(code, unknown("reach", who), links=links)
        return
    lengths = ctx.fabric.link_length_m[links]
    over = links[lengths > limit_m + TOLERANCE_M]
    if not over.size:
        return
    if "reach-suggestion" not in g.memo:
        longest = float(ctx.fabric.link_length_m[g.links].max())
        g.memo["reach-suggestion"] = suggest_link(ctx, g, longest)
    ctx.out.add(
        code,
        f"longer than the {limit_m:g} m reach of {what} "
        f"({g.b_slug or g.cable_slug} / {g.a_slug or g.cable_slug}, rule "
        f"{RULES[code].rule})",
        links=over,
        suggestion=g.memo["reach-suggestion"],
    )


def group_reach(ctx: Context, g: LinkGroup) -> Reach | None:
    """(limit m, code, what limits it) or None; an unknown reach is a static warning."""
    if ctx.fabric.link_length_m is None or g.manager or g.cable is None:
        return None
    limits = _cable_limits(g) if g.assembly else _optics_limits(g)
    if not limits:
        return ("unknown", "reach-unknown", g.cable_slug)
    low = min(value for value, _, _ in limits)
    binding = [(code, what) for value, code, what in limits if value == low]
    codes = {code for code, _ in binding}
    code = "ieee-reach-exceeded" if "ieee-reach-exceeded" in codes else binding[0][0]
    names = []
    for _, what in binding:
        if what not in names:
            names.append(what)
    return (low, code, " and ".join(names))


def _listed_limits(g: LinkGroup) -> list[tuple[float, str]]:
    """A cable's or fiber's max length and longest listed length."""
    part = g.cable
    lengths = [v for v in (num(x) for x in part.get("lengths_m") or ()) if v]
    out = []
    for value, what in (
        (num(part.get("max_length_m")), f"{g.cable_slug} max length"),
        (max(lengths) if lengths else None, f"{g.cable_slug} longest listed length"),
    ):
        if value:
            out.append((value, what))
    return out


def _cable_limits(g: LinkGroup) -> list[tuple[float, str, str]]:
    limits = _listed_limits(g)
    kind = g.cable.get("cable_type")
    if not limits and kind in COPPER_REACH_M:
        limits.append((COPPER_REACH_M[kind], f"{kind.upper()} copper (rule 16)"))
    code = "copper-reach-exceeded" if kind in COPPER_REACH_M else "reach-exceeded"
    return [(value, code, what) for value, what in limits]


def _optics_limits(g: LinkGroup) -> list[tuple[float, str, str]]:
    fiber = g.cable
    grade = fiber.get("fiber_grade")
    limits: list[tuple[float, str, str]] = []
    for slug, part in ((g.a_slug, g.a_part), (g.b_slug, g.b_part)):
        if part is None:
            continue
        by_grade = part.get("reach_by_grade") or {}
        if grade and num(by_grade.get(grade)):
            limits.append((float(by_grade[grade]), "reach-exceeded", f"{slug} on {grade}"))
        reach_m = num(part.get("reach_m"))
        if reach_m:
            limits.append((reach_m, "reach-exceeded", slug))
        else:
            ieee = ieee_reach_m(part, grade)
            if ieee:
                what = f"the IEEE {part.get('pmd')} class ({slug})"
                limits.append((ieee, "ieee-reach-exceeded", what))
    limits += [(value, "reach-exceeded", what) for value, what in _listed_limits(g)]
    topology = fiber.get("topology") or ""
    media = fiber.get("fiber_type") or (g.a_part or {}).get("media")
    connector = (
        (g.a_part or {}).get("connector")
        or (g.b_part or {}).get("connector")
        or fiber.get("connector_a")
    )
    splitter = topology.startswith("1:")
    pmd = (g.a_part or {}).get("pmd") or (g.b_part or {}).get("pmd")
    cap = reach_cap_m(media, connector, splitter, pmd=pmd)
    if cap:
        kind = f"{(media or '').upper()} {connector}{' splitter' if splitter else ''}"
        limits.append((cap, "reach-exceeded", f"the rule-11 cap for {kind} links"))
    return limits


@register(stage="chunk", order=110, codes=("cable-shorter-than-run",))
def cable_lengths(ctx: Context, g: LinkGroup, links: np.ndarray) -> None:
    """The cable or fiber ordered for a link covers its run."""
    fabric = ctx.fabric
    if fabric.link_cable_length_m is None or fabric.link_length_m is None:
        return
    if fabric.link_cable_part is None:
        return
    short = (fabric.link_cable_length_m[links] < fabric.link_length_m[links] - TOLERANCE_M) & (
        fabric.link_cable_part[links] >= 0
    )
    if short.any():
        ctx.out.add(
            "cable-shorter-than-run",
            "the cable or fiber ordered is shorter than the cable run",
            links=links[short],
            suggestion="order the next listed length that covers the run",
        )
