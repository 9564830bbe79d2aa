"""Reading an edit document's nodes and links (format in :mod:`planner.domain.canvas`):
every structural problem as a :class:`~inventory.library.rules.Violation`, and the sound
document assembled into a :class:`~planner.domain.fabric.Fabric` without media (parts and
media are :mod:`.edit_media`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from inventory.library.quantities import quantity_of, range_problem
from inventory.library.rules import Violation
from planner.domain.canvas.common import node_id, speed_text
from planner.domain.canvas.port_speeds import common_speed, ports_at, speed_list, supports
from planner.domain.catalog import CatalogFacts, DeviceModel
from planner.domain.fabric import ROLE, TIER, Fabric

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
#: The quantity of a link's ``length_m`` (looked up once, not per link).
LENGTH = quantity_of("length_m")


@dataclass
class EditNode:
    """A node of the document (``extra``: positions and the optional structure fields)."""

    name: str
    role: str
    model: str
    device: DeviceModel | None
    ok: bool  # role and model usable
    extra: dict = field(default_factory=dict)


@dataclass
class EditLink:
    """A link of the document that passed the structural checks (``index``: its place in
    the document, for ``link:<i>``)."""

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


@dataclass
class ParsedEdit:
    """What reading a document found: its nodes, links, problems, and once sound, the
    fabric and the media of each group of links."""

    nodes: list[EditNode] = field(default_factory=list)
    links: list[EditLink] = field(default_factory=list)
    problems: list[Violation] = field(default_factory=list)
    fabric: Fabric | None = None
    media: list = field(default_factory=list)  # (LinkGroup, edit_media._Media) per group of links

    def add(self, code, message, element_ids=(), field_name="", severity="error"):
        self.problems.append(
            Violation(
                code, message, field=field_name, element_ids=tuple(element_ids), severity=severity
            )
        )


_OPTIONAL_INTS = ("plane", "su", "rail", "group", "ru")


def parse_nodes(document: dict, facts: CatalogFacts, out: ParsedEdit) -> dict[str, int]:
    """Read the nodes into ``out``; returns the index of each node name.

    Long because: one loop that checks each node's fields in turn, each problem naming the node and
    the field.
    """
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
                (node_id(name),),
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
                (node_id(name),),
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
                    (node_id(name),),
                    f"{where}.model",
                )
                ok = False
            elif device.category != wanted:
                out.add(
                    "unknown-model",
                    f"{name} is a {role} but {slug} is a {device.category}, not a {wanted}.",
                    (node_id(name),),
                    f"{where}.model",
                )
                ok = False
        extra = {}
        for key in ("x", "y"):
            if raw.get(key) is not None:
                if _is_number(raw[key]):
                    extra[key] = float(raw[key])
                else:
                    out.add("malformed", f"{name}: {key} is a number.", (node_id(name),), where)
        for key in _OPTIONAL_INTS:
            if raw.get(key) is not None:
                if _is_int(raw[key]) and raw[key] >= 1:
                    extra[key] = int(raw[key])
                else:
                    out.add(
                        "malformed",
                        f"{name}: {key} is a whole number from 1.",
                        (node_id(name),),
                        where,
                    )
        if raw.get("rack") is not None:
            extra["rack"] = str(raw["rack"])
        index[name] = len(out.nodes)
        out.nodes.append(EditNode(name, role or "", str(slug or ""), device, ok, extra))
    return index


def _tier_problem(out: ParsedEdit, link_id: str, a: EditNode, b: EditNode, where: str) -> None:
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
    out.add("tier-order", message, (link_id, node_id(a.name), node_id(b.name)), where)


def _end(index: dict[str, int], value) -> int | None:
    """The node a link end names (its index), or None: not a node's name (an unknown name, or
    not a string at all, such as a list, which cannot even be looked up)."""
    return index.get(value) if isinstance(value, str) else None


def _unit_speeds(raw_links: list, index: dict[str, int], out: ParsedEdit) -> dict[int, int]:
    """Per node (by index), the slowest speed of its links in the document: the speed its
    port numbers count in (a leaf with faster uplinks numbers its ports at its server links'
    speed, and a faster link takes several of them, as the generator builds it)."""
    unit: dict[int, int] = {}
    for raw in raw_links:
        if not isinstance(raw, dict):
            continue
        a, b = _end(index, raw.get("a")), _end(index, raw.get("b"))
        if a is None or b is None:
            continue
        speed = raw.get("speed_gbps")
        if not (_is_int(speed) and speed > 0):
            devices = out.nodes[a].device, out.nodes[b].device
            speed = common_speed(*devices) if all(devices) else None
        if speed:
            for node in (a, b):
                unit[node] = min(unit.get(node, speed), int(speed))
    return unit


def parse_links(document: dict, index: dict[str, int], out: ParsedEdit) -> None:
    """Read the links between known nodes into ``out`` (ports, speeds, parts by slug).

    Long because: one loop that checks each link's ends and ports in turn, with two nested
    helpers sharing the per-model cache; its speed, parts and length and the ports in use are
    functions of their own.
    """
    raw_links = document.get("links", [])
    if not isinstance(raw_links, list):
        out.add("malformed", "A topology document has a list of links.", field_name="links")
        return
    unit = _unit_speeds(raw_links, index, out)
    used: dict[tuple[int, int], list[int]] = defaultdict(list)
    # What a model runs, asked for both ends of every link: kept per (model, speed) for this
    # document (a node's model names one catalog device throughout a parse).
    runs: dict[tuple[str, int], bool] = {}
    counts: dict[tuple[str, int], int] = {}

    def runs_at(node, speed: int) -> bool:
        key = (node.model, speed)
        if key not in runs:
            runs[key] = supports(node.device, speed)
        return runs[key]

    def ports_of(node, speed: int) -> int:
        key = (node.model, speed)
        if key not in counts:
            counts[key] = ports_at(node.device, speed)[0]
        return counts[key]

    node_ids = [node_id(node.name) for node in out.nodes]
    for j, raw in enumerate(raw_links):
        link_id, where = f"link:{j}", f"links[{j}]"
        if not isinstance(raw, dict):
            out.add("malformed", f"{link_id} is not a mapping.", (link_id,), where)
            continue
        a_index, b_index = _end(index, raw.get("a")), _end(index, raw.get("b"))
        if a_index is None or b_index is None:
            missing = [raw.get(end) for end in ("a", "b") if _end(index, raw.get(end)) is None]
            names = " and ".join(repr(m) for m in missing)
            out.add("unknown-node", f"{link_id}: no node named {names}.", (link_id,), where)
            continue
        a, b = out.nodes[a_index], out.nodes[b_index]
        ids = (link_id, node_ids[a_index], node_ids[b_index])
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
        speed = _link_speed(out, raw, a, b, ids, where, runs_at)
        if speed is None:
            continue
        range_ok = True
        for node, i, port, end in (
            (a, a_index, ports[0], "a_port"),
            (b, b_index, ports[1], "b_port"),
        ):
            if node.device is None:
                continue
            at = min(speed, unit.get(i, speed))
            count = ports_of(node, at)
            if not count:
                count, at = ports_of(node, speed), speed
            takes = max(1, speed // at)  # a faster link takes the ports of its lanes
            if port + takes - 1 > count:
                out.add(
                    "port-out-of-range",
                    f"{node.name} ({node.model}) has {count} ports at {speed_text(at)}; "
                    f"port {port} does not exist.",
                    (link_id, node_ids[i]),
                    f"{where}.{end}",
                )
                range_ok = False
        if not range_ok:
            continue
        parts, length = _parts_and_length(out, raw, link_id, ids, where)
        link = EditLink(
            j,
            a_index,
            b_index,
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
    _ports_in_use(out, used)


def _link_speed(out: ParsedEdit, raw: dict, a, b, ids: tuple, where: str, runs_at) -> int | None:
    """The link's speed: the one given, if both ends run it, else the ends' common speed;
    ``None`` with the problem added when there is none."""
    link_id = ids[0]
    speed = raw.get("speed_gbps")
    if speed is not None:
        if not _is_int(speed) or speed <= 0:
            out.add("malformed", f"{link_id}: speed_gbps is a whole number.", ids, where)
            return None
        unable = [node for node in (a, b) if not runs_at(node, speed)]
        for node in unable:
            out.add(
                "speed-unsupported",
                f"{node.name} ({node.model}) cannot run {speed_text(speed)} ports "
                f"(it runs {speed_list(node.device)}).",
                (link_id, node_id(node.name)),
                f"{where}.speed_gbps",
            )
        if unable:
            return None
    else:
        speed = common_speed(a.device, b.device)
        if speed is None:
            out.add(
                "speed-unsupported",
                f"{a.model} ({speed_list(a.device) if a.device else 'any'}) and {b.model} "
                f"({speed_list(b.device) if b.device else 'any'}) share no port speed.",
                ids,
                where,
            )
            return None
    return speed


def _parts_and_length(out: ParsedEdit, raw: dict, link_id: str, ids: tuple, where: str):
    """The link's parts by slug (``a_part``, ``b_part``, ``cable``) and its length in metres,
    each ``None`` when not given or malformed (the problem added)."""
    parts = []
    for key in ("a_part", "b_part", "cable"):
        value = raw.get(key)
        if value is not None and (not isinstance(value, str) or not value):
            out.add("malformed", f"{link_id}: {key} is a part slug.", ids, f"{where}.{key}")
            value = None
        parts.append(value or None)
    length = raw.get("length_m")
    problem = None
    if length is not None:  # a number of metres inside a cable's physical range
        problem = (
            range_problem("length_m", length, LENGTH)
            if _is_number(length)
            else "length_m is a length in metres"
        )
    if problem:
        out.add("malformed", f"{link_id}: {problem}.", ids, where)
        length = None
    return parts, length


def _ports_in_use(out: ParsedEdit, used: dict) -> None:
    """A problem for every port that more than one link takes; those links' media unchecked."""
    for (node, port), members in used.items():
        if len(members) > 1:
            name = out.nodes[node].name
            ids = [f"link:{out.links[m].index}" for m in members]
            peers = [out.links[m].b if out.links[m].a == node else out.links[m].a for m in members]
            to = ", ".join(out.nodes[peer].name for peer in peers)
            out.add(
                "port-in-use",
                f"{name} port {port} is used by {len(members)} links (to {to}); a port takes "
                "one link.",
                (node_id(name), *ids),
                "links",
            )
            for m in members:
                out.links[m].media_ok = False


def assemble(out: ParsedEdit) -> Fabric:
    """The nodes and links of a parsed document as a Fabric (no media yet)."""
    nodes, links = out.nodes, out.links
    n = len(nodes)
    models = list(dict.fromkeys(node.model for node in nodes))
    model_index = {slug: i for i, slug in enumerate(models)}
    # a node's ports count at its slowest link (the generator's numbering: a faster link
    # takes several of them; Fabric.node_unit_speed_gbps)
    # (Python lists in the loop: indexing a NumPy array element by element is slower)
    speed = [0] * n
    top_port = [0] * n
    for link in links:
        for end, port in ((link.a, link.a_port), (link.b, link.b_port)):
            speed[end] = min(speed[end], link.speed) if speed[end] else link.speed
            top_port[end] = max(top_port[end], port)
    ports = np.zeros(n, dtype=np.int32)
    per_cage = np.ones(n, dtype=np.int16)
    for i, node in enumerate(nodes):
        if node.device is None:
            ports[i] = top_port[i]
            continue
        at = speed[i] or common_speed(node.device, node.device) or 0
        count, ppc = ports_at(node.device, at) if at else (node.device.ports, 1)
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
