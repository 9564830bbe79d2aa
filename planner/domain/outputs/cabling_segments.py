"""Structured cabling: a link as its segments through patch panels and trunks (issue 18).

Split from :mod:`planner.domain.outputs.cabling`: :func:`structured_plan` and
:class:`StructuredSegments` turn a fabric's placed panels and trunks into one row per segment
(``SEGMENT_COLUMNS``), the file an installer pulls trunks and patches by."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric
from planner.domain.media import order_lengths_of, policy_length_m
from planner.domain.physical.structured import MPO_UNIT, plan_structured

from .cabling_ends import (
    _BUILT_COLUMNS,
    FabricEnds,
    measure_text,
)
from .cabling_ends import COPPER_TYPES as COPPER_TYPES

__all__ = ["SEGMENTS", "SEGMENT_COLUMNS", "StructuredSegments", "structured_plan", "trunk_part"]


#: Columns a structured design's plan adds after :data:`CABLING_COLUMNS` (module docstring,
#: "Structured cabling"); a point-to-point design's plan has none of them.
SEGMENT_COLUMNS = ("segment", "segment_of")


#: The ``segment`` of a segment row, in the order the rows follow their link's row.
SEGMENTS = ("cord-a", "trunk", "cord-b")


PANEL_ROLE = "patch-panel"


_NO_SEGMENT = ("", "")


_COLUMN = {name: index for index, name in enumerate(_BUILT_COLUMNS)}


def structured_plan(fabric: Fabric, facts: CatalogFacts | None = None):
    """The structured plan of ``fabric``
    (:func:`planner.domain.physical.structured.plan_structured` of its ``cabling`` block), or
    None when no link goes through patch panels (the plan is then as a point-to-point one)."""
    cabling = fabric.settings.cabling
    if not cabling:
        return None

    plan = plan_structured(fabric, cabling, facts)
    return plan if plan.structured.any() else None


def trunk_part(trunk: dict) -> str:
    """A trunk's part name as the BOM lists it
    (:func:`planner.domain.outputs.bom.bill_of_materials`, structured lines)."""
    grade = "OS2" if trunk["fiber_type"] == "smf" else "OM4"
    return f"TRUNK-{trunk['mpo'].upper()}-{trunk['polish'].upper()}-{grade}-{trunk['fibers']}F"


class StructuredSegments:
    """The segment rows of a structured plan (module docstring, "Structured cabling").

    Built once per plan; per-link values are NumPy columns (as the plan's), so a stream's
    memory does not grow with the number of rows.
    """

    def __init__(self, fabric: Fabric, plan, ends: FabricEnds, facts: CatalogFacts | None = None):
        self.fabric, self.plan, self.ends = fabric, plan, ends
        self.panel_names = [f"{p['rack']}.U{int(p['ru']):02d}" for p in plan.panels]
        self.panel_cells = [
            (str(int(p["row"]) + 1), str(p["rack"]), str(int(p["ru"]))) for p in plan.panels
        ]
        self.trunk_names = [f"T{index + 1}" for index in range(len(plan.trunks))]
        on = plan.structured
        links = np.flatnonzero(on)
        trunk = plan.trunk[links].astype(np.int64)
        leg = plan.trunk_leg[links].astype(np.int64)
        unit = np.array([MPO_UNIT[t["mpo"]] for t in plan.trunks], dtype=np.int64)[trunk]
        # MPO legs per port, as the plan counts them (connector_count / ports_per_module)
        stored = (fabric.info.get("structured") or {}).get("parts") or {}
        per_port = []
        for slug in fabric.parts:
            record = (facts.parts.get(slug) if facts is not None else None) or stored.get(slug)
            record = record or {}
            count = int(record.get("connector_count") or 1)
            per_port.append(max(1, count // max(1, int(record.get("ports_per_module") or 1))))
        legs = np.array(per_port + [1], dtype=np.int64)[fabric.link_a_part[links]]
        # a duplex-LC link's pair in its MPO-12 leg: its rank among the leg's links, in link
        # order (the order the plan fills a cassette or harness)
        lc = plan.lc[links]
        rank = np.zeros(links.size, dtype=np.int64)
        if lc.any():
            order = np.lexsort((links[lc], leg[lc], trunk[lc]))
            keys = (trunk[lc] * (1 << 32) + leg[lc])[order]
            starts = np.searchsorted(keys, keys, side="left")
            rank_lc = np.empty(order.size, dtype=np.int64)
            rank_lc[order] = np.arange(order.size) - starts
            rank[lc] = rank_lc
        first = (leg - 1) * unit + 1
        last = (leg - 1 + legs) * unit
        first = np.where(lc, (leg - 1) * unit + 2 * rank + 1, first)
        last = np.where(lc, first + 1, last)
        self.first_fibre = np.zeros(fabric.link_count, dtype=np.int64)
        self.last_fibre = np.zeros(fabric.link_count, dtype=np.int64)
        self.first_fibre[links], self.last_fibre[links] = first, last
        self.cord_ordered: dict[str, np.ndarray] = {}
        self.trunk_ordered = (
            policy_length_m(np.array([t["length_m"] for t in plan.trunks], dtype=np.float64))
            if plan.trunks
            else np.zeros(0)
        )
        cords = fabric.link_cable_part[links]
        for side in ("a", "b"):
            run = getattr(plan, f"cord_{side}_m")[links].astype(np.float64)
            ordered = np.full(fabric.link_count, np.nan)
            values = np.full(run.size, np.nan)
            for part in np.unique(cords).tolist():  # as the BOM orders them
                record = (facts.parts.get(fabric.parts[part]) if facts is not None else None) or {}
                mine = cords == part
                values[mine] = order_lengths_of(record, run[mine])
            ordered[links] = values
            self.cord_ordered[side] = ordered

    def panel_port(self, link: int, side: str) -> tuple[int, str]:
        """``(panel id, port text)`` of ``link``'s panel on ``side`` ("a" or "b")."""
        panel = int(getattr(self.plan, f"panel_{side}")[link])
        return panel, str(int(getattr(self.plan, f"port_{side}")[link]))

    def trunk_label(self, link: int) -> str:
        """``<trunk>.F<first>-<last>``: the trunk and the fibres of it that ``link`` uses."""
        trunk = self.trunk_names[int(self.plan.trunk[link])]
        return f"{trunk}.F{int(self.first_fibre[link])}-{int(self.last_fibre[link])}"

    def located(self, link: int) -> list[tuple[str, str, str, str, str, str]]:
        """Per segment of ``link`` (:data:`SEGMENTS` order): ``(segment, label, a_device,
        a_port, b_device, b_port)``, the cells a re-import checks."""
        fabric, ends = self.fabric, self.ends
        a, b = int(fabric.link_a[link]), int(fabric.link_b[link])
        a_port, b_port = int(fabric.link_a_port[link]), int(fabric.link_b_port[link])
        pa, port_a = self.panel_port(link, "a")
        pb, port_b = self.panel_port(link, "b")
        name_a, name_b = self.panel_names[pa], self.panel_names[pb]
        return [
            (
                "cord-a",
                f"{ends.end_label(a, a_port)}/{name_a}.P{port_a}",
                ends.names[a],
                ends.port_name(a, a_port),
                name_a,
                port_a,
            ),
            ("trunk", self.trunk_label(link), name_a, port_a, name_b, port_b),
            (
                "cord-b",
                f"{name_b}.P{port_b}/{ends.end_label(b, b_port)}",
                name_b,
                port_b,
                ends.names[b],
                ends.port_name(b, b_port),
            ),
        ]

    def rows(self, link: int, row: tuple) -> Iterator[tuple]:
        """The segment rows of ``link`` whose plan row (without the segment columns) is
        ``row``: cord A, trunk, cord B."""
        c = _COLUMN
        plan = self.plan
        head = row[c["network"] : c["speed_gbps"] + 1]  # network .. speed_gbps
        head = (head[0], "", "", *head[3:])  # no assembly or leg
        a_end = row[c["a_row"] : c["a_tray"] + 1]
        b_end = row[c["b_row"] : c["b_port"] + 1]
        cable = row[c["cable_part"] : c["fiber_type"] + 1]
        colour = row[c["cord_colour"]]
        label = row[c["label"]]
        pa, port_a = self.panel_port(link, "a")
        pb, port_b = self.panel_port(link, "b")
        panel_a = (*self.panel_cells[pa], self.panel_names[pa], PANEL_ROLE, port_a)
        panel_b = (*self.panel_cells[pb], self.panel_names[pb], PANEL_ROLE, port_b)
        # the link label is "<A end>/<B end>" (end labels write a port's "/" as ".")
        a_label, _, b_label = label.partition("/")
        name_a, name_b = panel_a[3], panel_b[3]
        trunk_index = int(plan.trunk[link])
        trunk = plan.trunks[trunk_index]
        grade = "OS2" if trunk["fiber_type"] == "smf" else "OM4"
        trunk_cable = (
            trunk_part(trunk),
            "fiber",
            str(trunk["fiber_type"]),
            f"{trunk['mpo']}-{trunk['polish']}",
            grade,
        )
        yield (
            f"{a_label}/{name_a}.P{port_a}",
            *head,
            *a_end,
            "",
            *panel_a,
            "",
            *cable,
            measure_text(self.cord_ordered["a"][link]),
            measure_text(plan.cord_a_m[link]),
            colour,
            "cord-a",
            label,
        )
        yield (
            self.trunk_label(link),
            *head,
            *panel_a,
            "",
            "",
            *panel_b,
            "",
            *trunk_cable,
            measure_text(self.trunk_ordered[trunk_index]),
            measure_text(trunk["length_m"]),
            colour,
            "trunk",
            label,
        )
        yield (
            f"{name_b}.P{port_b}/{b_label}",
            *head,
            *panel_b,
            "",
            "",
            *b_end,
            "",
            *cable,
            measure_text(self.cord_ordered["b"][link]),
            measure_text(plan.cord_b_m[link]),
            colour,
            "cord-b",
            label,
        )
