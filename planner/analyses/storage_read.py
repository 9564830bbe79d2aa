"""The ``storage-read`` traffic: every node reads from the storage arrays at once, on the
storage (or converged) network's concrete devices and links.

The flow engine (:mod:`planner.analyses.flow`) runs on a :class:`~planner.analyses.flow.Network`
compiled here from the networks' stored elements
(:func:`planner.domain.networks.elements.network_elements`) rather than from
the compute fabric: its switches are the network's leaves, storage leaves and spines; its
endpoints are *ports* (each node port and each storage-array port is one endpoint with one
link to its leaf). Every node port reads from every storage-array port (a striped parallel
file system): one flow per (array port, node port), each of ``size_bytes / (node ports x array
ports)`` so that every node reads ``size_bytes`` in all. Rates are max-min fair per flow (the
engine's, exact); a node's read rate is the sum of its flows' rates at the start.

Tiers, as :mod:`planner.domain.networks.bandwidth` names them: ``node ports`` (leaf to node),
``node-leaf uplinks`` (spine to node leaf), ``storage-leaf uplinks`` (storage leaf to spine),
``storage-array ports`` (array to storage leaf). With ``spraying`` routing (formerly
``adaptive``: an even split over the equal-cost spines) the per-node rates equal the analytic
figure for every node reading at once (``all_gbytes_per_node``); static routing (``rail``,
``ecmp``) can only do worse.

Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from planner.analyses.errors import JobInputError
from planner.analyses.flow import (
    Flows,
    Network,
    canonical_routing,
    max_min_rates,
    route,
    simulate,
)
from planner.domain.names import end_text
from planner.domain.networks.bandwidth import BITS_PER_BYTE, TIERS

#: Networks whose storage arrays can be read.
READ_NETWORKS = ("storage", "converged")
SWITCH_ROLES = ("leaf", "storage-leaf", "spine", "core")
SATURATED_RTOL = 1e-9
HOT_SPOTS = 10
HISTOGRAM_BINS = 20


def _histogram(values: np.ndarray, edges: np.ndarray) -> dict:
    counts, edges = np.histogram(values, bins=edges)
    return {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]}


def read_network(fabric) -> str | None:
    """The network a ``storage-read`` runs on (``storage``, else ``converged``), or None."""
    networks = fabric.settings.networks or {}
    return next((name for name in READ_NETWORKS if name in networks), None)


def _missing(field: str = "traffic") -> JobInputError:
    return JobInputError(
        "traffic: storage-read needs a storage (or converged) network with storage-array "
        "ports: add networks.storage (or networks.converged) with storage_ports to the "
        "design's spec",
        field=field,
    )


def _node_key(device: str, port: str) -> str:
    """The reading node of a node port: the device, or its compute tray (``tray03/stor1``)."""
    tray, slash, _ = port.rpartition("/")
    return f"{device}/{tray}" if slash else device


def storage_graph(elements, network: str):
    """The flow engine's :class:`Network` of one storage network, with its endpoints.

    Returns
    -------
    tuple
        ``(net, node_ports, array_ports, node_of_port, readers, link_tier)``: endpoint
        indices of node ports and of storage-array ports, the reader index of each node port,
        the reader names (device, or device/tray) and each directed link's tier (``TIERS``).

    Long because: it lays out one storage network's nodes, ports and links as the flow engine's
    arrays in one pass; the arrays are filled together.
    """
    devices = {d.name: d for d in elements.devices_of(network)}
    links = elements.links_of(network)
    names: list[str] = []
    index: dict[str, int] = {}

    def node(name: str) -> int:
        if name not in index:
            index[name] = len(names)
            names.append(name)
        return index[name]

    switch = {n for n, d in devices.items() if d.role in SWITCH_ROLES}
    a = np.fromiter((node(link.a_device) for link in links), dtype=np.int64, count=len(links))
    b = np.fromiter((node(link.b_device) for link in links), dtype=np.int64, count=len(links))
    speed = np.asarray([float(link.speed_gbps) for link in links], dtype=np.float64)
    is_switch = np.asarray([n in switch for n in names], dtype=bool)
    n_links = len(links)
    link_from = np.empty(2 * n_links, dtype=np.int64)
    link_to = np.empty(2 * n_links, dtype=np.int64)
    link_from[0::2], link_to[0::2] = a, b
    link_from[1::2], link_to[1::2] = b, a

    role = {n: d.role for n, d in devices.items()}
    endpoint_link: list[int] = []
    endpoint_device: list[int] = []
    endpoint_leaf: list[int] = []
    node_ports: list[int] = []
    array_ports: list[int] = []
    node_of_port: list[int] = []
    readers: list[str] = []
    reader_index: dict[str, int] = {}
    tier = np.full(2 * n_links, "", dtype=object)
    for i, link in enumerate(links):
        a_switch, b_switch = link.a_device in switch, link.b_device in switch
        if a_switch and b_switch:
            leafish = ("leaf", "storage-leaf")
            a_leaf, b_leaf = role.get(link.a_device) in leafish, role.get(link.b_device) in leafish
            if a_leaf == b_leaf:
                continue  # spine-core (three tiers): 1:1, no tier of the analysis
            lower = link.a_device if a_leaf else link.b_device
            up = 2 * i if a_leaf else 2 * i + 1  # leaf -> spine
            kind = "storage-leaf uplinks" if role.get(lower) == "storage-leaf" else None
            if kind:
                tier[up] = kind  # storage leaf -> spine carries the reads
            else:
                tier[up ^ 1] = "node-leaf uplinks"  # spine -> node leaf
            continue
        if a_switch == b_switch:
            continue  # neither end a switch: not part of a leaf-spine path
        end, leaf, end_port = (
            (link.b_device, link.a_device, link.b_port)
            if a_switch
            else (link.a_device, link.b_device, link.a_port)
        )
        endpoint = len(endpoint_link)
        endpoint_link.append(i)
        endpoint_device.append(index[end])
        endpoint_leaf.append(index[leaf])
        out_of_end = 2 * i + (1 if a_switch else 0)  # end -> leaf
        if link.group == "storage-leaf":
            array_ports.append(endpoint)
            tier[out_of_end] = "storage-array ports"
        elif link.group == "node-leaf":
            node_ports.append(endpoint)
            key = _node_key(end, end_port)
            if key not in reader_index:
                reader_index[key] = len(readers)
                readers.append(key)
            node_of_port.append(reader_index[key])
            tier[out_of_end ^ 1] = "node ports"  # leaf -> node
    if not node_ports or not array_ports:
        raise _missing()
    endpoints = len(endpoint_link)
    nics = np.asarray(endpoint_link, dtype=np.int64)
    leaves = np.asarray(endpoint_leaf, dtype=np.int64)
    net = Network(
        node_count=len(names),
        is_switch=is_switch,
        link_from=link_from,
        link_to=link_to,
        capacity=np.repeat(speed * 1e9, 2),
        alive=np.ones(2 * n_links, dtype=bool),
        fabric_links=n_links,
        gpu_server=np.asarray(endpoint_device, dtype=np.int64),
        gpu_ordinal=np.arange(endpoints, dtype=np.int64),
        gpu_local=np.zeros(endpoints, dtype=np.int64),
        gpu_nic=nics,
        gpu_leaf=leaves,
        gpus_per_server=1,
        nic_gbps=float(speed[nics].min()),
        node_name=names,
    )
    return (
        net,
        np.asarray(node_ports, dtype=np.int64),
        np.asarray(array_ports, dtype=np.int64),
        np.asarray(node_of_port, dtype=np.int64),
        readers,
        tier,
    )


def _stats(values: np.ndarray) -> dict:
    return {
        "min": float(values.min()),
        "mean": float(values.mean()),
        "max": float(values.max()),
    }


def run_storage_read(
    fabric,
    elements,
    *,
    routing: str,
    seed: int = 0,
    size_bytes: float = 1e9,
    fail_links: int = 0,
    hash_seed: int | None = None,
    summary_only: bool = False,
    on_progress: Callable[..., None] | None = None,
    flowlets: int | None = None,
) -> dict:
    """Every node reads ``size_bytes`` from the storage arrays at once; the result dict.

    Parameters
    ----------
    fabric : Fabric
        The design's fabric (its ``settings.networks`` names the storage network and holds the
        analytic figures).
    elements : ClusterElements
        The cluster networks' devices and links
        (:func:`planner.domain.networks.elements.network_elements`).
    routing, seed, size_bytes, fail_links, hash_seed, summary_only, on_progress, flowlets
        As :func:`planner.analyses.scenario.run_scenario`; ``size_bytes`` is what each node
        reads, ``fail_links`` fails random switch-to-switch links of the storage network.

    Returns
    -------
    dict
        The simulate job's keys (completion time, utilization, tiers, hot spots) and
        ``storage_read``: per-node read rate (``min``/``mean``/``max`` in GB/s and Gb/s),
        the bottleneck tiers, the analytic figure for every node at once and the gap.

    Raises
    ------
    JobInputError
        The design has no storage or converged network with storage-array ports (``traffic``),
        or a flow has no path after the failures (``fail_links``).

    Long because: its docstring documents ten parameters, and it goes from graph to result
    dict in one pass over the same arrays; the certificate and the full result's details are
    functions of their own.
    """
    progress = on_progress or (lambda *a, **k: None)
    network = read_network(fabric)
    if network is None:
        raise _missing()
    progress(0, 1, f"building the {network} network")
    net, node_ports, array_ports, node_of_port, readers, tier = storage_graph(elements, network)
    if fail_links:
        net = net.with_failures(random_links=int(fail_links), seed=seed)
    n_node_ports, n_array_ports = node_ports.size, array_ports.size
    ports_of = np.bincount(node_of_port, minlength=len(readers))
    src = np.tile(array_ports, n_node_ports)
    dst = np.repeat(node_ports, n_array_ports)
    reader_of_flow = np.repeat(node_of_port, n_array_ports)
    size = float(size_bytes) / (ports_of[reader_of_flow] * n_array_ports)
    flows = Flows(src, dst, size)
    progress(0, len(flows), f"simulating {len(flows):,} flows")
    hash_seed = seed if hash_seed is None else hash_seed
    result = simulate(
        net,
        flows,
        routing,
        seed=hash_seed,
        flowlets=flowlets,
        hot_spot_count=HOT_SPOTS,
        on_progress=progress,
    )
    per_reader_bps = np.bincount(reader_of_flow, weights=result.first_rates, minlength=len(readers))
    gbps = per_reader_bps / 1e9
    by_tier, bottleneck_tiers, worst = _certificate(
        net, flows, routing, hash_seed, flowlets, tier, gbps, reader_of_flow
    )
    analytic = ((fabric.settings.networks or {}).get(network) or {}).get("bandwidth") or {}
    expected = analytic.get("all_gbytes_per_node")
    got = float(gbps.min()) / BITS_PER_BYTE
    storage_read = {
        "network": network,
        "readers": len(readers),
        "node_ports": int(n_node_ports),
        "storage_array_ports": int(n_array_ports),
        "read_gbytes_per_node": {k: v / BITS_PER_BYTE for k, v in _stats(gbps).items()},
        "read_gbps_per_node": _stats(gbps),
        "bottleneck_tiers": bottleneck_tiers,
        "tiers": by_tier,
        "worst_node": readers[int(np.flatnonzero(worst)[0])],
        "analytic_all_gbytes_per_node": expected,
        "analytic_bottleneck": analytic.get("all_bottleneck"),
        "asked_gbytes_per_node": analytic.get("asked_gbytes_per_node"),
        "field": f"networks.{network}.read_gbytes_per_node",
        "units": "GB/s = 10^9 bytes/s = Gb/s / 8; line rate, protocol overhead not modelled",
    }
    if expected:
        storage_read["simulated_vs_analytic"] = got / float(expected)
    t = result.completion_time_s
    n_links = net.fabric_links
    util = np.maximum(result.link_util_avg[0 : 2 * n_links : 2], result.link_util_avg[1::2])
    out = {
        "traffic": "storage-read",
        "routing": canonical_routing(routing),
        "seed": hash_seed,
        "size_bytes": float(size_bytes),
        "ranks": len(readers),
        "flows": len(flows),
        "events": int(result.events),
        "failed_links": int((~net.alive[0::2]).sum()),
        "completion_time_s": float(t),
        "algbw_gbps": float(size_bytes) * BITS_PER_BYTE / t / 1e9 if t > 0 else 0.0,
        "max_link_utilization": float(util.max()) if util.size else 0.0,
        "storage_read": storage_read,
    }
    if summary_only:
        return out
    _add_details(out, result, net, flows, tier, util, elements.links_of(network))
    progress(1, 1, "simulated")
    return out


def _certificate(net, flows, routing, hash_seed, flowlets, tier, gbps, reader_of_flow):
    """The bottleneck certificate of the rates at the start, by tier: ``(by_tier,
    bottleneck_tiers, worst)``, ``worst`` marking the worst-served readers."""
    # the bottleneck certificate of the rates at the start: the saturated links and the
    # flows they hold back, by tier
    incidence = route(net, flows, routing, seed=hash_seed, flowlets=flowlets)
    capacity = np.where(net.alive, net.capacity, 0.0)
    rates, bottleneck = max_min_rates(incidence, capacity, return_bottleneck=True)
    load = incidence.T @ rates
    saturated = (capacity > 0) & (load >= capacity * (1 - SATURATED_RTOL))
    by_tier = {}
    for name in TIERS:
        mask = tier == name
        if mask.any():
            by_tier[name] = {
                "links": int(mask.sum()),
                "saturated_links": int((saturated & mask).sum()),
                "capacity_gbps": float(capacity[mask].sum() / 1e9),
                "max_utilization_at_start": float((load[mask] / capacity[mask]).max()),
                "flows_bottlenecked": int(np.isin(bottleneck, np.flatnonzero(mask)).sum()),
            }
    # bottleneck tiers: the saturated links on which a worst-served node's flow is among the
    # fastest (max-min's certificate: there it cannot get more without slowing a slower flow)
    worst = gbps <= gbps.min() * (1 + SATURATED_RTOL)
    rows, cols = incidence.nonzero()
    link_top = np.zeros(net.link_count)
    np.maximum.at(link_top, cols, rates[rows])
    held = (
        saturated[cols]
        & (rates[rows] >= link_top[cols] * (1 - SATURATED_RTOL))
        & worst[reader_of_flow[rows]]
    )
    limiting = set(tier[np.unique(cols[held])].tolist())
    bottleneck_tiers = [name for name in TIERS if name in limiting]
    return by_tier, bottleneck_tiers, worst


def _add_details(out: dict, result, net, flows, tier, util, links) -> None:
    """The full result's keys (``summary_only`` leaves them out): load per tier, the
    utilization histogram, the hot spots named by their ends, flow completion times."""
    tiers = {}
    for name in TIERS:
        mask = tier == name
        if mask.any():
            use = result.link_util_avg[mask]
            tiers[name] = {
                "links": int(mask.sum()),
                "capacity_gbps": float(net.capacity[mask].sum() / 1e9),
                "mean_utilization": float(use.mean()),
                "max_utilization": float(use.max()),
                "busy_links": int((use > 0).sum()),
            }
    out["per_tier_load"] = tiers
    out["links_reported"] = int((util > 0).sum())
    out["utilization_histogram"] = _histogram(util, np.linspace(0, 1, HISTOGRAM_BINS + 1))

    def end(index: int, start: bool) -> str:
        """``device 3/2`` at the start (or the end) of directed link ``index``
        (:func:`planner.domain.names.end_text`)."""
        link = links[index // 2]
        a_end = (index % 2 == 0) == start  # up (even) runs a -> b
        device, port = (link.a_device, link.a_port) if a_end else (link.b_device, link.b_port)
        return end_text(device, str(port))

    out["hot_spots"] = [
        {
            "link": spot["link"],
            "from": end(net.link_index(spot["link"]), True),
            "to": end(net.link_index(spot["link"]), False),
            "tier": str(tier[net.link_index(spot["link"])]) or "other",
            "utilization": spot["utilization"],
            "peak": spot["peak"],
            "bottlenecked_flows": len(spot["bottlenecked_flows"]),
        }
        for spot in result.hot_spots
    ]
    fct = np.asarray(result.finish - flows.start, dtype=float)
    top = float(fct.max()) if fct.size else 0.0
    out["fct"] = {
        **{k: result.fct.get(k) for k in ("p50", "p90", "p99", "max")},
        "histogram": _histogram(fct, np.linspace(0, top or 1.0, HISTOGRAM_BINS + 1)),
    }


__all__ = ["READ_NETWORKS", "read_network", "run_storage_read", "storage_graph"]
