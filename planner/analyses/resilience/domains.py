"""Failure domains: which rack, row, hall, power feed, PDU, plane, SU, pod and switch tier each
element of a fabric belongs to, what each domain carries, and what is lost when it fails.

Kinds (:data:`DOMAIN_KINDS`) and their ids
    ``hall``   the building of a campus (``B1``, ``B2``, ...; one hall: ``B1``), from the layout
    ``row``    a row of racks (``R001``; on a campus ``B2-R001``), from the layout
    ``rack``   a rack by name (``R001-01``), from the layout
    ``feed``   a power feed across a hall (``A``; on a campus ``B2/A``): every rack fed from it
    ``pdu``    one rack's PDU on one feed (``R001-01/A``)
    ``plane``  a plane of a multi-plane fabric (``1``, ``2``): its switches (and its fabric
               manager); servers span every plane and are in none
    ``su``     a scalable unit of a rail-optimized fabric (``1``...): its servers and leaves
    ``pod``    a pod of a three-tier fabric (``1``...): its leaves and the spines above them
    ``tier``   every switch of one tier (``leaf``, ``spine``, ``core``)

Power feeds come from the spec's ``power`` block (kept as ``fabric.settings.power_feeds``):
``feeds`` for every rack, ``by_rack_kind`` over it for server or network racks. A device
stands on every feed of its rack: its power supplies are taken to be spread one per feed
(an assumption: the catalog does not say how many supplies a part has), so a device on A and
B belongs to both feed domains and keeps running when one fails; only the devices whose
every feed failed are lost. Without a ``power`` block the feeds are "not stated" and there
are no feed or PDU domains.

What a domain carries (:func:`elements_of_domain`) is its member nodes and every link with
an end on one of them. What is lost when it fails (:func:`lost_if_failed`) is the same for
every kind but feeds and PDUs, where only devices left with no live feed go down. The
summary (:func:`domain_summary`) counts per domain, for the failure:

- ``gpus``: GPUs of the servers that go down or keep no link into the fabric;
- ``links``: links lost (an end down);
- ``bisection_share``: the largest fraction of one tier's capacity lost (server-to-leaf
  counted as the summary counts it, server links only; leaf-spine; spine-core). The
  bisection formula is the smallest tier's capacity over two, so this is the share of the
  bisection that runs through the domain at its most exposed tier. The measured effect of
  one failure on the bisection is :func:`planner.analyses.resilience.graph.measure_graph`
  with ``failed_nodes``.

Everything is NumPy over the fabric's columns (no loop per node or link), so a 100,000-GPU
fabric's thousands of racks are summarised at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from planner.domain.fabric import ROLE, SWITCH_ROLES, TIER, Fabric

DOMAIN_KINDS = ("hall", "row", "rack", "feed", "pdu", "plane", "su", "pod", "tier")
NOT_STATED = "not stated"
KIND_LABELS = {
    "hall": "Hall / building",
    "row": "Row",
    "rack": "Rack",
    "feed": "Power feed",
    "pdu": "PDU (rack and feed)",
    "plane": "Plane",
    "su": "Scalable unit",
    "pod": "Pod",
    "tier": "Switch tier",
}
#: Tiers whose capacity the bisection formula compares (planner.domain.summary).
CAPACITY_TIERS = ("server-leaf", "leaf-spine", "spine-core")


@dataclass(frozen=True)
class DomainIndex:
    """Every domain of a fabric and its members, built by :func:`domain_index`.

    ``ids[kind]`` lists the domains of a kind in order; membership is given as pairs:
    ``member_node[kind][i]`` belongs to domain ``ids[kind][member_domain[kind][i]]`` (a node may
    be in several domains of one kind: a device on feeds A and B, a server in no plane).
    ``single[kind]`` (hall, row, rack, su, pod, tier) is the one domain of each node, ``-1``
    for none. ``rack_feeds[r]`` is the tuple of feeds of rack ``r`` (empty: not stated).
    """

    ids: dict[str, list[str]]
    member_node: dict[str, np.ndarray]
    member_domain: dict[str, np.ndarray]
    single: dict[str, np.ndarray]
    rack_feeds: list[tuple[str, ...]]
    feeds_stated: bool
    notes: list[str] = field(default_factory=list)
    #: One row per (rack, feed): rack index, feed domain, PDU domain (sorted by rack).
    feed_rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int32))

    def kinds(self) -> list[str]:
        """The kinds this fabric has domains of, in :data:`DOMAIN_KINDS` order."""
        return [kind for kind in DOMAIN_KINDS if self.ids.get(kind)]

    def position(self, kind: str, domain_id: str) -> int:
        """Index of ``domain_id`` in ``ids[kind]``.

        Raises
        ------
        KeyError
            No such kind or domain (the message names both).
        """
        if kind not in DOMAIN_KINDS:
            raise KeyError(f"no domain kind {kind!r}; kinds: {', '.join(DOMAIN_KINDS)}")
        try:
            return self.ids.get(kind, []).index(str(domain_id))
        except ValueError:
            raise KeyError(f"no {kind} {domain_id!r} in this design") from None

    def nodes_of(self, kind: str, domain_id: str) -> np.ndarray:
        """The member nodes of one domain (sorted node indices)."""
        where = self.position(kind, domain_id)
        return np.sort(self.member_node[kind][self.member_domain[kind] == where])


@dataclass(frozen=True)
class DomainElements:
    """Nodes and links of a domain (what it carries) or of its failure (what is lost).

    ``nodes`` and ``links`` are sorted indices into the fabric's columns; ``gpus`` counts the
    GPUs of the servers among ``nodes`` plus, for a failure, those of servers outside it left
    with no link (``gpus_cut_off`` of them); ``capacity_gbps`` is the capacity of ``links``
    per tier of :data:`CAPACITY_TIERS` (server-to-leaf: server links only).
    """

    kind: str
    domain_id: str
    nodes: np.ndarray
    links: np.ndarray
    gpus: int
    gpus_cut_off: int = 0
    capacity_gbps: dict[str, int] = field(default_factory=dict)

    def as_dict(self, fabric: Fabric) -> dict:
        roles = np.bincount(fabric.node_role[self.nodes], minlength=len(ROLE))
        return {
            "kind": self.kind,
            "id": self.domain_id,
            "nodes": int(self.nodes.size),
            "servers": int(roles[ROLE["server"]]),
            "switches": int(sum(roles[ROLE[r]] for r in SWITCH_ROLES)),
            "links": int(self.links.size),
            "gpus": self.gpus,
            "gpus_cut_off": self.gpus_cut_off,
            "capacity_gbps": dict(self.capacity_gbps),
        }


def gpus_per_server(fabric: Fabric) -> int:
    """GPUs connected per server node (a rack-scale system is one node: 72 for an NVL72)."""
    servers = int((fabric.node_role == ROLE["server"]).sum())
    return int(fabric.info.get("gpus") or 0) // servers if servers else 0


def _rack_feeds(fabric: Fabric, block: dict) -> tuple[list[tuple[str, ...]], bool]:
    default = tuple(block.get("feeds") or ())
    by_kind = block.get("by_rack_kind") or {}
    feeds = [tuple(by_kind.get(rack.get("kind"), default)) for rack in fabric.racks]
    return feeds, bool(block)


def domain_index(fabric: Fabric, power: dict | None = None) -> DomainIndex:
    """Every element's domains (see the module docstring for the kinds and their ids).

    Parameters
    ----------
    fabric
        A built fabric. Its layout (``racks``, ``node_rack``) gives halls, rows, racks and the
        racks' feeds; without a layout those kinds have no domains.
    power
        The spec's ``power`` block (``feeds``, ``by_rack_kind``); default: the one the fabric
        was built with, ``fabric.settings.power_feeds``; neither: feeds not stated.

    Returns
    -------
    DomainIndex

    Long because: one pass that assigns every element to each kind of domain (rack, row, PDU, plane,
    ...); the kinds share the element arrays.
    """
    n = fabric.node_count
    role = fabric.node_role
    nodes = np.arange(n, dtype=np.int32)
    ids: dict[str, list[str]] = {}
    single: dict[str, np.ndarray] = {}
    member_node: dict[str, np.ndarray] = {}
    member_domain: dict[str, np.ndarray] = {}
    notes: list[str] = []

    def put_single(kind: str, names: list[str], of_node: np.ndarray) -> None:
        ids[kind] = names
        single[kind] = of_node.astype(np.int32)
        keep = of_node >= 0
        member_node[kind] = nodes[keep]
        member_domain[kind] = of_node[keep].astype(np.int32)

    racks = fabric.racks
    block = fabric.settings.power_feeds if power is None else power
    rack_feeds, stated = _rack_feeds(fabric, block or {})
    feed_rows = np.zeros((0, 3), dtype=np.int32)
    if racks and fabric.node_rack is not None:
        node_rack = fabric.node_rack.astype(np.int32)
        building = np.array([r.get("building", 0) for r in racks], dtype=np.int32)
        campus = any("building" in r for r in racks)
        halls = int(building.max()) + 1 if building.size else 0
        put_single("hall", [f"B{b + 1}" for b in range(halls)], _lookup(building, node_rack))
        row_key = building.astype(np.int64) * 100_000 + np.array([r["row"] for r in racks])
        row_keys, rack_row = np.unique(row_key, return_inverse=True)
        row_names = [
            (f"B{k // 100_000 + 1}-" if campus else "") + f"R{k % 100_000 + 1:03d}"
            for k in row_keys.tolist()
        ]
        put_single("row", row_names, _lookup(rack_row.astype(np.int32), node_rack))
        put_single("rack", [r["name"] for r in racks], node_rack)
        if stated:
            feed_rows = _feed_domains(
                racks, rack_feeds, building, campus, node_rack, ids, member_node, member_domain
            )
            if not all(rack_feeds):
                notes.append(
                    f"{sum(not f for f in rack_feeds)} rack(s) of a kind the power block "
                    "names no feed for: feeds not stated there"
                )
    switch_like = role >= ROLE["manager"]
    planes = fabric.settings.planes
    if planes > 1:
        plane_of = np.where(switch_like, fabric.node_plane, -1).astype(np.int32)
        put_single("plane", [str(p + 1) for p in range(planes)], plane_of)
    if fabric.info.get("topology") == "rail-optimized":
        in_su = (role == ROLE["server"]) | (role == ROLE["leaf"])
        su_of = np.where(in_su, fabric.node_su, -1).astype(np.int32)
        if (su_of >= 0).any():
            put_single("su", [str(s + 1) for s in range(int(su_of.max()) + 1)], su_of)
    if (role == ROLE["core"]).any():
        pod_of = np.full(n, -1, dtype=np.int32)
        pod_of[role == ROLE["leaf"]] = fabric.node_group[role == ROLE["leaf"]]
        pod_of[role == ROLE["spine"]] = fabric.node_su[role == ROLE["spine"]]
        if (pod_of >= 0).any():
            put_single("pod", [str(p + 1) for p in range(int(pod_of.max()) + 1)], pod_of)
    tier_of = np.full(n, -1, dtype=np.int32)
    present = [r for r in SWITCH_ROLES if (role == ROLE[r]).any()]
    for position, name in enumerate(present):
        tier_of[role == ROLE[name]] = position
    put_single("tier", present, tier_of)
    return DomainIndex(
        ids=ids,
        member_node=member_node,
        member_domain=member_domain,
        single=single,
        rack_feeds=rack_feeds,
        feeds_stated=stated,
        notes=notes,
        feed_rows=feed_rows,
    )


def _lookup(per_rack: np.ndarray, node_rack: np.ndarray) -> np.ndarray:
    """Per node, ``per_rack`` of its rack (-1 for a node in no rack)."""
    out = np.full(node_rack.shape[0], -1, dtype=np.int32)
    placed = node_rack >= 0
    out[placed] = per_rack[node_rack[placed]]
    return out


def _feed_domains(racks, rack_feeds, building, campus, node_rack, ids, member_node, member_domain):
    """Feed and PDU membership: a node in rack r is on every feed of r (and its PDUs)."""
    feed_names: dict[tuple[int, str], int] = {}
    pdu_names: list[str] = []
    rack_feed_rows: list[tuple[int, int, int]] = []  # (rack, feed domain, pdu domain)
    for r, feeds in enumerate(rack_feeds):
        b = int(building[r])
        for feed in feeds:
            key = (b, feed)
            if key not in feed_names:
                feed_names[key] = len(feed_names)
            rack_feed_rows.append((r, feed_names[key], len(pdu_names)))
            pdu_names.append(f"{racks[r]['name']}/{feed}")
    ids["feed"] = [(f"B{b + 1}/" if campus else "") + f for (b, f) in feed_names]
    ids["pdu"] = pdu_names
    if not rack_feed_rows:
        for kind in ("feed", "pdu"):
            member_node[kind] = np.zeros(0, dtype=np.int32)
            member_domain[kind] = np.zeros(0, dtype=np.int32)
        return np.zeros((0, 3), dtype=np.int32)
    table = np.array(rack_feed_rows, dtype=np.int32)
    placed = np.flatnonzero(node_rack >= 0).astype(np.int32)
    order = np.argsort(node_rack[placed], kind="stable")
    placed = placed[order]
    # pair every placed node with every (feed, pdu) row of its rack: rows sorted by rack
    starts = np.searchsorted(table[:, 0], np.arange(len(racks)), side="left")
    counts = np.bincount(table[:, 0], minlength=len(racks))
    per_node = counts[node_rack[placed]]
    node_rep = np.repeat(placed, per_node)
    first = np.repeat(starts[node_rack[placed]], per_node)
    offset = np.arange(node_rep.size) - np.repeat(np.cumsum(per_node) - per_node, per_node)
    rows = table[first + offset]
    member_node["feed"] = member_node["pdu"] = node_rep
    member_domain["feed"] = rows[:, 1]
    member_domain["pdu"] = rows[:, 2]
    return table


def _tier_capacity(fabric: Fabric, links: np.ndarray | None = None) -> dict[str, int]:
    """Capacity (Gb/s) per tier of :data:`CAPACITY_TIERS`, as the summary counts it."""
    links = np.arange(fabric.link_count) if links is None else links
    tier = fabric.link_tier[links]
    speed = fabric.link_speed_gbps[links].astype(np.int64)
    server_end = fabric.node_role[fabric.link_a[links]] == ROLE["server"]
    out = {}
    for name in CAPACITY_TIERS:
        mask = tier == TIER[name]
        if name == "server-leaf":
            mask &= server_end
        out[name] = int(speed[mask].sum())
    return out


def _links_touching(fabric: Fabric, node_mask: np.ndarray) -> np.ndarray:
    return np.flatnonzero(node_mask[fabric.link_a] | node_mask[fabric.link_b])


def _cut_off_servers(fabric: Fabric, link_lost: np.ndarray, node_lost: np.ndarray) -> np.ndarray:
    """Servers not lost themselves whose every link is lost."""
    servers = fabric.node_role == ROLE["server"]
    a = fabric.link_a
    on_server = servers[a]
    total = np.bincount(a[on_server], minlength=fabric.node_count)
    lost = np.bincount(a[on_server & link_lost], minlength=fabric.node_count)
    return np.flatnonzero(servers & ~node_lost & (total > 0) & (lost == total))


def elements_of_domain(
    fabric: Fabric, domain_kind: str, domain_id: str, *, index: DomainIndex | None = None
) -> DomainElements:
    """What one domain carries: its member nodes, every link with an end on one of them, the
    GPUs of its servers and the capacity of those links per tier.

    A device on feeds A and B is a member of both feed domains (and of both PDUs of its
    rack); see :func:`lost_if_failed` for what a failure takes down.

    Raises
    ------
    KeyError
        No such kind or domain in this fabric.
    """
    index = index or domain_index(fabric)
    members = index.nodes_of(domain_kind, domain_id)
    mask = np.zeros(fabric.node_count, dtype=bool)
    mask[members] = True
    links = _links_touching(fabric, mask)
    servers = int((fabric.node_role[members] == ROLE["server"]).sum())
    return DomainElements(
        kind=domain_kind,
        domain_id=str(domain_id),
        nodes=members,
        links=links,
        gpus=servers * gpus_per_server(fabric),
        capacity_gbps=_tier_capacity(fabric, links),
    )


def lost_nodes_mask(
    fabric: Fabric, failed: list[tuple[str, str]], *, index: DomainIndex | None = None
) -> np.ndarray:
    """Per node, is it down when every domain of ``failed`` (``(kind, id)`` pairs) fails at
    once? A node on power feeds is down when all the feeds of its rack failed (a feed domain,
    or its rack's PDU on that feed); a member of any other failed domain is down.

    Raises
    ------
    KeyError
        An unknown kind or domain.
    """
    index = index or domain_index(fabric)
    down = np.zeros(fabric.node_count, dtype=bool)
    rows = index.feed_rows
    dead = np.zeros(rows.shape[0], dtype=bool)  # (rack, feed) rows without power
    for kind, domain_id in failed:
        where = index.position(kind, domain_id)
        if kind in ("feed", "pdu"):
            dead |= rows[:, 1 if kind == "feed" else 2] == where
            continue
        down[index.member_node[kind][index.member_domain[kind] == where]] = True
    if dead.any() and fabric.node_rack is not None:
        racks = len(fabric.racks)
        fed = np.bincount(rows[:, 0], minlength=racks)
        dark = (fed > 0) & (np.bincount(rows[dead, 0], minlength=racks) == fed)
        placed = fabric.node_rack >= 0
        down[placed] |= dark[fabric.node_rack[placed]]
    return down


def lost_if_failed(
    fabric: Fabric,
    domain_kind: str,
    domain_id: str,
    *,
    index: DomainIndex | None = None,
    also: list[tuple[str, str]] = (),
) -> DomainElements:
    """What is lost when one domain fails (with the domains in ``also`` failed beside it):
    the nodes that go down (:func:`lost_nodes_mask`), every link with an end down, the GPUs of
    the servers down or left with no link (``gpus_cut_off`` of them), and the capacity lost
    per tier. Feed its ``nodes`` and ``links`` to
    :func:`planner.analyses.resilience.graph.measure_graph` (``failed_nodes``,
    ``failed_links``) to measure the fabric without them.

    Raises
    ------
    KeyError
        No such kind or domain in this fabric.
    """
    index = index or domain_index(fabric)
    down = lost_nodes_mask(fabric, [(domain_kind, domain_id), *also], index=index)
    links = _links_touching(fabric, down)
    link_lost = np.zeros(fabric.link_count, dtype=bool)
    link_lost[links] = True
    cut_off = _cut_off_servers(fabric, link_lost, down)
    per = gpus_per_server(fabric)
    servers_down = int((fabric.node_role[down] == ROLE["server"]).sum())
    return DomainElements(
        kind=domain_kind,
        domain_id=str(domain_id),
        nodes=np.flatnonzero(down),
        links=links,
        gpus=(servers_down + int(cut_off.size)) * per,
        gpus_cut_off=int(cut_off.size) * per,
        capacity_gbps=_tier_capacity(fabric, links),
    )


def _single_kind_losses(fabric: Fabric, of_node: np.ndarray, count: int) -> dict[str, np.ndarray]:
    """Per domain of a one-domain-per-node kind, at once: links lost, GPUs lost (servers in it
    or cut off by it) and capacity lost per tier."""
    a, b = fabric.link_a, fabric.link_b
    da, db = of_node[a], of_node[b]
    speed = fabric.link_speed_gbps.astype(np.int64)
    tier = fabric.link_tier
    server_end = fabric.node_role[a] == ROLE["server"]

    def per_domain(weights: np.ndarray | None) -> np.ndarray:
        total = np.zeros(count, dtype=np.int64)
        for ends, keep in ((da, da >= 0), (db, (db >= 0) & (db != da))):
            w = None if weights is None else weights[keep]
            total += np.bincount(ends[keep], weights=w, minlength=count).astype(np.int64)
        return total

    out = {"links": per_domain(None)}
    for name in CAPACITY_TIERS:
        mask = tier == TIER[name]
        if name == "server-leaf":
            mask = mask & server_end
        out[name] = per_domain(np.where(mask, speed, 0))
    # GPUs: servers in the domain, and servers whose every link ends in the domain
    servers = fabric.node_role == ROLE["server"]
    per = gpus_per_server(fabric)
    in_domain = np.where(servers, of_node, -1)
    gpus = np.bincount(in_domain[in_domain >= 0], minlength=count) * per
    on_server = servers[a] & (da != db)
    if on_server.any():
        far = db[on_server]
        owner = a[on_server]
        lo = np.full(fabric.node_count, np.iinfo(np.int32).max, dtype=np.int64)
        hi = np.full(fabric.node_count, -2, dtype=np.int64)
        np.minimum.at(lo, owner, far)
        np.maximum.at(hi, owner, far)
        cut = servers & (lo == hi) & (lo >= 0) & (in_domain != lo)
        gpus = gpus + np.bincount(lo[cut], minlength=count) * per
    out["gpus"] = gpus
    return out


def domain_summary(fabric: Fabric, *, index: DomainIndex | None = None, worst: int = 5) -> dict:
    """Per kind of domain, what one failure costs (see the module docstring for the figures).

    Returns
    -------
    dict
        ``{"feeds_stated": bool, "notes": [...], "kinds": [{"kind", "label", "count",
        "largest": {"gpus", "links", "bisection_share"}, "worst": [{"id", "gpus", "links",
        "bisection_share", "members"}], "stated": bool}]}``: ``largest`` is the maximum of
        each figure over the kind's domains, ``worst`` the ``worst`` domains by bisection
        share then GPUs. Feed and PDU kinds are listed with ``stated`` false and no
        domains when the design states no feeds.
    """
    index = index or domain_index(fabric)
    capacity = _tier_capacity(fabric)
    kinds = []
    for kind in DOMAIN_KINDS:
        names = index.ids.get(kind) or []
        if kind in ("feed", "pdu") and not index.feeds_stated:
            if fabric.racks:
                kinds.append(_kind_row(kind, [], stated=False))
            continue
        if not names:
            continue
        members = np.bincount(index.member_domain[kind], minlength=len(names))
        if kind in index.single:
            losses = _single_kind_losses(fabric, index.single[kind], len(names))
            rows = [_row(names[d], losses, d, capacity, int(members[d])) for d in range(len(names))]
        elif kind == "pdu":
            rows = _pdu_rows(fabric, index, names, capacity, members)
        else:
            rows = []
            for d, name in enumerate(names):
                lost = lost_if_failed(fabric, kind, name, index=index)
                rows.append(
                    {
                        "id": name,
                        "members": int(members[d]),
                        "gpus": lost.gpus,
                        "links": int(lost.links.size),
                        "bisection_share": _share(lost.capacity_gbps, capacity),
                    }
                )
        kinds.append(_kind_row(kind, rows, stated=True, worst=worst))
    return {"feeds_stated": index.feeds_stated, "notes": list(index.notes), "kinds": kinds}


def _pdu_rows(fabric, index, names, capacity, members) -> list[dict]:
    """A PDU failure downs its rack only when the rack has no other feed."""
    rack_losses = _single_kind_losses(fabric, index.single["rack"], len(fabric.racks))
    rows = []
    position = 0
    for rack, feeds in enumerate(index.rack_feeds):
        for _ in feeds:
            if len(feeds) == 1:
                row = _row(names[position], rack_losses, rack, capacity, int(members[position]))
            else:
                row = {
                    "id": names[position],
                    "members": int(members[position]),
                    "gpus": 0,
                    "links": 0,
                    "bisection_share": 0.0,
                }
            rows.append(row)
            position += 1
    return rows


def _share(lost: dict[str, int], capacity: dict[str, int]) -> float:
    shares = [lost[t] / capacity[t] for t in CAPACITY_TIERS if capacity.get(t)]
    return round(max(shares), 6) if shares else 0.0


def _row(name, losses, d, capacity, members) -> dict:
    lost = {t: int(losses[t][d]) for t in CAPACITY_TIERS}
    return {
        "id": name,
        "members": members,
        "gpus": int(losses["gpus"][d]),
        "links": int(losses["links"][d]),
        "bisection_share": _share(lost, capacity),
    }


def _kind_row(kind: str, rows: list[dict], *, stated: bool, worst: int = 5) -> dict:
    largest = {
        key: (max(r[key] for r in rows) if rows else 0)
        for key in ("gpus", "links", "bisection_share")
    }
    ranked = sorted(rows, key=lambda r: (-r["bisection_share"], -r["gpus"], -r["links"]))
    return {
        "kind": kind,
        "label": KIND_LABELS[kind],
        "stated": stated,
        "count": len(rows),
        "largest": largest,
        "worst": ranked[:worst],
    }


__all__ = [
    "CAPACITY_TIERS",
    "DOMAIN_KINDS",
    "KIND_LABELS",
    "NOT_STATED",
    "DomainElements",
    "DomainIndex",
    "domain_index",
    "domain_summary",
    "elements_of_domain",
    "gpus_per_server",
    "lost_if_failed",
    "lost_nodes_mask",
]
