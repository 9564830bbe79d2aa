"""What the checks share: the run's context, link groups and their two ends, columnar helpers.

Link rules run once per *link group* (:class:`LinkGroup`): links with the same tier, speed,
end models and roles, ports per cage and parts. A group's two ends (:class:`End`) carry the
device, its cage and the facts the rules need. :class:`Context` holds the fabric, the catalog
facts, the collector and what checks compute once and share (module ends, wiring, cached
suggestions).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import NamedTuple

import numpy as np

from inventory.library.compat import TOP_NAMES, Cage
from planner.analyses.validate.report import Collector
from planner.domain.catalog import CatalogFacts, DeviceModel, PortGroup
from planner.domain.fabric import ROLES, SWITCH_ROLES, TIER, TIER_NAMES, Fabric
from planner.domain.part_facts import cage_of, port_group_of, ports_per_cage_at


class Finding(NamedTuple):
    """A finding of a link group, added to the report for every link of the group."""

    code: str
    message: str
    suggestion: str = ""
    severity: str | None = None  # None: the code's default severity


@dataclass
class End:
    """One end of a link group: device, cage and the facts the rules need."""

    role: str
    slug: str
    model: DeviceModel | None
    group: PortGroup | None
    cage: Cage
    ppc: int  # logical ports per cage in the fabric
    record: dict | None  # the device's catalog record
    nic: dict | None  # a server's compute NIC record

    @property
    def is_switch(self) -> bool:
        return self.role in SWITCH_ROLES

    @property
    def label(self) -> str:
        if self.model is None:
            return f"{self.slug} {self.role} port"
        cage = self.cage
        twin = "twin-port " if cage.ports_per_cage == 2 else ""
        bits = [self.slug, TOP_NAMES.get(cage.top or "", ""), cage.form_factor or "", f"{twin}cage"]
        return " ".join(bit for bit in bits if bit)

    def protocols(self) -> frozenset | None:
        if self.is_switch:
            return frozenset(self.model.protocols) if self.model and self.model.protocols else None
        if self.role == "server":
            if self.nic and self.nic.get("protocols"):
                return frozenset(self.nic["protocols"])
            if self.model and self.model.protocols:
                return frozenset(self.model.protocols)
        return None

    def stated(self, key: str):
        """A host capability stated on the device or its compute NIC (None = not stated)."""
        for record in (self.nic, self.record):
            if record and record.get(key) is not None:
                return record[key]
        return None


def make_end(
    fabric: Fabric, facts: CatalogFacts, node: int, speed_gbps: int, *, unit_speed: int = 0
) -> End:
    """The end of a link at ``node`` running ``speed_gbps``; a server's cage is completed from
    its compute NIC (cage-only and top-only limits, form factor, module power budget).
    ``unit_speed``: the speed the node's port numbers count in (its slowest link; default
    the link's own)."""
    slug = fabric.models[int(fabric.node_model[node])]
    role = ROLES[int(fabric.node_role[node])]
    model = facts.devices.get(slug)
    group = port_group_of(model, speed_gbps)
    cage = cage_of(model, group)
    record = facts.parts.get(slug)
    nic = None
    if role == "server" and record and record.get("compute_nic"):
        nic = facts.parts.get(record["compute_nic"])
    if nic:
        updates: dict = {}
        port = (nic.get("ports") or [{}])[0]
        for limit in nic.get("limits") or []:
            only = limit.get("code") == "cage-only" and limit.get("form_factors")
            if only and cage.form_factor is None:
                updates["form_factor"] = limit["form_factors"][0]
            if limit.get("code") == "top-only" and limit.get("top") and cage.top is None:
                updates["top"] = limit["top"]
        if cage.form_factor is None and port.get("form_factor") and "form_factor" not in updates:
            updates["form_factor"] = port["form_factor"]
        if cage.max_module_power_w is None and port.get("max_module_power_w"):
            updates["max_module_power_w"] = port["max_module_power_w"]
        if updates:
            cage = replace(cage, **updates)
    per_cage = ports_per_cage_at(int(fabric.node_ports_per_cage[node]), group, speed_gbps)
    return End(role, slug, model, group, cage, per_cage, record, nic)


@dataclass
class LinkGroup:
    """Links alike in tier, speed, ends and parts; ``a`` is the lower-tier end."""

    links: np.ndarray
    tier: str
    speed: int  # Gb/s
    a: End
    b: End
    a_slug: str | None
    b_slug: str | None
    cable_slug: str | None
    a_part: dict | None
    b_part: dict | None
    cable: dict | None
    kind: str = "none"  # the media kind (registry.MEDIA_KINDS)
    memo: dict = field(default_factory=dict)  # per-group results shared by chunk checks

    @property
    def manager(self) -> bool:
        return self.a.role == "manager"

    @property
    def assembly(self) -> bool:
        return self.cable is not None and self.cable.get("category") == "cable"

    def link_protocols(self) -> frozenset | None:
        known = [p for p in (self.a.protocols(), self.b.protocols()) if p]
        if not known:
            return None
        out = known[0]
        for other in known[1:]:
            out = out & other
        return out

    @property
    def is_xdr(self) -> bool:
        """A 200G-per-lane (XDR) link: a cage or part of it runs 200G lanes (rule 15).

        A host cage may downshift to the lane rate of the rest of the link (rule 22: a
        ConnectX-8 port split 2 x 400G runs 100G lanes), so its own rate counts only when
        nothing else on the link states one."""
        rates = [
            end.group.lane_rate_gbps for end in (self.a, self.b) if end.group and end.is_switch
        ]
        for part in (self.a_part, self.b_part, self.cable):
            if part:
                rates.append(part.get("lane_rate_gbps"))
        if not any(rates):
            rates = [end.group.lane_rate_gbps for end in (self.a, self.b) if end.group]
        return 200 in rates

    def other_part(self, end: End) -> dict | None:
        """The module at the far end from ``end``."""
        return self.b_part if end is self.a else self.a_part


def _media_kind(g: LinkGroup) -> str:
    if g.manager:
        return "manager"
    slugs = ((g.a_slug, g.a_part), (g.b_slug, g.b_part), (g.cable_slug, g.cable))
    if all(slug is None for slug, _ in slugs):
        return "missing"
    if any(slug and part is None for slug, part in slugs):
        return "unknown-part"
    return "cable" if g.assembly else "optics"


class ModuleEnds(NamedTuple):
    """Link ends that sit in a module (valid links), sorted by module id."""

    links: np.ndarray
    modules: np.ndarray
    parts: np.ndarray  # part index of each end (-1: none)
    start: np.ndarray  # first row of each module id
    sizes: np.ndarray  # rows per module id
    per_link: np.ndarray  # module number (0..) of each row


class CableRuns(NamedTuple):
    """Valid links on a cable or fiber id with a part, grouped by that id."""

    links: np.ndarray
    parts: np.ndarray  # cable part index of each link
    first: np.ndarray  # position in ``links`` of each cable id's first link
    inverse: np.ndarray  # cable id number (0..) of each link
    counts: np.ndarray  # links per cable id


class Wiring(NamedTuple):
    """The valid links of a fabric with nodes, for the fabric checks."""

    links: np.ndarray
    a: np.ndarray
    b: np.ndarray


class Context:
    """One validation run: the fabric, the catalog facts and what the checks share.

    Parameters
    ----------
    fabric : Fabric
        The fabric validated.
    facts : CatalogFacts
        The catalog it was built from.

    Attributes
    ----------
    out : Collector
        Where checks add problems.
    valid : numpy.ndarray of bool
        Links whose two ends are distinct existing nodes.
    has_media : bool
        The fabric has module columns (``link_a_part``, ``link_b_part``).
    scopes : set of str
        Rule-catalog scopes run so far.
    power : dict
        Power totals of modules and cable ends (W), filled by the module stage.
    memo : dict
        Results checks cache across groups (suggestions).
    transceivers, cables, fibers : list of dict
        Catalog parts by category, by slug, for suggestions.
    """

    def __init__(self, fabric: Fabric, facts: CatalogFacts):
        self.fabric, self.facts = fabric, facts
        self.out = Collector(fabric)
        self.scopes: set[str] = set()
        self.power = {"modules_w": 0.0, "cable_ends_w": 0.0, "unknown_modules": 0}
        self.memo: dict = {}
        seen: set[str] = set()
        self.transceivers: list[dict] = []
        self.cables: list[dict] = []
        self.fibers: list[dict] = []
        buckets = {"transceiver": self.transceivers, "cable": self.cables, "fiber": self.fibers}
        for slug in sorted(facts.parts):
            part = facts.parts[slug]
            if part.get("slug", slug) != slug or slug in seen:
                continue
            seen.add(slug)
            if part.get("category") in buckets:
                buckets[part["category"]].append(part)
        n = fabric.node_count
        a, b = fabric.link_a, fabric.link_b
        self.valid = (a >= 0) & (a < n) & (b >= 0) & (b < n) & (a != b)
        self.has_media = fabric.link_a_part is not None and fabric.link_b_part is not None
        self.unit_speed = fabric.node_unit_speed_gbps()  # per node (Fabric.link_port_scale)

    def group(self, members: np.ndarray) -> LinkGroup:
        """The link group of ``members`` (links alike in every grouping column)."""
        fabric, facts = self.fabric, self.facts
        first = int(members[0])
        speed = int(fabric.link_speed_gbps[first])
        unit = self.unit_speed
        a_node, b_node = int(fabric.link_a[first]), int(fabric.link_b[first])
        a = make_end(fabric, facts, a_node, speed, unit_speed=int(unit[a_node]))
        b = make_end(fabric, facts, b_node, speed, unit_speed=int(unit[b_node]))
        slugs: list[str | None] = [None, None, None]
        parts: list[dict | None] = [None, None, None]
        if self.has_media:
            columns = (fabric.link_a_part, fabric.link_b_part, fabric.link_cable_part)
            for i, column in enumerate(columns):
                index = -1 if column is None else int(column[first])
                if index >= 0:
                    slugs[i] = fabric.parts[index]
                    parts[i] = facts.parts.get(slugs[i])
        tier = TIER_NAMES[int(fabric.link_tier[first])]
        g = LinkGroup(members, tier, speed, a, b, *slugs, *parts)
        if self.has_media:
            g.kind = _media_kind(g)
        return g

    def group_columns(self, links: np.ndarray) -> list[np.ndarray]:
        """The columns that define link groups, for ``links``."""
        fabric = self.fabric
        a, b = fabric.link_a[links], fabric.link_b[links]
        columns = [
            fabric.link_tier[links],
            fabric.link_speed_gbps[links],
            fabric.node_model[a],
            fabric.node_model[b],
            fabric.node_role[a],
            fabric.node_role[b],
            fabric.node_ports_per_cage[a] // fabric.link_port_scale(links, "a"),
            fabric.node_ports_per_cage[b] // fabric.link_port_scale(links, "b"),
        ]
        if self.has_media:
            none = np.full(links.size, -1, dtype=np.int64)
            columns += [
                fabric.link_a_part[links],
                fabric.link_b_part[links],
                none if fabric.link_cable_part is None else fabric.link_cable_part[links],
            ]
        return columns

    @cached_property
    def module_ends(self) -> ModuleEnds | None:
        """Valid link ends in a module, sorted by module id (None: no module columns)."""
        fabric = self.fabric
        count = fabric.link_count
        if fabric.link_a_module is None or fabric.link_b_module is None or not count:
            return None
        links = np.concatenate([np.arange(count), np.arange(count)])
        modules = np.concatenate([fabric.link_a_module, fabric.link_b_module]).astype(np.int64)
        parts = np.concatenate([fabric.link_a_part, fabric.link_b_part]).astype(np.int64)
        keep = (modules >= 0) & self.valid[links]
        links, modules, parts = links[keep], modules[keep], parts[keep]
        if not links.size:
            return None
        order = np.argsort(modules, kind="stable")
        links, modules, parts = links[order], modules[order], parts[order]
        _, start, sizes = np.unique(modules, return_index=True, return_counts=True)
        per_link = np.repeat(np.arange(start.size), sizes)
        return ModuleEnds(links, modules, parts, start, sizes, per_link)

    @cached_property
    def cable_runs(self) -> CableRuns | None:
        """Valid links on an identified cable or fiber (None: no cable columns or none)."""
        fabric = self.fabric
        if fabric.link_cable is None or fabric.link_cable_part is None:
            return None
        cable = fabric.link_cable.astype(np.int64)
        keep = (cable >= 0) & (fabric.link_cable_part >= 0) & self.valid
        if not keep.any():
            return None
        links = np.flatnonzero(keep)
        parts = fabric.link_cable_part[links].astype(np.int64)
        _, first, inverse, counts = np.unique(
            cable[links], return_index=True, return_inverse=True, return_counts=True
        )
        return CableRuns(links, parts, first, inverse, counts)

    @cached_property
    def wiring(self) -> Wiring | None:
        """The valid links and their ends (None: no valid link, or no node)."""
        fabric = self.fabric
        links = np.flatnonzero(self.valid)
        if not links.size or not fabric.node_count:
            return None
        a, b = fabric.link_a[links].astype(np.int64), fabric.link_b[links].astype(np.int64)
        return Wiring(links, a, b)

    @cached_property
    def links_by_tier(self) -> dict[str, np.ndarray]:
        """Valid links per tier name."""
        fabric = self.fabric
        links = np.flatnonzero(self.valid)
        return {tier: links[fabric.link_tier[links] == TIER[tier]] for tier in TIER_NAMES}


def unknown(fact: str, who: list[str]) -> str:
    """The message of a check that cannot be made.

    Examples
    --------
    >>> unknown("reach", ["sfp-1", "fiber-2"])
    'cannot be verified: reach unknown for sfp-1 and fiber-2'
    """
    return f"cannot be verified: {fact} unknown for {' and '.join(who) or 'a part'}"


def errors(problems) -> list:
    """The errors among compat findings."""
    return [p for p in problems if p.severity == "error"]


def chunks(links: np.ndarray, step: int) -> Iterator[np.ndarray]:
    """``links`` in slices of at most ``step``."""
    for start in range(0, links.size, step):
        yield links[start : start + step]


def row_groups(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Group rows by the values of ``columns``: (order of rows by group, rows per group).

    Examples
    --------
    >>> order, counts = row_groups([np.array([2, 1, 2]), np.array([0, 0, 0])])
    >>> order.tolist(), counts.tolist()
    ([1, 0, 2], [1, 2])
    """
    key = np.zeros(columns[0].shape[0], dtype=np.int64)
    span = 1
    for column in columns:
        column = column.astype(np.int64)
        low = int(column.min())
        width = int(column.max()) - low + 1
        if span * width >= 2**62:
            key = np.unique(key, return_inverse=True)[1].astype(np.int64)
            span = int(key.max()) + 1
        key = key * width + (column - low)
        span *= width
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return np.argsort(inverse, kind="stable"), counts


__all__ = [
    "CableRuns",
    "Context",
    "End",
    "Finding",
    "LinkGroup",
    "ModuleEnds",
    "Wiring",
    "chunks",
    "errors",
    "make_end",
    "row_groups",
    "unknown",
]
