"""OpenSM's forwarding tables (``dump_fts`` output) read back onto the design's fabric, and
checked: every switch's route to every adapter LID traced, the channel dependency graph of
those routes searched for a cycle.

``dump_fts`` prints one block per switch, ``Unicast lids [...] of switch ... guid 0x<guid>
(<description>):``, then one line per LID, ``0x<lid> <out port> : (<type> portguid 0x<guid>:
'<description>')``. The GUIDs are the topology export's own
(:mod:`planner.domain.outputs.ib_topology`): a switch's names its node, an adapter's its host
node and port (ibsim gives port 1 the node GUID + 1), so nothing is matched by name.

A credit loop is a cycle in the channel dependency graph: a vertex per directed
switch-to-switch link, an edge from each link a route takes to the next link it takes; a
routing whose graph has no cycle cannot deadlock (Dally and Seitz, "Deadlock-free message
routing in multiprocessor interconnection networks", IEEE Trans. Computers C-36(5), 1987,
primary). The routes traced start at every switch (a superset of the adapters' routes, which
start at their leaf), as ``ibdmchk`` and OpenSM's own ``--check_routing`` do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from planner.analyses.flow.forwarding import ForwardingTables
from planner.domain.fabric import Fabric
from planner.domain.outputs.ib_topology import ca_guid, switch_guid

__all__ = ["RouteCheck", "check_routes", "parse_fts", "tables_for"]

_SWITCH0 = switch_guid(-1)  # switch_guid(n) = _SWITCH0 + 16 * (n + 1)
_CA0 = ca_guid(-1, -1)  # ca_guid(n, p) = _CA0 + (n + 1) << 20 + (p + 1) << 4
_TABLE = re.compile(r"^Unicast lids .* guid 0x([0-9a-f]+) \(.*$", re.MULTILINE)
_ENTRY = re.compile(
    r"^0x([0-9a-f]+) (\d+) : \((Switch|Channel Adapter) portguid 0x([0-9a-f]+)", re.MULTILINE
)
#: Examples of unrouted (switch, LID) pairs a report lists.
EXAMPLES = 10


def parse_fts(text: str):
    """``dump_fts`` output as arrays: ``(switch node, lid, out port)`` per entry, and the
    adapters' ``lid -> (host node, logical port)``."""
    switch_nodes: list[np.ndarray] = []
    lids: list[str] = []
    ports: list[str] = []
    adapters: dict[int, tuple[int, int]] = {}
    parts = _TABLE.split(text)  # [before, guid, its entries, guid, its entries, ...]
    for guid, body in zip(parts[1::2], parts[2::2], strict=True):
        node = (int(guid, 16) - _SWITCH0) // 16 - 1
        found = _ENTRY.findall(body)
        switch_nodes.append(np.full(len(found), node, dtype=np.int64))
        for lid, port, kind, port_guid in found:
            lids.append(lid)
            ports.append(port)
            if kind == "Channel Adapter" and int(lid, 16) not in adapters:
                ca = int(port_guid, 16) - 1 - _CA0  # the node GUID of the adapter
                adapters[int(lid, 16)] = ((ca >> 20) - 1, ((ca >> 4) & 0xFFFF) - 1)
    entries = (
        np.concatenate(switch_nodes) if switch_nodes else np.zeros(0, dtype=np.int64),
        np.asarray([int(lid, 16) for lid in lids], dtype=np.int64),
        np.asarray(ports, dtype=np.int64),
    )
    return entries, adapters


def _end_links(fabric: Fabric, alive: np.ndarray) -> tuple[np.ndarray, int]:
    """The directed link out of each (node, logical port) over the links ``alive`` (per
    fabric link), at ``node * stride + port`` (-1: no link); directed link ``2i`` runs
    ``a -> b``, ``2i + 1`` runs ``b -> a``. Returns (table, stride)."""
    a_port = fabric.link_a_port.astype(np.int64)
    b_port = fabric.link_b_port.astype(np.int64)
    stride = int(max(a_port.max(initial=0), b_port.max(initial=0))) + 1
    table = np.full(fabric.node_count * stride, -1, dtype=np.int64)
    live = np.flatnonzero(alive)
    table[fabric.link_a[live].astype(np.int64) * stride + a_port[live]] = 2 * live
    table[fabric.link_b[live].astype(np.int64) * stride + b_port[live]] = 2 * live + 1
    return table, stride


def tables_for(fabric: Fabric, fts: str, alive: np.ndarray, *, source: str) -> ForwardingTables:
    """The flow engine's :class:`ForwardingTables` from ``dump_fts`` output of the fabric's
    topology with the links ``alive`` (per fabric link). A destination is an adapter's NIC
    link (the link on the host port the adapter stands for)."""
    (switch_node, lid, port), adapters = parse_fts(fts)
    ends, stride = _end_links(fabric, alive)
    switches = np.unique(switch_node)
    switch_row = np.full(fabric.node_count, -1, dtype=np.int64)
    switch_row[switches] = np.arange(switches.size)
    dest_col = np.full(fabric.link_count, -1, dtype=np.int64)
    lid_col = np.full(int(lid.max(initial=0)) + 1, -1, dtype=np.int64)
    for column, (ca_lid, (node, host_port)) in enumerate(sorted(adapters.items())):
        lid_col[ca_lid] = column
        known = 0 <= node < fabric.node_count and 0 <= host_port < stride
        if known and (out := ends[node * stride + host_port]) >= 0:
            dest_col[out // 2] = column
    next_link = np.full((switches.size, len(adapters)), -1, dtype=np.int64)
    to_ca = (lid_col[lid] >= 0) & (port >= 1) & (port <= stride)
    out = ends[switch_node[to_ca] * stride + port[to_ca] - 1]
    next_link[switch_row[switch_node[to_ca]], lid_col[lid[to_ca]]] = out
    return ForwardingTables(switch_row, dest_col, next_link, source)


@dataclass
class RouteCheck:
    """What tracing the tables found: ``pairs`` (switch, adapter) routes traced, ``unrouted``
    of them with no route (no entry, a dead end, a loop, the wrong host), the adapters (LIDs)
    some switch cannot reach, examples of those,
    and the channel dependency graph's cycles (``credit_loop_links``: the directed links in
    cycles, none on a deadlock-free routing)."""

    adapters: int
    switches: int
    pairs: int
    unrouted: int
    unrouted_adapters: int = 0
    examples: list[str] = field(default_factory=list)
    dependencies: int = 0
    credit_loop_links: list[int] = field(default_factory=list)


def check_routes(fabric: Fabric, tables: ForwardingTables) -> RouteCheck:
    """Follow every switch's table towards every adapter (see the module docstring).

    Long because: one walk, vectorized over all (switch, adapter) pairs at once, that records
    the failures of each kind and the channel dependencies as it goes."""
    names = fabric.node_name
    link_to = np.empty(2 * fabric.link_count, dtype=np.int64)
    link_to[0::2], link_to[1::2] = fabric.link_b, fabric.link_a
    row_node = np.flatnonzero(tables.switch_row >= 0)
    rows, cols = tables.next_link.shape
    dest_link = np.full(cols, -1, dtype=np.int64)
    have = np.flatnonzero(tables.dest_col >= 0)
    dest_link[tables.dest_col[have]] = have
    # the host end of each destination's NIC link
    a, b = fabric.link_a[dest_link].astype(np.int64), fabric.link_b[dest_link].astype(np.int64)
    target = np.where(tables.switch_row[a] >= 0, b, a)
    start = np.repeat(np.arange(rows), cols)
    col = np.tile(np.arange(cols), rows)
    at, previous = row_node[start], np.full(start.size, -1, dtype=np.int64)
    bad: list[tuple[np.ndarray, np.ndarray, str]] = []
    edges: list[np.ndarray] = []
    for _ in range(rows + 1):
        if not at.size:
            break
        link = tables.next_link[tables.switch_row[at], col]
        dead = link < 0
        bad.append((start[dead], col[dead], "no route"))
        keep = ~dead
        start, col, at, previous, link = (a[keep] for a in (start, col, at, previous, link))
        chained = previous >= 0
        edges.append(np.stack([previous[chained], link[chained]]))
        nxt = link_to[link]
        is_host = tables.switch_row[nxt] < 0
        astray = is_host & (nxt != target[col])
        bad.append((start[astray], col[astray], "delivered to another host"))
        go = ~is_host
        start, col, at, previous = start[go], col[go], nxt[go], link[go]
    bad.append((start, col, "a forwarding loop"))
    failed = [(int(s), int(c), why) for ss, cc, why in bad for s, c in zip(ss, cc, strict=True)]
    examples = [
        f"{names[row_node[s]]}: {why} towards {names[target[c]]} (link:{dest_link[c]})"
        for s, c, why in failed[:EXAMPLES]
    ]
    pairs = np.concatenate(edges, axis=1) if edges else np.zeros((2, 0), dtype=np.int64)
    size = 2 * fabric.link_count
    key = np.unique(pairs[0] * size + pairs[1])
    pairs = np.stack([key // size, key % size])
    graph = sp.csr_matrix((np.ones(pairs.shape[1]), (pairs[0], pairs[1])), shape=(size, size))
    _, label = csgraph.connected_components(graph, directed=True, connection="strong")
    in_cycle = np.bincount(label, minlength=size)[label] > 1
    in_cycle[pairs[0][pairs[0] == pairs[1]]] = True
    return RouteCheck(
        adapters=cols,
        switches=rows,
        pairs=rows * cols,
        unrouted=len(failed),
        unrouted_adapters=len({c for _, c, _ in failed}),
        examples=examples,
        dependencies=int(pairs.shape[1]),
        credit_loop_links=np.flatnonzero(in_cycle).tolist(),
    )
