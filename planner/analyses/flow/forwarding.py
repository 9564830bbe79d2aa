"""``opensm`` routing: the switch hops a subnet manager's forwarding tables give each flow.

An InfiniBand switch forwards a packet by its destination LID alone: its linear forwarding
table (LFT) names one out port per LID (InfiniBand Architecture Specification, vol. 1,
"linear forwarding table", primary). :class:`ForwardingTables` holds such tables in the flow
engine's terms: per switch and destination NIC link, the directed link the switch sends it
out on. Where they come from is not this module's business (the real OpenSM on ibsim:
:mod:`planner.analyses.opensm`); :func:`forwarding_hops` follows them from each flow's
source leaf until the flow reaches its destination's leaf, one path per flow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.analyses.flow.network import Network
from planner.analyses.flow.routing import RoutingError

__all__ = ["ForwardingTables", "forwarding_hops"]


@dataclass(frozen=True)
class ForwardingTables:
    """Forwarding tables in the flow engine's indices.

    ``switch_row``: per node, its row in ``next_link`` (-1 for a node that is no switch);
    ``dest_col``: per fabric link, its column (-1 for a link that is no destination: only NIC
    links are); ``next_link[row, col]``: the directed link the switch sends that destination
    out on (-1: no entry, an unrouted LID). ``source`` says who computed them.
    """

    switch_row: np.ndarray
    dest_col: np.ndarray
    next_link: np.ndarray
    source: str = ""


def _unrouted(net: Network, message: str, nodes, dests) -> RoutingError:
    names = net.node_name
    first = ", ".join(
        f"{names[int(n)] if names else n} towards {net.link_id(2 * int(d))}"
        for n, d in zip(nodes[:3], dests[:3], strict=False)
    )
    return RoutingError(
        f"{len(nodes):,} flows {message} (first: {first}): the forwarding tables leave "
        "destinations unrouted; choose another OpenSM engine or routing, or fix the cabling "
        "(run Validate)",
        field="routing",
    )


def forwarding_hops(net: Network, flows, hop, src_leaf, dst_leaf, rows, cols, vals) -> None:
    """Switch-to-switch part of the routes of flows ``hop`` under ``net.forwarding``, appended
    to ``rows``/``cols``/``vals`` (weight 1: one path per flow).

    Raises
    ------
    RoutingError
        The network has no forwarding tables, or a switch on the way has no entry for the
        destination (or one on a failed link), sends it to another host, or the tables loop.
    """
    tables: ForwardingTables | None = getattr(net, "forwarding", None)
    if tables is None:
        raise RoutingError(
            "opensm routing needs the forwarding tables OpenSM computes for the design: it "
            "runs in the simulate job and `manage.py fabric simulate` only",
            field="routing",
        )
    dest_link = net.gpu_nics[flows.dst[hop], flows.plane[hop]]
    col = tables.dest_col[dest_link]
    if (col < 0).any():
        bad = np.flatnonzero(col < 0)
        raise _unrouted(net, "go to a NIC with no LID", src_leaf[hop[bad]], dest_link[bad])
    f, node = hop, src_leaf[hop]
    switches = int((tables.switch_row >= 0).sum())
    for _ in range(switches + 1):
        if not f.size:
            return
        row = tables.switch_row[node]
        link = np.where(row >= 0, tables.next_link[np.maximum(row, 0), col], -1)
        dead = (link < 0) | ~net.alive[np.maximum(link, 0)]
        if dead.any():
            at = np.flatnonzero(dead)
            dests = net.gpu_nics[flows.dst[f[at]], flows.plane[f[at]]]
            raise _unrouted(net, "meet a switch with no route", node[at], dests)
        rows.append(f)
        cols.append(link)
        vals.append(np.ones(f.size))
        nxt = net.link_to[link]
        go = nxt != dst_leaf[f]
        astray = go & ~net.is_switch[nxt]
        if astray.any():
            at = np.flatnonzero(astray)
            dests = net.gpu_nics[flows.dst[f[at]], flows.plane[f[at]]]
            raise _unrouted(net, "are delivered to another host", node[at], dests)
        f, node, col = f[go], nxt[go], col[go]
    if f.size:
        dests = net.gpu_nics[flows.dst[f], flows.plane[f]]
        raise _unrouted(net, "loop between switches", node, dests)
