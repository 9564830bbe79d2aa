"""Optics across a link: the two modules pair (rules 6, 9, 10, 13, 17, 23, 24, as
:func:`inventory.library.compat.optics_interoperate` decides), the fiber suits them
(9, 10, 24, :func:`~inventory.library.compat.fiber_fits_optic`) and splitter legs run at half
the twin-port's port speed (7)."""

from __future__ import annotations

from collections.abc import Iterator

from inventory.library.compat import fiber_fits_optic, optics_interoperate
from planner.analyses.validate.context import Context, Finding, LinkGroup, unknown
from planner.analyses.validate.parts import connector_code, lanes_per_connector, port_speed_gbps
from planner.analyses.validate.registry import register
from planner.analyses.validate.suggest import suggest_fibers, suggest_modules
from planner.domain.part_facts import fiber_of, optic_of, port_speeds_of

OPTIC_CODES = {  # compat's interoperability codes -> ours
    "media-mismatch": "media-mismatch",
    "pmd-mismatch": "pmd-mismatch",
    "lane-rate-mismatch": "optics-lane-rate-mismatch",
    "speed-mismatch": "port-speed-mismatch",
    "wavelength-mismatch": "wavelength-mismatch",
    "protocol-mismatch": "optics-protocol-mismatch",
    "media-unknown": "media-unknown",
    "lane-rate-unknown": "lane-rate-unknown",
}


@register(
    stage="group",
    order=220,
    codes=(
        "port-speed-mismatch",
        "twin-port-pairing",
        "media-mismatch",
        "pmd-mismatch",
        "wavelength-mismatch",
        "media-unknown",
        "polish-mismatch",
        "optics-lane-rate-mismatch",
        "optics-protocol-mismatch",
        "twin-port-vs-single-phy",
        "single-phy-unverified",
        "connector-mismatch",
    ),
    shares=("lane-rate-unknown",),
    media=("optics",),
)
def module_pairs(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """The module at each end of a link interoperates with the other."""
    a_part, b_part = g.a_part, g.b_part
    if not (a_part and b_part):
        return
    oa, ob = optic_of(a_part), optic_of(b_part)
    pair = f"{g.b_slug} ({g.b.role} end) with {g.a_slug} ({g.a.role} end)"
    suggestion = ""
    for v in optics_interoperate(ob, oa):
        if v.code == "connector-mismatch":
            code = connector_code(ob.connector, oa.connector)
        else:
            code = OPTIC_CODES.get(v.code, "media-mismatch")
        if v.severity != "error":
            attr = "media" if v.code == "media-unknown" else "lane_rate_gbps"
            fact = "media" if attr == "media" else "lane rate"
            who = [s for s, p in ((g.b_slug, b_part), (g.a_slug, a_part)) if not p.get(attr)]
            yield Finding(code, unknown(fact, who))
            continue
        suggestion = suggestion or suggest_modules(ctx, g, g.a, b_part)
        yield Finding(code, f"{pair}: {v.message}", suggestion)
    straight = g.cable is not None and g.cable.get("topology") == "straight"
    la, lb = lanes_per_connector(a_part), lanes_per_connector(b_part)
    if straight and la and lb and la != lb:
        yield Finding(
            "twin-port-pairing",
            f"{pair}: {lb} lanes per port at one end, {la} at the other over a straight "
            "fiber; a twin-port 2xDR4/2xSR4 port feeds one 4-lane 400G DR4/SR4 "
            "module (rule 6)",
            suggest_modules(ctx, g, g.a, b_part),
        )
    yield from _single_phy(ctx, g)


def _single_phy(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 23: an NVIDIA twin-port (two 4-lane engines) against a single 800G PHY."""
    for twin_slug, twin, peer_slug, peer in (
        (g.b_slug, g.b_part, g.a_slug, g.a_part),
        (g.a_slug, g.a_part, g.b_slug, g.b_part),
    ):
        is_twin = (twin.get("ports_per_module") or 1) == 2 or (
            (twin.get("pmd") or "").lower().startswith("2x")
        )
        pmd = (peer.get("pmd") or "").upper()
        single = (peer.get("ports_per_module") or 1) != 2 and pmd[:3] in ("SR8", "VR8", "DR8")
        if not (is_twin and single and (peer.get("speed_gbps") or 0) >= 800):
            continue
        if "2x400G" in (peer.get("breakouts") or ()):
            continue
        if peer.get("connector_count") == 1 or (peer.get("connector") or "").startswith("mpo16"):
            yield Finding(
                "twin-port-vs-single-phy",
                f"{twin_slug} is a twin-port (two 4-lane MPO-12 engines); {peer_slug} is "
                f"one 8-lane {pmd} PHY on one connector: they do not pair (rule 23)",
                suggest_modules(ctx, g, g.a if peer is g.a_part else g.b, twin),
            )
        else:
            yield Finding(
                "single-phy-unverified",
                unknown(f"whether {pmd} runs as 2 x 400G (rule 23)", [peer_slug]),
            )
        return


@register(
    stage="group",
    order=230,
    codes=("fiber-media-mismatch", "fiber-grade-mismatch", "fiber-unknown"),
    shares=("connector-mismatch", "polish-mismatch"),
    media=("optics",),
)
def fibers(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """The fiber suits the modules at both ends: media, grade and connectors."""
    if g.cable is None:
        return
    fib = fiber_of(g.cable)
    suggestion = ""
    for slug, part in ((g.b_slug, g.b_part), (g.a_slug, g.a_part)):
        if part is None:
            continue
        optic = optic_of(part)
        for v in fiber_fits_optic(fib, optic):
            if v.severity != "error":
                who = []
                if not (fib.fiber_type and fib.connector_a):
                    who.append(g.cable_slug)
                if not (optic.media and optic.connector):
                    who.append(slug)
                yield Finding("fiber-unknown", unknown("fiber type or connector", who))
                continue
            if v.code == "connector-mismatch":
                ends = [c for c in (fib.connector_a, fib.connector_b) if c]
                family = optic.connector.partition("-")[0]
                same = [c for c in ends if c.partition("-")[0] == family]
                code = connector_code(optic.connector, (same or ends)[0])
            else:
                code = v.code
            suggestion = suggestion or suggest_fibers(ctx, g)
            yield Finding(code, f"{g.cable_slug} with {slug}: {v.message}", suggestion)


@register(
    stage="group",
    order=235,
    codes=("splitter-leg-speed", "splitter-mode-unsupported"),
    media=("optics",),
)
def splitter_legs(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 7: a 1:2 splitter leg carries half the lanes of the twin-port's port."""
    topology = (g.cable or {}).get("topology")
    if not (topology and topology.startswith("1:") and g.b_part is not None):
        return
    twin, slug = g.b_part, g.b_slug
    port = port_speed_gbps(twin)
    if port and g.speed * 2 != port:
        yield Finding(
            "splitter-leg-speed",
            f"{g.cable_slug} splits each {port}G port of {slug} into 2 legs of "
            f"{port // 2}G; the link runs {g.speed}G (rule 7)",
            suggest_fibers(ctx, g, topology="straight"),
        )
        return
    speeds = port_speeds_of(twin)
    if twin.get("breakouts") and g.speed not in speeds:
        yield Finding(
            "splitter-mode-unsupported",
            f"{slug} lists {', '.join(twin['breakouts'])}, not the {g.speed}G legs of "
            f"{g.cable_slug} (rule 7)",
        )
    elif not twin.get("breakouts"):
        yield Finding(
            "splitter-mode-unsupported",
            unknown(f"a 4 x {g.speed}G mode (rule 7)", [slug]),
            severity="warning",
        )
