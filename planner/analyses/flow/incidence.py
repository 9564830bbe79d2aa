"""Flows to a weighted flow x link incidence (CSR): ``a[f, l]`` = fraction of flow ``f``'s
bytes crossing directed link ``l``.

A flow crosses its GPUs' NIC links on its plane (or the scale-up pair between GPUs of one
server), and between leaves the switch path that :mod:`planner.analyses.flow.routing` chooses.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from planner.analyses.flow.flows import Flows
from planner.analyses.flow.network import Network
from planner.analyses.flow.routing import (
    FLOWLETS_DEFAULT,
    FLOWLETS_MAX,
    RoutingError,
    canonical_routing,
    route_hops,
)

__all__ = ["SPLIT_BY_LEAVES", "route"]

#: Modes whose switch hops depend on the flow's leaves alone (and, for ``ib-ar``, on the bytes
#: between them): one flow per (source leaf, target leaf) pair is routed, the others copy it.
SPLIT_BY_LEAVES = ("spraying", "ib-ar")


def _route_by_leaf_pair(net, flows, routing, hop, src_leaf, dst_leaf, rows, cols, vals):
    """Switch hops of flows ``hop`` under a split mode, routed once per leaf pair.

    ``spraying`` splits equally at every switch, so a flow's hops depend on its two leaves
    only. ``ib-ar`` levels each switch's ports over groups of flows with the same candidate
    ports, by the group's bytes; the flows of one leaf pair travel together (same candidates
    at every switch, same shares), so one representative carrying the pair's bytes splits
    the same way. Its entries are copied to every flow of the pair."""
    n = net.node_count
    pair, first, of_flow = np.unique(
        src_leaf[hop] * n + dst_leaf[hop], return_index=True, return_inverse=True
    )
    reps = hop[first]
    routed = flows
    if routing == "ib-ar":
        size = np.zeros(len(flows))
        size[reps] = np.bincount(of_flow, weights=flows.size[hop], minlength=pair.size)
        routed = Flows(flows.src, flows.dst, size, flows.start, flows.qp, flows.plane)
    r_rows: list[np.ndarray] = []
    r_cols: list[np.ndarray] = []
    r_vals: list[np.ndarray] = []
    route_hops(net, routed, routing, reps, src_leaf, dst_leaf, 0, False, r_rows, r_cols, r_vals)
    position = np.zeros(len(flows), dtype=np.int64)
    position[reps] = np.arange(reps.size)
    e_pair = position[np.concatenate(r_rows)]
    order = np.argsort(e_pair, kind="stable")
    e_col, e_val = np.concatenate(r_cols)[order], np.concatenate(r_vals)[order]
    count = np.bincount(e_pair, minlength=pair.size)
    start = np.cumsum(count) - count
    per = count[of_flow]
    at = np.repeat(start[of_flow] - (np.cumsum(per) - per), per) + np.arange(int(per.sum()))
    rows.append(np.repeat(hop, per))
    cols.append(e_col[at])
    vals.append(e_val[at])


def route(
    net: Network,
    flows: Flows,
    routing: str = "ecmp",
    *,
    seed: int = 0,
    polarization: bool = False,
    flowlets: int | None = None,
) -> sp.csr_matrix:
    """Weighted incidence (flows x directed links, CSR) of ``flows`` under ``routing``.

    ``routing`` is one of :data:`~planner.analyses.flow.routing.ROUTINGS` or an alias
    (``adaptive`` = ``spraying``); ``flowlets`` is ``flowlet`` routing's flowlets per flow
    (default :data:`~planner.analyses.flow.routing.FLOWLETS_DEFAULT`). Each flow uses NIC
    link ``flows.plane`` of its GPUs (see :func:`sub_flows`).

    Raises
    ------
    ValueError
        Unknown routing, flowlets outside 1..FLOWLETS_MAX, or a plane the GPUs do not have.
    RoutingError
        A flow's NIC link failed, or no path survives.
    """
    routing = canonical_routing(routing)
    flowlets = FLOWLETS_DEFAULT if flowlets is None else int(flowlets)
    if not 1 <= flowlets <= FLOWLETS_MAX:
        raise ValueError(f"flowlets must be 1..{FLOWLETS_MAX}, not {flowlets}")
    n_flows = len(flows)
    src, dst, plane = flows.src, flows.dst, flows.plane
    if n_flows and (plane.min() < 0 or plane.max() >= net.planes):
        raise ValueError(f"a flow's plane must be 0..{net.planes - 1} on this fabric")
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []

    same_server = net.gpu_server[src] == net.gpu_server[dst]
    local = same_server & (net.scale_up_gbps is not None)
    if local.any():
        f = np.flatnonzero(local)
        rows += [f, f]
        cols += [net.scale_up_out(src[f]), net.scale_up_out(dst[f]) + 1]
        vals += [np.ones(f.size), np.ones(f.size)]
    fabric_flows = np.flatnonzero(~local)
    fp = plane[fabric_flows]
    nic_up = 2 * net.gpu_nics[src[fabric_flows], fp]
    nic_down = 2 * net.gpu_nics[dst[fabric_flows], fp] + 1
    dead = ~(net.alive[nic_up] & net.alive[nic_down])
    if dead.any():
        raise RoutingError(
            f"{int(dead.sum()):,} flows have a failed NIC link: fail fewer links "
            "(fail_links) or choose another seed",
            field="fail_links",
        )
    rows += [fabric_flows, fabric_flows]
    cols += [nic_up, nic_down]
    vals += [np.ones(fabric_flows.size), np.ones(fabric_flows.size)]

    src_leaf = np.full(n_flows, -1, dtype=np.int64)
    dst_leaf = np.full(n_flows, -1, dtype=np.int64)
    src_leaf[fabric_flows] = net.gpu_leaves[src[fabric_flows], fp]
    dst_leaf[fabric_flows] = net.gpu_leaves[dst[fabric_flows], fp]
    hop = fabric_flows[src_leaf[fabric_flows] != dst_leaf[fabric_flows]]
    if hop.size and routing in SPLIT_BY_LEAVES:
        _route_by_leaf_pair(net, flows, routing, hop, src_leaf, dst_leaf, rows, cols, vals)
    elif hop.size:
        route_hops(
            net,
            flows,
            routing,
            hop,
            src_leaf,
            dst_leaf,
            seed,
            polarization,
            rows,
            cols,
            vals,
            flowlets=flowlets,
        )
    matrix = sp.coo_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_flows, net.link_count),
    ).tocsr()
    matrix.sum_duplicates()
    return matrix
