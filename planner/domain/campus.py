"""A design spread over several halls or buildings: the spec's ``campus`` block.

A campus is ``buildings`` halls, each laid out as its own floor (rows from the hall's front,
:mod:`planner.domain.layout`), with a distance between every two of them: ``distance_m``
(the same for every pair) or ``distances_m`` (a symmetric matrix with zeros on its
diagonal, one row per building). The distance is the fiber route between the two buildings'
fiber entrances, as the site plan gives it; it is not computed from coordinates.

What crosses: the scalable units (rail-optimized) or server blocks (Clos, fat-tree) are
shared out among the buildings in order, by server count, a building boundary falling only
between pods in a three-tier fabric; the top tier (the cores of three tiers, the spines of
two) stands in ``core_building`` (1-based; default the building nearest all the others), or
``by-plane``: plane ``p``'s top tier in building ``(p - 1) mod buildings + 1``. So the links
of the tier below the top (spine-core, or leaf-spine in two tiers) run between buildings:
they are the **campus** tier of the summary, power, BOM and cabling plan
(:data:`planner.domain.fabric.CAMPUS_TIER`).

A run between buildings (:func:`planner.domain.layout.link_lengths`) is, at each end, the
in-hall run from the device to its hall's fiber entrance (at the middle of the hall's front:
tray distance, the vertical run to the tray and ``layout.slack_m``), plus
``entrance_m`` at each end (riser or entrance-room run, our allowance; 0 unless given),
plus the distance between the buildings. Its optical channel crosses ``entrance_panels``
patch panels at each building's fiber entrance (default 1, our assumption: a building's
outside-plant fiber ends on a panel; 0 for a run spliced through), one mated LC pair each, in
the loss budget (:func:`planner.domain.physical.cabling.channels_for`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: ``core_building`` value that places each plane's top tier in its own building.
BY_PLANE = "by-plane"


@dataclass(frozen=True)
class Campus:
    """The parsed ``campus`` block (see module docstring)."""

    buildings: int
    distances_m: tuple[tuple[float, ...], ...]
    core_building: int | str = 1  # 1-based, or BY_PLANE
    entrance_m: float = 0.0
    entrance_panels: int = 1
    given: dict | None = None  # the block as written, for as_spec

    @property
    def multi(self) -> bool:
        """More than one building."""
        return self.buildings > 1

    def distance_m(self, a: int, b: int) -> float:
        """Fiber route between buildings ``a`` and ``b`` (0-based), metres."""
        return float(self.distances_m[a][b])

    def as_spec(self) -> dict:
        """The block as a document (round-trips through :func:`parse_campus`)."""
        return dict(self.given or {"buildings": self.buildings})

    def as_info(self) -> dict:
        """What the layout keeps in ``fabric.settings.campus``."""
        return {
            "buildings": self.buildings,
            "distances_m": [list(row) for row in self.distances_m],
            "core_building": self.core_building,
            "entrance_m": self.entrance_m,
            "entrance_panels": self.entrance_panels,
        }


def _matrix(block: dict, count: int, problems: list) -> tuple[tuple[float, ...], ...] | None:
    if "distance_m" in block and "distances_m" in block:
        problems.append(("campus.distances_m", "give distance_m or distances_m, not both"))
        return None
    if "distances_m" in block:
        rows = block["distances_m"]
        if len(rows) != count or any(len(row) != count for row in rows):
            problems.append(
                (
                    "campus.distances_m",
                    f"needs {count} rows of {count} distances (one per building)",
                )
            )
            return None
        for i in range(count):
            if rows[i][i] != 0:
                problems.append((f"campus.distances_m.{i}.{i}", "a building is 0 m from itself"))
                return None
            for j in range(i + 1, count):
                if rows[i][j] != rows[j][i]:
                    problems.append(
                        (
                            f"campus.distances_m.{i}.{j}",
                            f"{rows[i][j]:g} m differs from {rows[j][i]:g} m the other way",
                        )
                    )
                    return None
                if rows[i][j] <= 0:
                    problems.append(
                        (f"campus.distances_m.{i}.{j}", "two buildings are more than 0 m apart")
                    )
                    return None
        return tuple(tuple(float(v) for v in row) for row in rows)
    if count > 1 and "distance_m" not in block:
        problems.append(("campus.distance_m", f"{count} buildings need distance_m or distances_m"))
        return None
    distance = float(block.get("distance_m") or 0.0)
    return tuple(tuple(0.0 if i == j else distance for j in range(count)) for i in range(count))


def parse_campus(block: dict | None, problems: list[tuple[str, str]]) -> Campus | None:
    """The ``campus`` block (structure already checked by the schema) as a :class:`Campus`;
    meaning problems are appended to ``problems`` as ``(field, message)``.

    Examples
    --------
    >>> problems = []
    >>> campus = parse_campus({"buildings": 3, "distance_m": 800}, problems)
    >>> campus.distance_m(0, 2), campus.core_building, problems
    (800.0, 1, [])
    >>> campus = parse_campus({"buildings": 3, "distances_m": [[0, 1, 2], [1, 0, 1], [2, 1, 0]]},
    ...                       problems)
    >>> campus.core_building  # nearest all the others
    2
    >>> parse_campus({"buildings": 2}, problems), problems[-1][0]
    (None, 'campus.distance_m')
    """
    if not block:
        return None
    count = int(block["buildings"])
    before = len(problems)
    matrix = _matrix(block, count, problems)
    core = block.get("core_building")
    if isinstance(core, int) and core > count:
        problems.append(("campus.core_building", f"building {core} of {count}: use 1 to {count}"))
    if len(problems) > before or matrix is None:
        return None
    if core is None:  # the building with the smallest sum of distances (first on a tie)
        sums = [sum(row) for row in matrix]
        core = 1 + min(range(count), key=lambda i: (round(sums[i], 6), i))
    entrance = float(block.get("entrance_m", 0.0))
    if not math.isfinite(entrance):
        problems.append(("campus.entrance_m", "is not a finite number"))
        return None
    panels = int(block.get("entrance_panels", 1))
    return Campus(count, matrix, core, entrance, panels, dict(block))


__all__ = ["BY_PLANE", "Campus", "parse_campus"]
