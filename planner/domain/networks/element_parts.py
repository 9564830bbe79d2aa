"""The cluster networks' device and link records and the primitives that name them (issue 18).

Split from :mod:`planner.domain.networks.elements` (which documents the rules and builds the
networks): the record types, their text columns, the port and switch naming helpers, the host
and pod-link builders shared by every network."""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields

from planner.domain import names
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric, FabricError
from planner.domain.networks.common import switch_ports
from planner.domain.networks.lengths import RackPlace
from planner.domain.networks.management import RA_PARTS
from planner.domain.networks.media import CHOSEN_PER

__all__ = ["ELEMENT_NETWORKS", "ClusterElements", "NetworkDevice", "NetworkLink", "port_name"]


#: Networks in build order, as :attr:`NetworkDevice.network` and :attr:`NetworkLink.network`.
ELEMENT_NETWORKS = ("storage", "converged", "inband", "oob", "management")


#: Device-name prefix per network (``stor-leaf-01``, ``inb-core-02``, ``oob-03``).
DEVICE_PREFIX = {"storage": "stor", "converged": "conv", "inband": "inb", "oob": "oob"}


#: A node's port name per network (``stor1``, ``inb2``; a BMC is ``bmc``).
PORT_PREFIX = {"storage": "stor", "converged": "conv", "inband": "inb"}


MANAGEMENT_RACK = "MGMT-{:02d}"  # inferred naming, distinct from the layout's R001-01


TOP_OF_RACK_RU = 2  # the layout's top-of-rack management units (layout.MANAGEMENT_RU)


@dataclass(frozen=True)
class NetworkDevice:
    """A device of a cluster network, or a compute device as one of its endpoints."""

    name: str  # unique across the design; compute devices keep their fabric names
    network: str  # storage | converged | inband | oob | management | compute
    role: str  # leaf, storage-leaf, spine, core, ufm, management-node, pdu, server ...
    model: str  # catalog slug, or printed part number when not in the catalog
    rack: str = ""
    ru: int | None = None


@dataclass(frozen=True)
class NetworkLink:
    """One logical link (a cable, or one leg of a splitter/breakout ``assembly``)."""

    network: str
    group: str  # the LinkGroup.name this link expands
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    speed_gbps: float
    cable_kind: str
    cable_part: str = ""
    a_transceiver: str = ""
    b_transceiver: str = ""
    run_length_m: float | None = None
    assembly: str = ""
    leg: int | None = None

    @property
    def cable_id(self) -> str:
        """What distinguishes one cable: its assembly, or the link's own ends."""
        return self.assembly or f"{self.a_device}:{self.a_port}|{self.b_device}:{self.b_port}"


@dataclass(frozen=True)
class ClusterElements:
    """Every device and link of the cluster's other networks (see the module docstring)."""

    devices: tuple[NetworkDevice, ...] = ()
    links: tuple[NetworkLink, ...] = ()
    racks: tuple[str, ...] = ()  # management racks added beside the layout's racks
    notes: tuple[str, ...] = ()
    rack_places: tuple[RackPlace, ...] = ()  # the management racks' rows and positions

    def networks(self) -> tuple[str, ...]:
        """Networks present (with a device or link, ``compute`` left out), in build order."""
        present = {d.network for d in self.devices} | {link.network for link in self.links}
        return tuple(name for name in ELEMENT_NETWORKS if name in present)

    @functools.cached_property
    def _by_name(self) -> dict[str, NetworkDevice]:
        return {d.name: d for d in self.devices}

    @functools.cached_property
    def _by_network(self) -> dict[str, tuple[tuple[NetworkDevice, ...], tuple[NetworkLink, ...]]]:
        devices: dict[str, list[NetworkDevice]] = {}
        links: dict[str, list[NetworkLink]] = {}
        for d in self.devices:
            devices.setdefault(d.network, []).append(d)
        for link in self.links:
            links.setdefault(link.network, []).append(link)
        return {
            name: (tuple(devices.get(name, ())), tuple(links.get(name, ())))
            for name in {*devices, *links}
        }

    def devices_of(self, network: str) -> tuple[NetworkDevice, ...]:
        return self._by_network.get(network, ((), ()))[0]

    def links_of(self, network: str) -> tuple[NetworkLink, ...]:
        return self._by_network.get(network, ((), ()))[1]

    def device(self, name: str) -> NetworkDevice | None:
        """The device called ``name`` (None when there is none); indexed once."""
        return self._by_name.get(name)

    def to_dict(self) -> dict:
        """Plain, JSON-ready columns, as the revision stores them beside the compute fabric's
        (:meth:`planner.domain.fabric.Fabric.to_dict`); :meth:`from_dict` reverses it.

        One list per field; the text columns that repeat (network, role, model, rack, group,
        port, cable, transceiver) as codes into their distinct values, and a link's ends as
        indexes into the devices (a name only for an end that is not a device).
        """
        index = {d.name: i for i, d in enumerate(self.devices)}
        devices = {"name": [d.name for d in self.devices]}
        for key in _DEVICE_TEXT:
            devices[key] = _codes([getattr(d, key) for d in self.devices])
        devices["ru"] = [d.ru for d in self.devices]
        links: dict = {}
        for end in ("a", "b"):
            links[end] = [
                index.get(getattr(link, f"{end}_device"), getattr(link, f"{end}_device"))
                for link in self.links
            ]
        for key in _LINK_TEXT:
            links[key] = _codes([getattr(link, key) for link in self.links])
        for key in _LINK_PLAIN:
            links[key] = [_plain(getattr(link, key)) for link in self.links]
        return {
            "devices": devices,
            "links": links,
            "racks": list(self.racks),
            "notes": list(self.notes),
            "rack_places": [[p.name, p.row, p.position, p.rack_units] for p in self.rack_places],
        }

    @classmethod
    def from_dict(cls, data: dict) -> ClusterElements:
        """The elements of :meth:`to_dict`."""
        d, ln = data.get("devices") or {}, data.get("links") or {}
        names = list(d.get("name") or [])
        count = len(names)
        devices = tuple(
            map(
                NetworkDevice,
                names,
                *(_values(d.get(key), count) for key in _DEVICE_TEXT),
                d.get("ru") or [None] * count,
            )
        )
        count = len(ln.get("a") or [])
        columns = {
            end: [names[v] if isinstance(v, int) else str(v) for v in ln.get(end) or []]
            for end in ("a", "b")
        }
        columns.update({key: _values(ln.get(key), count) for key in _LINK_TEXT})
        columns.update({key: ln.get(key) or [None] * count for key in _LINK_PLAIN})
        order = [f.name for f in fields(NetworkLink)]
        links = tuple(map(NetworkLink, *(columns[_COLUMN.get(n, n)] for n in order)))
        return cls(
            devices=devices,
            links=links,
            racks=tuple(data.get("racks") or ()),
            notes=tuple(data.get("notes") or ()),
            rack_places=tuple(RackPlace(*place) for place in data.get("rack_places") or ()),
        )


_DEVICE_TEXT = ("network", "role", "model", "rack")  # NetworkDevice's fields after its name


_COLUMN = {"a_device": "a", "b_device": "b"}  # the stored link column of a field


_LINK_TEXT = (
    "network",
    "group",
    "a_port",
    "b_port",
    "cable_kind",
    "cable_part",
    "a_transceiver",
    "b_transceiver",
    "assembly",
)


_LINK_PLAIN = ("speed_gbps", "run_length_m", "leg")


def _plain(value):
    """A NumPy scalar as the Python number it holds (JSON-ready); anything else unchanged."""
    return value.item() if hasattr(value, "item") else value


def _codes(column: list[str]) -> dict:
    """``{"values": distinct values in order of first use, "codes": index per row}``."""
    values: dict[str, int] = {}
    codes = [values.setdefault(value, len(values)) for value in column]
    return {"values": list(values), "codes": codes}


def _values(encoded: dict | None, count: int) -> list[str]:
    """The column of :func:`_codes` (empty text for a column not stored)."""
    if not encoded:
        return [""] * count
    values = encoded["values"]
    return [values[code] for code in encoded["codes"]]


def port_name(index: int, per_cage: int) -> str:
    """A 0-based logical port as every output names it (:func:`planner.domain.names.
    port_name`): ``cage`` or ``cage/port``.

    >>> port_name(0, 1), port_name(5, 2)
    ('1', '3/2')
    """
    return names.port_name(per_cage, index)


class _Builder:
    def __init__(self, fabric: Fabric, facts: CatalogFacts):
        self.fabric = fabric
        self.facts = facts
        self.taken = set(fabric.node_name)
        self.devices: dict[str, NetworkDevice] = {}
        self.links: list[NetworkLink] = []
        self.notes: list[str] = []
        self.next_port: dict[str, int] = {}  # device -> next free port (0-based)
        self.per_cage: dict[str, int] = {}  # switch -> logical ports per cage
        self.homes: dict[str, tuple[str, ...]] = {}  # OOB switch -> its rack group's racks

    def add(self, base: str, network: str, role: str, model: str) -> str:
        """Register a new device named ``base`` (suffixed when the name is taken)."""
        name, n = base, 1
        while name in self.taken:
            n += 1
            name = f"{base}-{n}"
        if name != base:
            self.notes.append(f"{base} is named {name}: the name is taken in the fabric")
        self.taken.add(name)
        self.devices[name] = NetworkDevice(name, network, role, model)
        return name

    def compute(self, node: int) -> str:
        """A compute node as an endpoint (registered once, with its fabric rack and RU)."""
        fabric = self.fabric
        name = fabric.node_name[node]
        if name not in self.devices:
            rack, ru = "", None
            if fabric.node_rack is not None and 0 <= int(fabric.node_rack[node]) < len(
                fabric.racks
            ):
                rack = str(fabric.racks[int(fabric.node_rack[node])]["name"])
                ru = int(fabric.node_ru[node]) if fabric.node_ru is not None else None
            role = fabric.role_of(node)
            self.devices[name] = NetworkDevice(
                name, "compute", role, fabric.models[int(fabric.node_model[node])], rack, ru
            )
        return name

    def link(self, network: str, group: dict, a: str, a_port: str, b: str, b_port: str, **kw):
        cable = group.get("cable") or {}
        self.links.append(
            NetworkLink(
                network=network,
                group=group["name"],
                a_device=a,
                a_port=a_port,
                b_device=b,
                b_port=b_port,
                speed_gbps=float(group["speed_gbps"]),
                cable_kind=str(group["cable_kind"]),
                cable_part=str(cable.get("part") or ""),
                **kw,
            )
        )

    def take(self, device: str) -> str:
        """The next free port of a device whose ports are taken in order (cores, spines)."""
        index = self.next_port.get(device, 0)
        self.next_port[device] = index + 1
        return port_name(index, self.per_cage.get(device, 1))


def _ports(facts: CatalogFacts, group: dict, speed) -> tuple[int, int]:
    """``(ports, ports_per_cage)`` of a switch group's model at ``speed``."""
    try:
        return switch_ports(facts, group["model"], int(speed), "networks")
    except (FabricError, TypeError, ValueError):
        return int(group.get("ports_each") or 0), 1


def _switches(b: _Builder, network: str, plan: dict) -> dict[str, list[str]]:
    """Name and register every switch of a network; ``{role: [names]}`` in group order."""
    out: dict[str, list[str]] = {}
    prefix = DEVICE_PREFIX[network]
    for group in plan.get("switch_groups") or []:
        names = out.setdefault(group["role"], [])
        for _ in range(int(group["count"])):
            base = prefix if network == "oob" else f"{prefix}-{group['role']}"
            names.append(
                b.add(f"{base}-{len(names) + 1:02d}", network, group["role"], group["model"])
            )
    return out


class _Hosts:
    """The nodes with their own ports: servers, or each compute tray of a rack-scale system."""

    def __init__(self, b: _Builder, facts: CatalogFacts):
        fabric = b.fabric
        self.servers = [int(i) for i in fabric.nodes_with_role("server")]
        model = fabric.models[int(fabric.node_model[self.servers[0]])] if self.servers else ""
        device = facts.devices.get(model)
        self.trays = int(device.compute_trays) if device and device.compute_trays else 1
        trays = (facts.parts.get(model) or {}).get("trays") or {}
        switch_trays = trays.get("switch") if isinstance(trays, dict) else None
        self.switch_trays = int(switch_trays or 0) if self.trays > 1 else 0
        self.b = b

    def __len__(self) -> int:
        return len(self.servers) * self.trays

    def port(self, host: int, port: str) -> tuple[str, str]:
        """Device and port name of ``port`` on host ``host`` (0-based)."""
        server = self.b.compute(self.servers[host // self.trays])
        if self.trays > 1:
            return server, f"tray{host % self.trays + 1:02d}/{port}"
        return server, port


ENDPOINT_ROLES = ("storage-array", "nfs-storage", "customer-core", "unnamed-endpoint")


def _endpoint(b: _Builder, base: str, role: str, network: str) -> str:
    """An endpoint outside the plan (storage arrays, NFS storage, the customer's core): one
    device per role, its ports numbered; it belongs to the network that first needs it."""
    for device in b.devices.values():
        if device.role == role:
            return device.name
    return b.add(base, network, role, "")


def _side_parts(plan: dict) -> dict[str, str]:
    """Transceiver label per side (``switch``, ``node``, ``ufm``) of the reference's printed
    parts (those chosen by length are set per link, :func:`apply_network_media`)."""
    out: dict[str, str] = {}
    for part in plan.get("parts") or []:
        if part.get("category") == "transceiver" and part.get("counted_per") != CHOSEN_PER:
            out.setdefault(part["side"], part["part"])
    return out


def _pod_links(
    b: _Builder,
    network: str,
    groups: dict,
    settings: dict,
    leaves: list[str],
    uplinks: list[int],
    spines: list[str],
    cores: list[str],
    leaf_port,
    **kw,
) -> None:
    """A three-tier network's leaf-spine and spine-core links, as
    :func:`planner.domain.networks.tiers.three_tiers` sized them: the leaves in pods (sizes
    ``settings["pods"]``), each leaf's uplinks round its pod's spines, spine ``j`` of every pod
    to core group ``j`` (``settings["core_groups"]`` cores each) as many times as it has
    downlinks. ``leaf_port(leaf, k, up)`` names a leaf's ``k``-th uplink port."""
    per_pod = int(settings.get("spines_per_pod") or 0)
    pods = [int(n) for n in settings.get("pods") or []]
    up_group, core_group = groups.get("leaf-spine"), groups.get("spine-core")
    if not (per_pod and pods and up_group):
        return
    downs: list[list[int]] = []  # per pod, per spine: downlinks
    start = 0
    for pod, size in enumerate(pods):
        pod_spines = spines[pod * per_pod : (pod + 1) * per_pod]
        loads = [0] * per_pod
        offset = 0
        for leaf, up in zip(
            leaves[start : start + size], uplinks[start : start + size], strict=True
        ):
            for k in range(up):
                j = (offset + k) % per_pod
                loads[j] += 1
                b.link(
                    network,
                    up_group,
                    leaf,
                    leaf_port(leaf, k, up),
                    pod_spines[j],
                    b.take(pod_spines[j]),
                    **kw,
                )
            offset += up
        downs.append(loads)
        start += size
    if not core_group:
        return
    first = 0
    for j, count in enumerate(int(n) for n in settings.get("core_groups") or []):
        group_cores = cores[first : first + count]
        first += count
        offset = 0
        for pod, loads in enumerate(downs):
            for k in range(loads[j]):
                core = group_cores[(offset + k) % len(group_cores)]
                b.link(
                    network,
                    core_group,
                    spines[pod * per_pod + j],
                    b.take(spines[pod * per_pod + j]),
                    core,
                    b.take(core),
                    **kw,
                )
            offset += loads[j]


def _management_node(b: _Builder, index: int) -> str:
    return _numbered(b, "mgmt", index, "management-node", _ra_model("management_node"))


def _ufm(b: _Builder, index: int) -> str:
    return _numbered(b, "ufm", index, "ufm", _ra_model("ufm"))


def _ra_model(role: str) -> str:
    return RA_PARTS[role][0]


def _numbered(b: _Builder, prefix: str, index: int, role: str, model: str) -> str:
    """The ``index``-th (0-based) management device of ``role``, registered up to it."""
    mine = [d.name for d in b.devices.values() if d.role == role and d.network == "management"]
    while len(mine) <= index:
        mine.append(b.add(f"{prefix}-{len(mine) + 1:02d}", "management", role, model))
    return mine[index]
