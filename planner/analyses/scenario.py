"""One flow-simulation scenario of a fabric: traffic, routing, failures -> the job's result.

The one code path of the ``simulate`` job and ``manage.py fabric simulate``. Pure (no Django).

Units: bandwidths in Gb/s (gigabits, like link speeds); ``algbw = S / t`` and ``busbw = algbw x
factor`` as nccl-tests reports them (factor ``2(n-1)/n`` all-reduce, ``(n-1)/n`` all-gather,
reduce-scatter and all-to-all, 1 for permutation and incast). ``bound_busbw_gbps`` is the best a
non-blocking fabric allows: the GPU's NIC line rate, all its planes together on a multi-plane
fabric (for incast, the receiver's NICs shared by the ``n-1`` senders). Ring collectives order
the ranks rail by rail (GPU k of every server, then GPU k+1), as NCCL does on rail-optimized
fabrics. Link utilization is time-averaged over the run (bytes / (capacity x time)), the busier
direction of each fabric link.

Transport: ``routing`` is one of :data:`~planner.analyses.flow.ROUTINGS` (or an alias); when
it is not given it follows the design's transport settings (``fabric.settings.transport``,
:func:`transport_defaults`). ``congestion`` reports the hot ports and the links lossless flow
control would pause (:mod:`planner.analyses.flow.congestion`), under the design's flow control
or ``pfc_mode``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from planner.analyses.errors import JobInputError
from planner.analyses.flow import (
    FLOWLETS_DEFAULT,
    Flows,
    Network,
    RoutingError,
    canonical_routing,
    congestion_tree,
    route,
    simulate,
    sub_flows,
)
from planner.analyses.flow.congestion import FLOW_CONTROLS
from planner.analyses.opensm import DEFAULT_ENGINE, route_with_opensm
from planner.analyses.storage_read import run_storage_read
from planner.analyses.traffic import (
    BUSBW_FACTOR,
    all_to_all,
    collective_rings,
    incast,
    permutation,
    pxn_flows,
)
from planner.domain.fabric import TIER_NAMES, Fabric
from planner.domain.networks.elements import network_elements
from planner.domain.transport import TransportSettings

TRAFFICS = (
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "all-to-all",
    "permutation",
    "incast",
    "storage-read",  # the storage network, not the compute fabric (planner.analyses.storage_read)
)
#: Traffics that run on the cluster's storage network: they need its elements (the catalog).
STORAGE_TRAFFICS = ("storage-read",)
RINGS = ("all-reduce", "all-gather", "reduce-scatter")
PLACEMENTS = ("contiguous", "fragmented")
#: All-to-all runs inside groups of at most this many ranks (expert-parallel groups).
ALL_TO_ALL_GROUP = 512
MAX_LINKS_REPORTED = 20_000
HISTOGRAM_BINS = 20
HOT_SPOTS = 10
#: Runs below this share of the bound say which link holds them back (``result["limit"]``).
LIMIT_SHOWN_BELOW = 0.99
#: Routings that give each flow one path (``flow_dump`` lists it).
SINGLE_PATH = ("rail", "ecmp", "opensm")
#: Hot ports reported with their congestion trees, and tree links listed per hot port.
CONGESTION_PORTS = 10
CONGESTION_LINKS = 200
#: Routing and flow control of a design with no transport settings: ECMP (what the simulate
#: job always defaulted to) and lossless (NVIDIA Onyx: ``roce`` without a mode is lossless,
#: https://docs.nvidia.com/networking/display/Onyxv31040100/RoCE+Commands, primary).
DEFAULT_ROUTING = "ecmp"
DEFAULT_FLOW_CONTROL = "lossless"


@dataclass(frozen=True)
class TransportDefaults:
    """What a design's transport settings make the simulation use when a job does not say:
    ``routing`` (a mode), ``flow_control`` (one of
    :data:`~planner.analyses.flow.congestion.FLOW_CONTROLS`) and ``reason`` (in words)."""

    routing: str
    flow_control: str
    reason: str


def transport_defaults(settings: TransportSettings | None) -> TransportDefaults:
    """The routing and flow control of a fabric's transport settings
    (``fabric.settings.transport``).

    InfiniBand: ``ib-ar`` when adaptive routing is on (opensm's default), else ``rail``
    (static forwarding tables); credit-based flow control. RoCE: ``load_balancing``
    ``adaptive`` / ``spraying`` -> ``spraying``, ``flowlet`` -> ``flowlet``, ``ecmp`` ->
    ``ecmp``; the PFC mode. No settings: :data:`DEFAULT_ROUTING`, :data:`DEFAULT_FLOW_CONTROL`.
    """
    if settings is None:
        return TransportDefaults(
            DEFAULT_ROUTING, DEFAULT_FLOW_CONTROL, "no transport settings: ECMP, lossless PFC"
        )
    if settings.transport == "infiniband" and settings.infiniband is not None:
        ar = bool(settings.infiniband.adaptive_routing)
        return TransportDefaults(
            "ib-ar" if ar else "rail",
            "credit",
            f"InfiniBand, adaptive routing {'on' if ar else 'off'}",
        )
    if settings.roce is not None:
        balancing = settings.roce.load_balancing
        routing = {"adaptive": "spraying", "spraying": "spraying", "flowlet": "flowlet"}.get(
            balancing, "ecmp"
        )
        mode = settings.roce.pfc_mode if settings.roce.pfc_mode in FLOW_CONTROLS else "lossless"
        return TransportDefaults(
            routing, mode, f"RoCE, load balancing {balancing}, PFC mode {settings.roce.pfc_mode}"
        )
    return TransportDefaults(DEFAULT_ROUTING, DEFAULT_FLOW_CONTROL, "transport settings empty")


def build_network(fabric: Fabric, *, fail_links: int = 0, seed: int = 0) -> Network:
    """The fabric's network with ``fail_links`` random switch-to-switch links failed (seeded)."""
    net = Network.from_fabric(fabric)
    if fail_links:
        net = net.with_failures(random_links=int(fail_links), seed=seed)
    return net


def _ranks(net: Network, placement: str, seed: int) -> np.ndarray:
    """Every GPU; ``fragmented`` puts the servers in a random (seeded) ring order."""
    per = net.gpus_per_server
    servers = np.arange(net.gpu_count // per)
    if placement == "fragmented":
        servers = np.random.default_rng(seed).permutation(servers)
    return (servers[:, None] * per + np.arange(per)[None, :]).ravel()


def _group(n: int) -> int:
    return max(d for d in range(1, min(n, ALL_TO_ALL_GROUP) + 1) if n % d == 0)


def make_flows(
    net: Network,
    traffic: str,
    size_bytes: float,
    *,
    placement: str,
    seed: int,
    rings: str = "flat",
):
    """(flows, ranks in the collective, busbw factor, bound in Gb/s).

    ``rings``: ``flat`` (one ring, rail by rail) or ``rail`` (one ring per rail, handed over
    scale-up: NCCL's PXN), for the ring collectives."""
    ranks = _ranks(net, placement, seed)
    n = ranks.size
    if traffic in RINGS:
        # one flat ring, rail by rail (GPU k of every server, then GPU k+1), or one ring
        # per rail: the ring constructions the message-size sweep shares
        # (traffic.collective_rings)
        flows = collective_rings(net, ranks, traffic, size_bytes, layout=rings).flows
    elif traffic == "all-to-all":
        n = _group(ranks.size)
        flows = all_to_all(ranks, size_bytes, group=n)
    elif traffic == "permutation":
        flows = permutation(ranks, size_bytes, seed=seed)
    elif traffic == "incast":
        flows = incast(ranks, size_bytes)
    else:
        raise ValueError(f"traffic must be one of {TRAFFICS}, not {traffic!r}")
    factor = BUSBW_FACTOR[traffic](n) if traffic in BUSBW_FACTOR else 1.0
    bound = net.nic_gbps / (n - 1) if traffic == "incast" and n > 1 else net.nic_gbps
    return flows, n, factor, bound


def _histogram(values: np.ndarray, edges: np.ndarray) -> dict:
    counts, edges = np.histogram(values, bins=edges)
    return {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]}


def _fabric_util(net: Network, per_direction: np.ndarray) -> np.ndarray:
    """Per fabric link: the busier direction."""
    n = net.fabric_links
    return np.maximum(per_direction[0 : 2 * n : 2], per_direction[1 : 2 * n : 2])


def run_scenario(
    fabric: Fabric,
    *,
    traffic: str,
    routing: str | None = None,
    seed: int = 0,
    size_bytes: float = 1e9,
    fail_links: int = 0,
    placement: str = "contiguous",
    hash_seed: int | None = None,
    summary_only: bool = False,
    on_progress: Callable[..., None] | None = None,
    keep: dict | None = None,
    facts=None,
    flowlets: int | None = None,
    pfc_mode: str | None = None,
    opensm_engine: str | None = None,
) -> dict:
    """Simulate one scenario; the result dict (see the module doc and the ``simulate`` job).

    ``seed`` drives the failures, placement, permutation and (unless ``hash_seed``) the ECMP
    hash. ``summary_only`` leaves out the per-link and per-flow parts (Monte Carlo runs).
    ``keep``, when given, receives the network, flows and engine result (``--dump-flows``).
    ``storage-read`` runs on the storage network's elements instead of the compute fabric
    (:func:`planner.analyses.storage_read.run_storage_read`) and needs ``facts`` (the
    catalog facts the elements are built with). ``routing`` (a mode or an alias; ``None``:
    the design's, :func:`transport_defaults`), ``flowlets`` (``flowlet`` routing's flowlets
    per flow) and ``pfc_mode`` (the flow control the congestion report assumes; ``None``: the
    design's) are the transport's. ``opensm`` routing runs the real OpenSM on the design
    (after the failures) with ``opensm_engine`` (default ``updn``) and reports it under
    ``result["opensm"]`` (:func:`planner.analyses.opensm.route_with_opensm`).

    Long because: it checks the transport's options, builds and runs the scenario (with the
    one-tier MLAG pair's own error) and writes the summary figures in one pass; the full
    result's details are :func:`_add_details`.
    """
    defaults = transport_defaults(fabric.settings.transport)
    routing = canonical_routing(routing or defaults.routing)
    flow_control = pfc_mode or defaults.flow_control
    if flow_control not in FLOW_CONTROLS:
        raise ValueError(f"pfc_mode must be one of {FLOW_CONTROLS}, not {flow_control!r}")
    if routing == "flowlet" and flowlets is None:
        flowlets = FLOWLETS_DEFAULT
    if opensm_engine is not None and routing != "opensm":
        raise JobInputError(
            f"opensm_engine: only for opensm routing (routing is {routing})", field="opensm_engine"
        )
    if traffic in STORAGE_TRAFFICS:
        if routing == "opensm":
            raise JobInputError(
                f"routing: {traffic} runs on the storage network, which OpenSM does not route "
                "here (it routes the compute fabric): choose another routing",
                field="routing",
            )
        if facts is None:
            raise ValueError(f"{traffic} needs the catalog facts (facts=)")
        return run_storage_read(
            fabric,
            network_elements(fabric, facts),
            routing=routing,
            seed=seed,
            size_bytes=size_bytes,
            fail_links=fail_links,
            hash_seed=hash_seed,
            summary_only=summary_only,
            on_progress=on_progress,
            flowlets=flowlets,
        )
    progress = on_progress or (lambda *a, **k: None)
    progress(0, 1, "building the network")
    net = build_network(fabric, fail_links=fail_links, seed=seed)
    opensm = None
    if routing == "opensm":
        progress(0, 1, "routing with OpenSM on ibsim")
        net, opensm = route_with_opensm(fabric, net, engine=opensm_engine or DEFAULT_ENGINE)
    # An MLAG pair (one tier) has no link between its two leaves: NCCL keeps such a fabric's
    # ring traffic on the rails (one ring per rail, PXN), each rail on one leaf.
    rings = "rail" if fabric.info.get("mlag_pair") else "flat"
    flows, ranks, factor, bound = make_flows(
        net, traffic, float(size_bytes), placement=placement, seed=seed, rings=rings
    )
    if fabric.info.get("mlag_pair"):  # and the other traffics move to the rail first (PXN)
        flows = pxn_flows(net, flows)
    progress(0, len(flows), f"simulating {len(flows):,} flows")
    try:
        result = simulate(
            net,
            flows,
            routing,
            seed=seed if hash_seed is None else hash_seed,
            flowlets=flowlets,
            hot_spot_count=HOT_SPOTS,
            on_progress=progress,
        )
    except RoutingError as exc:
        if fabric.info.get("mlag_pair") and not fail_links:
            raise RoutingError(
                f"{traffic} sends traffic between GPUs whose NICs sit on different leaves of "
                "the MLAG pair, and no link joins the two leaves (one tier: no spines, the "
                "peer link is not modelled): run a ring collective (all-reduce, all-gather, "
                "reduce-scatter: one ring per rail, each on one leaf), or build the fabric "
                "with tiers: 2",
                field="traffic",
            ) from exc
        raise
    if keep is not None:
        keep.update(net=net, flows=flows, result=result)
    t = result.completion_time_s
    algbw = float(size_bytes) * 8 / t / 1e9 if t > 0 else 0.0
    busbw = algbw * factor
    util = _fabric_util(net, result.link_util_avg)
    peak = _fabric_util(net, result.link_util_peak)
    out = {
        "traffic": traffic,
        "routing": routing,
        **({"flowlets": int(flowlets)} if routing == "flowlet" else {}),
        **({"opensm": opensm} if opensm is not None else {}),
        **({"rings": rings} if rings != "flat" and traffic in RINGS else {}),
        **({"pxn": True} if fabric.info.get("mlag_pair") else {}),
        "seed": seed if hash_seed is None else hash_seed,
        "size_bytes": float(size_bytes),
        "gpus": int(net.gpu_count),
        "ranks": int(ranks),
        "flows": len(flows),
        "events": int(result.events),
        "failed_links": int((~net.alive[: 2 * net.fabric_links : 2]).sum()),
        "completion_time_s": float(t),
        "algbw_gbps": algbw,
        "busbw_gbps": busbw,
        "bound_busbw_gbps": float(bound),
        "efficiency": busbw / bound if bound else None,
        "max_link_utilization": float(util.max()) if util.size else 0.0,
        "max_link_peak_utilization": float(peak.max()) if peak.size else 0.0,
    }
    if summary_only:
        return out
    _add_details(out, fabric, net, flows, result, util)
    out["congestion"] = congestion_result(
        fabric, net, result, flow_control=flow_control, reason="" if pfc_mode else defaults.reason
    )
    progress(1, 1, "simulated")
    return out


def _add_details(out: dict, fabric: Fabric, net: Network, flows, result, util) -> None:
    """The full result's keys (``summary_only`` leaves them out): the busiest links'
    utilization and its histogram, the hot spots, the limiting link when the efficiency is
    low, flow completion times and the load per tier."""
    busy = np.flatnonzero(util > 0)
    busy = busy[np.argsort(-util[busy], kind="stable")][:MAX_LINKS_REPORTED]
    out["link_utilization"] = {f"link:{i}": round(float(util[i]), 6) for i in sorted(busy)}
    out["links_reported"] = int(busy.size)
    out["utilization_histogram"] = _histogram(util, np.linspace(0, 1, HISTOGRAM_BINS + 1))
    names = net.node_name
    hot = []
    for spot in result.hot_spots:
        index = int(spot["link"].split(":")[1])
        hot.append(
            {
                "link": spot["link"],
                "fabric_link": f"link:{index}",
                "from": names[int(net.link_from[net.link_index(spot["link"])])],
                "to": names[int(net.link_to[net.link_index(spot["link"])])],
                "tier": TIER_NAMES[int(fabric.link_tier[index])],
                "utilization": spot["utilization"],
                "peak": spot["peak"],
                "bottlenecked_flows": len(spot["bottlenecked_flows"]),
            }
        )
    out["hot_spots"] = hot
    if out["efficiency"] is not None and out["efficiency"] < LIMIT_SHOWN_BELOW:
        out["limit"] = limiting_link(fabric, net, result)
    fct = np.asarray(result.finish - flows.start, dtype=float)
    top = float(fct.max()) if fct.size else 0.0
    out["fct"] = {
        **{k: result.fct.get(k) for k in ("p50", "p90", "p99", "max")},
        "histogram": _histogram(fct, np.linspace(0, top or 1.0, HISTOGRAM_BINS + 1)),
    }
    tiers = {}
    n = net.fabric_links
    capacity = net.capacity[0 : 2 * n : 2]
    for code, tier in enumerate(TIER_NAMES):
        mask = fabric.link_tier[:n] == code
        if not mask.any():
            continue
        tiers[tier] = {
            "links": int(mask.sum()),
            "capacity_gbps": float(capacity[mask].sum() / 1e9),
            "mean_utilization": float(util[mask].mean()),
            "max_utilization": float(util[mask].max()),
            "busy_links": int((util[mask] > 0).sum()),
        }
    out["per_tier_load"] = tiers


def limiting_link(fabric: Fabric, net: Network, result) -> dict | None:
    """Why the collective ends when it does: the link that holds back the flow finishing
    last, at the start (the most loaded of its links per unit of capacity), named as
    :func:`_directed` names it, with ``flows`` (the flows crossing it, in flows: fractions
    under split routings, parts on a multi-plane fabric), ``capacity_gbps`` and
    ``flow_gbps`` (that flow's first rate, all its parts). None without fabric hops."""
    incidence, _ = result.routes()  # a merged link stands for links that carry the same
    finish = result.sub_finish if result.sub_finish is not None else result.finish
    if incidence is None or not np.size(finish):
        return None
    last = int(np.argmax(finish))
    row = incidence.indices[incidence.indptr[last] : incidence.indptr[last + 1]]
    row = row[row < 2 * net.fabric_links]  # scale-up hops hold nothing back here
    if not row.size:
        return None
    load = np.bincount(incidence.indices, weights=incidence.data, minlength=net.link_count)
    link = int(row[np.argmax(load[row] / net.capacity[row])])
    flow = int(result.sub_parent[last]) if result.sub_parent is not None else last
    return {
        **_directed(fabric, net, link),
        "flows": round(float(load[link]), 6),
        "capacity_gbps": float(net.capacity[link]) / 1e9,
        "flow_gbps": float(result.first_rates[flow]) / 1e9,
    }


def _directed(fabric: Fabric, net: Network, link: int) -> dict:
    """A directed link as results name it: ids, device names at its ends, tier."""
    index = int(link) // 2
    return {
        "link": net.link_id(link),
        "fabric_link": f"link:{index}",
        "from": net.node_name[int(net.link_from[link])],
        "to": net.node_name[int(net.link_to[link])],
        "tier": TIER_NAMES[int(fabric.link_tier[index])],
    }


def _directed_many(fabric: Fabric, net: Network, links: np.ndarray) -> list[dict]:
    """:func:`_directed` of each of ``links`` (fabric links), the same dicts."""
    links = np.asarray(links, dtype=np.int64)
    index = links // 2
    names = net.node_name
    return [
        {
            "link": f"link:{i}:{'up' if link % 2 == 0 else 'down'}",
            "fabric_link": f"link:{i}",
            "from": names[a],
            "to": names[b],
            "tier": TIER_NAMES[tier],
        }
        for link, i, a, b, tier in zip(
            links.tolist(),
            index.tolist(),
            net.link_from[links].tolist(),
            net.link_to[links].tolist(),
            fabric.link_tier[index].tolist(),
            strict=True,
        )
    ]


def _counts_in_order(values: np.ndarray, name) -> dict:
    """``{name(value): count}`` of ``values``, in the order each value first appears."""
    distinct, first, count = np.unique(values, return_index=True, return_counts=True)
    order = np.argsort(first)
    return {
        name(value): int(n)
        for value, n in zip(distinct[order].tolist(), count[order].tolist(), strict=True)
    }


def congestion_result(
    fabric: Fabric, net: Network, result, *, flow_control: str, reason: str = ""
) -> dict:
    """The ``congestion`` part of a result: :func:`~planner.analyses.flow.congestion_tree` of
    the run, each hot port with the links its pause reaches (at most
    :data:`CONGESTION_LINKS` listed, nearest first) and their count by tier and hops."""
    incidence, merged = result.routes()
    report = congestion_tree(
        net,
        incidence,
        result.sub_flows,
        flow_control=flow_control,
        parent=result.sub_parent,
        max_ports=CONGESTION_PORTS,
        merged=merged,
    )
    ports = []
    for hot in report.hot_ports:
        ports.append(
            {
                **_directed(fabric, net, hot.link),
                "offered": hot.offered,
                "flows": hot.flows,
                "victim_flows": hot.victims,
                "tree_links": int(hot.tree_links.size),
                "tree_by_tier": _counts_in_order(
                    fabric.link_tier[hot.tree_links // 2], lambda code: TIER_NAMES[code]
                ),
                "tree_by_hops": _counts_in_order(hot.tree_hops, str),
                "tree": [
                    {**named, "hops": hops, "flows": flows}
                    for named, hops, flows in zip(
                        _directed_many(fabric, net, hot.tree_links[:CONGESTION_LINKS]),
                        hot.tree_hops[:CONGESTION_LINKS].tolist(),
                        hot.tree_flows[:CONGESTION_LINKS].tolist(),
                        strict=True,
                    )
                ],
            }
        )
    return {
        "flow_control": report.flow_control,
        "spreads": report.spreads,
        "basis": reason,
        "hot_port_count": report.hot_port_count,
        "paused_links": int(report.paused_links().size),
        "hot_ports": ports,
    }


def flow_dump(net: Network, flows: Flows, result, routing: str, *, seed: int) -> dict:
    """Links and per-flow paths (in path order) and finish times; single-path routing only.

    On a multi-plane fabric each flow is dumped once per plane (its sub-flows, see
    :func:`~planner.analyses.flow.sub_flows`), each entry with its ``plane``."""
    routing = canonical_routing(routing)
    if routing not in SINGLE_PATH:
        raise ValueError(
            f"--dump-flows needs single-path routing (rail, ecmp or opensm), not {routing}"
        )
    sub, parent = sub_flows(net, flows)
    incidence = route(net, sub, routing, seed=seed)
    finish = result.finish[parent] if result.sub_finish is None else result.sub_finish
    used = np.unique(incidence.indices)
    links = [{"id": net.link_id(i), "capacity_bps": float(net.capacity[i])} for i in used]
    out = []
    for f in range(len(sub)):
        cols = incidence.indices[incidence.indptr[f] : incidence.indptr[f + 1]]
        by_from = {int(net.link_from[c]): int(c) for c in cols if net.link_from[c] >= 0}
        su = [int(c) for c in cols if net.link_from[c] < 0]
        if su:
            ordered = sorted(su)  # scale-up: out then in
        else:
            node = int(net.gpu_server[sub.src[f]])
            ordered = []
            while node in by_from and len(ordered) < len(cols):
                link = by_from.pop(node)
                ordered.append(link)
                node = int(net.link_to[link])
        entry = {
            "id": int(parent[f]),
            "size_bytes": float(sub.size[f]),
            "start_s": float(sub.start[f]),
            "links": [net.link_id(c) for c in ordered],
            "finish_s": float(finish[f]),
        }
        if net.planes > 1:
            entry["plane"] = int(sub.plane[f])
        out.append(entry)
    return {"links": links, "flows": out}


def monte_carlo_summary(runs: list[dict]) -> dict:
    """p50/p90/max (and min) of completion time and busbw over per-seed runs."""

    def stats(key):
        values = np.asarray([r[key] for r in runs], dtype=float)
        return {
            "min": float(values.min()),
            "p50": float(np.percentile(values, 50)),
            "p90": float(np.percentile(values, 90)),
            "max": float(values.max()),
        }

    ordered = sorted(runs, key=lambda r: r["seed"])
    return {
        "seeds": len(runs),
        "completion_time_s": stats("completion_time_s"),
        "busbw_gbps": stats("busbw_gbps"),
        "max_link_utilization": stats("max_link_utilization"),
        "runs": [
            {k: r[k] for k in ("seed", "completion_time_s", "busbw_gbps", "max_link_utilization")}
            for r in ordered
        ],
    }


__all__ = [
    "DEFAULT_FLOW_CONTROL",
    "DEFAULT_ROUTING",
    "PLACEMENTS",
    "STORAGE_TRAFFICS",
    "TRAFFICS",
    "TransportDefaults",
    "build_network",
    "congestion_result",
    "flow_dump",
    "make_flows",
    "monte_carlo_summary",
    "run_scenario",
    "transport_defaults",
]
