"""The physical range of every number the product stores, found by the unit in its name.

Names carry their unit (``max_length_m``, ``power_typical_w``, ``interval_s``, ``rx_bytes``):
:data:`QUANTITIES` states, per unit suffix, what the quantity is, the lowest and highest value
any real part, cable, port or snapshot can have, and why. One table for every way in: part
checks (:func:`inventory.library.rules.check_part`: forms, API, catalog CSV and YAML imports),
prices, the as-built counter and cabling parsers and the quote dates all ask
:func:`range_problem`, so ``NaN``, ``±inf``, ``1e308`` or a negative length are refused the same
way, naming the field. The bounds are wide on purpose (an order of magnitude past today's
largest part): they refuse nonsense, not a new product. Pure: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Quantity:
    """A physical quantity: ``what`` it is, its ``unit``, the range ``low``..``high`` and the
    ``basis`` of that range (said in the refusal)."""

    what: str
    unit: str
    low: float
    high: float
    basis: str


#: Quantities by the unit suffix of a field name (the longest suffix wins: ``ns_per_m``
#: before ``m``).
QUANTITIES: dict[str, Quantity] = {
    "m": Quantity(
        "length",
        "m",
        0,
        200_000,
        "the longest single-span optics (coherent ZR/ZR+) reach about 120 km",
    ),
    "mm": Quantity("dimension", "mm", 0, 10_000, "a rack is under 1.5 m wide or deep"),
    "nm": Quantity("wavelength", "nm", 0, 2_000, "optical bands run 850 to 1,625 nm"),
    "ns": Quantity("latency", "ns", 0, 1e9, "one second"),
    "ns_per_m": Quantity(
        "propagation delay", "ns/m", 0, 100, "light in fiber takes about 5 ns per metre"
    ),
    "s": Quantity(
        "time interval",
        "s",
        1e-3,
        366 * 86_400,
        "counters are read over a millisecond at the least and a year at the most",
    ),
    "hours": Quantity("time", "hours", 0, 1e10, "an MTBF of ten billion hours"),
    "w": Quantity("power", "W", 0, 1e6, "a whole GB300 NVL72 rack draws about 135 kW"),
    "kw": Quantity("power", "kW", 0, 1e4, "a whole GB300 NVL72 rack draws about 135 kW"),
    "kg": Quantity("weight", "kg", 0, 1e4, "a GB300 NVL72 rack weighs about 1,400 kg"),
    "units": Quantity("height", "U", 0, 100, "the tallest racks are 58 U"),
    "gbps": Quantity("speed", "Gb/s", 0, 1e6, "the largest switch today moves 102,400 Gb/s"),
    "tbps": Quantity("speed", "Tb/s", 0, 1e3, "the largest switch today moves 102.4 Tb/s"),
    "gbd": Quantity("symbol rate", "GBd", 0, 1e3, "today's fastest lanes signal at 106 to 212 GBd"),
    "mb": Quantity("buffer", "MB", 0, 1e6, "switch buffers hold hundreds of MB"),
    "dbm": Quantity(
        "optical power", "dBm", -100, 40, "a laser of 10 W (+40 dBm) would burn any receiver"
    ),
    "db": Quantity("loss or margin", "dB", -100, 100, "100 dB is 10 orders of magnitude"),
    "c": Quantity(
        "temperature", "°C", -100, 200, "electronics stop working far inside -100 to 200 °C"
    ),
    "bytes": Quantity("byte count", "bytes", 0, 2**64 - 1, "a 64-bit counter"),
    "pct": Quantity("percentage", "%", -100, 1_000, "a margin or utilisation in percent"),
}
#: Any other number (counts of ports, lanes, legs, GPUs; errors counted in an interval).
COUNT = Quantity("count", "", 0, 2**64 - 1, "a 64-bit counter")


def quantity_of(name: str) -> Quantity:
    """The quantity the field ``name`` holds, by its unit suffix; :data:`COUNT` without one.

    Examples
    --------
    >>> [quantity_of(n).unit for n in ("max_length_m", "propagation_ns_per_m", "legs")]
    ['m', 'ns/m', '']
    """
    parts = name.lower().split("_")
    for start in range(1, len(parts)):
        found = QUANTITIES.get("_".join(parts[start:]))
        if found is not None:
            return found
    return COUNT


def _number_text(value: float) -> str:
    """``1,024``, ``0.5``, ``1e+308``: short whatever the size (an integer of a thousand
    digits is written by its power of ten)."""
    if isinstance(value, int) and abs(value) < 10**21:  # a 64-bit counter, exactly
        return f"{value:,}"
    try:
        number = float(value)
    except OverflowError:  # an int past a float's range
        return f"about 1e+{int(value.bit_length() * 0.30103)}"
    if number.is_integer() and abs(number) < 1e15:
        return f"{int(number):,}"
    return f"{number:,.6g}"


def range_problem(name: str, value, quantity: Quantity | None = None) -> str | None:
    """Why ``value`` cannot be the value of field ``name``, or None when it can.

    ``quantity`` overrides the one the name gives. Non-numbers are left to the field's own
    checks (None).

    Examples
    --------
    >>> range_problem("max_length_m", 3) is None
    True
    >>> range_problem("max_length_m", float("nan"))
    'max_length_m: NaN is not a number; a length is 0 to 200,000 m'
    >>> print(range_problem("max_length_m", 1e308))
    max_length_m: 1e+308 m is out of range; a length is 0 to 200,000 m (the longest \
single-span optics (coherent ZR/ZR+) reach about 120 km)
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    q = quantity or quantity_of(name)
    finite = not isinstance(value, float) or math.isfinite(value)
    if finite and q.low <= value <= q.high:
        return None  # the common case, without writing the span
    unit = f" {q.unit}" if q.unit else ""
    span = f"a {q.what} is {_number_text(q.low)} to {_number_text(q.high)}{unit}"
    if not finite:
        shown = "NaN" if math.isnan(value) else ("infinity" if value > 0 else "-infinity")
        return f"{name}: {shown} is not a number; {span}"
    if not q.low <= value <= q.high:
        return f"{name}: {_number_text(value)}{unit} is out of range; {span} ({q.basis})"
    return None


def range_problems(name: str, value) -> Iterator[tuple[str, str]]:
    """``(path, problem)`` for every number in ``value`` and what it nests (lists of numbers,
    objects whose keys name their own units: ``length_parts.0.length_m``); a key without a
    unit (``reach_by_grade: {OM4: 100}``) holds its parent's quantity. ``path`` is dotted from
    ``name``, as :mod:`inventory.library.documents` names places.

    Examples
    --------
    >>> [path for path, _ in range_problems("lengths_m", [1, 2, -3])]
    ['lengths_m.2']
    >>> [path for path, _ in range_problems("layout", {"slack_m": 1e308, "racks": 4})]
    ['layout.slack_m']
    """
    stack = [(name, name, value)]  # (path, the name giving the quantity, value)
    while stack:
        path, key, item = stack.pop()
        if isinstance(item, dict):
            for child_key, child in item.items():
                named = quantity_of(str(child_key)) is not COUNT
                stack.append((f"{path}.{child_key}", str(child_key) if named else key, child))
        elif isinstance(item, list | tuple):
            for index, child in enumerate(item):
                stack.append((f"{path}.{index}", key, child))
        elif problem := range_problem(path, item, quantity_of(key)):
            yield path, problem


__all__ = ["COUNT", "QUANTITIES", "Quantity", "quantity_of", "range_problem", "range_problems"]
