"""Arista AVD ``eos_designs`` inputs for the compute fabric: one YAML file that Ansible reads
as an inventory and that pyavd takes as each device's variables.

What the file is
----------------
An Ansible YAML inventory whose groups carry their variables inline (``vars:``), so the whole
fabric is one document::

    all:
      children:
        FABRIC:                   # fabric_name: every device of the fabric
          vars: {fabric_name, overlay_routing_protocol, spine/l3leaf/super_spine, servers}
          children:
            FABRIC_SUPER_SPINES:  {vars: {type: super-spine}, hosts: {core01: {}}}
            FABRIC_SPINES:        {vars: {type: spine},       hosts: {spine01: {}}}
            FABRIC_L3LEAVES:      {vars: {type: l3leaf},      hosts: {leaf01: {}}}

A device's variables are ``FABRIC``'s merged with its own group's (:func:`avd_hostvars`
does it the way Ansible does, for pyavd). Keys and values follow AVD's ``eos_designs``
schema (aristanetworks/avd, ``python-avd/pyavd/_eos_designs/schema``; checked with
``pyavd.validate_inputs`` of pyavd 6.4.0 in ``tests/interop/test_pyavd.py``):

- **Node types** by the switch's role: a leaf is ``l3leaf``, a spine ``spine``, a core
  ``super_spine``. Each node has its ``id`` (1, 2, ... per node type, in node order), its
  ``mgmt_ip`` and its uplinks to the next tier up: ``uplink_switches`` (one entry per link, a
  switch repeated for parallel links), ``uplink_interfaces`` and ``uplink_switch_interfaces``
  with the EOS interface names of both ends (the one naming the EOS day-0 configuration uses,
  :class:`planner.domain.names.PortLayout`: ``Ethernet1/5`` for the second 400G half of
  OSFP cage 1), and ``uplink_interface_speed`` / ``uplink_switch_interface_speed`` when the
  port is broken out (``400g-4``: EOS writes a split port's speed as rate and lanes). A
  compute fabric is routed point to point with eBGP and no EVPN overlay
  (``overlay_routing_protocol: none``); its leaves carry no VXLAN (``vtep: false``) and are
  no MLAG pairs (``mlag: false``).
- **Servers** (and fabric-manager hosts) are AVD connected endpoints under ``servers``: one
  adapter per link, with the server's port (``endpoint_ports``), the leaf and its EOS
  interface (``switches``, ``switch_ports``) and, on a split port, its ``speed``.
- **Addressing** is the planner's choice, written so that every device gets distinct
  addresses: management ``10.253.0.0/16`` (a node's address from its place in the fabric),
  loopbacks ``10.254.0.0/16`` per node type, point-to-point uplinks in ``10.0.0.0/9``, each
  node type's ``/31`` links counted from its own base; BGP AS numbers from the 32-bit private
  range (RFC 6996: 4200000000-4294967294), one per leaf, one per spine tier, one for the
  cores. They are not a site's plan: replace the pools before deploying (the file says so).

The in-band network, when its leaves and cores are Arista switches EOS names, is a second
fabric ``INBAND`` in the same file (:func:`inband_inputs`: MLAG leaf pairs, ``l3spine``
cores that keep the endpoints cabled to them, dual-homed nodes in LACP port-channels); the
other networks (storage, converged, out-of-band) are not in it and the header says so.

The file is written only when every compute switch is an Arista switch whose ports EOS
names (:func:`avd_yaml_refusal`); names pass through
:func:`planner.domain.outputs.config.text.safe_token` and the YAML is written by PyYAML's safe
dumper, so no text the user wrote can add a key or a document.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import yaml

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, SWITCH_ROLES, Fabric
from planner.domain.names import layout_of
from planner.domain.outputs.cabling import csv_lines
from planner.domain.outputs.config.eos import eos_speed
from planner.domain.outputs.config.intent import (
    SwitchIntent,
    switch_intents,
    transport_of,
)
from planner.domain.outputs.config.text import safe_comment, safe_token

FABRIC_GROUP = "FABRIC"
#: AVD node type key (in the fabric's variables) and ``type`` value, by the switch's role.
NODE_TYPES = {
    "core": ("super_spine", "super-spine"),
    "spine": ("spine", "spine"),
    "leaf": ("l3leaf", "l3leaf"),
}
#: The inventory group of each node type (children of :data:`FABRIC_GROUP`).
NODE_GROUPS = {"core": "FABRIC_SUPER_SPINES", "spine": "FABRIC_SPINES", "leaf": "FABRIC_L3LEAVES"}
TIERS = {"leaf": 0, "spine": 1, "core": 2}
MGMT_POOL = ipaddress.ip_network("10.253.0.0/16")
LOOPBACK_POOL = ipaddress.ip_network("10.254.0.0/16")
UPLINK_POOL = ipaddress.ip_network("10.0.0.0/9")
#: First private 32-bit AS number (RFC 6996).
PRIVATE_ASN = 4_200_000_000
AVD_NOT_ARISTA = "AVD renders Arista EOS; this design's switches are not Arista switches EOS names"


class AvdExportError(ValueError):
    """A design the AVD inputs cannot describe (``code``, ``message``)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class _Node:
    switch: SwitchIntent
    name: str
    node_id: int
    mgmt_ip: str


def avd_yaml_refusal(switches: list[SwitchIntent]) -> str | None:
    """Why the compute fabric has no AVD inputs (None: it has): no switch, or a switch that
    is not Ethernet, not Arista or whose linked ports EOS cannot name (lanes not in the
    catalog)."""
    if not switches:
        return "the design has no switches"
    unnamed = sorted(
        {s.model for s in switches if any("eos" not in i.names for i in s.interfaces)}
        | {s.model for s in switches if s.manufacturer != "arista"}
    )
    if unnamed:
        return f"{AVD_NOT_ARISTA} ({', '.join(unnamed)})"
    return None


def avd_yaml_model_refusal(fabric: Fabric, facts: CatalogFacts) -> str | None:
    """:func:`avd_yaml_refusal` from the compute switches' models and splits alone (what a
    page shows beside the download without building every interface).

    >>> avd_yaml_model_refusal(Fabric(), CatalogFacts())
    'the design has no switches'
    """
    switch_codes = [ROLE[role] for role in SWITCH_ROLES]
    switches = np.flatnonzero(np.isin(fabric.node_role, switch_codes))
    if not len(switches):
        return "the design has no switches"
    pairs = {
        (fabric.models[int(fabric.node_model[n])], max(1, int(fabric.node_ports_per_cage[n])))
        for n in switches.tolist()
    }
    unnamed = set()
    for model, per_cage in pairs:
        record = facts.parts.get(model) or {}
        device = facts.devices.get(model)
        protocols = tuple(device.protocols) if device is not None else ()
        layout = layout_of(facts, model, per_cage)
        names = layout.names_on(
            1, 0, protocols=protocols, manufacturer=str(record.get("manufacturer") or "")
        )
        if "eos" not in names:
            unnamed.add(model)
    if unnamed:
        return f"{AVD_NOT_ARISTA} ({', '.join(sorted(unnamed))})"
    return None


def _pool(base: ipaddress.IPv4Network, first: int, count: int) -> str:
    """The smallest prefix of ``base`` at or after offset ``first`` holding ``count`` addresses.

    >>> _pool(LOOPBACK_POOL, 0, 5), _pool(LOOPBACK_POOL, 8, 9)
    ('10.254.0.0/29', '10.254.0.16/28')
    """
    size = max(2, count)
    prefix = 32 - (size - 1).bit_length()
    step = 1 << (32 - prefix)
    start = int(base.network_address) + -(-first // step) * step  # aligned, from ``first`` on
    network = ipaddress.ip_network((start, prefix))
    if not network.subnet_of(base):
        raise AvdExportError("too-large", f"the fabric needs more addresses than {base} holds")
    return str(network)


def avd_inputs(fabric: Fabric, facts: CatalogFacts, *, elements=None) -> dict:
    """The AVD inputs of ``fabric`` as one Ansible YAML inventory (see the module docstring).

    Raises
    ------
    AvdExportError
        ``not-arista``: a compute switch EOS cannot name (:func:`avd_yaml_refusal`);
        ``too-large``: more links than the uplink pool holds.
    """
    settings, _ = transport_of(fabric, facts)
    switches = list(switch_intents(fabric, facts, settings))
    refusal = avd_yaml_refusal(switches)
    if refusal:
        raise AvdExportError("not-arista", refusal)
    eos_name: dict[tuple[str, str], str] = {
        (s.name, i.port): i.names["eos"] for s in switches for i in s.interfaces
    }
    speeds: dict[tuple[str, str], str | None] = {
        (s.name, i.port): eos_speed(s, i) for s in switches for i in s.interfaces
    }
    by_role: dict[str, list[_Node]] = {role: [] for role in NODE_TYPES}
    for position, switch in enumerate(switches):
        nodes = by_role[switch.role]
        mgmt = MGMT_POOL.network_address + 1 + position
        if mgmt not in MGMT_POOL:
            raise AvdExportError("too-large", f"more switches than {MGMT_POOL} holds")
        nodes.append(
            _Node(switch, safe_token(switch.name), len(nodes) + 1, f"{mgmt}/{MGMT_POOL.prefixlen}")
        )
    variables: dict = {
        "fabric_name": FABRIC_GROUP,
        "overlay_routing_protocol": "none",
    }
    uplink_base = 0
    loopback_base = 0
    for role in ("core", "spine", "leaf"):
        nodes = by_role[role]
        if not nodes:
            continue
        key, _ = NODE_TYPES[role]
        block, uplink_base = _node_type(
            role, nodes, eos_name, speeds, uplink_base=uplink_base, loopback_base=loopback_base
        )
        pool = ipaddress.ip_network(block["defaults"]["loopback_ipv4_pool"])
        loopback_base = int(pool.broadcast_address) + 1 - int(LOOPBACK_POOL.network_address)
        variables[key] = block
    servers = _servers(by_role["leaf"] + by_role["spine"] + by_role["core"], speeds)
    if servers:
        variables["servers"] = servers
    children = {
        NODE_GROUPS[role]: {
            "vars": {"type": NODE_TYPES[role][1]},
            "hosts": {node.name: {} for node in by_role[role]},
        }
        for role in ("core", "spine", "leaf")
        if by_role[role]
    }
    groups = {FABRIC_GROUP: {"vars": variables, "children": children}}
    inband = inband_inputs(fabric, facts, elements, mgmt_first=len(switches) + 1)
    if inband is not None:
        groups[INBAND_GROUP] = inband
    return {"all": {"children": groups}}


def _node_type(role, nodes: list[_Node], eos_name, speeds, *, uplink_base, loopback_base):
    """One node type's block (``defaults`` and ``nodes``) and the next free uplink address."""
    tier = TIERS[role]
    uplinks = {
        node.name: [i for i in node.switch.interfaces if TIERS.get(i.peer_role, -1) > tier]
        for node in nodes
    }
    peers_per_node = [len({i.peer for i in links}) for links in uplinks.values()]
    parallel = [
        max((sum(1 for i in links if i.peer == p) for p in {i.peer for i in links}), default=0)
        for links in uplinks.values()
    ]
    max_switches = max(1, max(peers_per_node, default=0))
    max_parallel = max(1, max(parallel, default=0))
    defaults: dict = {
        "platform": nodes[0].switch.model.removeprefix("DCS-"),
        "loopback_ipv4_pool": _pool(LOOPBACK_POOL, loopback_base, len(nodes) + 1),
    }
    if any(uplinks.values()):
        # AVD gives node ``id`` the /31s from (id - 1) * max switches * max parallel onward
        count = 2 * (len(nodes) + 1) * max_switches * max_parallel
        defaults["uplink_ipv4_pool"] = _pool(UPLINK_POOL, uplink_base, count)
        network = ipaddress.ip_network(defaults["uplink_ipv4_pool"])
        uplink_base = int(network.broadcast_address) + 1 - int(UPLINK_POOL.network_address)
        defaults["max_uplink_switches"] = max_switches
        defaults["max_parallel_uplinks"] = max_parallel
    if role == "leaf":
        defaults["mlag"] = False
        defaults["vtep"] = False
    elif role == "spine":
        defaults["bgp_as"] = str(PRIVATE_ASN + 1)
    else:
        defaults["bgp_as"] = str(PRIVATE_ASN)
    entries = []
    for node in nodes:
        entry: dict = {"name": node.name, "id": node.node_id, "mgmt_ip": node.mgmt_ip}
        if role == "leaf":
            entry["bgp_as"] = str(PRIVATE_ASN + 1 + node.node_id)
        links = uplinks[node.name]
        if links:
            entry["uplink_switches"] = [safe_token(i.peer) for i in links]
            entry["uplink_interfaces"] = [eos_name[(node.switch.name, i.port)] for i in links]
            entry["uplink_switch_interfaces"] = [eos_name[(i.peer, i.peer_port)] for i in links]
            own = {speeds[(node.switch.name, i.port)] for i in links}
            far = {speeds[(i.peer, i.peer_port)] for i in links}
            if len(own) == 1 and None not in own:
                entry["uplink_interface_speed"] = own.pop()
            if len(far) == 1 and None not in far:
                entry["uplink_switch_interface_speed"] = far.pop()
        entries.append(entry)
    return {"defaults": defaults, "nodes": entries}, uplink_base


def _servers(nodes: list[_Node], speeds) -> list[dict]:
    """Connected endpoints: every server or fabric manager with a link to a switch, by name."""
    found: dict[str, list[dict]] = {}
    for node in nodes:
        for interface in node.switch.interfaces:
            if interface.peer_role not in ("server", "manager"):
                continue
            adapter: dict = {
                "endpoint_ports": [safe_comment(interface.peer_port, 120)],
                "switch_ports": [interface.names["eos"]],
                "switches": [node.name],
            }
            speed = speeds[(node.switch.name, interface.port)]
            if speed:
                adapter["speed"] = speed
            found.setdefault(safe_token(interface.peer), []).append(adapter)
    return [{"name": server, "adapters": adapters} for server, adapters in found.items()]


def avd_hostvars(inventory: Mapping) -> dict[str, dict]:
    """Each device's variables from the inventory (:func:`avd_inputs`), as Ansible merges them:
    its fabric group's, then the device's own group's (``type``). What pyavd takes."""
    out: dict[str, dict] = {}
    for fabric in inventory["all"]["children"].values():
        for group in fabric["children"].values():
            for host in group["hosts"]:
                out[host] = {**fabric["vars"], **group["vars"]}
    return out


# --- the in-band network -------------------------------------------------------------------

INBAND_GROUP = "INBAND"
INBAND_LOOPBACK_POOL = ipaddress.ip_network("10.252.0.0/24")
INBAND_UPLINK_POOL = ipaddress.ip_network("10.251.0.0/16")
INBAND_MLAG_POOL = ipaddress.ip_network("10.250.0.0/24")
INBAND_MLAG_L3_POOL = ipaddress.ip_network("10.250.1.0/24")
#: AVD connected-endpoint key of an in-band endpoint by its role (the rest are ``servers``).
ENDPOINT_KEYS = {"nfs-storage": "storage_arrays", "customer-core": "routers"}


def _eos_port_names(devices, links, facts: CatalogFacts) -> dict[tuple[str, str], str] | None:
    """EOS name of every port of ``devices`` (Arista switches) that ``links`` use, or None when
    one cannot be named (not Arista, lanes unknown). Ports are ``<cage>`` or ``<cage>/<n>``."""
    used: dict[str, list[str]] = {}
    for link in links:
        for device, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            if device in devices:
                used.setdefault(device, []).append(port)
    names: dict[tuple[str, str], str] = {}
    for device, ports in used.items():
        model = devices[device].model
        record = facts.parts.get(model) or {}
        catalog = facts.devices.get(model)
        protocols = tuple(catalog.protocols) if catalog is not None else ()
        split = [p.split("/") for p in ports]
        if not all(all(part.isdigit() for part in pieces) for pieces in split):
            return None
        per_cage = max(int(pieces[1]) if len(pieces) > 1 else 1 for pieces in split)
        layout = layout_of(facts, model, per_cage)
        for port, pieces in zip(ports, split, strict=True):
            index = int(pieces[1]) - 1 if len(pieces) > 1 else 0
            found = layout.names_on(
                int(pieces[0]),
                index,
                protocols=protocols,
                manufacturer=str(record.get("manufacturer") or ""),
            ).get("eos")
            if not found:
                return None
            names[(device, port)] = found
    return names


def inband_inputs(fabric: Fabric, facts: CatalogFacts, elements=None, *, mgmt_first: int = 1):
    """The in-band network as a second AVD fabric (``INBAND``), or None when the design has
    no in-band network of Arista leaves and cores EOS names.

    Leaf pairs are MLAG ``node_groups`` of ``l3leaf`` (their inter-switch links are the pair's
    ``mlag_interfaces``, the same ports on both switches), the cores ``l3spine`` (AVD's
    ``spine`` takes no endpoints: the management nodes, NFS storage and the customer's core
    cabled to the cores would be dropped), leaf-to-core cables uplinks, and every other device
    a connected endpoint: a node dual-homed to a pair gets one adapter with both ports in an
    LACP port-channel.

    Long because: one pass over the network's links fills the three parts of AVD's document
    (MLAG node groups, uplinks, connected endpoints) that refer to each other by name.
    """
    from planner.domain.outputs.exports import network_elements  # exports imports this module

    elements = network_elements(fabric, facts, elements)
    if not elements:
        return None
    devices = {d.name: d for d in elements.devices if d.network == "inband"}
    links = [link for link in elements.links if link.network == "inband"]
    switches = {name: d for name, d in devices.items() if d.role in ("leaf", "core")}
    leaves = [name for name, d in switches.items() if d.role == "leaf"]
    cores = [name for name, d in switches.items() if d.role == "core"]
    if not leaves or any(d.role == "spine" for d in devices.values()):
        return None
    eos = _eos_port_names(switches, links, facts)
    if eos is None:
        return None
    isl = [link for link in links if link.a_device in switches and link.b_device in switches]
    peers: dict[str, str] = {}
    mlag_ports: dict[str, list[str]] = {}
    uplinks: dict[str, list] = {}
    for link in isl:
        a, b = switches[link.a_device], switches[link.b_device]
        if a.role == b.role == "leaf":
            if link.a_port != link.b_port:
                return None  # AVD's mlag_interfaces are the same ports on both peers
            peers[a.name], peers[b.name] = b.name, a.name
            mlag_ports.setdefault(a.name, []).append(eos[(a.name, link.a_port)])
        elif {a.role, b.role} == {"leaf", "core"}:
            leaf, core = (
                (link.a_device, link.b_device)
                if a.role == "leaf"
                else (
                    link.b_device,
                    link.a_device,
                )
            )
            leaf_port = link.a_port if leaf == link.a_device else link.b_port
            core_port = link.b_port if leaf == link.a_device else link.a_port
            uplinks.setdefault(leaf, []).append(
                (eos[(leaf, leaf_port)], core, eos[(core, core_port)])
            )
        else:
            return None
    mgmt = iter(range(mgmt_first, 1 << 16))

    def node(name: str, node_id: int) -> dict:
        address = MGMT_POOL.network_address + next(mgmt)
        return {
            "name": safe_token(name),
            "id": node_id,
            "mgmt_ip": f"{address}/{MGMT_POOL.prefixlen}",
        }

    parallel = max(
        [sum(1 for u in ups if u[1] == core) for ups in uplinks.values() for core in cores] or [1]
    )
    node_groups = []
    done: set[str] = set()
    next_id = 1
    for leaf in leaves:
        if leaf in done:
            continue
        members = [leaf] + ([peers[leaf]] if leaf in peers else [])
        done.update(members)
        entries = []
        for member in members:
            entry = node(member, next_id)
            next_id += 1
            ups = uplinks.get(member, [])
            if ups:
                entry["uplink_interfaces"] = [u[0] for u in ups]
                entry["uplink_switches"] = [safe_token(u[1]) for u in ups]
                entry["uplink_switch_interfaces"] = [u[2] for u in ups]
            entries.append(entry)
        group = {
            "group": f"INBAND_LEAVES_{len(node_groups) + 1}",
            "bgp_as": str(PRIVATE_ASN + 100_001 + len(node_groups)),
            "nodes": entries,
        }
        if leaf in peers:
            group["mlag_interfaces"] = mlag_ports.get(leaf) or mlag_ports[peers[leaf]]
        node_groups.append(group)
    leaf_defaults = {
        "platform": switches[leaves[0]].model.removeprefix("DCS-"),
        "loopback_ipv4_pool": _pool(INBAND_LOOPBACK_POOL, 0, next_id),
        "uplink_ipv4_pool": _pool(
            INBAND_UPLINK_POOL, 0, 2 * next_id * max(1, len(cores)) * parallel
        ),
        "max_uplink_switches": max(1, len(cores)),
        "max_parallel_uplinks": parallel,
        "mlag_peer_ipv4_pool": str(INBAND_MLAG_POOL),
        "mlag_peer_l3_ipv4_pool": str(INBAND_MLAG_L3_POOL),
        "vtep": False,
    }
    variables: dict = {
        "fabric_name": INBAND_GROUP,
        "overlay_routing_protocol": "none",
        "l3leaf": {"defaults": leaf_defaults, "node_groups": node_groups},
    }
    if cores:
        loopbacks = ipaddress.ip_network(leaf_defaults["loopback_ipv4_pool"])
        first = int(loopbacks.broadcast_address) + 1 - int(INBAND_LOOPBACK_POOL.network_address)
        variables["l3spine"] = {
            "defaults": {
                "platform": switches[cores[0]].model.removeprefix("DCS-"),
                "loopback_ipv4_pool": _pool(INBAND_LOOPBACK_POOL, first, len(cores) + 1),
                "bgp_as": str(PRIVATE_ASN + 100_000),
                "mlag": False,
                "vtep": False,
            },
            "nodes": [node(core, k + 1) for k, core in enumerate(cores)],
        }
    endpoints: dict[str, dict[str, list[dict]]] = {}
    pending: dict[str, list[tuple[str, str, str]]] = {}
    for link in links:
        if (link.a_device in switches) == (link.b_device in switches):
            continue
        switch, port, other, other_port = (
            (link.a_device, link.a_port, link.b_device, link.b_port)
            if link.a_device in switches
            else (link.b_device, link.b_port, link.a_device, link.a_port)
        )
        pending.setdefault(other, []).append((other_port, switch, eos[(switch, port)]))
    roles = {d.name: d.role for d in elements.devices}
    for other, ends in pending.items():
        key = ENDPOINT_KEYS.get(roles.get(other, ""), "servers")
        adapters = []
        paired = [e for e in ends if e[1] in peers]
        single = [e for e in ends if e[1] not in peers]
        by_pair: dict[frozenset, list] = {}
        for end in paired:
            by_pair.setdefault(frozenset((end[1], peers[end[1]])), []).append(end)
        for group in by_pair.values():
            adapter = {
                "endpoint_ports": [safe_comment(e[0], 120) for e in group],
                "switch_ports": [e[2] for e in group],
                "switches": [safe_token(e[1]) for e in group],
            }
            if len({e[1] for e in group}) == 2:
                adapter["port_channel"] = {"mode": "active"}
            adapters.append(adapter)
        for end in single:
            adapters.append(
                {
                    "endpoint_ports": [safe_comment(end[0], 120)],
                    "switch_ports": [end[2]],
                    "switches": [safe_token(end[1])],
                }
            )
        endpoints.setdefault(key, {}).setdefault(safe_token(other), []).extend(adapters)
    for key, found in endpoints.items():
        variables[key] = [{"name": name, "adapters": adapters} for name, adapters in found.items()]
    children = {
        "INBAND_L3LEAVES": {
            "vars": {"type": "l3leaf"},
            "hosts": {safe_token(n): {} for n in leaves},
        }
    }
    if cores:
        children["INBAND_L3SPINES"] = {
            "vars": {"type": "l3spine"},
            "hosts": {safe_token(n): {} for n in cores},
        }
    return {"vars": variables, "children": children}


# --- the topology CSV AVD writes -------------------------------------------------------------

#: pyavd 6.4's fabric documentation ``topology_csv`` columns (``get_fabric_documentation``).
AVD_COLUMNS = (
    "Node Type",
    "Node",
    "Serial Number",
    "Node Interface",
    "Peer Type",
    "Peer Node",
    "Peer Serial Number",
    "Peer Interface",
    "Node Interface Enabled",
)
#: AVD's connected-endpoint keys and the peer type its documentation writes for each
#: (``connected_endpoints_keys`` defaults of eos_designs).
ENDPOINT_TYPES = {"servers": "server", "storage_arrays": "storage_array", "routers": "router"}
_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> list:
    """pyavd's ``natural_sort`` key: digit runs as numbers, the rest lower-cased."""
    return [int(part) if part.isdigit() else part.lower() for part in _DIGITS.split(text)]


def avd_topology_rows(inventory: Mapping) -> list[tuple]:
    """The rows of the topology CSV AVD's fabric documentation writes from ``inventory``
    (:func:`avd_inputs`): every Ethernet interface eos_designs gives a switch, one row per
    interface, hosts in natural order and each host's interfaces in natural order, as
    ``pyavd.get_fabric_documentation(..., topology_csv=True)`` lists them (checked equal,
    text for text, in ``tests/interop/test_pyavd.py``).

    An uplink is listed from both ends (the peer's type is its node ``type``); an MLAG
    peer link from both members (peer type ``mlag_peer``); a connected endpoint's adapter
    from its switches (peer type ``server``, ``storage_array`` or ``router``, its port as
    written). Serial numbers are empty: the planner knows none.
    """
    node_type: dict[str, str] = {}
    interfaces: dict[str, list[tuple[str, str, str, str]]] = {}
    for fabric in inventory["all"]["children"].values():
        for group in fabric["children"].values():
            for host in group["hosts"]:
                node_type[host] = group["vars"]["type"]
                interfaces[host] = []
    for fabric in inventory["all"]["children"].values():
        variables = fabric["vars"]
        for block in variables.values():
            if not isinstance(block, dict) or "defaults" not in block:
                continue
            groups = block.get("node_groups") or [{"nodes": block.get("nodes", [])}]
            for group in groups:
                members = [node["name"] for node in group["nodes"]]
                for node in group["nodes"]:
                    _uplink_rows(node, node_type, interfaces)
                    for port in group.get("mlag_interfaces", ()):
                        for peer in members:
                            if peer != node["name"]:
                                interfaces[node["name"]].append((port, "mlag_peer", peer, port))
        for key, peer_type in ENDPOINT_TYPES.items():
            for endpoint in variables.get(key, ()):
                for adapter in endpoint["adapters"]:
                    for switch, switch_port, port in zip(
                        adapter["switches"],
                        adapter["switch_ports"],
                        adapter["endpoint_ports"],
                        strict=True,
                    ):
                        interfaces[switch].append((switch_port, peer_type, endpoint["name"], port))
    rows = []
    for host in sorted(interfaces, key=natural_key):
        for port, peer_type, peer, peer_port in sorted(
            interfaces[host], key=lambda entry: natural_key(entry[0])
        ):
            rows.append((node_type[host], host, "", port, peer_type, peer, "", peer_port, "True"))
    return rows


def _uplink_rows(node: Mapping, node_type: Mapping, interfaces: dict) -> None:
    """A node's uplinks, at both ends."""
    for port, peer, peer_port in zip(
        node.get("uplink_interfaces", ()),
        node.get("uplink_switches", ()),
        node.get("uplink_switch_interfaces", ()),
        strict=True,
    ):
        name = node["name"]
        interfaces[name].append((port, node_type[peer], peer, peer_port))
        interfaces[peer].append((peer_port, node_type[name], name, port))


def avd_topology_lines(fabric: Fabric, facts: CatalogFacts, *, elements=None) -> Iterator[str]:
    """Arista AVD topology CSV (:data:`AVD_COLUMNS`): the rows pyavd's fabric documentation
    writes from the design's AVD inputs (:func:`avd_topology_rows` of :func:`avd_inputs`): the
    compute fabric and, when its leaves and cores are Arista switches, the in-band network.

    Raises
    ------
    AvdExportError
        The design has no AVD inputs (:func:`avd_inputs`); raised at the call, before any line.
    """
    return csv_lines(AVD_COLUMNS, avd_topology_rows(avd_inputs(fabric, facts, elements=elements)))


def avd_yaml_chunks(
    fabric: Fabric, facts: CatalogFacts, *, name: str, revision: int | None
) -> Iterator[str]:
    """The AVD inputs (:func:`avd_inputs`) as YAML text: a comment header, then the
    inventory. Raises :class:`AvdExportError` at the call, before any text."""
    inventory = avd_inputs(fabric, facts)
    header = (
        "# Arista AVD eos_designs inputs (Fabric Planner): an Ansible YAML inventory with the\n"
        "# group variables inline. Run it with the arista.avd collection (eos_designs, then\n"
        "# eos_cli_config_gen) or feed each host's merged variables to pyavd.\n"
        f"# Design: {safe_comment(name, 200)}, revision {revision or '-'}.\n"
        "# Addresses and AS numbers are the planner's defaults:\n"
        "# replace the pools with your site's plan before deploying.\n"
    )
    if fabric.settings.networks:
        from planner.domain.outputs.exports import network_elements

        elements = network_elements(fabric, facts)
        held = ["inband"] if INBAND_GROUP in inventory["all"]["children"] else []
        left = [name for name in (elements.networks() if elements else ()) if name not in held]
        if held:
            header += "# The in-band network is the INBAND fabric (Arista leaf pairs and cores).\n"
        if left:
            header += (
                f"# Not in this file: {', '.join(left)} (the cabling plan, NetBox and P2P "
                "exports list their links).\n"
            )

    def chunks():
        yield header
        yield yaml.dump(
            inventory,
            Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
            sort_keys=False,
            default_flow_style=False,
            allow_unicode=True,
            width=4096,
        )

    return chunks()


__all__ = [
    "AVD_COLUMNS",
    "AVD_NOT_ARISTA",
    "AvdExportError",
    "avd_hostvars",
    "avd_inputs",
    "avd_topology_lines",
    "avd_topology_rows",
    "avd_yaml_chunks",
    "avd_yaml_model_refusal",
    "avd_yaml_refusal",
]
