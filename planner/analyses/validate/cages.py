"""Plugs in cages: rules 1-5, 13, 14 and 19 as :func:`inventory.library.compat.plug_fits_cage`
decides them, plus a host cage's protocol (17), a twin-port plug in a single cage (21) and a
plug's lane structure (22).

compat is the single authority on fit; this module maps its findings to stable codes, notices
finned and flat-top modules that sit swapped, and suggests modules that fit.
"""

from __future__ import annotations

from collections.abc import Iterator

from inventory.library.compat import Cage, Plug, plug_fits_cage
from planner.analyses.validate.context import (
    Context,
    End,
    Finding,
    LinkGroup,
    errors,
    unknown,
)
from planner.analyses.validate.registry import register
from planner.analyses.validate.suggest import suggest_cables, suggest_modules
from planner.domain.part_facts import cable_plugs_of, plug_of

FIT_CODES = {  # compat's plug-in-cage codes that map one to one
    "host-part-in-switch": "host-module-in-switch",
    "switch-part-in-host": "switch-module-in-host",
    "lane-rate-mismatch": "lane-rate-mismatch",
    "speed-above-cage": "plug-faster-than-cage",
    "module-power-over-cage": "module-power-over-cage",
    "protocol-mismatch": "protocol-mismatch",
    "nic-limit": "nic-single-port-speed",
    "form-factor-unknown": "form-factor-unknown",
    "top-unknown": "top-unknown",
    "lane-rate-unknown": "lane-rate-unknown",
}
UNKNOWN_FACTS = {  # compat's warning code -> (the fact, the Plug/Cage attribute)
    "form-factor-unknown": ("form factor", "form_factor"),
    "top-unknown": ("finned/flat top", "top"),
}

# An error at one end: (code, message); the suggestion depends on the other end.
EndError = tuple[str, str]


def fit_code(code: str, plug: Plug, cage: Cage) -> str:
    """Our code for compat's plug-in-cage finding ``code``."""
    if code == "top-mismatch":
        return "finned-plug-in-flat-cage" if plug.top == "ihs" else "flat-plug-in-finned-cage"
    if code == "form-factor-mismatch":
        ff, cf = plug.form_factor or "", cage.form_factor or ""
        if ff.startswith("QSFP-DD") and cf.startswith("QSFP") and not cf.startswith("QSFP-DD"):
            return "qsfp-dd-in-qsfp-cage"
        return "form-factor-mismatch"
    if code == "port-count-mismatch":
        if plug.ports == 1:
            return "single-port-module-in-twin-cage"
        return "twin-port-plug-in-single-cage"
    return FIT_CODES.get(code, "form-factor-mismatch")


@register(
    stage="group",
    order=210,
    codes=(
        "finned-plug-in-flat-cage",
        "flat-plug-in-finned-cage",
        "switch-module-in-host",
        "host-module-in-switch",
        "top-unknown",
        "modules-swapped",
        "single-port-module-in-twin-cage",
        "twin-port-plug-in-single-cage",
        "form-factor-mismatch",
        "form-factor-unknown",
        "qsfp-dd-in-qsfp-cage",
        "plug-faster-than-cage",
        "lane-rate-mismatch",
        "lane-rate-unknown",
        "protocol-mismatch",
        "module-power-over-cage",
        "module-power-unknown",
    ),
    shares=("nic-single-port-speed", "lane-structure-mismatch"),
    media=("manager", "optics", "cable"),
)
def plugs_in_cages(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Each module (or cable end) fits the cage it sits in.

    Unknown facts are reported as they are found; errors follow, each end's with a suggestion,
    unless the two modules fit each other's cages (``modules-swapped``). On a management link
    only the switch-end module is checked, for unknown facts.
    """
    if g.kind == "manager":
        if g.b_part is not None:
            _, notes = _plug_errors(g, g.b, plug_of(g.b_part), g.b_slug, g.b_part)
            yield from notes
    elif g.kind == "cable":
        yield from _cable_ends(ctx, g)
    else:
        yield from _modules(ctx, g)


def _modules(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    a_plug = plug_of(g.a_part) if g.a_part else None
    b_plug = plug_of(g.b_part) if g.b_part else None
    errs_a: list[EndError] = []
    errs_b: list[EndError] = []
    if a_plug:
        errs_a, notes = _plug_errors(g, g.a, a_plug, g.a_slug, g.a_part)
        yield from notes
    if b_plug:
        errs_b, notes = _plug_errors(g, g.b, b_plug, g.b_slug, g.b_part)
        yield from notes
    swapped = (
        a_plug is not None
        and b_plug is not None
        and errs_a
        and errs_b
        and any(code.endswith("cage") and "plug" in code for code, _ in errs_a + errs_b)
        and not errors(plug_fits_cage(a_plug, g.b.cage))
        and not errors(plug_fits_cage(b_plug, g.a.cage))
    )
    if swapped:
        yield Finding(
            "modules-swapped",
            f"{g.a_slug} sits in the {g.a.label} and {g.b_slug} in the {g.b.label}: "
            "the modules are swapped. IHS and RHS versions interoperate across a "
            "link (rule 3), but each must sit in the cage of its own top",
            f"swap them: {g.b_slug} at the {g.a.slug} end, {g.a_slug} at the {g.b.slug} end",
        )
        return
    for end, errs, other in ((g.a, errs_a, g.b_part), (g.b, errs_b, g.a_part)):
        if errs:
            suggestion = suggest_modules(ctx, g, end, other)
            yield from (Finding(code, message, suggestion) for code, message in errs)


def _cable_ends(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """A cable's head sits in the b-end cage, its legs in the a-end cages."""
    slug = g.cable_slug
    head, leg = cable_plugs_of(g.cable)
    errs_b, notes = _plug_errors(g, g.b, head, f"{slug} head", None)
    yield from notes
    errs_a, notes = _plug_errors(g, g.a, leg, f"{slug} leg", None)
    yield from notes
    if errs_a or errs_b:
        suggestion = suggest_cables(ctx, g)
        yield from (Finding(code, message, suggestion) for code, message in errs_b + errs_a)


def _plug_errors(
    g: LinkGroup, end: End, plug: Plug, label: str, part: dict | None
) -> tuple[list[EndError], list[Finding]]:
    """compat's plug-in-cage findings for ``end``: (errors, findings about unknown facts)."""
    errs: list[EndError] = []
    notes: list[Finding] = []
    cage = end.cage
    for v in plug_fits_cage(plug, cage):
        code = fit_code(v.code, plug, cage)
        if v.severity != "error":
            fact, attr = UNKNOWN_FACTS.get(v.code, ("lane rate", "lane_rate_gbps"))
            who = [label] if getattr(plug, attr) in (None, "", "none") else []
            if getattr(cage, attr) in (None, "", "none"):
                who.append(f"the {end.slug} cage")
            notes.append(Finding(code, unknown(fact, who)))
            continue
        errs.append((code, f"{label} in the {end.label}: {v.message}"))
    # Host cages carry no protocol in compat; the link's protocol is the switch's.
    link_protocols = g.link_protocols()
    host = not end.is_switch and plug.protocols and link_protocols
    if host and not (plug.protocols & link_protocols):
        errs.append(
            (
                "protocol-mismatch",
                f"{label} in the {end.label}: the plug speaks "
                f"{', '.join(sorted(plug.protocols))}; the link runs "
                f"{', '.join(sorted(link_protocols))} (rule 17).",
            )
        )
    if plug.kind == "transceiver" and part is not None:
        errs.extend(_plug_lanes(end, plug, label))
        if plug.power_max_w is None and cage.max_module_power_w is not None:
            notes.append(
                Finding(
                    "module-power-unknown",
                    unknown(
                        f"max power (the {end.slug} cage allows {cage.max_module_power_w:g} W)",
                        [label],
                    ),
                )
            )
    return errs, notes


def _plug_lanes(end: End, plug: Plug, label: str) -> list[EndError]:
    """Rule 22 at one end: the plug's lanes must match the cage's at the same speed."""
    group = end.group
    if group is None or not (group.lanes_per_port and group.port_speed_gbps):
        return []
    cage_lanes = group.lanes_per_port * (group.ports_per_cage or 1)
    cage_speed = group.port_speed_gbps * (group.ports_per_cage or 1)
    downshift = (  # a host cage runs the plug's slower lanes (rule 22), OSFP: up to 8
        not end.is_switch
        and plug.lanes
        and plug.lanes > cage_lanes
        and plug.lanes <= 8
        and str(end.cage.form_factor or "").startswith("OSFP")
    )
    if plug.lanes and plug.speed_gbps == cage_speed and plug.lanes != cage_lanes and not downshift:
        return [
            (
                "lane-structure-mismatch",
                f"{label} carries {plug.speed_gbps}G on {plug.lanes} lanes; the {end.label} "
                f"runs it on {cage_lanes} x {group.lane_rate_gbps}G (rule 22).",
            )
        ]
    return []
