"""Switch-to-switch routing: the next hops of each flow from its source leaf to its target leaf.

Paths are the shortest switch paths (up/down in a Clos); every mode chooses among the same
equal-cost next hops, and differs in how. Each is the fluid limit of a transport's load
balancing (rates are max-min fair over the routes, :mod:`planner.analyses.flow.filling`); the
routes are fixed for the run, chosen once from the whole run's flows:

``rail``
    Static destination routing (InfiniBand linear forwarding tables without adaptive
    routing, d-mod-k): at every switch the next hop is ``d mod #next-hops``, ``d`` the
    destination NIC link's index (:attr:`Network.gpu_dest`: NIC links numbered leaf by leaf,
    as the subnet manager routes each destination port on its own). The destination is the
    NIC port, not its server: on a rack-scale system (GB300 NVL72, 72 NICs in one "server")
    a server's ordinal would send every flow to one rack down the same port.
``ecmp``
    Per-flow hash: per-switch splitmix64 of the flow's 5-tuple (the RoCE entropy is the queue
    pair number, ``qp``); ``polarization=True`` uses the same hash at every switch. One path
    per flow.
``flowlet``
    Per-flowlet re-hash (flowlet switching / dynamic load balancing in flowlet mode): a flow
    is ``k`` flowlets of ``1/k`` of its bytes each, each hashed on its own like an ECMP flow;
    the flow keeps one rate, its row splits ``1/k`` per flowlet path. Flowlet 0 hashes as
    the flow itself, so ``k = 1`` is ECMP. Default ``k`` and its source:
    :data:`FLOWLETS_DEFAULT`.
``spraying``
    Packet spraying (NVIDIA Spectrum-X adaptive routing with NIC reordering): in the fluid
    limit an equal split over the equal-cost next hops at every switch (fractional rows);
    ``shared/reference/flow-simulation.md`` section 5.3. Formerly ``adaptive``, still
    accepted (:data:`ROUTING_ALIASES`).
``ib-ar``
    InfiniBand adaptive routing: the switch "select[s] the output port based on the port's
    load" among the ports of an AR group, which for a fat tree (the TREE algorithm) are "all
    ports with minimal hops to destination" (NVIDIA, InfiniBand Cluster Bring-up Procedure,
    Adaptive Routing, https://docs.nvidia.com/networking/display/ibclusterbringupprocedure/
    adaptive+routing, primary). Fluid limit (inferred): per-packet choice of the least
    loaded port is water-filling, so each switch splits the traffic a group of flows brings
    it (the flows sharing a set of candidate ports) over those ports so as to level their
    load per unit capacity, counting the traffic already sent to them. Load is bytes over
    the run (each flow's size); the switch sees only its own ports (no downstream
    congestion), switches decide hop by hop from the sources, and at one switch the flows
    with the fewest candidate ports are placed first. On a healthy Clos this is the equal
    split of ``spraying``; it differs where candidate sets differ (failed links, unequal
    speeds) or ports already carry other traffic.
``opensm``
    The forwarding tables the real subnet manager (OpenSM, run on ibsim over the design's
    topology) writes: at each switch, the one out port its table names for the destination
    NIC's LID (:mod:`planner.analyses.flow.forwarding`). One path per flow, as ``rail``, but
    the SM's own choice (its routing engine, its view of failed links) instead of our d-mod-k
    model of it. Needs the tables on the network (``Network.forwarding``).

Hop counts come from one breadth-first search per class of destination leaves with the same
upstream switches (a Clos has few), and next hops are looked up per (class, switch), so routing
costs about the size of its result.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from planner.analyses.errors import JobInputError
from planner.analyses.flow.network import Network

__all__ = [
    "FLOWLETS_DEFAULT",
    "FLOWLETS_MAX",
    "FLOWLETS_SOURCE",
    "ROUTINGS",
    "ROUTING_ALIASES",
    "ROUTING_LABELS",
    "RoutingError",
    "canonical_routing",
    "class_hops",
    "mix64",
    "route_hops",
    "switch_links",
]

ROUTINGS = ("rail", "ecmp", "flowlet", "spraying", "ib-ar", "opensm")
#: Earlier names, still accepted (stored jobs, API clients): name -> the mode it is now.
ROUTING_ALIASES = {"adaptive": "spraying"}
#: What a page calls each mode.
ROUTING_LABELS = {
    "rail": "Static destination routing (d-mod-k)",
    "ecmp": "ECMP (per-flow hash)",
    "flowlet": "Flowlet switching (per-flowlet re-hash)",
    "spraying": "Packet spraying (Spectrum-X, equal split)",
    "ib-ar": "InfiniBand adaptive routing (load-weighted)",
    "opensm": "Routed by OpenSM (the real subnet manager's tables)",
}
#: Flowlets per flow (``k``) when none is given: 1, i.e. no re-hash. RDMA senders rarely
#: leave an idle gap longer than a switch's flowlet timeout (e.g. 256 us, Juniper's DLB
#: default: https://www.juniper.net/documentation/us/en/software/apstra6.0/apstra-user-guide/
#: topics/task/configure-glb.html, primary): HF2T (Chen et al., APNet 2024, doi
#: 10.1145/3663408.3663410; abstract at https://bohrium.dp.tech/paper/arxiv/6684c44f01d2a3fbfc522bb0,
#: secondary) measured such gaps in RDMA at about 1/300 of their share in TCP, and found
#: "an insufficient number of flowlets in RDMA networks". No published figure gives flowlets
#: per flow for collective traffic; give ``flowlets`` to model host-made gaps (provenance:
#: inferred).
FLOWLETS_DEFAULT = 1
FLOWLETS_MAX = 64
FLOWLETS_SOURCE = (
    "HF2T, APNet 2024 (doi 10.1145/3663408.3663410): gaps longer than the flowlet timeout are "
    "about 1/300 as common in RDMA as in TCP, so an RDMA flow is mostly one flowlet (inferred)"
)
_U64 = np.uint64


class RoutingError(JobInputError):
    """A flow has no path (its NIC link failed, or the fabric is cut)."""


def canonical_routing(name: str) -> str:
    """The mode ``name`` stands for (an alias resolved).

    Raises
    ------
    ValueError
        ``name`` is neither a mode nor an alias.
    """
    name = ROUTING_ALIASES.get(name, name)
    if name not in ROUTINGS:
        known = ", ".join(ROUTINGS + tuple(ROUTING_ALIASES))
        raise ValueError(f"routing must be one of {known}, not {name!r}")
    return name


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on uint64 arrays: deterministic across machines and processes."""
    z = np.asarray(x, dtype=_U64) + _U64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


def switch_links(net: Network, *, by_neighbour: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Alive switch-to-switch links sorted by source node (then index; with ``by_neighbour``,
    then by the switch they lead to, then index), and their CSR pointer by source node."""
    fab = np.arange(2 * net.fabric_links)
    keep = fab[net.alive[fab] & net.is_switch[net.link_from[fab]] & net.is_switch[net.link_to[fab]]]
    if by_neighbour:
        keep = keep[np.lexsort((keep, net.link_to[keep], net.link_from[keep]))]
    else:
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


def route_hops(
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
    *,
    flowlets: int = FLOWLETS_DEFAULT,
):
    """Switch-to-switch part of the routes of flows ``hop`` (leaf to leaf), appended to
    ``rows``/``cols``/``vals``; ``routing`` is one of :data:`ROUTINGS` (see the module doc).

    Long because: the hop-by-hop walk of every flow, in one loop over shared tables of next hops
    that it fills lazily (see the comments in it).
    """
    n = net.node_count
    keep, out_ptr = switch_links(net, by_neighbour=routing == "rail")
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
    hashed = routing in ("ecmp", "flowlet")
    split = routing in ("spraying", "ib-ar")  # fractional rows, merged per (flow, node)
    # entries: (flow, current node, weight) and, when hashed, the hash key of the entry
    e_flow, e_node, e_w = hop, src_leaf[hop], np.ones(hop.size)
    e_key = None
    if hashed:
        key = mix64(
            mix64(flows.src.astype(_U64))
            ^ (flows.dst.astype(_U64) << _U64(20))
            ^ (flows.qp.astype(_U64) << _U64(44))
            ^ _U64(4791)
        )
        base = mix64(np.asarray([seed], dtype=_U64))[0]
        nodes = np.arange(n, dtype=_U64)
        switch_seed = np.full(n, base) if polarization else mix64(base ^ nodes)
        e_key = key[hop]
        if routing == "flowlet" and flowlets > 1:
            k = int(flowlets)
            e_flow = np.repeat(hop, k)
            e_node = np.repeat(src_leaf[hop], k)
            e_w = np.full(e_flow.size, 1.0 / k)
            j = np.tile(np.arange(k, dtype=_U64), hop.size)
            with np.errstate(over="ignore"):
                e_key = np.where(
                    j == 0, key[e_flow], mix64(key[e_flow] ^ (j * _U64(0x9E3779B97F4A7C15)))
                )
    if routing == "rail":
        dmodk = _DModK(net, flows, hop, hops[flow_class[hop], src_leaf[hop]])
    if routing == "ib-ar":
        port_load = np.zeros(net.link_count)  # bytes sent to each port so far
        size = np.asarray(flows.size, dtype=np.float64)
    # next hops per (class, switch), computed the first time an entry stands there: the
    # out-links one hop closer to the class, at table[key_start[key] : + key_count[key]];
    # the last hops (to the target leaf itself) come first in the table
    n_keys = hops.shape[0] * n
    hop_flat = hops.ravel()  # hops[c, v] at c * n + v
    keep_to = net.link_to[keep]
    key_start = np.full(n_keys, -1, dtype=np.int64)
    key_count = np.zeros(n_keys, dtype=np.int64)
    table = pair_links
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
        if routing == "spraying":
            rep = np.repeat(np.arange(e_flow.size), count)
            offset = np.arange(rep.size) - (np.cumsum(count) - count)[rep]
            link = table[start[rep] + offset]
            f_new, w = e_flow[rep], e_w[rep] / count[rep]
            k_new = None
        elif routing == "ib-ar":
            rep, link, share = _load_levelled(
                net, table, start, count, e_node, size[e_flow] * e_w, port_load
            )
            f_new, w = e_flow[rep], e_w[rep] * share
            keep_w = w > 0
            f_new, link, w = f_new[keep_w], link[keep_w], w[keep_w]
            k_new = None
        else:
            if routing == "rail":
                h = dmodk.next_hop(e_flow, start, count, net.link_to[table])
            else:
                with np.errstate(over="ignore"):
                    h = mix64(e_key ^ switch_seed[e_node])
                h = (h % count.astype(_U64)).astype(np.int64)
            link = table[start + h % count]
            f_new, w, k_new = e_flow, e_w, e_key
        rows.append(f_new)
        cols.append(link)
        vals.append(w)
        nxt = net.link_to[link]
        go = nxt != dst_leaf[f_new]
        f_new, nxt, w = f_new[go], nxt[go], w[go]
        if k_new is not None:
            k_new = k_new[go]
        if split and f_new.size:
            merged, inverse = np.unique(f_new * n + nxt, return_inverse=True)
            w = np.bincount(inverse, weights=w)
            f_new, nxt = merged // n, merged % n
        e_flow, e_node, e_w, e_key = f_new, nxt, w, k_new


class _DModK:
    """The next hops of ``rail`` (d-mod-k) for the flows ``hop``, one switch at a time.

    Candidates are listed by next switch, then link (:func:`switch_links` ``by_neighbour``):
    ``S`` switches with ``c`` parallel links each, index ``switch * c + link``. A flow of ``L``
    switch hops goes up ``L // 2`` hops, then down. Up hop ``i`` takes index
    ``(d // W_i) mod (S * c)``, ``W_0 = 1``, ``W_(i+1) = W_i * S * c``: each tier reads its own
    digit of the destination index ``d``, as d-mod-k does (E. Zahavi, "D-Mod-K Routing
    Providing Non-Blocking Traffic for Shift Permutations on Real Life Fat Trees", 2010: the
    up port at level ``l`` is ``floor(d / (w_1...w_l)) mod w_(l+1)``; secondary), so a spine
    does not repeat its leaf's choice. The way down mirrors the way up from the destination's
    leaf: down hop ``L - 1 - m`` takes parallel link ``(d // W_m) mod c``, as up hop ``m``
    did, and switch ``(d // (W_(m-1) * c_(m-1))) mod S``, the switch up hop ``m - 1`` picks.
    So the destinations one switch brings down to a leaf take distinct links, and on a
    symmetric Clos every switch sends a destination one way whatever the source (a
    forwarding table). Candidates not ``S`` switches x ``c`` links (a failed link) take
    index ``digit mod count``."""

    def __init__(self, net: Network, flows, hop: np.ndarray, path_hops: np.ndarray):
        self.d = np.zeros(len(flows), dtype=np.int64)
        self.d[hop] = net.gpu_dest[flows.dst[hop], flows.plane[hop]]
        self.length = np.zeros(len(flows), dtype=np.int64)
        self.length[hop] = np.asarray(path_hops, dtype=np.int64)
        self.taken = np.zeros(len(flows), dtype=np.int64)
        ups = int(self.length.max(initial=0)) // 2
        self.w = np.ones((len(flows), ups + 1), dtype=np.int64)  # W_i per flow
        self.c = np.ones((len(flows), ups + 1), dtype=np.int64)  # parallel links of up hop i

    def next_hop(self, flow, start, count, table_to) -> np.ndarray:
        """Index into each flow's candidates (``table_to[start : start + count]``, the switch
        each leads to) at its current switch."""
        step, length = self.taken[flow], self.length[flow]
        self.taken[flow] += 1
        # parallel links c: the run of candidates to the first one's switch; S = count / c
        run_start = np.append(np.flatnonzero(table_to[1:] != table_to[:-1]) + 1, table_to.size)
        run_end = run_start[np.searchsorted(run_start, start, side="right")]
        c = np.minimum(run_end - start, count)
        regular = count % c == 0
        c = np.where(regular, c, 1)
        switches = count // c
        d = self.d[flow]
        up = step < length // 2
        mirror = np.clip(np.where(up, step, length - 1 - step), 0, self.w.shape[1] - 1)
        w = self.w[flow, mirror]
        below = np.maximum(mirror - 1, 0)
        switch_w = np.where(mirror > 0, self.w[flow, below] * self.c[flow, below], 1)
        down = np.where(regular, (d // switch_w) % switches * c + (d // w) % c, (d // w) % count)
        h = np.where(up, (d // w) % count, down)
        fu, su = flow[up], step[up]
        self.w[fu, su + 1] = w[up] * count[up]
        self.c[fu, su] = c[up]
        return h


def _load_levelled(net, table, start, count, node, demand, port_load):
    """One hop of ``ib-ar``: the split of each entry over its candidate ports that levels
    the ports' load per unit capacity (water-filling). Entries with the same candidates
    (the same ``start`` in ``table``) form a group; a switch places its groups in turn, the
    smallest candidate sets first (single next hops all at once, before the others).

    ``port_load`` (bytes per directed link) is updated in place. Returns (entry of each
    piece, its link, its share of the entry's weight)."""
    cap = net.capacity
    group_start, group_of = np.unique(start, return_inverse=True)
    n_groups = group_start.size
    g_count = np.zeros(n_groups, dtype=np.int64)
    g_count[group_of] = count
    g_node = np.zeros(n_groups, dtype=np.int64)
    g_node[group_of] = node
    g_demand = np.bincount(group_of, weights=demand, minlength=n_groups)
    # turn of each group at its switch: every single next hop at turn 0, then the groups
    # with more candidates one at a time, fewest candidates first
    turn = np.zeros(n_groups, dtype=np.int64)
    multi = np.flatnonzero(g_count > 1)
    if multi.size:
        order = multi[np.lexsort((group_start[multi], g_count[multi], g_node[multi]))]
        node_sorted = g_node[order]
        first = np.concatenate(([True], node_sorted[1:] != node_sorted[:-1]))
        run_start = np.maximum.accumulate(np.where(first, np.arange(order.size), 0))
        turn[order] = 1 + np.arange(order.size) - run_start
    single = np.flatnonzero(g_count == 1)
    np.add.at(port_load, table[group_start[single]], g_demand[single])
    piece_group = [single]
    piece_link = [table[group_start[single]]]
    piece_share = [np.ones(single.size)]
    for t in range(1, int(turn.max()) + 1 if n_groups else 0):
        now = np.flatnonzero(turn == t)
        cnt = g_count[now]
        starts = np.cumsum(cnt) - cnt
        seg = np.repeat(np.arange(now.size), cnt)
        links = table[np.repeat(group_start[now], cnt) + np.arange(seg.size) - starts[seg]]
        c = cap[links]
        level = np.divide(port_load[links], c, out=np.zeros(links.size), where=c > 0)
        by_level = np.lexsort((level, seg))
        links, c, level = links[by_level], c[by_level], level[by_level]
        # water level: the smallest (demand + load of the k lowest) / (capacity of the k lowest)
        c_sum = np.cumsum(c)
        l_sum = np.cumsum(c * level)
        base_c = (c_sum[starts] - c[starts])[seg]
        base_l = (l_sum[starts] - (c * level)[starts])[seg]
        want = g_demand[now][seg]
        with np.errstate(divide="ignore", invalid="ignore"):
            candidate = (want + l_sum - base_l) / (c_sum - base_c)
        water = np.minimum.reduceat(candidate, starts)[seg]
        fill = c * np.maximum(water - level, 0.0)
        total = np.add.reduceat(fill, starts)[seg]
        share = np.divide(fill, total, out=1.0 / cnt[seg], where=total > 0)
        np.add.at(port_load, links, share * want)
        piece_group.append(now[seg])
        piece_link.append(links)
        piece_share.append(share)
    group = np.concatenate(piece_group)
    by_group = np.argsort(group, kind="stable")
    link = np.concatenate(piece_link)[by_group]
    share = np.concatenate(piece_share)[by_group]
    sizes = g_count  # every candidate is a piece (some with share 0)
    g_first = np.cumsum(sizes) - sizes
    per_entry = sizes[group_of]
    rep = np.repeat(np.arange(start.size), per_entry)
    at = np.repeat(g_first[group_of], per_entry) + (
        np.arange(rep.size) - np.repeat(np.cumsum(per_entry) - per_entry, per_entry)
    )
    return rep, link[at], share[at]
