"""Message-size sweep: busbw against message size, as nccl-tests reports it.

The ``size_sweep`` job and its page. Sizes are nccl-tests' ``-b 8 -e 8G -f 2``: 8 B to 8 GiB
by powers of 2 (nccl-tests reads ``G`` as 2^30).

Rings (:func:`planner.analyses.traffic.collective_rings`, the construction the ``simulate``
job's ring collectives use too): ``rail`` (default) lays them as NCCL does on servers of ``g``
GPUs with one NIC each and a scale-up domain: ``g`` rings, one per NIC (rail), each over all
``n`` ranks and carrying ``S/g``; inside a server a ring crosses the GPUs over scale-up, between
servers it goes from rail ``c``'s NIC to rail ``c``'s NIC of the next server. So the message
is split over the ``g`` rails in parallel and busbw approaches ``g`` NICs together (8 x 50 GB/s
= 400 GB/s for 8 x 400G). ``flat`` is one ring through every GPU's own NIC (busbw bounded by
one NIC). busbw = algbw x nccl-tests' factor with ``n`` = all ranks (``2(n-1)/n``
all-reduce, ``(n-1)/n`` all-gather and reduce-scatter).

Time per size: the alpha-beta schedule of
:func:`planner.analyses.flow.alphabeta.ring_schedule_sizes`: every ring runs ``2(n-1)``
(all-reduce) or ``n-1`` steps of ``S/(g n)`` per edge; a step on an edge starts when the
previous rank has its data, pays the edge's path latency (links, modules, cables from
:func:`planner.analyses.latency.link_latency_ns`, switches from its ``switch_latency_ns``)
plus ``overhead_us``, then transfers at the rates of the exact max-min run of the rings'
fabric flows. Scale-up hops cost no time besides ``overhead_us`` (not limiting: a GPU's
scale-up carries ``g-1`` rings' edges, so it binds only below ``(g-1)`` x its NIC rate). The
max-min run is made once: all flows have one size and start together, so every finish time
scales with the size.

Not modelled (stated on the page): NVLink bandwidth and latency (the scale-up hops), NCCL's
tree, NVLS, NVLSTree, CollNet and PAT algorithms and its LL/LL128 protocols (NCCL picks them
by size and node count: published small-message times and 2-node busbw are better than a
ring's), GPU, PCIe and NIC software latency beyond ``overhead_us``. Units: bytes and seconds;
bandwidths in GB/s (10^9 bytes per second, as nccl-tests prints them) and Gb/s.

Pure (no Django): latencies come in as arrays (``link_ns`` per fabric link, ``node_ns`` per
node) or from :func:`catalog_latency`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from planner.analyses.errors import JobInputError
from planner.analyses.flow import canonical_routing, simulate
from planner.analyses.flow.alphabeta import flow_latency, link_latency_s, ring_schedule_sizes
from planner.analyses.latency import link_latency_terms, switch_latency_ns
from planner.analyses.scenario import build_network, transport_defaults
from planner.analyses.traffic import RING_LAYOUTS, collective_rings, place_job
from planner.domain.fabric import ROLE

#: nccl-tests ``-b 8 -e 8G -f 2``: 2^3 .. 2^33 bytes.
SIZES = tuple(2**k for k in range(3, 34))
TRAFFICS = ("all-reduce", "all-gather", "reduce-scatter")
RINGS = RING_LAYOUTS
#: The max-min run is made at this size and scaled (any size gives the same rates).
REFERENCE_BYTES = float(2**30)
#: Above this many (size x ring edge x step) updates the schedule takes every fabric hop at
#: the slowest one's rate and latency (an upper bound on the time), and says so.
EXACT_SCHEDULE_WORK = 3e8

#: Published nccl-tests all_reduce_perf figures for comparable systems, as read (never
#: computed here). ``busbw_gbytes_s`` a (low, high) range or one figure at ``size_bytes``;
#: ``nics`` and ``nic_gbps`` the system's NICs per server, for the per-NIC comparison.
PUBLISHED = (
    {
        "system": "H100 servers, 8 x ConnectX-7 InfiniBand NDR 400G each, Quantum-2 switches",
        "test": "all_reduce_perf, large messages, NCCL_ALGO=RING (ring: the network's share)",
        "figure": "46-48 GB/s per NIC: 368-384 GB/s busbw for 8 NICs",
        "size_bytes": 2**33,
        "busbw_gbytes_s": [368.0, 384.0],
        "nics": 8,
        "nic_gbps": 400,
        "source": "https://github.com/NVIDIA/nccl-tests/issues/290",
        "grade": "secondary",
        "note": (
            "an NCCL maintainer (NVIDIA) on what a 400G NDR NIC should carry; x 8 NICs "
            "inferred here"
        ),
    },
    {
        "system": "NVIDIA DGX A100 servers, 8 x 200G HDR InfiniBand each",
        "test": "all_reduce_perf across servers, large messages",
        "figure": "192 GB/s busbw (24 GB/s per NIC)",
        "size_bytes": 2**33,
        "busbw_gbytes_s": [192.0, 192.0],
        "nics": 8,
        "nic_gbps": 200,
        "source": "https://github.com/NVIDIA/nccl/issues/812",
        "grade": "secondary",
        "note": "measured by NVIDIA's NCCL team, as its maintainer wrote",
    },
    {
        "system": (
            "4 servers x 8 H100 SXM, InfiniBand 400G per port (3.2 Tbps per server), NCCL "
            "2.24.3, default algorithm"
        ),
        "test": "all_reduce_perf -b 8 -e 8G -f 2, 32 GPUs, out of place",
        "figure": "330.93 GB/s busbw at 8 GiB; 21.97 GB/s at 1 MiB; 38.37 us at 8 B",
        "size_bytes": 2**33,
        "busbw_gbytes_s": [330.93, 330.93],
        "points": {8: {"time_us": 38.37}, 2**20: {"busbw_gbytes_s": 21.97}},
        "nics": 8,
        "nic_gbps": 400,
        "source": (
            "https://github.com/ZiyanIshani/vpbenchmarking/blob/main/results/nccl/"
            "nccl_multinode/nccl_allreduce_20260224_225706.txt"
        ),
        "grade": "secondary",
        "note": (
            "a user's full sweep on a Voltage Park cluster (its summary also says '3 active "
            "ports per node'); NCCL picks tree or NVLS at some sizes"
        ),
    },
    {
        "system": "2 servers x 8 H20, 16 ConnectX-7 InfiniBand NDR, NCCL 2.21.5, NVLSTree",
        "test": "all_reduce_perf, 8 B",
        "figure": "47.60 us (out of place)",
        "size_bytes": 8,
        "points": {8: {"time_us": 47.6}},
        "source": "https://github.com/NVIDIA/nccl/issues/1244",
        "grade": "secondary",
        "note": "the latency floor of a real all-reduce across two servers (a user's run)",
    },
)

#: What the sweep leaves out, as the page says it.
NOT_MODELLED = (
    "NVLink (scale-up) bandwidth and latency: the hops inside a server cost nothing but the "
    "per-step overhead; NCCL's maintainer gives about 370 GB/s of effective NVLink bandwidth "
    "for an H100 ring (https://github.com/NVIDIA/nccl-tests/issues/212), so at 8 x 400G the "
    "scale-up is close to binding",
    "NCCL's tree, NVLS, NVLSTree, CollNet and PAT algorithms and its LL/LL128 protocols: NCCL "
    "picks them by size and server count, so real small-message times are lower than a ring's "
    "and 2-server busbw can exceed the NICs (https://github.com/NVIDIA/nccl-tests/issues/196: "
    "compare with NCCL_ALGO=RING runs)",
    "GPU, PCIe and NIC software latency beyond the per-step overhead, and protocol overhead "
    "(headers, flow control) on the wire",
)


def catalog_latency(fabric, facts) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(per fabric link ns, per node ns, notes) from the catalog
    (:func:`planner.analyses.latency.link_latency_terms` and ``switch_latency_ns``). A link
    counts what is known of it, as the design page's Latency table does: its propagation when
    a module's or cable's added latency is unknown, and the added latency when the
    propagation is; what is unknown counts as 0 and the notes say on how many links."""
    notes = []
    terms = link_latency_terms(fabric, facts)
    propagation = np.asarray(terms.propagation_ns, dtype=float)
    added = np.asarray(terms.added_ns, dtype=float)
    known = ~np.isnan(propagation), ~np.isnan(added)
    link_ns = np.where(known[0], propagation, 0.0) + np.where(known[1], added, 0.0)
    link_ns[~known[0] & ~known[1]] = np.nan
    total = link_ns.size
    unknown = int((~known[0] & ~known[1]).sum())
    if unknown:
        notes.append(f"{unknown:,} of {total:,} links of unknown latency counted as 0")
    partial = int((known[0] ^ known[1]).sum())
    if partial:
        notes.append(
            f"{partial:,} of {total:,} links count only their known part (cable propagation "
            "without a module's or cable's added latency the catalog lacks, or the reverse): "
            "a lower bound"
        )
    node_ns = np.asarray(switch_latency_ns(fabric, facts), dtype=float)
    switches = np.flatnonzero(fabric.node_role >= ROLE["leaf"])
    unknown = int(np.isnan(node_ns[switches]).sum())
    if unknown:
        notes.append(f"{unknown:,} of {switches.size:,} switches of unknown latency counted as 0")
    return link_ns, node_ns, notes


def run_size_sweep(
    fabric,
    *,
    traffic: str = "all-reduce",
    rings: str = "rail",
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
    """busbw and algbw per message size (module doc). ``rings``: ``rail`` (NCCL's ring per
    NIC) or ``flat``; ``gpus``: a job of that many GPUs on whole servers from the first
    (default every GPU); ``switch_latency_ns`` replaces every switch's latency;
    ``overhead_us`` is added to every ring step (scale-up hops too).

    Long because: it checks its options, places the job, then runs and records each message size in
    one loop; the result dict is most of it.
    """
    if traffic not in TRAFFICS:
        raise JobInputError(f"traffic: one of {', '.join(TRAFFICS)} (got {traffic!r})", "traffic")
    progress = on_progress or (lambda *a, **k: None)
    routing = canonical_routing(routing or transport_defaults(fabric.settings.transport).routing)
    progress(0, 2, "building the network")
    net = build_network(fabric)
    ranks = place_job(net, int(gpus or net.gpu_count))
    if ranks.size < 2:
        raise JobInputError("gpus: a ring needs at least 2 GPUs", field="gpus")
    plan = collective_rings(net, ranks, traffic, REFERENCE_BYTES, layout=rings)
    servers = ranks.size // net.gpus_per_server
    if not len(plan.flows):
        raise JobInputError(
            f"gpus: rail rings cross servers and {ranks.size:,} GPUs fill one server: ask for "
            "at least 2 servers' GPUs, or flat rings",
            field="gpus",
        )
    n, steps = plan.n, plan.steps
    progress(0, 2, f"simulating {len(plan.flows):,} ring flows")
    result = simulate(net, plan.flows, routing, seed=seed)
    if switch_latency_ns is not None:
        node_ns = np.full(net.node_count, float(switch_latency_ns))
    latency = link_latency_s(net, link_ns, node_ns)
    alpha_flow = flow_latency(net, plan.flows, routing, latency, seed=seed)
    tau_flow = np.asarray(result.finish, dtype=float) / steps  # per message of S_ref/(rings n)
    on_fabric = plan.edge_flow >= 0
    tau = np.zeros(plan.edge_flow.shape)
    alpha = np.zeros(plan.edge_flow.shape)
    tau[on_fabric] = tau_flow[plan.edge_flow[on_fabric]]
    alpha[on_fabric] = alpha_flow[plan.edge_flow[on_fabric]]
    notes = list(notes or [])
    if len(sizes) * tau.size * steps > EXACT_SCHEDULE_WORK:
        tau[on_fabric] = tau_flow.max()
        alpha[on_fabric] = alpha_flow.max()
        notes.append(
            f"{n:,} ranks: every fabric hop taken at the slowest one's rate and latency (an "
            "upper bound on the time)"
        )
    overhead = float(overhead_us) * 1e-6
    scales = np.asarray(sizes, dtype=float) / REFERENCE_BYTES
    times = ring_schedule_sizes(tau, alpha, steps, scales, overhead_s=overhead)
    factor = plan.factor
    points = []
    for size, t in zip(sizes, times.tolist(), strict=True):
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
    bound_gbps = float(net.nic_gbps) * plan.rings
    progress(2, 2, "done")
    return {
        "traffic": traffic,
        "rings": plan.layout,
        "ring_count": plan.rings,
        "routing": routing,
        "seed": seed,
        "gpus": int(n),
        "servers": int(servers),
        "gpus_per_server": int(net.gpus_per_server),
        "nic_gbps": float(net.nic_gbps),
        "steps": int(steps),
        "busbw_factor": factor,
        "bound_busbw_gbps": bound_gbps,
        "bound_busbw_gbytes_s": bound_gbps / 8,
        "scale_up_binds_below_gbytes_s": (
            float(net.nic_gbps) * (net.gpus_per_server - 1) / 8 if plan.layout == "rail" else None
        ),
        "latency": {
            "alpha_us": {
                "min": float(alpha_flow.min()) * 1e6,
                "mean": float(alpha_flow.mean()) * 1e6,
                "max": float(alpha_flow.max()) * 1e6,
            },
            "overhead_us": float(overhead_us),
            "switch_latency_ns": switch_latency_ns,
            "latency_bound_s": float(times[0]) if len(sizes) else None,
            "notes": notes,
        },
        "bandwidth_busbw_gbytes_s": (factor / bandwidth_time / 1e9) if bandwidth_time else None,
        "points": points,
        "published": compare_published(points, plan.rings),
        "not_modelled": list(NOT_MODELLED),
    }


def compare_published(points: list[dict], rings: int) -> list[dict]:
    """Each :data:`PUBLISHED` figure beside this sweep's at the same size: ``ours`` (busbw in
    GB/s, or time in us for a latency figure) and, for busbw, per NIC on both sides (ours:
    busbw / rings; theirs: busbw / their NICs)."""
    by_size = {p["size_bytes"]: p for p in points}
    out = []
    for entry in PUBLISHED:
        row = dict(entry)
        comparisons = []
        figures = {}
        if entry.get("busbw_gbytes_s"):
            figures[entry["size_bytes"]] = {"busbw_gbytes_s": entry["busbw_gbytes_s"]}
        for size, fig in (entry.get("points") or {}).items():
            figures.setdefault(size, {}).update(fig)
        for size, fig in sorted(figures.items()):
            ours = by_size.get(size)
            if ours is None:
                continue
            if "busbw_gbytes_s" in fig:
                theirs = fig["busbw_gbytes_s"]
                low, high = (theirs, theirs) if isinstance(theirs, int | float) else theirs
                item = {
                    "size_bytes": size,
                    "what": "busbw",
                    "theirs_gbytes_s": [float(low), float(high)],
                    "ours_gbytes_s": ours["busbw_gbytes_s"],
                }
                if entry.get("nics") and size == entry.get("size_bytes"):
                    item["theirs_per_nic_gbytes_s"] = [low / entry["nics"], high / entry["nics"]]
                    item["ours_per_nic_gbytes_s"] = ours["busbw_gbytes_s"] / max(rings, 1)
                comparisons.append(item)
            if "time_us" in fig:
                comparisons.append(
                    {
                        "size_bytes": size,
                        "what": "time",
                        "theirs_us": float(fig["time_us"]),
                        "ours_us": ours["time_s"] * 1e6,
                    }
                )
        row["comparisons"] = comparisons
        row.pop("points", None)
        out.append(row)
    return out


__all__ = [
    "NOT_MODELLED",
    "PUBLISHED",
    "RINGS",
    "SIZES",
    "TRAFFICS",
    "catalog_latency",
    "compare_published",
    "run_size_sweep",
]
