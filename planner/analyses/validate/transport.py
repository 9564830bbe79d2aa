"""The fabric's transport (issue 20): RoCE lossless settings and InfiniBand routing, checked
against the design's parts, speeds and run lengths.

The settings are ``fabric.settings.transport`` (:mod:`planner.domain.transport`); a fabric built
before transports were part of a design gets its defaults
(:func:`planner.domain.transport.resolve.transport_or_default`). A RoCE check never runs on an
InfiniBand design and an InfiniBand check never on a RoCE one: rule ``transport``, scopes
``roce`` and ``infiniband`` (:data:`~planner.analyses.rules_catalog.RULES`).

RoCE checks (:func:`roce_headroom`, :func:`roce_consistency`, :func:`roce_adaptive_routing`,
:func:`roce_multiplane`):

- **PFC headroom**: every port of a switch is a lossless port (RoCE runs on every compute link);
  its headroom is the switch vendor's per-port figure for the link's speed and run length
  (:mod:`planner.domain.transport.headroom`: SONiC's ``pg_profile_lookup.ini`` per Spectrum
  platform, ``xon + xoff``) for the one lossless priority. Summed per switch, more than the
  switch's catalog packet buffer (``buffer_mb``) is ``pfc-headroom-exceeded``; a switch model
  without a buffer figure is ``pfc-buffer-unknown`` (computed, not compared); a switch whose
  vendor table the planner lacks is ``pfc-headroom-unpublished`` (the ConnectX formula is the
  NIC's, never put on a switch port); a run past the table's longest cable length is
  ``pfc-headroom-unlisted``; a link without a run length is ``pfc-length-unknown`` (left out
  of the sum); a run over :data:`LONG_RUN_M` at 400G or more is ``pfc-long-run``. Only in
  ``lossless`` mode (semi-lossless switches send no pause, lossy ones none at all);
- **priority and DSCP** end to end: each server model's NIC (:class:`~planner.domain.transport.
  settings.NicQos`) marks data and CNPs with what the switches expect (lossless priority and
  DSCP, CNP priority and DSCP, trust mode): a mixed fleet (Gaudi 3 data on priority 2 beside
  NVIDIA on 3) is caught per server model;
- **ECN**: min below max, max within every switch's buffer; **MTU**: the two ends of every
  link at one MTU; **PFC watchdog** on in lossless mode; settings the checks need but no
  profile gave (``transport-setting-blank``);
- **adaptive routing / packet spraying**: every server's NIC can reorder (BlueField-3
  SuperNIC, ConnectX-8, ConnectX-9); a server with several links to one leaf is told AR does
  not run on a bond;
- **multiplane** (``swplb``/``hwplb``): planes x plane speed = the NIC port's speed, every
  GPU's NIC in every plane, the NIC supports the mode.

InfiniBand checks (:func:`infiniband_routing`): the subnet manager's routing engine fits the
topology (every topology the planner builds is a tree: ``ar_updn``, ``updn``, ``ftree``,
``ar_ftree``, ``pqft``; ``dfp`` is for Dragonfly+), and SHARP only on switches that run it.

Everything is NumPy over the link and node columns: the 100,000-GPU fabric's 300,000 links
are summed with ``bincount``.
"""

from __future__ import annotations

import numpy as np

from planner.analyses.validate.context import Context
from planner.analyses.validate.registry import register
from planner.domain.fabric import ROLE, ROLES, SWITCH_ROLES, TIER
from planner.domain.transport.headroom import headroom_table
from planner.domain.transport.resolve import (
    SHARP_ASICS,
    nic_of_server,
    transport_or_default,
)
from planner.domain.transport.settings import (
    TransportSettings,
    default_nic,
    nic_profile_for,
)

#: A run this long at 400G or more is pointed out (next-wave.md §3.5: "flag long runs at
#: 400/800G (e.g. > 100 m)"; inferred threshold).
LONG_RUN_M = 100.0
LONG_RUN_GBPS = 400
#: Routing engines for the trees the planner builds (fat-tree, Clos, rail-optimized): UFM's
#: UPDN and Fat Tree / PQFT, opensm's default ar_updn, SHARP's "tree based topologies: updn,
#: ar_updn, ftree, ar_ftree".
TREE_ENGINES = ("ar_updn", "updn", "ftree", "ar_ftree", "pqft")
_MB = 1e6
_SETTINGS = "transport-settings"


def _settings(ctx: Context) -> TransportSettings | None:
    """The fabric's transport settings (once per run), or None for a fabric without
    switches."""
    if _SETTINGS not in ctx.memo:
        fabric = ctx.fabric
        switches = np.isin(fabric.node_role, [ROLE[r] for r in SWITCH_ROLES])
        settings = None
        if switches.any() and fabric.node_count:
            try:
                settings = transport_or_default(fabric, ctx.facts)
            except ValueError:  # an old revision whose parts no longer resolve
                settings = None
        ctx.memo[_SETTINGS] = settings
        if settings is not None:
            ctx.scopes.add("roce" if settings.transport == "roce" else "infiniband")
    return ctx.memo[_SETTINGS]


def _roce(ctx: Context):
    settings = _settings(ctx)
    return settings.roce if settings is not None and settings.transport == "roce" else None


def _switch_mask(fabric) -> np.ndarray:
    return np.isin(fabric.node_role, [ROLE[r] for r in SWITCH_ROLES])


def _nodes_of_model(fabric, slug: str, role: str | None = None) -> np.ndarray:
    index = fabric.models.index(slug)
    mask = fabric.node_model == index
    if role is not None:
        mask &= fabric.node_role == ROLE[role]
    return np.flatnonzero(mask)


def _kb(value_b: float) -> str:
    return f"{value_b / 1024:,.0f} KiB"


def _mb(value_b: float) -> str:
    return f"{value_b / _MB:,.1f} MB"


def _lengths(fabric) -> np.ndarray:
    if fabric.link_length_m is None:
        return np.full(fabric.link_count, np.nan)
    return np.asarray(fabric.link_length_m, dtype=float)


def _role_mtu(roce) -> np.ndarray:
    """MTU per role code (NaN where blank)."""
    return np.array(
        [np.nan if roce.mtu_of(role) is None else float(roce.mtu_of(role)) for role in ROLES]
    )


def _model_buffers_b(ctx: Context) -> np.ndarray:
    """Packet buffer per model index, in bytes (NaN: not in the catalog)."""
    out = np.full(len(ctx.fabric.models), np.nan)
    for i, slug in enumerate(ctx.fabric.models):
        value = (ctx.facts.parts.get(slug) or {}).get("buffer_mb")
        if isinstance(value, int | float) and value > 0:
            out[i] = float(value) * _MB
    return out


def _bigger_buffers(ctx: Context, need_b: float) -> str:
    """Ethernet switches of the catalog whose buffer holds ``need_b`` bytes (up to 3)."""
    found = []
    seen = set()
    for slug in sorted(ctx.facts.parts):
        part = ctx.facts.parts[slug]
        if part.get("category") != "switch" or part.get("slug", slug) in seen:
            continue
        seen.add(part.get("slug", slug))
        value = part.get("buffer_mb")
        ethernet = "ethernet" in (part.get("protocols") or ())
        if isinstance(value, int | float) and value * _MB >= need_b and ethernet:
            found.append((float(value), part.get("slug", slug)))
    found.sort()
    return ", ".join(f"{slug} ({value:,g} MB)" for value, slug in found[:3])


# --- RoCE: PFC headroom -------------------------------------------------------------------------


@register(
    stage="fabric",
    order=960,
    codes=(
        "pfc-headroom-exceeded",
        "pfc-buffer-unknown",
        "pfc-length-unknown",
        "pfc-long-run",
        "pfc-headroom-unpublished",
        "pfc-headroom-unlisted",
    ),
)
def roce_headroom(ctx: Context) -> None:
    """PFC headroom per lossless switch port from the switch vendor's table, summed per switch
    against its buffer.

    Long because: per switch, per lossless port: the vendor's headroom table lookup, then the sum
    against the buffer, one loop with the unknowns reported as it goes.
    """
    roce = _roce(ctx)
    if roce is None or roce.pfc_mode != "lossless":
        return
    fabric = ctx.fabric
    mtu_by_role = _role_mtu(roce)
    if np.isnan(mtu_by_role[[ROLE[r] for r in SWITCH_ROLES]]).all():
        return  # no MTU: transport-setting-blank says so
    switch = _switch_mask(fabric)
    a, b, valid = fabric.link_a, fabric.link_b, ctx.valid
    speed = fabric.link_speed_gbps.astype(float)
    length = _lengths(fabric)
    known = valid & np.isfinite(length)
    unknown = (
        valid
        & ~np.isfinite(length)
        & (switch[np.where(valid, a, 0)] | switch[np.where(valid, b, 0)])
    )
    if unknown.any():
        ctx.out.add(
            "pfc-length-unknown",
            "no run length for these lossless links: their PFC headroom (which grows with "
            "the cable length) is left out of their switches' sums",
            links=np.flatnonzero(unknown),
            suggestion="lay the design out in racks (or give the links a length) so that the "
            "headroom of every lossless port is counted",
        )
    need = np.zeros(fabric.node_count)
    per_end = {}
    unpublished: dict[str, list[np.ndarray]] = {}
    unlisted = np.zeros(fabric.link_count, dtype=bool)
    tables = {int(m): headroom_table(fabric.models[int(m)]) for m in np.unique(fabric.node_model)}
    for end, nodes in (("a", a), ("b", b)):
        at_switch = known & switch[np.where(valid, nodes, 0)]
        model = fabric.node_model[np.where(valid, nodes, 0)]
        headroom = np.full(fabric.link_count, np.nan)
        for m, table in tables.items():
            rows = at_switch & (model == m)
            if not rows.any():
                continue
            if table is None:
                unpublished.setdefault(fabric.models[m], []).append(nodes[rows])
                continue
            headroom[rows] = table.headroom_bytes(speed[rows], length[rows])
            unlisted |= rows & np.isnan(headroom)
        use = at_switch & np.isfinite(headroom)
        per_end[end] = np.where(use, headroom, 0.0)
        need += np.bincount(nodes[use], weights=headroom[use], minlength=fabric.node_count)
    for slug, parts in sorted(unpublished.items()):
        ctx.out.add(
            "pfc-headroom-unpublished",
            f"{slug}: no per-port lossless headroom from its vendor in the planner (by speed "
            "and cable length, as SONiC's pg_profile_lookup.ini gives for Spectrum switches); "
            "its headroom is not summed (the ConnectX formula applies to NIC ports only)",
            nodes=np.unique(np.concatenate(parts)),
            suggestion=f"size {slug}'s PFC headroom from its vendor's buffer documentation",
        )
    if unlisted.any():
        ctx.out.add(
            "pfc-headroom-unlisted",
            "these lossless runs are longer than the longest cable length (or at a speed) the "
            "switch vendor's headroom table lists: left out of their switches' sums",
            links=np.flatnonzero(unlisted),
            suggestion="shorten these runs, or keep them off the lossless class",
        )
    long_run = known & (speed >= LONG_RUN_GBPS) & (np.nan_to_num(length) > LONG_RUN_M)
    if long_run.any():
        worst = int(np.flatnonzero(long_run)[np.argmax(length[long_run])])
        port_b = max(per_end["a"][worst], per_end["b"][worst])
        needs = (
            f" needs {_kb(port_b)} of PFC headroom at its switch port, from the vendor's table"
            if port_b > 0
            else ""
        )
        ctx.out.add(
            "pfc-long-run",
            f"lossless links at {LONG_RUN_GBPS}G or more run over {LONG_RUN_M:g} m (longest "
            f"{length[worst]:,.0f} m at {int(speed[worst])}G{needs})",
            links=np.flatnonzero(long_run),
            suggestion="place these devices closer, or keep them off the lossless class",
        )
    buffers = _model_buffers_b(ctx)
    node_buffer = buffers[fabric.node_model]
    for model in np.unique(fabric.node_model[switch & (need > 0)]):
        slug = fabric.models[int(model)]
        nodes = np.flatnonzero(switch & (fabric.node_model == model) & (need > 0))
        worst = float(need[nodes].max())
        if np.isnan(buffers[int(model)]):
            ctx.out.add(
                "pfc-buffer-unknown",
                f"{slug}: PFC headroom up to {_mb(worst)} per switch (its vendor's table), not "
                "compared: its packet buffer is not in the catalog",
                nodes=nodes,
                suggestion=f"add {slug}'s packet buffer (buffer_mb, with its source) to the "
                "catalog",
            )
            continue
        over = nodes[need[nodes] > node_buffer[nodes]]
        if over.size:
            worst_over = float(need[over].max())
            bigger = _bigger_buffers(ctx, worst_over)
            ctx.out.add(
                "pfc-headroom-exceeded",
                f"{slug}: the PFC headroom of its lossless ports adds up to {_mb(worst_over)}, "
                f"more than its {_mb(buffers[int(model)])} packet buffer (priority "
                f"{roce.lossless_priority}, headroom per port from the vendor's table by speed "
                "and cable length)",
                nodes=over,
                example=fabric.node_name[int(over[np.argmax(need[over])])],
                suggestion="shorten the longest runs"
                + (f", or choose a switch with a larger buffer: {bigger}" if bigger else ""),
            )


# --- RoCE: priorities, ECN, MTU, watchdog --------------------------------------------------------


def _server_nics(ctx: Context, roce) -> list[tuple[str, str, object, np.ndarray]]:
    """(server model, NIC key, NicQos, server nodes) for every server model of the fabric."""
    key = "transport-server-nics"
    if key not in ctx.memo:
        fabric = ctx.fabric
        out = []
        servers = fabric.node_role == ROLE["server"]
        for model in np.unique(fabric.node_model[servers]):
            slug = fabric.models[int(model)]
            nic_key, name, maker = nic_of_server(ctx.facts, slug)
            qos = roce.nics.get(nic_key) or default_nic(nic_profile_for(maker, name), nic_key, name)
            nodes = np.flatnonzero(servers & (fabric.node_model == model))
            out.append((slug, nic_key, qos, nodes))
        ctx.memo[key] = out
    return ctx.memo[key]


def _nic_label(slug: str, key: str, profile: str) -> str:
    """``DGX-B300 servers (on-board NICs, nvidia-connectx profile)``."""
    nic = "on-board NICs" if key == slug else f"NIC {key}"
    return f"{slug} servers ({nic}, {profile} profile)"


@register(
    stage="fabric",
    order=961,
    codes=(
        "roce-priority-mismatch",
        "roce-cnp-mismatch",
        "roce-trust-mismatch",
        "roce-ecn-thresholds",
        "roce-mtu-mismatch",
        "roce-pfc-watchdog-off",
        "transport-setting-blank",
    ),
)
def roce_consistency(ctx: Context) -> None:
    """NIC and switch agree on priorities, DSCP and trust; ECN, MTU and watchdog are sane.

    Long because: a list of independent checks (priorities, DSCP, trust, ECN, MTU, watchdog), each a
    few lines with its own message.
    """
    roce = _roce(ctx)
    if roce is None:
        return
    fabric = ctx.fabric
    switch = _switch_mask(fabric)
    switches = np.flatnonzero(switch)
    blank = [
        name
        for name in ("lossless_priority", "cnp_priority", "cnp_dscp", "trust")
        if getattr(roce, name) is None
    ]
    if not roce.lossless_dscp:
        blank.insert(1, "lossless_dscp")
    if any(roce.mtu_of(role) is None for role in ("server", *SWITCH_ROLES)):
        blank.append("mtu_b")
    blank += [n for n in ("ecn_min_kb", "ecn_max_kb") if getattr(roce, n) is None]
    if blank:
        ctx.out.add(
            "transport-setting-blank",
            f"the {roce.profile} profile has no published default for "
            f"{', '.join(blank)}, so what depends on them is not checked",
            nodes=switches,
            suggestion="give them in the spec's transport block: "
            + ", ".join(f"transport.{name}" for name in blank),
        )
    for slug, key, nic, nodes in _server_nics(ctx, roce):
        label = _nic_label(slug, key, nic.profile)
        wrong = []
        if None not in (nic.data_priority, roce.lossless_priority) and (
            nic.data_priority != roce.lossless_priority
        ):
            wrong.append(
                f"send RoCE data on priority {nic.data_priority}, the switches' lossless "
                f"priority is {roce.lossless_priority}"
            )
        if (
            nic.data_dscp is not None
            and roce.lossless_dscp
            and (nic.data_dscp not in roce.lossless_dscp)
        ):
            wrong.append(
                f"mark data DSCP {nic.data_dscp}, which the switches do not map to the "
                f"lossless class (DSCP {', '.join(map(str, roce.lossless_dscp))})"
            )
        if wrong:
            ctx.out.add(
                "roce-priority-mismatch",
                f"{label} " + "; ".join(wrong),
                nodes=nodes,
                suggestion="set the NIC profile and the switch profile to one lossless "
                "priority and DSCP (transport.nics.<NIC>.data_priority / data_dscp, or "
                "transport.lossless_priority / lossless_dscp); a mixed fleet needs the "
                "switches to classify both markings",
            )
        cnp = []
        if None not in (nic.cnp_priority, roce.cnp_priority) and (
            nic.cnp_priority != roce.cnp_priority
        ):
            cnp.append(f"priority {nic.cnp_priority} (the switches expect {roce.cnp_priority})")
        if None not in (nic.cnp_dscp, roce.cnp_dscp) and nic.cnp_dscp != roce.cnp_dscp:
            cnp.append(f"DSCP {nic.cnp_dscp} (the switches expect {roce.cnp_dscp})")
        if cnp:
            ctx.out.add(
                "roce-cnp-mismatch",
                f"{label} send congestion notifications (CNP) with " + " and ".join(cnp),
                nodes=nodes,
                suggestion="align CNP priority and DSCP (transport.nics.<NIC>.cnp_priority / "
                "cnp_dscp or transport.cnp_priority / cnp_dscp); NVIDIA's operator docs give "
                "CNP DSCP 48 in v26.10 and 4 in v26.7",
            )
        if None not in (nic.trust, roce.trust) and nic.trust != roce.trust:
            ctx.out.add(
                "roce-trust-mismatch",
                f"{label} trust {nic.trust.upper()}, the switches {roce.trust.upper()}",
                nodes=nodes,
                suggestion="trust the same field end to end (DSCP for routed RoCEv2)",
            )
    low, high = roce.ecn_min_kb, roce.ecn_max_kb
    if low is not None and high is not None and low >= high:
        ctx.out.add(
            "roce-ecn-thresholds",
            f"ECN minimum threshold {low:,} KB is not below the maximum {high:,} KB",
            nodes=switches,
            suggestion="set transport.ecn_min_kb below transport.ecn_max_kb (Spectrum "
            "default 150 / 1,500 KB)",
        )
    if high is not None:
        buffers = _model_buffers_b(ctx)
        for model in np.unique(fabric.node_model[switch]):
            limit = buffers[int(model)]
            if np.isfinite(limit) and high * 1000 > limit:
                ctx.out.add(
                    "roce-ecn-thresholds",
                    f"ECN maximum threshold {high:,} KB is above the "
                    f"{_mb(limit)} packet buffer of {fabric.models[int(model)]}",
                    nodes=np.flatnonzero(switch & (fabric.node_model == model)),
                    suggestion="lower transport.ecn_max_kb below the switch buffer",
                )
    mtu = _role_mtu(roce)
    valid = ctx.valid
    a, b = np.where(valid, fabric.link_a, 0), np.where(valid, fabric.link_b, 0)
    mtu_a, mtu_b = mtu[fabric.node_role[a]], mtu[fabric.node_role[b]]
    differ = valid & np.isfinite(mtu_a) & np.isfinite(mtu_b) & (mtu_a != mtu_b)
    if differ.any():
        first = int(np.flatnonzero(differ)[0])
        end_a, end_b = ROLES[fabric.node_role[a[first]]], ROLES[fabric.node_role[b[first]]]
        ctx.out.add(
            "roce-mtu-mismatch",
            f"the two ends of these links run different MTUs (e.g. {end_a} "
            f"{mtu_a[first]:,.0f} B, {end_b} {mtu_b[first]:,.0f} B): "
            "larger frames are dropped on the way",
            links=np.flatnonzero(differ),
            suggestion="give every port on the path one MTU (transport.mtu_b; "
            "transport.mtu_by_role only where the path still agrees)",
        )
    if roce.pfc_mode == "lossless" and not roce.pfc_watchdog:
        ctx.out.add(
            "roce-pfc-watchdog-off",
            "PFC is on without the PFC watchdog: a stuck receiver can pause the fabric "
            "indefinitely",
            nodes=switches,
            suggestion="set transport.pfc_watchdog: true",
        )


# --- RoCE: adaptive routing and multiplane -------------------------------------------------------


@register(stage="fabric", order=962, codes=("ar-nic-unsupported", "ar-on-bond"))
def roce_adaptive_routing(ctx: Context) -> None:
    """Adaptive routing or spraying: every endpoint's NIC reorders; not on bonds."""
    roce = _roce(ctx)
    if roce is None or roce.load_balancing not in ("adaptive", "spraying"):
        return
    fabric = ctx.fabric
    for slug, key, nic, nodes in _server_nics(ctx, roce):
        if nic.adaptive_routing:
            continue
        unknown = nic.adaptive_routing is None
        ctx.out.add(
            "ar-nic-unsupported",
            f"{_nic_label(slug, key, nic.profile)}: "
            + (
                "whether its NIC reorders packets for adaptive routing is not known"
                if unknown
                else "its NIC cannot reorder the out-of-order packets that "
                f"{roce.load_balancing} load balancing delivers (BlueField-3 SuperNIC, "
                "ConnectX-8 or ConnectX-9 can)"
            ),
            severity="warning" if unknown else None,
            nodes=nodes,
            suggestion="use AR-capable NICs on every endpoint, or set "
            "transport.load_balancing: ecmp (or flowlet, which works with any RoCEv2 NIC)",
        )
    valid = ctx.valid & (fabric.link_tier == TIER["server-leaf"])
    a, b = fabric.link_a[valid], fabric.link_b[valid]
    if a.size:
        pairs, counts = np.unique(a.astype(np.int64) * fabric.node_count + b, return_counts=True)
        bonded = np.unique(pairs[counts > 1] // fabric.node_count)
        if bonded.size:
            ctx.out.add(
                "ar-on-bond",
                "these servers have several links to one leaf: adaptive routing does not run "
                "on a bond or its members, so keep each as its own routed interface",
                nodes=bonded,
                suggestion="do not bond these ports (NVIDIA Cumulus Linux: adaptive routing "
                "is not supported on bonds or bond members)",
            )


@register(
    stage="fabric",
    order=963,
    codes=(
        "multiplane-mode-unsupported",
        "multiplane-speed-mismatch",
        "multiplane-gpu-missing",
        "multiplane-single-plane",
    ),
)
def roce_multiplane(ctx: Context) -> None:
    """Spectrum-X multiplane: planes x plane speed = NIC speed, every GPU in every plane, the
    NIC supports the mode."""
    roce = _roce(ctx)
    if roce is None or roce.multiplane_mode in (None, "none"):
        return
    fabric = ctx.fabric
    mode = roce.multiplane_mode
    down = ctx.valid & (fabric.link_tier == TIER["server-leaf"])
    planes = np.unique(fabric.link_plane[down]) if down.any() else np.zeros(0)
    servers_all = np.flatnonzero(fabric.node_role == ROLE["server"])
    if planes.size < 2:
        ctx.out.add(
            "multiplane-single-plane",
            f"multiplane mode {mode} on a fabric with {planes.size} plane",
            nodes=servers_all,
            suggestion="build the fabric with planes: 2 (or 4), or set "
            "transport.multiplane_mode: none",
        )
    a = fabric.link_a[down]
    ppc = np.maximum(fabric.node_ports_per_cage[a].astype(np.int64), 1)
    cage = fabric.link_a_port[down].astype(np.int64) // ppc
    for slug, key, nic, nodes in _server_nics(ctx, roce):
        label = _nic_label(slug, key, nic.profile)
        if mode not in nic.multiplane_modes:
            ctx.out.add(
                "multiplane-mode-unsupported",
                f"{label}: its NIC does not support multiplane mode {mode} "
                f"(it supports {', '.join(nic.multiplane_modes)})",
                nodes=nodes,
                suggestion="hwplb needs ConnectX-8 or ConnectX-9; choose such a NIC or set "
                "transport.multiplane_mode: swplb",
            )
        mine = np.isin(a, nodes)
        if not mine.any() or planes.size < 2:
            continue
        device = ctx.facts.devices.get(slug)
        nic_speed = device.port_speed_gbps if device is not None else None
        plane_speed = int(np.max(fabric.link_speed_gbps[down][mine]))
        if nic_speed and planes.size * plane_speed != nic_speed:
            ctx.out.add(
                "multiplane-speed-mismatch",
                f"{label}: {planes.size} planes x {plane_speed}G = "
                f"{planes.size * plane_speed:,}G, but its NIC port runs {nic_speed:,}G",
                nodes=nodes,
                suggestion="split each NIC port into as many plane links as it has lanes "
                "for (e.g. an 800G ConnectX-8 port as 2 x 400G on 2 planes)",
            )
        # every GPU's NIC (one cage per GPU) has a link in every plane
        key_of = (a[mine].astype(np.int64) * 4096 + cage[mine]) * 256
        seen = np.unique(key_of + fabric.link_plane[down][mine].astype(np.int64))
        per_nic, counts = np.unique(seen // 256, return_counts=True)
        short = np.unique(per_nic[counts < planes.size] // 4096)
        if short.size:
            ctx.out.add(
                "multiplane-gpu-missing",
                f"{label}: some GPUs' NICs do not reach every one of the {planes.size} planes",
                nodes=short,
                suggestion="give every NIC port one link into each plane",
            )


# --- InfiniBand ----------------------------------------------------------------------------------


@register(stage="fabric", order=964, codes=("ib-routing-engine-topology", "ib-sharp-unsupported"))
def infiniband_routing(ctx: Context) -> None:
    """The routing engine fits the topology; SHARP only where the switches run it."""
    settings = _settings(ctx)
    if settings is None or settings.transport != "infiniband" or settings.infiniband is None:
        return
    ib = settings.infiniband
    fabric = ctx.fabric
    switch = _switch_mask(fabric)
    switches = np.flatnonzero(switch)
    topology = str((fabric.info or {}).get("topology") or "tree")
    engine = ib.routing_engine
    if engine == "dfp":
        ctx.out.add(
            "ib-routing-engine-topology",
            f"routing engine dfp is for Dragonfly+ topologies; this {topology} fabric is a tree",
            nodes=switches,
            suggestion="use ar_updn (the opensm default) or ftree: NVIDIA SHARP's setup guide "
            "lists updn, ar_updn, ftree and ar_ftree for trees, dfp for Dragonfly+",
        )
    elif engine not in TREE_ENGINES:
        ctx.out.add(
            "ib-routing-engine-topology",
            f"routing engine {engine} on a {topology} fabric: the tree engines (ar_updn, "
            "updn, ftree, ar_ftree, pqft) route it without credit loops and with adaptive "
            "routing groups",
            severity="warning",
            nodes=switches,
            suggestion="use ar_updn (the opensm default) or ftree",
        )
    if ib.sharp:
        for model in np.unique(fabric.node_model[switch]):
            slug = fabric.models[int(model)]
            asic = (ctx.facts.parts.get(slug) or {}).get("asic")
            if asic not in SHARP_ASICS:
                ctx.out.add(
                    "ib-sharp-unsupported",
                    f"SHARP is on, but {slug} ({asic or 'ASIC not in the catalog'}) is not a "
                    "Quantum, Quantum-2 or Quantum-3 switch",
                    severity=None if asic else "warning",
                    nodes=np.flatnonzero(switch & (fabric.node_model == model)),
                    suggestion="set transport.sharp: false, or use Quantum-2 / Quantum-3 switches",
                )


__all__ = [
    "LONG_RUN_GBPS",
    "LONG_RUN_M",
    "TREE_ENGINES",
    "infiniband_routing",
    "roce_adaptive_routing",
    "roce_consistency",
    "roce_headroom",
    "roce_multiplane",
]
