"""Flow-level (fluid) simulation of a fabric: routing, max-min fair rates, event-driven time.

Design: ``shared/reference/flow-simulation.md`` section 5. Pure NumPy/SciPy, no Django.

* :class:`Network` compiles a :class:`~planner.domain.fabric.Fabric` into directed links. Every
  fabric link ``i`` becomes ``link:<i>:up`` (lower-tier end ``a`` to upper end ``b``) and
  ``link:<i>:down``, each of capacity ``speed_gbps * 1e9`` bit/s. GPU ``g`` is the ``k``-th
  NIC link (by server port) of its server; GPUs are numbered server by server. With
  ``scale_up_gbps`` every GPU also gets a scale-up pair ``gpu:<g>:su-out`` / ``gpu:<g>:su-in``
  (NVLink to the server's switch); GPUs of one server then talk over it. Without it, they talk
  through their NICs and the fabric.
* Routing turns flows into a weighted flow x link incidence (CSR): ``a[f, l]`` = fraction of
  flow ``f``'s bytes crossing link ``l``. Paths are the shortest switch paths (up/down in a
  Clos). ``rail``: static destination-based routing (InfiniBand-style d-mod-k: at every switch
  the next hop is ``dst_server mod #next-hops``). ``ecmp``: per-switch hash of the flow's
  5-tuple (splitmix64; the RoCE entropy is the queue pair number, ``qp``); ``polarization=True``
  uses the same hash at every switch. ``adaptive``: packet spraying in the fluid limit, an equal
  split over the equal-cost next hops at every switch (fractional rows).
* :func:`max_min_rates` is the parallel ("local bottleneck") water-filling of section 2.1.
* :func:`simulate` is the event loop of section 2.2: constant rates until the next completion
  or arrival, completions within a relative ``batch_rtol`` of each other batched into one event.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from planner.domain.fabric import ROLE, Fabric

ROUTINGS = ("rail", "ecmp", "adaptive")
_U64 = np.uint64


class RoutingError(ValueError):
    """A flow has no path (its NIC link failed, or the fabric is cut)."""


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on uint64 arrays: deterministic across machines and processes."""
    z = np.asarray(x, dtype=_U64) + _U64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


# --------------------------------------------------------------------------------------------
# network


@dataclass
class Network:
    """Directed links (columns) plus the GPU endpoints; see the module docstring."""

    node_count: int
    is_switch: np.ndarray  # per node
    link_from: np.ndarray  # per directed link: node index, -1 for a scale-up link
    link_to: np.ndarray
    capacity: np.ndarray  # bit/s
    alive: np.ndarray  # bool
    fabric_links: int  # directed links 2i (up) and 2i+1 (down) come from fabric link i
    gpu_server: np.ndarray  # node index of the GPU's server
    gpu_ordinal: np.ndarray  # server ordinal (0..servers-1)
    gpu_local: np.ndarray  # index inside the server
    gpu_nic: np.ndarray  # fabric link index of the GPU's NIC
    gpu_leaf: np.ndarray  # node index of the NIC's leaf
    gpus_per_server: int
    nic_gbps: float
    scale_up_gbps: float | None = None
    node_name: list[str] = field(default_factory=list)

    @property
    def gpu_count(self) -> int:
        return int(self.gpu_server.shape[0])

    @property
    def link_count(self) -> int:
        return int(self.capacity.shape[0])

    @classmethod
    def from_fabric(cls, fabric: Fabric, *, scale_up_gbps: float | None = None) -> Network:
        n_links = fabric.link_count
        a = fabric.link_a.astype(np.int64)
        b = fabric.link_b.astype(np.int64)
        link_from = np.empty(2 * n_links, dtype=np.int64)
        link_to = np.empty(2 * n_links, dtype=np.int64)
        link_from[0::2], link_to[0::2] = a, b
        link_from[1::2], link_to[1::2] = b, a
        capacity = np.repeat(fabric.link_speed_gbps.astype(np.float64) * 1e9, 2)
        role = fabric.node_role
        is_switch = np.isin(role, [ROLE["leaf"], ROLE["spine"], ROLE["core"]])
        servers = fabric.nodes_with_role("server")
        nic = np.flatnonzero(np.isin(a, servers))
        nic = nic[np.lexsort((fabric.link_a_port[nic], a[nic]))]
        counts = np.bincount(a[nic], minlength=fabric.node_count)[servers]
        if counts.size == 0 or counts.min() != counts.max():
            raise ValueError("every server needs the same number of NIC links")
        per_server = int(counts[0])
        gpus = int(fabric.info.get("gpus", servers.size * per_server))
        if gpus != servers.size * per_server:
            raise NotImplementedError("one NIC link per GPU only (multi-plane NICs: not yet)")
        ordinal = np.full(fabric.node_count, -1, dtype=np.int64)
        ordinal[servers] = np.arange(servers.size)
        gpu_server = a[nic]
        order = np.argsort(ordinal[gpu_server], kind="stable")
        nic, gpu_server = nic[order], gpu_server[order]
        net = cls(
            node_count=fabric.node_count,
            is_switch=is_switch,
            link_from=link_from,
            link_to=link_to,
            capacity=capacity,
            alive=np.ones(2 * n_links, dtype=bool),
            fabric_links=n_links,
            gpu_server=gpu_server,
            gpu_ordinal=ordinal[gpu_server],
            gpu_local=np.tile(np.arange(per_server), servers.size),
            gpu_nic=nic,
            gpu_leaf=b[nic],
            gpus_per_server=per_server,
            nic_gbps=float(fabric.link_speed_gbps[nic].min()),
            scale_up_gbps=scale_up_gbps,
            node_name=list(fabric.node_name),
        )
        if scale_up_gbps is not None:
            n_gpu = nic.size
            net.link_from = np.concatenate([link_from, np.full(2 * n_gpu, -1)])
            net.link_to = np.concatenate([link_to, np.full(2 * n_gpu, -1)])
            net.capacity = np.concatenate([capacity, np.full(2 * n_gpu, scale_up_gbps * 1e9)])
            net.alive = np.ones(net.capacity.size, dtype=bool)
        return net

    # ids -------------------------------------------------------------------------------------
    def link_id(self, index: int) -> str:
        index = int(index)
        if index < 2 * self.fabric_links:
            return f"link:{index // 2}:{'up' if index % 2 == 0 else 'down'}"
        g, kind = divmod(index - 2 * self.fabric_links, 2)
        return f"gpu:{g}:{'su-out' if kind == 0 else 'su-in'}"

    def link_index(self, link_id: str) -> int:
        kind, number, direction = link_id.split(":")
        if kind == "link":
            return 2 * int(number) + (0 if direction == "up" else 1)
        return 2 * self.fabric_links + 2 * int(number) + (0 if direction == "su-out" else 1)

    def scale_up_out(self, gpus: np.ndarray) -> np.ndarray:
        return 2 * self.fabric_links + 2 * np.asarray(gpus, dtype=np.int64)

    # failures --------------------------------------------------------------------------------
    def with_failures(
        self, *, links=(), switches=(), random_links: int = 0, seed: int = 0
    ) -> Network:
        """A copy with fabric links failed (both directions): by index or id ``link:<i>``, all
        links of the named switches (names or node indices), and ``random_links`` random
        switch-to-switch links (seeded). Routes are recomputed from the surviving links."""
        alive = self.alive.copy()
        fabric_ids = []
        for link in links:
            fabric_ids.append(int(str(link).split(":")[1]) if isinstance(link, str) else link)
        names = {name: i for i, name in enumerate(self.node_name)}
        for switch in switches:
            node = names[switch] if isinstance(switch, str) else int(switch)
            ends = np.flatnonzero(self.link_from[: 2 * self.fabric_links : 2] == node)
            ends2 = np.flatnonzero(self.link_to[: 2 * self.fabric_links : 2] == node)
            fabric_ids.extend(np.concatenate([ends, ends2]).tolist())
        if random_links:
            up = np.arange(0, 2 * self.fabric_links, 2)
            fabric_only = up[
                self.is_switch[self.link_from[up]] & self.is_switch[self.link_to[up]] & alive[up]
            ]
            rng = np.random.default_rng(seed)
            chosen = rng.choice(fabric_only, size=random_links, replace=False) // 2
            fabric_ids.extend(chosen.tolist())
        ids = np.asarray(fabric_ids, dtype=np.int64)
        alive[2 * ids] = False
        alive[2 * ids + 1] = False
        copy = Network(**{k: getattr(self, k) for k in self.__dataclass_fields__})
        copy.alive = alive
        return copy

    def failed_links(self) -> list[str]:
        return [self.link_id(i) for i in np.flatnonzero(~self.alive)]


# --------------------------------------------------------------------------------------------
# flows and routing


@dataclass
class Flows:
    """Structure of arrays: one row per flow (GPU indices, bytes, start time in seconds)."""

    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray
    start: np.ndarray | None = None
    qp: np.ndarray | None = None

    def __post_init__(self):
        self.src = np.asarray(self.src, dtype=np.int64)
        self.dst = np.asarray(self.dst, dtype=np.int64)
        self.size = np.broadcast_to(np.asarray(self.size, dtype=np.float64), self.src.shape).copy()
        n = self.src.shape[0]
        self.start = np.zeros(n) if self.start is None else np.asarray(self.start, dtype=float)
        self.qp = np.zeros(n, np.int64) if self.qp is None else np.asarray(self.qp, np.int64)

    def __len__(self) -> int:
        return int(self.src.shape[0])

    def split_qp(self, k: int) -> tuple[Flows, np.ndarray]:
        """QP scaling: each flow becomes ``k`` sub-flows of size/k with qp = qp*k + j.
        Returns the sub-flows and, per sub-flow, the index of its parent flow."""
        parent = np.repeat(np.arange(len(self)), k)
        j = np.tile(np.arange(k), len(self))
        sub = Flows(
            self.src[parent],
            self.dst[parent],
            self.size[parent] / k,
            self.start[parent],
            self.qp[parent] * k + j,
        )
        return sub, parent


def _distances(net: Network, targets: np.ndarray) -> np.ndarray:
    """Hops from every node to each target leaf over alive switch-to-switch links."""
    fab = np.arange(2 * net.fabric_links)
    keep = fab[net.alive[fab] & net.is_switch[net.link_from[fab]] & net.is_switch[net.link_to[fab]]]
    # reversed graph: distance from target to x in it = distance from x to target
    graph = sp.csr_matrix(
        (np.ones(keep.size), (net.link_to[keep], net.link_from[keep])),
        shape=(net.node_count, net.node_count),
    )
    return csgraph.shortest_path(graph, unweighted=True, directed=True, indices=targets)


def route(
    net: Network,
    flows: Flows,
    routing: str = "ecmp",
    *,
    seed: int = 0,
    polarization: bool = False,
) -> sp.csr_matrix:
    """Weighted incidence (flows x directed links, CSR) of ``flows`` under ``routing``."""
    if routing not in ROUTINGS:
        raise ValueError(f"routing must be one of {ROUTINGS}, not {routing!r}")
    n_flows = len(flows)
    src, dst = flows.src, flows.dst
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
    nic_up = 2 * net.gpu_nic[src[fabric_flows]]
    nic_down = 2 * net.gpu_nic[dst[fabric_flows]] + 1
    dead = ~(net.alive[nic_up] & net.alive[nic_down])
    if dead.any():
        raise RoutingError(f"{int(dead.sum())} flows have a failed NIC link")
    rows += [fabric_flows, fabric_flows]
    cols += [nic_up, nic_down]
    vals += [np.ones(fabric_flows.size), np.ones(fabric_flows.size)]

    src_leaf = net.gpu_leaf[src]
    dst_leaf = net.gpu_leaf[dst]
    hop = fabric_flows[src_leaf[fabric_flows] != dst_leaf[fabric_flows]]
    if hop.size:
        targets, target_row = np.unique(dst_leaf[hop], return_inverse=True)
        dist = _distances(net, targets)
        drow = np.zeros(n_flows, dtype=np.int64)
        drow[hop] = target_row
        if not np.isfinite(dist[target_row, src_leaf[hop]]).all():
            raise RoutingError("some flows have no path through the surviving links")
        # out-links per node (alive, switch to switch), CSR by source node
        fab = np.arange(2 * net.fabric_links)
        keep = fab[
            net.alive[fab] & net.is_switch[net.link_from[fab]] & net.is_switch[net.link_to[fab]]
        ]
        keep = keep[np.argsort(net.link_from[keep], kind="stable")]
        out_ptr = np.zeros(net.node_count + 1, dtype=np.int64)
        np.cumsum(np.bincount(net.link_from[keep], minlength=net.node_count), out=out_ptr[1:])
        if routing == "ecmp":
            key = mix64(
                mix64(src.astype(_U64))
                ^ (dst.astype(_U64) << _U64(20))
                ^ (flows.qp.astype(_U64) << _U64(44))
                ^ _U64(4791)
            )
            base = mix64(np.asarray([seed], dtype=_U64))[0]
            nodes = np.arange(net.node_count, dtype=_U64)
            switch_seed = np.full(net.node_count, base) if polarization else mix64(base ^ nodes)
        # entries: (flow, current node, weight)
        e_flow, e_node, e_w = hop, src_leaf[hop], np.ones(hop.size)
        while e_flow.size:
            deg = out_ptr[e_node + 1] - out_ptr[e_node]
            rep = np.repeat(np.arange(e_flow.size), deg)
            first = np.cumsum(deg) - deg
            cand = keep[out_ptr[e_node][rep] + np.arange(rep.size) - first[rep]]
            here = dist[drow[e_flow], e_node]
            valid = dist[drow[e_flow][rep], net.link_to[cand]] == here[rep] - 1
            rep, cand = rep[valid], cand[valid]
            count = np.bincount(rep, minlength=e_flow.size)
            if routing == "adaptive":
                w = e_w[rep] / count[rep]
                f_new, link = e_flow[rep], cand
            else:
                if routing == "rail":
                    h = net.gpu_ordinal[dst[e_flow]].astype(np.int64)
                else:
                    with np.errstate(over="ignore"):
                        h = mix64(key[e_flow] ^ switch_seed[e_node])
                    h = (h % count.astype(_U64)).astype(np.int64)
                rank = np.arange(rep.size) - (np.cumsum(count) - count)[rep]
                pick = rank == (h % count)[rep]
                f_new, link, w = e_flow[rep[pick]], cand[pick], e_w[rep[pick]]
            rows.append(f_new)
            cols.append(link)
            vals.append(w)
            nxt = net.link_to[link]
            go = nxt != dst_leaf[f_new]
            f_new, nxt, w = f_new[go], nxt[go], w[go]
            if routing == "adaptive" and f_new.size:
                merged, inverse = np.unique(f_new * net.node_count + nxt, return_inverse=True)
                w = np.bincount(inverse, weights=w)
                f_new, nxt = merged // net.node_count, merged % net.node_count
            e_flow, e_node, e_w = f_new, nxt, w
    matrix = sp.coo_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_flows, net.link_count),
    ).tocsr()
    matrix.sum_duplicates()
    return matrix


# --------------------------------------------------------------------------------------------
# max-min fair rates


def _segment_min(values: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    out = np.full(indptr.size - 1, np.inf)
    nonempty = np.diff(indptr) > 0
    if values.size:
        out[nonempty] = np.minimum.reduceat(values, indptr[:-1][nonempty])
    return out


def max_min_rates(incidence, capacities, *, rtol: float = 1e-12, return_bottleneck: bool = False):
    """Max-min fair rates of the flows (rows) on the links (columns) of a weighted incidence.

    Parallel water-filling: each round freezes every link whose fair share is the smallest
    among the links its unfrozen flows cross; those flows get that share. A flow that crosses
    no link gets ``inf``. With ``return_bottleneck``, also the bottleneck link of each flow
    (-1 for none).
    """
    a = sp.csr_matrix(incidence, dtype=np.float64)
    a.eliminate_zeros()
    at = a.T.tocsr()
    cap = np.asarray(capacities, dtype=np.float64)
    n_flows = a.shape[0]
    rate = np.full(n_flows, np.inf)
    bottleneck = np.full(n_flows, -1, dtype=np.int64)
    active = np.diff(a.indptr) > 0
    rate[active] = 0.0
    resid = cap.copy()
    nnz_row = np.repeat(np.arange(n_flows), np.diff(a.indptr))
    while active.any():
        load = at @ active.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(load > 0, np.maximum(resid, 0.0) / load, np.inf)
        m = _segment_min(share[a.indices], a.indptr)
        m[~active] = np.inf
        link_min = _segment_min(m[at.indices], at.indptr)
        bott = (load > 0) & (share <= link_min * (1 + rtol))
        hit = bott[a.indices] & active[nnz_row]
        freeze = np.zeros(n_flows, dtype=bool)
        freeze[nnz_row[hit]] = True
        rate[freeze] = m[freeze]
        rows, links = nnz_row[hit][::-1], a.indices[hit][::-1]
        bottleneck[rows] = links  # the first bottleneck link of each row wins
        resid -= at @ np.where(freeze, rate, 0.0)
        active &= ~freeze
    return (rate, bottleneck) if return_bottleneck else rate


# --------------------------------------------------------------------------------------------
# event-driven simulation


@dataclass
class Result:
    finish: np.ndarray  # per flow, seconds
    completion_time_s: float
    link_util_avg: np.ndarray  # per directed link: bytes / (capacity * completion time)
    link_util_peak: np.ndarray  # highest instantaneous utilisation
    hot_spots: list[dict]
    fct: dict
    events: int
    first_rates: np.ndarray  # bit/s of each flow at time 0 (sum over its sub-flows)

    def as_dict(self) -> dict:
        return {
            "completion_time_s": self.completion_time_s,
            "events": self.events,
            "fct": self.fct,
            "hot_spots": self.hot_spots,
        }


def simulate(
    net: Network,
    flows: Flows,
    routing: str = "ecmp",
    *,
    seed: int = 0,
    polarization: bool = False,
    qp_scaling: int = 1,
    batch_rtol: float = 1e-9,
    hot_spot_count: int = 10,
    on_progress=None,
) -> Result:
    """Run ``flows`` (sizes in bytes) to completion; rates are max-min fair between events.

    ``on_progress(done, total, message)``, when given, is called after each event with the
    count of finished (sub-)flows."""
    parent = np.arange(len(flows))
    sub = flows
    if qp_scaling > 1:
        sub, parent = flows.split_qp(qp_scaling)
    a = route(net, sub, routing, seed=seed, polarization=polarization)
    cap = np.where(net.alive, net.capacity, 0.0)
    n = len(sub)
    remaining = sub.size * 8.0  # bits
    finish = np.full(n, np.nan)
    started = sub.start <= 0
    now = 0.0
    link_bits = np.zeros(net.link_count)
    peak = np.zeros(net.link_count)
    first_bott = np.full(n, -1, dtype=np.int64)
    first_rates = np.zeros(n)
    events = 0
    done = np.zeros(n, dtype=bool)
    zero = started & (remaining <= 0)
    finish[zero] = sub.start[zero]
    done |= zero
    while not done.all():
        running = np.flatnonzero(started & ~done)
        future = np.flatnonzero(~started)
        next_arrival = sub.start[future].min() if future.size else np.inf
        if running.size == 0:
            now = next_arrival
            started |= sub.start <= now * (1 + batch_rtol)
            continue
        events += 1
        rows = a[running]
        rate, bott = max_min_rates(rows, cap, return_bottleneck=True)
        if events == 1:
            first_rates[running] = rate
        unset = running[first_bott[running] < 0]
        first_bott[unset] = bott[np.searchsorted(running, unset)]
        if not np.isfinite(rate).all() or (rate <= 0).any():
            raise RoutingError("a flow has no capacity (failed link on its path?)")
        ttf = remaining[running] / rate
        step = ttf.min()
        if now + step > next_arrival:
            step = next_arrival - now
            ending = np.zeros(running.size, dtype=bool)
        else:
            ending = ttf <= step * (1 + batch_rtol)
        load = rows.T @ rate
        link_bits += load * step
        with np.errstate(divide="ignore", invalid="ignore"):
            peak = np.maximum(peak, np.where(cap > 0, load / cap, 0.0))
        remaining[running] -= rate * step
        now += step
        remaining[running[ending]] = 0.0
        finish[running[ending]] = now
        done[running[ending]] = True
        if on_progress is not None:
            on_progress(int(done.sum()), n, f"simulated {int(done.sum()):,} of {n:,} flows")
        started |= sub.start <= now * (1 + batch_rtol) + 1e-300
    per_flow = np.full(len(flows), -np.inf)
    np.maximum.at(per_flow, parent, finish)
    rates0 = np.zeros(len(flows))
    np.add.at(rates0, parent, first_rates)
    total = float(per_flow.max()) if len(flows) else 0.0
    span = total - float(flows.start.min()) if len(flows) else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        util = np.where((cap > 0) & (span > 0), link_bits / (cap * span), 0.0)
    fct = per_flow - flows.start
    stats = {}
    if len(flows):
        stats = {
            "min": float(fct.min()),
            "p50": float(np.percentile(fct, 50)),
            "p90": float(np.percentile(fct, 90)),
            "p99": float(np.percentile(fct, 99)),
            "max": float(fct.max()),
            "mean": float(fct.mean()),
        }
    top = np.argsort(-util, kind="stable")[:hot_spot_count]
    hot = [
        {
            "link": net.link_id(i),
            "utilization": float(util[i]),
            "peak": float(peak[i]),
            "bottlenecked_flows": np.unique(parent[first_bott == i]).tolist(),
        }
        for i in top
        if util[i] > 0
    ]
    return Result(per_flow, total, util, peak, hot, stats, events, rates0)


__all__ = [
    "ROUTINGS",
    "Flows",
    "Network",
    "Result",
    "RoutingError",
    "max_min_rates",
    "mix64",
    "route",
    "simulate",
]
