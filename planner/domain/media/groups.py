"""Link groups: links of one tier with the same end models, cage groups and speed.

Each group has few distinct situations, so candidates are evaluated once per group and then
applied to the links with NumPy. Modules: one per cage (``port // node_ports_per_cage``), so a
twin-port module in a twin-port cage carries both logical ports; a cage (or a group of ports
one cable serves) is keyed ``node << NODE_SHIFT | first port``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from inventory.library.compat import TOP_NAMES, Cage
from planner.domain.arrays import unique as unique_sorted
from planner.domain.catalog import CatalogFacts, DeviceModel
from planner.domain.fabric import Fabric
from planner.domain.names import link_name
from planner.domain.part_facts import end_cage, ports_per_cage_at

NODE_SHIFT = 20  # key = node << NODE_SHIFT | first port of the cage or group


@dataclass
class LinkEnd:
    """One end of a link group: the device model, its cage and logical ports per cage."""

    model: DeviceModel | None
    cage: Cage
    ports_per_cage: int

    @property
    def label(self) -> str:
        cage = self.cage
        if self.model is None:
            return "unknown device's cage"
        top = TOP_NAMES.get(cage.top or "", "")
        twin = "twin-port " if cage.ports_per_cage == 2 else ""
        bits = [self.model.slug, cage.form_factor or "unknown", top, f"{twin}cage"]
        return " ".join(b for b in bits if b)


class LinkGroup:
    """Links of one tier with the same end models, cage groups and speed.

    Built from a fabric's links (``LinkGroup(fabric, tier, links, facts)``), or from any links
    whose ends are given as arrays (:meth:`from_ends`: a cluster network's links, issue 18).
    """

    def __init__(self, fabric: Fabric, tier: str, links: np.ndarray, facts: CatalogFacts):
        self.fabric, self.tier, self.links = fabric, tier, links
        first = int(links[0])
        self.speed = int(fabric.link_speed_gbps[first])
        ends = []
        # ports per cage at this group's speed (a node whose other links run slower numbers
        # its ports at their speed: Fabric.link_port_scale)
        self._scale = {end: fabric.link_port_scale(links, end) for end in ("a", "b")}
        for node in (int(fabric.link_a[first]), int(fabric.link_b[first])):
            slug = fabric.models[int(fabric.node_model[node])]
            model, port_group, cage = end_cage(facts, slug, self.speed)
            per_cage = ports_per_cage_at(
                int(fabric.node_ports_per_cage[node]), port_group, self.speed
            )
            ends.append(LinkEnd(model, cage, per_cage))
        self.a, self.b = ends
        self._ends: dict | None = None
        self._describe = None
        self._keys: dict = {}
        self._structure: dict = {}

    @classmethod
    def from_ends(
        cls,
        tier: str,
        speed: int,
        a: LinkEnd,
        b: LinkEnd,
        ends: dict[str, tuple[np.ndarray, np.ndarray]],
        describe,
    ) -> LinkGroup:
        """A group of links outside a fabric's columns.

        Parameters
        ----------
        tier : str
            Named in messages (e.g. ``converged node-leaf``).
        speed : int
            The links' speed in Gb/s.
        a, b : LinkEnd
            The two ends' model, cage and logical ports per cage.
        ends : dict
            ``{"a": (nodes, ports), "b": (nodes, ports)}``: per link, an integer id of its
            device and its 0-based logical port at each end (ports of one cage numbered
            together, as a fabric's).
        describe : callable
            ``describe(i, length_m)``: the ``i``-th link (0-based) in words, for errors.
        """
        group = cls.__new__(cls)
        group.fabric, group.tier = None, tier
        group.links = np.arange(len(ends["a"][0]))
        group.speed, group.a, group.b = int(speed), a, b
        group._ends, group._describe = ends, describe
        group._keys, group._structure = {}, {}
        return group

    @property
    def size(self) -> int:
        """Number of links."""
        return int(self.links.size)

    def describe(self, index: int, length_m: float) -> str:
        """The ``index``-th link of the group (0-based) and its length, in words."""
        if self._describe is not None:
            return self._describe(index, length_m)
        return describe_link(self.fabric, int(self.links[index]), length_m, self.tier)

    @property
    def protocols(self) -> frozenset:
        """The link's protocols: those its switch ends share (host cages state none)."""
        known = [end.cage.protocols for end in (self.a, self.b) if end.cage.protocols]
        return frozenset.intersection(*known) if known else frozenset()

    def keys(self, end: str, size: int) -> np.ndarray:
        """Per link: node and first port of its group of ``size`` ports at ``end``."""
        if (end, size) not in self._keys:
            if self._ends is not None:
                nodes, ports = self._ends[end]
                span = size
            else:
                nodes = (self.fabric.link_a if end == "a" else self.fabric.link_b)[self.links]
                ports = (self.fabric.link_a_port if end == "a" else self.fabric.link_b_port)[
                    self.links
                ]
                # ``size`` ports at this group's speed span ``size * scale`` of the node's port
                # numbers: keys stay in those numbers, so a cage reached by links of two speeds
                # (server links and faster uplinks on one leaf) has one key from each
                span = size * self._scale[end].astype(np.int64)
            self._keys[end, size] = (nodes.astype(np.int64) << NODE_SHIFT) | (
                ports.astype(np.int64) // span * span
            )
        return self._keys[end, size]

    def structure_ok(self, a_size: int, b_size: int, legs: int) -> bool:
        """Can one cable join each b-end group of ``b_size`` ports to at most ``legs`` a-end
        groups of ``a_size`` ports, every a-end group wholly within one b-end group?"""
        key = (a_size, b_size, legs)
        if key not in self._structure:
            a_ids = np.unique(self.keys("a", a_size), return_inverse=True)[1]
            b_ids = np.unique(self.keys("b", b_size), return_inverse=True)[1]
            pairs = unique_sorted(a_ids.astype(np.int64) * (b_ids.max() + 1) + b_ids)
            pair_a, pair_b = pairs // (b_ids.max() + 1), pairs % (b_ids.max() + 1)
            one_b_per_a = np.bincount(pair_a).max() <= 1
            legs_ok = np.bincount(pair_b).max() <= legs
            self._structure[key] = bool(one_b_per_a and legs_ok)
        return self._structure[key]


def describe_link(fabric: Fabric, link: int, length: float, tier: str) -> str:
    return f"{tier} link {link_name(fabric, link)} ({length:g} m)"
