"""Latency (the alpha of the alpha-beta model) on top of the max-min flow engine.

Three pieces, all taking latencies as plain arrays so they test on their own:

* :func:`path_latency`: a flow's alpha, the sum over its route of each link's latency
  (propagation, modules, cables) and of the latency of the switch each link enters
  (port-to-port). A multi-path route (spraying, flowlets) weighs each link by the flow's share
  of it: the mean path latency.
* :func:`simulate_latency`: :func:`~planner.analyses.flow.simulate` where each flow first waits
  its alpha and then sends at max-min fair rates: its bandwidth phase starts at
  ``start + alpha``, so it finishes at ``start + alpha + transfer``. This is SimGrid's
  semantics (a communication's latency phase, then its bandwidth phase); with every alpha zero
  the run is the engine's own, unchanged.
* :func:`ring_schedule`: a ring collective as NCCL runs it, ``steps`` messages of ``S/n`` per
  ring edge (all-reduce ``2(n-1)``, all-gather and reduce-scatter ``n-1``). Message ``k`` on edge
  ``i`` (rank ``i`` to ``i+1``) starts when rank ``i`` has received message ``k-1`` (edge
  ``i-1``); its transfer waits for edge ``i``'s previous transfer::

      finish[k, i] = max(finish[k-1, i-1] + alpha_i + overhead, finish[k-1, i]) + tau_i

  (the latency phase first, then the transfer, as SimGrid runs a communication; latencies of
  successive messages on one edge overlap, their transfers queue).

  ``tau_i`` is edge ``i``'s transfer time per message at the rates of the exact max-min run of
  the pipelined ring (``scenario.make_flows``: one flow per edge of ``steps * S/n``, finishing
  at ``T_i``; ``tau_i = T_i / steps``). Equal edges give ``steps * (alpha + overhead) + T``:
  today's max-min time plus the latency of every step; large messages keep the max-min rates,
  small ones are latency-bound at ``steps * alpha``.

Pure NumPy (and one numba kernel, :func:`_ring_steps`, for the schedule's step loop), no
Django.
"""

from __future__ import annotations

import numba
import numpy as np

from planner.analyses.flow.events import simulate
from planner.analyses.flow.flows import Flows, sub_flows
from planner.analyses.flow.incidence import route
from planner.analyses.flow.network import Network

__all__ = [
    "flow_latency",
    "link_latency_s",
    "path_latency",
    "ring_schedule",
    "ring_schedule_sizes",
    "simulate_latency",
]


def link_latency_s(
    net: Network,
    fabric_link_ns: np.ndarray | None = None,
    node_ns: np.ndarray | None = None,
) -> np.ndarray:
    """Per directed link of ``net``, seconds: its fabric link's latency (both directions the
    same; scale-up links 0) plus the latency of the node the link enters (a switch's
    port-to-port latency; 0 for servers). ``None`` or NaN entries count as 0."""
    out = np.zeros(net.link_count)
    n = net.fabric_links
    if fabric_link_ns is not None:
        per = np.nan_to_num(np.asarray(fabric_link_ns, dtype=float)[:n], nan=0.0)
        out[: 2 * n] += np.repeat(per, 2) * 1e-9
    if node_ns is not None:
        nodes = np.nan_to_num(np.asarray(node_ns, dtype=float), nan=0.0)
        head = net.link_to[: 2 * n]
        out[: 2 * n] += np.where(net.is_switch[head], nodes[head], 0.0) * 1e-9
    return out


def path_latency(incidence, latency_s: np.ndarray) -> np.ndarray:
    """Per flow (row of the flow x link incidence), seconds: the sum of its links' latency,
    weighed by its share of each link (a single path: weights 1)."""
    return np.asarray(incidence @ np.asarray(latency_s, dtype=float), dtype=float).ravel()


def flow_latency(
    net: Network,
    flows: Flows,
    routing: str,
    latency_s: np.ndarray | None,
    *,
    seed: int = 0,
    qp_scaling: int = 1,
    polarization: bool = False,
    flowlets: int | None = None,
    **_,
) -> np.ndarray:
    """Per flow, seconds: its path latency (:func:`path_latency`) under ``routing``; a flow
    split over planes or queue pairs (:func:`~planner.analyses.flow.sub_flows`) takes the
    longest of its parts'. Zeros when ``latency_s`` is None or all zero."""
    alpha = np.zeros(len(flows))
    if latency_s is None or not np.any(latency_s):
        return alpha
    sub, parent = sub_flows(net, flows, qp_scaling)
    incidence = route(net, sub, routing, seed=seed, polarization=polarization, flowlets=flowlets)
    np.maximum.at(alpha, parent, path_latency(incidence, latency_s))
    return alpha


def simulate_latency(
    net: Network,
    flows: Flows,
    routing: str = "ecmp",
    *,
    latency_s: np.ndarray | None = None,
    seed: int = 0,
    **kw,
):
    """:func:`~planner.analyses.flow.simulate` with each flow's path latency first (see the
    module doc): returns (result, alpha per flow). ``latency_s`` per directed link
    (:func:`link_latency_s`); ``result.finish`` counts from time 0 and includes the latency.
    A flow split over planes or queue pairs waits the longest of its parts' latencies."""
    alpha = flow_latency(net, flows, routing, latency_s, seed=seed, **kw)
    if not np.any(alpha):
        return simulate(net, flows, routing, seed=seed, **kw), alpha
    shifted = Flows(flows.src, flows.dst, flows.size, flows.start + alpha, flows.qp, flows.plane)
    return simulate(net, shifted, routing, seed=seed, **kw), alpha


def _period(transfer: np.ndarray, wait: np.ndarray) -> int:
    """The shortest period of a ring's edges (both arrays repeat every ``p`` edges)."""
    size = transfer.shape[-1]
    for p in range(1, size):
        if size % p == 0 and all(
            np.array_equal(a, np.tile(a[..., :p], size // p)) for a in (transfer, wait)
        ):
            return p
    return size


def ring_schedule_sizes(
    transfer_s: np.ndarray,
    alpha_s: np.ndarray,
    steps: int,
    scales,
    *,
    overhead_s: float = 0.0,
) -> np.ndarray:
    """:func:`ring_schedule` of several rings run side by side (NCCL's channels), for several
    message sizes at once: completion time per entry of ``scales`` (the slowest ring).

    ``transfer_s`` and ``alpha_s`` are ``(rings, edges)`` (or one ring ``(edges,)``); edge
    ``i``'s transfer time per message is ``transfer_s[.., i] * scale``. Identical rings are
    run once and a ring whose edges repeat (every server alike) on one period of them: the
    schedule of a periodic ring stays periodic, so the times are the same."""
    transfer = np.atleast_2d(np.asarray(transfer_s, dtype=float))
    wait = np.atleast_2d(np.asarray(alpha_s, dtype=float)) + overhead_s
    scales = np.asarray(scales, dtype=float)
    if transfer.size == 0 or steps <= 0:
        return np.zeros(scales.size)
    if np.all(transfer == transfer[:1]) and np.all(wait == wait[:1]):
        transfer, wait = transfer[:1], wait[:1]
    p = _period(transfer, wait)
    transfer, wait = transfer[:, :p], wait[:, :p]
    tau = scales[:, None, None] * transfer[None]  # (sizes, rings, edges)
    if np.all(transfer == transfer.flat[0]) and np.all(wait == wait.flat[0]):
        return steps * (tau[:, 0, 0] + wait.flat[0])
    finish = np.ascontiguousarray(wait[None] + tau)
    _ring_steps(finish, np.ascontiguousarray(wait), np.ascontiguousarray(tau), int(steps))
    return finish.max(axis=(1, 2))


@numba.njit(cache=True, error_model="numpy")
def _ring_steps(finish, wait, tau, steps):  # pragma: no cover - compiled
    """The schedule's ``steps - 1`` further messages, in place over ``finish`` (sizes, rings,
    edges): ``finish = maximum(roll(finish, 1) + wait, finish) + tau`` each step, the same
    operations in the same order as NumPy's (NaN propagates as ``np.maximum`` does), without
    its per-step cost (200,000 steps at 100,000 GPUs)."""
    sizes, rings, edges = finish.shape
    for s in range(sizes):
        for r in range(rings):
            for _ in range(steps - 1):
                carry = finish[s, r, edges - 1]
                for i in range(edges):
                    old = finish[s, r, i]
                    ready = carry + wait[r, i]
                    finish[s, r, i] = (ready if (ready >= old or ready != ready) else old) + tau[
                        s, r, i
                    ]
                    carry = old
    return finish


def ring_schedule(
    transfer_s: np.ndarray,
    alpha_s: np.ndarray,
    steps: int,
    *,
    overhead_s: float = 0.0,
) -> float:
    """Completion time of a ring of ``len(transfer_s)`` edges running ``steps`` messages each
    (module doc): ``transfer_s[i]`` is edge ``i``'s transfer time per message, ``alpha_s[i]``
    its path latency, ``overhead_s`` a fixed cost per message (software, protocol). Latencies
    of successive messages on one edge overlap (a connection keeps several in flight); their
    transfers do not."""
    transfer = np.asarray(transfer_s, dtype=float)
    wait = np.asarray(alpha_s, dtype=float) + overhead_s
    if transfer.size == 0 or steps <= 0:
        return 0.0
    if np.all(transfer == transfer[0]) and np.all(wait == wait[0]):
        return float(steps * (transfer[0] + wait[0]))
    finish = wait + transfer
    for _ in range(steps - 1):
        finish = np.maximum(np.roll(finish, 1) + wait, finish) + transfer
    return float(finish.max())
