"""Speeds and lanes: breakouts (rule 21), host port speeds and lane structure (22), module
speeds (21) and XDR links (15)."""

from __future__ import annotations

from collections.abc import Iterator

from inventory.library.facts import runs_as_splitter_leg
from planner.analyses.validate.context import Context, End, Finding, LinkGroup, unknown
from planner.analyses.validate.registry import register
from planner.analyses.validate.suggest import suggest_link, suggest_modules
from planner.domain.part_facts import port_speeds_of


@register(stage="group", order=120, codes=("breakout-not-listed", "breakout-unverified"))
def switch_breakouts(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 21: a switch runs the link's speed only in a breakout mode it lists."""
    for end in (g.a, g.b):
        if end.is_switch:
            yield from _breakout(g, end)


def _breakout(g: LinkGroup, end: End) -> Iterator[Finding]:
    group = end.group
    if group is None or not group.port_speed_gbps:
        return
    ports = group.ports_at(g.speed)
    modes = ", ".join(group.breakouts)
    if not ports:
        if group.breakouts:
            yield Finding(
                "breakout-not-listed",
                f"{end.slug} runs {group.port_speed_gbps}G ports and lists {modes}; "
                f"{g.speed}G is not one of its modes (rule 21)",
                f"use a speed {end.slug} lists ({modes})",
            )
        else:
            yield Finding("breakout-unverified", unknown(f"{g.speed}G breakout mode", [end.slug]))
        return
    expected = group.ports_per_cage * group.split_at(g.speed)
    if expected and end.ppc != expected:
        yield Finding(
            "breakout-not-listed",
            f"the fabric runs {end.ppc} x {g.speed}G per {end.slug} cage; its listed "
            f"modes ({modes or f'{group.port_speed_gbps}G'}) give {expected} (rule 21)",
        )


@register(stage="group", order=130, codes=("host-port-speed",))
def host_port_speed(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 22: a server's ports (or its NIC's split legs) run the link's speed."""
    end = g.a
    group = end.group
    if end.role != "server" or group is None or not group.port_speed_gbps:
        return
    physical = group.port_speed_gbps * (group.ports_per_cage or 1)
    logical = physical // max(1, end.ppc)
    speeds: set[int] = set()
    if end.nic:
        for port in end.nic.get("ports") or []:
            speeds.update(int(s) for s in port.get("speeds_gbps") or ())
            if port.get("max_speed_gbps"):
                speeds.add(int(port["max_speed_gbps"]))
    if g.speed > group.port_speed_gbps:
        yield Finding(
            "host-port-speed",
            f"{end.slug} ports run {group.port_speed_gbps}G; the link runs {g.speed}G (rule 22)",
        )
    elif g.speed != group.port_speed_gbps or logical != g.speed:
        if speeds and g.speed not in speeds:
            yield Finding(
                "host-port-speed",
                f"{end.nic['slug']} in {end.slug} runs {sorted(speeds)} Gb/s, not the "
                f"link's {g.speed}G (rule 22: split legs need ports of that speed)",
            )
        elif not speeds and not group.ports_at(g.speed):  # no listed split to this speed
            yield Finding(
                "host-port-speed",
                unknown(f"whether the ports run {g.speed}G", [end.slug]),
                severity="warning",
            )


@register(stage="group", order=140, codes=("lane-structure-mismatch",))
def cage_lanes(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 22: lanes x lane rate per link must match at both ends (host cages may
    downshift to the other end's lane rate)."""
    shapes = []
    for end in (g.a, g.b):
        group = end.group
        if group is None or not (
            group.lanes_per_port and group.lane_rate_gbps and group.port_speed_gbps
        ):
            return
        lanes = group.lanes_per_port * g.speed / group.port_speed_gbps
        if not float(lanes).is_integer() or lanes < 1:
            return
        shapes.append((int(lanes), int(group.lane_rate_gbps)))
    (la, ra), (lb, rb) = shapes
    if (la, ra) == (lb, rb):
        return
    for end, rate, other_rate in ((g.a, ra, rb), (g.b, rb, ra)):
        downshift = not end.is_switch and rate > other_rate
        if downshift and end.group.lanes_per_port * other_rate >= g.speed:
            return  # the host cage downshifts to the other end's lane rate
    yield Finding(
        "lane-structure-mismatch",
        f"{g.speed}G links run {lb} x {rb}G at the {g.b.slug} end and {la} x {ra}G "
        f"at the {g.a.slug} end (rules 13 and 22: lane count and rate must match)",
    )


@register(stage="group", order=250, codes=("module-speed-unsupported",), media=("optics",))
def module_speeds(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 21: each module must run the link's speed (splitter twin-ports: rule 7)."""
    topology = (g.cable or {}).get("topology") or ""
    for slug, part, end in ((g.a_slug, g.a_part, g.a), (g.b_slug, g.b_part, g.b)):
        if part is None or (end is g.b and topology.startswith("1:")):
            continue
        speeds = port_speeds_of(part)
        if not speeds or g.speed in speeds:
            continue
        if runs_as_splitter_leg(part, g.speed):
            continue  # 200G mode of a 400G module on a splitter leg (rule 7)
        if part.get("breakouts") or g.speed > max(speeds):
            yield Finding(
                "module-speed-unsupported",
                f"{slug} runs {', '.join(f'{s}G' for s in sorted(speeds))} per port, not the "
                f"link's {g.speed}G (rule 21)",
                suggest_modules(ctx, g, end, g.other_part(end)),
            )
        else:
            yield Finding(
                "module-speed-unsupported",
                unknown(f"a {g.speed}G mode", [slug]),
                severity="warning",
            )


@register(
    stage="group",
    order=290,
    codes=("xdr-qsfp112", "xdr-multimode", "xdr-aoc", "xdr-passive-dac"),
    media=("optics", "cable"),
)
def xdr_media(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 15: no QSFP112, multimode, AOC or passive DAC at 200G per lane."""
    if not g.is_xdr:
        return
    bad: list[tuple[str, str]] = []
    for slug, part in ((g.a_slug, g.a_part), (g.b_slug, g.b_part)):
        if part and part.get("form_factor") == "QSFP112":
            bad.append(("xdr-qsfp112", f"{slug} is QSFP112 (100G-PAM4 only)"))
        if part and part.get("media") == "mmf":
            bad.append(("xdr-multimode", f"{slug} is multimode"))
    if g.cable is not None:
        if g.cable.get("category") == "fiber" and g.cable.get("fiber_type") == "mmf":
            bad.append(("xdr-multimode", f"{g.cable_slug} is multimode fiber"))
        kind = g.cable.get("cable_type")
        if kind == "aoc":
            bad.append(("xdr-aoc", f"{g.cable_slug} is an AOC"))
        if kind == "dac":
            bad.append(("xdr-passive-dac", f"{g.cable_slug} is a passive DAC (too short)"))
    if bad:
        suggestion = suggest_link(ctx, g, 0.0)
        for code, text in bad:
            yield Finding(
                code,
                f"XDR (200G/lane) link: {text}; XDR takes LACC or SMF optics (rule 15)",
                suggestion,
            )
