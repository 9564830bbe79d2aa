"""An InfiniBand fabric as an ``ibnetdiscover`` topology file, which is also an ibsim net file.

``ibnetdiscover(8)`` (infiniband-diags; https://man7.org/linux/man-pages/man8/IBNETDISCOVER.8.html)
writes a fabric as node blocks: a header ``Switch <ports> "S-<guid>" # "<node description>"``
or ``Ca <ports> "H-<guid>" # "<node description>"``, then one line per connected port
``[<port>] "<peer id>"[<peer port>] # "<peer description>" <width>x<rate>`` (a CA's port line
carries its port GUID in parentheses after the port number). ibsim, the InfiniBand fabric
simulator, reads the same format as its net file ("compatible with ibnetdiscover command
output", ibsim's README), so OpenSM and the diagnostics can run on the design
(``ibsim -s <file>``, then ``opensm`` and ``ibnetdiscover`` with ``libumad2sim.so``
preloaded).

What is written, from the stored fabric (nothing is rebuilt):

- every switch (``leaf``, ``spine``, ``core``) is a ``Switch`` with as many ports as its
  logical ports; its description is ``MF0;<name>:<model>/U1``, as NVIDIA switches set theirs
  (:mod:`planner.domain.asbuilt.names` reads the name back);
- every linked port of a host (server, manager) is a one-port ``Ca`` (one adapter per port,
  as a ConnectX-7 has), described ``<host> <design port>`` (``gpu00001 2/1``), the form the
  as-built check reads first;
- a switch port number is the design's logical port plus 1 (ports count from 1 across the
  cages: port 6 of a twin-port OSFP switch is cage 3's second port, as ``ibnetdiscover``
  numbers a Quantum-2 switch);
- each link appears from both ends, with its width and lane rate (``4xNDR`` for 400 Gb/s:
  :func:`ib_rate`; left out when no IBTA rate gives the speed);
- GUIDs are the design's own numbering, not hardware GUIDs (a planned fabric has none):
  ``0x53…`` + node for a switch, ``0x48…`` + node and port for an adapter, unique per file
  (:func:`switch_guid`, :func:`ca_guid`).
  LIDs are the subnet manager's to assign and are not written.

The as-built check (:func:`planner.domain.asbuilt.cabling.check_cabling`) reads this file
back with no finding; ibsim 0.10 (Debian 12) reads it and OpenSM 3.3.23 routes it (an
interop test does both where the tools are installed).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from planner.domain.asbuilt.parsers import IB_LANE_GBPS, IB_WIDTHS
from planner.domain.fabric import ROLE, SWITCH_ROLES, Fabric
from planner.domain.outputs.cabling import FabricEnds

__all__ = ["ca_guid", "ib_rate", "ib_topology_lines", "switch_guid"]

_SWITCH_BASE = 0x53 << 56  # "S"
_CA_BASE = 0x48 << 56  # "H"
#: Widths tried for a speed, the usual first (4 lanes: every Quantum port at full speed).
_WIDTH_ORDER = (4, 2, 1, 8, 12)
assert set(_WIDTH_ORDER) == set(IB_WIDTHS)


def switch_guid(node: int) -> int:
    """The GUID the file gives switch ``node``.

    >>> hex(switch_guid(0))
    '0x5300000000000010'
    """
    return _SWITCH_BASE + ((node + 1) << 4)


def ca_guid(node: int, port: int) -> int:
    """The GUID of the adapter on logical ``port`` of host ``node`` (up to 65,535 ports).

    GUIDs step by 16, leaving room for the port GUIDs a simulator derives from the node's
    (ibsim gives port 1 the node GUID + 1).

    >>> hex(ca_guid(0, 0))
    '0x4800000000100010'
    """
    return _CA_BASE + ((node + 1) << 20) + ((port + 1) << 4)


def ib_rate(speed_gbps: float) -> str:
    """``<width>x<rate>`` for a link speed, as ``ibnetdiscover`` writes it; ``""`` when no
    IBTA width and lane rate make the speed.

    >>> ib_rate(400), ib_rate(200), ib_rate(800), ib_rate(56), ib_rate(7)
    ('4xNDR', '4xHDR', '4xXDR', '4xFDR', '')
    """
    for width in _WIDTH_ORDER:
        lane = speed_gbps / width
        for name, gbps in IB_LANE_GBPS.items():
            if name != "FDR10" and abs(gbps - lane) < 1e-9:
                return f"{width}x{name}"
    return ""


def _quoted(text: str) -> str:
    """A description inside double quotes: no quote or line break can end it early."""
    return " ".join(str(text).replace('"', "'").split())


def ib_topology_lines(
    fabric: Fabric, *, name: str = "", revision: int | None = None, leave_out=()
) -> Iterator[str]:
    """The ``ibnetdiscover`` topology of ``fabric`` (see the module docstring), line by line.

    Every node that is not a switch is a host: each of its linked ports is one adapter.
    ``leave_out``: fabric link indices written as if unplugged (failed links; a host left
    with no link is left out too).
    """
    ends = FabricEnds(fabric)
    switch_codes = [ROLE[r] for r in SWITCH_ROLES]
    is_switch = np.isin(fabric.node_role, switch_codes)
    yield "#\n"
    yield f"# Topology file: Fabric Planner design {_quoted(name)!r}, revision {revision or '-'}\n"
    yield "# (ibnetdiscover format, also an ibsim net file; GUIDs number the design's devices,\n"
    yield "# they are not hardware GUIDs; LIDs are the subnet manager's to assign)\n"
    yield "#\n\n"
    # every link end, grouped by node and sorted by port
    count = fabric.link_count
    a = fabric.link_a.astype(np.int64)
    b = fabric.link_b.astype(np.int64)
    node = np.concatenate([a, b])
    port = np.concatenate([fabric.link_a_port, fabric.link_b_port]).astype(np.int64)
    peer = np.concatenate([b, a])
    peer_port = np.concatenate([fabric.link_b_port, fabric.link_a_port]).astype(np.int64)
    speed = np.concatenate([fabric.link_speed_gbps, fabric.link_speed_gbps])
    order = np.lexsort((port, node))
    if len(leave_out):
        gone = np.zeros(count, dtype=bool)
        gone[np.asarray(leave_out, dtype=np.int64)] = True
        order = order[~np.concatenate([gone, gone])[order]]
    node, port, peer, peer_port, speed = (
        column[order].tolist() for column in (node, port, peer, peer_port, speed)
    )
    switch = is_switch.tolist()
    names = [_quoted(n) for n in fabric.node_name]

    def ident(n: int, p: int) -> str:
        return f'"S-{switch_guid(n):016x}"' if switch[n] else f'"H-{ca_guid(n, p):016x}"'

    def desc(n: int, p: int) -> str:
        if switch[n]:
            return f"MF0;{names[n]}:{_quoted(ends.models[n])}/U1"
        return f"{names[n]} {_quoted(ends.port_name(n, p))}"

    def far(i: int) -> str:
        """The far end of link end ``i``: ``"<id>"[<port>] # "<description>" <rate>``."""
        n, p = peer[i], peer_port[i]
        rate = ib_rate(speed[i])
        return f'{ident(n, p)}[{p + 1 if switch[n] else 1}]\t\t# "{desc(n, p)}"' + (
            f" {rate}" if rate else ""
        )

    start = 0
    by_node: dict[int, tuple[int, int]] = {}
    total = len(node)
    for i in range(1, total + 1):
        if i == total or node[i] != node[start]:
            by_node[node[start]] = (start, i)
            start = i
    for n in range(fabric.node_count):
        first, last = by_node.get(n, (0, 0))
        if switch[n]:
            guid = switch_guid(n)
            ports = max(int(fabric.node_ports[n]), max(port[first:last], default=-1) + 1)
            yield f"switchguid=0x{guid:016x}({guid:016x})\n"
            yield f'Switch\t{ports} "S-{guid:016x}"\t\t# "{desc(n, 0)}" enhanced port 0\n'
            for i in range(first, last):
                yield f"[{port[i] + 1}]\t{far(i)}\n"
            yield "\n"
            continue
        for i in range(first, last):  # a host: one adapter per linked port
            guid = ca_guid(n, port[i])
            yield f"caguid=0x{guid:016x}\n"
            yield f'Ca\t1 "H-{guid:016x}"\t\t# "{desc(n, port[i])}"\n'
            yield f"[1]({guid:016x}) \t{far(i)}\n\n"
