"""NVIDIA Cumulus Linux (NVUE) rendering of the day-0 intent: ``nv set`` commands per switch.

The commands are NVUE's documented ones (Cumulus Linux 5.14 user guide):

- RoCE mode: ``nv set qos roce mode lossless`` / ``lossy`` ("RDMA over Converged Ethernet -
  RoCE", https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE/).
  Its defaults are NVIDIA's RoCE profile: switch priority 3 -> traffic class 3 (RoCE, PFC),
  6 -> 6 (CNP, strict), ECN on TC3 at 150,000 / 1,500,000 bytes. The same page's "Change RoCE
  Configuration" moves the lossless priority with ``nv set qos pfc default-global
  switch-priority``, ``nv set qos egress-queue-mapping default-global switch-priority <p>
  traffic-class 3`` and ``nv set qos mapping default-global dscp <d> switch-priority <p>``:
  the RoCE and CNP traffic classes stay 3 and 6, their switch priorities follow the design.
- Classification, PFC, PFC watchdog, ECN ("Quality of Service",
  https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/):
  ``nv set qos mapping default-global trust l3`` (DSCP) or ``l2`` (PCP), ``... dscp 22
  switch-priority 4``; ``nv set qos pfc default-global cable-length 50`` (the headroom's cable
  length, metres), ``... tx disable`` (semi-lossless: the switch honours pause frames but does
  not send them, Onyx's "pause rx compliant, no pause propagation"); ``nv set interface swp1 qos
  pfc-watchdog``; ``nv set qos congestion-control default-global traffic-class 3
  min-threshold 150000`` (bytes).
- Interfaces ("Switch Port Attributes"): ``nv set interface swp1 link breakout 2x`` (then
  ``swp1s0``, ``swp1s1``), ``nv set interface swp1 link mtu 9216``, ``nv set interface swp1
  description ...``.
- Adaptive routing (NVUE reference, https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/Adaptive-Routing/):
  ``nv set router adaptive-routing enable on`` and ``nv set interface swp51 router
  adaptive-routing enable on`` on the ports of one ECMP route: the switch-to-switch ports.

PFC headroom: NVUE sizes it from one cable length per profile; the ``default-global`` profile
gets the longest cable of the switch (whole metres, rounded up), so no port is short of
headroom (ports on shorter cables reserve a little more than they need). A switch none of whose
cables has a length keeps NVUE's default.

Each switch is one section, opened by ``# ---- switch <name> ...`` and closed by
``nv config apply``; run a section on its switch (``csplit`` on the marker splits the file).
Only NVIDIA Ethernet switches with one port per cage are rendered (Cumulus Linux runs on
NVIDIA Spectrum switches); the header lists the others.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from planner.domain.outputs.config.intent import FabricIntent, SwitchIntent, is_lossless
from planner.domain.outputs.config.text import safe_comment, safe_text, shown, whole_metres

#: NVIDIA's RoCE profile keeps RoCE in traffic class 3 and CNP in 6 (see the module docstring).
ROCE_TC = 3
CNP_TC = 6
MARKER = "# ---- switch "


def swp_ranges(cages: list[int]) -> str:
    """Front-panel ports as NVUE writes a set of them (``swp1-4,swp6``, the QoS guide's form).

    >>> swp_ranges([1, 2, 3, 4, 6]), swp_ranges([7])
    ('swp1-4,swp6', 'swp7')
    """
    runs: list[list[int]] = []
    for cage in sorted(set(cages)):
        if runs and cage == runs[-1][1] + 1:
            runs[-1][1] = cage
        else:
            runs.append([cage, cage])
    return ",".join(f"swp{a}" if a == b else f"swp{a}-{b}" for a, b in runs)


def nvue_refusal(switch: SwitchIntent) -> str | None:
    """Why ``switch`` gets no NVUE section (None: it does)."""
    if "ethernet" not in switch.protocols:
        return "not an Ethernet switch"
    if switch.manufacturer != "nvidia":
        return "Cumulus Linux runs on NVIDIA Spectrum switches"
    if switch.layout.native_per_cage != 1:
        return "the Cumulus numbering of its twin-port cages is not known"
    return None


def _global_lines(header: FabricIntent, switch: SwitchIntent) -> Iterator[str]:
    roce = header.settings.roce
    lossless = is_lossless(header.settings)
    mode = "lossy" if roce.pfc_mode == "lossy" else "lossless"
    yield f"nv set qos roce mode {mode}"
    priority, cnp = roce.lossless_priority, roce.cnp_priority
    if roce.trust == "dscp":
        yield "nv set qos mapping default-global trust l3"
        if roce.lossless_dscp and priority is not None:
            codes = ",".join(str(d) for d in roce.lossless_dscp)
            yield f"nv set qos mapping default-global dscp {codes} switch-priority {priority}"
        if roce.cnp_dscp is not None and cnp is not None:
            yield f"nv set qos mapping default-global dscp {roce.cnp_dscp} switch-priority {cnp}"
    elif roce.trust == "pcp":
        yield "nv set qos mapping default-global trust l2"
        for value in (priority, cnp):
            if value is not None:
                yield f"nv set qos mapping default-global pcp {value} switch-priority {value}"
    if lossless:
        yield f"nv set qos pfc default-global switch-priority {priority}"
        lengths = [whole_metres(i.cable_length_m) for i in switch.interfaces]
        known = [m for m in lengths if m is not None]
        if known:
            yield f"nv set qos pfc default-global cable-length {max(known)}"
        if roce.pfc_mode == "semi-lossless":
            yield "nv set qos pfc default-global tx disable"
            yield "nv set qos pfc default-global rx enable"
    mapping = "nv set qos egress-queue-mapping default-global switch-priority"
    if priority is not None:
        yield f"{mapping} {priority} traffic-class {ROCE_TC}"
        if priority != ROCE_TC:
            yield f"{mapping} {ROCE_TC} traffic-class 0"
    if cnp is not None and cnp != priority:
        yield f"{mapping} {cnp} traffic-class {CNP_TC}"
        if cnp != CNP_TC and priority != CNP_TC:
            yield f"{mapping} {CNP_TC} traffic-class 0"
    control = f"nv set qos congestion-control default-global traffic-class {ROCE_TC}"
    if roce.ecn_min_kb is not None and roce.ecn_max_kb is not None:
        yield f"{control} min-threshold {roce.ecn_min_kb * 1000}"
        yield f"{control} max-threshold {roce.ecn_max_kb * 1000}"
        yield f"{control} ecn enable"
    if any(i.adaptive_routing for i in switch.interfaces):
        yield "nv set router adaptive-routing enable on"


def _interface_lines(header: FabricIntent, switch: SwitchIntent) -> Iterator[str]:
    roce = header.settings.roce
    watchdog = is_lossless(header.settings) and roce.pfc_watchdog
    for legs, cages in switch.breakouts_by_legs.items():
        yield f"nv set interface {swp_ranges(cages)} link breakout {legs}x"
    for interface in switch.interfaces:
        name = interface.names.get("nvue")
        if not name:
            continue
        text = safe_text(f"{interface.peer_end} {interface.label}")
        yield f"nv set interface {name} description {shlex.quote(text)}"
        if switch.mtu_b:
            yield f"nv set interface {name} link mtu {switch.mtu_b}"
        if watchdog:
            yield f"nv set interface {name} qos pfc-watchdog"
        if interface.adaptive_routing:
            yield f"nv set interface {name} router adaptive-routing enable on"


def nvue_switch_lines(header: FabricIntent, switch: SwitchIntent) -> Iterator[str]:
    """One switch's section: the marker, its commands and ``nv config apply`` (lines)."""
    yield f"{MARKER}{switch.name} ({switch.model}, {switch.role}) ----"
    yield from _global_lines(header, switch)
    yield from _interface_lines(header, switch)
    yield "nv config apply"


def nvue_chunks(header: FabricIntent, switches, skipped: list[str]) -> Iterator[str]:
    """The whole NVUE file: a comment header, then one section per NVIDIA switch."""
    roce = header.settings.roce
    yield "# Fabric Planner day-0 configuration: NVIDIA Cumulus Linux NVUE commands.\n"
    yield f"# Design: {header.design}, revision {header.revision or '-'}.\n"
    yield (
        f"# RoCE {roce.pfc_mode}: lossless priority {shown(roce.lossless_priority)}, CNP "
        f"priority {shown(roce.cnp_priority)}, trust {shown(roce.trust)}, ECN "
        f"{shown(roce.ecn_min_kb)} to {shown(roce.ecn_max_kb)} KB, "
        f"MTU {roce.mtu_b or 'unchanged'}, load balancing {roce.load_balancing}.\n"
    )
    yield f"# One section per switch, from '{MARKER}<name>' to 'nv config apply'.\n"
    yield "# PFC headroom is sized for the longest cable of each switch (cable-length, m).\n"
    for line in skipped:
        yield f"# Not rendered: {safe_comment(line)}\n"
    for note in header.notes:
        yield f"# Note: {safe_comment(note)}\n"
    for switch in switches:
        if nvue_refusal(switch):
            continue
        yield "\n" + "\n".join(nvue_switch_lines(header, switch)) + "\n"


__all__ = ["MARKER", "nvue_chunks", "nvue_refusal", "nvue_switch_lines", "swp_ranges"]
