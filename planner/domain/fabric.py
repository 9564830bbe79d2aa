"""The generated fabric: nodes and links in columns (NumPy arrays), fast at 100,000 GPUs.

A node is a server, a fabric-manager endpoint, or a leaf, spine or core switch. A link joins
port ``a_port`` of node ``a`` (the lower-tier end) to port ``b_port`` of node ``b`` (the upper
end). Ports are logical ports at the link's speed; a cage holds ``ports_per_cage`` of them.
Layout (rack, RU, length) and media (modules, cables) are filled in by later steps. A
hand-drawn or hand-edited topology (:mod:`planner.domain.canvas`) also stores each node's
canvas position (``node_x``, ``node_y``; NaN where a node was not placed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from planner.domain.settings import FabricSettings

ROLES = ("server", "manager", "leaf", "spine", "core")
ROLE = {name: code for code, name in enumerate(ROLES)}
TIER_NAMES = ("server-leaf", "leaf-spine", "spine-core")
TIER = {name: code for code, name in enumerate(TIER_NAMES)}
SWITCH_ROLES = ("leaf", "spine", "core")
#: Links between two buildings of a campus (planner.domain.campus): a tier of their own in
#: summaries, power, the BOM and the cabling plan (``link_tier`` keeps their topology tier).
CAMPUS_TIER = "campus"
REPORT_TIER_NAMES = (*TIER_NAMES, CAMPUS_TIER)


class FabricError(ValueError):
    """A spec that cannot be built, with the field at fault and a way out."""

    def __init__(self, message: str, *, field: str = ""):
        super().__init__(message)
        self.field = field


def _empty(dtype) -> np.ndarray:
    return np.zeros(0, dtype=dtype)


@dataclass
class Fabric:
    """Columns of nodes and links (see module docstring)."""

    models: list[str] = field(default_factory=list)
    # nodes
    node_name: list[str] = field(default_factory=list)
    node_role: np.ndarray = field(default_factory=lambda: _empty(np.int8))
    node_model: np.ndarray = field(default_factory=lambda: _empty(np.int16))
    node_plane: np.ndarray = field(default_factory=lambda: _empty(np.int16))
    node_su: np.ndarray = field(default_factory=lambda: _empty(np.int32))
    node_rail: np.ndarray = field(default_factory=lambda: _empty(np.int16))
    node_group: np.ndarray = field(default_factory=lambda: _empty(np.int32))
    node_ports: np.ndarray = field(default_factory=lambda: _empty(np.int32))
    node_ports_per_cage: np.ndarray = field(default_factory=lambda: _empty(np.int16))
    # links
    link_a: np.ndarray = field(default_factory=lambda: _empty(np.int32))
    link_a_port: np.ndarray = field(default_factory=lambda: _empty(np.int32))
    link_b: np.ndarray = field(default_factory=lambda: _empty(np.int32))
    link_b_port: np.ndarray = field(default_factory=lambda: _empty(np.int32))
    link_tier: np.ndarray = field(default_factory=lambda: _empty(np.int8))
    link_plane: np.ndarray = field(default_factory=lambda: _empty(np.int16))
    link_speed_gbps: np.ndarray = field(default_factory=lambda: _empty(np.int32))
    # facts measured on the nodes and links, for the summary
    info: dict = field(default_factory=dict)
    # what the design asks for (transport, layout, networks ...; planner.domain.settings)
    settings: FabricSettings = field(default_factory=FabricSettings)
    # layout (rack index and lowest RU per node; racks described in ``racks``)
    racks: list[dict] = field(default_factory=list)
    node_rack: np.ndarray | None = None
    node_ru: np.ndarray | None = None
    # canvas positions of a hand-drawn or hand-edited topology (NaN = not placed)
    node_x: np.ndarray | None = None
    node_y: np.ndarray | None = None
    # media
    parts: list[str] = field(default_factory=list)
    link_length_m: np.ndarray | None = None  # cable run, metres
    link_cable_length_m: np.ndarray | None = None  # length of the cable ordered for the link
    link_a_part: np.ndarray | None = None  # index into parts, -1 = none
    link_b_part: np.ndarray | None = None
    link_cable_part: np.ndarray | None = None
    link_a_module: np.ndarray | None = None  # links sharing a module share the id; -1 = none
    link_b_module: np.ndarray | None = None
    link_cable: np.ndarray | None = None  # links sharing a cable share the id
    # the other networks (storage, in-band, OOB, converged, management) as devices and links,
    # built once by the pipeline from ``settings.networks`` and stored beside the compute
    # columns (None: not built yet, e.g. a fabric stored before they were kept; read them
    # with planner.domain.networks.elements.network_elements). A ClusterElements, typed
    # loosely here: that module builds on this one, and the fabric imports nothing above it.
    networks: object | None = None
    # their stored columns until first read (a loaded fabric decodes them only when a page,
    # export or job asks for them: the compute fabric's loads stay as fast as before)
    network_columns: dict | None = field(default=None, repr=False, compare=False)

    NODE_COLUMNS = (
        "node_role",
        "node_model",
        "node_plane",
        "node_su",
        "node_rail",
        "node_group",
        "node_ports",
        "node_ports_per_cage",
        "node_rack",
        "node_ru",
        "node_x",
        "node_y",
    )
    LINK_COLUMNS = (
        "link_a",
        "link_a_port",
        "link_b",
        "link_b_port",
        "link_tier",
        "link_plane",
        "link_speed_gbps",
        "link_length_m",
        "link_cable_length_m",
        "link_a_part",
        "link_b_part",
        "link_cable_part",
        "link_a_module",
        "link_b_module",
        "link_cable",
    )

    @property
    def node_count(self) -> int:
        return len(self.node_name)

    @property
    def link_count(self) -> int:
        return int(self.link_a.shape[0])

    def role_of(self, node: int) -> str:
        return ROLES[int(self.node_role[node])]

    def node_unit_speed_gbps(self) -> np.ndarray:
        """Per node, its slowest link speed (0 without links): the speed its port numbers
        count in. A leaf whose uplinks run slower or faster than its server links numbers its
        ports at the slower of the two; a faster link takes ``speed / unit`` consecutive ones
        (the lanes of a split port), so ``port // node_ports_per_cage`` is still its cage."""
        n = self.node_count
        unit = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        speeds = self.link_speed_gbps.astype(np.int64)
        for ends in (self.link_a.astype(np.int64), self.link_b.astype(np.int64)):
            ok = (ends >= 0) & (ends < n)  # a dangling link (hand edit) names no node
            np.minimum.at(unit, ends[ok], speeds[ok])
        unit[unit == np.iinfo(np.int64).max] = 0
        return unit

    def link_port_scale(self, links: np.ndarray, end: str) -> np.ndarray:
        """Node ports each of ``links`` takes at its ``end`` (``"a"`` or ``"b"``): its speed
        over the node's unit speed (:meth:`node_unit_speed_gbps`), 1 on a one-speed node."""
        nodes = (self.link_a if end == "a" else self.link_b)[links].astype(np.int64)
        ok = (nodes >= 0) & (nodes < self.node_count)
        unit = np.ones(nodes.size, dtype=np.int64)
        unit[ok] = np.maximum(self.node_unit_speed_gbps()[nodes[ok]], 1)
        return np.maximum(self.link_speed_gbps[links].astype(np.int64) // unit, 1)

    def nodes_with_role(self, role: str) -> np.ndarray:
        return np.flatnonzero(self.node_role == ROLE[role])

    def link_campus(self) -> np.ndarray:
        """Per link: do its two ends stand in different buildings of a campus?

        All false for a one-hall design (no ``settings.campus``) or before the layout.
        """
        out = np.zeros(self.link_count, dtype=bool)
        campus = self.settings.campus or {}
        if int(campus.get("buildings") or 1) < 2 or self.node_rack is None or not self.racks:
            return out
        building = np.fromiter(
            (r.get("building", 0) for r in self.racks), dtype=np.int32, count=len(self.racks)
        )
        rack_a, rack_b = self.node_rack[self.link_a], self.node_rack[self.link_b]
        placed = (rack_a >= 0) & (rack_b >= 0)
        out[placed] = building[rack_a[placed]] != building[rack_b[placed]]
        return out

    def report_tiers(self) -> np.ndarray:
        """Per link: its index in :data:`REPORT_TIER_NAMES`: ``link_tier``, except links
        between two buildings of a campus, which are :data:`CAMPUS_TIER`."""
        codes = self.link_tier.astype(np.int8, copy=True)
        codes[self.link_campus()] = len(TIER_NAMES)
        return codes

    def element_id(self, kind: str, index: int) -> str:
        """Stable element ids used by the canvas and validators: ``node:<name>``, ``link:<i>``."""
        return f"node:{self.node_name[index]}" if kind == "node" else f"link:{index}"

    def to_dict(self) -> dict:
        """Plain, JSON-ready columns (lists); :meth:`from_dict` reverses it."""
        data = {
            "format": 2,
            "models": self.models,
            "parts": self.parts,
            "info": self.info,
            "settings": self.settings.to_dict(),
            "racks": self.racks,
            "node_name": self.node_name,
        }
        for name in (*self.NODE_COLUMNS, *self.LINK_COLUMNS):
            value = getattr(self, name)
            if value is None:
                continue
            if value.dtype.kind == "f" and np.isnan(value).any():
                data[name] = [None if v != v else v for v in value.tolist()]  # strict JSON
            else:
                data[name] = value.tolist()
        if self.networks is not None:
            data["networks"] = self.networks.to_dict()
        elif self.network_columns is not None:
            data["networks"] = self.network_columns
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Fabric:
        """The fabric of :meth:`to_dict`; one stored before its settings were kept apart
        (format 1: settings as ``info`` keys) gets them upgraded
        (:meth:`FabricSettings.from_info`); one stored before its other networks' elements
        were kept has neither ``networks`` nor ``network_columns`` (built on first read:
        :func:`planner.domain.networks.elements.network_elements`)."""
        info = dict(data.get("info") or {})
        if "settings" in data:
            settings = FabricSettings.from_dict(data["settings"])
        else:
            settings, info = FabricSettings.from_info(info)
        fabric = cls(
            models=list(data["models"]),
            node_name=list(data["node_name"]),
            parts=list(data.get("parts") or []),
            info=info,
            settings=settings,
            racks=list(data.get("racks") or []),
        )
        template = cls()
        for name in (*cls.NODE_COLUMNS, *cls.LINK_COLUMNS):
            if name in data:
                default = getattr(template, name)
                dtype = default.dtype if isinstance(default, np.ndarray) else _DTYPES.get(name)
                setattr(fabric, name, np.asarray(data[name], dtype=dtype))
        fabric.network_columns = data.get("networks")
        return fabric


_DTYPES = {
    "node_rack": np.int32,
    "node_ru": np.int16,
    "node_x": np.float32,
    "node_y": np.float32,
    "link_length_m": np.float32,
    "link_cable_length_m": np.float32,
    "link_a_part": np.int16,
    "link_b_part": np.int16,
    "link_cable_part": np.int16,
    "link_a_module": np.int32,
    "link_b_module": np.int32,
    "link_cable": np.int32,
}


class FabricBuilder:
    """Accumulates nodes and links in chunks, then stacks them into a :class:`Fabric`."""

    def __init__(self):
        self.models: list[str] = []
        self._model_index: dict[str, int] = {}
        self.names: list[str] = []
        self._node_chunks: list[dict] = []
        self._link_chunks: list[dict] = []
        self.node_count = 0

    def model(self, slug: str) -> int:
        if slug not in self._model_index:
            self._model_index[slug] = len(self.models)
            self.models.append(slug)
        return self._model_index[slug]

    def add_nodes(
        self,
        names: list[str],
        *,
        role: str,
        model: str,
        plane=-1,
        su=-1,
        rail=-1,
        group=-1,
        ports: int,
        ports_per_cage: int,
    ) -> np.ndarray:
        """Add ``len(names)`` nodes; scalar or array attributes. Returns their indices."""
        count = len(names)
        first = self.node_count
        self.names.extend(names)

        def column(value, dtype):
            return np.broadcast_to(np.asarray(value, dtype=dtype), (count,)).copy()

        self._node_chunks.append(
            {
                "node_role": column(ROLE[role], np.int8),
                "node_model": column(self.model(model), np.int16),
                "node_plane": column(plane, np.int16),
                "node_su": column(su, np.int32),
                "node_rail": column(rail, np.int16),
                "node_group": column(group, np.int32),
                "node_ports": column(ports, np.int32),
                "node_ports_per_cage": column(ports_per_cage, np.int16),
            }
        )
        self.node_count += count
        return np.arange(first, first + count, dtype=np.int32)

    def add_links(self, a, a_port, b, b_port, *, tier: str, plane: int, speed_gbps: int) -> None:
        a = np.asarray(a, dtype=np.int32)
        count = a.shape[0]
        self._link_chunks.append(
            {
                "link_a": a,
                "link_a_port": np.asarray(a_port, dtype=np.int32),
                "link_b": np.asarray(b, dtype=np.int32),
                "link_b_port": np.asarray(b_port, dtype=np.int32),
                "link_tier": np.full(count, TIER[tier], dtype=np.int8),
                "link_plane": np.full(count, plane, dtype=np.int16),
                "link_speed_gbps": np.full(count, speed_gbps, dtype=np.int32),
            }
        )

    def build(self, info: dict, settings: FabricSettings | None = None) -> Fabric:
        fabric = Fabric(
            models=self.models,
            node_name=self.names,
            info=info,
            settings=settings or FabricSettings(),
        )
        for chunks, columns in (
            (self._node_chunks, Fabric.NODE_COLUMNS[:8]),
            (self._link_chunks, Fabric.LINK_COLUMNS[:7]),
        ):
            for name in columns:
                parts = [chunk[name] for chunk in chunks]
                if parts:
                    setattr(fabric, name, np.concatenate(parts))
        return fabric
