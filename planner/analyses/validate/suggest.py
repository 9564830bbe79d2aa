"""Suggestions: catalog modules, cables and fibers that would fit where a rule failed.

Results are cached in the run's :attr:`Context.memo <.context.Context>`, so a 300,000-link
fabric with one broken group searches the catalog once.
"""

from __future__ import annotations

from inventory.library.compat import (
    fiber_fits_optic,
    optics_interoperate,
    plug_fits_cage,
    pmd_family,
)
from planner.analyses.validate.context import Context, End, LinkGroup, errors
from planner.analyses.validate.parts import describe_part, ieee_reach_m, num, or_list
from planner.domain.part_facts import (
    COPPER_REACH_M,
    cable_plugs_of,
    fiber_of,
    legs_of,
    optic_of,
    plug_of,
    port_speeds_of,
    reach_cap_m,
)

SUGGESTIONS = 3  # parts named per suggestion


def module_options(ctx: Context, g: LinkGroup, end: End, other: dict | None) -> list[dict]:
    """Catalog transceivers that fit ``end``'s cage at the link speed and pair with ``other``,
    those with fewest unknown facts first."""
    key = ("modules", end.slug, end.cage, end.ppc, g.speed, (other or {}).get("slug"))
    if key in ctx.memo:
        return ctx.memo[key]
    protocols = g.link_protocols()
    ranked = []
    for part in ctx.transceivers:
        plug = plug_of(part)
        problems = plug_fits_cage(plug, end.cage)
        if errors(problems):
            continue
        speeds = port_speeds_of(part)
        if not speeds or g.speed not in speeds:
            continue
        if end.ppc % (part.get("ports_per_module") or 1):
            continue
        if protocols and plug.protocols and not (plug.protocols & protocols):
            continue
        xdr_bad = part.get("media") == "mmf" or part.get("form_factor") == "QSFP112"
        if xdr_bad and g.is_xdr:
            continue
        unknown = len(problems)
        if other is not None:
            pair = optics_interoperate(optic_of(part), optic_of(other))
            if errors(pair):
                continue
            unknown += len(pair)
            if pmd_family(part.get("pmd")) != pmd_family(other.get("pmd")):
                continue
        ranked.append((unknown, part["slug"], part))
    ranked.sort(key=lambda item: item[:2])
    ctx.memo[key] = [part for _, _, part in ranked]
    return ctx.memo[key]


def suggest_modules(ctx: Context, g: LinkGroup, end: End, other: dict | None) -> str:
    """``use <a>, <b> or <c> (<kind>) at the <device> end``, or ``""``."""
    options = module_options(ctx, g, end, other)[:SUGGESTIONS]
    if not options:
        return ""
    names = [part["slug"] for part in options]
    return f"use {or_list(names)} ({describe_part(options[0])}) at the {end.slug} end"


def cable_options(ctx: Context, g: LinkGroup, min_reach_m: float) -> list[tuple[float, str]]:
    """(reach m, slug) of catalog cables that fit both cages, the ports and ``min_reach_m``."""
    out = []
    for part in ctx.cables:
        head, leg = cable_plugs_of(part)
        if errors(plug_fits_cage(head, g.b.cage)) or errors(plug_fits_cage(leg, g.a.cage)):
            continue
        legs = legs_of(part)
        head_speed = part.get("speed_gbps")
        if not (legs and head_speed):
            continue
        leg_speed = part.get("leg_speed_gbps") or head_speed // legs
        if head_speed != g.b.ppc * g.speed or leg_speed != g.a.ppc * g.speed:
            continue
        kind = part.get("cable_type")
        if g.is_xdr and kind in ("aoc", "dac"):
            continue
        lengths = [v for v in (num(x) for x in part.get("lengths_m") or ()) if v]
        reach = [v for v in (num(part.get("max_length_m")), max(lengths, default=None)) if v]
        if not reach and kind in COPPER_REACH_M:
            reach = [COPPER_REACH_M[kind]]
        if reach and min(reach) >= min_reach_m:
            out.append((min(reach), part["slug"]))
    return sorted(out)


def suggest_cables(ctx: Context, g: LinkGroup) -> str:
    """Cables that fit and reach the group's longest link, else any fitting link."""
    longest = 0.0
    if ctx.fabric.link_length_m is not None:
        longest = float(ctx.fabric.link_length_m[g.links].max())
    options = cable_options(ctx, g, longest)[:SUGGESTIONS]
    if options:
        names = [f"{slug} ({reach:g} m)" for reach, slug in options]
        return f"use {or_list(names)}"
    return suggest_link(ctx, g, longest)


def fiber_options(ctx: Context, g: LinkGroup, a_part, b_part, topology: str) -> list[dict]:
    """Catalog fibers of ``topology`` that suit both modules (and XDR)."""
    out = []
    for fiber in ctx.fibers:
        if (fiber.get("topology") or "straight") != topology:
            continue
        fib = fiber_of(fiber)
        if any(errors(fiber_fits_optic(fib, optic_of(p))) for p in (a_part, b_part) if p):
            continue
        if g.is_xdr and fiber.get("fiber_type") == "mmf":
            continue
        if fiber.get("fiber_type") is None or fiber.get("connector_a") is None:
            continue
        out.append(fiber)
    return out


def suggest_fibers(ctx: Context, g: LinkGroup, topology: str | None = None) -> str:
    """Fibers for the group's modules, else any fitting link."""
    topology = topology or (g.cable or {}).get("topology") or "straight"
    options = fiber_options(ctx, g, g.a_part, g.b_part, topology)[:SUGGESTIONS]
    if not options:
        return suggest_link(ctx, g, 0.0)
    kind = f"{topology} {(options[0].get('fiber_type') or '').upper()}"
    return f"use {or_list([f['slug'] for f in options])} ({kind})"


def suggest_link(ctx: Context, g: LinkGroup, min_reach_m: float) -> str:
    """Catalog optics (b + a over a fiber) or cables that fit both ends and reach."""
    a, b = g.a, g.b
    key = ("link", a.slug, a.cage, a.ppc, b.slug, b.cage, b.ppc, g.speed, min_reach_m)
    if key in ctx.memo:
        return ctx.memo[key]
    options: list[tuple[tuple, str]] = []
    topology = (g.cable or {}).get("topology") or "straight"
    if topology not in ("straight", "1:2"):
        topology = "straight"
    for b_part in module_options(ctx, g, g.b, None)[:12]:
        for a_part in module_options(ctx, g, g.a, b_part)[:6]:
            for fiber in fiber_options(ctx, g, a_part, b_part, topology)[:2]:
                reach = _triple_reach_m(a_part, b_part, fiber, topology)
                if reach is not None and reach >= min_reach_m:
                    text = f"{b_part['slug']} + {a_part['slug']} over {fiber['slug']} ({reach:g} m)"
                    options.append(((0, reach, text), text))
    for reach, slug in cable_options(ctx, g, min_reach_m):
        options.append(((1, reach, slug), f"{slug} ({reach:g} m)"))
    options.sort()
    texts = []
    for _, text in options:
        if text not in texts:
            texts.append(text)
    result = f"use {or_list(texts[:2])}" if texts else ""
    ctx.memo[key] = result
    return result


def _triple_reach_m(a_part: dict, b_part: dict, fiber: dict, topology: str) -> float | None:
    grade = fiber.get("fiber_grade")
    values = []
    for part in (a_part, b_part):
        reach = num(part.get("reach_m")) or ieee_reach_m(part, grade)
        if reach:
            values.append(reach)
    lengths = [v for v in (num(x) for x in fiber.get("lengths_m") or ()) if v]
    for value in (num(fiber.get("max_length_m")), max(lengths, default=None)):
        if value:
            values.append(value)
    cap = reach_cap_m(
        fiber.get("fiber_type"),
        a_part.get("connector") or fiber.get("connector_a"),
        topology.startswith("1:"),
    )
    if cap:
        values.append(cap)
    return min(values) if values else None


__all__ = [
    "SUGGESTIONS",
    "cable_options",
    "fiber_options",
    "module_options",
    "suggest_cables",
    "suggest_fibers",
    "suggest_link",
    "suggest_modules",
]
