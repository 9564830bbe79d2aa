"""Rules that a single catalog part must satisfy.

Every rule returns :class:`Violation` objects (``code``, ``message``, ``field``) instead of
raising, so that ``Model.clean()``, the importers and the API report the same problems in
the same words. Link-level rules (does this module fit that cage?) live in
:mod:`inventory.library.compat`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field

from inventory.library.quantities import range_problems
from inventory.library.vocab import (
    CAGE_ROLES,
    CONNECTORS,
    FEC,
    FIBER_GRADES,
    FORM_FACTORS,
    FORWARDING_MODES,
    GRADES,
    MODULATIONS,
    PORT_ROLES,
    PROTOCOLS,
    TOPS,
    values,
)


@dataclass(frozen=True)
class Violation:
    """One broken rule.

    Attributes
    ----------
    severity : str
        ``error`` (it will not work) or ``warning`` (a fact needed to prove it is unknown).
    code : str
        Stable identifier, e.g. ``power-typical-above-max``.
    message : str
        A sentence a user can act on.
    field : str
        The field (dotted path for nested values) the problem is about, or ``""``.
    element_ids : tuple of str
        Elements concerned, for whole-fabric checks (``node:12``); empty for single parts.
    """

    code: str
    message: str
    field: str = ""
    element_ids: tuple[str, ...] = ()
    params: dict = dataclass_field(default_factory=dict)
    severity: str = "error"  # "error": will not work; "warning": cannot be verified


BREAKOUT = re.compile(r"^(\d+)x(\d+(?:\.\d+)?)([GT])$")


@functools.lru_cache(maxsize=1024)  # a handful of texts, parsed for every port of every build
def parse_breakout(text: str) -> tuple[int, int]:
    """Parse ``"2x400G"`` into ``(legs, leg_speed_gbps)``.

    Examples
    --------
    >>> parse_breakout("4x200G")
    (4, 200)
    >>> parse_breakout("1x1.6T")
    (1, 1600)
    """
    match = BREAKOUT.match(text.strip())
    if not match:
        raise ValueError(f"breakout {text!r} is not of the form NxSPEED (e.g. 2x400G)")
    legs, speed, unit = int(match.group(1)), float(match.group(2)), match.group(3)
    return legs, int(round(speed * (1000 if unit == "T" else 1)))


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_power(
    values_: dict, typical="power_typical_w", maximum="power_max_w"
) -> Iterator[Violation]:
    """Typical power must not exceed maximum power; both non-negative.

    Examples
    --------
    >>> [v.code for v in check_power({"power_typical_w": 30, "power_max_w": 20})]
    ['power-typical-above-max']
    """
    low, high = values_.get(typical), values_.get(maximum)
    for name, value in ((typical, low), (maximum, high)):
        if value is not None and (not _number(value) or value < 0):
            yield Violation("power-invalid", f"{name} must be a number ≥ 0.", name)
    if _number(low) and _number(high) and low > high:
        yield Violation(
            "power-typical-above-max",
            f"Typical power ({low} W) is above maximum power ({high} W).",
            typical,
            params={"typical": low, "max": high},
        )


def check_positive(values_: dict, names: Iterable[str]) -> Iterator[Violation]:
    """Named numeric values, when given, must be greater than zero."""
    for name in names:
        value = values_.get(name)
        if value is None:
            continue
        if not _number(value) or value <= 0:
            yield Violation("not-positive", f"{name} must be greater than 0 (got {value!r}).", name)


def _check_choice(value, allowed: set[str], path: str) -> Iterator[Violation]:
    if value is None or value == "":
        return
    if not isinstance(value, str):
        yield Violation("not-a-string", f"{path}: {value!r} is not a string.", path)
        return
    if value not in allowed:
        yield Violation(
            "unknown-value", f"{path}: {value!r} is not one of {sorted(allowed)}.", path
        )


def _check_list_of(value, allowed: set[str], path: str) -> Iterator[Violation]:
    if value in (None, ""):
        return
    if not isinstance(value, list):
        yield Violation("not-a-list", f"{path} must be a list.", path)
        return
    for index, item in enumerate(value):
        if not isinstance(item, str):
            yield Violation(
                "not-a-string", f"{path} item {index + 1}: {item!r} is not a string.", path
            )
            continue
        yield from _check_choice(item, allowed, path)


def check_breakouts(
    breakouts, total_gbps, path: str, *, exact=True, also_gbps=None
) -> Iterator[Violation]:
    """Each breakout ``NxS`` must multiply out to the port (or module) speed.

    A breakout *cable or module* splits all lanes, so legs × leg speed must equal the speed
    (``exact``). A switch *port mode* may run its lanes slower (SN5600: 4 x 25G on an 800G
    port), so there legs × leg speed must only not exceed it. ``also_gbps`` is a second
    speed a breakout may equal (a twin-port module lists breakouts per port or per module).

    Examples
    --------
    >>> [v.code for v in check_breakouts(["2x400G", "4x100G"], 800, "breakouts")]
    ['breakout-speed-mismatch']
    >>> [v.code for v in check_breakouts(["4x100G", "4x400G"], 800, "b", exact=False)]
    ['breakout-speed-mismatch']
    """
    if not breakouts:
        return
    if not isinstance(breakouts, list):
        yield Violation("not-a-list", f"{path} must be a list like ['2x400G'].", path)
        return
    for text in breakouts:
        try:
            legs, leg_speed = parse_breakout(str(text))
        except ValueError as exc:
            yield Violation("breakout-invalid", str(exc), path)
            continue
        if not _number(total_gbps):
            continue
        total = legs * leg_speed
        if exact and total != total_gbps and total != also_gbps:
            yield Violation(
                "breakout-speed-mismatch",
                f"{path}: {text} gives {total}G, but the port is {total_gbps:g}G "
                "(legs × leg speed must equal the port speed).",
                path,
                params={"breakout": text, "port_speed_gbps": total_gbps},
            )
        elif not exact and total > total_gbps:
            yield Violation(
                "breakout-speed-mismatch",
                f"{path}: {text} needs {total}G, more than the port's {total_gbps:g}G.",
                path,
                params={"breakout": text, "port_speed_gbps": total_gbps},
            )


def check_lanes(lanes, lane_rate, speed, path: str) -> Iterator[Violation]:
    """Lanes × lane rate must equal the speed they carry.

    Examples
    --------
    >>> [v.code for v in check_lanes(4, 100, 800, "x")]
    ['lanes-speed-mismatch']
    """
    if _number(lanes) and _number(lane_rate) and _number(speed) and lanes * lane_rate != speed:
        yield Violation(
            "lanes-speed-mismatch",
            f"{path}: {lanes} lanes × {lane_rate:g}G = {lanes * lane_rate:g}G, not {speed:g}G.",
            path,
        )


def _check_port_group(group, path: str, *, cage: bool) -> Iterator[Violation]:
    if not isinstance(group, dict):
        yield Violation("not-an-object", f"{path} must be an object.", path)
        return
    yield from _check_choice(group.get("form_factor"), values(FORM_FACTORS), f"{path}.form_factor")
    yield from _check_choice(group.get("top"), values(TOPS), f"{path}.top")
    yield from _check_choice(group.get("modulation"), values(MODULATIONS), f"{path}.modulation")
    count_key = "count"
    if group.get(count_key) is not None and (not _number(group[count_key]) or group[count_key] < 1):
        yield Violation("not-positive", f"{path}.count must be at least 1.", f"{path}.count")
    speed_key = "port_speed_gbps" if cage else "max_speed_gbps"
    speed = group.get(speed_key)
    lanes = group.get("lanes_per_port" if cage else "lanes")
    yield from check_lanes(lanes, group.get("lane_rate_gbps"), speed, path)
    if cage:
        if group.get("role") is not None:
            yield from _check_choice(group.get("role"), values(CAGE_ROLES), f"{path}.role")
        per_cage = group.get("ports_per_cage")
        if per_cage is not None and per_cage not in (1, 2):
            yield Violation(
                "ports-per-cage", f"{path}.ports_per_cage must be 1 or 2.", f"{path}.ports_per_cage"
            )
        scope_total = speed
        if group.get("breakout_scope") == "cage" and _number(speed):
            scope_total = speed * (per_cage or 1)
        yield from check_breakouts(
            group.get("breakouts"), scope_total, f"{path}.breakouts", exact=False
        )
    for speed_value in group.get("speeds_gbps") or []:
        if _number(speed) and _number(speed_value) and speed_value > speed:
            yield Violation(
                "speed-above-max", f"{path}: listed speed {speed_value}G is above {speed}G.", path
            )


def _check_groups(groups, path: str, *, cage: bool) -> Iterator[Violation]:
    if groups in (None, ""):
        return
    if not isinstance(groups, list):
        yield Violation("not-a-list", f"{path} must be a list.", path)
        return
    for index, group in enumerate(groups):
        yield from _check_port_group(group, f"{path}.{index}", cage=cage)


def check_switch(v: dict) -> Iterator[Violation]:
    yield from check_power(v)
    yield from check_positive(
        v,
        [
            "capacity_tbps",
            "rack_units",
            "weight_kg",
            "psu_rating_w",
            "buffer_mb",
            "latency_ns",
            "mtbf_hours",
        ],
    )
    yield from _check_choice(v.get("forwarding_mode"), values(FORWARDING_MODES), "forwarding_mode")
    yield from _check_list_of(v.get("protocols"), values(PROTOCOLS), "protocols")
    yield from _check_groups(v.get("cage_groups"), "cage_groups", cage=True)


def check_nic(v: dict) -> Iterator[Violation]:
    yield from check_power(v)
    yield from check_positive(v, ["max_speed_gbps", "mtbf_hours"])
    yield from _check_list_of(v.get("protocols"), values(PROTOCOLS), "protocols")
    yield from _check_groups(v.get("ports"), "ports", cage=False)
    for index, port in enumerate(v.get("ports") or []):
        speed = port.get("max_speed_gbps") if isinstance(port, dict) else None
        if _number(speed) and _number(v.get("max_speed_gbps")) and speed > v["max_speed_gbps"]:
            yield Violation(
                "speed-above-max",
                f"ports.{index}: {speed}G is above the card's {v['max_speed_gbps']}G.",
                f"ports.{index}.max_speed_gbps",
            )
    limits = v.get("limits")
    if limits and (
        not isinstance(limits, list)
        or not all(isinstance(item, dict) and item.get("code") for item in limits)
    ):
        yield Violation("limits-invalid", "limits must be a list of objects with a code.", "limits")


def check_server(v: dict) -> Iterator[Violation]:
    yield from check_power(v)
    yield from check_positive(
        v, ["gpus", "rack_units", "systems_per_rack", "weight_kg", "nics_per_gpu", "mtbf_hours"]
    )
    yield from _check_groups(v.get("compute_ports"), "compute_ports", cage=True)
    for index, port in enumerate(v.get("other_ports") or []):
        if isinstance(port, dict):
            yield from _check_choice(
                port.get("role"), values(PORT_ROLES), f"other_ports.{index}.role"
            )


def check_transceiver(v: dict) -> Iterator[Violation]:
    yield from check_power(v)
    if (
        _number(v.get("power_reduced_w"))
        and _number(v.get("power_max_w"))
        and v["power_reduced_w"] > v["power_max_w"]
    ):
        yield Violation(
            "power-reduced-above-max",
            "Reduced-mode power is above maximum power.",
            "power_reduced_w",
        )
    yield from check_positive(
        v,
        [
            "speed_gbps",
            "port_speed_gbps",
            "reach_m",
            "lane_rate_gbps",
            "wavelength_nm",
            "baud_gbd",
            "latency_ns",
            "mtbf_hours",
        ],
    )
    yield from _check_list_of(v.get("protocols"), values(PROTOCOLS), "protocols")
    yield from _check_list_of(v.get("fiber_grades"), values(FIBER_GRADES), "fiber_grades")
    yield from check_lanes(v.get("lanes"), v.get("lane_rate_gbps"), v.get("speed_gbps"), "lanes")
    ports, speed, port_speed = (
        v.get("ports_per_module") or 1,
        v.get("speed_gbps"),
        v.get("port_speed_gbps"),
    )
    if _number(speed) and _number(port_speed) and ports * port_speed != speed:
        yield Violation(
            "ports-speed-mismatch",
            f"{ports} port(s) × {port_speed}G ≠ module speed {speed}G.",
            "port_speed_gbps",
        )
    yield from check_breakouts(v.get("breakouts"), speed, "breakouts", also_gbps=port_speed)
    yield from check_optics_facts(v)
    for grade, reach in (v.get("reach_by_grade") or {}).items():
        if grade not in values(FIBER_GRADES):
            yield Violation(
                "fiber-grade-unknown",
                f"reach_by_grade names an unknown fiber grade {grade!r} "
                f"(one of {', '.join(value for value, _ in FIBER_GRADES)}).",
                "reach_by_grade",
            )
        elif not _number(reach) or reach <= 0:
            yield Violation(
                "not-positive", f"reach_by_grade.{grade} must be greater than 0.", "reach_by_grade"
            )
        elif _number(v.get("reach_m")) and reach > v["reach_m"]:
            yield Violation(
                "reach-above-max",
                f"reach on {grade} ({reach} m) exceeds reach_m.",
                "reach_by_grade",
            )
    if v.get("media") == "copper" and v.get("connector") != "rj45":  # BASE-T modules are copper
        yield Violation(
            "transceiver-media",
            "A transceiver's media is mmf or smf (or copper with an RJ45 jack, a BASE-T "
            "module); copper cables are cable assemblies.",
            "media",
        )


def check_optics_facts(v: dict) -> Iterator[Violation]:
    """The optical budget facts of a transceiver (issue 19): known fiber grades, a channel
    limit that is a number > 0 per grade, per-lane powers that are numbers, a known FEC.

    Examples
    --------
    >>> [v.message for v in check_optics_facts({"channel_il_max_db": {"OS9": 3.0}})]
    ["channel_il_max_db names an unknown fiber grade 'OS9' (one of OM3, OM4, OM5, OS2, OS1a)."]
    >>> [v.field for v in check_optics_facts({"channel_il_max_db": {"OS2": -1}})]
    ['channel_il_max_db']
    >>> list(check_optics_facts({"channel_il_max_db": {"OS2": 3.0}, "fec": "host-kp4"}))
    []
    """
    grades = values(FIBER_GRADES)
    limits = v.get("channel_il_max_db")
    if limits not in (None, {}) and not isinstance(limits, dict):
        yield Violation(
            "channel-il-invalid",
            'channel_il_max_db must be an object of dB per fiber grade, e.g. {"OS2": 3.0}.',
            "channel_il_max_db",
        )
    else:
        for grade, limit in (limits or {}).items():
            if grade not in grades:
                yield Violation(
                    "fiber-grade-unknown",
                    f"channel_il_max_db names an unknown fiber grade {grade!r} "
                    f"(one of {', '.join(value for value, _ in FIBER_GRADES)}).",
                    "channel_il_max_db",
                )
            elif not _number(limit) or limit <= 0:
                yield Violation(
                    "channel-il-invalid",
                    f"channel_il_max_db.{grade} must be a number of dB greater than 0, "
                    f"not {limit!r}.",
                    "channel_il_max_db",
                )
    for name in ("tx_avg_min_dbm", "rx_avg_min_dbm"):
        if v.get(name) is not None and not _number(v[name]):
            yield Violation("not-a-number", f"{name} must be a number (dBm).", name)
    yield from _check_choice(v.get("fec"), values(FEC), "fec")
    panels = v.get("rated_with_patch_panels")
    if panels is not None and (
        not isinstance(panels, int) or isinstance(panels, bool) or panels < 0
    ):
        yield Violation(
            "not-positive",
            "rated_with_patch_panels must be a whole number ≥ 0.",
            "rated_with_patch_panels",
        )


def _check_lengths(v: dict) -> Iterator[Violation]:
    lengths = v.get("lengths_m") or []
    if not isinstance(lengths, list) or not all(_number(x) and x > 0 for x in lengths):
        yield Violation("lengths-invalid", "lengths_m must be a list of lengths > 0.", "lengths_m")
        return
    top = v.get("max_length_m")
    if lengths and _number(top) and max(lengths) > top:
        yield Violation(
            "length-above-max",
            f"A listed length ({max(lengths)} m) is above max_length_m ({top} m).",
            "lengths_m",
        )
    yield from _check_length_parts(v, lengths)


def _metres(values) -> str:
    return ", ".join(f"{float(x):g} m" for x in sorted(values)) or "none"


def _check_length_parts(v: dict, lengths: list) -> Iterator[Violation]:
    """``length_parts``: one ``{length_m, part_number}`` per listed length, no other."""
    items = v.get("length_parts") or []
    if not items:
        return
    sold = []
    for index, item in enumerate(items, start=1):
        length, number = item.get("length_m"), str(item.get("part_number") or "").strip()
        if not (_number(length) and length > 0) or not number:
            yield Violation(
                "length-parts-invalid",
                f"length_parts item {index} needs a length_m > 0 and a part_number.",
                "length_parts",
            )
            return
        sold.append(float(length))
    if len(set(sold)) != len(sold) or sorted(sold) != sorted(float(x) for x in lengths):
        yield Violation(
            "length-parts-mismatch",
            "length_parts must give one part number for each length of lengths_m "
            f"(lengths_m: {_metres(lengths)}; length_parts: {_metres(sold)}).",
            "length_parts",
        )


def check_cable(v: dict) -> Iterator[Violation]:
    yield from check_positive(
        v,
        [
            "speed_gbps",
            "leg_speed_gbps",
            "max_length_m",
            "lane_rate_gbps",
            "latency_ns",
            "propagation_ns_per_m",
            "mtbf_hours",
        ],
    )
    yield from _check_lengths(v)
    yield from _check_list_of(v.get("protocols"), values(PROTOCOLS), "protocols")
    for name in ("power_end_a_w", "power_end_b_w"):
        if v.get(name) is not None and (not _number(v[name]) or v[name] < 0):
            yield Violation("power-invalid", f"{name} must be a number ≥ 0.", name)
    topology, legs = v.get("topology"), v.get("legs")
    expected = {"straight": 1, "1:2": 2, "1:4": 4, "1:8": 8}.get(topology or "")
    if expected and legs is not None and legs != expected:
        yield Violation(
            "legs-topology-mismatch",
            f"A {topology} cable has {expected} leg(s), not {legs}.",
            "legs",
        )
    legs = legs or expected
    speed, leg_speed = v.get("speed_gbps"), v.get("leg_speed_gbps")
    if _number(speed) and _number(leg_speed) and legs and legs * leg_speed != speed:
        yield Violation(
            "breakout-speed-mismatch",
            f"{legs} leg(s) × {leg_speed}G = {legs * leg_speed}G, but the cable "
            f"head is {speed}G (legs × leg speed must equal the port speed).",
            "leg_speed_gbps",
            params={"legs": legs, "leg_speed_gbps": leg_speed},
        )
    yield from check_lanes(
        v.get("lanes_per_leg"), v.get("lane_rate_gbps"), leg_speed, "lanes_per_leg"
    )
    for end in ("end_a", "end_b"):
        yield from _check_choice(
            v.get(f"{end}_form_factor"), values(FORM_FACTORS), f"{end}_form_factor"
        )
        yield from _check_choice(v.get(f"{end}_top"), values(TOPS), f"{end}_top")


def check_fiber(v: dict) -> Iterator[Violation]:
    yield from check_positive(v, ["max_length_m", "fiber_count", "propagation_ns_per_m"])
    yield from _check_lengths(v)
    yield from _check_choice(v.get("connector_a"), values(CONNECTORS), "connector_a")
    yield from _check_choice(v.get("connector_b"), values(CONNECTORS), "connector_b")
    grade = v.get("fiber_grade")
    if grade and v.get("fiber_type"):
        expected = "smf" if grade.startswith("OS") else "mmf"
        if expected != v["fiber_type"]:
            yield Violation(
                "fiber-grade-type", f"{grade} is {expected}, not {v['fiber_type']}.", "fiber_grade"
            )


def check_rack(v: dict) -> Iterator[Violation]:
    yield from check_positive(v, ["rack_units", "power_kw", "cooling_kw", "width_mm", "depth_mm"])


CHECKS = {
    "switch": check_switch,
    "nic": check_nic,
    "server": check_server,
    "transceiver": check_transceiver,
    "cable": check_cable,
    "fiber": check_fiber,
    "rack": check_rack,
}


#: The shape of each structured (JSON) spec field: the container and what its items are.
#: Checked before any rule reads the value, so a rule never meets a shape it cannot read.
FIELD_SHAPES: dict[str, tuple[type, type | tuple[type, ...]]] = {
    "protocols": (list, str),
    "fiber_grades": (list, str),
    "breakouts": (list, str),
    "partners": (list, str),
    "fibers": (list, str),
    "for_pmd": (list, str),
    "fec_modes": (list, str),
    "lengths_m": (list, (int, float)),
    "length_parts": (list, dict),
    "cage_groups": (list, dict),
    "ports": (list, dict),
    "compute_ports": (list, dict),
    "other_ports": (list, dict),
    "limits": (list, dict),
    "trays": (dict, (int, float, str, type(None))),
    "reach_by_grade": (dict, (int, float, type(None))),
}
_KIND_NAMES = {list: "a list", dict: "an object", str: "a string", int: "a number"}


def check_shapes(spec: dict) -> list[Violation]:
    """Problems with the shape of the structured fields (:data:`FIELD_SHAPES`).

    Examples
    --------
    >>> [v.message for v in check_shapes({"protocols": [{}], "trays": [], "ports": None})]
    ['protocols item 1: {} is not a string.', 'trays must be an object.']
    """
    problems = []
    for name, (container, item_kind) in FIELD_SHAPES.items():
        value = spec.get(name)
        if value is None or name not in spec:
            continue
        if not isinstance(value, container):
            problems.append(
                Violation("bad-shape", f"{name} must be {_KIND_NAMES[container]}.", name)
            )
            continue
        items = value.values() if container is dict else value
        for index, item in enumerate(items, start=1):
            if not isinstance(item, item_kind) or isinstance(item, bool):
                kind = item_kind if isinstance(item_kind, type) else item_kind[0]
                where = f"{name} item {index}" if container is list else f"{name} value {index}"
                message = f"{where}: {item!r} is not {_KIND_NAMES.get(kind, kind.__name__)}."
                problems.append(Violation("bad-shape", message, name))
                break
    return problems


def check_ranges(spec: dict) -> list[Violation]:
    """Every number of ``spec``, nested ones included, finite and inside the physical range of
    its quantity (:mod:`inventory.library.quantities`, by the unit in its name).

    Examples
    --------
    >>> [v.field for v in check_ranges({"max_length_m": float("nan"), "legs": 4})]
    ['max_length_m']
    """
    return [
        Violation("out-of-range", problem, name)
        for name, value in spec.items()
        for _path, problem in range_problems(name, value)
    ]


def check_part(category: str, spec: dict) -> list[Violation]:
    """Every rule for one part of ``category``, given its spec values.

    The shapes of structured fields are checked first (:func:`check_shapes`); the rules run
    only on well-shaped values, and a value nested wrongly inside them is reported as a
    problem of the part, never an exception. Every number is also checked against its
    physical range (:func:`check_ranges`).

    Examples
    --------
    >>> [v.code for v in check_part("cable", {"topology": "1:2", "speed_gbps": 800,
    ...                                       "leg_speed_gbps": 200})]
    ['breakout-speed-mismatch']
    >>> [v.field for v in check_part("cable", {"protocols": [{}]})]
    ['protocols']
    """
    problems = check_shapes(spec)
    if problems:
        return problems
    ranged = check_ranges(spec)
    try:
        problems = list(CHECKS[category](spec))
    except (TypeError, AttributeError, KeyError, ValueError, ArithmeticError):
        if ranged:  # int(inf), a comparison with NaN...: the range problem says it plainly
            return ranged
        return [
            Violation(
                "bad-shape",
                "A structured field holds a value of the wrong shape; see each field's help "
                "text for the expected shape.",
                "",
            )
        ]
    # A field a rule already refuses (a negative power) is said once, by the rule.
    said = {problem.field for problem in problems}
    return problems + [problem for problem in ranged if problem.field not in said]


#: A source's address: a web page, as the manufacturer, price and rate URLs (Django's
#: URLField) accept; never ``javascript:`` or ``data:``.
WEB_URL = re.compile(r"^https?://[^\s/?#]+[^\s]*$", re.IGNORECASE)


def check_provenance(sources, provenance) -> list[Violation]:
    """Sources have a grade and a web address (or none); every provenance record names a
    defined source or a grade.

    Examples
    --------
    >>> [v.code for v in check_provenance({"ds": {"url": "javascript:alert(1)",
    ...                                            "grade": "datasheet"}}, {})]
    ['source-url']
    """
    problems = []
    grades = values(GRADES)
    if not isinstance(sources, dict):
        return [Violation("sources-invalid", "sources must be an object.", "sources")]
    for key, source in sources.items():
        if not isinstance(source, dict) or source.get("grade") not in grades:
            problems.append(
                Violation(
                    "source-grade",
                    f"source {key!r} needs a grade out of {sorted(grades)}.",
                    "sources",
                )
            )
        elif source.get("url") is not None and not WEB_URL.match(str(source["url"])):
            problems.append(
                Violation(
                    "source-url",
                    f"source {key!r}: the url must be a web address (http:// or https://), "
                    "or null.",
                    "sources",
                )
            )
    if not isinstance(provenance, dict):
        return [
            *problems,
            Violation("provenance-invalid", "provenance must be an object.", "provenance"),
        ]
    for path, record in provenance.items():
        if not isinstance(record, dict) or record.get("grade") not in grades:
            problems.append(
                Violation("provenance-grade", f"provenance of {path} needs a grade.", "provenance")
            )
        elif record.get("source") is not None and record["source"] not in sources:
            problems.append(
                Violation(
                    "provenance-source",
                    f"provenance of {path} names an undefined source {record['source']!r}.",
                    "provenance",
                )
            )
    return problems
