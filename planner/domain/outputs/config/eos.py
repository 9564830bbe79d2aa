"""Arista EOS rendering of the day-0 intent: a configuration section per switch.

The commands are those Arista's AVD (``eos_cli_config_gen``) renders for EOS, whose expected
outputs serve as the reference: ``qos map dscp 18 20 22 to traffic-class 4``, ``qos map
traffic-class 6 to tx-queue 2``, ``qos profile <name>`` with ``qos trust dscp``,
``priority-flow-control on``, ``priority-flow-control priority 0 no-drop``,
``priority-flow-control pause watchdog`` and ``tx-queue <n>`` blocks (``bandwidth percent``,
``no priority``, ``priority strict``, ``random-detect ecn minimum-threshold 320 kbytes
maximum-threshold 320 kbytes max-mark-probability 90``), applied with ``service-profile
<name>`` on the interfaces (aristanetworks/avd, ``molecule/eos_cli_config_gen/intended/
configs/qos.cfg`` and ``documentation/devices/qos.md``,
https://github.com/aristanetworks/avd/tree/devel/ansible_collections/arista/avd/molecule/eos_cli_config_gen).
A split port's speed is written ``speed 400g-4`` (rate and lanes).

EOS has no semi-lossless PFC mode, so a semi-lossless design is refused. Interface names
follow :class:`~planner.domain.names.PortLayout` (``Ethernet<cage>/<lane>``).
Each switch is one section, opened by ``! ---- switch <name> ...``; only Arista switches whose
lanes are in the catalog are rendered, the header lists the others.
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.domain.outputs.config.intent import (
    FIXED,
    FabricIntent,
    InterfaceIntent,
    SwitchIntent,
    is_lossless,
)
from planner.domain.outputs.config.text import safe_comment, safe_text, shown

PROFILE = "FP-ROCE"
MARKER = "! ---- switch "


def eos_refusal(switch: SwitchIntent) -> str | None:
    """Why ``switch`` gets no EOS section (None: it does)."""
    if "ethernet" not in switch.protocols:
        return "not an Ethernet switch"
    if switch.manufacturer != "arista":
        return "EOS runs on Arista switches"
    if switch.layout.lanes_per_port is None:
        return "its lanes per port are not in the catalog (EOS names ports by lane)"
    return None


def eos_speed(switch: SwitchIntent, interface: InterfaceIntent) -> str | None:
    """EOS's ``speed`` of a linked port: rate and lanes on a broken-out port (``400g-4``),
    else None (the port runs at its native speed). The AVD inputs write the same value.

    >>> from planner.domain.names import PortLayout
    >>> split = SwitchIntent("l1", "leaf", "m", "arista", ("ethernet",), PortLayout(2, 1, 8),
    ...                      None, ())
    >>> port = InterfaceIntent("1/2", 1, 1, {}, 400, "s", "1", "server", "", None, False,
    ...                        None, False)
    >>> eos_speed(split, port)
    '400g-4'
    """
    layout = switch.layout_of(interface)
    if layout.legs > 1 and layout.lanes_per_port:
        return f"{interface.speed_gbps}g-{layout.lanes_per_port}"
    return None


def _global_lines(header: FabricIntent) -> Iterator[str]:
    roce = header.settings.roce
    priority, cnp = roce.lossless_priority, roce.cnp_priority
    if roce.trust == "dscp":
        if roce.lossless_dscp and priority is not None:
            codes = " ".join(str(d) for d in roce.lossless_dscp)
            yield f"qos map dscp {codes} to traffic-class {priority}"
        if roce.cnp_dscp is not None and cnp is not None and cnp != priority:
            yield f"qos map dscp {roce.cnp_dscp} to traffic-class {cnp}"
    elif roce.trust == "pcp":
        for value in (priority, cnp):
            if value is not None:
                yield f"qos map cos {value} to traffic-class {value}"
    for value in dict.fromkeys(v for v in (priority, cnp) if v is not None):
        yield f"qos map traffic-class {value} to tx-queue {value}"
    yield "!"
    yield f"qos profile {PROFILE}"
    if roce.trust in ("dscp", "pcp"):
        yield f"   qos trust {'dscp' if roce.trust == 'dscp' else 'cos'}"
    if is_lossless(header.settings):
        yield "   priority-flow-control on"
        yield f"   priority-flow-control priority {priority} no-drop"
        if roce.pfc_watchdog:
            yield "   priority-flow-control pause watchdog"
    share = FIXED["ets_roce_percent"]["value"]
    other = FIXED["ets_other_percent"]["value"]
    yield "   !"
    yield "   tx-queue 0"
    yield f"      bandwidth percent {other}"
    yield "      no priority"
    if priority is not None and priority != 0:
        yield "   !"
        yield f"   tx-queue {priority}"
        yield f"      bandwidth percent {share}"
        yield "      no priority"
        if roce.ecn_min_kb is not None and roce.ecn_max_kb is not None:
            chance = FIXED["ecn_mark_probability_pct"]["value"]
            yield (
                f"      random-detect ecn minimum-threshold {roce.ecn_min_kb} kbytes "
                f"maximum-threshold {roce.ecn_max_kb} kbytes max-mark-probability {chance}"
            )
    if cnp is not None and cnp not in (priority, 0):
        yield "   !"
        yield f"   tx-queue {cnp}"
        yield "      priority strict"
    yield "!"


def _interface_lines(switch: SwitchIntent) -> Iterator[str]:
    for interface in switch.interfaces:
        name = interface.names.get("eos")
        if not name:
            continue
        yield f"interface {name}"
        yield f"   description {safe_text(interface.peer_end)}"
        if switch.mtu_b:
            yield f"   mtu {switch.mtu_b}"
        if speed := eos_speed(switch, interface):
            yield f"   speed {speed}"
        yield f"   service-profile {PROFILE}"
        yield "!"


def eos_switch_lines(header: FabricIntent, switch: SwitchIntent) -> Iterator[str]:
    """One switch's section (lines)."""
    yield f"{MARKER}{switch.name} ({switch.model}, {switch.role}) ----"
    yield from _global_lines(header)
    yield from _interface_lines(switch)


def eos_chunks(header: FabricIntent, switches, skipped: list[str]) -> Iterator[str]:
    """The whole EOS file: a comment header, then one section per Arista switch."""
    roce = header.settings.roce
    yield "! Fabric Planner day-0 configuration: Arista EOS.\n"
    yield f"! Design: {header.design}, revision {header.revision or '-'}.\n"
    yield (
        f"! RoCE {roce.pfc_mode}: lossless priority {shown(roce.lossless_priority)}, CNP "
        f"priority {shown(roce.cnp_priority)}, trust {shown(roce.trust)}, ECN "
        f"{shown(roce.ecn_min_kb)} to {shown(roce.ecn_max_kb)} KB, "
        f"MTU {roce.mtu_b or 'unchanged'}.\n"
    )
    yield f"! One section per switch, from '{MARKER}<name>' to the next.\n"
    for line in skipped:
        yield f"! Not rendered: {safe_comment(line)}\n"
    for note in header.notes:
        yield f"! Note: {safe_comment(note)}\n"
    for switch in switches:
        if eos_refusal(switch):
            continue
        yield "!\n" + "\n".join(eos_switch_lines(header, switch)) + "\n"


__all__ = ["MARKER", "PROFILE", "eos_chunks", "eos_refusal", "eos_switch_lines"]
