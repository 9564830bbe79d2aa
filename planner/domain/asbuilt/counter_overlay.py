"""A parsed counter snapshot laid over the design: each port found, each link judged (issue 24).

Split from :mod:`planner.domain.asbuilt.counters` (reading a snapshot file into
:class:`~planner.domain.asbuilt.counters.PortCounters`): here a snapshot's ports are resolved
to the design's link ends, the received power is compared with what the link's optics should
deliver, and every link gets its measures and verdict for the canvas overlay."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from planner.domain.asbuilt.counters import (
    ERROR_FIELDS,
    CounterProblem,
    CountersError,
    PortCounters,
    _Problems,
)
from planner.domain.asbuilt.names import AsBuiltNameError, FabricNames
from planner.domain.names import Names

__all__ = [
    "PortRef",
    "Resolver",
    "RxExpectation",
    "counter_overlay",
    "fabric_resolver",
    "resolve_rows",
    "rx_expectation",
]


@dataclass(frozen=True)
class PortRef:
    """Where a snapshot's port is in the design: link index and end (``a`` or ``b``)."""

    link: int
    end: str


#: Resolves a built device and port name to its design link end, ``None`` when the port is
#: in the design but not cabled; raises
#: :class:`~planner.domain.asbuilt.names.AsBuiltNameError` when the names are unknown.
Resolver = Callable[[str, str], PortRef | None]


def fabric_resolver(fabric, facts=None) -> Resolver:
    """The :data:`Resolver` of ``fabric`` through the as-built names
    (:class:`~planner.domain.asbuilt.names.FabricNames`: design names, host names with a
    domain, NVUE / SONiC / EOS interface names, InfiniBand port numbers)."""
    names = FabricNames(fabric, facts)
    link_a, link_a_port = fabric.link_a, fabric.link_a_port

    def resolve(device: str, port: str) -> PortRef | None:
        node = names.require_device(device)
        logical = names.port(node, port)
        link = names.link_at(node, logical)
        if link is None:
            return None
        at_a = int(link_a[link]) == node and int(link_a_port[link]) == logical
        return PortRef(link, "a" if at_a else "b")

    return resolve


def resolve_rows(
    rows: list[PortCounters], resolve: Resolver
) -> tuple[dict[PortRef, PortCounters], list[PortCounters]]:
    """Every row resolved to its link end, all or nothing.

    Returns ``({PortRef: row}, rows of uncabled ports)``. Raises :class:`CountersError`
    naming each unknown device and port; when no device of the snapshot is in the design the
    one problem says the snapshot is of another design (code ``other-design``).
    """
    problems = _Problems()
    ends: dict[PortRef, PortCounters] = {}
    uncabled: list[PortCounters] = []
    unknown_devices: set[str] = set()
    devices: set[str] = set()
    for row in rows:
        devices.add(row.device)
        try:
            ref = resolve(row.device, row.port)
        except AsBuiltNameError as exc:
            column = "device" if exc.code == "unknown-device" else "port"
            if column == "device":
                unknown_devices.add(row.device)
            problems.add(row.row, row.device, row.port, column, exc.code, f"row {row.row}: {exc}.")
            continue
        if ref is None:
            uncabled.append(row)
            continue
        if ref in ends:
            other = ends[ref]
            problems.add(
                row.row, row.device, row.port, "port", "duplicate",
                f"row {row.row}: {row.device} port {row.port} is the same design port as "
                f"row {other.row} ({other.device} port {other.port}).",
            )  # fmt: skip
            continue
        ends[ref] = row
    if devices and unknown_devices == devices:
        names = ", ".join(sorted(devices)[:3]) + (" …" if len(devices) > 3 else "")
        raise CountersError(
            [
                CounterProblem(
                    0, "", "", "device", "other-design",
                    f"None of the snapshot's {len(devices):,} devices ({names}) is in this design: "
                    "is it a snapshot of another design?",
                )
            ]
        )  # fmt: skip
    problems.raise_if_any()
    return ends, uncabled


@dataclass(frozen=True)
class RxExpectation:
    """What the optical budget expects at each end of the budgeted links (dBm per lane).

    ``expected_dbm[i, e]``: far end's minimum average launch power (``tx_avg_min_dbm``) minus
    the link's worst-case channel loss, for link ``links[i]`` at end ``e`` (0 = a, 1 = b);
    ``sensitivity_dbm[i, e]``: the receiving module's ``rx_avg_min_dbm``. NaN where the
    catalog lacks the figure or the budget lacks the length.
    """

    links: np.ndarray
    expected_dbm: np.ndarray
    sensitivity_dbm: np.ndarray
    loss_worst_db: np.ndarray

    def at(self, link: int) -> int | None:
        i = int(np.searchsorted(self.links, link))
        return i if i < self.links.size and int(self.links[i]) == link else None


def rx_expectation(fabric, budgets, parts: dict) -> RxExpectation:
    """Expected receive power per budgeted link end from ``budgets``
    (:func:`planner.domain.physical.budget.compute_budgets`) and the modules' catalog records
    ``parts`` (by slug)."""
    links = budgets.links
    if not links.size:
        empty = np.zeros((0, 2), dtype=np.float64)
        return RxExpectation(links, empty, empty, np.zeros(0))

    def figure(column, name):
        slugs = fabric.parts
        values = np.array(
            [_finite((parts.get(slug) or {}).get(name)) for slug in slugs] + [math.nan]
        )
        return values[column[links]]

    tx_a = figure(fabric.link_a_part, "tx_avg_min_dbm")
    tx_b = figure(fabric.link_b_part, "tx_avg_min_dbm")
    rx_a = figure(fabric.link_a_part, "rx_avg_min_dbm")
    rx_b = figure(fabric.link_b_part, "rx_avg_min_dbm")
    loss = budgets.loss_worst_db.astype(np.float64)
    expected = np.stack([tx_b - loss, tx_a - loss], axis=1)  # a receives b's light
    return RxExpectation(links, expected, np.stack([rx_a, rx_b], axis=1), loss)


def _finite(value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return math.nan
    return number if math.isfinite(number) else math.nan


def _round(value, places=2):
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), places)


@dataclass
class LinkMeasure:
    util: float | None = None
    util_by_direction: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    ends: dict = field(default_factory=dict)
    flags: list = field(default_factory=list)


def _direction(sender, receiver, speed: float) -> float | None:
    """Utilization one way: the sender's tx or the receiver's rx, the larger when both."""
    values = [
        v
        for v in (
            sender.util("tx", speed) if sender else None,
            receiver.util("rx", speed) if receiver else None,
        )
        if v is not None
    ]
    return max(values) if values else None


def counter_overlay(
    fabric,
    ends: dict[PortRef, PortCounters],
    expectation: RxExpectation | None,
) -> dict:
    """The measured overlay of a fabric's links (plain JSON values).

    Per link ``"link:<i>"``: ``util`` (the busier direction's measured utilization, a
    fraction of the link speed; a→b is the a end's tx or the b end's rx, the larger when
    both are reported), ``util_ab`` / ``util_ba``, ``errors`` ({counter: sum over both ends}),
    and per reporting end (``a``, ``b``): ``device``, ``port``, ``rx_dbm`` (the weakest lane),
    ``rx_lanes``, ``expected_rx_dbm``, ``margin_db`` (measured − expected),
    ``sensitivity_dbm``, ``temperature_c``; ``flags``: ``rx-below-sensitivity``
    (weakest lane under the receiver's ``rx_avg_min_dbm``), ``rx-below-expected``
    (margin < 0) and ``fec-uncorrected`` (any uncorrectable codeword).

    Returns ``{"links": {...}, "flagged": [{link, a, a_port, a_port_name, b, b_port,
    b_port_name, flags, margin_db, util}], "counts": {...}}`` (ports 1-based, and named by
    :mod:`planner.domain.names`); ``flagged`` lists the worst first (sensitivity, then
    expectation, then errors; smaller margin first).

    Long because: one loop over the links that measures both directions and judges each link,
    building each link's entry as it goes.
    """
    names = fabric.node_name
    ports = Names(fabric)
    speeds = fabric.link_speed_gbps
    by_link: dict[int, dict[str, PortCounters]] = {}
    for ref, row in ends.items():
        by_link.setdefault(ref.link, {})[ref.end] = row
    links: dict[str, dict] = {}
    flagged = []
    counts = {"links": 0, "rx-below-sensitivity": 0, "rx-below-expected": 0, "fec-uncorrected": 0}
    counts["rx_expected_known"] = 0
    for link in sorted(by_link):
        reported = by_link[link]
        speed = float(speeds[link])
        a, b = reported.get("a"), reported.get("b")

        ab, ba = _direction(a, b, speed), _direction(b, a, speed)
        known = [u for u in (ab, ba) if u is not None]
        errors = {}
        for name in ERROR_FIELDS:
            values = [getattr(r, name) for r in reported.values() if getattr(r, name) is not None]
            if values:
                errors[name] = int(sum(values))
        entry = {
            "util": _round(max(known), 4) if known else None,
            "util_ab": _round(ab, 4),
            "util_ba": _round(ba, 4),
            "speed_gbps": int(speed),
            "errors": errors,
        }
        flags = set()
        margins = []
        position = expectation.at(link) if expectation is not None else None
        for end, row in sorted(reported.items()):
            index = 0 if end == "a" else 1
            rx = min(row.rx_power_dbm) if row.rx_power_dbm else None
            expected = sensitivity = loss = None
            if position is not None:
                expected = _round(expectation.expected_dbm[position, index])
                sensitivity = _round(expectation.sensitivity_dbm[position, index])
                loss = _round(expectation.loss_worst_db[position], 3)
            margin = None
            if rx is not None and expected is not None:
                counts["rx_expected_known"] += 1
                margin = rx - expected if math.isfinite(rx) else -math.inf
                margins.append(margin)
                if margin < 0:
                    flags.add("rx-below-expected")
            if rx is not None and sensitivity is not None and rx < sensitivity:
                flags.add("rx-below-sensitivity")
            entry[end] = {
                "device": row.device,
                "port": row.port,
                "row": row.row,
                "rx_dbm": _round(rx) if rx is not None and math.isfinite(rx) else None,
                "rx_dark": rx is not None and not math.isfinite(rx),
                "rx_lanes": [_round(v) for v in row.rx_power_dbm],
                "tx_lanes": [_round(v) for v in row.tx_power_dbm],
                "expected_rx_dbm": expected,
                "loss_worst_db": loss,
                "margin_db": _round(margin)
                if margin is not None and math.isfinite(margin)
                else None,
                "sensitivity_dbm": sensitivity,
                "temperature_c": _round(row.temperature_c, 1),
            }
        if errors.get("fec_uncorrected"):
            flags.add("fec-uncorrected")
        order = ("rx-below-sensitivity", "rx-below-expected", "fec-uncorrected")
        entry["flags"] = [f for f in order if f in flags]
        margin_min = min(margins) if margins else None
        entry["margin_db"] = (
            _round(margin_min) if margin_min is not None and math.isfinite(margin_min) else None
        )
        links[f"link:{link}"] = entry
        counts["links"] += 1
        for flag in entry["flags"]:
            counts[flag] += 1
        if entry["flags"]:
            a_node, a_port = int(fabric.link_a[link]), int(fabric.link_a_port[link])
            b_node, b_port = int(fabric.link_b[link]), int(fabric.link_b_port[link])
            flagged.append(
                {
                    "link": f"link:{link}",
                    "a": names[a_node],
                    "a_port": a_port + 1,
                    "a_port_name": ports.port(a_node, a_port),
                    "b": names[b_node],
                    "b_port": b_port + 1,
                    "b_port_name": ports.port(b_node, b_port),
                    "flags": entry["flags"],
                    "margin_db": entry["margin_db"],
                    "util": entry["util"],
                    "_rank": (
                        order.index(entry["flags"][0]),
                        margin_min if margin_min is not None else math.inf,
                    ),
                }
            )
    flagged.sort(key=lambda f: f["_rank"])
    for item in flagged:
        del item["_rank"]
    return {"links": links, "flagged": flagged, "counts": counts}
