"""Switch-to-switch routing: the next hops of each flow from its source leaf to its target leaf.

Paths are the shortest switch paths (up/down in a Clos). ``rail``: static destination-based
routing (InfiniBand-style d-mod-k: at every switch the next hop is ``dst_server mod
#next-hops``). ``ecmp``: per-switch hash of the flow's 5-tuple (splitmix64; the RoCE entropy is
the queue pair number, ``qp``); ``polarization=True`` uses the same hash at every switch.
``adaptive``: packet spraying in the fluid limit, an equal split over the equal-cost next hops
at every switch (fractional rows). Hop counts come from one breadth-first search per class of
destination leaves with the same upstream switches (a Clos has few), and next hops are looked
up per (class, switch), so routing costs about the size of its result.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from planner.analyses.errors import JobInputError
from planner.analyses.flow.network import Network

__all__ = ["ROUTINGS", "RoutingError", "class_hops", "mix64", "route_hops", "switch_links"]

ROUTINGS = ("rail", "ecmp", "adaptive")
_U64 = np.uint64


class RoutingError(JobInputError):
    """A flow has no path (its NIC link failed, or the fabric is cut)."""


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on uint64 arrays: deterministic across machines and processes."""
    z = np.asarray(x, dtype=_U64) + _U64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


def switch_links(net: Network) -> tuple[np.ndarray, np.ndarray]:
    """Alive switch-to-switch links sorted by source node (then index), and their CSR pointer
    by source node."""
    fab = np.arange(2 * net.fabric_links)
    keep = fab[net.alive[fab] & net.is_switch[net.link_from[fab]] & net.is_switch[net.link_to[fab]]]
    keep = keep[np.argsort(net.link_from[keep], kind="stable")]
    out_ptr = np.zeros(net.node_count + 1, dtype=np.int64)
    np.cumsum(np.bincount(net.link_from[keep], minlength=net.node_count), out=out_ptr[1:])
    return keep, out_ptr


def class_hops(net: Network, keep: np.ndarray, targets: np.ndarray):
    """Hop counts towards the target leaves, one breadth-first search per class.

    Leaves with the same upstream switches (their in-neighbours over ``keep``) form a class
    ``c``; for every node ``v`` other than the target ``t`` itself, the hops from ``v`` to ``t``
    are ``hops[c, v]`` (one more than the hops to the nearest of those upstream switches).

    Returns
    -------
    target_class : ndarray
        Class of each target.
    hops : ndarray
        Classes x nodes, ``inf`` where a node cannot reach the class.
    """
    n = net.node_count
    into = keep[np.isin(net.link_to[keep], targets)]
    pairs = np.unique(net.link_to[into] * n + net.link_from[into])  # by (target, neighbour)
    pair_target, pair_from = pairs // n, pairs % n
    low = np.searchsorted(pair_target, targets, side="left")
    high = np.searchsorted(pair_target, targets, side="right")
    classes: dict[bytes, int] = {}
    target_class = np.empty(targets.size, dtype=np.int64)
    upstream = []
    for i in range(targets.size):
        neighbours = pair_from[low[i] : high[i]]
        key = neighbours.tobytes()
        if key not in classes:
            classes[key] = len(classes)
            upstream.append(neighbours)
        target_class[i] = classes[key]
    count = len(classes)
    virtual = np.repeat(n + np.arange(count), [u.size for u in upstream])
    # reversed graph (distance from t to x in it = distance from x to t), plus one virtual
    # source per class joined to the class's upstream switches
    rows = np.concatenate([net.link_to[keep], virtual])
    cols = np.concatenate([net.link_from[keep], *upstream]) if upstream else net.link_from[keep]
    graph = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n + count, n + count))
    hops = csgraph.shortest_path(
        graph, unweighted=True, directed=True, indices=n + np.arange(count)
    )
    return target_class, hops[:, :n]


def route_hops(net, flows, routing, hop, src_leaf, dst_leaf, seed, polarization, rows, cols, vals):
    """Switch-to-switch part of the routes of flows ``hop`` (leaf to leaf), appended to
    ``rows``/``cols``/``vals``."""
    n = net.node_count
    keep, out_ptr = switch_links(net)
    targets, target_row = np.unique(dst_leaf[hop], return_inverse=True)
    target_class, hops = class_hops(net, keep, targets)
    flow_class = np.zeros(len(flows), dtype=np.int64)
    flow_class[hop] = target_class[target_row]
    if not np.isfinite(hops[flow_class[hop], src_leaf[hop]]).all():
        raise RoutingError(
            "some flows have no path through the surviving links: fail fewer links "
            "(fail_links), or run Validate to find devices the fabric does not reach",
            field="fail_links",
        )
    # last hop: the links from a switch to the target leaf, by (from, to)
    pair_key = net.link_from[keep] * n + net.link_to[keep]
    pair_order = np.argsort(pair_key, kind="stable")
    pair_sorted, pair_links = pair_key[pair_order], keep[pair_order]
    if routing == "ecmp":
        key = mix64(
            mix64(flows.src.astype(_U64))
            ^ (flows.dst.astype(_U64) << _U64(20))
            ^ (flows.qp.astype(_U64) << _U64(44))
            ^ _U64(4791)
        )
        base = mix64(np.asarray([seed], dtype=_U64))[0]
        nodes = np.arange(n, dtype=_U64)
        switch_seed = np.full(n, base) if polarization else mix64(base ^ nodes)
    # next hops per (class, switch), computed the first time an entry stands there: the
    # out-links one hop closer to the class, at table[key_start[key] : + key_count[key]];
    # the last hops (to the target leaf itself) come first in the table
    n_keys = hops.shape[0] * n
    hop_flat = hops.ravel()  # hops[c, v] at c * n + v
    keep_to = net.link_to[keep]
    key_start = np.full(n_keys, -1, dtype=np.int64)
    key_count = np.zeros(n_keys, dtype=np.int64)
    table = pair_links
    # entries: (flow, current node, weight)
    e_flow, e_node, e_w = hop, src_leaf[hop], np.ones(hop.size)
    while e_flow.size:
        e_class = flow_class[e_flow]
        here = hops[e_class, e_node]
        start = np.empty(e_flow.size, dtype=np.int64)
        count = np.empty(e_flow.size, dtype=np.int64)
        last = here == 1
        if last.any():
            wanted = e_node[last] * n + dst_leaf[e_flow[last]]
            low = np.searchsorted(pair_sorted, wanted, side="left")
            start[last] = low
            count[last] = np.searchsorted(pair_sorted, wanted, side="right") - low
        inner = ~last
        if inner.any():
            keys = e_class[inner] * n + e_node[inner]
            fresh = keys[key_start[keys] < 0]
            if fresh.size:
                seen = np.zeros(n_keys, dtype=bool)
                seen[fresh] = True
                fresh = np.flatnonzero(seen)
                k_class, k_node = fresh // n, fresh % n
                deg = out_ptr[k_node + 1] - out_ptr[k_node]
                first = np.cumsum(deg) - deg
                at = np.repeat(out_ptr[k_node] - first, deg) + np.arange(int(deg.sum()))
                closer = hop_flat[np.repeat(k_class * n, deg) + keep_to[at]] == np.repeat(
                    hop_flat[fresh] - 1, deg
                )
                cand = keep[at[closer]]
                k_count = np.zeros(fresh.size, dtype=np.int64)
                some = deg > 0
                k_count[some] = np.add.reduceat(closer, first[some], dtype=np.int64)
                key_count[fresh] = k_count
                key_start[fresh] = table.size + np.cumsum(k_count) - k_count
                table = np.concatenate([table, cand])
            start[inner] = key_start[keys]
            count[inner] = key_count[keys]
        if (count == 0).any():
            raise RoutingError(
                "some flows have no path through the surviving links: fail fewer links "
                "(fail_links), or run Validate to find devices the fabric does not reach",
                field="fail_links",
            )
        if routing == "adaptive":
            rep = np.repeat(np.arange(e_flow.size), count)
            offset = np.arange(rep.size) - (np.cumsum(count) - count)[rep]
            link = table[start[rep] + offset]
            f_new, w = e_flow[rep], e_w[rep] / count[rep]
        else:
            if routing == "rail":
                h = net.gpu_ordinal[flows.dst[e_flow]].astype(np.int64)
            else:
                with np.errstate(over="ignore"):
                    h = mix64(key[e_flow] ^ switch_seed[e_node])
                h = (h % count.astype(_U64)).astype(np.int64)
            link = table[start + h % count]
            f_new, w = e_flow, e_w
        rows.append(f_new)
        cols.append(link)
        vals.append(w)
        nxt = net.link_to[link]
        go = nxt != dst_leaf[f_new]
        f_new, nxt, w = f_new[go], nxt[go], w[go]
        if routing == "adaptive" and f_new.size:
            merged, inverse = np.unique(f_new * n + nxt, return_inverse=True)
            w = np.bincount(inverse, weights=w)
            f_new, nxt = merged // n, merged % n
        e_flow, e_node, e_w = f_new, nxt, w
