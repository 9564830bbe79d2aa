"""Distances between placed racks and the run length of each link (issue 14).

Split from :mod:`planner.domain.layout` (which places racks in rows, halls and buildings by
the rules its docstring states): here the placement is read back as distances between rack
positions and as the run length, in metres, of every link and building entrance."""

from __future__ import annotations

import numpy as np

from planner.domain.fabric import Fabric
from planner.domain.spec_model import Layout

__all__ = [
    "DISTANCE_FIELDS",
    "RU_M",
    "entrance_runs_m",
    "layout_distances",
    "link_lengths",
    "run_lengths_m",
]

RU_M = 0.04445  # one rack unit, metres
IN_RACK_EXTRA_M = 0.5
#: The spec's layout distances the run rule uses, kept in ``settings.layout``.
DISTANCE_FIELDS = ("rack_width_m", "row_pitch_m", "tray_height_m", "slack_m")


def layout_distances(info: dict | None) -> Layout:
    """The run rule's distances kept in ``fabric.settings.layout`` as a :class:`Layout`.

    A design stored before they were kept (or a value that is not a number) reads the
    :class:`Layout` default of that field.

    >>> layout_distances({"row_pitch_m": 4.0}).row_pitch_m, layout_distances(None).slack_m
    (4.0, 2.0)
    """
    info = info or {}
    values = {}
    for name in DISTANCE_FIELDS:
        value = info.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            values[name] = float(value)
    return Layout(**values)


def run_lengths_m(
    layout: Layout,
    *,
    row_a: np.ndarray,
    position_a: np.ndarray,
    units_a: np.ndarray,
    ru_a: np.ndarray,
    row_b: np.ndarray,
    position_b: np.ndarray,
    units_b: np.ndarray,
    ru_b: np.ndarray,
    same_rack: np.ndarray,
) -> np.ndarray:
    """The run rule (module docstring) on rack places: ``row``, ``position``, rack height in
    ``units`` and the device's lowest ``ru`` at each end; ``same_rack`` selects the in-rack
    rule. Metres, rounded up to 0.1 m, float32; symmetric in the two ends."""
    ru_a = np.asarray(ru_a, dtype=np.float64)
    ru_b = np.asarray(ru_b, dtype=np.float64)
    horizontal = (
        np.abs(np.asarray(position_a, np.float64) - position_b) * layout.rack_width_m
        + np.abs(np.asarray(row_a, np.float64) - row_b) * layout.row_pitch_m
    )
    vertical = (
        (np.asarray(units_a, np.float64) * RU_M - ru_a * RU_M)
        + (np.asarray(units_b, np.float64) * RU_M - ru_b * RU_M)
        + 2 * layout.tray_height_m
    )
    between = horizontal + vertical + layout.slack_m
    within = np.abs(ru_a - ru_b) * RU_M + IN_RACK_EXTRA_M
    length = np.where(same_rack, within, between)
    return (np.ceil(np.round(length * 10, 6)) / 10).astype(np.float32)


def link_lengths(fabric: Fabric, layout: Layout, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cable run in metres between nodes ``a[i]`` and ``b[i]`` (placed), rounded up to 0.1 m.

    On a campus (``fabric.settings.campus``), a run between two buildings is each end's run
    to its hall's fiber entrance (:func:`entrance_runs_m`), plus ``entrance_m`` at each end,
    plus the distance between the buildings (:mod:`planner.domain.campus`).

    Symmetric: ``link_lengths(f, l, a, b) == link_lengths(f, l, b, a)``.
    """
    rack_a, rack_b = fabric.node_rack[a], fabric.node_rack[b]
    row = np.array([r["row"] for r in fabric.racks], dtype=np.float64)
    position = np.array([r["position"] for r in fabric.racks], dtype=np.float64)
    units = np.array([r["rack_units"] for r in fabric.racks], dtype=np.float64)
    building = np.array([r.get("building", 0) for r in fabric.racks], dtype=np.int64)
    same_rack = rack_a == rack_b
    lengths = run_lengths_m(
        layout,
        row_a=row[rack_a],
        position_a=position[rack_a],
        units_a=units[rack_a],
        ru_a=fabric.node_ru[a],
        row_b=row[rack_b],
        position_b=position[rack_b],
        units_b=units[rack_b],
        ru_b=fabric.node_ru[b],
        same_rack=same_rack,
    )
    campus = fabric.settings.campus or {}
    cross = building[rack_a] != building[rack_b]
    if campus and cross.any():
        ra, rb = rack_a[cross], rack_b[cross]
        entrance_x = float(campus.get("entrance_x_m") or 0.0)
        ends = [
            entrance_runs_m(layout, row[r], position[r], units[r], ru, entrance_x)
            for r, ru in ((ra, fabric.node_ru[a][cross]), (rb, fabric.node_ru[b][cross]))
        ]
        distances = np.asarray(campus["distances_m"], dtype=np.float64)
        between = (
            ends[0]
            + ends[1]
            + 2 * float(campus.get("entrance_m") or 0.0)
            + distances[building[ra], building[rb]]
        )
        lengths[cross] = (np.ceil(np.round(between * 10, 6)) / 10).astype(np.float32)
    return lengths


def entrance_runs_m(layout: Layout, row, position, units, ru, entrance_x_m: float) -> np.ndarray:
    """Run from a device to its hall's fiber entrance (the middle of the hall's front, at
    ``x = entrance_x_m``, ``y = 0``): tray distance, the vertical run up to the tray and
    ``slack_m``, as a run between racks (module docstring), not rounded.

    >>> round(float(entrance_runs_m(Layout(), 2, 10, 48, 1, 6.0)), 3)  # 0 + 6 + 2.089 + 0.6 + 2
    10.689
    """
    horizontal = np.abs(np.asarray(position, np.float64) * layout.rack_width_m - entrance_x_m) + (
        np.asarray(row, np.float64) * layout.row_pitch_m
    )
    vertical = (np.asarray(units, np.float64) - np.asarray(ru, np.float64)) * RU_M
    return horizontal + vertical + layout.tray_height_m + layout.slack_m
