"""Host rules: protocols (rule 17), NIC limits (18), LPO hosts (25) and host FEC (26).

Two facts have no field in the seed schema and are read only if a catalog record states them:
``lpo_validated`` (bool; on the switch, server or compute-NIC record, rule 25) and
``fec_modes`` (list; same records, rule 26). Without them an LPO module is a warning and a
100G/lane optic's host FEC an info.
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.analyses.validate.context import Context, Finding, LinkGroup, unknown
from planner.analyses.validate.parts import num
from planner.analyses.validate.registry import register
from planner.analyses.validate.suggest import suggest_modules


@register(stage="group", order=100, codes=("device-protocol-mismatch", "compute-nic-unknown"))
def device_protocols(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 17: both devices speak one protocol; a server's compute NIC is known."""
    a, b = g.a, g.b
    pa, pb = a.protocols(), b.protocols()
    if pa and pb and not (pa & pb):
        yield Finding(
            "device-protocol-mismatch",
            f"{a.slug} ({a.role}) speaks {', '.join(sorted(pa))}; {b.slug} ({b.role}) "
            f"speaks {', '.join(sorted(pb))}: a link must be IB-IB or Eth-Eth (rule 17)",
            "use devices of one protocol on both ends",
        )
    if a.role == "server" and a.nic is None and pa is None:
        yield Finding(
            "compute-nic-unknown",
            unknown("compute NIC (its protocols and limits, rules 17-18)", [a.slug]),
            "name the server's compute_nic in the catalog",
        )


@register(stage="group", order=110, codes=("nic-single-port-speed",))
def nic_limits(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 18: a compute NIC that cannot run the link's speed and protocol on one port."""
    a = g.a
    if a.role != "server" or not a.nic:
        return
    link_protocols = g.link_protocols()
    for limit in a.nic.get("limits") or []:
        if limit.get("code") != "no-single-port-speed":
            continue
        protocol, limit_speed = limit.get("protocol"), limit.get("speed_gbps") or 0
        if link_protocols and link_protocols <= {protocol} and g.speed >= limit_speed:
            yield Finding(
                "nic-single-port-speed",
                f"{a.nic['slug']} in {a.slug} at {g.speed}G {protocol}: "
                f"{limit.get('message') or 'not supported on a single port'}",
                f"run {g.speed // 2}G per port (planes: 2), or use InfiniBand",
            )


@register(
    stage="group",
    order=270,
    codes=("lpo-host-unsupported", "lpo-host-unverified"),
    media=("optics",),
)
def lpo_hosts(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 25: a linear (LPO) or linear-receive (LRO) module needs a host validated for it."""
    for slug, part, end in ((g.a_slug, g.a_part, g.a), (g.b_slug, g.b_part, g.b)):
        dsp = (part or {}).get("dsp")
        if dsp not in ("linear", "lro"):
            continue
        kind = "linear (LPO)" if dsp == "linear" else "linear-receive (LRO)"
        stated = end.stated("lpo_validated")
        if stated is False:
            yield Finding(
                "lpo-host-unsupported",
                f"{slug} is a {kind} module; {end.slug} ports are not validated for LPO "
                "(rule 25: the host must supply DSP SerDes and RS(544,514) FEC)",
                suggest_modules(ctx, g, end, g.other_part(end)),
            )
        elif stated is None:
            yield Finding(
                "lpo-host-unverified",
                unknown(f"LPO validation of the ports (host of {kind} {slug})", [end.slug]),
            )


@register(
    stage="group",
    order=280,
    codes=("host-fec-mismatch", "host-fec-unverified", "host-fec-unstated"),
    media=("optics",),
)
def host_fec(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 26: 100G/lane PAM4 optics need the same RS-FEC mode on both hosts."""
    for slug, part in ((g.b_slug, g.b_part), (g.a_slug, g.a_part)):
        if part is None:
            continue
        lane = num(part.get("lane_rate_gbps"))
        if lane is None or lane < 100 or part.get("modulation") not in (None, "PAM4"):
            continue
        fa, fb = g.a.stated("fec_modes"), g.b.stated("fec_modes")
        if fa is not None and fb is not None:
            if not set(fa) & set(fb):
                yield Finding(
                    "host-fec-mismatch",
                    f"{slug}: {g.a.slug} runs FEC {sorted(fa)}, {g.b.slug} {sorted(fb)}; "
                    "both ends must run the same mode (rule 26)",
                )
        elif fa is not None or fb is not None:
            silent = g.a.slug if fa is None else g.b.slug
            yield Finding(
                "host-fec-unverified",
                unknown(f"the FEC mode ({slug} needs host RS-FEC, rule 26)", [silent]),
            )
        else:
            yield Finding(
                "host-fec-unstated",
                f"{slug} ({lane:g}G/lane PAM4) relies on host RS-FEC at both ends; "
                f"{g.b.slug} and {g.a.slug} state no FEC mode (assumed, not verified; "
                "rule 26)",
            )
        return
