"""Place every node of a fabric in a rack and estimate every link's cable run.

Our documented assumptions (the reference gives no citable rack width, row pitch or aisle
width, catalog-facts-more.md §7); every number below is a ``layout`` field of the spec.

Racks and rows
    - All racks are one type: ``layout.rack`` (a catalog rack; its ``rack_units`` and
      ``power_kw`` when given) or a ``layout.rack_units`` rack with no power limit. The top
      2 U of every rack hold top-of-rack management gear; devices stack upwards from U1.
    - Servers per rack = ``layout.servers_per_rack``; otherwise as many as fit the usable RU
      and, when the rack states ``power_kw``, ``floor(power_kw * 1000 / server power_max_w)``.
      A rack-scale system (GB200-NVL72) is one rack. When the catalog gives no height for
      the server (DGX-B300, ...), ``layout.servers_per_rack`` or a rack's ``power_kw`` (with
      the server's power known) decides the count, else the published per-rack figure
      (``systems_per_rack`` in the catalog, e.g. NVIDIA's four DGX B300 per rack), else one
      per rack; each such choice is listed in ``settings.assumptions`` with its source or
      "assumed", so counts never wait on a height. A server or switch whose height is
      unknown stacks as 1 U (noted in ``info["layout_notes"]``).
    - Servers fill racks in node order; a rack holds servers of one block only.
    - Rail-optimized: a block is one scalable unit (SU): its server racks are consecutive and
      its leaves (of every plane) sit in network rack(s) in the middle of them.
    - Clos and fat-tree: a block is ``max(1, racks_per_row // 2 - 1)`` server racks (4 when
      ``racks_per_row`` is automatic) around network rack(s) holding the leaves whose first
      server is in the block, so that two blocks fill a row of 10 racks.
    - A row holds ``layout.racks_per_row`` racks; a block starts a new row when it does not
      fit in what is left of the current row (a block wider than a row wraps, noted).
    - ``layout.racks_per_row`` omitted (automatic): a near-square hall, so that the middle
      group is near every rack. With ``N`` racks in all (every block's server and network
      racks, plus the spine and core racks), ``ceil(sqrt(N * row_pitch_m / rack_width_m))``
      racks per row (then row length ~ rows * row pitch), at least 10, rounded up to a
      whole number of the widest block (so a block never wraps), and at most 64, the
      schema's limit (then the largest whole number of blocks within 64; 64 when one block
      is wider). An explicit value is used as given. The limit keeps big halls deeper than
      wide: 12,500 DGX-B300 in 19-rack SUs get 57-rack rows (34 m) and 67 rows (201 m;
      each pod's spine racks take a row of their own when the pod fills its last row).
      ``settings.layout`` records ``racks_per_row`` and ``racks_per_row_auto``.
    - Network racks hold at most ``layout.switches_per_network_rack`` switches, as RU allow
      (usable RU // the tallest switch of the tier), each rack switches of one tier.
    - Three tiers (leaf-spine-core and fat-tree): a pod is the leaves whose uplinks all go to
      one set of spines (``node_group`` of a leaf = ``node_su`` of a spine = pod). Right after
      the block holding a pod's middle leaf (in placement order) come that pod's spines,
      every plane's, in racks of their own: in what is left of the row when they all fit
      there, else from a new row (as many rows as they need). Blocks need not line up with
      pods (a Clos block can straddle two pods; with long automatic rows several pods share
      a row), and after the middle block the spines sit amid their own leaves.
    - The middle group is the cores (three tiers) or the spines (two tiers). It fills
      dedicated network rows (spines, if any left, then cores; each tier from a new row,
      and the next block starts a new row) placed in the middle of the hall: after the
      block, among those holding a pod's last leaf (three tiers) or all blocks (two tiers),
      whose cumulative server count is nearest half of all servers (the earlier one on a tie).
      So the longest spine-core (or leaf-spine, two tiers) run is about half the hall's
      depth (rows) plus its width. A tier of two or more switches there takes at least two
      racks, its switches dealt to them in turn, so that one rack never holds a whole tier
      or a whole plane's share of it (a rack is a failure domain; ``spof-plane-rack``).
    - Fabric-manager (UFM) nodes go into the network rack of the leaf they connect to, above
      its switches (1 U, noted).
    - Rack ``power_w`` adds servers' ``power_max_w`` and switches' ``power_typical_w`` (optics
      excluded, reference-architectures.md §3); unknown figures add nothing (noted).

Cable runs
    - Rack ``(row, position)`` sits at ``x = position * rack_width_m``,
      ``y = row * row_pitch_m``.
    - Between racks: ``|dx| + |dy|`` in the overhead tray, plus at each end the vertical run
      from the port up to the tray (``rack height - RU * 0.04445 + tray_height_m``, RU = the
      device's lowest unit, rack height = ``rack_units * 0.04445``), plus ``slack_m``.
    - Within a rack: ``|RU_a - RU_b| * 0.04445 + 0.5`` m, no tray, no slack.
    - Lengths are rounded up to 0.1 m.
    - ``settings.layout`` keeps the four distances (``rack_width_m``, ``row_pitch_m``,
      ``tray_height_m``, ``slack_m``) so that the cluster networks' runs
      (:mod:`planner.domain.networks.lengths`) follow the same rule; a design stored before
      they were kept reads the :class:`~planner.domain.spec.Layout` defaults
      (:func:`layout_distances`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from planner.domain.arrays import unique as unique_sorted
from planner.domain.campus import BY_PLANE
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, TIER, Fabric, FabricError
from planner.domain.spec_model import DesignSpec, Layout

from .layout_distances import DISTANCE_FIELDS, link_lengths

MANAGEMENT_RU = 2  # top-of-rack management gear
AUTO_BLOCK_RACKS = 4  # Clos/fat-tree server racks per block when racks_per_row is automatic
AUTO_MIN_RACKS_PER_ROW = 10
MAX_RACKS_PER_ROW = 64  # the schema's maximum for layout.racks_per_row


def _rack_type(layout: Layout, facts: CatalogFacts) -> tuple[int, float | None, str | None]:
    """Rack units, power limit (W) and catalog slug of the rack type."""
    if not layout.rack:
        return layout.rack_units, None, None
    part = facts.parts.get(layout.rack)
    if part is None or part.get("category") != "rack":
        raise FabricError(
            f"layout.rack: no rack {layout.rack!r} in the catalog", field="layout.rack"
        )
    rack_units = int(part.get("rack_units") or layout.rack_units)
    power_kw = part.get("power_kw")
    return rack_units, (float(power_kw) * 1000 if power_kw else None), part.get("slug")


def _model_columns(fabric: Fabric, facts: CatalogFacts, notes: list[str]):
    """Height (U), whether it is known, and power (W) of every model.

    Unknown height = 1 U, unknown power = 0.
    """
    heights = np.ones(len(fabric.models), dtype=np.int32)
    height_known = np.zeros(len(fabric.models), dtype=bool)
    power = np.zeros(len(fabric.models), dtype=np.float64)
    power_known = np.zeros(len(fabric.models), dtype=bool)
    used = unique_sorted(fabric.node_model)
    for index in used:
        slug = fabric.models[index]
        model = facts.devices.get(slug)
        ru = model.rack_units if model else None
        if ru:
            heights[index] = math.ceil(ru)
            height_known[index] = True
        else:
            notes.append(f"{slug}: height unknown in the catalog; counted as 1 U")
        watts = None
        if model is not None:
            watts = model.power_max_w if model.category == "server" else model.power_typical_w
        if watts:
            power[index] = watts
            power_known[index] = True
        else:
            notes.append(f"{slug}: power unknown in the catalog; left out of rack power")
    return heights, height_known, power, power_known


def _servers_per_rack(
    spec, facts, server_slug, height, height_known, usable, power_limit, notes, assumptions
) -> int:
    """Servers per rack: as the layout says; else a rack-scale system's one per rack; else
    as RU and the rack's power allow; else, with no height known, the published figure for
    the system (NVIDIA: four DGX B300 per rack) or one per rack, noted as assumed. Counts of
    switches and links never wait on a rack height."""
    layout = spec.layout
    model = facts.devices.get(server_slug)
    power_decides = bool(power_limit and model is not None and model.power_max_w)
    if not layout.servers_per_rack and model is not None and model.is_rack_system:
        assumptions.append(
            {
                "field": "layout.servers_per_rack",
                "value": 1,
                "source": f"{server_slug} is a rack-scale system: one system fills one rack",
            }
        )
        return 1
    if not (height_known or layout.servers_per_rack or power_decides):
        published = model.systems_per_rack if model is not None else None
        part = facts.parts.get(server_slug) or {}
        origin = (part.get("provenance") or {}).get("systems_per_rack") or {}
        source_key = origin.get("source")
        source = (part.get("sources") or {}).get(source_key) or {}
        named = source.get("title") or source.get("url") or source_key
        value = published or 1
        assumptions.append(
            {
                "field": "layout.servers_per_rack",
                "value": value,
                "source": (
                    f"published per-rack figure for {server_slug}"
                    + (f" ({named})" if named else "")
                    if published
                    else f"assumed: the catalog gives no height or per-rack figure for "
                    f"{server_slug}; set layout.servers_per_rack"
                ),
            }
        )
        if value * height > usable:
            value = max(1, usable // height)
        return value
    if layout.servers_per_rack:
        if layout.servers_per_rack * height > usable:
            raise FabricError(
                f"layout.servers_per_rack: {layout.servers_per_rack} x {height} U "
                f"{server_slug} need {layout.servers_per_rack * height} U; the rack has "
                f"{usable} U usable ({usable + MANAGEMENT_RU} U minus {MANAGEMENT_RU} U "
                "for management gear)",
                field="layout.servers_per_rack",
            )
        return layout.servers_per_rack
    by_ru = usable // height
    if by_ru < 1:
        raise FabricError(
            f"a {height} U {server_slug} does not fit the {usable} U usable in a rack",
            field="layout.rack_units",
        )
    count = by_ru
    if power_limit:
        if model is not None and model.power_max_w:
            by_power = int(power_limit // model.power_max_w)
            if by_power < 1:
                raise FabricError(
                    f"one {server_slug} ({model.power_max_w:g} W) exceeds the rack's "
                    f"{power_limit / 1000:g} kW",
                    field="layout.rack",
                )
            count = min(count, by_power)
        else:
            notes.append(f"{server_slug}: power unknown; servers per rack limited by RU only")
    return int(count)


class _Placer:
    """Appends racks row by row and records each node's rack and RU."""

    def __init__(self, fabric: Fabric, racks_per_row: int, rack_units: int, heights, notes):
        self.racks_per_row = racks_per_row
        self.rack_units = rack_units
        self.heights = heights
        self.notes = notes
        self.racks: list[dict] = []
        self.fill: list[int] = []  # RU used so far per rack
        self.row, self.position = 0, 0
        self.building, self.prefix = 0, ""
        self._halls: dict[int, tuple[int, int]] = {}  # building -> (row, position) left there
        self.node_rack = np.full(fabric.node_count, -1, dtype=np.int32)
        self.node_ru = np.zeros(fabric.node_count, dtype=np.int16)

    def hall(self, building: int, campus: bool) -> None:
        """Place in ``building`` (0-based) from now on, where its floor was left (each hall
        its own rows from 0; rack names start ``B<n>-`` on a campus)."""
        if building == self.building and (self.prefix or not campus):
            return
        self._halls[self.building] = (self.row, self.position)
        self.building = building
        self.row, self.position = self._halls.get(building, (0, 0))
        self.prefix = f"B{building + 1}-" if campus else ""

    def new_row(self) -> None:
        if self.position:
            self.row += 1
            self.position = 0

    def block(self, racks: list[tuple[str, np.ndarray]], *, note_wrap: bool = True) -> None:
        """Place ``racks`` side by side, from a new row when they do not fit this one."""
        per_row = self.racks_per_row
        if self.position + len(racks) > per_row:
            self.new_row()
            if len(racks) > per_row and note_wrap:
                self.notes.append(
                    f"a block of {len(racks)} racks is wider than a row of {per_row}; it wraps"
                )
        for kind, nodes in racks:
            if self.position >= per_row:
                self.new_row()
            self.rack(kind, nodes)

    def rack(self, kind: str, nodes: np.ndarray) -> int:
        index = len(self.racks)
        height = self.heights[nodes]
        self.node_rack[nodes] = index
        self.node_ru[nodes] = 1 + np.cumsum(height) - height
        self.fill.append(int(height.sum()))
        self.racks.append(
            {
                "index": index,
                "name": f"{self.prefix}R{self.row + 1:03d}-{self.position + 1:02d}",
                "row": self.row,
                "position": self.position,
                **({"building": self.building} if self.prefix else {}),
                "kind": kind,
                "rack_units": self.rack_units,
            }
        )
        self.position += 1
        return index

    def stacked(self, kind: str, nodes: np.ndarray, per_rack: int) -> None:
        """Racks of at most ``per_rack`` of ``nodes``, in a fresh row: at least two racks for
        two or more nodes, dealt in turn (rack ``j`` of ``k`` takes ``nodes[j::k]``), so that
        no one rack holds a whole tier, nor a whole plane's share of it when the nodes come
        plane after plane (``spof-plane-rack``)."""
        self.new_row()
        racks = _stacked_racks(nodes, per_rack)
        for j in range(racks):
            if self.position >= self.racks_per_row:
                self.new_row()
            self.rack(kind, nodes[j::racks])


def _chunks(nodes: np.ndarray, size: int) -> list[np.ndarray]:
    return [nodes[i : i + size] for i in range(0, nodes.shape[0], size)]


def _rack_count(nodes: np.ndarray, per_rack: int) -> int:
    return -(-int(nodes.shape[0]) // per_rack)


def _stacked_racks(nodes: np.ndarray, per_rack: int) -> int:
    """Racks :meth:`_Placer.stacked` fills: at least two for two or more nodes."""
    return max(_rack_count(nodes, per_rack), 2 if nodes.shape[0] >= 2 else 1)


def _auto_racks_per_row(
    layout: Layout, block_widths: list[int], other_racks: int, *, halls: int = 1
) -> int:
    """Racks per row for a near-square hall (module docstring); on a campus, each of the
    ``halls`` is taken to hold its share of the racks."""
    total = -(-(sum(block_widths) + other_racks) // max(1, halls))
    unit = max(block_widths, default=1) or 1
    square = math.ceil(math.sqrt(total * layout.row_pitch_m / layout.rack_width_m))
    per_row = -(-max(square, AUTO_MIN_RACKS_PER_ROW) // unit) * unit
    if per_row > MAX_RACKS_PER_ROW:
        per_row = (MAX_RACKS_PER_ROW // unit) * unit or MAX_RACKS_PER_ROW
    return per_row


def _network_capacity(layout: Layout, usable: int, heights: np.ndarray, nodes: np.ndarray) -> int:
    tallest = int(heights[nodes].max()) if nodes.size else 1
    return max(1, min(layout.switches_per_network_rack, usable // tallest))


def assign_layout(fabric: Fabric, spec: DesignSpec, facts: CatalogFacts) -> None:
    """Fill ``racks``, ``node_rack``, ``node_ru`` and ``link_length_m`` (see module docstring).

    Raises
    ------
    FabricError
        The rack type is unknown, or servers do not fit it (field ``layout.*``).

    Long because: the placement is one pass (racks per row, buildings, halls, places) over arrays
    each step extends; its nested helper shares them.
    """
    layout = spec.layout
    notes: list[str] = []
    assumptions: list[dict] = []
    rack_units, power_limit, rack_slug = _rack_type(layout, facts)
    usable = rack_units - MANAGEMENT_RU
    heights, height_known, model_power, model_power_known = _model_columns(fabric, facts, notes)
    node_height = heights[fabric.node_model]
    role = fabric.node_role
    servers = np.flatnonzero(role == ROLE["server"])
    leaves = np.flatnonzero(role == ROLE["leaf"])
    spines = np.flatnonzero(role == ROLE["spine"])
    cores = np.flatnonzero(role == ROLE["core"])
    spr = 1
    if servers.size:
        server_model = int(fabric.node_model[servers[0]])
        server_slug = fabric.models[server_model]
        height = int(node_height[servers].max())
        spr = _servers_per_rack(
            spec,
            facts,
            server_slug,
            height,
            bool(height_known[server_model]),
            usable,
            power_limit,
            notes,
            assumptions,
        )
    leaf_cap = _network_capacity(layout, usable, node_height, leaves)
    spine_cap = _network_capacity(layout, usable, node_height, spines)
    core_cap = _network_capacity(layout, usable, node_height, cores)
    block_racks = (
        max(1, layout.racks_per_row // 2 - 1) if layout.racks_per_row else AUTO_BLOCK_RACKS
    )
    blocks = list(_blocks(fabric, spec, servers, leaves, spr, block_racks))
    pod_spines, middle_spines, middle, ends = _upper_placement(fabric, spec, blocks, spines)
    campus = spec.campus if spec.campus is not None and spec.campus.multi else None
    racks_per_row = layout.racks_per_row or _auto_racks_per_row(
        layout,
        [
            len(server_racks) + _rack_count(block_leaves, leaf_cap)
            for server_racks, block_leaves in blocks
        ],
        sum(_rack_count(nodes, spine_cap) for pods in pod_spines.values() for nodes in pods)
        + _stacked_racks(middle_spines, spine_cap)
        + _stacked_racks(cores, core_cap),
        halls=campus.buildings if campus else 1,
    )
    placer = _Placer(fabric, racks_per_row, rack_units, node_height, notes)

    def place_block(index: int) -> None:
        server_racks, block_leaves = blocks[index]
        network = [("network", chunk) for chunk in _chunks(block_leaves, leaf_cap)]
        half = len(server_racks) // 2
        placer.block(
            [("server", r) for r in server_racks[:half]]
            + network
            + [("server", r) for r in server_racks[half:]]
        )
        for nodes in pod_spines.get(index, ()):
            placer.block(
                [("network", chunk) for chunk in _chunks(nodes, spine_cap)], note_wrap=False
            )

    if campus is None:
        for index in range(len(blocks)):
            place_block(index)
            if index == middle:
                _place_middle(placer, middle_spines, spine_cap, cores, core_cap)
        if middle < 0:  # no blocks: the middle group is all there is
            _place_middle(placer, middle_spines, spine_cap, cores, core_cap)
    else:
        campus_info = _place_campus(
            fabric,
            campus,
            blocks,
            (ends, _clean_cuts(fabric, blocks, pod_spines)),
            placer,
            place_block,
            (middle_spines, spine_cap, cores, core_cap),
            notes,
        )
    _place_managers(fabric, placer, usable, notes)
    fabric.racks = placer.racks
    fabric.node_rack = placer.node_rack
    fabric.node_ru = placer.node_ru
    node_power = model_power[fabric.node_model]
    rack_power = np.bincount(fabric.node_rack, weights=node_power, minlength=len(fabric.racks))
    for rack, watts in zip(fabric.racks, rack_power, strict=True):
        rack["power_w"] = round(float(watts), 1)
    unknown = ~model_power_known[fabric.node_model]
    if unknown.any():
        racks_with_unknown = unique_sorted(fabric.node_rack[unknown])
        for index in racks_with_unknown:
            fabric.racks[index]["power_incomplete"] = True
    overfull = [
        r["name"] for r, used in zip(fabric.racks, placer.fill, strict=True) if used > usable
    ]
    if overfull:
        notes.append(
            f"{len(overfull)} rack(s) hold more than {usable} U ({', '.join(overfull[:3])}...)"
        )
    if campus is not None:
        campus_info["entrance_x_m"] = round(racks_per_row * layout.rack_width_m / 2, 3)
    else:
        campus_info = None
    fabric.settings = replace(fabric.settings, campus=campus_info)
    fabric.link_length_m = link_lengths(fabric, layout, fabric.link_a, fabric.link_b)
    layout_settings = {
        "rack": rack_slug,
        "rack_units": rack_units,
        "usable_rack_units": usable,
        "servers_per_rack": spr,
        "racks_per_row": racks_per_row,
        "racks_per_row_auto": not layout.racks_per_row,
        "rows": (max(r["row"] for r in placer.racks) + 1) if placer.racks else 0,
        "racks": len(placer.racks),
        # the run rule's distances, for the cluster networks' runs (layout_distances)
        **{name: float(getattr(layout, name)) for name in DISTANCE_FIELDS},
    }
    fabric.settings = replace(
        fabric.settings, layout=layout_settings, assumptions=tuple(assumptions)
    )
    fabric.info["layout_notes"] = sorted(set(notes))


def _upper_placement(fabric: Fabric, spec: DesignSpec, blocks, spines: np.ndarray):
    """Where spines and cores go (module docstring).

    Returns ``(pod_spines, middle_spines, middle, ends)``: ``pod_spines[b]`` lists the spine
    nodes of each pod whose middle leaf is in block ``b``, one array per pod;
    ``middle_spines`` are the spines of the middle group; the middle group follows block
    ``middle`` (-1: no blocks); ``ends[b]`` is true where block ``b`` holds a pod's last leaf
    (every block in two tiers): where a building of a campus may end.
    """
    if not blocks:
        return {}, spines, -1, np.zeros(0, dtype=bool)
    sizes = np.array([len(block_leaves) for _, block_leaves in blocks], dtype=np.int64)
    block_servers = np.array(
        [sum(int(r.shape[0]) for r in server_racks) for server_racks, _ in blocks],
        dtype=np.int64,
    )
    ends = np.zeros(len(blocks), dtype=bool)
    pod_spines: dict[int, list[np.ndarray]] = {}
    middle_spines = spines
    spine_pod = fabric.node_su[spines].astype(np.int64)
    if fabric.info.get("tiers") == 3 and sizes.sum() and (spine_pod >= 0).any():
        placed_leaves = np.concatenate([block_leaves for _, block_leaves in blocks])
        block_of_leaf = np.repeat(np.arange(len(blocks)), sizes)
        leaf_pod = fabric.node_group[placed_leaves].astype(np.int64)
        pods = int(max(leaf_pod.max(), spine_pod.max())) + 1
        known = leaf_pod >= 0
        last = np.full(pods, -1, dtype=np.int64)  # block of each pod's last leaf
        np.maximum.at(last, leaf_pod[known], block_of_leaf[known])
        # Every pod's spines follow the block of the pod's middle leaf.
        anchor = np.full(pods, -1, dtype=np.int64)
        counts = np.bincount(leaf_pod[known], minlength=pods)
        by_pod = np.flatnonzero(known)[np.argsort(leaf_pod[known], kind="stable")]
        has = counts > 0
        middle_leaf = by_pod[(np.cumsum(counts) - counts + (counts - 1) // 2)[has]]
        anchor[has] = block_of_leaf[middle_leaf]
        spine_block = np.where(spine_pod >= 0, anchor[np.maximum(spine_pod, 0)], -1)
        local = spine_block >= 0
        middle_spines = spines[~local]
        order = np.lexsort((spine_pod[local], spine_block[local]))  # stable: node order
        nodes, block_of, pod_of = (
            spines[local][order],
            spine_block[local][order],
            spine_pod[local][order],
        )
        if nodes.size:
            cuts = np.flatnonzero(np.diff(pod_of) != 0) + 1
            for part, block in zip(np.split(nodes, cuts), block_of[np.r_[0, cuts]], strict=True):
                pod_spines.setdefault(int(block), []).append(part)
            ends[last[pod_of]] = True
    if not ends.any():
        ends[:] = True
    cumulative = np.cumsum(block_servers)
    gap = np.abs(cumulative * 2 - cumulative[-1]).astype(np.float64)
    gap[~ends] = np.inf
    return pod_spines, middle_spines, int(np.argmin(gap)), ends


def _block_buildings(block_servers: np.ndarray, ends: np.ndarray, buildings: int) -> np.ndarray:
    """Building (0-based) of every block: blocks shared out in order by server count, a new
    building starting only after a block where a building may end (``ends``: no link below
    the top tier crosses that cut, :func:`_clean_cuts`).

    >>> _block_buildings(np.array([4, 4, 4, 4]), np.array([True] * 4), 2).tolist()
    [0, 0, 1, 1]
    >>> _block_buildings(np.array([4, 4, 4, 4]), np.array([False, False, True, True]), 2).tolist()
    [0, 0, 0, 1]
    """
    total = int(block_servers.sum())
    out = np.zeros(block_servers.size, dtype=np.int64)
    if not total:
        return out
    before = np.cumsum(block_servers) - block_servers
    target = np.minimum(buildings - 1, before * buildings // total)
    current = 0
    for index in range(block_servers.size):
        if target[index] > current and (index == 0 or ends[index - 1]):
            current = int(target[index])
        out[index] = current
    return out


def _clean_cuts(fabric: Fabric, blocks, pod_spines) -> np.ndarray:
    """Per block: may a building end after it? Only where no link below the top tier joins
    a node placed in it (or before) to one placed after it: servers and leaves in their
    blocks, a pod's spines in the block they follow. So a Clos leaf whose servers straddle two
    blocks, or a pod whose leaves do, keeps them in one building.
    """
    node_block = np.full(fabric.node_count, -1, dtype=np.int64)
    for index, (server_racks, block_leaves) in enumerate(blocks):
        for rack in server_racks:
            node_block[rack] = index
        node_block[block_leaves] = index
        for nodes in pod_spines.get(index, ()):
            node_block[nodes] = index
    a, b = node_block[fabric.link_a], node_block[fabric.link_b]
    both = (a >= 0) & (b >= 0) & (a != b)
    lo, hi = np.minimum(a[both], b[both]), np.maximum(a[both], b[both])
    crossing = np.zeros(len(blocks) + 1, dtype=np.int64)
    np.add.at(crossing, lo, 1)
    np.add.at(crossing, hi, -1)
    return np.cumsum(crossing)[: len(blocks)] == 0


def _place_campus(fabric, campus, blocks, cuts, placer, place_block, middle, notes) -> dict:
    """Place the blocks building by building and each building's share of the top tier
    (:mod:`planner.domain.campus`); returns what ``fabric.settings.campus`` keeps.

    ``cuts`` is ``(ends, clean)``: the blocks holding a pod's last leaf (where a building's
    share of the top tier may follow) and those after which a building may end
    (:func:`_clean_cuts`)."""
    ends, clean = cuts
    middle_spines, spine_cap, cores, core_cap = middle
    count = campus.buildings
    block_servers = np.array(
        [sum(int(r.shape[0]) for r in server_racks) for server_racks, _ in blocks],
        dtype=np.int64,
    )
    building_of = _block_buildings(block_servers, clean, count)
    if campus.core_building == BY_PLANE:
        top_of = {
            "spines": fabric.node_plane[middle_spines].astype(np.int64) % count,
            "cores": fabric.node_plane[cores].astype(np.int64) % count,
        }
    else:
        top_of = {
            "spines": np.full(middle_spines.size, int(campus.core_building) - 1),
            "cores": np.full(cores.size, int(campus.core_building) - 1),
        }
    anchor = {}  # building -> block after which its share of the top tier stands
    for building in range(count):
        if not ((top_of["spines"] == building).any() or (top_of["cores"] == building).any()):
            continue
        mine = np.flatnonzero(building_of == building)
        if not mine.size:
            anchor[building] = -1
            continue
        cumulative = np.cumsum(block_servers[mine])
        gap = np.abs(cumulative * 2 - cumulative[-1]).astype(np.float64)
        gap[~ends[mine]] = np.inf
        anchor[building] = int(mine[np.argmin(gap)]) if np.isfinite(gap).any() else int(mine[-1])

    def place_top(building: int) -> None:
        placer.hall(building, True)
        _place_middle(
            placer,
            middle_spines[top_of["spines"] == building],
            spine_cap,
            cores[top_of["cores"] == building],
            core_cap,
        )

    at = {block: building for building, block in anchor.items() if block >= 0}
    for index in range(len(blocks)):
        placer.hall(int(building_of[index]), True)
        place_block(index)
        if index in at:
            place_top(at[index])
    for building, block in sorted(anchor.items()):
        if block < 0:
            place_top(building)
    servers = np.bincount(building_of, weights=block_servers, minlength=count)
    empty = [str(b + 1) for b in range(count) if not servers[b]]
    if empty:
        notes.append(
            f"campus: building(s) {', '.join(empty)} hold no servers (a building starts only "
            "at a pod boundary)"
        )
    tops = sorted(anchor)
    return {
        **campus.as_info(),
        "servers_per_building": [int(v) for v in servers],
        "top_tier_buildings": [b + 1 for b in tops],
        "crossing_tier": "spine-core" if fabric.info.get("tiers") == 3 else "leaf-spine",
    }


def _place_middle(placer, spines, spine_cap, cores, core_cap) -> None:
    """The middle group: spines (if any), then cores, each tier from a new row."""
    for nodes, cap in ((spines, spine_cap), (cores, core_cap)):
        if nodes.size:
            placer.stacked("network", nodes, cap)
    placer.new_row()


def _blocks(fabric, spec, servers, leaves, spr, racks_per_block):
    """Yield ``(server rack node lists, leaf nodes)`` per block, in placement order."""
    if spec.topology == "rail-optimized":
        su_of_server = fabric.node_su[servers]
        su_of_leaf = fabric.node_su[leaves]
        sus = int(max(su_of_server.max(initial=-1), su_of_leaf.max(initial=-1))) + 1
        server_starts = np.searchsorted(su_of_server, np.arange(sus + 1))
        leaf_order = np.argsort(su_of_leaf, kind="stable")
        sorted_su = su_of_leaf[leaf_order]
        leaf_starts = np.searchsorted(sorted_su, np.arange(sus + 1))
        for su in range(sus):
            block_servers = servers[server_starts[su] : server_starts[su + 1]]
            block_leaves = leaves[leaf_order[leaf_starts[su] : leaf_starts[su + 1]]]
            yield _chunks(block_servers, spr), block_leaves
        return
    per_block = racks_per_block * spr
    blocks = max(1, math.ceil(servers.size / per_block))
    # A leaf belongs to the block of the first server it connects to.
    position = np.full(fabric.node_count, -1, dtype=np.int64)
    position[servers] = np.arange(servers.size)
    first = np.full(fabric.node_count, np.iinfo(np.int64).max, dtype=np.int64)
    mask = (fabric.link_tier == TIER["server-leaf"]) & (
        fabric.node_role[fabric.link_a] == ROLE["server"]
    )
    np.minimum.at(first, fabric.link_b[mask], position[fabric.link_a[mask]])
    leaf_first = first[leaves]
    leaf_block = np.where(leaf_first < np.iinfo(np.int64).max, leaf_first // per_block, -1)
    # A leaf without servers (a fat-tree edge past the last server) joins the leaf before it.
    known = np.where(leaf_block >= 0, np.arange(leaf_block.size), 0)
    leaf_block = np.clip(leaf_block[np.maximum.accumulate(known)], 0, blocks - 1)
    order = np.argsort(leaf_block, kind="stable")
    starts = np.searchsorted(leaf_block[order], np.arange(blocks + 1))
    for block in range(blocks):
        block_servers = servers[block * per_block : (block + 1) * per_block]
        yield _chunks(block_servers, spr), leaves[order[starts[block] : starts[block + 1]]]


def _place_managers(fabric: Fabric, placer: _Placer, usable: int, notes: list[str]) -> None:
    managers = np.flatnonzero(fabric.node_role == ROLE["manager"])
    for node in managers:
        links = np.flatnonzero(fabric.link_a == node)
        if links.size:
            rack = int(placer.node_rack[fabric.link_b[links[0]]])
        else:
            rack = placer.rack("network", np.zeros(0, dtype=np.int64))
        placer.node_rack[node] = rack
        placer.node_ru[node] = placer.fill[rack] + 1
        placer.fill[rack] += int(placer.heights[node])
        notes.append(
            f"{fabric.node_name[node]} is placed in rack {placer.racks[rack]['name']}, "
            "beside its leaves"
        )


__all__ = ["assign_layout"]
