"""The canvas views of a fabric: the overview, the detail scopes (an SU, a pod, the core, the
whole fabric), each aggregated further until it fits :data:`MAX_ELEMENTS`.
"""

from __future__ import annotations

import numpy as np

from planner.domain.arrays import unique as unique_sorted
from planner.domain.canvas.common import MAX_ELEMENTS, CanvasError, rack_name
from planner.domain.canvas.elements import View, ViewContext, view_context
from planner.domain.canvas.networks import (
    LayerElements,
    NetworkLayers,
    fitting_layers,
    layer_counts,
    layer_summary,
    level_note,
    merge,
    omitted,
)
from planner.domain.fabric import ROLE, TIER, Fabric

SPINE_DETAIL_MAX = 128  # an SU view shows at most this many spines one by one


def _first_fitting(
    build,
    levels: int,
    notes_by_level: list[str],
    layers: NetworkLayers | None = None,
    finest: int = 0,
) -> tuple[View, LayerElements, list[str]]:
    """The first of ``levels`` ever coarser views that fits :data:`MAX_ELEMENTS` with the
    other networks' ``layers`` (the finest of their levels from ``finest`` that fits; at the
    coarsest view, left out when even their coarsest level does not fit)."""
    for level in range(levels):
        view = build(level)
        last = level == levels - 1
        built = fitting_layers(layers, view, finest)
        if built is None and last:
            built = omitted()
        if built is not None and (view.size() + built.size() <= MAX_ELEMENTS or last):
            notes = []
            if level and notes_by_level[level]:
                notes.append(
                    f"{notes_by_level[level]} to stay within {MAX_ELEMENTS:,} elements "
                    f"({view.size() + built.size():,} shown)."
                )
            note = level_note(layers, built, finest)
            if note:
                notes.append(note)
            return view, built, notes
    raise AssertionError("unreachable")


def _counts(view: View, built: LayerElements, elements: dict) -> dict:
    single, bundled, uniq, _, _ = view.link_sets()
    return {
        "nodes": len(view.entries) + len(view.groups) + len(built.nodes),
        "edges": int(single.size + uniq.size) + len(built.edges),
        "elements": view.size() + built.size(),
        "links_shown": int(single.size + bundled.size),
        "layers": layer_counts(elements),
    }


def _result(view: View, built: LayerElements, positions=None) -> dict:
    """The rendered elements and counts of ``view`` with its network layers."""
    elements = merge(view.render(positions), built)
    return {"elements": elements, "counts": _counts(view, built, elements)}


def _layers(fabric: Fabric, cluster) -> NetworkLayers | None:
    if cluster is None or not (cluster.devices or cluster.links):
        return None
    return NetworkLayers(fabric, cluster)


def _network_fields(fabric: Fabric, layers: NetworkLayers | None) -> dict:
    return {"networks": layer_summary(fabric, layers)}


# --- overview -----------------------------------------------------------------------------------


def _overview(ctx: ViewContext, level: int) -> View:
    view = View(ctx)
    servers, leaves = ctx.role_nodes("server"), ctx.role_nodes("leaf")
    if level < 2 and ctx.rail:
        view.aggregate(servers, "server", "su", ctx.su[servers])
    elif level < 4:
        view.aggregate(servers, "server", "pod", ctx.pod[servers])
    else:
        view.aggregate(servers, "server", "all", 0)
    view.aggregate(ctx.role_nodes("manager"), "manager", "all", 0)
    if level < 2 and ctx.rail:
        view.aggregate(leaves, "leaf", "su", ctx.su[leaves])
    elif level < 4:
        view.aggregate(leaves, "leaf", "pod", ctx.pod[leaves])
    else:
        view.aggregate(leaves, "leaf", "all", 0)
    spines = ctx.role_nodes("spine")
    if level < 3 and ctx.has_cores:
        view.aggregate(spines, "spine", "pod", ctx.pod[spines])
    else:
        view.aggregate(spines, "spine", "all", 0)
    cores = ctx.role_nodes("core")
    if level < 1:
        view.aggregate(cores, "core", "group", ctx.group[cores])
    else:
        view.aggregate(cores, "core", "all", 0)
    return view


OVERVIEW_NOTES = [
    "",
    "Cores are shown as one node per plane",
    "Cores are shown as one node per plane and servers and leaves per pod",
    "Cores and spines are shown as one node per plane and servers and leaves per pod",
    "Every tier is shown as one node per plane",
]


def _scopes(ctx: ViewContext) -> list[dict]:
    """Scopes to drill into, each with its number of nodes and links (before aggregation)."""
    fabric = ctx.fabric
    roles = fabric.node_role
    a_role = roles[fabric.link_a]
    tiers = fabric.link_tier
    out = []
    if ctx.rail:
        members = np.isin(roles, [ROLE["server"], ROLE["leaf"]]) & (ctx.su >= 0)
        sus = ctx.su[members]
        if sus.size:
            size = int(sus.max()) + 1
            nodes = np.bincount(sus, minlength=size)
            from_su = np.isin(a_role, [ROLE["server"], ROLE["leaf"]]) & (ctx.su[fabric.link_a] >= 0)
            links = np.bincount(ctx.su[fabric.link_a][from_su], minlength=size)
            out += [
                {"id": f"su:{s + 1}", "label": f"SU {s + 1}", "elements": int(nodes[s] + links[s])}
                for s in range(size)
                if nodes[s]
            ]
    members = np.isin(roles, [ROLE["leaf"], ROLE["spine"]])
    pods = ctx.pod[members]
    if pods.size:
        size = int(pods.max()) + 1
        nodes = np.bincount(pods, minlength=size)
        up = (a_role == ROLE["leaf"]) & (tiers == TIER["leaf-spine"])
        links = np.bincount(ctx.pod[fabric.link_a][up], minlength=size)
        out += [
            {"id": f"pod:{p + 1}", "label": f"Pod {p + 1}", "elements": int(nodes[p] + links[p])}
            for p in range(size)
            if nodes[p]
        ]
    top_tier = TIER["spine-core"] if ctx.has_cores else TIER["leaf-spine"]
    core_roles = [ROLE["spine"], ROLE["core"]]
    core_nodes = int(np.isin(roles, core_roles).sum())
    if core_nodes:
        out.append(
            {
                "id": "core",
                "label": "Spines and cores" if ctx.has_cores else "Spines",
                "elements": core_nodes + int((tiers == top_tier).sum()),
            }
        )
    total = fabric.node_count + fabric.link_count
    if total <= MAX_ELEMENTS:
        out.append({"id": "all", "label": "Whole fabric", "elements": total})
    return out


def parse_plane(value, fabric: Fabric) -> int | None:
    """The plane a view is filtered to, 0-based, from its 1-based text (``"2"``); None for
    every plane (nothing given, ``""`` or ``"all"``).

    Raises
    ------
    CanvasError
        Not a whole number from 1 to the fabric's plane count.

    Examples
    --------
    >>> from planner.domain.fabric import FabricBuilder
    >>> from planner.domain.settings import FabricSettings
    >>> fabric = FabricBuilder().build({}, FabricSettings(planes=2))
    >>> parse_plane("2", fabric), parse_plane("all", fabric), parse_plane(None, fabric)
    (1, None, None)
    >>> parse_plane("3", fabric)
    Traceback (most recent call last):
    ...
    planner.domain.canvas.common.CanvasError: no plane 3 in this fabric: give a plane from 1 ...
    """
    text = "" if value is None else str(value).strip().lower()
    if text in ("", "all"):
        return None
    planes = plane_count(fabric)
    if not text.isdigit() or int(text) < 1:
        raise CanvasError(
            f"plane {value!r} is not a plane: give a number from 1 to {planes}, or all",
            field="plane",
        )
    if int(text) > planes:
        raise CanvasError(
            f"no plane {int(text)} in this fabric: give a plane from 1 to {planes}, or all",
            field="plane",
        )
    return int(text) - 1


def plane_count(fabric: Fabric) -> int:
    """The fabric's planes (1 when it does not say)."""
    return max(fabric.settings.planes, 1)


def _plane_fields(fabric: Fabric, plane: int | None) -> dict:
    return {"plane": None if plane is None else plane + 1, "planes": plane_count(fabric)}


def overview_elements(fabric: Fabric, plane: int | None = None, cluster=None) -> dict:
    """The whole fabric, aggregated: per plane one node per SU (servers, leaves; rail-optimized)
    or pod (Clos, fat-tree), per pod (three tiers) or plane (two tiers) one spines node, per
    core group one cores node, one fabric-manager node; bundled edges between them.

    ``plane`` (0-based, see :func:`parse_plane`): only that plane's switches, and every
    server; the scopes still count every plane.

    Returns ``{"view": "overview", "scope": None, "elements", "scopes": [{"id", "label",
    "elements" (nodes + links inside, before aggregation)}], "notes", "counts", "plane"
    (1-based or None), "planes"}``.

    Examples
    --------
    >>> from planner.domain.fabric import FabricBuilder
    >>> b = FabricBuilder()
    >>> s = b.add_nodes(["s1", "s2"], role="server", model="srv", ports=1, ports_per_cage=1)
    >>> l = b.add_nodes(["l1"], role="leaf", model="sw", plane=0, ports=4, ports_per_cage=1)
    >>> b.add_links(s, [0, 0], [l[0], l[0]], [0, 1], tier="server-leaf", plane=0, speed_gbps=400)
    >>> view = overview_elements(b.build({"topology": "custom"}))
    >>> [e["data"]["label"] for e in view["elements"]["edges"]]
    ['2 × 400G']
    """
    ctx = view_context(fabric, plane)
    layers = _layers(fabric, cluster)
    view, built, notes = _first_fitting(
        lambda level: _overview(ctx, level), 5, OVERVIEW_NOTES, layers, finest=1
    )
    return {
        "view": "overview",
        "scope": None,
        **_result(view, built),
        "scopes": _scopes(view_context(fabric) if plane is not None else ctx),
        "notes": notes,
        **_plane_fields(fabric, plane),
        **_network_fields(fabric, layers),
    }


# --- detail views -------------------------------------------------------------------------------


def _linked(fabric: Fabric, nodes: np.ndarray, *, up: bool) -> np.ndarray:
    """Nodes at the other end of links from ``nodes`` (upwards: their b ends; else a ends)."""
    mask = np.zeros(fabric.node_count, dtype=bool)
    mask[nodes] = True
    if up:
        return unique_sorted(fabric.link_b[mask[fabric.link_a]])
    return unique_sorted(fabric.link_a[mask[fabric.link_b]])


def _sorted(nodes: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """``nodes`` ordered by ``keys`` (primary first), then node index."""
    if not nodes.size:
        return nodes
    order = np.lexsort((nodes, *(k[nodes] for k in reversed(keys))))
    return nodes[order]


def _servers_in_racks(view: View, servers: np.ndarray, parent: str | None) -> None:
    fabric = view.ctx.fabric
    if fabric.node_rack is None:
        view.devices(servers, parents=[parent] * servers.size)
        return
    servers = _sorted(servers, fabric.node_rack.astype(np.int64))
    parents, columns = [], []
    for node in servers.tolist():
        name = rack_name(fabric, node)
        if name is None:
            parents.append(parent)
            columns.append(None)
            continue
        parents.append(view.group(f"group:rack:{name}", f"Rack {name}", parent))
        columns.append(("rack", name))
    view.devices(servers, parents=parents, columns=columns)


def _rack_values(fabric: Fabric, nodes: np.ndarray) -> tuple[str, np.ndarray]:
    if fabric.node_rack is None:
        return "all", np.zeros(nodes.size, dtype=np.int64)
    return "rack", fabric.node_rack[nodes].astype(np.int64)


def _detail_su(ctx: ViewContext, su: int, level: int) -> View:
    fabric = ctx.fabric
    view = View(ctx)
    in_su = ctx.su == su
    servers, leaves = ctx.role_nodes("server", in_su), ctx.role_nodes("leaf", in_su)
    su_id = view.group(f"group:su:{su + 1}", f"SU {su + 1}")
    if level < 2:
        _servers_in_racks(view, servers, su_id)
    else:
        kind, values = _rack_values(fabric, servers)
        view.aggregate(servers, "server", kind, values, parent=su_id)
    managers = _linked(fabric, leaves, up=False)
    managers = managers[fabric.node_role[managers] == ROLE["manager"]]
    view.devices(managers, parents=[su_id] * managers.size)
    if level < 3:
        rails = fabric.node_rail.astype(np.int64)
        leaves = _sorted(leaves, rails, ctx.plane)
        parents = [
            view.group(f"group:rail:{rail + 1}", f"Rail {rail + 1}", su_id) if rail >= 0 else su_id
            for rail in rails[leaves].tolist()
        ]
        view.devices(leaves, parents=parents)
    else:
        view.aggregate(leaves, "leaf", "su", su, parent=su_id)
    spines = _linked(fabric, leaves, up=True)
    spines = spines[fabric.node_role[spines] == ROLE["spine"]]
    if level < 1 and spines.size <= SPINE_DETAIL_MAX:
        view.devices(_sorted(spines, ctx.plane, ctx.group))
    elif level < 3:
        view.aggregate(spines, "spine", "pod", ctx.pod[spines])
    else:
        view.aggregate(spines, "spine", "all", 0)
    return view


SU_NOTES = [
    "",
    "Spines are shown per pod",
    "Spines are shown per pod and servers per rack",
    "Servers are shown per rack and leaves and spines as one node per plane",
]


def _detail_pod(ctx: ViewContext, pod: int, level: int) -> View:
    fabric = ctx.fabric
    view = View(ctx)
    in_pod = ctx.pod == pod
    leaves, spines = ctx.role_nodes("leaf", in_pod), ctx.role_nodes("spine", in_pod)
    servers = ctx.role_nodes("server", in_pod & (ctx.degree > 0))

    def su_group(value):
        return view.group(f"group:su:{value + 1}", f"SU {value + 1}") if value >= 0 else None

    if ctx.rail:
        view.aggregate(servers, "server", "su", ctx.su[servers], parent=su_group)
    else:
        kind, values = _rack_values(fabric, servers)
        view.aggregate(servers, "server", kind, values)
    managers = _linked(fabric, leaves, up=False)
    view.devices(managers[fabric.node_role[managers] == ROLE["manager"]])
    if level in (0, 2):
        if ctx.rail:
            leaves = _sorted(leaves, ctx.su, fabric.node_rail.astype(np.int64), ctx.plane)
            view.devices(leaves, parents=[su_group(s) for s in ctx.su[leaves].tolist()])
        else:
            view.devices(_sorted(leaves, ctx.plane))
    elif ctx.rail:
        view.aggregate(leaves, "leaf", "su", ctx.su[leaves], parent=su_group)
    else:
        view.aggregate(leaves, "leaf", "pod", pod)
    if level < 2:
        view.devices(_sorted(spines, ctx.plane, ctx.group))
    else:
        view.aggregate(spines, "spine", "pod", pod)
    cores = _linked(fabric, spines, up=True)
    cores = cores[fabric.node_role[cores] == ROLE["core"]]
    view.aggregate(cores, "core", "group" if level < 3 else "all", ctx.group[cores])
    return view


POD_NOTES = [
    "",
    "Leaves are shown per SU (or pod)",
    "Spines are shown as one node per plane",
    "Leaves are shown per SU (or pod), spines and cores as one node per plane",
]


def _detail_core(ctx: ViewContext, level: int) -> View:
    view = View(ctx)
    spines, cores = ctx.role_nodes("spine"), ctx.role_nodes("core")
    if not ctx.has_cores:  # two tiers: the spines, and the leaves per SU or pod
        leaves = ctx.role_nodes("leaf")
        if level == 0:
            kind, values = ("su", ctx.su[leaves]) if ctx.rail else ("pod", ctx.pod[leaves])
            view.aggregate(leaves, "leaf", kind, values)
        else:
            view.aggregate(leaves, "leaf", "all", 0)
        if level < 2:
            view.devices(_sorted(spines, ctx.plane))
        else:
            view.aggregate(spines, "spine", "all", 0)
        return view
    if level in (0, 1):
        view.devices(_sorted(spines, ctx.plane, ctx.pod, ctx.group))
    elif level in (2, 3):
        view.aggregate(spines, "spine", "pod", ctx.pod[spines])
    else:
        view.aggregate(spines, "spine", "all", 0)
    if level in (0, 2):
        view.devices(_sorted(cores, ctx.plane, ctx.group))
    elif level in (1, 3):
        view.aggregate(cores, "core", "group", ctx.group[cores])
    else:
        view.aggregate(cores, "core", "all", 0)
    return view


CORE_NOTES = [
    "",
    "Cores are shown per core group",
    "Spines are shown per pod",
    "Spines are shown per pod and cores per core group",
    "Spines and cores are shown as one node per plane",
]

CORE_NOTES_TWO_TIERS = [
    "",
    "Leaves are shown as one node per plane",
    "Leaves and spines are shown as one node per plane",
]


def _all(ctx: ViewContext) -> View:
    fabric = ctx.fabric
    total = fabric.node_count + fabric.link_count
    if total > MAX_ELEMENTS:
        raise CanvasError(
            f"this fabric has {total:,} nodes and links; the whole-fabric view is limited to "
            f"{MAX_ELEMENTS:,}: open an SU, a pod or the core instead"
        )
    view = View(ctx)
    for role in ("server", "manager", "leaf", "spine", "core"):
        nodes = ctx.role_nodes(role)
        if role == "leaf" and ctx.rail:
            nodes = _sorted(nodes, ctx.plane, ctx.su, fabric.node_rail.astype(np.int64))
        elif role != "server":
            nodes = _sorted(nodes, ctx.plane, ctx.pod)
        view.devices(nodes)
    return view


def _stored_positions(fabric: Fabric) -> dict[int, tuple[float, float]]:
    if fabric.node_x is None or fabric.node_y is None:
        return {}
    placed = np.flatnonzero(np.isfinite(fabric.node_x) & np.isfinite(fabric.node_y))
    return {
        int(i): (float(x), float(y))
        for i, x, y in zip(
            placed.tolist(),
            fabric.node_x[placed].tolist(),
            fabric.node_y[placed].tolist(),
            strict=True,
        )
    }


def node_positions(fabric: Fabric) -> dict[int, tuple[float, float]]:
    """Every node's position: as stored, else its preset place in the whole-fabric view.

    Raises
    ------
    CanvasError
        The fabric is too large for the whole-fabric view (more than :data:`MAX_ELEMENTS`).
    """
    view = _all(view_context(fabric))
    points = view.positions()
    positions = {entry["node"]: points[i] for i, entry in enumerate(view.entries)}
    positions.update(_stored_positions(fabric))
    return positions


def _parse_scope(scope: str) -> tuple[str, int]:
    text = (scope or "").strip().lower()
    if text in ("core", "all"):
        return text, 0
    kind, sep, number = text.partition(":")
    if sep and kind in ("su", "pod") and number.isdigit() and int(number) >= 1:
        return kind, int(number) - 1
    raise CanvasError(f"unknown scope {scope!r}: use su:N, pod:N, core or all")


def detail_elements(fabric: Fabric, scope: str, plane: int | None = None, cluster=None) -> dict:
    """One scope of the fabric, node by node where it fits.

    Scopes: ``su:N`` (the SU's servers in their racks and its leaves in rail groups, inside
    ``group:su:N``; the spines its leaves reach, one by one when at most
    :data:`SPINE_DETAIL_MAX`, else per pod and plane), ``pod:N`` (the pod's leaves and spines
    one by one, servers per SU, or per rack in a Clos, cores per core group), ``core``
    (spines and cores one by one when they fit, else aggregated) and ``all`` (every node and
    link; only for fabrics of at most :data:`MAX_ELEMENTS` nodes + links). ``plane`` (0-based):
    only that plane's switches, and every server of the scope.

    Returns ``{"view": "detail", "scope", "elements", "notes", "counts", "plane", "planes"}``.

    Raises
    ------
    CanvasError
        Unknown scope, no such SU or pod, or ``all`` of a fabric too large to show whole.
    """
    ctx = view_context(fabric, plane)
    layers = _layers(fabric, cluster)
    kind, number = _parse_scope(scope)
    notes: list[str] = []
    positions = None
    if kind == "su":
        if not ctx.rail:
            raise CanvasError("this fabric has no scalable units: open a pod (pod:N) instead")
        members = np.isin(fabric.node_role, [ROLE["server"], ROLE["leaf"]]) & (ctx.su == number)
        if not members.any():
            raise CanvasError(f"no SU {number + 1} in this fabric")
        view, built, notes = _first_fitting(
            lambda level: _detail_su(ctx, number, level), 4, SU_NOTES, layers
        )
    elif kind == "pod":
        members = np.isin(fabric.node_role, [ROLE["leaf"], ROLE["spine"]]) & (ctx.pod == number)
        if not members.any():
            raise CanvasError(f"no pod {number + 1} in this fabric")
        view, built, notes = _first_fitting(
            lambda level: _detail_pod(ctx, number, level), 4, POD_NOTES, layers
        )
    elif kind == "core":
        if not (fabric.node_role == ROLE["spine"]).any():
            raise CanvasError("this fabric has no spines: open the whole fabric (all) instead")
        levels = CORE_NOTES if ctx.has_cores else CORE_NOTES_TWO_TIERS
        view, built, notes = _first_fitting(
            lambda level: _detail_core(ctx, level), len(levels), levels, layers
        )
    else:
        view = _all(ctx)
        positions = _stored_positions(fabric)
        view, built, notes = _first_fitting(lambda level: view, 1, [""], layers)
    return {
        "view": "detail",
        "scope": f"{kind}:{number + 1}" if kind in ("su", "pod") else kind,
        **_result(view, built, positions),
        "notes": notes,
        **_plane_fields(fabric, plane),
        **_network_fields(fabric, layers),
    }
