"""The day-0 configuration intent: per switch of the compute fabric, what its QoS (RoCE) or
subnet-manager (InfiniBand) configuration must say, as plain data the renderers and the
YAML/JSON downloads share.

What it holds
-------------
A header (:func:`fabric_intent`): the design and revision, the transport, the fabric-wide
settings as the transport settings give them (:mod:`planner.domain.transport.settings`, each
default with its source in ``sources``), the fixed choices the renderers add (ETS weights, ECN
marking probability: :data:`FIXED`, each with its source), the settings left blank and what
to give for them (``missing``), and notes. Then one :class:`SwitchIntent` per switch (leaf,
spine and core, in node order): its model, role, MTU, PFC headroom and the interfaces that
have a link (:class:`InterfaceIntent`), each with the port as the cabling plan and the NetBox
export name it (``3/2``), the vendor interface names, speed, peer, cable label and ordered
cable length, whether it is lossless and its PFC xoff headroom (the switch vendor's figure
for the port speed and the cable length in whole metres, :mod:`planner.domain.transport.
headroom`: SONiC's ``pg_profile_lookup.ini`` of the Spectrum platform; blank when the length
or MTU is not known, the run is past the table's longest cable or the vendor's table is not
in the planner: the ConnectX formula is the NIC's, not the switch's), on a server link the NIC
end's xoff (``peer_pfc_xoff_b``: the mlx5 formula, :func:`planner.domain.transport.
pfc_xoff_bytes`, from the speed, the cable length and the servers' MTU, ConnectX/BlueField
NICs only), and whether
adaptive routing is on (switch-to-switch ports, when the design's load balancing is
``adaptive``). Only the compute fabric: the other networks (storage, in-band, out-of-band)
carry no RoCE settings in the spec.

Interface names
---------------
Named by :class:`planner.domain.names.PortLayout` from the port position
(:func:`planner.domain.names.port_position`: cage from 1, index in the cage from 0) and the
switch's catalog cage group (ports per cage, lanes per port), so that a port is the same port
in every output:

- NVIDIA Cumulus (NVUE): ``swp<cage>``, a broken-out port ``swp<cage>s<index>`` (``swp1s0``,
  ``swp1s1`` for a 2x breakout; Cumulus "Switch Port Attributes", breakout ports,
  https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/Switch-Port-Attributes/).
  Cages that carry two ports natively (twin-port InfiniBand-style cages) have no known
  Cumulus numbering: not named.
- SONiC: ``Ethernet<first lane>``, lanes counted from 0 across the data cages, each cage
  ``ports_per_cage x lanes_per_port`` lanes wide, a split port starting at its first lane
  (``Ethernet0``/``Ethernet4`` for a 2x400G 8-lane port: SONiC ``Configuration.md``, "2x100G
  port breakout",
  https://github.com/sonic-net/sonic-buildimage/blob/master/src/sonic-yang-models/doc/Configuration.md;
  the same step of 8 as the DCS-7060X6-64PE ``platform.json`` the catalog cites). Not named
  when the catalog does not give the lanes.
- Arista EOS: ``Ethernet<cage>/<first lane>`` on a multi-lane cage (an OSFP cage numbered 1
  exposes ``Ethernet1/1`` to ``Ethernet1/8``: EOS "Layer 1 Profiles",
  https://www.arista.com/en/um-eos/eos-layer-1-profiles), ``Ethernet<cage>`` on a one-lane
  port. Not named when the lanes are not known.

Only the names of the operating systems the switch runs are given
(:meth:`~planner.domain.names.PortLayout.names_on`): none on an InfiniBand switch, NVUE only
on an NVIDIA switch, EOS only on an Arista one (the renderers refuse the others the same way).

Streaming
---------
:func:`switch_intents` yields one switch at a time from one sorted index of the link ends, so
a 100,000-GPU fabric is written with memory for one switch's interfaces (plus the labels).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import yaml

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, SWITCH_ROLES, Fabric
from planner.domain.names import PortLayout, end_text, layout_of, port_position
from planner.domain.outputs.cabling import FabricEnds, link_labels
from planner.domain.outputs.config.text import safe_comment, safe_text, whole_metres
from planner.domain.summary import ordered_cable_length_m
from planner.domain.transport import TransportSettings, pfc_xoff_bytes
from planner.domain.transport.headroom import headroom_table
from planner.domain.transport.resolve import nic_of_server, transport_or_default
from planner.domain.transport.settings import CUMULUS_ROCE, nic_profile_for

#: The intent's format name (its first key); a change of meaning gets a new number.
FORMAT = "fabric-planner/day0-config/2"  # 2: pfc_xoff_b from the switch vendor (issue 36)
#: Choices the renderers make that the transport settings do not carry, each with its source:
#: NVIDIA's RoCE defaults (Cumulus "RDMA over Converged Ethernet - RoCE": ETS TC3 (RoCE) WRR
#: 50 %, TC0 WRR 50 %, TC6 (CNP) strict; ECN probability 100 as ``nv show qos roce`` prints).
FIXED: dict[str, dict] = {
    "ets_roce_percent": {"value": 50, "source": f"{CUMULUS_ROCE} (primary)"},
    "ets_other_percent": {"value": 50, "source": f"{CUMULUS_ROCE} (primary)"},
    "ets_cnp": {"value": "strict", "source": f"{CUMULUS_ROCE} (primary)"},
    "ecn_mark_probability_pct": {"value": 100, "source": f"{CUMULUS_ROCE} (primary)"},
}
#: The RoCE fields a switch configuration needs; a blank one is listed in ``missing``.
NEEDED_ROCE_FIELDS = (
    "lossless_priority",
    "lossless_dscp",
    "cnp_priority",
    "cnp_dscp",
    "trust",
    "ecn_min_kb",
    "ecn_max_kb",
    "mtu_b",
)
_YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


# --- transport settings ---------------------------------------------------------------------


def transport_of(fabric: Fabric, facts: CatalogFacts) -> tuple[TransportSettings, bool]:
    """The fabric's transport settings, and whether they are defaults rather than the spec's.

    A fabric built since designs carry transport settings has them
    (``fabric.settings.transport``); a revision built before gets the defaults a spec without
    a ``transport`` block gets (:func:`planner.domain.transport.resolve.transport_or_default`).
    """
    return transport_or_default(fabric, facts), fabric.settings.transport is None


def missing_fields(settings: TransportSettings) -> list[str]:
    """The blank RoCE fields a switch configuration needs (dotted, as the spec names them).

    >>> from planner.domain.transport.settings import default_roce
    >>> missing_fields(TransportSettings("roce", default_roce("arista"), None))[:2]
    ['roce.cnp_priority', 'roce.cnp_dscp']
    """
    roce = settings.roce
    if roce is None:
        return []
    out = []
    for name in NEEDED_ROCE_FIELDS:
        value = getattr(roce, name)
        if value is None or value == ():
            out.append(f"roce.{name}")
    return out


# --- the intent -----------------------------------------------------------------------------


@dataclass(frozen=True)
class InterfaceIntent:
    """One switch port with a link (see the module docstring)."""

    port: str
    cage: int
    index: int
    names: dict[str, str]
    speed_gbps: int
    peer: str
    peer_port: str
    peer_role: str
    label: str
    cable_length_m: float | None
    lossless: bool
    pfc_xoff_b: int | None
    adaptive_routing: bool
    # the NIC end of a server link: the ConnectX (mlx5) driver's xoff for this speed, cable
    # length and the servers' MTU (None for another NIC, a switch peer or a length unknown)
    peer_pfc_xoff_b: int | None = None
    # How this port's cage is split at its speed, when it differs from the switch's (a leaf
    # whose uplinks run slower or faster than its server links); None: the switch's layout.
    layout: PortLayout | None = None

    @property
    def peer_end(self) -> str:
        """The peer and its port as every page names them (``gpu00001 1/1``): descriptions."""
        return end_text(self.peer, self.peer_port)

    def as_dict(self) -> dict:
        return {
            "port": self.port,
            "names": dict(self.names),
            "speed_gbps": self.speed_gbps,
            "peer": self.peer,
            "peer_port": self.peer_port,
            "peer_role": self.peer_role,
            "label": self.label,
            "cable_length_m": self.cable_length_m,
            "lossless": self.lossless,
            "pfc_xoff_b": self.pfc_xoff_b,
            "peer_pfc_xoff_b": self.peer_pfc_xoff_b,
            "adaptive_routing": self.adaptive_routing,
            **({"breakout_legs": self.layout.legs} if self.layout is not None else {}),
        }


@dataclass(frozen=True)
class SwitchIntent:
    """One switch: what it is, its QoS (RoCE) and its linked interfaces in port order."""

    name: str
    role: str
    model: str
    manufacturer: str
    protocols: tuple[str, ...]
    layout: PortLayout
    mtu_b: int | None
    interfaces: tuple[InterfaceIntent, ...]
    qos: dict = field(default_factory=dict)

    @property
    def headroom_b(self) -> int | None:
        """PFC xoff headroom summed over the lossless ports (None when any is not known)."""
        values = [i.pfc_xoff_b for i in self.interfaces if i.lossless]
        if not values or any(v is None for v in values):
            return None
        return int(sum(values))

    def layout_of(self, interface: InterfaceIntent) -> PortLayout:
        """How ``interface``'s cage is split (its own layout, else the switch's)."""
        return interface.layout or self.layout

    @property
    def breakouts(self) -> list[int]:
        """The cages whose native ports are broken out (ascending)."""
        return sorted({i.cage for i in self.interfaces if self.layout_of(i).legs > 1})

    @property
    def breakouts_by_legs(self) -> dict[int, list[int]]:
        """The broken-out cages by their number of legs (a leaf may split its server-side
        cages 2 x 400G and its uplink cages 4 x 200G)."""
        out: dict[int, set[int]] = {}
        for interface in self.interfaces:
            legs = self.layout_of(interface).legs
            if legs > 1:
                out.setdefault(legs, set()).add(interface.cage)
        return {legs: sorted(cages) for legs, cages in sorted(out.items())}

    def as_dict(self) -> dict:
        doc = {
            "name": self.name,
            "role": self.role,
            "model": self.model,
            "manufacturer": self.manufacturer,
            "protocols": list(self.protocols),
            "ports_per_cage": self.layout.per_cage,
            "breakout_legs": self.layout.legs,
            "lanes_per_port": self.layout.lanes_per_port,
            "breakout_cages": self.breakouts,
        }
        if self.qos:
            doc["mtu_b"] = self.mtu_b
            doc["pfc_headroom_b"] = self.headroom_b
            doc["qos"] = dict(self.qos)
        doc["interfaces"] = [i.as_dict() for i in self.interfaces]
        return doc


def _qos_block(settings: TransportSettings) -> dict:
    roce = settings.roce
    if roce is None:
        return {}
    fixed = {name: spec["value"] for name, spec in FIXED.items()}
    return {
        "pfc_mode": roce.pfc_mode,
        "lossless_priority": roce.lossless_priority,
        "lossless_dscp": list(roce.lossless_dscp),
        "cnp_priority": roce.cnp_priority,
        "cnp_dscp": roce.cnp_dscp,
        "trust": roce.trust,
        "ecn_min_kb": roce.ecn_min_kb,
        "ecn_max_kb": roce.ecn_max_kb,
        "pfc_watchdog": roce.pfc_watchdog,
        "load_balancing": roce.load_balancing,
        "multiplane_mode": roce.multiplane_mode,
        **fixed,
    }


def _is_connectx(facts: CatalogFacts, server: str, memo: dict[str, bool]) -> bool:
    """Whether ``server``'s compute NIC is an NVIDIA ConnectX / BlueField (the mlx5 driver)."""
    if server not in memo:
        _, name, maker = nic_of_server(facts, server)
        memo[server] = nic_profile_for(maker, name) == "nvidia-connectx"
    return memo[server]


def is_lossless(settings: TransportSettings) -> bool:
    """Whether the switch ports run PFC (RoCE lossless or semi-lossless, priority known)."""
    roce = settings.roce
    return bool(roce and roce.pfc_mode != "lossy" and roce.lossless_priority is not None)


def switch_intents(
    fabric: Fabric, facts: CatalogFacts, settings: TransportSettings
) -> Iterator[SwitchIntent]:
    """One :class:`SwitchIntent` per switch of the compute fabric, in node order."""
    ends = FabricEnds(fabric)
    labels = link_labels(fabric, ends)
    lengths = ordered_cable_length_m(fabric)
    roce = settings.roce
    lossless = is_lossless(settings)
    adaptive = bool(roce and roce.load_balancing == "adaptive")
    qos = _qos_block(settings)
    count = fabric.link_count
    node = np.concatenate([fabric.link_a, fabric.link_b])
    port = np.concatenate([fabric.link_a_port, fabric.link_b_port])
    link = np.concatenate([np.arange(count), np.arange(count)])
    peer = np.concatenate([fabric.link_b, fabric.link_a])
    peer_port = np.concatenate([fabric.link_b_port, fabric.link_a_port])
    order = np.lexsort((port, node))
    sorted_nodes = node[order]
    switch_codes = [ROLE[r] for r in SWITCH_ROLES]
    switches = np.flatnonzero(np.isin(fabric.node_role, switch_codes)).tolist()
    layouts: dict[tuple[str, int], PortLayout] = {}
    connectx: dict[str, bool] = {}
    unit = fabric.node_unit_speed_gbps()  # a node's port numbers count at its slowest link
    for n in switches:
        model, role = ends.models[n], ends.roles[n]
        per_cage = ends.per_cage[n]
        layout = layouts.get((model, per_cage))
        if layout is None:
            layout = layouts[(model, per_cage)] = layout_of(facts, model, per_cage)
        record = facts.parts.get(model) or {}
        device = facts.devices.get(model)
        table = headroom_table(model)
        manufacturer = str(record.get("manufacturer") or "")
        protocols = tuple(device.protocols) if device is not None else ()
        mtu = roce.mtu_of(role) if roce else None
        lo = int(np.searchsorted(sorted_nodes, n, "left"))
        hi = int(np.searchsorted(sorted_nodes, n, "right"))
        interfaces = []
        for end in order[lo:hi].tolist():
            i, p = int(link[end]), int(port[end])
            q, qp = int(peer[end]), int(peer_port[end])
            cage, index = port_position(per_cage, p)
            speed = int(fabric.link_speed_gbps[i])
            own = None  # a faster link than the node's slowest takes ``scale`` of its ports
            scale = speed // max(1, int(unit[n])) if unit[n] else 1
            if scale > 1 and per_cage % scale == 0:
                key = (model, per_cage // scale)
                own = layouts.get(key) or layouts.setdefault(key, layout_of(facts, *key))
                index //= scale
            length = float(lengths[i]) if lengths is not None else float("nan")
            length_m = round(length, 2) if math.isfinite(length) else None
            metres = whole_metres(length_m)
            xoff = None
            if lossless and metres is not None and mtu and table is not None:
                value = float(table.xoff_bytes([speed], [metres])[0])
                xoff = int(value) if math.isfinite(value) else None
            peer_xoff = None
            peer_model = ends.models[q]
            if lossless and metres is not None and ends.roles[q] == "server":
                nic_mtu = roce.mtu_of("server") if roce else None
                if nic_mtu and _is_connectx(facts, peer_model, connectx):
                    peer_xoff = int(round(pfc_xoff_bytes(speed, metres, nic_mtu)))
            interfaces.append(
                InterfaceIntent(
                    port=ends.port_name(n, p),
                    cage=cage,
                    index=index,
                    names=(own or layout).names_on(
                        cage, index, protocols=protocols, manufacturer=manufacturer
                    ),
                    speed_gbps=speed,
                    peer=safe_text(ends.names[q]),
                    peer_port=ends.port_name(q, qp),
                    peer_role=ends.roles[q],
                    label=safe_text(labels[i]),
                    cable_length_m=length_m,
                    lossless=lossless,
                    pfc_xoff_b=xoff,
                    peer_pfc_xoff_b=peer_xoff,
                    adaptive_routing=adaptive and ends.roles[q] in SWITCH_ROLES,
                    layout=own,
                )
            )
        yield SwitchIntent(
            name=safe_text(ends.names[n]),
            role=role,
            model=safe_text(model),
            manufacturer=manufacturer,
            protocols=protocols,
            layout=layout,
            mtu_b=mtu,
            interfaces=tuple(interfaces),
            qos=qos,
        )


@dataclass(frozen=True)
class FabricIntent:
    """The header of an intent: design, transport, settings, sources and notes."""

    design: str
    revision: int | None
    settings: TransportSettings
    defaulted: bool
    switch_count: int
    notes: tuple[str, ...] = ()

    @property
    def transport(self) -> str:
        return self.settings.transport

    @property
    def missing(self) -> list[str]:
        return missing_fields(self.settings)

    def as_dict(self) -> dict:
        settings = self.settings
        doc = {
            "format": FORMAT,
            "design": self.design,
            "revision": self.revision,
            "transport": settings.transport,
            "settings_from": "defaults" if self.defaulted else "design",
            "switch_count": self.switch_count,
        }
        if settings.roce is not None:
            doc["roce"] = settings.roce.as_dict()
            doc["fixed"] = {name: dict(spec) for name, spec in FIXED.items()}
        if settings.infiniband is not None:
            doc["subnet_manager"] = settings.infiniband.as_dict()
        doc["missing"] = self.missing
        doc["sources"] = dict(settings.sources)
        doc["notes"] = list(self.notes)
        return doc


def fabric_intent(
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    name: str,
    revision: int | None,
    notes: tuple[str, ...] = (),
) -> FabricIntent:
    """The header of ``fabric``'s intent (its settings from :func:`transport_of`)."""
    settings, defaulted = transport_of(fabric, facts)
    switch_codes = [ROLE[r] for r in SWITCH_ROLES]
    count = int(np.isin(fabric.node_role, switch_codes).sum())
    extra = list(notes)
    if defaulted:
        extra.insert(
            0,
            "This revision was built before designs carried transport settings: the defaults "
            "of its switches and NICs apply (save the design again to store them, or give a "
            "transport block to change them).",
        )
    missing = missing_fields(settings)
    if missing:
        extra.append(
            "Not set, so not configured: "
            + ", ".join(missing)
            + " (no published default was found for this switch profile: set them in the "
            "spec's transport block)."
        )
    return FabricIntent(safe_comment(name, 200), revision, settings, defaulted, count, tuple(extra))


# --- YAML and JSON --------------------------------------------------------------------------


def _yaml(doc: dict) -> str:
    return yaml.dump(
        doc,
        Dumper=_YAML_DUMPER,
        sort_keys=False,
        default_flow_style=None,
        allow_unicode=True,
        width=4096,
    )


def intent_yaml_chunks(header: FabricIntent, switches: Iterator[SwitchIntent]) -> Iterator[str]:
    """The intent as a YAML stream: the header document, then one document per switch, its
    interfaces one flow mapping a line (``yaml.safe_load_all`` reads it back)."""
    yield "# Fabric Planner day-0 configuration intent: the header, then one document per switch.\n"
    yield _yaml(header.as_dict())
    for switch in switches:
        doc = switch.as_dict()
        interfaces = doc.pop("interfaces")
        yield "---\n" + _yaml(doc)
        if not interfaces:
            yield "interfaces: []\n"
            continue
        # one flow mapping per interface: JSON is YAML, and json.dumps is ~10x PyYAML's speed
        yield "interfaces:\n" + "".join(f"- {json.dumps(i)}\n" for i in interfaces)


def intent_json_chunks(header: FabricIntent, switches: Iterator[SwitchIntent]) -> Iterator[str]:
    """The intent as one JSON object: the header's keys and ``switches``, the list of switch
    documents (streamed)."""
    head = json.dumps(header.as_dict())
    yield head[:-1] + ', "switches": ['
    first = True
    for switch in switches:
        yield ("" if first else ",") + json.dumps(switch.as_dict())
        first = False
    yield "]}\n"


__all__ = [
    "FIXED",
    "FORMAT",
    "FabricIntent",
    "InterfaceIntent",
    "PortLayout",
    "SwitchIntent",
    "fabric_intent",
    "intent_json_chunks",
    "intent_yaml_chunks",
    "is_lossless",
    "layout_of",
    "missing_fields",
    "switch_intents",
    "transport_of",
]
