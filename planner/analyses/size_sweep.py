"""Message-size sweep: busbw against message size, as nccl-tests reports it.

The ``size_sweep`` job and its page. Sizes are nccl-tests' ``-b 8 -e 8G -f 2``: 8 B to 8 GiB
by powers of 2 (nccl-tests reads ``G`` as 2^30). For each size the ring collective's time is
the alpha-beta schedule of :func:`planner.analyses.flow.alphabeta.ring_schedule`: every ring
step waits for the previous one, pays its path latency (links, modules, cables, switches) and a
per-step overhead, and moves ``S/n`` at the rates of the exact max-min run of the pipelined
ring (the ``simulate`` job's flows: :func:`planner.analyses.scenario.make_flows`, rail by rail).
The max-min run is made once: all the ring's flows have one size and start together, so every
finish time scales with the size (checked in the unit tests).

What it leaves out: NCCL's LL/LL128 protocols, tree, NVLS and CollNet algorithms and channels
(NCCL picks them by size: published small-message times are lower than a flat ring's), GPU
and NIC software latency beyond the ``overhead_us`` given, and scale-up hops (GPUs talk through
their NICs, as in the ``simulate`` job). Units: bytes and seconds; bandwidths in GB/s (10^9
bytes per second, as nccl-tests prints them) and Gb/s.

Pure (no Django): latencies come in as arrays (``link_ns`` per fabric link, ``node_ns`` per
node) or from :func:`catalog_latency`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from planner.analyses.errors import JobInputError
from planner.analyses.flow import canonical_routing, simulate
from planner.analyses.flow.alphabeta import flow_latency, link_latency_s, ring_schedule
from planner.analyses.scenario import build_network, transport_defaults
from planner.analyses.traffic import BUSBW_FACTOR, place_job, ring_allgather, ring_allreduce

#: nccl-tests ``-b 8 -e 8G -f 2``: 2^3 .. 2^33 bytes.
SIZES = tuple(2**k for k in range(3, 34))
TRAFFICS = ("all-reduce", "all-gather", "reduce-scatter")
#: Ring steps per collective (n ranks).
STEPS = {
    "all-reduce": lambda n: 2 * (n - 1),
    "all-gather": lambda n: n - 1,
    "reduce-scatter": lambda n: n - 1,
}
#: The max-min run is made at this size and scaled (any size gives the same rates).
REFERENCE_BYTES = float(2**30)

#: Published nccl-tests figures for comparable systems, as found (never computed here).
PUBLISHED = (
    {
        "system": "H100 SXM servers, NVLink + InfiniBand NDR (8 x 400G per server)",
        "test": "all_reduce_perf, large messages (8 GB and more)",
        "figure": "busbw 400-450 GB/s expected",
        "busbw_gbytes_s": [400.0, 450.0],
        "source": "https://saturncloud.io/blog/crusoe-nccl-cluster-validation",
        "grade": "secondary",
        "note": (
            "NCCL's hierarchical ring crosses one NIC per server and channel: per-GPU busbw "
            "near the server's eight NICs together (8 x 50 GB/s); the flat ring simulated here "
            "sends every GPU's data through its own NIC, so its bound is one NIC (50 GB/s)"
        ),
    },
    {
        "system": "2 servers x 8 H20, 16 ConnectX-7 InfiniBand NDR, NCCL 2.21.5, NVLSTree",
        "test": "all_reduce_perf, 8 B",
        "figure": "47.60 us (out of place)",
        "time_us": 47.6,
        "size_bytes": 8,
        "source": "https://github.com/NVIDIA/nccl/issues/1244",
        "grade": "secondary",
        "note": "the latency floor of a real all-reduce across two servers",
    },
    {
        "system": "NCCL maintainer on 2-node runs",
        "test": "all_reduce_perf",
        "figure": (
            "on two nodes NCCL uses tree (or NVLS tree), which can go beyond the network "
            "bottleneck; set NCCL_ALGO=RING to measure the network"
        ),
        "source": "https://github.com/NVIDIA/nccl-tests/issues/196",
        "grade": "secondary",
        "note": "compare this sweep with ring runs (NCCL_ALGO=RING) only",
    },
)


def catalog_latency(fabric, facts) -> tuple[np.ndarray | None, np.ndarray | None, list[str]]:
    """(per fabric link ns, per node ns, notes) from the catalog: links from
    :func:`planner.analyses.latency.link_latency_ns` (propagation, modules, cables) and
    switches from its ``switch_latency_ns`` when that module is there (else from their
    model's ``latency_ns`` in the catalog records). Unknown figures count as 0
    and the notes say how many."""
    notes = []
    link_ns = None
    try:
        from planner.analyses.latency import link_latency_ns
    except ImportError:
        notes.append("link latency not computed (no propagation, module or cable figures)")
    else:
        link_ns = np.asarray(link_latency_ns(fabric, facts), dtype=float)
        unknown = int(np.isnan(link_ns).sum())
        if unknown:
            notes.append(f"{unknown:,} links of unknown latency counted as 0")
    switches = np.flatnonzero(np.isin(fabric.node_role, _switch_roles()))
    try:
        from planner.analyses.latency import switch_latency_ns
    except ImportError:
        node_ns = _switch_latency_ns(fabric, facts, switches)
    else:
        node_ns = np.asarray(switch_latency_ns(fabric, facts), dtype=float)
    unknown = int(np.isnan(node_ns[switches]).sum())
    if unknown:
        notes.append(f"{unknown:,} of {switches.size:,} switches of unknown latency counted as 0")
    return link_ns, node_ns, notes


def _switch_latency_ns(fabric, facts, switches: np.ndarray) -> np.ndarray:
    """Per node: its switch model's ``latency_ns`` from the catalog records; NaN unknown."""
    node_ns = np.full(fabric.node_count, np.nan)
    parts = getattr(facts, "parts", {}) or {}
    for model_index in np.unique(fabric.node_model[switches]):
        value = (parts.get(fabric.models[int(model_index)]) or {}).get("latency_ns")
        if isinstance(value, int | float) and value >= 0:
            node_ns[switches[fabric.node_model[switches] == model_index]] = float(value)
    return node_ns


def _switch_roles():
    from planner.domain.fabric import ROLE

    return [ROLE["leaf"], ROLE["spine"], ROLE["core"]]


def run_size_sweep(
    fabric,
    *,
    traffic: str = "all-reduce",
    routing: str | None = None,
    gpus: int | None = None,
    seed: int = 0,
    link_ns: np.ndarray | None = None,
    node_ns: np.ndarray | None = None,
    switch_latency_ns: float | None = None,
    overhead_us: float = 0.0,
    sizes: tuple = SIZES,
    notes: list[str] | None = None,
    on_progress: Callable[..., None] | None = None,
) -> dict:
    """busbw and algbw per message size (module doc). ``gpus``: a job of that many GPUs on
    whole servers from the first (default every GPU); ``switch_latency_ns`` replaces every
    switch's latency; ``overhead_us`` is added to every ring step."""
    if traffic not in TRAFFICS:
        raise JobInputError(f"traffic: one of {', '.join(TRAFFICS)} (got {traffic!r})", "traffic")
    progress = on_progress or (lambda *a, **k: None)
    routing = canonical_routing(routing or transport_defaults(fabric.info).routing)
    progress(0, 2, "building the network")
    net = build_network(fabric)
    ranks = place_job(net, int(gpus or net.gpu_count))
    n = ranks.size
    if n < 2:
        raise JobInputError("gpus: a ring needs at least 2 GPUs", field="gpus")
    ranks = ranks.reshape(-1, net.gpus_per_server).T.ravel()  # rail by rail, as NCCL
    steps = STEPS[traffic](n)
    make = ring_allreduce if traffic == "all-reduce" else ring_allgather
    flows = make(ranks, REFERENCE_BYTES)
    progress(0, 2, f"simulating {n:,} ring flows")
    result = simulate(net, flows, routing, seed=seed)
    transfer_ref = np.asarray(result.finish, dtype=float) / steps  # per message of S_ref / n
    if switch_latency_ns is not None:
        node_ns = np.full(net.node_count, float(switch_latency_ns))
    latency = link_latency_s(net, link_ns, node_ns)
    alpha = flow_latency(net, flows, routing, latency, seed=seed)
    overhead = float(overhead_us) * 1e-6
    factor = BUSBW_FACTOR[traffic](n)
    points = []
    for size in sizes:
        t = ring_schedule(
            transfer_ref * (size / REFERENCE_BYTES), alpha, steps, overhead_s=overhead
        )
        algbw = size / t if t > 0 else 0.0
        points.append(
            {
                "size_bytes": int(size),
                "time_s": t,
                "algbw_gbytes_s": algbw / 1e9,
                "busbw_gbytes_s": algbw * factor / 1e9,
                "busbw_gbps": algbw * factor * 8 / 1e9,
            }
        )
    bandwidth_time = float(result.completion_time_s) / REFERENCE_BYTES
    progress(2, 2, "done")
    return {
        "traffic": traffic,
        "routing": routing,
        "seed": seed,
        "gpus": int(n),
        "servers": int(n // net.gpus_per_server),
        "steps": int(steps),
        "busbw_factor": factor,
        "bound_busbw_gbps": float(net.nic_gbps),
        "bound_busbw_gbytes_s": float(net.nic_gbps) / 8,
        "latency": {
            "alpha_us": {
                "min": float(alpha.min()) * 1e6,
                "mean": float(alpha.mean()) * 1e6,
                "max": float(alpha.max()) * 1e6,
            },
            "overhead_us": float(overhead_us),
            "switch_latency_ns": switch_latency_ns,
            "latency_bound_s": float(steps * (alpha.mean() + overhead)),
            "notes": list(notes or []),
        },
        "bandwidth_busbw_gbytes_s": (factor / bandwidth_time / 1e9) if bandwidth_time else None,
        "points": points,
        "published": [dict(p) for p in PUBLISHED],
    }


__all__ = ["PUBLISHED", "SIZES", "TRAFFICS", "catalog_latency", "run_size_sweep"]
