"""The bill of materials' vocabulary: its categories, their labels, what each counts per, tiers.

Split from :mod:`planner.domain.outputs.bom` so that the bill, its counting rules
(:mod:`planner.domain.outputs.bom_counts`), quotes and diffs read one list of categories."""

from __future__ import annotations

from planner.domain.fabric import REPORT_TIER_NAMES

__all__ = ["CATEGORIES", "CATEGORY_LABELS", "RACK_KINDS", "SPARES_CATEGORIES"]


#: Line categories, in display order.
CATEGORIES = (
    "server",
    "management",
    "pdu",
    "switch",
    "nic",
    "psu",
    "transceiver",
    "cable",
    "fiber",
    "rack",
)


#: Categories that take a spares percentage (racks are not replaced in the field).
SPARES_CATEGORIES = tuple(c for c in CATEGORIES if c != "rack")


#: What each category holds, for headings and form labels.
CATEGORY_LABELS = {
    "server": "Servers and compute trays",
    "management": "Management systems (fabric managers, head nodes)",
    "pdu": "Rack PDUs",
    "switch": "Switches and NVLink switch trays",
    "nic": "NICs",
    "psu": "Power supplies (PSUs)",
    "transceiver": "Transceivers",
    "cable": "Cables",
    "fiber": "Fibers",
    "rack": "Racks",
}


#: The catalog's generic 19-inch cabinet (``inventory/library/seed/racks.yaml``): the part of
#: a rack line whose kind names no catalog rack (network and management racks, compute racks
#: of a layout without ``layout.rack``).
CABINET_PART = "Rack-cabinet-19in"
#: Kinds of rack, in display order (:data:`planner.domain.summary.RACK_LAYOUT_KINDS`), and
#: what a kind without a catalog rack is listed as when the catalog has no cabinet either.
RACK_KINDS = {
    "compute": "compute rack (servers); the layout names no catalog rack",
    "network": "network rack (compute-fabric switches); cabinet not chosen",
    "management": "management rack (other networks' switches, fabric managers, head nodes); "
    "cabinet not chosen",
}


NETWORK_TIERS = ("storage", "converged", "inband", "oob", "management")


TIER_ORDER = ("server", "leaf", "spine", "core", *REPORT_TIER_NAMES, "", *NETWORK_TIERS)


MAX_SPARES_PCT = 1000.0


COUNTED_PER = {
    "server": "device",
    "switch": "device",
    "nic": "server (one card per {cages} compute cage(s))",
    "transceiver": "module (one per cage)",
    "cable": "cable assembly (a breakout counts once for all legs)",
    "fiber": "fiber (a splitter counts once for both legs)",
    "rack": "rack of the layout",
    "management": "device",
    "pdu": "device",
    "psu": "power supply",
}
