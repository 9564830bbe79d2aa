"""The cluster's other networks' cables as cabling-plan rows: storage, in-band, out-of-band.

Split from :mod:`planner.domain.outputs.cabling`: the rows of the network elements'
links (:mod:`planner.domain.networks.elements`), in the plan's columns and order, and their
ordered lengths for the bill of materials."""

from __future__ import annotations

import math
from collections.abc import Iterator

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric
from planner.domain.media import order_length_m
from planner.domain.networks.elements import network_elements

from .cabling_ends import COPPER_TYPES as COPPER_TYPES
from .cabling_ends import (
    CORD_COLOURS,
    FabricEnds,
    _fill_cable_text,
    _PartText,
    measure_text,
)

__all__ = ["network_ordered_lengths_m", "network_rows"]


def _network_cable(link, facts: CatalogFacts) -> _PartText:
    """The cable columns of a network link: from its catalog part when there is one (as for
    the compute fabric), else from the link group's cable kind."""
    kind = link.cable_kind.strip().lower()
    record = facts.parts.get(link.cable_part) if link.cable_part else None
    text = _PartText(slug=str((record or {}).get("slug") or link.cable_part))
    if kind.startswith("cat"):  # twisted pair: the catalog files RJ45 cords under "dac"
        text.cable_type, text.media, text.connector = kind, "copper", "RJ45"
        return text
    category = (record or {}).get("category")
    if category in ("fiber", "cable"):
        _fill_cable_text(text, record)
    elif category == "transceiver":  # a module alone (in-band CWDM4 uplinks): the fibre is
        # the customer's, the module is the A end's transceiver (network_rows), as in the BOM
        text.slug = ""
        text.cable_type = "fiber"
        text.media = str(record.get("media") or "")
        text.connector = str(record.get("connector") or "")
    elif "aoc" in kind:
        text.cable_type, text.media = "aoc", "optical"
    elif "dac" in kind:
        text.cable_type, text.media = "dac", "copper"
    elif kind in ("mmf", "smf") or "fibre" in kind or "fiber" in kind:
        text.cable_type = "fiber"
        text.media = kind if kind in ("mmf", "smf") else ""
    return text


def network_ordered_lengths_m(elements, facts: CatalogFacts | None) -> dict[int, float]:
    """Per link index of ``elements.links``: the length ordered for its cable, an assembly's
    longest leg rounded up to the shortest length the part is sold in that covers it, else by
    the ordering policy, as for the compute fabric (:func:`planner.domain.media.order_length_m`).
    A cable with no leg's run known (an end outside the plan) gets the longest length the part
    is sold in; none when the catalog lists no length for it."""
    longest: dict[tuple, float] = {}
    keys: dict[int, tuple] = {}
    for index, link in enumerate(elements.links):
        key = (link.network, link.assembly) if link.assembly else ("", index)
        keys[index] = key
        run = link.run_length_m
        if run is not None and math.isfinite(float(run)):
            longest[key] = max(longest.get(key, 0.0), float(run))
    out: dict[int, float] = {}
    for index, key in keys.items():
        link = elements.links[index]
        if not link.cable_part:
            continue
        record = (facts.parts.get(link.cable_part) if facts else None) or {}
        length = order_length_m(record, longest.get(key))
        if length is not None:
            out[index] = length
    return out


def network_rows(
    fabric: Fabric,
    facts: CatalogFacts,
    ends: FabricEnds | None = None,
    *,
    elements=None,
    colours: dict[str, str] | None = None,
) -> Iterator[tuple]:
    """The cabling-plan rows of the cluster's other networks (:data:`CABLING_COLUMNS`
    order), network by network in build order, link by link; nothing without networks.

    Long because: one loop over the networks and their links that writes each row's columns; the
    nested helper shares the row's ends.
    """
    if elements is None:
        if not fabric.settings.networks:
            return

        elements = network_elements(fabric, facts)
    if not elements.links:
        return
    ends = ends or FabricEnds(fabric)
    colours = {**CORD_COLOURS, **(colours or {})}
    compute = {name: node for node, name in enumerate(fabric.node_name)}
    devices = {device.name: device for device in elements.devices}
    rack_row = {
        str(r.get("name", "")): str(int(r["row"]) + 1)
        for r in fabric.racks
        if r.get("row") is not None
    }
    rack_row.update({p.name: str(p.row + 1) for p in getattr(elements, "rack_places", ())})
    ordered = network_ordered_lengths_m(elements, facts)
    places: dict[tuple[str, str], int] = {}
    for node in range(fabric.node_count):
        if ends.rack[node] and ends.ru[node]:
            key = (ends.rack[node], ends.ru[node])
            places[key] = places.get(key, 0) + 1
    for device in elements.devices:
        if device.name not in compute and device.rack and device.ru:
            key = (device.rack, str(device.ru))
            places[key] = places.get(key, 0) + 1

    def end(name: str) -> tuple[str, str, str, str, str]:
        """``(location, row, rack, ru, role)`` of a link end."""
        node = compute.get(name)
        if node is not None:
            return (
                ends.location[node],
                ends.row[node],
                ends.rack[node],
                ends.ru[node],
                (ends.roles[node]),
            )
        device = devices.get(name)
        if device is None:
            return name, "", "", "", ""
        rack = device.rack or ""
        ru = str(device.ru) if rack and device.ru else ""
        location = f"{rack}.U{int(ru):02d}" if ru and places.get((rack, ru)) == 1 else name
        return location, rack_row.get(rack, ""), rack, ru, device.role

    cables: dict[str, _PartText] = {}
    legs: dict[str, int] = {}
    for link in elements.links:
        if link.assembly:
            legs[link.assembly] = legs.get(link.assembly, 0) + 1
    seen: set[str] = set()
    for index, link in enumerate(elements.links):
        a_location, a_row, a_rack, a_ru, a_role = end(link.a_device)
        b_location, b_row, b_rack, b_ru, b_role = end(link.b_device)
        label = (
            f"{a_location}.P{link.a_port.replace('/', '.')}/"
            f"{b_location}.P{link.b_port.replace('/', '.')}"
        )
        if label in seen:  # not expected (ports are used once); keep labels unique
            n = 2
            while f"{label}#{n}" in seen:
                n += 1
            label = f"{label}#{n}"
        seen.add(label)
        key = f"{link.cable_part}|{link.cable_kind}"
        cable = cables.get(key)
        if cable is None:
            cable = cables[key] = _network_cable(link, facts)
        assembly = ""
        if link.assembly:
            cage = link.b_port.split("/")[0]
            assembly = f"{b_location}.P{cage} 1:{legs[link.assembly]}"
        tray = link.a_port.split("/")[0] if link.a_port.startswith("tray") else ""
        speed = float(link.speed_gbps)
        yield (
            label,
            link.network,
            assembly,
            str(link.leg) if link.leg else "",
            link.group,
            "",
            "",
            f"{speed:g}",
            a_row,
            a_rack,
            a_ru,
            link.a_device,
            a_role,
            link.a_port,
            str(int(tray[4:])) if tray[4:].isdigit() else "",
            link.a_transceiver or (link.cable_part if link.cable_part and not cable.slug else ""),
            b_row,
            b_rack,
            b_ru,
            link.b_device,
            b_role,
            link.b_port,
            link.b_transceiver,
            cable.slug,
            cable.cable_type,
            cable.media,
            cable.connector,
            cable.fiber_type,
            measure_text(ordered[index]) if index in ordered else "",
            measure_text(link.run_length_m) if link.run_length_m is not None else "",
            colours.get(link.network, ""),
        )
