"""The cluster networks as concrete devices and links (issue 18).

:func:`planner.domain.networks.cluster_networks` sizes the storage, converged, in-band and
out-of-band networks as counts (``fabric.settings.networks``: switch groups, link groups,
parts). :func:`cluster_elements` expands those counts into named devices and port-to-port
links, deterministically, from the fabric alone, by the generators' own rules:

Storage and converged (:mod:`~planner.domain.networks.storage`)
    - node ports fill the node leaves leaf by leaf (``common.spread``: ``ceil(ports /
      leaves)`` each), the port-0s of every node first, then the port-1s, so that a
      dual-homed node's ports land on different leaves; a leaf's node ports take its lowest
      ports, its uplinks its highest whole cages;
    - every leaf's uplinks go round the spines, the next leaf starting where the previous one
      stopped (the generator's count of spine ports); a spine's ports are taken in leaf order;
    - storage-array ports land on the storage leaves, one cable after another, the cables
      spread evenly (``spread``); a port slower than the fabric's is a leg of a splitter
      (``assembly``, ``leg``) that takes one whole cage of a storage leaf;
    - management-node splitters, then UFM cables (one per appliance, its two ports as legs
      of one cage), go round the storage leaves (the node leaves when there are none), one
      cage each (inferred: round-robin, so that redundant appliances land on different
      leaves; it keeps the generator's ``ceil(cables / leaves)`` per leaf);
    - a converged fabric's customer uplinks leave the spines in turn (the leaves without
      spines).

In-band (:mod:`~planner.domain.networks.inband`)
    - dual-homed: leaves form pairs (``inb-leaf-01``/``-02``, ...); nodes are spread evenly
      over the pairs (``spread``; filled pair by pair to the leaf's capacity when an even
      spread would not fit) and a node's ports alternate between the pair's two leaves; not
      dual-homed: filled leaf by leaf as storage;
    - a leaf's ports: nodes from port 1, then its ``leaf_uplinks`` uplinks, then its ISL ports
      on the highest ports (inferred); uplink ``k`` of a leaf goes to core ``k mod cores``;
    - management nodes, NFS links and customer uplinks go round the cores in turn, and so do
      the OOB switches' uplinks; a core's ports are taken in that order (inferred).

Out-of-band (:mod:`~planner.domain.networks.oob`)
    - the managed ports in the generator's order (node BMCs, compute fabric switches, the
      other networks' switches, management and UFM nodes, PDUs, NVLink switch trays, storage
      appliance management ports) fill the OOB switches switch by switch (``spread``: ``ceil
      (ports / switches)`` each); the RJ45 ports are numbered from 1, the uplinks after them
      (an SN2201's 48 RJ45 then its QSFP28 ports 49-52);
    - by rack group (``networks.oob.switches_per_rack``, :func:`~planner.domain.networks.oob.
      rack_groups`): the compute racks in layout order form the generator's groups; a group's
      switches (named in group order, ``oob-01`` first) take its racks' ports (BMCs, NVLink
      switch trays, PDUs) spread evenly over them; every other managed port (switches of every
      network, management and UFM nodes, management-rack PDUs, storage appliances) then fills
      the spare ports switch by switch in that order, the generator's extra switches last;
    - the UFM back-to-back cable joins the two appliances of a pair directly (port ``ha``);
      the generator also reserves an OOB switch port for it (its switch count is unchanged),
      here it is not patched to a switch (inferred from the RA's "UFM back-to-back" row);
    - each OOB switch's uplinks go to the in-band cores in turn (the converged spines when
      there is no in-band network, a ``customer-core`` endpoint otherwise).

Devices and racks (inferred placement rule)
    Compute servers and switches keep their fabric names, racks and RUs. A rack-scale
    system's compute trays have their own ports, named by tray (``tray03/stor1``); its NVLink
    switch trays' management ports likewise (``nvsw02/mgmt``). The spec's management racks
    (``networks.management_racks``, RA 6) become racks ``MGMT-01``...; they hold, in order,
    the storage, converged and in-band switches, the UFM appliances and the management
    nodes, spread evenly over them (``spread``) and stacked from U1 by catalog height (1 U
    when unknown) up to the layout's usable rack units. Without management racks these
    devices have no rack. An OOB switch goes where its managed ports are: into the rack that
    holds most of the devices it serves (the first such rack on a tie; a rack group's switch
    only into its group's racks), in the top 2 U the layout leaves for top-of-rack management
    gear (at most two per rack; the next best rack when full). PDUs belong to their rack (no
    RU: 0 U). Storage arrays, NFS storage and the customer's core are endpoints outside the
    plan (no rack).

Run lengths
    The management racks take a row of their own after the layout's last row, centred
    (inferred; :mod:`planner.domain.networks.lengths`, ``ClusterElements.rack_places``), and
    every link whose two ends have a rack gets ``run_length_m`` by the layout's own run rule
    with the distances kept in ``fabric.settings.layout`` (:func:`planner.domain.layout.
    run_lengths_m`); links to endpoints outside the plan (storage arrays, NFS, the
    customer's core) keep None.

Media
    Links whose group was sized without a part get the media chosen for them by length when
    the design was built (:func:`planner.domain.networks.media.apply_network_media`, from the
    options kept with the link group): ``cable_part``, ``cable_kind`` and, for optics, a
    transceiver per end.

Nothing here imports Django.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from dataclasses import dataclass, fields, replace

from planner.domain import names
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import SWITCH_ROLES, Fabric, FabricError
from planner.domain.networks.common import ceil_div, spread, switch_ports
from planner.domain.networks.lengths import RackPlace, management_rack_places, with_run_lengths
from planner.domain.networks.management import RA_PARTS
from planner.domain.networks.media import CHOSEN_PER, apply_network_media
from planner.domain.networks.oob import rack_groups

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


# --------------------------------------------------------------------------------------------
# building


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


def _leaf_spine(b: _Builder, network: str, plan: dict, hosts: _Hosts, shared: dict) -> None:
    groups = {g["name"]: g for g in plan.get("link_groups") or []}
    settings = plan.get("settings") or {}
    switch_groups = {g["role"]: g for g in plan.get("switch_groups") or []}
    names = _switches(b, network, plan)
    leaves, sleaves, spines = (names.get(r, []) for r in ("leaf", "storage-leaf", "spine"))
    speed = settings.get("speed_gbps") or 0
    any_leaf = switch_groups.get("leaf") or switch_groups.get("storage-leaf")
    radix, per_cage = _ports(b.facts, any_leaf, speed) if any_leaf else (0, 1)
    spine_cage = _ports(b.facts, switch_groups["spine"], speed)[1] if spines else 1
    optics = _side_parts(plan)
    sw_optic, node_optic, ufm_optic = (optics.get(s, "") for s in ("switch", "node", "ufm"))
    used: dict[str, int] = {}  # leaf -> next free port from the bottom (0-based)
    b.per_cage.update(dict.fromkeys(leaves + sleaves, per_cage))
    b.per_cage.update(dict.fromkeys(spines, spine_cage))

    def cage_start(leaf: str) -> int:
        """The first port of the leaf's next whole cage."""
        start = ceil_div(used.get(leaf, 0), per_cage) * per_cage
        used[leaf] = start + per_cage
        return start

    # node ports, the port-0s of every node first
    node_group = groups.get("node-leaf")
    ppn = int(settings.get("ports_per_node") or 0)
    if node_group and leaves and ppn:
        loads = spread(int(node_group["links"]), len(leaves))
        position, host_count = 0, int(node_group["links"]) // ppn
        for leaf, load in zip(leaves, loads, strict=True):
            for _ in range(load):
                port, host = divmod(position, host_count)
                a, a_port = hosts.port(host, f"{PORT_PREFIX[network]}{port + 1}")
                index = used.get(leaf, 0)
                used[leaf] = index + 1
                b.link(
                    network,
                    node_group,
                    a,
                    a_port,
                    leaf,
                    port_name(index, per_cage),
                    a_transceiver=node_optic,
                    b_transceiver=sw_optic,
                )
                position += 1

    # storage-array ports: cables spread over the storage leaves
    storage_group = groups.get("storage-leaf")
    if storage_group and sleaves:
        ports = int(storage_group["links"])
        cables = int(storage_group["cables"])
        legs = ceil_div(ports, cables) if cables else 1
        array = _endpoint(b, "storage-array-01", "storage-array", network)
        port = 0
        for leaf, count in zip(sleaves, spread(cables, len(sleaves)), strict=True):
            for _ in range(count):
                if legs > 1:
                    start = cage_start(leaf)
                    this = min(legs, ports - port)
                    assembly = f"{leaf}:{start // per_cage + 1} 1:{this}"
                    for leg in range(this):
                        index = start + (leg if per_cage > 1 else 0)
                        b.link(
                            network,
                            storage_group,
                            array,
                            str(port + 1),
                            leaf,
                            port_name(index, per_cage),
                            assembly=assembly,
                            leg=leg + 1,
                        )
                        port += 1
                else:
                    index = used.get(leaf, 0)
                    used[leaf] = index + 1
                    b.link(
                        network,
                        storage_group,
                        array,
                        str(port + 1),
                        leaf,
                        port_name(index, per_cage),
                        b_transceiver=sw_optic,
                    )
                    port += 1

    # management-node splitters, then UFM cables: round the host leaves, a cage each
    host_leaves = sleaves or leaves
    turn = 0
    mgmt_group = groups.get("management-leaf")
    if mgmt_group and host_leaves:
        links, cables = int(mgmt_group["links"]), int(mgmt_group["cables"])
        per_node = int(settings.get("management_ports_per_node") or 1)
        legs = ceil_div(links, cables) if cables else 1
        for cable in range(cables):
            leaf = host_leaves[turn % len(host_leaves)]
            turn += 1
            start = cage_start(leaf)
            this = min(legs, links - cable * legs)
            assembly = f"{leaf}:{start // per_cage + 1} 1:{this}" if this > 1 else ""
            for leg in range(this):
                k = cable * legs + leg
                node = _management_node(b, k // per_node)
                b.link(
                    network,
                    mgmt_group,
                    node,
                    f"{PORT_PREFIX[network]}{k % per_node + 1}",
                    leaf,
                    port_name(start + (leg if per_cage > 1 else 0), per_cage),
                    assembly=assembly,
                    leg=leg + 1 if assembly else None,
                )
    ufm_group = groups.get("ufm-leaf")
    if ufm_group and host_leaves:
        cables, links = int(ufm_group["cables"]), int(ufm_group["links"])
        legs = ceil_div(links, cables) if cables else 1
        # the network's appliances are the last of the cluster's (inferred: the first serve
        # the compute fabric)
        total = max(int(shared.get("ufm_appliances") or 0), cables)
        for cable in range(cables):
            leaf = host_leaves[turn % len(host_leaves)]
            turn += 1
            start = cage_start(leaf)
            ufm = _ufm(b, total - cables + cable)
            assembly = f"{leaf}:{start // per_cage + 1} 1:{legs}" if legs > 1 else ""
            for leg in range(legs):
                b.link(
                    network,
                    ufm_group,
                    ufm,
                    f"ib{leg + 1}",
                    leaf,
                    port_name(start + (leg if per_cage > 1 else 0), per_cage),
                    a_transceiver=ufm_optic,
                    b_transceiver=sw_optic,
                    assembly=assembly,
                    leg=leg + 1 if assembly else None,
                )

    # leaf uplinks: every leaf's top cages, round the spines (of its pod, three tiers)
    up_group = groups.get("leaf-spine")
    if up_group and spines and int(up_group["links"]) and settings.get("pods"):
        up = int(up_group["links"])
        storage_up = int(settings.get("storage_uplinks_each") or 0)
        node_up = (up - storage_up * len(sleaves)) // len(leaves) if leaves else 0
        uplinks = [node_up] * len(leaves) + [storage_up] * len(sleaves)
        if sum(uplinks) != up:
            uplinks = spread(up, len(leaves) + len(sleaves))

        def leaf_port(leaf: str, k: int, up: int) -> str:
            top = (radix // per_cage - ceil_div(up, per_cage)) * per_cage if radix else 0
            return port_name(max(top, used.get(leaf, 0)) + k, per_cage)

        _pod_links(
            b,
            network,
            groups,
            settings,
            leaves + sleaves,
            uplinks,
            spines,
            names.get("core", []),
            leaf_port,
            a_transceiver=sw_optic,
            b_transceiver=sw_optic,
        )
    elif up_group and spines and int(up_group["links"]):
        total_up = int(up_group["links"])
        storage_up = 0
        if storage_group and sleaves:
            storage_speed = float(storage_group["speed_gbps"])
            total_storage = ceil_div(
                int(storage_group["links"]) * int(storage_speed), int(speed) or 1
            )
            storage_up = ceil_div(total_storage, len(sleaves))
        node_up = (total_up - storage_up * len(sleaves)) // len(leaves) if leaves else 0
        if node_up * len(leaves) + storage_up * len(sleaves) != total_up:  # old or odd info
            uplinks = spread(total_up, len(leaves) + len(sleaves))
        else:
            uplinks = [node_up] * len(leaves) + [storage_up] * len(sleaves)
        offset = 0
        for leaf, up in zip(leaves + sleaves, uplinks, strict=True):
            top = (radix // per_cage - ceil_div(up, per_cage)) * per_cage if radix else 0
            for k in range(up):
                spine = spines[(offset + k) % len(spines)]
                b.link(
                    network,
                    up_group,
                    leaf,
                    port_name(max(top, used.get(leaf, 0)) + k, per_cage),
                    spine,
                    b.take(spine),
                    a_transceiver=sw_optic,
                    b_transceiver=sw_optic,
                )
            offset += up

    # a converged fabric's customer uplinks
    customer_group = groups.get("spine-customer")
    if customer_group:
        tops = spines or leaves + sleaves
        core = _endpoint(b, "customer-core", "customer-core", network)
        for k in range(int(customer_group["links"])):
            switch = tops[k % len(tops)]
            port = b.take(switch) if spines else port_name(radix - 1 - k // len(tops), per_cage)
            b.link(network, customer_group, switch, port, core, b.take(core))


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


def _inband(b: _Builder, plan: dict, hosts: _Hosts) -> list[str]:
    groups = {g["name"]: g for g in plan.get("link_groups") or []}
    settings = plan.get("settings") or {}
    switch_groups = {g["role"]: g for g in plan.get("switch_groups") or []}
    names = _switches(b, "inband", plan)
    leaves, cores = names.get("leaf", []), names.get("core", [])
    speed = settings.get("speed_gbps") or 0
    radix = _ports(b.facts, switch_groups["leaf"], speed)[0] if leaves else 0
    dual = bool(settings.get("dual_homed"))
    ppn = int(settings.get("ports_per_node") or 0)
    leaf_up = int(settings.get("leaf_uplinks") or 0)
    isl = int(settings.get("isl_per_pair") or 0) if dual else 0
    cap = max(radix - leaf_up - isl, 1)
    used: dict[str, int] = {}

    node_group = groups.get("node-leaf")
    if node_group and leaves and ppn:
        host_count = int(node_group["links"]) // ppn
        if dual and len(leaves) >= 2:
            pairs = len(leaves) // 2
            per_pair = spread(host_count, pairs)
            if max(ceil_div(n * ppn, 2) for n in per_pair) > cap:  # fill pair by pair
                each = max(1, (2 * cap) // ppn)
                per_pair, left = [], host_count
                for _ in range(pairs):
                    per_pair.append(min(each, left))
                    left -= per_pair[-1]
            host = 0
            for pair, count in enumerate(per_pair):
                for _ in range(count):
                    for port in range(ppn):
                        leaf = leaves[2 * pair + port % 2]
                        a, a_port = hosts.port(host, f"inb{port + 1}")
                        index = used.get(leaf, 0)
                        used[leaf] = index + 1
                        b.link("inband", node_group, a, a_port, leaf, str(index + 1))
                    host += 1
        else:
            position = 0
            for leaf, load in zip(leaves, spread(host_count * ppn, len(leaves)), strict=True):
                for _ in range(load):
                    port, host = divmod(position, host_count)
                    a, a_port = hosts.port(host, f"inb{port + 1}")
                    used[leaf] = used.get(leaf, 0) + 1
                    b.link("inband", node_group, a, a_port, leaf, str(used[leaf]))
                    position += 1

    if settings.get("pods"):
        _pod_links(
            b,
            "inband",
            groups,
            settings,
            leaves,
            [leaf_up] * len(leaves),
            names.get("spine", []),
            cores,
            lambda leaf, k, up: str(radix - isl - leaf_up + k + 1),
        )
    up_group = groups.get("leaf-core")
    if up_group and cores:
        for leaf in leaves:
            for k in range(leaf_up):
                core = cores[k % len(cores)]
                b.link(
                    "inband",
                    up_group,
                    leaf,
                    str(radix - isl - leaf_up + k + 1),
                    core,
                    b.take(core),
                )
    mgmt_group = groups.get("management-core")
    if mgmt_group and cores:
        per_node = int(settings.get("management_ports_per_node") or 1)
        for k in range(int(mgmt_group["links"])):
            core = cores[k % len(cores)]
            node = _management_node(b, k // per_node)
            b.link("inband", mgmt_group, node, f"inb{k % per_node + 1}", core, b.take(core))
    nfs_group = groups.get("nfs-core")
    if nfs_group and cores:
        nfs = _endpoint(b, "nfs-storage-01", "nfs-storage", "inband")
        for k in range(int(nfs_group["links"])):
            core = cores[k % len(cores)]
            b.link("inband", nfs_group, nfs, str(k + 1), core, b.take(core))
    dc_group = groups.get("core-customer")
    if dc_group and cores:
        customer = _endpoint(b, "customer-core", "customer-core", "inband")
        for k in range(int(dc_group["links"])):
            core = cores[k % len(cores)]
            b.link(
                "inband",
                dc_group,
                core,
                b.take(core),
                customer,
                b.take(customer),
            )
    isl_group = groups.get("leaf-isl")
    if isl_group and isl:
        for pair in range(len(leaves) // 2):
            first, second = leaves[2 * pair], leaves[2 * pair + 1]
            for k in range(isl):
                port = str(radix - isl + k + 1)
                b.link("inband", isl_group, first, port, second, port)
    return cores


#: OOB managed-port labels (oob.py) -> how their devices are found.
_SWITCH_LABELS = {
    "storage switches": "storage",
    "converged switches": "converged",
    "in-band switches": "inband",
}


def _oob(b: _Builder, plan: dict, hosts: _Hosts, shared: dict, pdus: list[str], tops) -> None:
    groups = {g["name"]: g for g in plan.get("link_groups") or []}
    settings = plan.get("settings") or {}
    names = _switches(b, "oob", plan)
    switches = names.get("leaf", [])
    if not switches:
        return
    rj45 = int((plan.get("switch_groups") or [{}])[0].get("ports_each") or 48)
    fabric = b.fabric
    managed: list[tuple[dict, str, str]] = []  # (group, device, port)
    back_to_back: list[tuple[dict, int]] = []
    management_nodes = int(shared.get("management_nodes") or 0)
    for label, group in groups.items():
        if label == "uplinks":
            continue
        count = int(group["links"])
        ends: list[tuple[str, str]] = []
        if label == "node BMCs":
            per_node = max(1, count // max(len(hosts), 1))
            for k in range(count):
                host, port = divmod(k, per_node)
                ends.append(hosts.port(host, "bmc" if port == 0 else f"bmc{port + 1}"))
        elif label == "compute fabric switches":
            nodes = [int(i) for i in range(fabric.node_count) if fabric.role_of(i) in SWITCH_ROLES]
            ends = [(b.compute(i), "mgmt") for i in nodes]
        elif label in _SWITCH_LABELS:
            network = _SWITCH_LABELS[label]
            ends = [
                (d.name, "mgmt")
                for d in b.devices.values()
                if d.network == network and d.role in ("leaf", "storage-leaf", "spine", "core")
            ]
        elif label == "management and UFM nodes":
            ufm = count - management_nodes
            ends = [(_management_node(b, i), "bmc") for i in range(management_nodes)]
            ends += [(_ufm(b, i), "bmc") for i in range(max(ufm, 0))]
        elif label == "UFM back-to-back":
            back_to_back.append((group, count))
            continue
        elif label == "PDUs":
            ends = [(name, "mgmt") for name in pdus]
        elif label == "NVLink switch trays":
            servers = hosts.servers
            per = ceil_div(count, len(servers)) if servers else 0
            for k in range(count if servers else 0):
                server = b.compute(servers[k // per])
                ends.append((server, f"nvsw{k % per + 1:02d}/mgmt"))
        elif label == "storage appliance management":
            array = _endpoint(b, "storage-array-01", "storage-array", "oob")
            ends = [(array, f"mgmt{k + 1}") for k in range(count)]
        if len(ends) != count:  # counts and fabric disagree (an older design): say so
            b.notes.append(
                f"OOB {label}: {count} ports counted, {len(ends)} devices found; "
                "the rest are unnamed endpoints"
            )
            ends = ends[:count]
            spare = (
                _endpoint(b, "oob-endpoint", "unnamed-endpoint", "oob") if len(ends) < count else ""
            )
            ends += [(spare, str(k + 1)) for k in range(count - len(ends))]
        managed += [(group, device, port) for device, port in ends]

    for switch, ends in zip(
        switches, _oob_ports(b, settings, switches, managed, rj45), strict=True
    ):
        for port, (group, device, device_port) in enumerate(ends):
            b.link("oob", group, device, device_port, switch, str(port + 1))

    for group, count in back_to_back:
        for pair in range(count):  # the pair's two appliances, joined directly
            first, second = _ufm(b, 2 * pair), _ufm(b, 2 * pair + 1)
            b.link("oob", group, first, "ha", second, "ha")

    up_group = groups.get("uplinks")
    if up_group:
        per_switch = int(settings.get("uplinks") or 0)
        if not tops:
            tops = [_endpoint(b, "customer-core", "customer-core", "oob")]
        k = 0
        for switch in switches:
            for u in range(per_switch):
                top = tops[k % len(tops)]
                b.link("oob", up_group, switch, str(rj45 + u + 1), top, b.take(top))
                k += 1


def _oob_ports(b: _Builder, settings: dict, switches: list[str], managed: list, rj45: int):
    """The managed ports of each OOB switch, in port order (module docstring): spread evenly
    over the switches, or by rack group when ``switches_per_rack`` is set."""
    per_rack = settings.get("switches_per_rack")
    if per_rack is not None:
        compute = [str(r["name"]) for r in b.fabric.racks if r.get("kind") == "server"]
        groups = rack_groups(len(compute), per_rack)
        group_of = {compute[r]: g for g, (racks, _) in enumerate(groups) for r in racks}
        own: list[list] = [[] for _ in groups]
        rest: list = []
        for end in managed:
            g = group_of.get(b.devices[end[1]].rack)
            (rest if g is None else own[g]).append(end)
        out: list[list] = []
        homes: dict[str, tuple[str, ...]] = {}
        for g, (racks, count) in enumerate(groups):
            position = 0
            for load in spread(len(own[g]), count):
                if len(out) < len(switches):
                    homes[switches[len(out)]] = tuple(compute[r] for r in racks)
                out.append(own[g][position : position + load])
                position += load
        out += [[] for _ in switches[len(out) :]]
        position = 0
        for ends in out:  # spare ports, switch by switch, the extra switches last
            take = max(0, rj45 - len(ends))
            ends += rest[position : position + take]
            position += take
        fits = all(len(ends) <= rj45 for ends in out)
        if fits and len(out) == len(switches) and position >= len(rest):
            b.homes.update(homes)
            return out
        b.notes.append(  # counts and fabric disagree (an older design): by port count
            "OOB switches: the rack groups do not match the counted switches; ports spread "
            "over the switches instead"
        )
    out, position = [], 0
    for load in spread(len(managed), len(switches)):
        out.append(managed[position : position + load])
        position += load
    return out


# --------------------------------------------------------------------------------------------
# placement


def _shared(networks: dict) -> dict:
    """Management nodes, UFM appliances and racks, PDUs per rack: the management plan's
    settings, else what the networks' endpoints say (designs built before they were kept)."""
    management = (networks.get("management") or {}).get("settings") or {}
    if "management_racks" in management:
        return dict(management)
    out = {"management_nodes": 0, "ufm_appliances": 0, "management_racks": 0}
    for name in ("storage", "converged", "inband"):
        endpoints = (networks.get(name) or {}).get("endpoints") or {}
        if endpoints.get("management nodes"):
            out["management_nodes"] = int(endpoints["management nodes"])
    oob = networks.get("oob") or {}
    out["management_racks"] = int((oob.get("endpoints") or {}).get("management racks") or 0)
    both = int((oob.get("managed_ports") or {}).get("management and UFM nodes") or 0)
    storage_ufm = int(
        ((networks.get("storage") or {}).get("endpoints") or {}).get("UFM appliances") or 0
    )
    out["ufm_appliances"] = max(both - out["management_nodes"], storage_ufm)
    settings = oob.get("settings") or {}
    out["pdus_per_rack"] = int(settings.get("pdus_per_rack") or 0)
    out["pdus_per_management_rack"] = int(settings.get("pdus_per_management_rack") or 0)
    return out


def _pdus(b: _Builder, shared: dict, management_racks: list[str]) -> list[str]:
    """Every PDU (compute racks first, then management racks), named ``pdu-<rack>-<n>``."""
    names = []
    per_compute = int(shared.get("pdus_per_rack") or 0)
    per_management = int(shared.get("pdus_per_management_rack") or 0)
    racks = [
        (str(r["name"]), per_compute, "compute_pdu")
        for r in b.fabric.racks
        if r.get("kind") == "server"
    ]
    racks += [(name, per_management, "management_pdu") for name in management_racks]
    for rack, count, role in racks:
        for k in range(count):
            name = b.add(f"pdu-{rack}-{k + 1}", "management", "pdu", _ra_model(role))
            b.devices[name] = NetworkDevice(name, "management", "pdu", _ra_model(role), rack)
            names.append(name)
    return names


def _height(facts: CatalogFacts, model: str) -> int:
    device = facts.devices.get(model)
    return int(math.ceil(device.rack_units)) if device and device.rack_units else 1


def _place_management(b: _Builder, racks: list[str]) -> None:
    """Storage, converged and in-band switches, UFM appliances and management nodes into
    the management racks (module docstring)."""
    order = [
        d.name
        for network in ("storage", "converged", "inband")
        for d in b.devices.values()
        if d.network == network and d.role not in ENDPOINT_ROLES
    ]
    order += [d.name for d in b.devices.values() if d.role == "ufm"]
    order += [d.name for d in b.devices.values() if d.role == "management-node"]
    if not racks or not order:
        return
    layout = b.fabric.settings.layout or {}
    rack_units = int(layout.get("rack_units") or 42)
    usable = int(layout.get("usable_rack_units") or rack_units - TOP_OF_RACK_RU)
    position = 0
    for rack, count in zip(racks, spread(len(order), len(racks)), strict=True):
        fill = 0
        for name in order[position : position + count]:
            device = b.devices[name]
            height = _height(b.facts, device.model)
            ru = fill + 1 if fill + height <= usable else None
            if ru is None:
                b.notes.append(f"{name}: no room left in {rack}; placed without an RU")
            fill += height
            b.devices[name] = NetworkDevice(
                name, device.network, device.role, device.model, rack, ru
            )
        position += count


def _place_oob(b: _Builder, racks_order: list[str], rack_units: dict[str, int]) -> None:
    """Each OOB switch into a top-2-U slot: of its rack group's racks when the spec groups them
    (``switches_per_rack``); else of a network rack holding devices it serves, of the compute
    fabric's network rack nearest the racks it serves, of a management rack, and last of the
    server rack holding most of them (inferred: the reference layouts fill a server rack to its
    power limit with its servers, and the RAs place management switches apart from them)."""
    served: dict[str, Counter] = {}
    for link in b.links:
        if link.network != "oob" or b.devices[link.b_device].network != "oob":
            continue
        rack = b.devices[link.a_device].rack
        if rack:
            served.setdefault(link.b_device, Counter())[rack] += 1
    rank = {rack: i for i, rack in enumerate(racks_order)}
    server_racks = {str(r["name"]) for r in b.fabric.racks if r.get("kind") == "server"}
    places = {str(r["name"]): (r.get("row", 0), r.get("position", 0)) for r in b.fabric.racks}
    network_racks = [
        str(r["name"]) for r in b.fabric.racks if r.get("kind") not in (None, "server")
    ]
    taken: Counter = Counter()
    for device in [d for d in b.devices.values() if d.network == "oob"]:
        counts = served.get(device.name) or Counter()
        home = b.homes.get(device.name)
        by_count = sorted(counts, key=lambda r: (-counts[r], rank.get(r, len(rank))))
        if home:
            choices = sorted(home, key=lambda r: (r in server_racks, -counts[r], rank.get(r, 0)))
        else:
            # served network racks, the nearest network racks to what it serves (rack width
            # and row pitch by the layout's defaults), management racks, then server racks
            def distance(rack: str, counts=counts) -> float:
                row, position = places.get(rack, (0, 0))
                return sum(
                    n * (abs(position - places[r][1]) * 0.6 + abs(row - places[r][0]) * 3.0)
                    for r, n in counts.items()
                    if r in places
                )

            choices = (
                [r for r in by_count if r not in server_racks]
                + sorted(network_racks, key=distance)
                + racks_order[len(b.fabric.racks) :]
                + [r for r in by_count if r in server_racks]
            )
        for rack in choices:
            if taken[rack] < TOP_OF_RACK_RU:
                ru = rack_units.get(rack, 42) - TOP_OF_RACK_RU + 1 + taken[rack]
                taken[rack] += 1
                b.devices[device.name] = NetworkDevice(
                    device.name, "oob", device.role, device.model, rack, ru
                )
                break
        else:
            b.notes.append(f"{device.name}: no top-of-rack slot free where its ports are")


# --------------------------------------------------------------------------------------------


def cluster_elements(fabric: Fabric, facts: CatalogFacts) -> ClusterElements:
    """The devices and links of the cluster's other networks (module docstring).

    Parameters
    ----------
    fabric : Fabric
        A built fabric; its ``settings.networks`` (from
        :func:`planner.domain.networks.cluster_networks`) gives the counts.
    facts : CatalogFacts
        Switch port facts (ports per cage) and device heights.

    Returns
    -------
    ClusterElements
        Empty when ``fabric.settings`` has no ``networks``. Per network and link group, as many
        links as the group's ``links`` and as many distinct cables (assembly, or one link) as
        its ``cables``; as many switches per role and model as its switch groups.
    """
    networks = fabric.settings.networks or {}
    if not networks:
        return ClusterElements()
    b = _Builder(fabric, facts)
    shared = _shared(networks)
    hosts = _Hosts(b, facts)
    management_racks = [
        MANAGEMENT_RACK.format(k + 1) for k in range(int(shared.get("management_racks") or 0))
    ]
    fabric_racks = {str(r["name"]) for r in fabric.racks}
    management_racks = [name for name in management_racks if name not in fabric_racks]

    for name in ("storage", "converged"):
        if name in networks:
            _leaf_spine(b, name, networks[name], hosts, shared)
    cores: list[str] = []
    if "inband" in networks:
        cores = _inband(b, networks["inband"], hosts)
    # every management node and UFM appliance exists even when no network links it
    for k in range(int(shared.get("management_nodes") or 0)):
        _management_node(b, k)
    for k in range(int(shared.get("ufm_appliances") or 0)):
        _ufm(b, k)
    pdus = (
        _pdus(b, shared, management_racks) if "oob" in networks or "management" in networks else []
    )
    _place_management(b, management_racks)
    if "oob" in networks:
        tops = cores or [
            d.name for d in b.devices.values() if d.network == "converged" and d.role == "spine"
        ]
        _oob(b, networks["oob"], hosts, shared, pdus, tops)
        layout = fabric.settings.layout or {}
        units = {str(r["name"]): int(r.get("rack_units") or 42) for r in fabric.racks}
        units.update({name: int(layout.get("rack_units") or 42) for name in management_racks})
        _place_oob(b, [str(r["name"]) for r in fabric.racks] + management_racks, units)

    order = {name: i for i, name in enumerate(("compute", *ELEMENT_NETWORKS))}
    devices = sorted(b.devices.values(), key=lambda d: order.get(d.network, len(order)))
    places = management_rack_places(fabric.settings.layout, fabric.racks, management_racks)
    links = with_run_lengths(fabric, b.devices, b.links, places)
    links = apply_network_media(links, networks, b.devices, facts)
    return ClusterElements(
        devices=tuple(devices),
        links=tuple(links),
        racks=tuple(management_racks),
        notes=tuple(b.notes),
        rack_places=places,
    )


def with_plan_media(
    elements: ClusterElements, networks: dict, facts: CatalogFacts
) -> ClusterElements:
    """``elements`` with their links' media as the plan ``networks`` gives them: each link's
    cable kind and part as its link group has them, then the media chosen by length
    (:func:`~planner.domain.networks.media.apply_network_media`). After the media are chosen
    (the plan changed only there), the same as building the elements again from it, for a
    fraction of the time (the pipeline's 100k-GPU cluster builds them once, not twice).
    """
    groups = {
        (name, group["name"]): group
        for name, plan in networks.items()
        for group in plan.get("link_groups") or []
    }
    links = []
    for link in elements.links:
        group = groups.get((link.network, link.group))
        if group is not None:
            cable = group.get("cable") or {}
            link = replace(
                link,
                cable_kind=str(group["cable_kind"]),
                cable_part=str(cable.get("part") or ""),
            )
        links.append(link)
    devices = {d.name: d for d in elements.devices}
    return replace(elements, links=tuple(apply_network_media(links, networks, devices, facts)))


def network_elements(fabric: Fabric, facts: CatalogFacts) -> ClusterElements:
    """The devices and links of the fabric's other networks, as stored with it
    (``fabric.networks``, built once by :func:`planner.domain.pipeline.build_fabric`).

    A loaded fabric decodes its stored columns (``fabric.network_columns``) here, on first
    read. One stored before they were kept (neither) is upgraded here: they are built once
    (:func:`cluster_elements`) and kept on the fabric.
    Every page, export, analysis and job reads them through this function.

    Parameters
    ----------
    fabric : Fabric
    facts : CatalogFacts
        Only read to upgrade a fabric stored without its elements.

    Returns
    -------
    ClusterElements
        Empty when the design has no other networks.
    """
    # the columns first: another thread decoding them sets ``networks`` before it drops them
    columns, elements = fabric.network_columns, fabric.networks
    if elements is None:
        if columns is not None:  # stored: decoded on first read
            elements = ClusterElements.from_dict(columns)
        elif fabric.settings.networks:  # stored before they were kept: the upgrade
            elements = cluster_elements(fabric, facts)
        else:
            elements = ClusterElements()
        fabric.networks = elements
        fabric.network_columns = None
    return elements


__all__ = [
    "ELEMENT_NETWORKS",
    "ClusterElements",
    "NetworkDevice",
    "NetworkLink",
    "cluster_elements",
    "network_elements",
    "port_name",
    "with_plan_media",
]
