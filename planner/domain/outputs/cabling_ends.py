"""A fabric's link ends as installers read them, and the cable text every cabling file shares.

Split from :mod:`planner.domain.outputs.cabling` (the cabling plan): the ends of every link
(:class:`FabricEnds`), how a measure is written, the cable part text of a row and the
network cord colours, used alike by the plan, the structured segments and the other networks'
rows."""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.domain.fabric import ROLES, Fabric
from planner.domain.names import Names, port_position

__all__ = ["CORD_COLOURS", "FabricEnds", "measure_text"]


#: The columns the row builders write; :data:`CABLING_COLUMNS` inserts ``part_number`` after
#: ``cable_part`` (:func:`cabling_rows`).
_BUILT_COLUMNS = (
    "label",
    "network",
    "assembly",
    "leg",
    "tier",
    "plane",
    "rail",
    "speed_gbps",
    "a_row",
    "a_rack",
    "a_ru",
    "a_device",
    "a_role",
    "a_port",
    "a_tray",
    "a_transceiver",
    "b_row",
    "b_rack",
    "b_ru",
    "b_device",
    "b_role",
    "b_port",
    "b_transceiver",
    "cable_part",
    "cable_type",
    "media",
    "connector",
    "fiber_type",
    "length_m",
    "run_length_m",
    "cord_colour",
)


COPPER_TYPES = {"dac", "acc", "aec"}


#: Patch-cord / cable-jacket colour per network (``cord_colour``). No published convention
#: assigns colours to a cluster's networks: TIA/EIA-606-A's colour code only separates
#: telephone, data and alarm systems (eWEEK, "Coloring My World",
#: http://www.eweek.com/reviews/coloring-my-world), operators report no universal standard
#: (NANOG, "DataCenter color-coding cabling schema", 2016-03-13,
#: https://community.nanog.org/t/datacenter-color-coding-cabling-schema/49550, one site:
#: "gray for network, blue for management"), and fibre jacket colours follow the fibre type
#: (TIA-598: OM3/OM4 aqua, OS2 yellow), not the network. So these are a configurable default
#: (``cabling_rows(..., cord_colours=...)``), a house choice, not a claim: installers order
#: the OOB Cat5e cords in this colour and tag the network's optical cables with it.
CORD_COLOURS: dict[str, str] = {
    "compute": "aqua",
    "storage": "green",
    "converged": "purple",
    "inband": "black",
    "oob": "blue",
    "management": "grey",
}


def measure_text(value: float) -> str:
    """A length or other measure as written in CSV: shortest form, empty when unknown."""
    value = float(value)
    return f"{value:g}" if math.isfinite(value) else ""


class FabricEnds:
    """Per-node strings every cabling-like output needs, computed once per fabric.

    ``port_name(node, port)`` names a 0-based logical port (:mod:`planner.domain.names`:
    ``17``, ``3/2``, ``tray 2 NIC 1``); ``location[node]`` is the label prefix of a node.
    """

    def __init__(self, fabric: Fabric):
        self.fabric = fabric
        self.naming = Names(fabric)
        self.schemes = self.naming.schemes
        count = fabric.node_count
        self.names = fabric.node_name
        self.roles = [ROLES[int(r)] for r in fabric.node_role.tolist()]
        self.models = [fabric.models[int(m)] for m in fabric.node_model.tolist()]
        self.per_cage = [max(1, int(p)) for p in fabric.node_ports_per_cage.tolist()]
        self.rack = [""] * count
        self.row = [""] * count
        self.ru = [""] * count
        if fabric.node_rack is not None and fabric.racks:
            racks = fabric.racks
            node_rack = fabric.node_rack.tolist()
            node_ru = fabric.node_ru.tolist() if fabric.node_ru is not None else [0] * count
            for node in range(count):
                index = node_rack[node]
                if 0 <= index < len(racks):
                    rack = racks[index]
                    self.rack[node] = str(rack.get("name", ""))
                    if rack.get("row") is not None:
                        self.row[node] = str(int(rack["row"]) + 1)
                    if node_ru[node] > 0:
                        self.ru[node] = str(int(node_ru[node]))
        places: dict[tuple[str, str], int] = {}
        for node in range(count):
            if self.rack[node] and self.ru[node]:
                key = (self.rack[node], self.ru[node])
                places[key] = places.get(key, 0) + 1
        self.location = [
            f"{self.rack[n]}.U{int(self.ru[n]):02d}"
            if self.rack[n] and self.ru[n] and places[(self.rack[n], self.ru[n])] == 1
            else self.names[n]
            for n in range(count)
        ]

    def port_name(self, node: int, port: int) -> str:
        return self.schemes[node].name(port)

    def cage_name(self, node: int, port: int) -> str:
        return str(port_position(self.per_cage[node], port)[0])

    def end_label(self, node: int, port: int) -> str:
        return f"{self.location[node]}.P{self.schemes[node].label(port)}"

    def parse_port(self, node: int, text: str) -> int:
        """The 0-based logical port written as :meth:`port_name` writes it.

        Raises
        ------
        ValueError
            Not in that form, or not a port of the node (the message says which form).
        """
        return self.naming.parse(node, text)


@dataclass
class _PartText:
    slug: str = ""
    cable_type: str = ""
    media: str = ""
    connector: str = ""
    fiber_type: str = ""


def _fill_cable_text(text: _PartText, record: dict) -> None:
    """The cable columns of a fiber or cable part record (the compute fabric's and the other
    networks' rows alike)."""
    if record.get("category") == "fiber":
        text.cable_type = "fiber"
        text.media = str(record.get("fiber_type") or "")
        connectors = [record.get("connector_a"), record.get("connector_b")]
        text.connector = "/".join(dict.fromkeys(str(c) for c in connectors if c))
        text.fiber_type = str(record.get("fiber_grade") or record.get("fiber_type") or "")
    else:
        kind = str(record.get("cable_type") or "")
        text.cable_type = kind
        text.media = "copper" if kind in COPPER_TYPES else ("optical" if kind else "")
        forms = [record.get("end_a_form_factor"), record.get("end_b_form_factor")]
        text.connector = "/".join(dict.fromkeys(str(f) for f in forms if f))
