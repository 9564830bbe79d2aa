"""SONiC rendering of the day-0 intent: a ``config_db.json`` fragment per switch.

Tables and field names are SONiC's (``Configuration.md`` of sonic-buildimage,
https://github.com/sonic-net/sonic-buildimage/blob/master/src/sonic-yang-models/doc/Configuration.md,
and the QoS template ``files/build_templates/qos_config.j2``,
https://github.com/sonic-net/sonic-buildimage/blob/master/files/build_templates/qos_config.j2):

- ``PORT``: ``alias``, ``lanes``, ``index``, ``subport`` and ``fec`` from the model's SONiC
  platform port table (:mod:`.sonic_ports`: sonic-buildimage ``platform.json``; ``lanes`` is
  mandatory in ``sonic-port.yang``), ``admin_status``, ``speed`` (Mb/s), ``mtu``,
  ``description``; ``BREAKOUT_CFG``: ``brkout_mode`` of every cage as the platform file keys
  it (``2x400G[200G,...]``), or, for a model without a table, ``2x400G`` on the first port of
  a broken-out cage. A switch some of whose ports have no table entry is listed in the file's
  closing :data:`MARK` entry: SONiC refuses it until the lanes are merged in.
- ``DEVICE_METADATA|localhost`` ``buffer_model`` (:func:`buffer_model`).
- ``DSCP_TO_TC_MAP`` (or ``DOT1P_TO_TC_MAP`` when the design trusts PCP),
  ``TC_TO_PRIORITY_GROUP_MAP``, ``TC_TO_QUEUE_MAP``, ``MAP_PFC_PRIORITY_TO_QUEUE``, all named
  ``AZURE`` as the template names them (so ports the file does not list keep coherent maps):
  the lossless DSCPs to the lossless traffic class, the CNP DSCP to the CNP class, every other
  code point to class 0 (NVIDIA's RoCE default: "other switch priority to traffic class 0").
- ``PORT_QOS_MAP`` per port: the maps, ``pfc_enable`` and ``pfcwd_sw_enable`` (the lossless
  priority; the template's keys).
- ``WRED_PROFILE`` ``AZURE_LOSSLESS``: ECN marking (``ecn: ecn_all``) between the design's
  minimum and maximum thresholds (bytes) with marking probability 100 (NVIDIA's RoCE default);
  ``QUEUE``: the lossless queue on it with a DWRR scheduler, queue 0 DWRR, the CNP queue
  strict (``SCHEDULER``: NVIDIA's ETS, RoCE 50 % / other 50 % / CNP strict).
- ``CABLE_LENGTH`` ``AZURE`` per port (whole metres, rounded up). On the dynamic buffer model
  (NVIDIA Spectrum platforms) ``BUFFER_PG`` ``<port>|<p>`` with profile ``NULL``: the switch
  computes each lossless priority group's headroom from the port's speed, cable length and MTU
  (NVIDIA SONiC "QoS and Buffers",
  https://docs.nvidia.com/networking-ethernet-software/sonic-202012/System-Configuration/QoS-and-Buffers/).
  On the traditional model (every other vendor) no ``BUFFER_PG``: SONiC's buffer manager
  (sonic-swss ``cfgmgr/buffermgr.cpp``) makes each lossless profile from the platform's
  ``pg_profile_lookup.ini`` by speed and cable length, a length that file lists.

SONiC has no semi-lossless mode (PFC on a priority both sends and honours pause frames), so a
semi-lossless design is refused. Interface names follow :class:`~planner.domain.names.
PortLayout`. The file is one JSON object, one line per switch: switch name ->
that switch's fragment (compact: a 100,000-GPU fabric has thousands of switches);
``jq '."leaf-01"' file > leaf-01.json`` extracts one, which ``sudo config load leaf-01.json``
(or ``sonic-cfggen -j leaf-01.json --write-to-db``) merges into the running configuration.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from planner.domain.outputs.config.intent import (
    FIXED,
    FabricIntent,
    SwitchIntent,
    is_lossless,
)
from planner.domain.outputs.config.sonic_ports import SonicPort, platform_ports
from planner.domain.outputs.config.text import safe_text, whole_metres

MAP = "AZURE"
WRED = "AZURE_LOSSLESS"
DWRR = "scheduler.roce_dwrr"
STRICT = "scheduler.roce_strict"


def sonic_refusal(switch: SwitchIntent) -> str | None:
    """Why ``switch`` gets no fragment (None: it does)."""
    if "ethernet" not in switch.protocols:
        return "not an Ethernet switch"
    if switch.layout.lanes_per_port is None:
        return "its lanes per port are not in the catalog (SONiC names ports by lane)"
    return None


def _class_maps(header: FabricIntent) -> dict:
    roce = header.settings.roce
    priority, cnp = roce.lossless_priority, roce.cnp_priority
    tables: dict = {}
    if roce.trust == "dscp":
        codes = dict.fromkeys(range(64), 0)
        if priority is not None:
            codes.update(dict.fromkeys(roce.lossless_dscp, priority))
        if cnp is not None and roce.cnp_dscp is not None:
            codes[roce.cnp_dscp] = cnp
        tables["DSCP_TO_TC_MAP"] = {MAP: {str(d): str(tc) for d, tc in codes.items()}}
    elif roce.trust == "pcp":
        codes = dict.fromkeys(range(8), 0)
        for value in (priority, cnp):
            if value is not None:
                codes[value] = value
        tables["DOT1P_TO_TC_MAP"] = {MAP: {str(p): str(tc) for p, tc in codes.items()}}
    groups = {str(tc): "0" for tc in range(8)}
    if priority is not None:
        groups[str(priority)] = str(priority)
    identity = {str(tc): str(tc) for tc in range(8)}
    tables["TC_TO_PRIORITY_GROUP_MAP"] = {MAP: groups}
    tables["TC_TO_QUEUE_MAP"] = {MAP: dict(identity)}
    tables["MAP_PFC_PRIORITY_TO_QUEUE"] = {MAP: dict(identity)}
    weight = str(FIXED["ets_roce_percent"]["value"])
    tables["SCHEDULER"] = {DWRR: {"type": "DWRR", "weight": weight}, STRICT: {"type": "STRICT"}}
    if roce.ecn_min_kb is not None and roce.ecn_max_kb is not None:
        low, high = str(roce.ecn_min_kb * 1000), str(roce.ecn_max_kb * 1000)
        chance = str(FIXED["ecn_mark_probability_pct"]["value"])
        profile = {"wred_green_enable": "true", "wred_yellow_enable": "true"}
        profile |= {"wred_red_enable": "true", "ecn": "ecn_all"}
        for colour in ("green", "yellow", "red"):
            profile[f"{colour}_min_threshold"] = low
            profile[f"{colour}_max_threshold"] = high
            profile[f"{colour}_drop_probability"] = chance
        tables["WRED_PROFILE"] = {WRED: profile}
    return tables


def buffer_model(switch: SwitchIntent) -> str:
    """SONiC's buffer model for ``switch``: ``dynamic`` on NVIDIA Spectrum platforms (SONiC's
    dynamic buffer calculation is NVIDIA's: ``sonic-device_metadata.yang``, ``buffer_model``,
    "This model is used by Mellanox so far"), ``traditional`` elsewhere ("the default model
    used by all other vendors")."""
    table = platform_ports(switch.model)
    vendor = table.vendor if table is not None else switch.manufacturer
    return "dynamic" if vendor in ("mellanox", "nvidia") else "traditional"


def needs_port_table(switch: SwitchIntent) -> bool:
    """Whether some port of ``switch`` gets no ``lanes`` (no platform table, or a port the
    table does not describe): SONiC refuses such a file until the lanes are merged in."""
    return any(
        _platform_port(switch, interface) is None
        for interface in switch.interfaces
        if interface.names.get("sonic")
    )


def _platform_port(switch: SwitchIntent, interface) -> SonicPort | None:
    table = platform_ports(switch.model)
    if table is None:
        return None
    layout = switch.layout_of(interface)
    found = table.port(interface.cage, interface.index, layout.per_cage, interface.speed_gbps)
    if found is None or found.name != interface.names.get("sonic"):
        return None
    return found


def _port_entry(switch: SwitchIntent, interface, breakouts: dict) -> dict:
    """One ``PORT`` entry: the platform's alias, lanes, index, subport and FEC when its table
    has the port (:mod:`.sonic_ports`), the design's speed, MTU and peer."""
    port: dict = {}
    found = _platform_port(switch, interface)
    layout = switch.layout_of(interface)
    if found is not None:
        port |= {"alias": found.alias, "lanes": found.lanes, "index": found.index}
        port["subport"] = found.subport
        breakouts[found.parent] = {"brkout_mode": found.mode}
    elif layout.legs > 1 and layout.native_per_cage == 1:
        first = f"Ethernet{(interface.cage - 1) * layout.lanes_per_cage}"
        breakouts[first] = {"brkout_mode": f"{layout.legs}x{interface.speed_gbps}G"}
    port |= {"admin_status": "up", "speed": str(interface.speed_gbps * 1000)}
    if found is not None and found.fec:
        port["fec"] = found.fec
    if switch.mtu_b:
        port["mtu"] = str(switch.mtu_b)
    port["description"] = safe_text(interface.peer_end)
    return port


def sonic_config(header: FabricIntent, switch: SwitchIntent) -> dict:
    """One switch's ``config_db.json`` fragment."""
    roce = header.settings.roce
    lossless = is_lossless(header.settings)
    priority, cnp = roce.lossless_priority, roce.cnp_priority
    model = buffer_model(switch)
    config: dict = {"DEVICE_METADATA": {"localhost": {"buffer_model": model}}}
    config |= _class_maps(header)
    ports, qos_map, queues, lengths, groups, breakouts = {}, {}, {}, {}, {}, {}
    for interface in switch.interfaces:
        name = interface.names.get("sonic")
        if not name:
            continue
        ports[name] = _port_entry(switch, interface, breakouts)
        entry = {"tc_to_queue_map": MAP, "tc_to_pg_map": MAP, "pfc_to_queue_map": MAP}
        if roce.trust == "dscp":
            entry = {"dscp_to_tc_map": MAP, **entry}
        elif roce.trust == "pcp":
            entry = {"dot1p_to_tc_map": MAP, **entry}
        if lossless:
            entry["pfc_enable"] = str(priority)
            if roce.pfc_watchdog:
                entry["pfcwd_sw_enable"] = str(priority)
            if model == "dynamic":
                groups[f"{name}|{priority}"] = {"profile": "NULL"}
            metres = whole_metres(interface.cable_length_m)
            if metres is not None:
                lengths[name] = f"{metres}m"
        qos_map[name] = entry
        queues[f"{name}|0"] = {"scheduler": DWRR}
        if priority is not None:
            queue = {"scheduler": DWRR}
            if "WRED_PROFILE" in config:
                queue["wred_profile"] = WRED
            queues[f"{name}|{priority}"] = queue
        if cnp is not None and cnp != priority:
            queues[f"{name}|{cnp}"] = {"scheduler": STRICT}
    config["PORT"] = ports
    if breakouts:
        config["BREAKOUT_CFG"] = dict(sorted(breakouts.items(), key=lambda kv: int(kv[0][8:])))
    config["PORT_QOS_MAP"] = qos_map
    config["QUEUE"] = queues
    if lengths:
        config["CABLE_LENGTH"] = {MAP: lengths}
    if groups:
        config["BUFFER_PG"] = groups
    return config


#: The key of the file's closing entry when some switch has ports without ``lanes``.
MARK = "_needs_platform_port_table"


def _mark(missing: dict[str, list[str]]) -> dict:
    models = {model: len(names) for model, names in sorted(missing.items())}
    return {
        "note": (
            "SONiC refuses these switches' PORT entries until each has its lanes (sonic-port.yang:"
            " lanes is mandatory): the planner has no SONiC platform port table for their model,"
            " or not for the split used. Merge each port's lanes, alias and index from the"
            " platform's platform.json or port_config.ini (sonic-buildimage device/<vendor>/"
            "<platform>/) before loading. This entry is not a switch."
        ),
        "models": models,
        "switches": sorted(name for names in missing.values() for name in names),
    }


def sonic_chunks(header: FabricIntent, switches, skipped: list[str]) -> Iterator[str]:
    """The whole file: one JSON object, switch name -> ``config_db.json`` fragment; when some
    switch has ports without ``lanes``, a closing :data:`MARK` entry lists them."""
    del skipped  # JSON carries no comments: the intent lists the switches left out
    yield "{"
    first = True
    missing: dict[str, list[str]] = {}
    for switch in switches:
        if sonic_refusal(switch):
            continue
        body = json.dumps(sonic_config(header, switch), separators=(",", ":"))
        yield ("\n" if first else ",\n") + json.dumps(switch.name) + ": " + body
        first = False
        if needs_port_table(switch):
            missing.setdefault(switch.model, []).append(switch.name)
    if missing:
        body = json.dumps(_mark(missing), separators=(",", ":"))
        yield ("\n" if first else ",\n") + json.dumps(MARK) + ": " + body
    yield "\n}\n"


__all__ = [
    "MARK",
    "buffer_model",
    "needs_port_table",
    "sonic_chunks",
    "sonic_config",
    "sonic_refusal",
]
