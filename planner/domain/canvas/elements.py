"""Building Cytoscape.js elements: display entries (devices and aggregates), compound groups,
then links and bundles, with preset tier positions (the element format is described in
:mod:`planner.domain.canvas`). Which entries a view shows is :mod:`.views`' choice.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from planner.domain.canvas.common import finite, rack_name, speed_text
from planner.domain.canvas.racks import rack_label, rack_system, rack_trays, racks_label
from planner.domain.fabric import ROLE, ROLES, TIER_NAMES, Fabric
from planner.domain.names import Names, scheme_of

ROW_Y = {"core": 0.0, "spine": 300.0, "leaf": 600.0, "server": 1000.0}

STACK_DY = 45.0  # servers stacked in a rack column

GAP = {"device": 70.0, "aggregate": 180.0}

#: The widest shape (width / height) a drawing keeps: the tier rows of a wider one are spread
#: apart until it has this shape, so that "Fit" fills the canvas panel (about 1.4 to 1.8 times
#: as wide as it is tall) instead of drawing a thin strip (issue 37 item 6: an H100 4 SU whole
#: fabric is 9,000 wide and 1,000 tall).
FIT_ASPECT = 1.6


def row_spread(width: float, rows: list[str]) -> float:
    """How far apart the tier rows ``rows`` are drawn, as a factor of :data:`ROW_Y`'s spacing:
    1, or more for a drawing ``width`` wide that would otherwise be wider than
    :data:`FIT_ASPECT` times its height.

    >>> row_spread(9000.0, ["server", "leaf", "spine", "core"])
    5.625
    >>> row_spread(600.0, ["server", "leaf"])
    1.0
    >>> row_spread(9000.0, ["server"])
    1.0
    """
    ys = [ROW_Y[row] for row in rows]
    span = max(ys, default=0.0) - min(ys, default=0.0)
    return max(1.0, width / FIT_ASPECT / span) if span > 0 else 1.0


PLURAL = {
    "server": "servers",
    "manager": "fabric managers",
    "leaf": "leaves",
    "spine": "spines",
    "core": "cores",
}


@dataclass
class ViewContext:
    """Per-node facts every view needs (vectors over nodes)."""

    fabric: Fabric
    rail: bool  # scalable units exist (rail-optimized, or SUs kept through an edit)
    pod: np.ndarray
    plane: np.ndarray  # servers: -1 (shared by every plane); others >= 0
    group: np.ndarray  # core group of spines and cores, >= 0
    su: np.ndarray
    degree: np.ndarray
    has_cores: bool
    shown: np.ndarray | None = None  # nodes a plane filter keeps (None: every node)

    def role_nodes(self, role: str, mask: np.ndarray | None = None) -> np.ndarray:
        hit = self.fabric.node_role == ROLE[role]
        if mask is not None:
            hit = hit & mask
        if self.shown is not None:
            hit = hit & self.shown
        return np.flatnonzero(hit)


def view_context(fabric: Fabric, plane: int | None = None) -> ViewContext:
    """The per-node facts of ``fabric`` (pods, planes, groups, SUs, link counts).

    ``plane`` (0-based): show only that plane's switches (and managers), and every server.
    """
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
    planes = np.maximum(fabric.node_plane.astype(np.int64), 0)
    planes[is_server] = -1
    group = np.maximum(fabric.node_group.astype(np.int64), 0)
    degree = np.bincount(fabric.link_a, minlength=n) + np.bincount(fabric.link_b, minlength=n)
    return ViewContext(
        fabric=fabric,
        rail=rail,
        pod=pod,
        plane=planes,
        group=group,
        su=fabric.node_su.astype(np.int64),
        degree=degree,
        has_cores=bool((roles == ROLE["core"]).any()),
        shown=None if plane is None else (fabric.node_plane < 0) | (fabric.node_plane == plane),
    )


def _one_based(value) -> int | None:
    value = int(value)
    return value + 1 if value >= 0 else None


class View:
    """Display entries (devices and aggregates), compound groups, then links and bundles."""

    def __init__(self, ctx: ViewContext):
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
        points = self.positions()
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
        data = {
            "id": self.entry_id(entry),
            "label": fabric.node_name[node],
            "kind": "device",
            "role": role,
            "model": fabric.models[int(fabric.node_model[node])],
            "plane": _one_based(fabric.node_plane[node]),
            "su": _one_based(fabric.node_su[node]) if ctx.rail and role != "spine" else None,
            "pod": int(ctx.pod[node]) + 1 if role in ("server", "leaf", "spine") else None,
            "rail": _one_based(fabric.node_rail[node]),
            "rack": rack_name(fabric, node),
            "ru": int(fabric.node_ru[node])
            if fabric.node_ru is not None and fabric.node_ru[node] > 0
            else None,
            "ports": int(fabric.node_ports[node]),
            "port_scheme": scheme_of(fabric, node).as_dict(),
            "ports_used": int(ctx.degree[node]),
            "parent": entry["parent"],
        }
        system = rack_system(fabric, node) if role == "server" else None
        if system is not None:  # a rack of compute trays: named as a rack, trays listed
            data["name"] = data["label"]
            data["label"] = rack_label(fabric, node)
            data["compute_trays"] = int(system["compute_trays"])
            data["gpus"] = int(system["compute_trays"]) * int(system.get("gpus_per_tray") or 0)
            data["trays"] = rack_trays(fabric, node)
        return data

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
        if plane >= 0 and self.ctx.fabric.settings.planes > 1:
            bucket_label = f"Plane {plane + 1}" + (f" · {bucket_label}" if bucket_label else "")
        label = f"{count} {PLURAL[role]}"
        system = self.ctx.fabric.settings.rack_system
        if role == "server" and system and set(models) == {system.get("model")}:
            members = np.flatnonzero(self.disp == index)
            if all(rack_system(self.ctx.fabric, int(m)) for m in members[:1].tolist()):
                label = racks_label(system, count)
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

    def positions(self) -> list[tuple[float, float]]:
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
        spread = row_spread(width, list(rows))
        top = min((ROW_Y[row] for row in rows), default=0.0)
        out = []
        for row, column, slot in placed:
            count = len(rows[row]["columns"])
            y = top + (ROW_Y[row] - top) * spread - slot * STACK_DY
            out.append(((column + 0.5) * width / count, y))
        return out

    def _link_edges(self) -> list[dict]:
        fabric = self.ctx.fabric
        single = self.link_sets()[0]
        if not single.size:
            return []
        names = fabric.node_name
        parts = fabric.parts
        ports = Names(fabric)

        def slugs(column):
            if column is None:
                return [None] * single.size
            return [parts[p] if p >= 0 else None for p in column[single].tolist()]

        a_parts, b_parts = slugs(fabric.link_a_part), slugs(fabric.link_b_part)
        cables = slugs(fabric.link_cable_part)
        lengths = (
            [None] * single.size
            if fabric.link_length_m is None
            else [finite(v) for v in fabric.link_length_m[single].tolist()]
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
                        "a_port_name": ports.port(a, a_port),
                        "b_port_name": ports.port(b, b_port),
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
            label = f"{count} × {speed_text(lo)}" if lo == hi else f"{count} links"
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
