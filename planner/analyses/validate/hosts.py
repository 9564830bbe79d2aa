"""Host rules: protocols (rule 17), NIC limits (18), LPO hosts (25) and host FEC (26).

Host facts come from the catalog's switch, server or compute-NIC records: ``lpo_validated``
(bool, rule 25) and ``fec_modes`` (list, rule 26); module facts from the transceiver records:
``dsp`` (linear/lro), ``host_serdes_note`` and ``fec`` (host-kp4 / host-rs544 / in-module).
Where they are stated a conflict is an error; where they are not, an LPO module is a warning
and a 100G/lane optic's host FEC an info.
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
            f"no source in the catalog names the compute NIC of {a.slug}: if you know it, "
            f"edit {a.slug} in the catalog and set its compute NIC (a NIC card, or an on-board "
            "NIC record), or ask a catalog editor to; until then its protocols and NIC limits "
            "(rules 17-18) are not checked",
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
    """Rule 25: a linear (LPO) or linear-receive (LRO) module needs a host validated for it.

    An error where the host's catalog record says its ports are not validated for LPO
    (``lpo_validated: false``); a warning where it says nothing. The module's
    ``host_serdes_note`` (what it needs from the host SerDes) is quoted when the catalog has it.
    """
    for slug, part, end in ((g.a_slug, g.a_part, g.a), (g.b_slug, g.b_part, g.b)):
        dsp = (part or {}).get("dsp")
        if dsp not in ("linear", "lro"):
            continue
        kind = "linear (LPO)" if dsp == "linear" else "linear-receive (LRO)"
        needs = (part or {}).get("host_serdes_note") or (
            "the host must supply DSP SerDes and RS(544,514) FEC"
        )
        stated = end.stated("lpo_validated")
        if stated is False:
            yield Finding(
                "lpo-host-unsupported",
                f"{slug} is a {kind} module; {end.slug} ports are not validated for LPO "
                f"(rule 25: {needs})",
                suggest_modules(ctx, g, end, g.other_part(end)),
            )
        elif stated is None:
            yield Finding(
                "lpo-host-unverified",
                unknown(f"LPO validation of the ports (host of {kind} {slug})", [end.slug]),
            )


#: Module ``fec`` values whose FEC the host runs: both are RS(544,514), "KP4".
HOST_FEC = ("host-kp4", "host-rs544")


def _kp4(mode: str) -> bool:
    """Whether a host FEC mode as a catalog states it is RS(544,514) ("KP4").

    Examples
    --------
    >>> _kp4("RS(544,514)"), _kp4("KP4"), _kp4("RS(528,514)")
    (True, True, False)
    """
    text = "".join(ch for ch in str(mode).lower() if ch.isalnum())
    return "544514" in text or text in ("kp4", "kp4fec", "rs544")


def _host_modes(end) -> list | None:
    """The FEC modes a host states (None: not stated; an empty list states nothing)."""
    modes = end.stated("fec_modes")
    return list(modes) if modes else None


@register(
    stage="group",
    order=280,
    codes=("host-fec-mismatch", "host-fec-unverified", "host-fec-unstated"),
    media=("optics",),
)
def host_fec(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """Rule 26: both ends of a link run one FEC.

    Errors where the facts are known: the two modules state different FEC (one in-module,
    the other the host's RS(544,514)); a module needing the host's RS(544,514) in a host whose
    stated FEC modes lack it; two hosts stating FEC modes with none in common. Otherwise a
    100G/lane PAM4 optic's host FEC is a warning (one host states it) or an info (neither).
    """
    fec_a, fec_b = (g.a_part or {}).get("fec") or None, (g.b_part or {}).get("fec") or None
    if fec_a and fec_b and (fec_a in HOST_FEC) != (fec_b in HOST_FEC):
        yield Finding(
            "host-fec-mismatch",
            f"{g.a_slug} uses {fec_a} FEC, {g.b_slug} {fec_b}: both ends of a link must run "
            "the same FEC (rule 26)",
            "use modules with the same FEC at both ends",
        )
        return
    fa, fb = _host_modes(g.a), _host_modes(g.b)
    for slug, fec, end, modes in ((g.a_slug, fec_a, g.a, fa), (g.b_slug, fec_b, g.b, fb)):
        if fec in HOST_FEC and modes is not None and not any(_kp4(m) for m in modes):
            yield Finding(
                "host-fec-mismatch",
                f"{slug} needs the host's RS(544,514) FEC; {end.slug} runs {sorted(modes)} "
                "(rule 26)",
                suggest_modules(ctx, g, end, g.other_part(end)),
            )
            return
    if fec_a == "in-module" and fec_b == "in-module":
        return  # the modules run their own FEC: the hosts' modes do not meet on the fibre
    for slug, part in ((g.b_slug, g.b_part), (g.a_slug, g.a_part)):
        if part is None:
            continue
        lane = num(part.get("lane_rate_gbps"))
        if lane is None or lane < 100 or part.get("modulation") not in (None, "PAM4"):
            continue
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
