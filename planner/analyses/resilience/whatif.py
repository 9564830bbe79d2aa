"""What if an element or a domain fails (issue 24): the GPUs it cuts off, the GPUs it degrades,
the capacity lost per tier, the bisection left and the blast radius; and, as a job, one
collective before and after the failure on the flow simulator.

The failed set
--------------
A list of ids, each one of:

- ``node:<name>``: a device (switch or server) by name, as the canvas names it;
- ``link:<i>``: one link (fabric link index, as the canvas names it);
- ``cable:<i>``: every link of one cable assembly (``fabric.link_cable``; a breakout cable
  carries several links);
- ``<kind>:<id>`` with a kind of :data:`~planner.analyses.resilience.domains.DOMAIN_KINDS`:
  ``rack:R001-01``, ``row:R001``, ``hall:B1``, ``feed:A``, ``pdu:R001-01/A``, ``plane:1``,
  ``su:1``, ``pod:1``, ``tier:spine``. What a domain takes down is
  :func:`~planner.analyses.resilience.domains.lost_nodes_mask` (a device on two feeds stays
  up when one fails).

An unknown id raises :class:`~planner.analyses.errors.JobInputError` with ``field`` ``failed``
and the id in ``element_ids`` (the API answers 400 naming it).

What is lost
------------
Nodes down: the failed devices and the members of failed domains. Links down: the failed
links and cables and every link with an end down. Each GPU owns its server's NIC links as the
flow simulator shares them out (:class:`~planner.analyses.flow.Network`: a server's NIC links
in port order, ``k`` per GPU, link ``p`` of a GPU on plane ``p``); on a server whose NIC links
do not divide evenly between its GPUs, every GPU shares every link. Then per GPU:

- ``lost``: every NIC link down (the GPU has no fabric connectivity; a server down loses all);
- ``leaf_only``: a NIC link up, but every live one ends on a leaf with no live uplink, in a
  fabric that has uplinks: it reaches only GPUs on its own leaf;
- ``degraded``: neither, with some of its NIC links (ports) down.

Capacity lost per tier is the capacity of the links down, per tier of
:data:`~planner.analyses.resilience.domains.CAPACITY_TIERS` (server-to-leaf: server links),
in Tb/s. Per leaf still up, the share of its uplink capacity left. The bisection is measured
by max-flow on the switch-level graph (:mod:`planner.analyses.resilience.graph`) before and
after, halves re-drawn over the live server links.

Everything is NumPy over the fabric's columns (no loop per node, link or GPU).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse.csgraph import maximum_flow

from planner.analyses.errors import JobInputError
from planner.analyses.resilience.domains import (
    CAPACITY_TIERS,
    DOMAIN_KINDS,
    KIND_LABELS,
    DomainIndex,
    _tier_capacity,
    domain_index,
    gpus_per_server,
    lost_nodes_mask,
)
from planner.analyses.resilience.graph import bisection_formula_gbps, switch_graph
from planner.domain.fabric import ROLE, Fabric
from planner.domain.names import Names

#: Kinds of element id besides the domain kinds.
ELEMENT_KINDS = ("node", "link", "cable")
#: At most this many ids in each list of the blast radius (the counts are always whole).
LISTED = 20_000
#: The collectives the what-if job runs (ring all-reduce or all-to-all).
COLLECTIVES = ("all-reduce", "all-to-all")
#: All-to-all runs inside groups of at most this many ranks, as the simulate job's does
#: (:data:`planner.analyses.scenario.ALL_TO_ALL_GROUP`).
ALL_TO_ALL_GROUP = 512


def _unknown(element: str, why: str) -> JobInputError:
    return JobInputError(f"failed: {why} ({element!r})", field="failed", element_ids=[element])


def parse_failed(
    fabric: Fabric, failed: list[str], *, index: DomainIndex | None = None
) -> tuple[np.ndarray, np.ndarray, DomainIndex]:
    """Nodes down (mask) and links failed by id (mask, before the links of nodes down) of the
    failed set (see the module docstring).

    Raises
    ------
    JobInputError
        An id of no known form, or naming no element or domain of this fabric (``field``
        ``failed``, the id in ``element_ids``).
    """
    if not failed:
        raise JobInputError(
            "failed: name at least one element or domain (node:<name>, link:<i>, rack:<name>…)",
            field="failed",
        )
    index = index or domain_index(fabric)
    down = np.zeros(fabric.node_count, dtype=bool)
    links = np.zeros(fabric.link_count, dtype=bool)
    names: dict[str, int] | None = None
    domains: list[tuple[str, str]] = []
    for element in failed:
        if not isinstance(element, str) or ":" not in element:
            raise _unknown(str(element), "give kind:id, e.g. node:spine-01 or rack:R001-01")
        kind, _, ident = element.partition(":")
        if kind == "node":
            if names is None:
                names = {name: i for i, name in enumerate(fabric.node_name)}
            if ident not in names:
                raise _unknown(element, "no device of that name in this design")
            down[names[ident]] = True
        elif kind in ("link", "cable"):
            number = int(ident) if ident.isdigit() else -1
            if kind == "link":
                if not 0 <= number < fabric.link_count:
                    raise _unknown(
                        element, f"no link of that number (0 to {fabric.link_count - 1})"
                    )
                links[number] = True
            else:
                cable = fabric.link_cable
                hit = (cable == number) if (cable is not None and number >= 0) else None
                if hit is None or not hit.any():
                    raise _unknown(element, "no cable of that number in this design")
                links |= hit
        elif kind in DOMAIN_KINDS:
            try:
                index.position(kind, ident)
            except KeyError:
                raise _unknown(element, f"no {kind} of that name in this design") from None
            domains.append((kind, ident))
        else:
            kinds = ", ".join((*ELEMENT_KINDS, *DOMAIN_KINDS))
            raise _unknown(element, f"unknown kind {kind!r}; kinds: {kinds}")
    if domains:
        down |= lost_nodes_mask(fabric, domains, index=index)
    return down, links, index


def gpu_links(fabric: Fabric) -> tuple[np.ndarray, np.ndarray]:
    """Per GPU the NIC links it owns, as pairs ``(gpu, link)`` (see the module docstring):
    GPUs numbered server by server, as the flow simulator numbers them."""
    role = fabric.node_role
    servers = np.flatnonzero(role == ROLE["server"])
    per = gpus_per_server(fabric)
    if not servers.size or not per:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ordinal = np.full(fabric.node_count, -1, dtype=np.int64)
    ordinal[servers] = np.arange(servers.size)
    a = fabric.link_a
    nic = np.flatnonzero(ordinal[a] >= 0)
    nic = nic[np.lexsort((fabric.link_a_port[nic], ordinal[a[nic]]))]
    owner = ordinal[a[nic]]
    counts = np.bincount(owner, minlength=servers.size)
    rank = np.arange(nic.size) - (np.cumsum(counts) - counts)[owner]
    even = (counts % per == 0) & (counts > 0)
    k = np.where(even, counts // per, 1)
    own = even[owner]
    # even servers: link r of the server belongs to GPU r // k; others: to every GPU
    gpu_even = owner[own] * per + rank[own] // k[owner[own]]
    odd_links = nic[~own]
    odd_owner = owner[~own]
    gpu_odd = np.repeat(odd_owner * per, per) + np.tile(np.arange(per), odd_owner.size)
    link_odd = np.repeat(odd_links, per)
    return (
        np.concatenate([gpu_even, gpu_odd]).astype(np.int64),
        np.concatenate([nic[own], link_odd]).astype(np.int64),
    )


@dataclass
class WhatIf:
    """What :func:`what_if` finds; :meth:`as_dict` for the API, the page and the job."""

    failed: list[str]
    nodes_down: np.ndarray  # node indices
    links_down: np.ndarray  # link indices
    gpu_state: np.ndarray  # per GPU: 0 fine, 1 degraded, 2 leaf only, 3 lost
    gpu_server: np.ndarray  # per GPU: its server's node index
    capacity_gbps: dict[str, int]
    lost_gbps: dict[str, int]
    leaves_degraded: np.ndarray  # leaves up that lost uplink capacity
    leaf_uplink_left: dict
    bisection: dict
    notes: list[str] = field(default_factory=list)

    @property
    def gpus_lost(self) -> int:
        return int((self.gpu_state == 3).sum())

    @property
    def gpus_leaf_only(self) -> int:
        return int((self.gpu_state == 2).sum())

    @property
    def gpus_degraded(self) -> int:
        return int((self.gpu_state == 1).sum())

    def servers_in_state(self, state: int) -> np.ndarray:
        """Servers with at least one GPU in ``state`` (and none worse)."""
        if not self.gpu_state.size:
            return np.zeros(0, dtype=np.int64)
        worst = np.zeros(int(self.gpu_server.max()) + 1, dtype=np.int8)
        np.maximum.at(worst, self.gpu_server, self.gpu_state.astype(np.int8))
        return np.flatnonzero(worst == state)

    def as_dict(self, fabric: Fabric, *, listed: int = LISTED) -> dict:
        names = fabric.node_name

        def node_ids(nodes: np.ndarray) -> dict:
            shown = nodes[:listed].tolist()
            return {"count": int(nodes.size), "ids": [f"node:{names[n]}" for n in shown]}

        tiers = {}
        for tier in CAPACITY_TIERS:
            total = self.capacity_gbps.get(tier, 0)
            if not total:
                continue
            lost = self.lost_gbps.get(tier, 0)
            tiers[tier] = {
                "capacity_tbps": total / 1000,
                "lost_tbps": lost / 1000,
                "left_tbps": (total - lost) / 1000,
                "share_lost": round(lost / total, 6),
            }
        links = self.links_down
        return {
            "failed": list(self.failed),
            "failed_names": failed_names(fabric, self.failed),
            "gpus": {
                "total": int(self.gpu_state.size),
                "lost": self.gpus_lost,
                "leaf_only": self.gpus_leaf_only,
                "degraded": self.gpus_degraded,
                "unaffected": int((self.gpu_state == 0).sum()),
            },
            "bandwidth_lost": tiers,
            "leaf_uplink_left": dict(self.leaf_uplink_left),
            "bisection": dict(self.bisection),
            "blast_radius": {
                "nodes_down": node_ids(self.nodes_down),
                "links_down": {
                    "count": int(links.size),
                    "ids": [f"link:{i}" for i in links[:listed].tolist()],
                },
                "servers_lost": node_ids(self.servers_in_state(3)),
                "servers_leaf_only": node_ids(self.servers_in_state(2)),
                "servers_degraded": node_ids(self.servers_in_state(1)),
                "leaves_degraded": node_ids(self.leaves_degraded),
                "listed_at_most": listed,
            },
            "notes": list(self.notes),
        }


def failed_names(fabric: Fabric, failed: list[str]) -> list[str]:
    """The failed ids in words, in order (:mod:`planner.domain.names`): a device by its name,
    a link by its ends (``leaf-su001-r1 3/2 → spine-001-002 11/1``), a cable by its first
    link, a domain by its kind (``Rack R001-01``, ``Scalable unit 2``); never an element id."""
    names = Names(fabric)
    out = []
    for element in failed:
        kind, _, ident = str(element).partition(":")
        if kind == "cable" and ident.isdigit() and fabric.link_cable is not None:
            links = np.flatnonzero(fabric.link_cable == int(ident))
            text = f"the cable of {names.link(int(links[0]))}" if links.size else "a cable"
            more = int(links.size) - 1
            out.append(f"{text} (and {more:,} more link{'s' * (more != 1)})" if more else text)
        elif kind in KIND_LABELS:
            out.append(f"{KIND_LABELS[kind]} {ident}")
        else:
            out.append(names.element(element))
    return out


def _bisection_gbps(fabric: Fabric, failed_nodes=None, failed_links=None) -> float:
    """Max-flow between the two halves of the live GPUs (see :mod:`.graph`)."""
    g = switch_graph(fabric, failed_nodes=failed_nodes, failed_links=failed_links)
    if not (g.leaf_a_gbps.any() and g.leaf_b_gbps.any()):
        return 0.0
    matrix = g.matrix(g.edge_gbps, terminals=True)
    return float(maximum_flow(matrix, g.size, g.size + 1, method="dinic").flow_value)


def gpu_states(fabric: Fabric, link_dead: np.ndarray, node_down: np.ndarray) -> np.ndarray:
    """Per GPU 0 fine, 1 degraded, 2 leaf only, 3 lost (see the module docstring), given the
    links and nodes down."""
    gpu, link = gpu_links(fabric)
    gpus = int(fabric.info.get("gpus") or 0)
    if not gpus or not gpu.size:
        return np.zeros(gpus, dtype=np.int8)
    role = fabric.node_role
    a, b = fabric.link_a, fabric.link_b
    is_switch = np.isin(role, (ROLE["spine"], ROLE["core"]))
    uplink = (role[a] == ROLE["leaf"]) & is_switch[b]
    live_up = np.bincount(a[uplink & ~link_dead], minlength=fabric.node_count)
    has_uplinks = bool(uplink.any())
    dead = link_dead[link]
    onward = ~dead & ((live_up[b[link]] > 0) | (not has_uplinks) | (role[b[link]] != ROLE["leaf"]))
    total = np.bincount(gpu, minlength=gpus)
    n_dead = np.bincount(gpu, weights=dead, minlength=gpus)
    n_onward = np.bincount(gpu, weights=onward, minlength=gpus)
    state = np.zeros(gpus, dtype=np.int8)
    state[(n_dead > 0) & (total > 0)] = 1
    state[(n_onward == 0) & (n_dead < total)] = 2
    state[(n_dead == total) & (total > 0)] = 3
    return state


def what_if(
    fabric: Fabric,
    failed: list[str],
    *,
    index: DomainIndex | None = None,
    bisection_before_gbps: float | None = None,
) -> WhatIf:
    """What fails with ``failed`` (see the module docstring). ``bisection_before_gbps``: the
    intact fabric's measured bisection when already known (else measured here).

    Raises
    ------
    JobInputError
        An unknown id (``field`` ``failed``, the id in ``element_ids``).
    """
    down, failed_links, index = parse_failed(fabric, list(failed), index=index)
    a, b = fabric.link_a, fabric.link_b
    link_dead = failed_links | down[a] | down[b]
    state = gpu_states(fabric, link_dead, down)
    per = gpus_per_server(fabric)
    servers = np.flatnonzero(fabric.node_role == ROLE["server"])
    gpu_server = np.repeat(servers, per)[: state.size] if per else np.zeros(0, dtype=np.int64)
    links_down = np.flatnonzero(link_dead)
    role = fabric.node_role
    # leaves up: their uplink capacity before and after
    uplink = (role[a] == ROLE["leaf"]) & np.isin(role[b], (ROLE["spine"], ROLE["core"]))
    speed = fabric.link_speed_gbps.astype(np.float64)
    before = np.bincount(a[uplink], weights=speed[uplink], minlength=fabric.node_count)
    alive_up = uplink & ~link_dead
    after = np.bincount(a[alive_up], weights=speed[alive_up], minlength=fabric.node_count)
    leaves = np.flatnonzero((role == ROLE["leaf"]) & ~down & (before > 0))
    share = after[leaves] / before[leaves] if leaves.size else np.zeros(0)
    leaves_degraded = leaves[share < 1 - 1e-12]
    leaf_uplink = {
        "leaves": int(leaves.size),
        "leaves_degraded": int(leaves_degraded.size),
        "min_share": round(float(share.min()), 6) if share.size else None,
        "mean_share": round(float(share.mean()), 6) if share.size else None,
    }
    measured_before = (
        float(bisection_before_gbps)
        if bisection_before_gbps is not None
        else _bisection_gbps(fabric)
    )
    measured_after = _bisection_gbps(
        fabric, failed_nodes=np.flatnonzero(down), failed_links=np.flatnonzero(failed_links)
    )
    bisection = {
        "before_gbps": measured_before,
        "after_gbps": measured_after,
        "formula_after_gbps": float(bisection_formula_gbps(fabric, ~link_dead)),
        "share_left": round(measured_after / measured_before, 6) if measured_before else None,
    }
    notes = []
    if per and servers.size and int(fabric.info.get("gpus") or 0) % servers.size:
        notes.append("GPUs do not divide evenly between servers: counted per whole server")
    return WhatIf(
        failed=list(failed),
        nodes_down=np.flatnonzero(down),
        links_down=links_down,
        gpu_state=state,
        gpu_server=gpu_server,
        capacity_gbps=_tier_capacity(fabric),
        lost_gbps=_tier_capacity(fabric, links_down),
        leaves_degraded=leaves_degraded,
        leaf_uplink_left=leaf_uplink,
        bisection=bisection,
        notes=notes,
    )


# --- the job: one collective before and after -----------------------------------------------


def _collective_flows(net, ranks: np.ndarray, traffic: str, size_bytes: float):
    """Flows of ``traffic`` over ``ranks`` (GPU indices of ``net``): the ring in rail order (GPU
    k of every server, then k+1, as the simulate job orders it), all-to-all in groups of at
    most :data:`ALL_TO_ALL_GROUP` consecutive ranks."""
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.traffic import all_to_all, ring_allreduce

    if traffic == "all-reduce":
        order = np.lexsort((net.gpu_ordinal[ranks], net.gpu_local[ranks]))
        return ring_allreduce(ranks[order], size_bytes)
    n = ranks.size
    group = max(d for d in range(1, min(n, ALL_TO_ALL_GROUP) + 1) if n % d == 0)
    return all_to_all(ranks, size_bytes, group=group)


def _run(net, ranks, traffic, size_bytes, routing, seed, flowlets) -> dict:
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.flow import RoutingError, simulate
    from planner.analyses.traffic import BUSBW_FACTOR

    n = int(ranks.size)
    out = {"ranks": n}
    if n < 2:
        out["error"] = "fewer than 2 GPUs keep a fabric path: nothing to run"
        return out
    flows = _collective_flows(net, ranks, traffic, size_bytes)
    try:
        result = simulate(net, flows, routing, seed=seed, flowlets=flowlets)
    except RoutingError as exc:
        out["error"] = str(exc)
        return out
    t = float(result.completion_time_s)
    algbw = size_bytes * 8 / t / 1e9 if t > 0 else 0.0
    out.update(
        flows=len(flows),
        completion_time_s=t,
        algbw_gbps=algbw,
        busbw_gbps=algbw * BUSBW_FACTOR[traffic](n),
    )
    return out


def run_whatif(
    fabric: Fabric,
    *,
    failed: list[str],
    traffic: str = "all-reduce",
    size_bytes: float = 1e9,
    routing: str | None = None,
    seed: int = 0,
    flowlets: int | None = None,
    on_progress: Callable[..., None] | None = None,
) -> dict:
    """The what-if job: :func:`what_if`, then ``traffic`` (ring all-reduce or all-to-all of
    ``size_bytes`` per GPU) on the flow simulator over every GPU before the failure and over
    the GPUs still whole after it (not lost, not leaf-only, no NIC port down: the simulator
    splits a GPU's flows evenly over its ports), the failed links removed and the traffic
    re-routed by ``routing`` (a mode; ``None``: the design's,
    :func:`planner.analyses.scenario.transport_defaults`).

    Returns ``{"whatif": WhatIf.as_dict(), "traffic", "routing", "size_bytes", "before",
    "after", "slowdown"}``; ``before`` / ``after``: ``ranks``, ``flows``,
    ``completion_time_s``, ``algbw_gbps``, ``busbw_gbps`` (or ``error`` when no run is
    possible, e.g. the fabric is cut).
    """
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.flow import FLOWLETS_DEFAULT, Network, canonical_routing
    from planner.analyses.scenario import transport_defaults

    if traffic not in COLLECTIVES:
        raise JobInputError(f"traffic: one of {', '.join(COLLECTIVES)}", field="traffic")
    progress = on_progress or (lambda *a, **k: None)
    routing = canonical_routing(routing or transport_defaults(fabric.settings.transport).routing)
    if routing == "flowlet" and flowlets is None:
        flowlets = FLOWLETS_DEFAULT
    progress(0, 3, "finding what fails")
    found = what_if(fabric, failed)
    net = Network.from_fabric(fabric)
    dead = np.zeros(fabric.link_count, dtype=bool)
    dead[found.links_down] = True
    # per simulator GPU: whole when every NIC link is up and leads onward
    gpu_dead = dead[net.gpu_nics].any(axis=1)
    state = found.gpu_state if found.gpu_state.size == net.gpu_count else None
    keep = ~gpu_dead if state is None else (~gpu_dead & (state == 0))
    every = np.arange(net.gpu_count)
    progress(1, 3, f"simulating {traffic} on {net.gpu_count:,} GPUs before the failure")
    before = _run(net, every, traffic, float(size_bytes), routing, seed, flowlets)
    after_net = net.with_failures(links=found.links_down.tolist())
    progress(2, 3, f"simulating {traffic} on {int(keep.sum()):,} GPUs after the failure")
    after = _run(after_net, every[keep], traffic, float(size_bytes), routing, seed, flowlets)
    progress(3, 3, "simulated")
    slowdown = None
    if before.get("completion_time_s") and after.get("completion_time_s"):
        slowdown = after["completion_time_s"] / before["completion_time_s"]
    return {
        "whatif": found.as_dict(fabric, listed=2_000),
        "traffic": traffic,
        "routing": routing,
        **({"flowlets": int(flowlets)} if routing == "flowlet" else {}),
        "seed": seed,
        "size_bytes": float(size_bytes),
        "before": before,
        "after": after,
        "left_out": int(net.gpu_count - keep.sum()),
        "slowdown": slowdown,
    }


__all__ = [
    "COLLECTIVES",
    "ELEMENT_KINDS",
    "WhatIf",
    "gpu_links",
    "gpu_states",
    "parse_failed",
    "run_whatif",
    "what_if",
]
