"""Traffic patterns and collectives as flow sets for :mod:`planner.analyses.flow`.

Collectives use NCCL's pipelined steady state (reference section 5.5): a ring of ``n`` ranks
is one concurrent flow per ring edge carrying ``2(n-1)/n * S`` bytes (all-reduce) or
``(n-1)/n * S`` (all-gather, reduce-scatter, ``S`` = the whole array), instead of ``2(n-1)``
barrier-separated steps (which over-penalise imbalance). The hierarchical all-reduce is a list
of phases run one after the other: intra-server reduce-scatter over scale-up, one ring per rail
across servers on the shard ``S/G``, intra-server all-gather. Latency terms (alpha) are left out:
the results are the bandwidth-bound times NCCL reaches at large sizes.

NCCL (nccl-tests ``PERFORMANCE.md``): ``algbw = S / t``; ``busbw = algbw * factor`` with factor
``2(n-1)/n`` for all-reduce and ``(n-1)/n`` for all-gather, reduce-scatter and all-to-all. On a
non-blocking fabric the bound of a flat ring is busbw = the per-GPU NIC line rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.analyses.errors import JobInputError
from planner.analyses.flow import Flows, Network, simulate

BUSBW_FACTOR = {
    "all-reduce": lambda n: 2 * (n - 1) / n,
    "all-gather": lambda n: (n - 1) / n,
    "reduce-scatter": lambda n: (n - 1) / n,
    "all-to-all": lambda n: (n - 1) / n,
}


def bus_bandwidth(op: str, size_bytes: float, seconds: float, ranks: int) -> tuple[float, float]:
    """(algbw, busbw) in bytes/s, as nccl-tests reports them."""
    algbw = size_bytes / seconds
    return algbw, algbw * BUSBW_FACTOR[op](ranks)


def place_job(net: Network, gpus: int, *, fragmented: bool = False, seed: int = 0) -> np.ndarray:
    """GPU indices of a job: whole servers from the first (contiguous) or whole servers picked
    at random across the fabric (fragmented, seeded). ``gpus`` must fill whole servers."""
    per = net.gpus_per_server
    if gpus % per:
        raise JobInputError(
            f"gpus: a job takes whole servers of {per} GPUs (got {gpus:,}): give a multiple "
            f"of {per}",
            field="gpus",
        )
    servers = net.gpu_count // per
    need = gpus // per
    if need > servers:
        raise JobInputError(
            f"gpus: {gpus:,} GPUs asked, the fabric has {net.gpu_count:,}: ask for fewer",
            field="gpus",
        )
    if fragmented:
        chosen = np.sort(np.random.default_rng(seed).choice(servers, size=need, replace=False))
    else:
        chosen = np.arange(need)
    return (chosen[:, None] * per + np.arange(per)[None, :]).ravel()


def _ring(ranks: np.ndarray, size: float) -> Flows:
    ranks = np.asarray(ranks, dtype=np.int64)
    return Flows(ranks, np.roll(ranks, -1), size)


def ring_allreduce(ranks: np.ndarray, size_bytes: float) -> Flows:
    """Flat ring all-reduce of ``size_bytes`` over ``ranks`` in the given order."""
    n = len(ranks)
    return _ring(ranks, 2 * (n - 1) / n * size_bytes)


def ring_allgather(ranks: np.ndarray, size_bytes: float) -> Flows:
    """Ring all-gather (``size_bytes`` = the gathered array, nccl-tests convention)."""
    n = len(ranks)
    return _ring(ranks, (n - 1) / n * size_bytes)


ring_reduce_scatter = ring_allgather  # same traffic, reduction aside


#: How a ring collective's rings are laid over the GPUs (:func:`collective_rings`).
RING_LAYOUTS = ("rail", "flat")
#: Bytes each ring edge carries, as a share of the ring's own part of the array.
EDGE_SHARE = {
    "all-reduce": lambda n: 2 * (n - 1) / n,
    "all-gather": lambda n: (n - 1) / n,
    "reduce-scatter": lambda n: (n - 1) / n,
}
#: Ring steps per collective of ``n`` ranks (each step moves ``1/n`` of a ring's part per edge).
RING_STEPS = {
    "all-reduce": lambda n: 2 * (n - 1),
    "all-gather": lambda n: n - 1,
    "reduce-scatter": lambda n: n - 1,
}


@dataclass(frozen=True)
class RingPlan:
    """A ring collective as rings of ranks and the fabric flows they make.

    ``edge_flow`` is ``(rings, n)``: ring ``r``'s edge ``i`` (rank ``order[r, i]`` to rank
    ``order[r, i+1]``, wrapping) is fabric flow ``edge_flow[r, i]`` of ``flows``, or -1 for a
    scale-up hop (inside a server, not on the fabric). ``steps`` ring steps per ring;
    ``factor`` nccl-tests' busbw factor for ``n`` ranks (all of them, every ring)."""

    flows: Flows
    order: np.ndarray
    edge_flow: np.ndarray
    layout: str
    n: int
    steps: int
    factor: float

    @property
    def rings(self) -> int:
        return int(self.order.shape[0])


def collective_rings(
    net: Network, ranks: np.ndarray, traffic: str, size_bytes: float, *, layout: str = "flat"
) -> RingPlan:
    """The rings of a ring collective over ``ranks`` (whole servers), as NCCL lays them.

    ``flat``: one ring over every rank, rail by rail (GPU k of every server, then GPU k+1);
    every edge goes through the GPUs' NICs and the fabric, so each NIC carries the whole ring
    and busbw is bounded by one NIC (what the ``simulate`` job's ring collectives run).

    ``rail``: NCCL on servers of ``g`` GPUs with one NIC each and a scale-up domain: ``g``
    rings (channels), one per NIC (rail), each over all ``n`` ranks and carrying ``S/g``.
    Ring ``c`` crosses each server's GPUs over scale-up and leaves it once, from rail ``c``'s
    NIC to rail ``c``'s NIC of the next server (the same rail: its leaf, no spine on a
    rail-optimized fabric); only those hops are fabric flows. Every NIC
    then carries one ring's edge, ``share(n) * S/g``, and busbw approaches ``g`` NICs
    together. The scale-up hops are not flows (not limiting).

    Each fabric flow carries ``share(n) * S / rings`` (:data:`EDGE_SHARE`: ``2(n-1)/n``
    all-reduce, ``(n-1)/n`` all-gather and reduce-scatter)."""
    if layout not in RING_LAYOUTS:
        raise JobInputError(f"rings: one of {', '.join(RING_LAYOUTS)} (got {layout!r})", "rings")
    ranks = np.asarray(ranks, dtype=np.int64)
    n = ranks.size
    g = net.gpus_per_server
    by_server = ranks.reshape(-1, g)
    servers = by_server.shape[0]
    share = EDGE_SHARE[traffic](n)
    if layout == "flat":
        order = by_server.T.reshape(1, -1)
        flows = Flows(order[0], np.roll(order[0], -1), share * size_bytes)
        edge_flow = np.arange(n, dtype=np.int64).reshape(1, -1)
    else:
        # ring c visits server j's GPUs c, c+1, ..., c-1 over scale-up; its hop to server j+1
        # leaves on rail c's NIC (the last GPU hands it over scale-up: NCCL's PXN) and lands
        # on rail c's NIC of server j+1: the fabric flow GPU (j, c) -> GPU (j+1, c)
        local = (np.arange(g)[:, None] + np.arange(g)[None, :]) % g  # (ring, position)
        order = by_server[:, local].transpose(1, 0, 2).reshape(g, n)
        src = by_server.T.ravel()  # ring c, server j -> flow c * servers + j
        dst = np.roll(by_server, -1, axis=0).T.ravel()
        keep = src != dst
        flows = Flows(src[keep], dst[keep], share * size_bytes / g)
        edge_flow = np.full((g, n), -1, dtype=np.int64)
        if servers > 1:
            edge_flow[:, g - 1 :: g] = np.arange(g * servers).reshape(g, servers)
    return RingPlan(
        flows=flows,
        order=order,
        edge_flow=edge_flow,
        layout=layout,
        n=int(n),
        steps=int(RING_STEPS[traffic](n)),
        factor=float(BUSBW_FACTOR[traffic](n)),
    )


def rail_rings(net: Network, ranks: np.ndarray, size_bytes: float) -> Flows:
    """One ring per rail (local GPU index) across the job's servers, each all-reducing
    ``size_bytes / G``: the network phase of the hierarchical all-reduce."""
    ranks = np.asarray(ranks, dtype=np.int64)
    g = net.gpus_per_server
    by_rail = ranks.reshape(-1, g).T  # rail k: GPU k of every server
    servers = by_rail.shape[1]
    src = by_rail.ravel()
    dst = np.roll(by_rail, -1, axis=1).ravel()
    return Flows(src, dst, 2 * (servers - 1) / servers * size_bytes / g)


def hierarchical_allreduce(net: Network, ranks: np.ndarray, size_bytes: float) -> list[Flows]:
    """Phases: intra-server reduce-scatter (ring over scale-up), rail rings, all-gather."""
    ranks = np.asarray(ranks, dtype=np.int64)
    g = net.gpus_per_server
    servers = ranks.reshape(-1, g)
    intra_src = servers.ravel()
    intra_dst = np.roll(servers, -1, axis=1).ravel()
    intra = Flows(intra_src, intra_dst, (g - 1) / g * size_bytes)
    return [intra, rail_rings(net, ranks, size_bytes), intra]


def run_phases(net: Network, phases: list[Flows], routing: str = "rail", **kw) -> float:
    """Total time of phases run back to back."""
    return float(sum(simulate(net, p, routing, **kw).completion_time_s for p in phases))


def pxn_flows(net: Network, flows: Flows) -> Flows:
    """``flows`` as NCCL's PXN sends them on a fabric whose leaves are not joined (an MLAG
    pair of one tier: rail r on leaf r mod 2): a flow whose destination's NIC is on another
    leaf than its source's is first handed over scale-up (NVLink) to the source server's GPU
    of the destination's rail, and leaves from that GPU's NIC ("PXN ... NCCL 2.12": the data
    moves to the GPU on the same rail as the destination first). Flows between two GPUs of
    one server stay on scale-up and are left out; the scale-up hop is not a fabric flow.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> net = SimpleNamespace(gpu_leaf=np.array([10, 11, 10, 11]),
    ...     gpu_local=np.array([0, 1, 0, 1]), gpu_server=np.array([0, 0, 1, 1]))
    >>> moved = pxn_flows(net, Flows([0, 0, 0], [1, 2, 3], 1.0))
    >>> moved.src.tolist(), moved.dst.tolist()
    ([0, 1], [2, 3])
    """
    src, dst = flows.src, flows.dst
    leaf = np.asarray(net.gpu_leaf)
    local = np.asarray(net.gpu_local)
    server = np.asarray(net.gpu_server)
    proxy = src - local[src] + local[dst]
    inside = (proxy >= 0) & (proxy < leaf.size)
    proxy = np.where(inside, proxy, src)
    usable = inside & (server[proxy] == server[src]) & (leaf[proxy] == leaf[dst])
    moved = np.where((leaf[src] != leaf[dst]) & usable, proxy, src)
    keep = server[moved] != server[dst]
    return Flows(
        moved[keep],
        dst[keep],
        flows.size[keep],
        flows.start[keep],
        flows.qp[keep],
        flows.plane[keep],
    )


def all_to_all(ranks: np.ndarray, size_bytes: float, *, group: int | None = None) -> Flows:
    """All-to-all inside groups of ``group`` consecutive ranks (all ranks when None): each
    rank sends ``size_bytes / n`` to every other member."""
    ranks = np.asarray(ranks, dtype=np.int64)
    n = group or ranks.size
    blocks = ranks.reshape(-1, n)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    off = i != j
    src = blocks[:, i[off]].ravel()
    dst = blocks[:, j[off]].ravel()
    return Flows(src, dst, size_bytes / n)


def permutation(ranks: np.ndarray, size_bytes: float, *, seed: int = 0) -> Flows:
    """Random permutation (seeded) without fixed points: every rank sends to one other."""
    ranks = np.asarray(ranks, dtype=np.int64)
    rng = np.random.default_rng(seed)
    order = rng.permutation(ranks.size)
    dst = np.empty_like(ranks)
    dst[order] = ranks[np.roll(order, -1)]  # one cycle: no rank sends to itself
    return Flows(ranks, dst, size_bytes)


def incast(ranks: np.ndarray, size_bytes: float, *, target: int | None = None) -> Flows:
    """Every rank sends ``size_bytes`` to ``target`` (default: the first rank)."""
    ranks = np.asarray(ranks, dtype=np.int64)
    target = int(ranks[0]) if target is None else int(target)
    src = ranks[ranks != target]
    return Flows(src, np.full(src.size, target), size_bytes)


__all__ = [
    "pxn_flows",
    "BUSBW_FACTOR",
    "EDGE_SHARE",
    "RING_LAYOUTS",
    "RING_STEPS",
    "RingPlan",
    "all_to_all",
    "collective_rings",
    "bus_bandwidth",
    "hierarchical_allreduce",
    "incast",
    "permutation",
    "place_job",
    "rail_rings",
    "ring_allgather",
    "ring_allreduce",
    "ring_reduce_scatter",
    "run_phases",
]
