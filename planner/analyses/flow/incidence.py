"""Flows to a weighted flow x link incidence (CSR): ``a[f, l]`` = fraction of flow ``f``'s
bytes crossing directed link ``l``.

A flow crosses its GPUs' NIC links on its plane (or the scale-up pair between GPUs of one
server), and between leaves the switch path that :mod:`planner.analyses.flow.routing` chooses.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from planner.analyses.flow.flows import Flows
from planner.analyses.flow.forwarding import forwarding_hops
from planner.analyses.flow.network import Network
from planner.analyses.flow.routing import (
    FLOWLETS_DEFAULT,
    FLOWLETS_MAX,
    RoutingError,
    canonical_routing,
    mix64,
    route_hops,
)

__all__ = ["SPLIT_BY_LEAVES", "route", "unmerge"]

#: Modes whose switch hops depend on the flow's leaves alone (and, for ``ib-ar``, on the bytes
#: between them): one flow per (source leaf, target leaf) pair is routed, the others copy it.
SPLIT_BY_LEAVES = ("spraying", "ib-ar")


def _identical_links(net, e_pair, e_col, e_val) -> np.ndarray | None:
    """Links that carry exactly the same leaf pairs with the same weights and have the same
    capacity (a leaf's sprayed uplinks, say): the link each one is merged into (the group's
    lowest index; itself when alone), or None when no two are alike. Groups come from two
    independent 64-bit hashes of each link's (pair, weight) entries and are then checked
    entry by entry; a link that differs from its group's first stays alone."""
    order = np.lexsort((e_pair, e_col))
    col, pair, val = e_col[order], e_pair[order], e_val[order]
    starts = np.flatnonzero(np.concatenate(([True], col[1:] != col[:-1])))
    links = col[starts]
    count = np.diff(np.append(starts, col.size))
    key = pair.astype(np.uint64) ^ mix64(val.view(np.uint64))
    h1 = np.add.reduceat(mix64(key), starts)
    h2 = np.add.reduceat(mix64(key ^ np.uint64(0x5BD1E9955BD1E995)), starts)
    cap = np.ascontiguousarray(np.where(net.alive, net.capacity, 0.0)[links]).view(np.uint64)
    keys = np.stack([h1, h2, count.astype(np.uint64), cap])
    group_order = np.lexsort(keys[::-1])
    k = keys[:, group_order]
    new = np.concatenate(([True], (k[:, 1:] != k[:, :-1]).any(axis=0)))
    if new.all():
        return None
    head = np.empty(links.size, dtype=np.int64)  # per link: the first link of its group
    head[group_order] = group_order[np.maximum.accumulate(np.where(new, np.arange(new.size), 0))]
    # check entry by entry against the group's first link (same count by construction)
    first = starts[head]
    at = np.repeat(first - starts, count) + np.arange(col.size)
    same = (pair[at] == pair) & (val[at] == val)
    alike = np.logical_and.reduceat(same, starts)
    head = np.where(alike, head, np.arange(links.size))
    # the group's lowest link index represents it (links are sorted, so take the minimum)
    lowest = np.full(links.size, links.size, dtype=np.int64)
    np.minimum.at(lowest, head, np.arange(links.size))
    merged = np.arange(net.link_count)
    merged[links] = links[lowest[head]]
    return merged


def _route_by_leaf_pair(net, flows, routing, hop, src_leaf, dst_leaf, rows, cols, vals, merge):
    """Switch hops of flows ``hop`` under a split mode, routed once per leaf pair; with
    ``merge``, links that every pair crosses alike become one (:func:`_identical_links`).
    Returns the merge (each link's representative) or None.

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
    e_pair = e_pair[order]
    e_col, e_val = np.concatenate(r_cols)[order], np.concatenate(r_vals)[order]
    merged = _identical_links(net, e_pair, e_col, e_val) if merge else None
    if merged is not None:  # one entry per (pair, merged link): the group's weights are equal
        e_col = merged[e_col]
        keep = np.unique(e_pair * net.link_count + e_col, return_index=True)[1]
        e_pair, e_col, e_val = e_pair[keep], e_col[keep], e_val[keep]
    count = np.bincount(e_pair, minlength=pair.size)
    start = np.cumsum(count) - count
    per = count[of_flow]
    at = np.repeat(start[of_flow] - (np.cumsum(per) - per), per) + np.arange(int(per.sum()))
    rows.append(np.repeat(hop, per))
    cols.append(e_col[at])
    vals.append(e_val[at])
    return merged


def route(
    net: Network,
    flows: Flows,
    routing: str = "ecmp",
    *,
    seed: int = 0,
    polarization: bool = False,
    flowlets: int | None = None,
    merge_links: bool = False,
):
    """Weighted incidence (flows x directed links, CSR) of ``flows`` under ``routing``.

    With ``merge_links``, returns (incidence, merged): under ``spraying`` and ``ib-ar`` links
    that carry the same flows with the same weights and have the same capacity (a leaf's
    sprayed uplinks) keep only their lowest-indexed link's entries, ``merged[link]`` being
    that link (None when nothing merged). Their max-min constraints are one and the same, so
    rates are unchanged; loads and the full incidence follow from ``merged``
    (:func:`unmerge`).

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

    Long because: it builds one CSR matrix from arrays it grows step by step (rows, columns,
    weights); the steps read each other's arrays.
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
    merged = None
    if hop.size and routing in SPLIT_BY_LEAVES:
        merged = _route_by_leaf_pair(
            net, flows, routing, hop, src_leaf, dst_leaf, rows, cols, vals, merge_links
        )
    elif hop.size and routing == "opensm":
        forwarding_hops(net, flows, hop, src_leaf, dst_leaf, rows, cols, vals)
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
    return (matrix, merged) if merge_links else matrix


def unmerge(incidence: sp.csr_matrix, merged: np.ndarray) -> sp.csr_matrix:
    """The full incidence of a merged one (:func:`route` with ``merge_links``): every entry
    on a representative link repeated on each link merged into it (rows keep their order;
    within a row, a group's links follow its representative)."""
    order = np.argsort(merged, kind="stable")
    size = np.bincount(merged, minlength=merged.size)
    first = np.cumsum(size) - size
    per = size[incidence.indices]
    at = np.repeat(first[incidence.indices] - (np.cumsum(per) - per), per) + np.arange(per.sum())
    indptr = np.concatenate(([0], np.cumsum(per)))[incidence.indptr]
    return sp.csr_matrix((np.repeat(incidence.data, per), order[at], indptr), shape=incidence.shape)
