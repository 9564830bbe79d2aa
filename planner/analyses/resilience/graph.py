"""Graph measurements of a fabric on its switch-level graph.

The graph (:func:`switch_graph`) has the switches as nodes and one edge per pair of
switches joined by links, the parallel links aggregated (NumPy: a sort of the pair keys, no
loop per link) into ``links`` (how many) and ``gbps`` (their capacity). Servers are not nodes:
each leaf carries the capacity of its live server links as the GPUs' access. Even at 1M GPUs
that is a few thousand nodes. Failed nodes and links (``failed_nodes``, ``failed_links``)
are left out, so a damaged fabric is measured the same way.

Measurements (:func:`measure_graph`)
    Bisection
        Max-flow between two halves of the GPUs, each GPU link sending at its speed: the
        servers in node order (scalable units, pods and blocks in order, as the generators
        number them) fill half A until it holds half of all server-link capacity (the
        boundary server's links split, one link possibly in part), the rest is half B. A
        super source feeds every leaf with the capacity of A's links on it and every leaf
        drains B's links into a super sink; switch-to-switch edges carry their capacity each
        way. This is the cut the summary's formula assumes (one half of the servers against
        the other, across the tiers), so on a balanced published design the two agree; on a
        damaged one the flow sees where the capacity was lost, the formula only how much.
        Formula: the summary's ``bisection_gbps``, the smallest tier's capacity over two
        (:func:`bisection_formula_gbps`, the same rule on the live links); non-blocking: half
        of all server-link capacity.
    Edge connectivity between leaves
        The smallest number of links whose loss separates two leaves of one plane, minimum
        over every pair of leaves of the plane (planes share no switch, so pairs in two
        planes are not counted). Exact, with few max-flows: (1) for any fixed leaf ``s``, the
        minimum over all pairs equals the minimum over ``v`` of ``λ(s, v)`` (a minimum cut
        between ``u`` and ``v`` separates ``s`` from one of them); (2) two leaves with the
        same neighbours over the same numbers of links are twins: swapping them is an
        automorphism of the graph that fixes ``s``, so ``λ(s, v)`` is the same for every twin
        ``v``. One max-flow per twin class therefore covers every pair: a balanced two-tier
        fabric is one class (every leaf has the same links to every spine), a three-tier one
        about a class per pod; a leaf that lost links becomes a class of its own.
    Path classes, hop counts and diameter
        From leaf ``s``, per class of GPU pair (same leaf; another leaf of the same pod, or
        of the plane in two tiers; a leaf of another pod): links on the shortest GPU-to-GPU
        path (switch hops + 2), switches crossed, and edge-disjoint paths between the two
        leaves (the same max-flow; the smallest over the class). The diameter of each
        plane's switch graph is networkx's (``usebounds``); GPU-to-GPU hops at most are the
        largest leaf-to-leaf distance (one breadth-first search per twin class) + 2, against
        the summary's ``max_hops`` (2 per tier).

Max-flows run on SciPy's compiled solver (``scipy.sparse.csgraph.maximum_flow``, Dinic) over
the same aggregated edges, integer Gb/s or link counts; networkx's own ``maximum_flow`` gives
the same values (a unit test compares them on small fabrics) but is too slow for the twin
classes of a 100,000-GPU fabric.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_flow, shortest_path

from planner.domain.fabric import ROLE, ROLES, TIER, Fabric

SWITCH_CODES = (ROLE["leaf"], ROLE["spine"], ROLE["core"])


@dataclass
class SwitchGraph:
    """The switch-level graph of a (possibly damaged) fabric.

    ``switches`` are the fabric node indices of the live switches, in order; compact index
    ``i`` is ``switches[i]``. ``edge_u < edge_v`` (compact), ``edge_links`` and ``edge_gbps``
    per aggregated edge. ``leaf_a_gbps`` / ``leaf_b_gbps``: per compact switch, the capacity
    of half A's / half B's server links on it (leaves only; see the module docstring);
    ``halves`` describes the split. ``graph`` is the same as a networkx ``Graph`` whose nodes
    are fabric node indices (attributes ``name``, ``role``, ``plane``, ``pod``) and whose edges
    carry ``links`` and ``gbps``.
    """

    switches: np.ndarray
    role: np.ndarray
    plane: np.ndarray
    pod: np.ndarray
    edge_u: np.ndarray
    edge_v: np.ndarray
    edge_links: np.ndarray
    edge_gbps: np.ndarray
    leaf_a_gbps: np.ndarray
    leaf_b_gbps: np.ndarray
    server_gbps: int
    halves: dict
    names: list[str] = field(default_factory=list, repr=False)
    _graph: nx.Graph | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        return int(self.switches.size)

    @property
    def graph(self) -> nx.Graph:
        """The graph as a networkx ``Graph`` (built on first use: about 1 s per 100,000
        aggregated edges): nodes are fabric node indices with ``name``, ``role``, ``plane``
        and ``pod``; edges carry ``links`` and ``gbps``."""
        if self._graph is None:
            graph = nx.Graph()
            graph.add_nodes_from(
                (int(node), {"name": self.names[node], "role": ROLES[r], "plane": p, "pod": q})
                for node, r, p, q in zip(
                    self.switches.tolist(),
                    self.role.tolist(),
                    self.plane.tolist(),
                    self.pod.tolist(),
                    strict=True,
                )
            )
            graph.add_edges_from(
                (x, y, {"links": c, "gbps": w})
                for x, y, c, w in zip(
                    self.switches[self.edge_u].tolist(),
                    self.switches[self.edge_v].tolist(),
                    self.edge_links.tolist(),
                    self.edge_gbps.tolist(),
                    strict=True,
                )
            )
            self._graph = graph
        return self._graph

    def matrix(self, weights: np.ndarray, *, terminals: bool = False) -> csr_matrix:
        """Both directions of every edge with ``weights`` as integer capacities; with
        ``terminals`` also a super source (index ``size``) to every leaf carrying half A and
        a super sink (``size + 1``) from every leaf carrying half B."""
        n = self.size + (2 if terminals else 0)
        rows = [self.edge_u, self.edge_v]
        cols = [self.edge_v, self.edge_u]
        data = [weights, weights]
        if terminals:
            a = np.flatnonzero(self.leaf_a_gbps)
            b = np.flatnonzero(self.leaf_b_gbps)
            rows += [np.full(a.size, self.size), b]
            cols += [a, np.full(b.size, self.size + 1)]
            data += [self.leaf_a_gbps[a], self.leaf_b_gbps[b]]
        return csr_matrix(
            (
                np.concatenate(data).astype(np.int32),
                (np.concatenate(rows).astype(np.int32), np.concatenate(cols).astype(np.int32)),
            ),
            shape=(n, n),
        )


def _alive_links(fabric: Fabric, failed_nodes, failed_links) -> np.ndarray:
    alive = np.ones(fabric.link_count, dtype=bool)
    if failed_links is not None and len(failed_links):
        alive[np.asarray(failed_links, dtype=np.int64)] = False
    if failed_nodes is not None and len(failed_nodes):
        down = np.zeros(fabric.node_count, dtype=bool)
        down[np.asarray(failed_nodes, dtype=np.int64)] = True
        alive &= ~(down[fabric.link_a] | down[fabric.link_b])
    return alive


def switch_graph(fabric: Fabric, *, failed_nodes=None, failed_links=None) -> SwitchGraph:
    """The switch-level graph of ``fabric`` without ``failed_nodes`` and ``failed_links``
    (fabric node and link indices; see the module docstring)."""
    role = fabric.node_role
    is_switch = np.isin(role, SWITCH_CODES)
    down = np.zeros(fabric.node_count, dtype=bool)
    if failed_nodes is not None and len(failed_nodes):
        down[np.asarray(failed_nodes, dtype=np.int64)] = True
    switches = np.flatnonzero(is_switch & ~down).astype(np.int32)
    compact = np.full(fabric.node_count, -1, dtype=np.int64)
    compact[switches] = np.arange(switches.size)
    alive = _alive_links(fabric, failed_nodes, failed_links)
    a, b = fabric.link_a, fabric.link_b
    between = alive & (compact[a] >= 0) & (compact[b] >= 0)
    u, v = compact[a[between]], compact[b[between]]
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    n = max(1, int(switches.size))
    key = lo * n + hi
    order = np.argsort(key, kind="stable")
    key = key[order]
    speed = fabric.link_speed_gbps[between][order].astype(np.int64)
    if key.size:
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        pairs = key[starts]
        links = np.diff(np.r_[starts, key.size])
        gbps = np.add.reduceat(speed, starts)
    else:
        pairs = links = gbps = np.zeros(0, dtype=np.int64)
    edge_u, edge_v = pairs // n, pairs % n
    leaf_a, leaf_b, server_gbps, halves = _halves(fabric, alive, compact, switches.size)
    pod = np.where(
        role[switches] == ROLE["spine"], fabric.node_su[switches], fabric.node_group[switches]
    )
    return SwitchGraph(
        switches=switches,
        role=role[switches],
        plane=fabric.node_plane[switches],
        pod=pod,
        edge_u=edge_u.astype(np.int64),
        edge_v=edge_v.astype(np.int64),
        edge_links=links.astype(np.int64),
        edge_gbps=gbps.astype(np.int64),
        leaf_a_gbps=leaf_a,
        leaf_b_gbps=leaf_b,
        server_gbps=server_gbps,
        halves=halves,
        names=fabric.node_name,
    )


def _halves(fabric: Fabric, alive: np.ndarray, compact: np.ndarray, size: int):
    """Half A (the first servers in node order, to half of all server-link capacity) and
    half B, as capacity per leaf."""
    role = fabric.node_role
    mask = (
        alive & (fabric.link_tier == TIER["server-leaf"]) & (role[fabric.link_a] == ROLE["server"])
    )
    mask &= compact[fabric.link_b] >= 0
    links = np.flatnonzero(mask)
    links = links[np.argsort(fabric.link_a[links], kind="stable")]
    speed = fabric.link_speed_gbps[links].astype(np.int64)
    total = int(speed.sum())
    half = total // 2
    before = np.cumsum(speed) - speed
    a_part = np.clip(half - before, 0, speed)
    b_part = speed - a_part
    leaf = compact[fabric.link_b[links]]
    leaf_a = np.bincount(leaf, weights=a_part, minlength=size).astype(np.int64)
    leaf_b = np.bincount(leaf, weights=b_part, minlength=size).astype(np.int64)
    halves = {"gbps_each": half, "a": "", "b": ""}
    if links.size:
        server = fabric.link_a[links]
        servers = np.flatnonzero(role == ROLE["server"])
        position = np.searchsorted(servers, server)  # 0-based server number
        a_of = np.bincount(position, weights=a_part, minlength=servers.size)
        b_of = np.bincount(position, weights=b_part, minlength=servers.size)
        whole_a = int(((a_of > 0) & (b_of == 0)).sum())
        shared = bool(((a_of > 0) & (b_of > 0)).any())
        last_a = int(np.flatnonzero(a_of > 0).max()) if (a_of > 0).any() else -1
        halves["a"] = _describe(fabric, servers, whole_a, last_a, shared)
        halves["b"] = "the other servers" + (" and the rest of that one" if shared else "")
    return leaf_a, leaf_b, total, halves


def _describe(fabric: Fabric, servers: np.ndarray, whole: int, last: int, shared: bool) -> str:
    """``"servers 1–64 (SU 1–2)"`` or ``"servers 1–63 and part of server 64 (SU 1–2)"``."""
    if last < 0:
        return "no server"
    text = f"servers 1–{whole}" if whole else ""
    if shared:
        text += (" and part of " if text else "part of ") + f"server {last + 1}"
    su = fabric.node_su[servers[: last + 1]]
    if fabric.info.get("topology") == "rail-optimized" and su.size and su.min() >= 0:
        first, final = int(su.min()) + 1, int(su.max()) + 1
        text += f" (SU {first}–{final})" if final > first else f" (SU {first})"
    return text


def bisection_formula_gbps(fabric: Fabric, alive: np.ndarray | None = None) -> float:
    """The summary's bisection (:func:`planner.domain.summary.summarize`'s
    ``bisection_gbps``) on the live links: the smallest capacity of a tier that has links
    (server-to-leaf: server links only), over two."""
    alive = np.ones(fabric.link_count, dtype=bool) if alive is None else alive
    tiers = fabric.link_tier
    server = fabric.node_role[fabric.link_a] == ROLE["server"]
    speed = fabric.link_speed_gbps.astype(np.int64)
    present = []
    for name in ("server-leaf", "leaf-spine", "spine-core"):
        in_tier = alive & (tiers == TIER[name])
        if not in_tier.any():
            continue
        mask = in_tier & server if name == "server-leaf" else in_tier
        present.append(int(speed[mask].sum()))
    return min(present) / 2 if present else 0


def _eccentricity(adjacency: csr_matrix, sources: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Per source, the largest hop count to any of ``targets`` (``-1``: some target is not
    reached). Breadth-first searches from many sources at once, as sparse products of the
    adjacency matrix with the frontier (about 1 ms per source at 3,000 switches)."""
    out = np.zeros(sources.size, dtype=np.int64)
    adjacency = (adjacency > 0).astype(np.float32).tocsr()
    n = adjacency.shape[0]
    for start in range(0, sources.size, 512):
        batch = sources[start : start + 512]
        frontier = np.zeros((n, batch.size), dtype=np.float32)
        frontier[batch, np.arange(batch.size)] = 1
        reached = frontier > 0
        ecc = np.zeros(batch.size, dtype=np.int64)
        step = 0
        while True:
            step += 1
            new = ((adjacency @ frontier) > 0) & ~reached
            if not new.any():
                break
            hit = new[targets].any(axis=0)
            ecc[hit] = step
            reached |= new
            frontier = new.astype(np.float32)
        ecc[~reached[targets].all(axis=0)] = -1
        out[start : start + batch.size] = ecc
    return out


def _flow(matrix: csr_matrix, source: int, sink: int) -> int:
    return int(maximum_flow(matrix, source, sink, method="dinic").flow_value)


def _twin_classes(g: SwitchGraph, leaves: np.ndarray) -> list[np.ndarray]:
    """Switches (``leaves``: any compact indices) grouped by identical neighbourhoods
    (neighbour and link count): twins, which an automorphism swaps."""
    ends = np.concatenate([g.edge_u, g.edge_v])
    other = np.concatenate([g.edge_v, g.edge_u])
    count = np.concatenate([g.edge_links, g.edge_links])
    is_leaf = np.zeros(g.size, dtype=bool)
    is_leaf[leaves] = True
    keep = is_leaf[ends]
    ends, other, count = ends[keep], other[keep], count[keep]
    order = np.lexsort((other, ends))
    ends, other, count = ends[order], other[order], count[order]
    starts = np.searchsorted(ends, leaves, side="left")
    stops = np.searchsorted(ends, leaves, side="right")
    classes: dict[tuple, list[int]] = {}
    for leaf, start, stop in zip(leaves.tolist(), starts.tolist(), stops.tolist(), strict=True):
        signature = (other[start:stop].tobytes(), count[start:stop].tobytes())
        classes.setdefault(signature, []).append(leaf)
    return [np.array(members) for members in classes.values()]


@dataclass
class GraphMeasures:
    """What :func:`measure_graph` finds; :meth:`as_dict` for pages, the API and the CLI."""

    switches: int
    edges: int
    links: int
    nonblocking_gbps: float
    formula_gbps: float
    measured_gbps: float
    halves: dict
    planes: list[dict]
    max_hops_formula: int
    max_hops_measured: int | None
    failed_nodes: int = 0
    failed_links: int = 0

    @property
    def agrees(self) -> bool:
        """Measured bisection equals the formula (to 1 Gb/s)."""
        return abs(self.measured_gbps - self.formula_gbps) < 1

    def as_dict(self) -> dict:
        return {
            "switches": self.switches,
            "edges": self.edges,
            "switch_links": self.links,
            "bisection": {
                "nonblocking_gbps": self.nonblocking_gbps,
                "formula_gbps": self.formula_gbps,
                "measured_gbps": self.measured_gbps,
                "agrees": self.agrees,
                "halves": self.halves,
            },
            "planes": self.planes,
            "edge_connectivity": min(
                (p["edge_connectivity"] for p in self.planes if p["edge_connectivity"] is not None),
                default=None,
            ),
            "max_hops": {"formula": self.max_hops_formula, "measured": self.max_hops_measured},
            "failed": {"nodes": self.failed_nodes, "links": self.failed_links},
        }


def measure_graph(
    fabric: Fabric,
    *,
    failed_nodes=None,
    failed_links=None,
    graph: SwitchGraph | None = None,
) -> GraphMeasures:
    """Bisection by max-flow against the formula, edge connectivity between leaves, path
    classes, hop counts and diameter of ``fabric`` without ``failed_nodes`` and
    ``failed_links`` (see the module docstring). ``graph``: one already built with the same
    failures."""
    g = graph or switch_graph(fabric, failed_nodes=failed_nodes, failed_links=failed_links)
    alive = _alive_links(fabric, failed_nodes, failed_links)
    formula = bisection_formula_gbps(fabric, alive)
    measured = 0
    if g.leaf_a_gbps.any() and g.leaf_b_gbps.any():
        measured = _flow(g.matrix(g.edge_gbps, terminals=True), g.size, g.size + 1)
    counts = g.matrix(g.edge_links)
    planes = []
    leaf_code = ROLE["leaf"]
    for plane in np.unique(g.plane[g.role == leaf_code]).tolist():
        planes.append(_plane_measures(g, counts, plane))
    leaf_hops = [p["leaf_to_leaf_max"] for p in planes if p["leaf_to_leaf_max"] is not None]
    tiers = int(fabric.info.get("tiers") or (3 if (fabric.node_role == ROLE["core"]).any() else 2))
    return GraphMeasures(
        switches=g.size,
        edges=int(g.edge_u.size),
        links=int(g.edge_links.sum()),
        nonblocking_gbps=g.server_gbps / 2,
        formula_gbps=float(formula),
        measured_gbps=float(measured),
        halves=g.halves,
        planes=planes,
        max_hops_formula=2 * tiers,
        max_hops_measured=(max(leaf_hops) + 2) if leaf_hops else None,
        failed_nodes=0 if failed_nodes is None else len(failed_nodes),
        failed_links=0 if failed_links is None else len(failed_links),
    )


def _plane_measures(g: SwitchGraph, counts: csr_matrix, plane: int) -> dict:
    leaf_code = ROLE["leaf"]
    in_plane = g.plane == plane
    leaves = np.flatnonzero(in_plane & (g.role == leaf_code))
    out = {
        "plane": plane + 1,
        "switches": int(in_plane.sum()),
        "leaves": int(leaves.size),
        "twin_classes": 0,
        "edge_connectivity": None,
        "diameter": None,
        "leaf_to_leaf_max": None,
        "path_classes": [
            {
                "class": "same leaf",
                "hops": 2,
                "switches": 1,
                "edge_disjoint_paths": None,
                "note": "one switch, no switch-to-switch link",
            }
        ],
    }
    if leaves.size < 2:
        return out
    classes = _twin_classes(g, leaves)
    out["twin_classes"] = len(classes)
    s = int(leaves[0])
    # representatives: one leaf per class other than s
    reps = []
    for members in classes:
        others = members[members != s]
        if others.size:
            reps.append(int(others[0]))
    reps_arr = np.array(reps, dtype=np.int64)
    lam = {v: _flow(counts, s, v) for v in reps}
    out["edge_connectivity"] = min(lam.values())
    # leaf-to-leaf eccentricities from one leaf per class (twins: the same), distances from s
    sources = np.array([int(members[0]) for members in classes], dtype=np.int64)
    ecc = _eccentricity(counts, sources, leaves)
    out["leaf_to_leaf_max"] = int(ecc.max()) if (ecc >= 0).all() else None
    from_s = shortest_path(counts, directed=True, unweighted=True, indices=s)
    if not np.isfinite(from_s[leaves]).all():
        out["disconnected_leaves"] = int((~np.isfinite(from_s[leaves])).sum())
    pods = g.pod
    three_tier = bool((g.role[in_plane] == ROLE["core"]).any())
    groups: dict[str, list[int]] = {}
    for v in reps_arr.tolist():
        name = (
            "other pod"
            if three_tier and pods[v] != pods[s]
            else ("same pod, other leaf" if three_tier else "other leaf")
        )
        groups.setdefault(name, []).append(v)
    for name in ("same pod, other leaf", "other leaf", "other pod"):
        members = groups.get(name)
        if not members:
            continue
        hops = [from_s[v] for v in members if np.isfinite(from_s[v])]
        out["path_classes"].append(
            {
                "class": name,
                "hops": int(max(hops)) + 2 if hops else None,
                "switches": int(max(hops)) + 1 if hops else None,
                "edge_disjoint_paths": min(lam[v] for v in members),
                "edge_disjoint_paths_max": max(lam[v] for v in members),
            }
        )
    # diameter: twins have the same eccentricity, so one search per twin class of switches
    members = np.flatnonzero(in_plane)
    sources = np.array([int(c[0]) for c in _twin_classes(g, members)], dtype=np.int64)
    ecc = _eccentricity(counts, sources, members)
    out["diameter"] = int(ecc.max()) if (ecc >= 0).all() else None
    return out


__all__ = [
    "GraphMeasures",
    "SwitchGraph",
    "bisection_formula_gbps",
    "measure_graph",
    "switch_graph",
]
