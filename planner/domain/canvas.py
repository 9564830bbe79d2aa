"""What the design canvas draws, and topologies drawn or edited by hand.

Views (:func:`overview_elements`, :func:`detail_elements`) are Cytoscape.js element JSON::

    {"view": "overview" | "detail", "scope": ..., "elements": {"nodes": [...], "edges": [...]},
     "scopes": [...] (overview only), "notes": [...], "counts": {...}}

Every node is ``{"data": {...}, "position": {"x", "y"}, "classes": "..."}`` (compound group
nodes have no position: their children decide it); every edge ``{"data": {...}, "classes"}``.

- **device** (one fabric node): data ``id`` ``node:<name>``, ``label``, ``kind`` "device",
  ``role`` (server, manager, leaf, spine, core), ``model``, ``plane``, ``su``, ``pod``,
  ``rail`` (1-based or null), ``rack`` (name), ``ru``, ``ports``, ``ports_used``, ``parent``
  (compound id or null); classes = the role.
- **aggregate** (a bucket of nodes of one role): data ``id``
  ``agg:<plane>:<role>:<bucket>`` (plane 1-based, ``all`` for servers, which every plane
  shares; bucket ``su3``, ``pod2``, ``group5``, ``all``, ``rack-<name>``), ``label``,
  ``kind`` "aggregate", ``role``, ``count``, ``models`` {slug: n}, ``plane``, ``su``,
  ``pod``, ``group`` (the bucket's, 1-based, others null), ``scope`` (the scope to drill
  into, e.g. ``su:3``, ``pod:2``, ``core``; null if none), ``parent``; classes
  "aggregate <role>".
- **group** (compound): data ``id`` ``group:su:<N>``, ``group:rack:<rack name>``,
  ``group:rail:<n>``; ``label``, ``kind`` "group", ``parent``; classes "group".
- **link** edge: data ``id`` ``link:<i>``, ``source``/``target`` (the lower/upper end),
  ``kind`` "link", ``tier``, ``a_port``/``b_port`` (1-based), ``speed_gbps``, ``length_m``,
  ``a_part``, ``b_part``, ``cable`` (slugs or null); classes "link <tier>".
- **bundle** edge (every link between two displayed elements, one of them an aggregate): data
  ``id`` ``bundle:<source id>|<target id>``, ``source``, ``target``, ``kind`` "bundle",
  ``tier``, ``links`` (count), ``bandwidth_gbps``, ``label`` ("256 × 400G"); classes
  "bundle <tier>".

Positions are preset in tiers (servers at the bottom, then leaves, spines, cores; x spread by
bucket or node order; servers stacked in their rack's column). No view holds more than
:data:`MAX_ELEMENTS` nodes + edges: a view aggregates further until it fits and says so in
``notes``.

Hand-drawn or hand-edited topologies are *edit documents*::

    {"nodes": [{"name", "model", "role", "x"?, "y"?, "plane"?, "su"?, "rail"?, "group"?,
                "rack"?, "ru"?}],
     "links": [{"a", "a_port", "b", "b_port", "speed_gbps"?, "a_part"?, "b_part"?,
                "cable"?, "length_m"?}]}

Roles: server, leaf, spine, core (and manager, a fabric-manager endpoint of a generated
fabric). Ports are 1-based logical ports at the link's speed (default: the highest speed both
models run). ``plane``, ``su``, ``rail``, ``group`` (1-based) keep a generated fabric's
structure through an edit (``group`` = pod of a leaf, core group of a spine or core).
:func:`validate_edit` checks a document with the same rule functions as media selection
(:mod:`planner.domain.media`, :mod:`inventory.library.compat`); :func:`fabric_from_edit`
turns a valid one into a :class:`~planner.domain.fabric.Fabric`; :func:`edit_document` is
the reverse. Element ids in problems: ``node:<name>`` and ``link:<index in the document>``.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from inventory.library.compat import fiber_fits_optic
from inventory.library.rules import Violation, parse_breakout
from planner.domain.catalog import CatalogFacts, DeviceModel
from planner.domain.fabric import ROLE, ROLES, TIER, TIER_NAMES, Fabric
from planner.domain.media import (
    TOLERANCE_M,
    Candidate,
    LinkGroup,
    MediaCatalog,
    PriceOf,
    Rejections,
    cable_candidates,
    dense_ids,
    end_reason,
    module_options,
    optic_candidates,
    order_lengths,
    rank_candidates,
)
from planner.domain.part_facts import fiber_of, optic_of
from planner.domain.spec import MediaChoice

MAX_ELEMENTS = 5000  # nodes + edges of one view, and of an edit document
SPINE_DETAIL_MAX = 128  # an SU view shows at most this many spines one by one
ROW_Y = {"core": 0.0, "spine": 300.0, "leaf": 600.0, "server": 1000.0}
STACK_DY = 45.0  # servers stacked in a rack column
GAP = {"device": 70.0, "aggregate": 180.0}
PLURAL = {
    "server": "servers",
    "manager": "fabric managers",
    "leaf": "leaves",
    "spine": "spines",
    "core": "cores",
}
EDIT_ROLES = ("server", "leaf", "spine", "core", "manager")
SWITCH_EDIT_ROLES = ("leaf", "spine", "core")
#: (a role, b role) -> tier: links join adjacent tiers, a = the lower end.
TIER_OF = {
    ("server", "leaf"): "server-leaf",
    ("manager", "leaf"): "server-leaf",
    ("leaf", "spine"): "leaf-spine",
    ("spine", "core"): "spine-core",
}
MANAGER_MODEL = "fabric-manager"


class CanvasError(ValueError):
    """A view that cannot be drawn (unknown scope, or too large to show or edit whole)."""


class EditError(ValueError):
    """An edit document with errors; ``violations`` lists every problem (and warning)."""

    def __init__(self, violations: list[Violation]):
        self.violations = violations
        errors = [v for v in violations if v.severity == "error"]
        super().__init__("; ".join(v.message for v in errors[:3]))


def violation_dict(violation: Violation) -> dict:
    """A problem as the API, canvas and jobs report it."""
    return {
        "code": violation.code,
        "message": violation.message,
        "element_ids": list(violation.element_ids),
        "severity": violation.severity,
        "field": violation.field,
    }


# --- view context ----------------------------------------------------------------------------


@dataclass
class _Ctx:
    """Per-node facts every view needs (vectors over nodes)."""

    fabric: Fabric
    rail: bool  # scalable units exist (rail-optimized, or SUs kept through an edit)
    pod: np.ndarray
    plane: np.ndarray  # servers: -1 (shared by every plane); others >= 0
    group: np.ndarray  # core group of spines and cores, >= 0
    su: np.ndarray
    degree: np.ndarray
    has_cores: bool

    def role_nodes(self, role: str, mask: np.ndarray | None = None) -> np.ndarray:
        hit = self.fabric.node_role == ROLE[role]
        return np.flatnonzero(hit if mask is None else hit & mask)


def _context(fabric: Fabric) -> _Ctx:
    n = fabric.node_count
    roles = fabric.node_role
    is_server = roles == ROLE["server"]
    rail = fabric.info.get("topology") == "rail-optimized" or bool(
        (fabric.node_su[is_server] >= 0).any()
    )
    pod = np.zeros(n, dtype=np.int64)
    leaf = roles == ROLE["leaf"]
    spine = roles == ROLE["spine"]
    pod[leaf] = np.maximum(fabric.node_group[leaf], 0)
    pod[spine] = np.maximum(fabric.node_su[spine], 0)
    low = np.isin(roles[fabric.link_a], [ROLE["server"], ROLE["manager"]])
    if low.any():
        nodes, first = np.unique(fabric.link_a[low], return_index=True)
        pod[nodes] = pod[fabric.link_b[low][first]]
    plane = np.maximum(fabric.node_plane.astype(np.int64), 0)
    plane[is_server] = -1
    group = np.maximum(fabric.node_group.astype(np.int64), 0)
    degree = np.bincount(fabric.link_a, minlength=n) + np.bincount(fabric.link_b, minlength=n)
    return _Ctx(
        fabric=fabric,
        rail=rail,
        pod=pod,
        plane=plane,
        group=group,
        su=fabric.node_su.astype(np.int64),
        degree=degree,
        has_cores=bool((roles == ROLE["core"]).any()),
    )


def _rack_name(fabric: Fabric, node: int) -> str | None:
    if fabric.node_rack is None:
        return None
    index = int(fabric.node_rack[node])
    if index < 0 or index >= len(fabric.racks):
        return None
    return str(fabric.racks[index].get("name", index))


def _one_based(value) -> int | None:
    value = int(value)
    return value + 1 if value >= 0 else None


def _speed_text(speed: int) -> str:
    if speed >= 1000 and speed % 100 == 0:
        return f"{speed / 1000:g}T"
    return f"{speed}G"


def _finite(value) -> float | None:
    value = float(value)
    return round(value, 2) if math.isfinite(value) else None


# --- building a view ----------------------------------------------------------------------------


class _View:
    """Display entries (devices and aggregates), compound groups, then links and bundles."""

    def __init__(self, ctx: _Ctx):
        self.ctx = ctx
        self.disp = np.full(ctx.fabric.node_count, -1, dtype=np.int64)
        self.entries: list[dict] = []
        self.groups: list[dict] = []
        self._group_ids: set[str] = set()
        self._links = None

    # entries
    def group(self, gid: str, label: str, parent: str | None = None) -> str:
        if gid not in self._group_ids:
            self._group_ids.add(gid)
            self.groups.append({"id": gid, "label": label, "kind": "group", "parent": parent})
        return gid

    def devices(self, nodes: np.ndarray, parents=None, columns=None) -> None:
        nodes = np.asarray(nodes, dtype=np.int64)
        base = len(self.entries)
        self.disp[nodes] = base + np.arange(nodes.size)
        for j, node in enumerate(nodes.tolist()):
            self.entries.append(
                {
                    "type": "node",
                    "node": node,
                    "role": ROLES[int(self.ctx.fabric.node_role[node])],
                    "parent": parents[j] if parents is not None else None,
                    "column": columns[j] if columns is not None else None,
                }
            )

    def aggregate(self, nodes: np.ndarray, role: str, kind: str, values, parent=None) -> None:
        """One aggregate per (plane, bucket value) of ``nodes`` (all of ``role``).

        ``kind``: su, pod, group, rack or all; ``values`` per node (-1 = none), or a scalar.
        ``parent``: a compound id, or a function of the bucket value.
        """
        nodes = np.asarray(nodes, dtype=np.int64)
        if not nodes.size:
            return
        values = np.broadcast_to(np.asarray(values, dtype=np.int64), nodes.shape)
        planes = self.ctx.plane[nodes]
        keys = (planes + 1) << 32 | (values + 1)
        uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        base = len(self.entries)
        self.disp[nodes] = base + inverse
        for index in first.tolist():
            value = int(values[index])
            self.entries.append(
                {
                    "type": "agg",
                    "role": role,
                    "kind": kind,
                    "value": value,
                    "plane": int(planes[index]),
                    "parent": parent(value) if callable(parent) else parent,
                    "column": None,
                }
            )
        del uniq

    # links
    def link_sets(self):
        if self._links is None:
            fabric = self.ctx.fabric
            da, db = self.disp[fabric.link_a], self.disp[fabric.link_b]
            keep = np.flatnonzero((da >= 0) & (db >= 0) & (da != db))
            is_node = np.array([e["type"] == "node" for e in self.entries] + [False], dtype=bool)
            both = is_node[da[keep]] & is_node[db[keep]]
            single = keep[both]
            bundled = keep[~both]
            width = max(len(self.entries), 1)
            keys = da[bundled] * width + db[bundled]
            uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            self._links = (single, bundled, uniq, first, inverse)
        return self._links

    def size(self) -> int:
        single, _, uniq, _, _ = self.link_sets()
        return len(self.entries) + len(self.groups) + int(single.size) + int(uniq.size)

    # rendering
    def entry_id(self, entry: dict) -> str:
        if "id" in entry:
            return entry["id"]
        if entry["type"] == "node":
            entry["id"] = f"node:{self.ctx.fabric.node_name[entry['node']]}"
        else:
            plane = "all" if entry["plane"] < 0 else str(entry["plane"] + 1)
            entry["id"] = f"agg:{plane}:{entry['role']}:{self._bucket(entry)}"
        return entry["id"]

    def _bucket(self, entry: dict) -> str:
        kind, value = entry["kind"], entry["value"]
        if kind == "all":
            return "all"
        if kind == "rack":
            name = (
                self.ctx.fabric.racks[value].get("name", value)
                if 0 <= value < len(self.ctx.fabric.racks)
                else "none"
            )
            return f"rack-{name}"
        return f"{kind}{value + 1}" if value >= 0 else f"{kind}-none"

    def render(self, positions: dict[int, tuple[float, float]] | None = None) -> dict:
        points = self._positions()
        nodes = [{"data": dict(g), "classes": "group"} for g in self.groups]
        agg_models = self._aggregate_models()
        for index, entry in enumerate(self.entries):
            x, y = points[index]
            if positions and entry["type"] == "node" and entry["node"] in positions:
                x, y = positions[entry["node"]]
            if entry["type"] == "node":
                data = self._device_data(entry)
                classes = data["role"]
            else:
                data = self._aggregate_data(index, agg_models.get(index, {}))
                classes = f"aggregate {entry['role']}"
            nodes.append(
                {"data": data, "position": {"x": round(x, 1), "y": round(y, 1)}, "classes": classes}
            )
        edges = self._link_edges() + self._bundle_edges()
        return {"nodes": nodes, "edges": edges}

    def _device_data(self, entry: dict) -> dict:
        fabric, ctx, node = self.ctx.fabric, self.ctx, entry["node"]
        role = entry["role"]
        return {
            "id": self.entry_id(entry),
            "label": fabric.node_name[node],
            "kind": "device",
            "role": role,
            "model": fabric.models[int(fabric.node_model[node])],
            "plane": _one_based(fabric.node_plane[node]),
            "su": _one_based(fabric.node_su[node]) if ctx.rail and role != "spine" else None,
            "pod": int(ctx.pod[node]) + 1 if role in ("server", "leaf", "spine") else None,
            "rail": _one_based(fabric.node_rail[node]),
            "rack": _rack_name(fabric, node),
            "ru": int(fabric.node_ru[node])
            if fabric.node_ru is not None and fabric.node_ru[node] > 0
            else None,
            "ports": int(fabric.node_ports[node]),
            "ports_used": int(ctx.degree[node]),
            "parent": entry["parent"],
        }

    def _aggregate_models(self) -> dict[int, dict[str, int]]:
        fabric = self.ctx.fabric
        members = np.flatnonzero(self.disp >= 0)
        disp = self.disp[members]
        is_agg = np.array([e["type"] == "agg" for e in self.entries], dtype=bool)
        keep = is_agg[disp]
        width = len(fabric.models)
        pairs, counts = np.unique(
            disp[keep] * width + fabric.node_model[members[keep]], return_counts=True
        )
        out: dict[int, dict[str, int]] = defaultdict(dict)
        for pair, count in zip(pairs.tolist(), counts.tolist(), strict=True):
            out[pair // width][fabric.models[pair % width]] = count
        return out

    def _aggregate_data(self, index: int, models: dict[str, int]) -> dict:
        ctx = self.ctx
        entry = self.entries[index]
        role, kind, value, plane = entry["role"], entry["kind"], entry["value"], entry["plane"]
        count = sum(models.values())
        number = value + 1 if value >= 0 else None
        bucket_label = {
            "su": f"SU {number}" if number else "no SU",
            "pod": f"Pod {number}" if number else "no pod",
            "group": f"Core group {number}" if number else "no group",
            "rack": f"Rack {self._bucket(entry)[5:]}",
            "all": "",
        }[kind]
        if plane >= 0 and int(self.ctx.fabric.info.get("planes") or 1) > 1:
            bucket_label = f"Plane {plane + 1}" + (f" · {bucket_label}" if bucket_label else "")
        label = f"{count} {PLURAL[role]}"
        if bucket_label:
            label = f"{bucket_label}: {label}"
        scope = None
        if kind == "su" and number:
            scope = f"su:{number}"
        elif kind == "pod" and number:
            scope = f"pod:{number}"
        elif role in ("spine", "core") and kind in ("group", "all"):
            scope = "core"
        elif kind == "rack" and role == "server" and ctx.rail:
            members = np.flatnonzero(self.disp == index)
            su = int(ctx.su[members[0]]) if members.size else -1
            scope = f"su:{su + 1}" if su >= 0 else None
        return {
            "id": self.entry_id(entry),
            "label": label,
            "kind": "aggregate",
            "role": role,
            "count": count,
            "models": models,
            "plane": plane + 1 if plane >= 0 else None,
            "su": number if kind == "su" else None,
            "pod": number if kind == "pod" else None,
            "group": number if kind == "group" else None,
            "scope": scope,
            "parent": entry["parent"],
        }

    def _positions(self) -> list[tuple[float, float]]:
        rows: dict[str, dict] = {}
        placed = []
        for entry in self.entries:
            row = "server" if entry["role"] in ("server", "manager") else entry["role"]
            info = rows.setdefault(row, {"columns": {}, "agg": False, "slots": Counter()})
            info["agg"] |= entry["type"] == "agg"
            key = entry["column"] if entry["column"] is not None else ("entry", len(placed))
            column = info["columns"].setdefault(key, len(info["columns"]))
            slot = info["slots"][key]
            info["slots"][key] += 1
            placed.append((row, column, slot))
        width = max(
            [len(r["columns"]) * GAP["aggregate" if r["agg"] else "device"] for r in rows.values()]
            or [0.0]
        )
        out = []
        for row, column, slot in placed:
            count = len(rows[row]["columns"])
            out.append(((column + 0.5) * width / count, ROW_Y[row] - slot * STACK_DY))
        return out

    def _link_edges(self) -> list[dict]:
        fabric = self.ctx.fabric
        single = self.link_sets()[0]
        if not single.size:
            return []
        names = fabric.node_name
        parts = fabric.parts

        def slugs(column):
            if column is None:
                return [None] * single.size
            return [parts[p] if p >= 0 else None for p in column[single].tolist()]

        a_parts, b_parts = slugs(fabric.link_a_part), slugs(fabric.link_b_part)
        cables = slugs(fabric.link_cable_part)
        lengths = (
            [None] * single.size
            if fabric.link_length_m is None
            else [_finite(v) for v in fabric.link_length_m[single].tolist()]
        )
        columns = zip(
            single.tolist(),
            fabric.link_a[single].tolist(),
            fabric.link_b[single].tolist(),
            fabric.link_a_port[single].tolist(),
            fabric.link_b_port[single].tolist(),
            fabric.link_tier[single].tolist(),
            fabric.link_speed_gbps[single].tolist(),
            a_parts,
            b_parts,
            cables,
            lengths,
            strict=True,
        )
        edges = []
        for link, a, b, a_port, b_port, tier, speed, a_part, b_part, cable, length in columns:
            tier_name = TIER_NAMES[tier]
            edges.append(
                {
                    "data": {
                        "id": f"link:{link}",
                        "source": f"node:{names[a]}",
                        "target": f"node:{names[b]}",
                        "kind": "link",
                        "tier": tier_name,
                        "a_port": a_port + 1,
                        "b_port": b_port + 1,
                        "speed_gbps": speed,
                        "length_m": length,
                        "a_part": a_part,
                        "b_part": b_part,
                        "cable": cable,
                    },
                    "classes": f"link {tier_name}",
                }
            )
        return edges

    def _bundle_edges(self) -> list[dict]:
        fabric = self.ctx.fabric
        _, bundled, uniq, first, inverse = self.link_sets()
        if not uniq.size:
            return []
        speed = fabric.link_speed_gbps[bundled].astype(np.int64)
        counts = np.bincount(inverse, minlength=uniq.size)
        bandwidth = np.bincount(inverse, weights=speed, minlength=uniq.size)
        low = np.full(uniq.size, np.iinfo(np.int64).max)
        high = np.zeros(uniq.size, dtype=np.int64)
        np.minimum.at(low, inverse, speed)
        np.maximum.at(high, inverse, speed)
        tiers = fabric.link_tier[bundled][first]
        width = max(len(self.entries), 1)
        edges = []
        for key, count, gbps, lo, hi, tier in zip(
            uniq.tolist(),
            counts.tolist(),
            bandwidth.tolist(),
            low.tolist(),
            high.tolist(),
            tiers.tolist(),
            strict=True,
        ):
            source = self.entry_id(self.entries[key // width])
            target = self.entry_id(self.entries[key % width])
            tier_name = TIER_NAMES[tier]
            label = f"{count} × {_speed_text(lo)}" if lo == hi else f"{count} links"
            edges.append(
                {
                    "data": {
                        "id": f"bundle:{source}|{target}",
                        "source": source,
                        "target": target,
                        "kind": "bundle",
                        "tier": tier_name,
                        "links": count,
                        "bandwidth_gbps": int(gbps),
                        "label": label,
                    },
                    "classes": f"bundle {tier_name}",
                }
            )
        return edges


def _first_fitting(build, levels: int, notes_by_level: list[str]) -> tuple[_View, list[str]]:
    """The first of ``levels`` ever coarser views that fits :data:`MAX_ELEMENTS`."""
    for level in range(levels):
        view = build(level)
        if view.size() <= MAX_ELEMENTS or level == levels - 1:
            notes = []
            if level and notes_by_level[level]:
                notes.append(
                    f"{notes_by_level[level]} to stay within {MAX_ELEMENTS:,} elements "
                    f"({view.size():,} shown)."
                )
            return view, notes
    raise AssertionError("unreachable")


def _counts(view: _View) -> dict:
    single, bundled, uniq, _, _ = view.link_sets()
    return {
        "nodes": len(view.entries) + len(view.groups),
        "edges": int(single.size + uniq.size),
        "elements": view.size(),
        "links_shown": int(single.size + bundled.size),
    }


# --- overview -----------------------------------------------------------------------------------


def _overview(ctx: _Ctx, level: int) -> _View:
    view = _View(ctx)
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


def _scopes(ctx: _Ctx) -> list[dict]:
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


def overview_elements(fabric: Fabric) -> dict:
    """The whole fabric, aggregated: per plane one node per SU (servers, leaves; rail-optimized)
    or pod (Clos, fat-tree), per pod (three tiers) or plane (two tiers) one spines node, per
    core group one cores node, one fabric-manager node; bundled edges between them.

    Returns ``{"view": "overview", "scope": None, "elements", "scopes": [{"id", "label",
    "elements" (nodes + links inside, before aggregation)}], "notes", "counts"}``.

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
    ctx = _context(fabric)
    view, notes = _first_fitting(lambda level: _overview(ctx, level), 5, OVERVIEW_NOTES)
    return {
        "view": "overview",
        "scope": None,
        "elements": view.render(),
        "scopes": _scopes(ctx),
        "notes": notes,
        "counts": _counts(view),
    }


# --- detail views -------------------------------------------------------------------------------


def _linked(fabric: Fabric, nodes: np.ndarray, *, up: bool) -> np.ndarray:
    """Nodes at the other end of links from ``nodes`` (upwards: their b ends; else a ends)."""
    mask = np.zeros(fabric.node_count, dtype=bool)
    mask[nodes] = True
    if up:
        return np.unique(fabric.link_b[mask[fabric.link_a]])
    return np.unique(fabric.link_a[mask[fabric.link_b]])


def _sorted(nodes: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """``nodes`` ordered by ``keys`` (primary first), then node index."""
    if not nodes.size:
        return nodes
    order = np.lexsort((nodes, *(k[nodes] for k in reversed(keys))))
    return nodes[order]


def _servers_in_racks(view: _View, servers: np.ndarray, parent: str | None) -> None:
    fabric = view.ctx.fabric
    if fabric.node_rack is None:
        view.devices(servers, parents=[parent] * servers.size)
        return
    servers = _sorted(servers, fabric.node_rack.astype(np.int64))
    parents, columns = [], []
    for node in servers.tolist():
        name = _rack_name(fabric, node)
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


def _detail_su(ctx: _Ctx, su: int, level: int) -> _View:
    fabric = ctx.fabric
    view = _View(ctx)
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


def _detail_pod(ctx: _Ctx, pod: int, level: int) -> _View:
    fabric = ctx.fabric
    view = _View(ctx)
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


def _detail_core(ctx: _Ctx, level: int) -> _View:
    view = _View(ctx)
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


def _all(ctx: _Ctx) -> _View:
    fabric = ctx.fabric
    total = fabric.node_count + fabric.link_count
    if total > MAX_ELEMENTS:
        raise CanvasError(
            f"this fabric has {total:,} nodes and links; the whole-fabric view is limited to "
            f"{MAX_ELEMENTS:,}: open an SU, a pod or the core instead"
        )
    view = _View(ctx)
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


def _parse_scope(scope: str) -> tuple[str, int]:
    text = (scope or "").strip().lower()
    if text in ("core", "all"):
        return text, 0
    kind, sep, number = text.partition(":")
    if sep and kind in ("su", "pod") and number.isdigit() and int(number) >= 1:
        return kind, int(number) - 1
    raise CanvasError(f"unknown scope {scope!r}: use su:N, pod:N, core or all")


def detail_elements(fabric: Fabric, scope: str) -> dict:
    """One scope of the fabric, node by node where it fits.

    Scopes: ``su:N`` (the SU's servers in their racks and its leaves in rail groups, inside
    ``group:su:N``; the spines its leaves reach, one by one when at most
    :data:`SPINE_DETAIL_MAX`, else per pod and plane), ``pod:N`` (the pod's leaves and spines
    one by one, servers per SU, or per rack in a Clos, cores per core group), ``core``
    (spines and cores one by one when they fit, else aggregated) and ``all`` (every node and
    link; only for fabrics of at most :data:`MAX_ELEMENTS` nodes + links).

    Returns ``{"view": "detail", "scope", "elements", "notes", "counts"}``.

    Raises
    ------
    CanvasError
        Unknown scope, no such SU or pod, or ``all`` of a fabric too large to show whole.
    """
    ctx = _context(fabric)
    kind, number = _parse_scope(scope)
    notes: list[str] = []
    positions = None
    if kind == "su":
        if not ctx.rail:
            raise CanvasError("this fabric has no scalable units: open a pod (pod:N) instead")
        members = np.isin(fabric.node_role, [ROLE["server"], ROLE["leaf"]]) & (ctx.su == number)
        if not members.any():
            raise CanvasError(f"no SU {number + 1} in this fabric")
        view, notes = _first_fitting(lambda level: _detail_su(ctx, number, level), 4, SU_NOTES)
    elif kind == "pod":
        members = np.isin(fabric.node_role, [ROLE["leaf"], ROLE["spine"]]) & (ctx.pod == number)
        if not members.any():
            raise CanvasError(f"no pod {number + 1} in this fabric")
        view, notes = _first_fitting(lambda level: _detail_pod(ctx, number, level), 4, POD_NOTES)
    elif kind == "core":
        if not (fabric.node_role == ROLE["spine"]).any():
            raise CanvasError("this fabric has no spines: open the whole fabric (all) instead")
        levels = CORE_NOTES if ctx.has_cores else CORE_NOTES_TWO_TIERS
        view, notes = _first_fitting(lambda level: _detail_core(ctx, level), len(levels), levels)
    else:
        view = _all(ctx)
        positions = _stored_positions(fabric)
    return {
        "view": "detail",
        "scope": f"{kind}:{number + 1}" if kind in ("su", "pod") else kind,
        "elements": view.render(positions),
        "notes": notes,
        "counts": _counts(view),
    }


# --- edit documents -----------------------------------------------------------------------------


def _speeds(model: DeviceModel) -> set[int]:
    """Port speeds a model runs: its cages' speeds and their listed breakouts."""
    out = set()
    for group in model.port_groups:
        if group.port_speed_gbps:
            out.add(group.port_speed_gbps)
        for text in group.breakouts:
            try:
                speed = parse_breakout(text)[1]
            except ValueError:
                continue
            if group.ports_at(speed):
                out.add(speed)
    return out


def _plane_speeds(model: DeviceModel) -> set[int]:
    """A server's port split over 2, 4 or 8 planes (multi-plane fabrics)."""
    if model.category != "server":
        return set()
    return {
        g.port_speed_gbps // k
        for g in model.port_groups
        if g.port_speed_gbps
        for k in (2, 4, 8)
        if g.port_speed_gbps % k == 0
    }


def _supports(model: DeviceModel | None, speed: int) -> bool:
    return model is None or speed in _speeds(model) | _plane_speeds(model)


def common_speed(a: DeviceModel | None, b: DeviceModel | None) -> int | None:
    """The highest port speed both models run (a server's plane split only when nothing else
    is shared); None if they share none. An unknown model (fabric manager) runs anything."""
    if a is None and b is None:
        return None
    if a is None or b is None:
        known = a or b
        speeds = _speeds(known)
        return max(speeds) if speeds else None
    shared = _speeds(a) & _speeds(b)
    if shared:
        return max(shared)
    loose = (_speeds(a) | _plane_speeds(a)) & (_speeds(b) | _plane_speeds(b))
    return max(loose) if loose else None


def _ports_at(model: DeviceModel | None, speed: int) -> tuple[int, int]:
    """Logical ports and ports per cage of ``model`` at ``speed`` (as the generators count)."""
    if model is None:
        return 0, 1
    group = model.group_at(speed)
    if group is not None:
        return model.radix_at(speed), group.ports_per_cage * group.split_at(speed)
    if model.category == "server":
        for group in model.port_groups:
            native = group.port_speed_gbps
            if native and native % speed == 0:
                split = native // speed
                return model.ports * split, group.ports_per_cage * split
    return 0, 1


def _speed_list(model: DeviceModel) -> str:
    speeds = sorted(_speeds(model), reverse=True)
    return ", ".join(_speed_text(s) for s in speeds) or "no known speed"


@dataclass
class _Node:
    name: str
    role: str
    model: str
    device: DeviceModel | None
    ok: bool  # role and model usable
    extra: dict = field(default_factory=dict)


@dataclass
class _Link:
    index: int
    a: int
    b: int
    a_port: int  # 1-based
    b_port: int
    tier: str
    speed: int
    a_part: str | None
    b_part: str | None
    cable: str | None
    length: float | None
    media_ok: bool = True


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _nid(name: str) -> str:
    return f"node:{name}"


@dataclass
class _Parsed:
    nodes: list[_Node] = field(default_factory=list)
    links: list[_Link] = field(default_factory=list)
    problems: list[Violation] = field(default_factory=list)
    fabric: Fabric | None = None
    media: list = field(default_factory=list)  # (LinkGroup, _Media) per group of links

    def add(self, code, message, element_ids=(), field_name="", severity="error"):
        self.problems.append(
            Violation(
                code, message, field=field_name, element_ids=tuple(element_ids), severity=severity
            )
        )


_OPTIONAL_INTS = ("plane", "su", "rail", "group", "ru")


def _parse_nodes(document: dict, facts: CatalogFacts, out: _Parsed) -> dict[str, int]:
    raw_nodes = document.get("nodes")
    if not isinstance(raw_nodes, list):
        out.add("malformed", "A topology document has a list of nodes.", field_name="nodes")
        return {}
    names = Counter(
        raw.get("name")
        for raw in raw_nodes
        if isinstance(raw, dict) and isinstance(raw.get("name"), str)
    )
    for name, count in names.items():
        if count > 1:
            out.add(
                "duplicate-name",
                f"{count} nodes are named {name}; node names must be unique.",
                (_nid(name),),
                "nodes",
            )
    index: dict[str, int] = {}
    for i, raw in enumerate(raw_nodes):
        where = f"nodes[{i}]"
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
            out.add("malformed", f"Node {i + 1} needs a name.", field_name=where)
            continue
        name = raw["name"]
        if name in index:
            continue
        role, slug = raw.get("role"), raw.get("model")
        ok = True
        device = None
        if role not in EDIT_ROLES:
            out.add(
                "unknown-role",
                f"{name}: role {role!r} is not one of server, leaf, spine, core.",
                (_nid(name),),
                f"{where}.role",
            )
            ok = False
        elif role == "manager":
            slug = slug if isinstance(slug, str) and slug else MANAGER_MODEL
        else:
            device = facts.devices.get(slug) if isinstance(slug, str) else None
            wanted = "server" if role == "server" else "switch"
            if device is None:
                out.add(
                    "unknown-model",
                    f"{name}: no device model {slug!r} in the catalog.",
                    (_nid(name),),
                    f"{where}.model",
                )
                ok = False
            elif device.category != wanted:
                out.add(
                    "unknown-model",
                    f"{name} is a {role} but {slug} is a {device.category}, not a {wanted}.",
                    (_nid(name),),
                    f"{where}.model",
                )
                ok = False
        extra = {}
        for key in ("x", "y"):
            if raw.get(key) is not None:
                if _is_number(raw[key]):
                    extra[key] = float(raw[key])
                else:
                    out.add("malformed", f"{name}: {key} is a number.", (_nid(name),), where)
        for key in _OPTIONAL_INTS:
            if raw.get(key) is not None:
                if _is_int(raw[key]) and raw[key] >= 1:
                    extra[key] = int(raw[key])
                else:
                    out.add(
                        "malformed",
                        f"{name}: {key} is a whole number from 1.",
                        (_nid(name),),
                        where,
                    )
        if raw.get("rack") is not None:
            extra["rack"] = str(raw["rack"])
        index[name] = len(out.nodes)
        out.nodes.append(_Node(name, role or "", str(slug or ""), device, ok, extra))
    return index


def _tier_problem(out: _Parsed, link_id: str, a: _Node, b: _Node, where: str) -> None:
    if (b.role, a.role) in TIER_OF:
        message = (
            f"{link_id} has the {a.role} {a.name} as its a end and the {b.role} {b.name} as its "
            "b end: a is the lower tier (server → leaf → spine → core); swap a and b."
        )
    else:
        message = (
            f"{link_id} joins the {a.role} {a.name} to the {b.role} {b.name}: links join "
            "adjacent tiers only (server-leaf, leaf-spine, spine-core)."
        )
    out.add("tier-order", message, (link_id, _nid(a.name), _nid(b.name)), where)


def _parse_links(document: dict, index: dict[str, int], out: _Parsed) -> None:
    raw_links = document.get("links", [])
    if not isinstance(raw_links, list):
        out.add("malformed", "A topology document has a list of links.", field_name="links")
        return
    used: dict[tuple[int, int], list[int]] = defaultdict(list)
    for j, raw in enumerate(raw_links):
        link_id, where = f"link:{j}", f"links[{j}]"
        if not isinstance(raw, dict):
            out.add("malformed", f"{link_id} is not a mapping.", (link_id,), where)
            continue
        missing = [raw.get(end) for end in ("a", "b") if raw.get(end) not in index]
        if missing:
            names = " and ".join(repr(m) for m in missing)
            out.add("unknown-node", f"{link_id}: no node named {names}.", (link_id,), where)
            continue
        a, b = out.nodes[index[raw["a"]]], out.nodes[index[raw["b"]]]
        ids = (link_id, _nid(a.name), _nid(b.name))
        if a.name == b.name:
            out.add("self-link", f"{link_id} joins {a.name} to itself.", ids[:2], where)
            continue
        if not (a.ok and b.ok):
            continue  # the node's own problem is reported
        tier = TIER_OF.get((a.role, b.role))
        if tier is None:
            _tier_problem(out, link_id, a, b, where)
            continue
        ports = []
        for end in ("a_port", "b_port"):
            value = raw.get(end)
            if not _is_int(value) or value < 1:
                out.add(
                    "port-out-of-range",
                    f"{link_id}: {end} must be a port number from 1 (got {value!r}).",
                    ids,
                    f"{where}.{end}",
                )
            ports.append(value)
        if not all(_is_int(p) and p >= 1 for p in ports):
            continue
        speed = raw.get("speed_gbps")
        if speed is not None:
            if not _is_int(speed) or speed <= 0:
                out.add("malformed", f"{link_id}: speed_gbps is a whole number.", ids, where)
                continue
            unable = [node for node in (a, b) if not _supports(node.device, speed)]
            for node in unable:
                out.add(
                    "speed-unsupported",
                    f"{node.name} ({node.model}) cannot run {_speed_text(speed)} ports "
                    f"(it runs {_speed_list(node.device)}).",
                    (link_id, _nid(node.name)),
                    f"{where}.speed_gbps",
                )
            if unable:
                continue
        else:
            speed = common_speed(a.device, b.device)
            if speed is None:
                out.add(
                    "speed-unsupported",
                    f"{a.model} ({_speed_list(a.device) if a.device else 'any'}) and {b.model} "
                    f"({_speed_list(b.device) if b.device else 'any'}) share no port speed.",
                    ids,
                    where,
                )
                continue
        range_ok = True
        for node, port, end in ((a, ports[0], "a_port"), (b, ports[1], "b_port")):
            if node.device is None:
                continue
            count = _ports_at(node.device, speed)[0]
            if port > count:
                out.add(
                    "port-out-of-range",
                    f"{node.name} ({node.model}) has {count} ports at {_speed_text(speed)}; "
                    f"port {port} does not exist.",
                    (link_id, _nid(node.name)),
                    f"{where}.{end}",
                )
                range_ok = False
        if not range_ok:
            continue
        parts = []
        for key in ("a_part", "b_part", "cable"):
            value = raw.get(key)
            if value is not None and (not isinstance(value, str) or not value):
                out.add("malformed", f"{link_id}: {key} is a part slug.", ids, f"{where}.{key}")
                value = None
            parts.append(value or None)
        length = raw.get("length_m")
        if length is not None and (not _is_number(length) or length < 0):
            out.add("malformed", f"{link_id}: length_m is a length in metres.", ids, where)
            length = None
        link = _Link(
            j,
            index[raw["a"]],
            index[raw["b"]],
            ports[0],
            ports[1],
            tier,
            speed,
            *parts,
            float(length) if length is not None else None,
        )
        used[link.a, link.a_port].append(len(out.links))
        used[link.b, link.b_port].append(len(out.links))
        out.links.append(link)
    for (node, port), members in used.items():
        if len(members) > 1:
            name = out.nodes[node].name
            ids = [f"link:{out.links[m].index}" for m in members]
            out.add(
                "port-in-use",
                f"{name} port {port} is used by {len(members)} links ({', '.join(ids)}); a port "
                "takes one link.",
                (_nid(name), *ids),
                "links",
            )
            for m in members:
                out.links[m].media_ok = False


def _assemble(out: _Parsed) -> Fabric:
    """The nodes and links of a parsed document as a Fabric (no media yet)."""
    nodes, links = out.nodes, out.links
    n = len(nodes)
    models = list(dict.fromkeys(node.model for node in nodes))
    model_index = {slug: i for i, slug in enumerate(models)}
    speed = np.zeros(n, dtype=np.int64)
    top_port = np.zeros(n, dtype=np.int64)
    for link in links:
        for end, port in ((link.a, link.a_port), (link.b, link.b_port)):
            speed[end] = max(speed[end], link.speed)
            top_port[end] = max(top_port[end], port)
    ports = np.zeros(n, dtype=np.int32)
    per_cage = np.ones(n, dtype=np.int16)
    for i, node in enumerate(nodes):
        if node.device is None:
            ports[i] = top_port[i]
            continue
        at = int(speed[i]) or common_speed(node.device, node.device) or 0
        count, ppc = _ports_at(node.device, at) if at else (node.device.ports, 1)
        ports[i], per_cage[i] = count, ppc

    def column(key, dtype=np.int32):
        return np.array([node.extra.get(key, 0) - 1 for node in nodes], dtype=dtype)

    fabric = Fabric(
        models=models,
        node_name=[node.name for node in nodes],
        node_role=np.array([ROLE[node.role] for node in nodes], dtype=np.int8),
        node_model=np.array([model_index[node.model] for node in nodes], dtype=np.int16),
        node_plane=column("plane", np.int16),
        node_su=column("su"),
        node_rail=column("rail", np.int16),
        node_group=column("group"),
        node_ports=ports,
        node_ports_per_cage=per_cage,
    )
    is_switch = np.isin(fabric.node_role, [ROLE[r] for r in SWITCH_EDIT_ROLES])
    fabric.node_plane[is_switch & (fabric.node_plane < 0)] = 0
    racks = [node.extra["rack"] for node in nodes if "rack" in node.extra]
    if racks:
        names = list(dict.fromkeys(racks))
        kinds = {}
        for node in nodes:
            if "rack" in node.extra and node.role == "server":
                kinds[node.extra["rack"]] = "server"
        fabric.racks = [
            {"index": i, "name": name, "kind": kinds.get(name, "network")}
            for i, name in enumerate(names)
        ]
        where = {name: i for i, name in enumerate(names)}
        fabric.node_rack = np.array(
            [where.get(node.extra.get("rack"), -1) for node in nodes], dtype=np.int32
        )
        fabric.node_ru = np.array([node.extra.get("ru", 0) for node in nodes], dtype=np.int16)
    if any("x" in node.extra or "y" in node.extra for node in nodes):
        fabric.node_x = np.array([node.extra.get("x", np.nan) for node in nodes], dtype=np.float32)
        fabric.node_y = np.array([node.extra.get("y", np.nan) for node in nodes], dtype=np.float32)
    fabric.link_a = np.array([link.a for link in links], dtype=np.int32)
    fabric.link_b = np.array([link.b for link in links], dtype=np.int32)
    fabric.link_a_port = np.array([link.a_port - 1 for link in links], dtype=np.int32)
    fabric.link_b_port = np.array([link.b_port - 1 for link in links], dtype=np.int32)
    fabric.link_tier = np.array([TIER[link.tier] for link in links], dtype=np.int8)
    fabric.link_plane = np.maximum(fabric.node_plane[fabric.link_b], 0).astype(np.int16)
    fabric.link_speed_gbps = np.array([link.speed for link in links], dtype=np.int32)
    fabric.link_length_m = np.array(
        [np.nan if link.length is None else link.length for link in links], dtype=np.float32
    )
    return fabric


PART_CATEGORIES = {
    "a_part": ("transceiver", "cable"),
    "b_part": ("transceiver", "cable"),
    "cable": ("cable", "fiber"),
}


def _part(out: _Parsed, facts: CatalogFacts, link: _Link, key: str, categories) -> dict | None:
    slug = getattr(link, key)
    if slug is None:
        return None
    part = facts.parts.get(slug)
    link_id = f"link:{link.index}"
    if part is None:
        out.add(
            "unknown-part",
            f"{link_id}: no part {slug!r} in the catalog.",
            (link_id,),
            f"links[{link.index}].{key}",
        )
    elif part.get("category") not in categories:
        kinds = " or ".join(categories)
        out.add(
            "part-category",
            f"{link_id}: {slug} is a {part.get('category')}, not a {kinds}.",
            (link_id,),
            f"links[{link.index}].{key}",
        )
    else:
        return part
    link.media_ok = False
    return None


@dataclass
class _Media:
    """What one group of identical links carries (for the fabric's media columns)."""

    a: str | None = None
    b: str | None = None
    cable: str | None = None
    assembly: bool = False
    candidate: Candidate | None = None


def _group_ids(fabric: Fabric, links: np.ndarray, end: str | None = None) -> tuple[str, ...]:
    ids = [f"link:{i}" for i in links.tolist()]
    ends = (
        [fabric.link_a, fabric.link_b]
        if end is None
        else [fabric.link_a if end == "a" else fabric.link_b]
    )
    nodes = np.unique(np.concatenate([column[links] for column in ends]))
    return (*ids, *(f"node:{fabric.node_name[n]}" for n in nodes.tolist()))


def _check_media(out: _Parsed, facts: CatalogFacts, catalog: MediaCatalog) -> None:
    """Media of every link that is otherwise sound, group by group (as media selection)."""
    fabric = out.fabric
    groups: dict[tuple, list[int]] = defaultdict(list)
    for position, link in enumerate(out.links):
        if not link.media_ok or not (link.a_part or link.b_part or link.cable):
            continue
        for key, categories in PART_CATEGORIES.items():
            _part(out, facts, link, key, categories)
        if not link.media_ok:
            continue
        a, b = link.a, link.b
        key = (
            link.tier,
            int(fabric.node_model[a]),
            int(fabric.node_model[b]),
            int(fabric.node_ports_per_cage[a]),
            int(fabric.node_ports_per_cage[b]),
            link.speed,
            link.a_part,
            link.b_part,
            link.cable,
        )
        groups[key].append(position)
    for key, members in groups.items():
        tier, _, _, _, _, _, a_slug, b_slug, cable_slug = key
        links = np.asarray(members, dtype=np.int64)
        group = LinkGroup(fabric, tier, links, facts)
        media = _check_group(out, facts, catalog, group, a_slug, b_slug, cable_slug)
        if media is not None:
            out.media.append((group, media))


def _warn(out: _Parsed, fabric: Fabric, links: np.ndarray, warnings) -> None:
    for text in sorted(set(warnings)):
        out.add(
            "unverified", f"Cannot be proven: {text}", _group_ids(fabric, links), severity="warning"
        )


def _check_group(
    out, facts, catalog, group: LinkGroup, a_slug, b_slug, cable_slug
) -> _Media | None:
    fabric = out.fabric
    links = group.links
    parts = facts.parts
    cable = parts.get(cable_slug) if cable_slug else None
    is_manager = fabric.node_role[fabric.link_a[links[0]]] == ROLE["manager"]
    describe = f"{len(links)} link(s)" if len(links) > 1 else f"link:{int(links[0])}"
    if cable is not None and cable.get("category") == "cable":
        if any(slug not in (None, cable_slug) for slug in (a_slug, b_slug)):
            out.add(
                "cable-with-modules",
                f"{describe}: {cable_slug} is a cable assembly with its own ends; leave a_part "
                "and b_part empty (or name the cable).",
                _group_ids(fabric, links),
            )
            return None
        found, reason = cable_candidates(
            group, catalog, MediaChoice("parts", cable=cable_slug), {"cable": cable}
        )
        if not found:
            out.add("cable-mismatch", f"{describe}: {reason}", _group_ids(fabric, links))
            return None
        _warn(out, fabric, links, found[0].warnings)
        media = _Media(cable_slug, cable_slug, cable_slug, True, found[0])
        _check_reach(out, group, media)
        return media
    for slug in (a_slug, b_slug):
        if slug and parts[slug].get("category") == "cable":
            out.add(
                "cable-with-modules",
                f"{describe}: {slug} is a cable assembly; name it as the cable, not as a module.",
                _group_ids(fabric, links),
            )
            return None
    named = {
        "a": parts.get(a_slug) if a_slug and not is_manager else None,
        "b": parts.get(b_slug) if b_slug else None,
        "cable": cable,
    }
    fits = True
    warnings: list[str] = []
    for end, key, stage in ((group.a, "a", 1), (group.b, "b", 2)):
        part = named[key]
        if part is None:
            continue
        rejections = Rejections()
        options = module_options(catalog, end, group.speed, part, None, rejections, stage)
        if not options:
            out.add(
                "module-mismatch",
                f"{describe}: {end_reason(end, part, '', rejections, stage)}",
                _group_ids(fabric, links, key),
            )
            fits = False
        else:
            warnings += options[0][1]
    if not fits:
        return None
    media = _Media(a_slug if named["a"] else None, b_slug, cable_slug)
    if named["a"] and named["b"]:
        choice = MediaChoice("parts", a=a_slug, b=b_slug, cable=cable_slug)
        found, reason = optic_candidates(group, catalog, choice, named)
        if not found:
            out.add("optics-mismatch", f"{describe}: {reason}", _group_ids(fabric, links))
            return None
        ranked = rank_candidates(found, group, catalog)
        media.candidate = ranked[0] if cable is not None else max(ranked, key=lambda c: c.reach_m)
        warnings += media.candidate.warnings
    elif cable is not None:
        for part in (named["a"], named["b"]):
            if part is None:
                continue
            problems = fiber_fits_optic(fiber_of(cable), optic_of(part))
            errors = [p.message for p in problems if p.severity == "error"]
            if errors:
                out.add(
                    "optics-mismatch",
                    f"{describe}: {cable_slug} does not suit {part['slug']}: {' '.join(errors)}",
                    _group_ids(fabric, links),
                )
                return None
    _warn(out, fabric, links, warnings)
    _check_reach(out, group, media)
    return media


def _check_reach(out: _Parsed, group: LinkGroup, media: _Media) -> None:
    candidate = media.candidate
    if candidate is None:
        return
    fabric = out.fabric
    lengths = fabric.link_length_m[group.links].astype(np.float64)
    too_long = group.links[np.isfinite(lengths) & (lengths > candidate.reach_m + TOLERANCE_M)]
    if not too_long.size:
        return
    first = int(too_long[0])
    what = candidate.label if media.cable else f"{candidate.b} + {candidate.a}"
    others = (
        f"; {too_long.size - 1} other link(s) are too long as well" if too_long.size > 1 else ""
    )
    out.add(
        "reach-exceeded",
        f"link:{first} is {float(fabric.link_length_m[first]):g} m; {what} reaches "
        f"{candidate.reach_m:g} m{others}.",
        _group_ids(fabric, too_long),
    )


def _check_cages(out: _Parsed, facts: CatalogFacts) -> None:
    """One plug per cage: links through one cage must name the same module or cable head."""
    fabric = out.fabric
    seen: dict[tuple[int, int], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for link in out.links:
        if not link.media_ok:
            continue
        cable = facts.parts.get(link.cable) if link.cable else None
        assembly = link.cable if cable is not None and cable.get("category") == "cable" else None
        for node, port, slug in (
            (link.a, link.a_port - 1, link.a_part or assembly),
            (link.b, link.b_port - 1, link.b_part or assembly),
        ):
            if slug is None or fabric.node_role[node] == ROLE["manager"]:
                continue
            ppc = int(fabric.node_ports_per_cage[node])
            seen[node, port // ppc * ppc][slug].append(link.index)
    for (node, first_port), by_part in seen.items():
        if len(by_part) < 2:
            continue
        name = fabric.node_name[node]
        ids = sorted({f"link:{i}" for links in by_part.values() for i in links})
        out.add(
            "cage-mixed-plugs",
            f"The cage of {name} port {first_port + 1} holds one module or cable head, but its "
            f"links name {', '.join(sorted(by_part))}.",
            (_nid(name), *ids),
        )


def _parse(document, facts: CatalogFacts) -> _Parsed:
    out = _Parsed()
    if not isinstance(document, dict):
        out.add("malformed", "A topology document is a mapping with nodes and links.")
        return out
    index = _parse_nodes(document, facts, out)
    _parse_links(document, index, out)
    total = len(out.nodes) + len(out.links)
    if total > MAX_ELEMENTS:
        out.add(
            "too-large",
            f"The document has {total:,} nodes and links; hand edits are limited to "
            f"{MAX_ELEMENTS:,}: change larger fabrics through their spec.",
        )
        return out
    if not out.nodes:
        out.add("malformed", "A topology needs at least one node.", field_name="nodes")
        return out
    if any(not node.ok for node in out.nodes):
        return out
    out.fabric = _assemble(out)
    catalog = MediaCatalog(facts, None)
    _check_media(out, facts, catalog)
    _check_cages(out, facts)
    return out


def validate_edit(document, facts: CatalogFacts) -> list[Violation]:
    """Every problem of an edit document (errors, and warnings for facts the catalog lacks).

    Codes: ``malformed``, ``unknown-role``, ``unknown-model``, ``duplicate-name``,
    ``unknown-node``, ``self-link``, ``tier-order``, ``speed-unsupported``,
    ``port-out-of-range``, ``port-in-use``, ``unknown-part``, ``part-category``,
    ``cable-with-modules``, ``module-mismatch`` (a module does not fit its cage),
    ``optics-mismatch`` (the two modules or the fiber do not go together), ``cable-mismatch``,
    ``reach-exceeded``, ``cage-mixed-plugs``, ``too-large``; warnings ``unverified``.
    ``element_ids`` name the nodes and links (``link:<index in the document>``).
    """
    return _parse(document, facts).problems


def fabric_from_edit(document, facts: CatalogFacts) -> Fabric:
    """A :class:`Fabric` of a valid edit document: nodes and links in document order (so
    ``link:<i>`` stays the document's index), parts as named, positions in ``node_x/y``.

    Raises
    ------
    EditError
        The document has errors (``violations``: what :func:`validate_edit` reports).
    """
    out = _parse(document, facts)
    if out.fabric is None or any(p.severity == "error" for p in out.problems):
        raise EditError(out.problems)
    fabric = out.fabric
    _fill_media(fabric, out)
    nodes = out.nodes
    servers = [node for node in nodes if node.role == "server"]
    switch_tiers = {node.role for node in nodes if node.role in SWITCH_EDIT_ROLES}
    speeds = Counter(link.speed for link in out.links)
    planes = max([node.extra["plane"] for node in nodes if "plane" in node.extra] or [1])
    rails = [node.extra["rail"] for node in nodes if "rail" in node.extra]
    sus = [node.extra["su"] for node in servers if "su" in node.extra]
    manager_links = sum(1 for link in out.links if nodes[link.a].role == "manager")
    fabric.info = {
        "topology": "custom",
        "tiers": len(switch_tiers),
        "gpus": sum((node.device.gpus or node.device.ports) for node in servers if node.device),
        "servers": len(servers),
        "planes": planes,
        "speed_gbps": speeds.most_common(1)[0][0] if speeds else None,
        "rails": max(rails) if rails else None,
        "sus": max(sus) if sus else None,
        "reserved_leaf_ports": manager_links // planes,
        "media_warnings": sorted({p.message for p in out.problems if p.severity == "warning"}),
        "media_notes": [],
    }
    return fabric


def _fill_media(fabric: Fabric, out: _Parsed) -> None:
    count = fabric.link_count
    parts: list[str] = []
    index: dict[str, int] = {}

    def part(slug):
        if slug is None:
            return -1
        if slug not in index:
            index[slug] = len(parts)
            parts.append(slug)
        return index[slug]

    a_part = np.full(count, -1, dtype=np.int16)
    b_part = np.full(count, -1, dtype=np.int16)
    cable_part = np.full(count, -1, dtype=np.int16)
    a_key = np.full(count, -1, dtype=np.int64)
    b_key = np.full(count, -1, dtype=np.int64)
    cable_key = np.full(count, -1, dtype=np.int64)
    fabric.link_cable_length_m = fabric.link_length_m.copy()
    for group, media in out.media:
        links = group.links
        candidate = media.candidate
        if media.assembly:
            slot = part(media.cable)
            a_part[links] = b_part[links] = cable_part[links] = slot
            cable_key[links] = group.keys("b", candidate.b_group)
        else:
            if media.a:
                a_part[links] = part(media.a)
                a_key[links] = group.keys("a", group.a.ports_per_cage)
            if media.b:
                b_part[links] = part(media.b)
                b_key[links] = group.keys("b", group.b.ports_per_cage)
            if media.cable:
                cable_part[links] = part(media.cable)
                size = candidate.b_group if candidate is not None else 1
                cable_key[links] = group.keys("b", size)
        if candidate is not None and media.cable:  # listed lengths, else the ordering policy
            known = links[np.isfinite(fabric.link_length_m[links])]
            if known.size:
                keys = cable_key[known]
                order_lengths(fabric, known, keys, candidate.lengths)
    fabric.parts = parts
    fabric.link_a_part, fabric.link_b_part, fabric.link_cable_part = a_part, b_part, cable_part
    modules = dense_ids(np.concatenate([a_key, b_key]))
    fabric.link_a_module = modules[:count]
    fabric.link_b_module = modules[count:]
    fabric.link_cable = dense_ids(cable_key)


def edit_document(fabric: Fabric) -> dict:
    """The edit document of a fabric (the reverse of :func:`fabric_from_edit`): 1-based
    ports, parts by slug (a cable assembly only as ``cable``), stored positions or the
    preset tier positions of the whole-fabric view.

    Raises
    ------
    CanvasError
        The fabric has more than :data:`MAX_ELEMENTS` nodes + links (edit it in scopes or
        through its spec).
    """
    total = fabric.node_count + fabric.link_count
    if total > MAX_ELEMENTS:
        raise CanvasError(
            f"this fabric has {total:,} nodes and links; hand edits are limited to "
            f"{MAX_ELEMENTS:,}: change it through its spec, or open a scope to view it"
        )
    ctx = _context(fabric)
    view = _all(ctx)
    points = view._positions()
    positions = {entry["node"]: points[i] for i, entry in enumerate(view.entries)}
    positions.update(_stored_positions(fabric))
    nodes = []
    for i, name in enumerate(fabric.node_name):
        role = ROLES[int(fabric.node_role[i])]
        x, y = positions[i]
        node = {
            "name": name,
            "model": fabric.models[int(fabric.node_model[i])],
            "role": role,
            "x": round(x, 1),
            "y": round(y, 1),
        }
        for key, column in (
            ("plane", fabric.node_plane),
            ("su", fabric.node_su),
            ("rail", fabric.node_rail),
            ("group", fabric.node_group),
        ):
            value = int(column[i])
            if value >= 0 and not (key == "plane" and role == "server"):
                node[key] = value + 1
        rack = _rack_name(fabric, i)
        if rack is not None:
            node["rack"] = rack
            if fabric.node_ru is not None and fabric.node_ru[i] > 0:
                node["ru"] = int(fabric.node_ru[i])
        nodes.append(node)
    links = []
    parts = fabric.parts
    names = fabric.node_name
    for i in range(fabric.link_count):
        a_part = b_part = cable = None
        if fabric.link_a_part is not None:
            pa, pb, pc = (
                int(fabric.link_a_part[i]),
                int(fabric.link_b_part[i]),
                int(fabric.link_cable_part[i]),
            )
            cable = parts[pc] if pc >= 0 else None
            a_part = parts[pa] if pa >= 0 and pa != pc else None
            b_part = parts[pb] if pb >= 0 and pb != pc else None
        length = None
        if fabric.link_length_m is not None:
            length = _finite(fabric.link_length_m[i])
        links.append(
            {
                "a": names[int(fabric.link_a[i])],
                "a_port": int(fabric.link_a_port[i]) + 1,
                "b": names[int(fabric.link_b[i])],
                "b_port": int(fabric.link_b_port[i]) + 1,
                "speed_gbps": int(fabric.link_speed_gbps[i]),
                "a_part": a_part,
                "b_part": b_part,
                "cable": cable,
                "length_m": length,
            }
        )
    return {"nodes": nodes, "links": links}


# --- link options -------------------------------------------------------------------------------


class LinkOptions(list):
    """The media choices for one link (a list of option dicts, best first), with
    ``refusal`` (``[{code, message}]``, why there are none), ``speed_gbps``, ``a``, ``b``
    (model slugs, lower tier first) and ``notes``."""

    def __init__(self, *args):
        super().__init__(*args)
        self.refusal: list[dict] = []
        self.notes: list[str] = []
        self.speed_gbps: int | None = None
        self.a: str | None = None
        self.b: str | None = None

    def as_dict(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "speed_gbps": self.speed_gbps,
            "options": list(self),
            "refusal": self.refusal,
            "notes": self.notes,
        }


def _option(candidate: Candidate, catalog: MediaCatalog) -> dict:
    parts = catalog.facts.parts
    if candidate.kind == "cable":
        kind = (parts[candidate.cable].get("cable_type") or "cable").upper()
    else:
        kind = (parts[candidate.cable].get("fiber_type") or "fiber").upper()
    key = candidate.sort_key
    return {
        "a_part": candidate.a,
        "b_part": candidate.b,
        "cable": candidate.cable,
        "kind": kind,
        "reach_m": candidate.reach_m if math.isfinite(candidate.reach_m) else None,
        "price": None if key[0] else round(key[2], 2),
        "power_w": None if key[3] else round(key[4], 2),
        "lengths_m": list(candidate.lengths),
        "label": candidate.label,
    }


def link_options(
    a_model: str,
    b_model: str,
    *,
    facts: CatalogFacts,
    speed_gbps: int | None = None,
    length_m: float | None = None,
    price_of: PriceOf = None,
) -> LinkOptions:
    """Every compatible media choice for a link between the data ports of two device models.

    ``a_model`` is the lower-tier end (a server, or the leaf of a leaf-spine link); a switch
    given first with a server second is swapped (noted). The speed defaults to the highest
    both models run. Options ``{a_part, b_part, cable, kind (MMF, SMF, DAC, ACC, AEC, AOC),
    reach_m, price, power_w, lengths_m, label}`` are sorted by the media auto policy (price
    per link, then power, then fewest parts, then slug; :mod:`planner.domain.media`); a cable
    assembly has no ``a_part``/``b_part``. With ``length_m``, options that do not reach it are
    left out. When none remain, ``refusal`` says why.
    """
    result = LinkOptions()
    result.a, result.b = a_model, b_model
    devices = [facts.devices.get(a_model), facts.devices.get(b_model)]
    for slug, model in zip((a_model, b_model), devices, strict=True):
        if model is None:
            result.refusal.append(
                {"code": "unknown-model", "message": f"No device model {slug!r} in the catalog."}
            )
    if result.refusal:
        return result
    low, high = devices
    if low.category == "switch" and high.category == "server":
        low, high = high, low
        result.a, result.b = low.slug, high.slug
        result.notes.append("a is the lower-tier end: the server is a, the switch b.")
    if low.category == "server" and high.category == "server":
        result.refusal.append(
            {
                "code": "tier-order",
                "message": "Two servers are not linked directly: link each to a leaf.",
            }
        )
        return result
    shared = set(low.protocols) & set(high.protocols)
    if low.category == "switch" and low.protocols and high.protocols and not shared:
        result.refusal.append(
            {
                "code": "protocol-mismatch",
                "message": f"{low.slug} speaks {', '.join(low.protocols)}; {high.slug} "
                f"speaks {', '.join(high.protocols)} (rule 17).",
            }
        )
        return result
    speed = speed_gbps or common_speed(low, high)
    if speed is None:
        result.refusal.append(
            {
                "code": "no-common-speed",
                "message": f"{low.slug} runs {_speed_list(low)}; {high.slug} runs "
                f"{_speed_list(high)}: they share no port speed.",
            }
        )
        return result
    for model in (low, high):
        if not _supports(model, speed) or not _ports_at(model, speed)[0]:
            result.refusal.append(
                {
                    "code": "speed-unsupported",
                    "message": f"{model.slug} cannot run {_speed_text(speed)} ports (it runs "
                    f"{_speed_list(model)}).",
                }
            )
    if result.refusal:
        return result
    result.speed_gbps = speed
    tier = "server-leaf" if low.category == "server" else "leaf-spine"
    fabric = Fabric(
        models=[low.slug, high.slug],
        node_name=["a", "b"],
        node_role=np.array(
            [ROLE["server" if low.category == "server" else "leaf"], ROLE["spine"]], dtype=np.int8
        ),
        node_model=np.array([0, 1], dtype=np.int16),
        node_plane=np.zeros(2, dtype=np.int16),
        node_su=np.full(2, -1, dtype=np.int32),
        node_rail=np.full(2, -1, dtype=np.int16),
        node_group=np.full(2, -1, dtype=np.int32),
        node_ports=np.array([_ports_at(low, speed)[0], _ports_at(high, speed)[0]], dtype=np.int32),
        node_ports_per_cage=np.array(
            [_ports_at(low, speed)[1], _ports_at(high, speed)[1]], dtype=np.int16
        ),
        link_a=np.array([0], dtype=np.int32),
        link_a_port=np.array([0], dtype=np.int32),
        link_b=np.array([1], dtype=np.int32),
        link_b_port=np.array([0], dtype=np.int32),
        link_tier=np.array([TIER[tier]], dtype=np.int8),
        link_plane=np.zeros(1, dtype=np.int16),
        link_speed_gbps=np.array([speed], dtype=np.int32),
    )
    group = LinkGroup(fabric, tier, np.array([0]), facts)
    catalog = MediaCatalog(facts, price_of)
    choice = MediaChoice()
    optics, optics_reason = optic_candidates(group, catalog, choice, {})
    cables, cables_reason = cable_candidates(group, catalog, choice, {})
    ranked = rank_candidates(optics + cables, group, catalog)
    too_short = []
    for candidate in ranked:
        if length_m is not None and candidate.reach_m + TOLERANCE_M < length_m:
            too_short.append(candidate)
            continue
        result.append(_option(candidate, catalog))
    if result:
        return result
    if too_short:
        best = max(too_short, key=lambda c: c.reach_m)
        result.refusal.append(
            {
                "code": "out-of-reach",
                "message": f"Nothing reaches {length_m:g} m at {_speed_text(speed)}; the longest "
                f"is {best.reach_m:g} m ({best.label}).",
            }
        )
        return result
    for code, reason in (("no-optics", optics_reason), ("no-cable", cables_reason)):
        if reason:
            result.refusal.append({"code": code, "message": reason[0].upper() + reason[1:]})
    return result


__all__ = [
    "MAX_ELEMENTS",
    "CanvasError",
    "EditError",
    "LinkOptions",
    "common_speed",
    "detail_elements",
    "edit_document",
    "fabric_from_edit",
    "link_options",
    "overview_elements",
    "validate_edit",
    "violation_dict",
]
