"""Where the management racks stand in the hall, and the cable run of every network link.

:func:`planner.domain.networks.elements.cluster_elements` places the cluster networks'
devices in racks (the compute racks of the layout, and the management racks ``MGMT-01``...);
this module gives the management racks a place in the hall and measures each link by the
layout's own run rule (:func:`planner.domain.layout.run_lengths_m`: Manhattan distance in the
overhead tray, the vertical drop at each end, the slack; within a rack the RU difference plus
0.5 m), with the distances the layout kept in ``fabric.settings.layout``
(:func:`planner.domain.layout.layout_distances`; the :class:`~planner.domain.spec.Layout`
defaults for a design stored before they were kept).

Management racks (inferred placement)
    NVIDIA's DGX SuperPOD reference architectures draw the management equipment (storage and
    in-band switches, management servers, UFM appliances) in racks of its own, apart from
    the compute racks, and leave their place on the floor to the site ("The rack layout can
    be adjusted to meet local data center requirements, such as ... rack layout between DGX
    systems and supporting equipment", DGX SuperPOD B300 RA, DGX SuperPOD Architecture,
    https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/
    latest/dgx-superpod-architecture.html; the H100 RA RA-11333-001 V11 Table 7 counts 6
    management racks beside the 32 compute racks). No published floor position, so ours is
    inferred: the management racks take a row of their own right after the layout's last
    row, centred on the row width (``settings.layout["racks_per_row"]``), so that the
    longest run to a row end is half the row; more management racks than a row holds wrap
    into further rows, each centred. An installer finds them as one "MGMT" row.

Run lengths
    - A link between two devices that both have a rack (a compute rack of the layout or a
      management rack) gets ``run_length_m`` by the layout's rule; a device's RU is its
      lowest unit. A device with a rack but no RU (a 0 U rack PDU, or a device the rack had
      no room for) is taken at U1: the longest drop in its rack, so that the run is never
      understated (inferred).
    - A link with an end outside the plan (storage arrays, NFS storage, the customer's core)
      or an end without a rack keeps ``run_length_m`` None (the validation then says its
      reach is not checked).

Nothing here imports Django.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from planner.domain.layout_distances import layout_distances, run_lengths_m
from planner.domain.spec_model import Layout

#: RU taken for a device placed in a rack without a unit (a 0 U PDU): the rack's bottom.
UNPLACED_RU = 1


@dataclass(frozen=True)
class RackPlace:
    """A rack's place in the hall: 0-based ``row`` and ``position`` as the layout's racks."""

    name: str
    row: int
    position: int
    rack_units: int


def management_rack_places(layout: dict | None, racks: list[dict], names) -> tuple[RackPlace, ...]:
    """Places of the management racks ``names`` (module docstring): a row of their own after
    the layout's last row, centred on ``layout["racks_per_row"]``.

    Parameters
    ----------
    layout : dict
        ``fabric.settings.layout`` (racks per row and rack units).
    racks : list of dict
        The layout's racks (``fabric.racks``), with ``row`` and ``position``.
    names : sequence of str
        The management racks, in order.

    Examples
    --------
    >>> racks = [{"row": 0, "position": p} for p in range(10)]
    >>> [(p.row, p.position) for p in management_rack_places(
    ...     {"racks_per_row": 10, "rack_units": 42}, racks, ["M1", "M2"])]
    [(1, 4), (1, 5)]
    """
    names = list(names)
    if not names:
        return ()
    layout = layout or {}
    rows = [int(r["row"]) for r in racks if r.get("row") is not None]
    positions = [int(r["position"]) for r in racks if r.get("position") is not None]
    first_row = max(rows) + 1 if rows else 0
    per_row = int(layout.get("racks_per_row") or 0) or (max(positions) + 1 if positions else 0)
    per_row = max(per_row, 1) if per_row else len(names)
    rack_units = int(layout.get("rack_units") or Layout.rack_units)
    out = []
    for start in range(0, len(names), per_row):
        chunk = names[start : start + per_row]
        offset = (per_row - len(chunk)) // 2
        for k, name in enumerate(chunk):
            out.append(RackPlace(name, first_row + start // per_row, offset + k, rack_units))
    return tuple(out)


def with_run_lengths(fabric, devices: dict, links, management: tuple[RackPlace, ...]) -> list:
    """``links`` with ``run_length_m`` by the layout's rule (module docstring).

    Parameters
    ----------
    fabric : Fabric
        The compute fabric, its racks placed (``fabric.racks``, ``settings.layout``).
    devices : dict
        Device name -> :class:`~planner.domain.networks.elements.NetworkDevice` (its
        ``rack`` and ``ru``).
    links : sequence of NetworkLink
    management : tuple of RackPlace
        The management racks' places (:func:`management_rack_places`).

    Returns
    -------
    list of NetworkLink
        The same links in the same order; ``run_length_m`` set where both ends have a rack.
    """
    places = {
        str(r["name"]): (int(r["row"]), int(r["position"]), int(r.get("rack_units") or 0))
        for r in fabric.racks
        if r.get("row") is not None and r.get("position") is not None
    }
    places.update({p.name: (p.row, p.position, p.rack_units) for p in management})
    default_units = int((fabric.settings.layout or {}).get("rack_units") or 48)
    measured: list[int] = []
    ends: list[tuple] = []
    for index, link in enumerate(links):
        a, b = devices.get(link.a_device), devices.get(link.b_device)
        if a is None or b is None or a.rack not in places or b.rack not in places:
            continue
        measured.append(index)
        ends.append((*_end(a, places, default_units), *_end(b, places, default_units)))
    out = list(links)
    if not measured:
        return out
    table = np.array([end[:4] + end[5:9] for end in ends], dtype=np.float64)
    same = np.array([end[4] == end[9] for end in ends], dtype=bool)
    lengths = run_lengths_m(
        layout_distances(fabric.settings.layout),
        row_a=table[:, 0],
        position_a=table[:, 1],
        units_a=table[:, 2],
        ru_a=table[:, 3],
        row_b=table[:, 4],
        position_b=table[:, 5],
        units_b=table[:, 6],
        ru_b=table[:, 7],
        same_rack=same,
    )
    for index, length in zip(measured, lengths.tolist(), strict=True):
        out[index] = replace(out[index], run_length_m=round(float(length), 1))
    return out


def _end(device, places: dict, default_units: int) -> tuple:
    """``(row, position, rack units, RU, rack name)`` of a placed device."""
    row, position, units = places[device.rack]
    ru = int(device.ru) if device.ru else UNPLACED_RU
    return row, position, units or default_units, ru, device.rack


__all__ = ["RackPlace", "UNPLACED_RU", "management_rack_places", "with_run_lengths"]
