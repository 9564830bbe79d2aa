"""One name per port, device and rack: every page, report, export and configuration names a
fabric's ports, devices and racks through this module, so a port is the same text everywhere.

Ports
-----
A link end is a 0-based *logical port* of its node (``Fabric.link_a_port``); a cage holds
``Fabric.node_ports_per_cage`` of them. Its name (:func:`port_name`, :meth:`PortScheme.name`):

- ``17`` on a one-port cage (the cage number, from 1);
- ``3/2`` otherwise: cage 3, its 2nd logical port (``cage = port // per_cage + 1``,
  ``lane = port % per_cage + 1``; NVIDIA's cabling sheets write split ports so);
- ``tray 2 NIC 1`` on a rack-scale system (GB300-NVL72: one node per rack, whose ports are its
  compute trays' NICs, port ``(tray * rails + rail) * planes + plane``;
  ``fabric.info["rack_system"]``): the compute tray and the NIC on it (its rail), both from 1,
  and ``plane 2`` after them when the design has several planes.

A name is read back by :meth:`PortScheme.parse` (the cabling-plan re-import, as-built files),
which also takes the bare logical number (``5``) on a rack-scale system.

Labels (TIA-606, the cabling plan's ``R001-01.U09.P3``) keep the numeric form
(:meth:`PortScheme.label`: ``3.2``), a tray port its rack port number.

The switch OS's own interface name, where the catalog gives the cage's lanes
(:class:`PortLayout`): NVIDIA Cumulus (NVUE) ``swp3s1``, SONiC ``Ethernet20``, Arista EOS
``Ethernet3/5`` for port ``3/2`` of a 2 x 400G 8-lane cage (sources in
:mod:`planner.domain.outputs.config.intent`).

Devices and racks
-----------------
A device is called by its design name (``leaf-su001-r1``, ``gpu00001``); the canvas's element
ids (``node:<name>``, ``link:<i>``) are never shown: :meth:`Names.element` turns one into
words. A rack is called by its layout name (``R001-01``, a campus's ``B1-R001-01``), the name
the cabling plan, the BOM and the rack elevations print; a device not yet placed has none.

Pure Python and NumPy; no Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, SWITCH_ROLES, Fabric

__all__ = [
    "ARROW",
    "Names",
    "end_name",
    "end_text",
    "link_name",
    "PortLayout",
    "PortScheme",
    "layout_of",
    "port_name",
    "port_position",
    "rack_name",
    "rack_system",
    "scheme_of",
]

#: Between the two ends of a link in user text.
ARROW = "→"

_SWITCH_CODES = frozenset(ROLE[r] for r in SWITCH_ROLES)
_TRAY = re.compile(r"^tray\s*(\d+)\s+nic\s*(\d+)(?:\s+plane\s*(\d+))?$", re.IGNORECASE)


def port_position(per_cage: int, port: int) -> tuple[int, int]:
    """Where a 0-based logical port is: ``(cage, index)``, the cage counted from 1 and the
    index of the port in its cage from 0.

    >>> port_position(1, 16), port_position(2, 5)
    ((17, 0), (3, 1))
    """
    per_cage = max(1, int(per_cage))
    return port // per_cage + 1, port % per_cage


def port_name(per_cage: int, port: int) -> str:
    """A 0-based logical port of a cage of ``per_cage`` ports: ``"17"`` or ``"3/2"``.

    >>> port_name(1, 16), port_name(2, 5)
    ('17', '3/2')
    """
    per_cage = max(1, int(per_cage))
    if per_cage == 1:
        return str(port + 1)
    cage, index = port_position(per_cage, port)
    return f"{cage}/{index + 1}"


@dataclass(frozen=True)
class PortScheme:
    """How one node's ports are named: ``per_cage`` logical ports per cage, or, on a
    rack-scale system, ``tray_ports`` ports per compute tray over ``planes`` planes.

    Examples
    --------
    >>> PortScheme(2).name(5), PortScheme(2).label(5), PortScheme(2).parse("3/2")
    ('3/2', '3.2', 5)
    >>> nvl = PortScheme(1, tray_ports=4)
    >>> nvl.name(4), nvl.label(4), nvl.parse("tray 2 NIC 1"), nvl.parse("5")
    ('tray 2 NIC 1', '5', 4, 4)
    >>> PortScheme(1, tray_ports=8, planes=2).name(3)
    'tray 1 NIC 2 plane 2'
    """

    per_cage: int = 1
    tray_ports: int = 0
    planes: int = 1

    def as_dict(self) -> dict:
        """The scheme for the canvas, which names the ports a user picks with it
        (``frontend/src/canvas/format.js`` ``portName``, the same rules)."""
        return {"per_cage": self.per_cage, "tray_ports": self.tray_ports, "planes": self.planes}

    def name(self, port: int) -> str:
        if self.tray_ports:
            tray, within = divmod(int(port), self.tray_ports)
            nic, plane = divmod(within, max(1, self.planes))
            text = f"tray {tray + 1} NIC {nic + 1}"
            return f"{text} plane {plane + 1}" if self.planes > 1 else text
        return port_name(self.per_cage, int(port))

    def label(self, port: int) -> str:
        """The port in a TIA-606 label: ``17``, ``3.2`` (dots, not slashes)."""
        return port_name(self.per_cage, int(port)).replace("/", ".")

    def parse(self, text: str) -> int:
        """The 0-based logical port :meth:`name` writes as ``text`` (or its number).

        Raises
        ------
        ValueError
            Not one of the forms; the message says which form is expected.
        """
        text = text.strip()
        match = _TRAY.match(text) if self.tray_ports else None
        if match:
            tray, nic = int(match.group(1)), int(match.group(2))
            plane = int(match.group(3) or 1)
            planes = max(1, self.planes)
            nics = self.tray_ports // planes
            if tray < 1 or not 1 <= nic <= nics or not 1 <= plane <= planes:
                raise ValueError(f"{text!r}: trays count from 1 and each has NICs 1..{nics}")
            return (tray - 1) * self.tray_ports + (nic - 1) * planes + plane - 1
        per_cage = max(1, self.per_cage)
        try:
            if per_cage == 1:
                port = int(text) - 1
                if port < 0:
                    raise ValueError
                return port
            cage, _, sub = text.partition("/")
            cage_number, sub_number = int(cage), int(sub)
        except ValueError:
            form = "a port number" if per_cage == 1 else f"<cage>/<1..{per_cage}>, e.g. 3/1"
            if self.tray_ports:
                form = "tray <t> NIC <n> (e.g. tray 2 NIC 1) or a port number"
            raise ValueError(f"{text!r}: write {form}") from None
        if cage_number < 1 or not 1 <= sub_number <= per_cage:
            raise ValueError(f"{text!r}: cages count from 1 and each holds ports 1..{per_cage}")
        return (cage_number - 1) * per_cage + sub_number - 1


# --- rack-scale systems ------------------------------------------------------------------------


def rack_system(fabric: Fabric, node: int) -> dict | None:
    """``fabric.info["rack_system"]`` when ``node`` is one of its racks (a server of that model
    whose ports follow the tray rule), else None."""
    system = fabric.info.get("rack_system")
    if not system or int(fabric.node_role[node]) != ROLE["server"]:
        return None
    if fabric.models[int(fabric.node_model[node])] != system.get("model"):
        return None
    trays, rails = int(system.get("compute_trays") or 0), int(fabric.info.get("rails") or 0)
    planes = int(fabric.info.get("planes") or 1)
    if trays <= 0 or rails <= 0 or int(fabric.node_ports[node]) != trays * rails * planes:
        return None
    return system


# --- switch OS interface names -----------------------------------------------------------------


@dataclass(frozen=True)
class PortLayout:
    """How a switch's cages carry its logical ports: the vendor interface names.

    ``per_cage``: logical ports per cage in this fabric (the cabling plan's split);
    ``native_per_cage``: ports per cage in the catalog; ``lanes_per_cage``: electrical lanes
    of a cage (None when the catalog lacks ``lanes_per_port``). The naming rules and their
    sources: :mod:`planner.domain.outputs.config.intent`, "Interface names".

    Examples
    --------
    >>> split = PortLayout(per_cage=2, native_per_cage=1, lanes_per_cage=8)
    >>> split.names(3, 1)
    {'nvue': 'swp3s1', 'sonic': 'Ethernet20', 'eos': 'Ethernet3/5'}
    >>> PortLayout(1, 1, 8).names(1, 0)
    {'nvue': 'swp1', 'sonic': 'Ethernet0', 'eos': 'Ethernet1/1'}
    >>> PortLayout(2, 2, None).names(1, 1)
    {}
    """

    per_cage: int
    native_per_cage: int = 1
    lanes_per_cage: int | None = None

    @property
    def legs(self) -> int:
        """Logical ports per native port (1 = not broken out)."""
        if self.per_cage % max(1, self.native_per_cage):
            return 1
        return max(1, self.per_cage // max(1, self.native_per_cage))

    @property
    def lanes_per_port(self) -> int | None:
        """Lanes of one logical port (None when not known or not a whole number)."""
        lanes = self.lanes_per_cage
        if not lanes or lanes % self.per_cage:
            return None
        return lanes // self.per_cage

    def nvue(self, cage: int, index: int) -> str | None:
        if self.native_per_cage != 1:
            return None
        return f"swp{cage}" if self.per_cage == 1 else f"swp{cage}s{index}"

    def sonic(self, cage: int, index: int) -> str | None:
        lanes = self.lanes_per_port
        if lanes is None:
            return None
        return f"Ethernet{(cage - 1) * self.lanes_per_cage + index * lanes}"

    def eos(self, cage: int, index: int) -> str | None:
        lanes = self.lanes_per_port
        if lanes is None:
            return None
        if self.lanes_per_cage == 1:
            return f"Ethernet{cage}"
        return f"Ethernet{cage}/{index * lanes + 1}"

    def names(self, cage: int, index: int) -> dict[str, str]:
        """The vendor names of the port (only those known)."""
        found = {"nvue": self.nvue(cage, index), "sonic": self.sonic(cage, index)}
        found["eos"] = self.eos(cage, index)
        return {os_: name for os_, name in found.items() if name}

    def names_on(
        self, cage: int, index: int, *, protocols: tuple | frozenset, manufacturer: str
    ) -> dict[str, str]:
        """:meth:`names` of the operating systems the switch runs: none on a switch that is
        not Ethernet (InfiniBand), NVUE (Cumulus) only on NVIDIA's, EOS only on Arista's.

        >>> PortLayout(2, 1, 8).names_on(3, 1, protocols=("ethernet",), manufacturer="nvidia")
        {'nvue': 'swp3s1', 'sonic': 'Ethernet20'}
        >>> PortLayout(2, 1, 8).names_on(3, 1, protocols=("infiniband",), manufacturer="nvidia")
        {}
        """
        if "ethernet" not in protocols:
            return {}
        found = self.names(cage, index)
        if manufacturer != "nvidia":
            found.pop("nvue", None)
        if manufacturer != "arista":
            found.pop("eos", None)
        return found


def layout_of(facts: CatalogFacts, model: str, per_cage: int) -> PortLayout:
    """The :class:`PortLayout` of a switch model split ``per_cage`` ways (its one cage group;
    a model with several groups, or none, has no known lanes)."""
    device = facts.devices.get(model)
    groups = device.port_groups if device is not None else ()
    if len(groups) != 1:
        return PortLayout(per_cage=max(1, per_cage))
    group = groups[0]
    native = max(1, int(group.ports_per_cage or 1))
    lanes = group.lanes_per_port * native if group.lanes_per_port else None
    return PortLayout(per_cage=max(1, per_cage), native_per_cage=native, lanes_per_cage=lanes)


# --- one fabric --------------------------------------------------------------------------------


def rack_name(fabric: Fabric, node: int) -> str:
    """The rack ``node`` stands in, by its layout name (``R001-01``); ``""`` before the
    layout places it."""
    if fabric.node_rack is None or not fabric.racks:
        return ""
    index = int(fabric.node_rack[node])
    return str(fabric.racks[index].get("name", "")) if 0 <= index < len(fabric.racks) else ""


def scheme_of(fabric: Fabric, node: int) -> PortScheme:
    """How ``node``'s ports are named (:class:`PortScheme`)."""
    per_cage = max(1, int(fabric.node_ports_per_cage[node]))
    if rack_system(fabric, node) is None:
        return PortScheme(per_cage)
    planes = int(fabric.info.get("planes") or 1)
    return PortScheme(per_cage, int(fabric.info["rails"]) * planes, planes)


def end_text(device: str, port: str) -> str:
    """A device and one of its ports in user text: ``leaf-1 3/2``, ``gpu00001 tray 2 NIC 1``;
    a bare number reads ``leaf-1 port 17`` (never ``leaf-1 17``)."""
    return f"{device} port {port}" if port.isdigit() else f"{device} {port}"


def end_name(fabric: Fabric, node: int, port: int) -> str:
    """:meth:`Names.end` for one end (no per-fabric tables: for a message or two)."""
    return end_text(fabric.node_name[node], scheme_of(fabric, node).name(port))


def link_name(fabric: Fabric, link: int) -> str:
    """:meth:`Names.link` for one link (no per-fabric tables: for a message or two)."""
    a = end_name(fabric, int(fabric.link_a[link]), int(fabric.link_a_port[link]))
    b = end_name(fabric, int(fabric.link_b[link]), int(fabric.link_b_port[link]))
    return f"{a} {ARROW} {b}"


class Names:
    """The names of one fabric's devices, racks, ports and links (module docstring).

    Examples
    --------
    >>> from planner.domain.fabric import FabricBuilder
    >>> b = FabricBuilder()
    >>> s = b.add_nodes(["nvl-1"], role="server", model="nvl", ports=4, ports_per_cage=1)
    >>> l = b.add_nodes(["leaf-1"], role="leaf", model="sw", ports=8, ports_per_cage=2)
    >>> b.add_links([0, 0], [0, 3], [1, 1], [4, 5], tier="server-leaf", plane=0, speed_gbps=800)
    >>> system = {"model": "nvl", "compute_trays": 2, "gpus_per_tray": 4, "nics_per_tray": 2}
    >>> names = Names(b.build({"rails": 2, "planes": 1, "rack_system": system}))
    >>> names.link(1)
    'nvl-1 tray 2 NIC 2 → leaf-1 3/2'
    >>> names.element("node:leaf-1"), names.element("link:0")
    ('leaf-1', 'nvl-1 tray 1 NIC 1 → leaf-1 3/1')
    """

    def __init__(self, fabric: Fabric, facts: CatalogFacts | None = None):
        self.fabric = fabric
        self.facts = facts
        system = fabric.info.get("rack_system")
        servers = fabric.node_role == ROLE["server"]
        # one scheme per (role is server, model, ports per cage): shared, hashed once
        keys = zip(
            servers.tolist(),
            fabric.node_model.tolist(),
            fabric.node_ports_per_cage.tolist(),
            strict=True,
        )
        found: dict[tuple, PortScheme] = {}
        self.schemes: list[PortScheme] = []
        for node, key in enumerate(keys):
            scheme = found.get(key)
            if scheme is None:
                scheme = scheme_of(fabric, node)
                if not system or not key[0]:
                    found[key] = scheme
            self.schemes.append(scheme)
        self._index: dict[str, int] | None = None
        self._layouts: dict[tuple[str, int], PortLayout] = {}

    # devices and racks

    def device(self, node: int) -> str:
        return self.fabric.node_name[node]

    def node(self, name: str) -> int | None:
        """The node called ``name`` (None when there is none)."""
        if self._index is None:
            self._index = {n: i for i, n in enumerate(self.fabric.node_name)}
        return self._index.get(name)

    def rack(self, node: int) -> str:
        return rack_name(self.fabric, node)

    # ports and links

    def port(self, node: int, port: int) -> str:
        return self.schemes[node].name(port)

    def parse(self, node: int, text: str) -> int:
        """:meth:`PortScheme.parse` on ``node``'s scheme, within the node's ports (the message
        names the device)."""
        try:
            port = self.schemes[node].parse(text)
        except ValueError as error:
            raise ValueError(f"not a port of {self.device(node)}: {error}") from None
        ports = int(self.fabric.node_ports[node])
        if 0 < ports <= port:
            raise ValueError(
                f"not a port of {self.device(node)}: {text.strip()!r} is past its {ports:,} ports"
            )
        return port

    def end(self, node: int, port: int) -> str:
        """``leaf-su001-r1 3/2``: a device and one of its ports (:func:`end_text`)."""
        return end_text(self.device(node), self.port(node, port))

    def link(self, link: int) -> str:
        """``gpu00001 1/1 → leaf-su001-r1 3/2``: a link by its two ends (A end first)."""
        fabric = self.fabric
        a = self.end(int(fabric.link_a[link]), int(fabric.link_a_port[link]))
        b = self.end(int(fabric.link_b[link]), int(fabric.link_b_port[link]))
        return f"{a} {ARROW} {b}"

    def interfaces(self, node: int, port: int) -> dict[str, str]:
        """The interface names of a switch port under the operating systems the switch runs
        (``{"nvue": "swp3s1", "sonic": "Ethernet20"}``; :meth:`PortLayout.names_on`), those
        known: none without catalog facts, on a server or on an InfiniBand switch."""
        fabric = self.fabric
        if self.facts is None or int(fabric.node_role[node]) not in _SWITCH_CODES:
            return {}
        model = fabric.models[int(fabric.node_model[node])]
        per_cage = self.schemes[node].per_cage
        layout = self._layouts.get((model, per_cage))
        if layout is None:
            layout = self._layouts[(model, per_cage)] = layout_of(self.facts, model, per_cage)
        device = self.facts.devices.get(model)
        manufacturer = str((self.facts.parts.get(model) or {}).get("manufacturer") or "")
        return layout.names_on(
            *port_position(per_cage, port),
            protocols=tuple(device.protocols) if device is not None else (),
            manufacturer=manufacturer,
        )

    def element(self, element_id: str) -> str:
        """An element id (``node:<name>``, ``link:<i>``) in words: the device's name, the
        link's ends; any other text unchanged."""
        kind, _, rest = str(element_id).partition(":")
        if kind == "node" and rest:
            return rest
        if kind == "link" and rest.isdigit() and int(rest) < self.fabric.link_count:
            return self.link(int(rest))
        return str(element_id)
