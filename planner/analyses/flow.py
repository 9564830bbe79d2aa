"""Flow-level (fluid) simulation of a fabric: routing, max-min fair rates, event-driven time.

Design: ``shared/reference/flow-simulation.md`` section 5. Pure NumPy/SciPy, no Django.

* :class:`Network` compiles a :class:`~planner.domain.fabric.Fabric` into directed links. Every
  fabric link ``i`` becomes ``link:<i>:up`` (lower-tier end ``a`` to upper end ``b``) and
  ``link:<i>:down``, each of capacity ``speed_gbps * 1e9`` bit/s. GPUs are numbered server by
  server; a server's NIC links, in port order, are shared out evenly: with ``k`` NIC links per
  GPU (a multi-plane fabric: one link per plane), GPU ``j`` owns links ``j*k .. j*k+k-1``, and
  link ``p`` of a GPU is its *plane* ``p``. With ``scale_up_gbps`` every GPU also gets a
  scale-up pair ``gpu:<g>:su-out`` / ``gpu:<g>:su-in`` (NVLink to the server's switch); GPUs of
  one server then talk over it. Without it, they talk through their NICs and the fabric.
* :func:`sub_flows`: on a multi-plane fabric every flow that leaves its server is split into
  ``k`` sub-flows of ``size/k``, sub-flow ``p`` on plane ``p`` at both ends (NCCL spreads a
  transfer over the GPU's NIC ports); QP scaling splits further. A flow ends with its last part.
* Routing turns flows into a weighted flow x link incidence (CSR): ``a[f, l]`` = fraction of
  flow ``f``'s bytes crossing link ``l``. Paths are the shortest switch paths (up/down in a
  Clos). ``rail``: static destination-based routing (InfiniBand-style d-mod-k: at every switch
  the next hop is ``dst_server mod #next-hops``). ``ecmp``: per-switch hash of the flow's
  5-tuple (splitmix64; the RoCE entropy is the queue pair number, ``qp``); ``polarization=True``
  uses the same hash at every switch. ``adaptive``: packet spraying in the fluid limit, an equal
  split over the equal-cost next hops at every switch (fractional rows). Hop counts come from one
  breadth-first search per class of destination leaves with the same upstream switches (a Clos
  has few), and next hops are looked up per (class, switch), so routing costs about the size of
  its result.
* :func:`max_min_rates` is the parallel ("local bottleneck") water-filling of section 2.1.
* :func:`simulate` is the event loop of section 2.2: constant rates until the next completion
  or arrival, completions within a relative ``batch_rtol`` of each other batched into one event.
  Between events the rates are re-solved *locally* and exactly: only flows whose bottleneck
  link changed are re-solved (the others held at their rates), then the max-min optimality
  condition (every flow has a saturated link on which no flow runs faster) is checked on every
  link whose load changed; a flow that fails it joins the re-solved set, until none fails. The
  max-min allocation is unique, so the result is the one a full re-solve gives.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from planner.analyses.errors import JobInputError
from planner.domain.fabric import ROLE, Fabric

ROUTINGS = ("rail", "ecmp", "adaptive")
_U64 = np.uint64
#: Relative tolerance of the optimality check of a local re-solve (saturated link, fastest flow).
CHECK_RTOL = 1e-9
#: A local re-solve that would scan more than this fraction of the incidence's entries (the
#: links whose load changes, with every flow crossing them) becomes a full one.
LOCAL_FRACTION = 0.25
#: Events that finish or start at most ``SMALL_CHANGE`` flows are re-solved in plain Python
#: while that scans at most ``SMALL_WORK`` incidence entries (NumPy calls cost more then).
SMALL_CHANGE = 8
SMALL_WORK = 1000


class RoutingError(JobInputError):
    """A flow has no path (its NIC link failed, or the fabric is cut)."""


def _nic_links_differ(fabric: Fabric, servers: np.ndarray, counts: np.ndarray) -> JobInputError:
    """The error for servers with different numbers of NIC links, naming one of them."""
    values, seen = np.unique(counts, return_counts=True)
    usual = int(values[np.argmax(seen)])
    odd = np.flatnonzero(counts != usual)
    first = int(servers[odd[0]])
    have = int(counts[odd[0]])
    more = f" ({odd.size - 1:,} more servers differ too)" if odd.size > 1 else ""
    return JobInputError(
        f"server {fabric.node_name[first]} has {have} NIC link{'s' if have != 1 else ''} "
        f"while the others have {usual}{more}: every server needs the same number of NIC "
        "links to be simulated; run Validate to see the links at fault, then link or remove "
        "the server on the canvas",
        field="rails",
        element_ids=[f"node:{fabric.node_name[int(servers[i])]}" for i in odd[:50]],
    )


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on uint64 arrays: deterministic across machines and processes."""
    z = np.asarray(x, dtype=_U64) + _U64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


def _gather(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, rows: np.ndarray):
    """Entries of CSR ``rows`` (in the given order): (position in ``rows``, column, value)."""
    rows = np.asarray(rows, dtype=np.int64)
    low = indptr[rows]
    length = indptr[rows + 1] - low
    segment = np.repeat(np.arange(rows.size), length)
    position = np.arange(segment.size) + np.repeat(low - (np.cumsum(length) - length), length)
    return segment, indices[position], data[position]


# --------------------------------------------------------------------------------------------
# network


@dataclass
class Network:
    """Directed links (columns) plus the GPU endpoints; see the module docstring.

    ``gpu_nic`` and ``gpu_leaf`` are the GPU's first NIC link (plane 0) and its leaf;
    ``gpu_nics`` and ``gpu_leaves`` (GPUs x planes) hold all of them. ``nic_gbps`` is the
    slowest GPU's NIC bandwidth, all its planes together.
    """

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
    gpu_nic: np.ndarray  # fabric link index of the GPU's first NIC link
    gpu_leaf: np.ndarray  # node index of that NIC's leaf
    gpus_per_server: int
    nic_gbps: float
    scale_up_gbps: float | None = None
    node_name: list[str] = field(default_factory=list)
    gpu_nics: np.ndarray | None = None  # GPUs x planes: fabric link of each NIC link
    gpu_leaves: np.ndarray | None = None  # GPUs x planes: leaf of each NIC link

    def __post_init__(self):
        if self.gpu_nics is None:
            self.gpu_nics = np.asarray(self.gpu_nic, dtype=np.int64).reshape(-1, 1)
        if self.gpu_leaves is None:
            self.gpu_leaves = np.asarray(self.gpu_leaf, dtype=np.int64).reshape(-1, 1)

    @property
    def gpu_count(self) -> int:
        return int(self.gpu_server.shape[0])

    @property
    def link_count(self) -> int:
        return int(self.capacity.shape[0])

    @property
    def planes(self) -> int:
        """NIC links per GPU (the fabric's planes)."""
        return int(self.gpu_nics.shape[1])

    @classmethod
    def from_fabric(cls, fabric: Fabric, *, scale_up_gbps: float | None = None) -> Network:
        """Compile ``fabric``; see the module docstring.

        Raises
        ------
        JobInputError
            The fabric has no server with NIC links, servers have different numbers of NIC
            links, or their NIC links cannot be shared out evenly between their GPUs (a NIC
            link shared by several GPUs); the message names a server at fault.
        """
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
        ordinal = np.full(fabric.node_count, -1, dtype=np.int64)
        ordinal[servers] = np.arange(servers.size)
        nic = np.flatnonzero(ordinal[a] >= 0)
        nic = nic[np.lexsort((fabric.link_a_port[nic], ordinal[a[nic]]))]
        counts = np.bincount(ordinal[a[nic]], minlength=servers.size)
        if counts.size == 0 or not counts.max():
            raise JobInputError(
                "the fabric has no server linked to a leaf: add servers and their NIC links, "
                "then run the simulation again",
                field="servers",
            )
        if counts.min() != counts.max():
            raise _nic_links_differ(fabric, servers, counts)
        links_per_server = int(counts[0])
        gpus = int(fabric.info.get("gpus", servers.size * links_per_server))
        per_server = gpus // servers.size
        if gpus % servers.size or per_server == 0 or links_per_server % per_server:
            raise JobInputError(
                f"{gpus:,} GPUs on {servers.size:,} servers with {links_per_server} NIC links "
                "each: every GPU needs the same number of NIC links of its own; give each "
                f"server a multiple of {max(per_server, 1)} NIC links (run Validate to see "
                "the links)",
                field="rails",
            )
        nics = nic.reshape(gpus, links_per_server // per_server)
        gpu_server = a[nics[:, 0]]
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
            gpu_nic=nics[:, 0],
            gpu_leaf=b[nics[:, 0]],
            gpus_per_server=per_server,
            nic_gbps=float(fabric.link_speed_gbps[nics].astype(np.float64).sum(axis=1).min()),
            scale_up_gbps=scale_up_gbps,
            node_name=list(fabric.node_name),
            gpu_nics=nics,
            gpu_leaves=b[nics],
        )
        if scale_up_gbps is not None:
            net.link_from = np.concatenate([link_from, np.full(2 * gpus, -1)])
            net.link_to = np.concatenate([link_to, np.full(2 * gpus, -1)])
            net.capacity = np.concatenate([capacity, np.full(2 * gpus, scale_up_gbps * 1e9)])
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
    """Structure of arrays: one row per flow (GPU indices, bytes, start time in seconds, queue
    pair number, and the plane = which of the GPUs' NIC links it uses, 0 by default)."""

    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray
    start: np.ndarray | None = None
    qp: np.ndarray | None = None
    plane: np.ndarray | None = None

    def __post_init__(self):
        self.src = np.asarray(self.src, dtype=np.int64)
        self.dst = np.asarray(self.dst, dtype=np.int64)
        self.size = np.broadcast_to(np.asarray(self.size, dtype=np.float64), self.src.shape).copy()
        n = self.src.shape[0]
        self.start = np.zeros(n) if self.start is None else np.asarray(self.start, dtype=float)
        self.qp = np.zeros(n, np.int64) if self.qp is None else np.asarray(self.qp, np.int64)
        self.plane = (
            np.zeros(n, np.int64) if self.plane is None else np.asarray(self.plane, np.int64)
        )

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
            self.plane[parent],
        )
        return sub, parent


def sub_flows(net: Network, flows: Flows, qp_scaling: int = 1) -> tuple[Flows, np.ndarray]:
    """The flows the engine runs, and the index of each one's parent flow.

    On a fabric with ``k > 1`` NIC links per GPU every flow that leaves its server becomes
    ``k`` sub-flows of ``size/k``, sub-flow ``p`` on plane ``p`` (flows between GPUs of one
    server over scale-up stay whole); with ``qp_scaling > 1`` each part becomes that many
    sub-flows again (:meth:`Flows.split_qp`). On a single-plane fabric without QP scaling the
    flows are returned as they are.
    """
    parent = np.arange(len(flows))
    sub = flows
    k = net.planes
    if k > 1:
        local = (net.gpu_server[flows.src] == net.gpu_server[flows.dst]) & (
            net.scale_up_gbps is not None
        )
        copies = np.where(local, 1, k)
        parent = np.repeat(np.arange(len(flows)), copies)
        plane = np.arange(parent.size) - (np.cumsum(copies) - copies)[parent]
        sub = Flows(
            flows.src[parent],
            flows.dst[parent],
            flows.size[parent] / copies[parent],
            flows.start[parent],
            flows.qp[parent],
            plane,
        )
    if qp_scaling > 1:
        sub, split_parent = sub.split_qp(qp_scaling)
        parent = parent[split_parent]
    return sub, parent


def _switch_links(net: Network) -> tuple[np.ndarray, np.ndarray]:
    """Alive switch-to-switch links sorted by source node (then index), and their CSR pointer
    by source node."""
    fab = np.arange(2 * net.fabric_links)
    keep = fab[net.alive[fab] & net.is_switch[net.link_from[fab]] & net.is_switch[net.link_to[fab]]]
    keep = keep[np.argsort(net.link_from[keep], kind="stable")]
    out_ptr = np.zeros(net.node_count + 1, dtype=np.int64)
    np.cumsum(np.bincount(net.link_from[keep], minlength=net.node_count), out=out_ptr[1:])
    return keep, out_ptr


def _class_hops(net: Network, keep: np.ndarray, targets: np.ndarray):
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


def route(
    net: Network,
    flows: Flows,
    routing: str = "ecmp",
    *,
    seed: int = 0,
    polarization: bool = False,
) -> sp.csr_matrix:
    """Weighted incidence (flows x directed links, CSR) of ``flows`` under ``routing``.

    Each flow uses NIC link ``flows.plane`` of its GPUs (see :func:`sub_flows`).

    Raises
    ------
    ValueError
        Unknown routing, or a plane the GPUs do not have.
    RoutingError
        A flow's NIC link failed, or no path survives.
    """
    if routing not in ROUTINGS:
        raise ValueError(f"routing must be one of {ROUTINGS}, not {routing!r}")
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
    if hop.size:
        _route_hops(
            net, flows, routing, hop, src_leaf, dst_leaf, seed, polarization, rows, cols, vals
        )
    matrix = sp.coo_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_flows, net.link_count),
    ).tocsr()
    matrix.sum_duplicates()
    return matrix


def _route_hops(net, flows, routing, hop, src_leaf, dst_leaf, seed, polarization, rows, cols, vals):
    """Switch-to-switch part of the routes of flows ``hop`` (leaf to leaf), appended to
    ``rows``/``cols``/``vals``."""
    n = net.node_count
    keep, out_ptr = _switch_links(net)
    targets, target_row = np.unique(dst_leaf[hop], return_inverse=True)
    target_class, hops = _class_hops(net, keep, targets)
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


# --------------------------------------------------------------------------------------------
# max-min fair rates


def _fill(row, col, val, n_rows: int, capacity: np.ndarray, *, rtol: float = 1e-12):
    """Parallel water-filling on entries (``row``, ``col``, ``val``) sorted by row, every row
    ``0..n_rows-1`` with at least one entry; ``capacity`` per column.

    Each round freezes every column whose fair share is the smallest among the columns its
    unfrozen rows cross; those rows get that share. Returns (rate per row, bottleneck column
    per row: the first such column of the row).
    """
    n_cols = capacity.shape[0]
    rate = np.zeros(n_rows)
    bottleneck = np.full(n_rows, -1, dtype=np.int64)
    resid = np.array(capacity, dtype=np.float64)
    link_min = np.empty(n_cols)
    leaving_row = np.zeros(n_rows, dtype=bool)
    while row.size:  # entries of the unfrozen rows only
        load = np.bincount(col, weights=val, minlength=n_cols)
        share = np.full(n_cols, np.inf)
        np.divide(np.maximum(resid, 0.0), load, out=share, where=load > 0)
        entry_share = share[col]
        starts = np.flatnonzero(np.concatenate(([True], row[1:] != row[:-1])))
        row_min = np.minimum.reduceat(entry_share, starts)
        entry_min = np.repeat(row_min, np.diff(np.append(starts, row.size)))
        link_min.fill(np.inf)
        np.minimum.at(link_min, col, entry_min)
        hit = np.flatnonzero(entry_share <= link_min[col] * (1 + rtol))
        frozen = row[hit]
        leaving_row[frozen] = True
        bottleneck[frozen[::-1]] = col[hit][::-1]  # the first bottleneck column of a row wins
        leaving = leaving_row[row]
        leaving_row[frozen] = False
        rate[row[leaving]] = entry_min[leaving]
        resid -= np.bincount(
            col[leaving], weights=val[leaving] * entry_min[leaving], minlength=n_cols
        )
        stay = ~leaving
        row, col, val = row[stay], col[stay], val[stay]
    return rate, bottleneck


def _fill_small(rows: list, resid: dict, *, rtol: float = 1e-12) -> tuple[list, list]:
    """:func:`_fill` in plain Python for a few rows: ``rows`` = [(columns, values)] per row,
    ``resid`` = capacity per column (changed in place). Returns (rates, bottlenecks)."""
    if len(rows) == 1:  # one flow: the smallest share on its path
        cols, vals = rows[0]
        shares = [max(resid[col], 0.0) / value for col, value in zip(cols, vals, strict=True)]
        m = min(shares)
        return [m], [next(c for c, x in zip(cols, shares, strict=True) if x <= m * (1 + rtol))]
    rate = [0.0] * len(rows)
    bottleneck = [-1] * len(rows)
    active = list(range(len(rows)))
    while active:
        load: dict = {}
        for i in active:
            cols, vals = rows[i]
            for col, value in zip(cols, vals, strict=True):
                load[col] = load.get(col, 0.0) + value
        share = {col: max(resid[col], 0.0) / value for col, value in load.items()}
        row_min = {}
        col_min: dict = {}
        for i in active:
            cols = rows[i][0]
            m = min(share[col] for col in cols)
            row_min[i] = m
            for col in cols:
                if m < col_min.get(col, np.inf):
                    col_min[col] = m
        rest = []
        for i in active:
            for col in rows[i][0]:
                if share[col] <= col_min[col] * (1 + rtol):
                    rate[i], bottleneck[i] = row_min[i], col
                    break
            else:
                rest.append(i)
        for i in set(active).difference(rest):
            for col, value in zip(*rows[i], strict=True):
                resid[col] -= value * rate[i]
        active = rest
    return rate, bottleneck


def _unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (sorting beats NumPy's hashing on the small arrays of events)."""
    values = np.sort(values)
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if values.size else values


def max_min_rates(incidence, capacities, *, rtol: float = 1e-12, return_bottleneck: bool = False):
    """Max-min fair rates of the flows (rows) on the links (columns) of a weighted incidence.

    Parallel water-filling: each round freezes every link whose fair share is the smallest
    among the links its unfrozen flows cross; those flows get that share. A flow that crosses
    no link gets ``inf``. With ``return_bottleneck``, also the bottleneck link of each flow
    (-1 for none).
    """
    a = sp.csr_matrix(incidence, dtype=np.float64)
    a.eliminate_zeros()
    n_flows = a.shape[0]
    length = np.diff(a.indptr)
    crossing = np.flatnonzero(length > 0)
    rate = np.full(n_flows, np.inf)
    bottleneck = np.full(n_flows, -1, dtype=np.int64)
    if crossing.size:
        row = np.repeat(np.arange(crossing.size), length[crossing])
        cap = np.asarray(capacities, dtype=np.float64)
        rate[crossing], bottleneck[crossing] = _fill(
            row, a.indices, a.data, crossing.size, cap, rtol=rtol
        )
    return (rate, bottleneck) if return_bottleneck else rate


class _Rates:
    """Max-min rates of the running flows, kept exact as flows start and finish.

    ``bottleneck[f]`` is a saturated link on which no flow runs faster than ``f``: the max-min
    optimality certificate of the current rates. A change re-solves only the flows whose
    certificate it breaks (see the module docstring): in plain Python when a few flows change
    (NumPy calls cost more than the work then), with NumPy for more, and all running flows at
    once when a local re-solve would scan ``LOCAL_FRACTION`` of the incidence. ``solves`` counts the
    three kinds. The plain-Python path reads list copies of the per-flow state (``_lists``)
    and keeps its link loads and peaks in dicts; what it changes reaches the arrays at
    :meth:`sync`, before any NumPy path reads them.
    """

    def __init__(self, incidence: sp.csr_matrix, capacity: np.ndarray):
        a = sp.csr_matrix(incidence, dtype=np.float64)
        a.eliminate_zeros()
        a.sort_indices()
        at = a.T.tocsr()
        self.ptr, self.idx, self.val = a.indptr, a.indices, a.data
        self.t_ptr, self.t_idx, self.t_val = at.indptr, at.indices, at.data
        self.capacity = capacity
        n = a.shape[0]
        self.running = np.zeros(n, dtype=bool)
        self.running_count = 0
        self.rate = np.zeros(n)
        self.bottleneck = np.full(n, -1, dtype=np.int64)
        self.load = np.zeros(a.shape[1])
        with np.errstate(divide="ignore"):
            self.inverse_capacity = np.where(capacity > 0, 1.0 / capacity, 0.0)
        self.peak = np.zeros(a.shape[1])  # highest load / capacity so far
        self._member = np.zeros(n, dtype=bool)
        self._position = np.zeros(n, dtype=np.int64)
        self._rows: dict = {}  # plain-Python rows of the incidence and of its transpose
        self._link_rows: dict = {}
        self._lists = None  # running, rate, bottleneck as lists
        self._dirty_flows: set = set()  # rate and bottleneck changed in the lists only
        self._small_load: dict = {}  # link -> load set by the plain-Python path
        self._small_peak: dict = {}  # link -> highest load / capacity it saw
        self._capacity = capacity.tolist()
        self._inverse_capacity = self.inverse_capacity.tolist()
        self.solves = {"full": 0, "local": 0, "small": 0}

    # state ----------------------------------------------------------------------------------
    def _set_running(self, flows: np.ndarray, running: bool) -> None:
        self.running[flows] = running
        self.rate[flows] = 0.0
        if self._lists is not None:
            run, rate = self._lists[0], self._lists[1]
            for f in flows.tolist():
                run[f] = running
                rate[f] = 0.0

    def _set_rates(self, flows, rate, bottleneck) -> None:
        self.rate[flows] = rate
        self.bottleneck[flows] = bottleneck
        if self._lists is not None:
            rates, botts = self._lists[1], self._lists[2]
            for f, r, b in zip(
                np.asarray(flows).tolist(),
                np.asarray(rate).tolist(),
                np.asarray(bottleneck).tolist(),
                strict=True,
            ):
                rates[f] = r
                botts[f] = b

    def _set_load(self, links, load) -> None:
        self.load[links] = load
        self.peak[links] = np.maximum(self.peak[links], load * self.inverse_capacity[links])

    def sync(self) -> None:
        """Bring the arrays up to date with the plain-Python path's changes."""
        if self._dirty_flows:
            flows = list(self._dirty_flows)
            rate, bott = self._lists[1], self._lists[2]
            self.rate[flows] = [rate[f] for f in flows]
            self.bottleneck[flows] = [bott[f] for f in flows]
            self._dirty_flows.clear()
        if self._small_load:
            links = list(self._small_load)
            self.load[links] = list(self._small_load.values())
            self.peak[links] = np.maximum(self.peak[links], list(self._small_peak.values()))
            self._small_load.clear()
            self._small_peak.clear()

    def solve_all(self):
        """Re-solve every running flow; returns (those flows, their rates, bottlenecks)."""
        self.sync()
        self.solves["full"] += 1
        flows = np.flatnonzero(self.running)
        seg, cols, vals = _gather(self.ptr, self.idx, self.val, flows)
        if (self.ptr[flows + 1] == self.ptr[flows]).any():
            raise RoutingError("a flow crosses no link")
        rate, bottleneck = _fill(seg, cols, vals, flows.size, self.capacity)
        self.rate[flows] = rate
        self.bottleneck[flows] = bottleneck
        self.load = np.bincount(cols, weights=vals * rate[seg], minlength=self.load.size)
        np.maximum(self.peak, self.load * self.inverse_capacity, out=self.peak)
        self._lists = None
        return flows, rate, bottleneck

    def update(self, finished: np.ndarray, started: np.ndarray):
        """Finish flows ``finished`` and start flows ``started``; re-solve what can change.

        Returns the flows whose rate was set, their rates and their bottlenecks.
        """
        if finished.size:
            self._set_running(finished, False)
        if started.size:
            self._set_running(started, True)
            if (self.ptr[started + 1] == self.ptr[started]).any():
                raise RoutingError("a flow crosses no link")
        self.running_count += started.size - finished.size
        if self.running_count == 0:
            return started[:0], np.zeros(0), started[:0]
        if started.size == self.running_count:  # nothing else runs: one plain solve
            return self.solve_all()
        if finished.size + started.size <= SMALL_CHANGE:
            done = self._update_small(finished.tolist(), started.tolist())
            if done is not None:
                return done
        self.sync()
        _, cols, _ = _gather(self.ptr, self.idx, self.val, np.concatenate([finished, started]))
        touched = _unique(cols)
        seg, flows, vals = _gather(self.t_ptr, self.t_idx, self.t_val, touched)
        self._set_load(
            touched, np.bincount(seg, weights=vals * self.rate[flows], minlength=touched.size)
        )
        hurt = flows[self.running[flows] & (self.bottleneck[flows] == touched[seg])]
        resolve = _unique(np.concatenate([hurt, started]))
        if resolve.size == 0:
            return resolve, np.zeros(0), resolve
        return self._resolve(resolve, touched)

    def _work(self, links: np.ndarray) -> int:
        """Incidence entries on ``links`` (every flow that ever crosses them)."""
        return int((self.t_ptr[links + 1] - self.t_ptr[links]).sum())

    # plain Python: a few flows --------------------------------------------------------------
    def _row(self, flow: int) -> tuple[list, list]:
        row = self._rows.get(flow)
        if row is None:
            low, high = int(self.ptr[flow]), int(self.ptr[flow + 1])
            row = self._rows[flow] = (self.idx[low:high].tolist(), self.val[low:high].tolist())
        return row

    def _link_row(self, link: int) -> tuple[list, list]:
        row = self._link_rows.get(link)
        if row is None:
            low, high = int(self.t_ptr[link]), int(self.t_ptr[link + 1])
            row = (self.t_idx[low:high].tolist(), self.t_val[low:high].tolist())
            self._link_rows[link] = row
        return row

    def _update_small(self, finished: list, started: list):
        """:meth:`update` in plain Python; None (nothing changed) when that would scan more
        than ``SMALL_WORK`` incidence entries."""
        if self._lists is None:
            self._lists = (self.running.tolist(), self.rate.tolist(), self.bottleneck.tolist())
        running, rate, bott = self._lists
        capacity = self._capacity
        row, link_row = self._row, self._link_row
        touched: set = set()
        for flow in finished + started:
            touched.update(row(flow)[0])
        resolve = set(started)
        work = 0
        for link in touched:
            on_link = link_row(link)[0]
            work += len(on_link)
            for f in on_link:
                if bott[f] == link and running[f]:
                    resolve.add(f)
        if not resolve:  # no flow lost its certificate: new loads only
            check = sorted(touched)
            loads = []
            for link in check:
                on_link, vals = link_row(link)
                loads.append(sum(value * rate[f] for f, value in zip(on_link, vals, strict=True)))
            return self._commit_small(check, loads, [], [], [])
        while work <= SMALL_WORK:
            flows = sorted(resolve)
            rows = [row(f) for f in flows]
            links = set(touched)
            for cols, _ in rows:
                links.update(cols)
                work += len(cols)
            # one pass over the links: the load and top rate of the held flows, and which of
            # them are bottlenecked there
            check = sorted(links)
            held = []
            resid = {}
            for link in check:
                on_link, vals = link_row(link)
                work += len(on_link)
                held_load = fastest = 0.0
                bottlenecked = []
                for f, value in zip(on_link, vals, strict=True):
                    if running[f] and f not in resolve:
                        r = rate[f]
                        held_load += value * r
                        if r > fastest:
                            fastest = r
                        if bott[f] == link:
                            bottlenecked.append(f)
                held.append((held_load, fastest, bottlenecked))
                resid[link] = capacity[link] - held_load
            if work > SMALL_WORK:
                return None
            new_rate, new_bott = _fill_small(rows, resid) if rows else ([], [])
            added: dict = {}
            for (cols, vals), r in zip(rows, new_rate, strict=True):
                for col, value in zip(cols, vals, strict=True):
                    load_top = added.get(col)
                    added[col] = (
                        (value * r, r)
                        if load_top is None
                        else (load_top[0] + value * r, max(load_top[1], r))
                    )
            loads = []
            state = {}
            grow: set = set()
            broken = False
            for link, (held_load, fastest, bottlenecked) in zip(check, held, strict=True):
                extra = added.get(link)
                if extra is not None:
                    held_load += extra[0]
                    fastest = max(fastest, extra[1])
                loads.append(held_load)
                saturated = held_load >= capacity[link] * (1 - CHECK_RTOL)
                floor = fastest * (1 - CHECK_RTOL)
                state[link] = (saturated, floor)
                for f in bottlenecked:
                    if not saturated or rate[f] < floor:
                        broken = True
                        grow.add(f)
            for r, link in zip(new_rate, new_bott, strict=True):
                saturated, floor = state[link]
                if not saturated or r < floor:  # held flows on its bottleneck run faster
                    broken = True
                    grow.update(g for g in link_row(link)[0] if running[g] and g not in resolve)
            if not broken:
                return self._commit_small(check, loads, flows, new_rate, new_bott)
            if not grow:
                return None
            resolve |= grow
        return None

    def _commit_small(self, links: list, loads: list, flows: list, rates: list, botts: list):
        small_load, small_peak, inverse_capacity = (
            self._small_load,
            self._small_peak,
            self._inverse_capacity,
        )
        for link, value in zip(links, loads, strict=True):
            small_load[link] = value
            level = value * inverse_capacity[link]
            if level > small_peak.get(link, -1.0):
                small_peak[link] = level
        _, rate, bott = self._lists
        for f, r, b in zip(flows, rates, botts, strict=True):
            rate[f] = r
            bott[f] = b
        if flows:
            self._dirty_flows.update(flows)
            self.solves["small"] += 1
        return (
            np.asarray(flows, dtype=np.int64),
            np.asarray(rates, dtype=np.float64),
            np.asarray(botts, dtype=np.int64),
        )

    # NumPy: more flows ----------------------------------------------------------------------
    def _resolve(self, flows: np.ndarray, touched: np.ndarray):
        """Re-solve ``flows`` with every other flow held, then check the certificate on all
        links whose load changed; widen and repeat until it holds."""
        member, position = self._member, self._position
        while True:
            seg, cols, vals = _gather(self.ptr, self.idx, self.val, flows)
            own_links = _unique(cols)
            links = _unique(np.concatenate([own_links, touched]))
            if self._work(links) > LOCAL_FRACTION * self.idx.size:
                return self.solve_all()
            self.solves["local"] += 1
            column = np.searchsorted(own_links, cols)
            own = np.bincount(
                column, weights=vals * self.rate[flows][seg], minlength=own_links.size
            )
            free = self.capacity[own_links] - (self.load[own_links] - own)
            rate, local = _fill(seg, column, vals, flows.size, free)
            bottleneck = own_links[local]
            l_seg, l_flow, l_val = _gather(self.t_ptr, self.t_idx, self.t_val, links)
            keep = self.running[l_flow]
            l_seg, l_flow, l_val = l_seg[keep], l_flow[keep], l_val[keep]
            member[flows] = True
            position[flows] = np.arange(flows.size)
            inside = member[l_flow]
            at = np.where(inside, position[l_flow], 0)
            l_rate = np.where(inside, rate[at], self.rate[l_flow])
            l_bott = np.where(inside, bottleneck[at], self.bottleneck[l_flow])
            load = np.bincount(l_seg, weights=l_val * l_rate, minlength=links.size)
            fastest = np.zeros(links.size)
            np.maximum.at(fastest, l_seg, l_rate)
            saturated = load >= self.capacity[links] * (1 - CHECK_RTOL)
            holds = saturated[l_seg] & (l_rate >= fastest[l_seg] * (1 - CHECK_RTOL))
            broken = (l_bott == links[l_seg]) & ~holds
            member[flows] = False
            if not broken.any():
                self._set_rates(flows, rate, bottleneck)
                self._set_load(links, load)
                return flows, rate, bottleneck
            # an outside flow without its certificate joins; so do the outside flows on the
            # bottleneck of a re-solved flow that fails its certificate
            failing = np.zeros(links.size, dtype=bool)
            failing[l_seg[broken & inside]] = True
            grow = l_flow[(broken | failing[l_seg]) & ~inside]
            if grow.size == 0:
                return self.solve_all()
            flows = _unique(np.concatenate([flows, grow]))
            touched = links


# --------------------------------------------------------------------------------------------
# event-driven simulation


@dataclass
class Result:
    """What :func:`simulate` found; per-link arrays are over the network's directed links."""

    finish: np.ndarray  # per flow, seconds
    completion_time_s: float
    link_util_avg: np.ndarray  # per directed link: bytes / (capacity * completion time)
    link_util_peak: np.ndarray  # highest instantaneous utilisation
    hot_spots: list[dict]
    fct: dict
    events: int
    first_rates: np.ndarray  # bit/s of each flow at time 0 (sum over its sub-flows)
    sub_finish: np.ndarray | None = None  # per sub-flow (see sub_flows), seconds
    sub_parent: np.ndarray | None = None  # per sub-flow: index of its flow
    solves: dict = field(default_factory=dict)  # rate solves by kind: full, local, small

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

    The engine runs the sub-flows of :func:`sub_flows` (planes, ``qp_scaling``); a flow
    finishes with its last sub-flow. Each event re-solves only what it changes (module
    docstring); ``Result.solves`` counts the solves by kind. ``on_progress(done, total,
    message)``, when given, is called after each event with the count of finished sub-flows.

    Raises
    ------
    RoutingError
        A flow has no path, or no capacity on it.
    ValueError
        Unknown routing, a plane the GPUs lack, or a start time that is not finite.
    """
    sub, parent = sub_flows(net, flows, qp_scaling)
    a = route(net, sub, routing, seed=seed, polarization=polarization)
    cap = np.where(net.alive, net.capacity, 0.0)
    n = len(sub)
    rates = _Rates(a, cap)
    bits = sub.size * 8.0
    # A running flow has ``running_rate * (due - now)`` bits left; a starting flow is booked as
    # sending all its bits in one second until its first rate is known.
    running_rate = np.zeros(n)
    due = np.full(n, np.inf)
    finish = np.full(n, np.nan)
    first_bott = np.full(n, -1, dtype=np.int64)
    first_rates = np.zeros(n)
    first_solve = True
    waiting = np.argsort(sub.start, kind="stable")
    waiting_start = sub.start[waiting]
    next_waiting = 0
    finished_count = 0
    events = 0
    now = 0.0
    nothing = np.zeros(0, dtype=np.int64)
    ending = nothing
    threshold = 1e-300
    while True:
        # flows whose start has come; empty ones finish at once
        starting = nothing
        if next_waiting < n and waiting_start[next_waiting] <= now * (1 + batch_rtol) + threshold:
            upto = int(np.searchsorted(waiting_start, now * (1 + batch_rtol) + threshold, "right"))
            starting = waiting[next_waiting:upto]
            next_waiting = upto
            empty = bits[starting] <= 0
            if empty.any():
                finish[starting[empty]] = sub.start[starting[empty]] if now == 0 else now
                finished_count += int(empty.sum())
                starting = starting[~empty]
            running_rate[starting] = bits[starting]
            due[starting] = now + 1.0
        threshold = 1e-300
        if ending.size or starting.size:
            changed, new_rate, new_bott = rates.update(ending, starting)
            if changed.size:
                if not (new_rate.min() > 0 and new_rate.max() < np.inf):
                    raise RoutingError("a flow has no capacity (failed link on its path?)")
                due[changed] = now + (due[changed] - now) * (running_rate[changed] / new_rate)
                running_rate[changed] = new_rate
                if starting.size:
                    unset = first_bott[changed] < 0
                    first_bott[changed[unset]] = new_bott[unset]
                if first_solve:
                    first_rates[changed] = new_rate
                    first_solve = False
        if finished_count == n:
            break
        next_arrival = waiting_start[next_waiting] if next_waiting < n else np.inf
        if rates.running_count == 0:
            if next_arrival == np.inf:
                raise ValueError("flow start times must be finite")
            now = next_arrival
            threshold = 0.0
            ending = nothing
            continue
        events += 1
        step = due.min() - now
        if now + step > next_arrival:
            step = next_arrival - now
            ending = nothing
        else:
            ending = np.flatnonzero(due <= now + step * (1 + batch_rtol))
        now += step
        finish[ending] = now
        due[ending] = np.inf
        finished_count += ending.size
        if on_progress is not None:
            on_progress(finished_count, n, f"simulated {finished_count:,} of {n:,} flows")
    rates.sync()
    per_flow = np.full(len(flows), -np.inf)
    np.maximum.at(per_flow, parent, finish)
    rates0 = np.zeros(len(flows))
    np.add.at(rates0, parent, first_rates)
    total = float(per_flow.max()) if len(flows) else 0.0
    span = total - float(flows.start.min()) if len(flows) else 0.0
    link_bits = np.bincount(
        rates.idx, weights=rates.val * np.repeat(bits, np.diff(rates.ptr)), minlength=net.link_count
    )
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
            "peak": float(rates.peak[i]),
            "bottlenecked_flows": np.unique(parent[first_bott == i]).tolist(),
        }
        for i in top
        if util[i] > 0
    ]
    return Result(
        per_flow,
        total,
        util,
        rates.peak,
        hot,
        stats,
        events,
        rates0,
        sub_finish=finish,
        sub_parent=parent,
        solves=dict(rates.solves),
    )


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
    "sub_flows",
]
