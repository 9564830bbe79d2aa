"""Names the built fabric uses, resolved to the design: device name + port name -> the
design's node, logical port and link.

Every as-built import (cabling: LLDP tables, ``ibnetdiscover``, NetBox cable exports;
counters: per-port telemetry rows) names ports as the running switches and hosts name them.
:class:`FabricNames` reads those names back into the design's own numbering, the numbering the
cabling plan, the NetBox and P2P exports and the day-0 configurations write
(:mod:`planner.domain.names`: :func:`~planner.domain.names.port_position`,
:class:`~planner.domain.names.PortLayout`), so a port is the same port in every file.

Devices
-------
A device is found by (case-insensitive, first match wins):

1. its design name (``leaf-su001-r3``, ``gpu00001``, ``spine-001-002``);
2. a host name with a domain (``leaf-su001-r3.dc1.example.com``): the part before the first
   dot;
3. an InfiniBand switch's node description as NVIDIA switches set it,
   ``MF0;<hostname>:<model>/U1`` (e.g. ``MF0;leaf-su001-r3:MQM9700/U1``): the host name between
   ``;`` and ``:``;
4. its rack location as labels write it, ``<rack>.U<ru>`` (``R001-05.U03``), when no other
   device shares that rack unit.

:meth:`FabricNames.device` answers None for a name that is none of these (the caller decides
whether that is an error or an unexpected device).

Ports
-----
:meth:`FabricNames.port` reads, on the node found (``os`` narrows the guess: ``"nvue"``,
``"sonic"``, ``"eos"``, ``"ib"`` or None for any):

- the design's port name: ``17`` on a one-port cage, ``3/2`` (cage 3, its 2nd port) otherwise,
  as the cabling plan, NetBox and P2P exports write it;
- NVIDIA Cumulus (NVUE): ``swp<cage>``, a broken-out port ``swp<cage>s<index>`` (index from
  0: ``swp3s1`` is ``3/2``);
- SONiC: ``Ethernet<first lane>`` (lanes from 0 across the cages; ``Ethernet20`` on a 2 x 400G
  8-lane cage is ``3/2``);
- Arista EOS: ``Ethernet<cage>/<first lane>`` (``Ethernet3/5`` is ``3/2`` on that cage) or
  ``Ethernet<cage>`` on a one-lane port; the vendor names are those of the day-0
  configuration (:mod:`planner.domain.outputs.config.intent`, with their sources) and need
  the switch's catalog cage group (``facts``); without ``facts`` only the design and
  InfiniBand forms are read;
- InfiniBand port numbers (``ibnetdiscover``, ``perfquery``, UFM): a bare number on a switch
  with several ports per cage counts logical ports from 1 across the cages, two per twin-port
  OSFP cage (port ``2c - 1`` and ``2c`` are cage ``c``'s: Quantum-2 QM9700, 64 NDR ports on
  32 OSFP cages), so IB port 6 is ``3/2``; on a one-port cage it is the design's number;
- a host's adapter (an InfiniBand CA's node description ``<host> <adapter>``, an LLDP port
  id): ``mlx5_<k>`` is the host's (k+1)-th fabric port in the design's order (``mlx5_0`` is
  ``1/1``), ``HCA-<n>`` its n-th. A host whose adapters are not numbered in rail order (the
  DGX H100 names its compute ports ``mlx5_0``, ``mlx5_3``...) should set its node
  descriptions to ``<host> <design port>`` (``gpu00001 2/1``), which is read first.

A name in none of these forms, or a port the node does not have, raises
:class:`AsBuiltNameError` naming the device and the port as written and the forms expected.

Links
-----
:meth:`FabricNames.link_at` gives the design link on a (node, port), or None;
:meth:`FabricNames.end` describes an end for reports (design label end ``R001-05.U03.P1.1``,
device, port, role, rack, RU, rail and plane of the node, each as the cabling plan writes it;
``end``, the device and port as every page writes them, :func:`planner.domain.names.end_text`).
The link's own rail and plane are those of its leaf end (a server's port carries the rail of
the leaf it is cabled to): :meth:`FabricNames.link_rail`, :meth:`FabricNames.link_plane`.

Pure Python and NumPy; no Django. Built once per fabric (dicts over the nodes and link ends:
about 0.1 s per 100,000 links).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, Fabric
from planner.domain.names import PortLayout, end_text, layout_of, port_position
from planner.domain.outputs.cabling_ends import FabricEnds

__all__ = ["AsBuiltNameError", "End", "FabricNames", "OS_FORMS"]

#: The ``os`` hints :meth:`FabricNames.port` takes.
OS_FORMS = ("nvue", "sonic", "eos", "ib")

_SWP = re.compile(r"^swp(\d+)(?:s(\d+))?$", re.IGNORECASE)
_ETHERNET = re.compile(r"^(?:ethernet|eth|et)(\d+)(?:/(\d+))?$", re.IGNORECASE)
_NUMBER = re.compile(r"^\d+$")
_MLX = re.compile(r"^mlx5_(\d+)$", re.IGNORECASE)
_HCA = re.compile(r"^hca-?(\d+)$", re.IGNORECASE)
_IB_SWITCH_DESC = re.compile(r"^[^;]*;([^:]+):")


class AsBuiltNameError(ValueError):
    """A device or port name the design does not know; ``code`` is one of
    ``unknown-device``, ``unknown-port``; ``device`` and ``port`` as the file wrote them."""

    def __init__(self, code: str, message: str, *, device: str = "", port: str = ""):
        super().__init__(message)
        self.code = code
        self.device = device
        self.port = port


@dataclass(frozen=True)
class End:
    """One end of a link as reports show it (see the module docstring)."""

    node: int
    port: int
    device: str
    port_name: str
    role: str
    label: str
    rack: str
    ru: str
    rail: int | None
    plane: int | None

    def as_dict(self) -> dict:
        return {
            "device": self.device,
            "port": self.port_name,
            "end": end_text(self.device, self.port_name),
            "role": self.role,
            "label": self.label,
            "rack": self.rack,
            "ru": self.ru,
        }


class FabricNames:
    """Resolve built-fabric names against one fabric (see the module docstring)."""

    def __init__(self, fabric: Fabric, facts: CatalogFacts | None = None):
        self.fabric = fabric
        self.ends = FabricEnds(fabric)
        self.facts = facts
        self._by_name: dict[str, int] = {}
        for node, name in enumerate(fabric.node_name):
            self._by_name.setdefault(name.lower(), node)
        self._by_location: dict[str, int] = {}
        for node, location in enumerate(self.ends.location):
            if location != fabric.node_name[node]:
                self._by_location[location.lower()] = node
        self._layouts: dict[int, PortLayout] = {}
        count = fabric.link_count
        a = fabric.link_a.astype(np.int64)
        b = fabric.link_b.astype(np.int64)
        keys_a = (a << 32) | fabric.link_a_port.astype(np.int64)
        keys_b = (b << 32) | fabric.link_b_port.astype(np.int64)
        self._link_at: dict[int, int] = {}
        links = list(range(count))
        self._link_at.update(zip(keys_a.tolist(), links, strict=True))
        self._link_at.update(zip(keys_b.tolist(), links, strict=True))
        # a link's rail and plane: those of its leaf end (servers carry none)
        roles = fabric.node_role
        leaf = ROLE["leaf"]
        upper = np.where(roles[fabric.link_a] == leaf, fabric.link_a, fabric.link_b)
        self._link_rail = fabric.node_rail[upper].astype(np.int64) if count else np.zeros(0)
        self._link_leafed = (roles[fabric.link_a] == leaf) | (roles[fabric.link_b] == leaf)

    # --- devices ------------------------------------------------------------------------

    def device(self, text: str) -> int | None:
        """The node a built-fabric device name means, or None (see the module docstring)."""
        name = (text or "").strip().strip('"').lower()
        if not name:
            return None
        found = self._by_name.get(name)
        if found is not None:
            return found
        match = _IB_SWITCH_DESC.match(name)
        if match:
            found = self._by_name.get(match.group(1).strip())
            if found is not None:
                return found
        found = self._by_location.get(name)
        if found is not None:
            return found
        if "." in name:
            return self._by_name.get(name.split(".", 1)[0])
        return None

    def require_device(self, text: str) -> int:
        """:meth:`device`, raising :class:`AsBuiltNameError` ``unknown-device``."""
        node = self.device(text)
        if node is None:
            raise AsBuiltNameError(
                "unknown-device",
                f"device {text!r} is not in this design",
                device=text,
            )
        return node

    # --- ports --------------------------------------------------------------------------

    def layout(self, node: int) -> PortLayout:
        found = self._layouts.get(node)
        if found is None:
            per_cage = self.ends.per_cage[node]
            if self.facts is not None:
                found = layout_of(self.facts, self.ends.models[node], per_cage)
            else:
                found = PortLayout(per_cage=per_cage)
            self._layouts[node] = found
        return found

    def port(self, node: int, text: str, *, os: str | None = None) -> int:
        """The 0-based logical port of ``node`` that ``text`` names (see the module docstring).

        Raises
        ------
        AsBuiltNameError
            ``unknown-port``: not a form of this node's ports, or past its last port.
        """
        raw = (text or "").strip().strip('"')
        port = self._parse(node, raw, os)
        ports = int(self.fabric.node_ports[node])
        if port is None or port < 0 or (ports > 0 and port >= ports):
            device = self.fabric.node_name[node]
            per_cage = self.ends.per_cage[node]
            form = "17" if per_cage == 1 else "3/2"
            raise AsBuiltNameError(
                "unknown-port",
                f"port {raw!r} is not a port of {device} (it has {ports} ports; write e.g. "
                f"{form!r}, a vendor name such as swp3 / Ethernet0, or an InfiniBand port "
                "number)",
                device=device,
                port=raw,
            )
        return port

    def _cage_index(self, node: int, cage: int, index: int) -> int | None:
        per_cage = self.ends.per_cage[node]
        if cage < 1 or not 0 <= index < per_cage:
            return None
        return (cage - 1) * per_cage + index

    def _parse(self, node: int, raw: str, os: str | None) -> int | None:
        if not raw:
            return None
        per_cage = self.ends.per_cage[node]
        try:
            return self.ends.parse_port(node, raw)
        except ValueError:
            pass
        if _NUMBER.match(raw):  # an InfiniBand port number on a multi-port cage
            return int(raw) - 1 if int(raw) >= 1 else None
        match = _MLX.match(raw)
        if match:
            return int(match.group(1))
        match = _HCA.match(raw)
        if match:
            return int(match.group(1)) - 1 if int(match.group(1)) >= 1 else None
        layout = self.layout(node)
        match = _SWP.match(raw)
        if match and os in (None, "nvue"):
            if layout.native_per_cage != 1:
                return None
            cage = int(match.group(1))
            if match.group(2) is None:
                return self._cage_index(node, cage, 0) if per_cage == 1 else None
            return self._cage_index(node, cage, int(match.group(2)))
        match = _ETHERNET.match(raw)
        if match and os in (None, "sonic", "eos"):
            first, second = int(match.group(1)), match.group(2)
            lanes = layout.lanes_per_port
            if second is not None:  # EOS Ethernet<cage>/<first lane>
                if not lanes or (int(second) - 1) % lanes:
                    return None
                return self._cage_index(node, first, (int(second) - 1) // lanes)
            if os == "eos" or layout.lanes_per_cage == 1:
                return self._cage_index(node, first, 0) if per_cage == 1 else None
            if not lanes or first % lanes:  # SONiC Ethernet<first lane>
                return None
            cage_lanes = int(layout.lanes_per_cage)
            return self._cage_index(node, first // cage_lanes + 1, (first % cage_lanes) // lanes)
        return None

    def port_name(self, node: int, port: int) -> str:
        return self.ends.port_name(node, port)

    # --- links and ends -----------------------------------------------------------------

    def link_at(self, node: int, port: int) -> int | None:
        """The design link on ``port`` of ``node``, or None."""
        return self._link_at.get((int(node) << 32) | int(port))

    def end(self, node: int, port: int) -> End:
        ends = self.ends
        rail = int(self.fabric.node_rail[node])
        plane = int(self.fabric.node_plane[node])
        return End(
            node=node,
            port=port,
            device=self.fabric.node_name[node],
            port_name=ends.port_name(node, port),
            role=ends.roles[node],
            label=ends.end_label(node, port),
            rack=ends.rack[node],
            ru=ends.ru[node],
            rail=rail if rail >= 0 else None,
            plane=plane if plane >= 0 else None,
        )

    def link_rail(self, link: int) -> int | None:
        """The rail of a link (its leaf end's), None off the rails."""
        if not self._link_leafed[link]:
            return None
        rail = int(self._link_rail[link])
        return rail if rail >= 0 else None

    def link_plane(self, link: int) -> int:
        return int(self.fabric.link_plane[link])

    def cage_of(self, node: int, port: int) -> tuple[int, int]:
        """``(cage, index)`` of a logical port (cage from 1, index from 0)."""
        return port_position(self.ends.per_cage[node], port)
