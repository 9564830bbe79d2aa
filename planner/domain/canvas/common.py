"""What every part of the canvas shares: the element budget, the errors, element ids and the
small formatters of node facts.

Examples
--------
>>> node_id("leaf-1"), speed_text(800), speed_text(1600), finite(float("nan"))
('node:leaf-1', '800G', '1.6T', None)
"""

from __future__ import annotations

import math

from inventory.library.rules import Violation
from planner.domain import names
from planner.domain.fabric import Fabric

MAX_ELEMENTS = 5000  # nodes + edges of one view, and of an edit document


class CanvasError(ValueError):
    """A view that cannot be drawn (unknown scope, or too large to show or edit whole);
    ``field`` names the request parameter at fault when it is known (``plane``)."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


class EditError(ValueError):
    """An edit document with errors; ``violations`` lists every problem (and warning)."""

    def __init__(self, violations: list[Violation]):
        self.violations = violations
        errors = [v for v in violations if v.severity == "error"]
        super().__init__("; ".join(v.message for v in errors[:3]))


def violation_dict(violation: Violation) -> dict:
    """A problem as the API, canvas and jobs report it."""
    return {
        "code": violation.code,
        "message": violation.message,
        "element_ids": list(violation.element_ids),
        "severity": violation.severity,
        "field": violation.field,
    }


def node_id(name: str) -> str:
    """The element id of the node named ``name``."""
    return f"node:{name}"


def rack_name(fabric: Fabric, node: int) -> str | None:
    """The name of the rack ``node`` stands in (:func:`planner.domain.names.rack_name`), or
    None."""
    return names.rack_name(fabric, node) or None


def speed_text(speed: int) -> str:
    """A port speed as people write it (``800G``, ``1.6T``)."""
    if speed >= 1000 and speed % 100 == 0:
        return f"{speed / 1000:g}T"
    return f"{speed}G"


def finite(value) -> float | None:
    """``value`` rounded to 2 places, or None when not finite (an unknown length)."""
    value = float(value)
    return round(value, 2) if math.isfinite(value) else None
