"""Per-port counter snapshots of a built fabric, read whole, and their overlay on a design.

A snapshot is what the switches and hosts report for each port over one interval: bytes,
errors, pause frames and optical powers. :func:`parse_counters` reads one (CSV or JSON) into
:class:`PortCounters` rows or raises :class:`CountersError` naming every bad row and field;
:func:`counter_overlay` puts the rows on the design's links (utilization, errors and the Rx
power margin against the optical budget's expectation). Pure: no Django.

Accepted fields (units in the names; every field but ``device`` and ``port`` may be left out
or empty)
-----------------------------------------------------------------------------------------------

============================  ===============================================================
``device``, ``port``          the device and port as the built fabric names them (resolved
                              against the design by the as-built name resolver)
``interval_s``                seconds the counters were counted over (``> 0``); or
``timestamp_start``,          the interval's ends, ISO 8601 (``2026-12-01T10:00:00Z``) or Unix
``timestamp_end``             seconds
``rx_bytes``, ``tx_bytes``    bytes received / sent in the interval (counter deltas, ``≥ 0``)
``rx_util_pct``,              utilization in percent of the port's speed (``0``-``100``), when
``tx_util_pct``               the tool reports it instead of bytes (``util_pct``: both ways)
``fec_corrected``,            FEC codewords corrected / uncorrectable in the interval
``fec_uncorrected``
``discards``                  packets discarded (in + out)
``pfc_pause``                 PFC pause frames (received + sent)
``ecn_marked``                packets marked ECN-CE
``rx_power_dbm``,             optical power per lane, dBm: one value, or several lanes (CSV:
``tx_power_dbm``              ``-2.1;-2.4;-2.0;-2.3``, or columns ``rx_power_dbm_lane1`` …;
                              JSON: a list). ``-inf`` is a dark lane
``temperature_c``             module temperature, °C
============================  ===============================================================

CSV: a header row naming the columns (any order; unknown columns are refused, so a typo does
not silently drop a figure), one row per port. JSON: a list of objects with those keys; or a
gNMI-like map ``{device: {port: {field: value}}}``; or either of them wrapped as
``{"design": "<name>", "ports": [...]}`` / ``{"design": "<name>", "devices": {...}}``, whose
``design`` must be the design's name (a snapshot of another design is refused).

Problems are :class:`CounterProblem` ``(row, device, port, field, code, message)``: ``row``
counts CSV lines (header = 1) or JSON entries from 1; 0 means the whole file.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from inventory.library.documents import DocumentError, load_json
from inventory.library.parse_errors import csv_error_text
from inventory.library.quantities import range_problem
from planner.domain.asbuilt.names import AsBuiltNameError, FabricNames
from planner.domain.names import Names

#: Counters summed into a link's error figures (codewords, packets or frames in the interval).
ERROR_FIELDS = ("fec_corrected", "fec_uncorrected", "discards", "pfc_pause", "ecn_marked")
#: Every field a snapshot may carry (lanes of the power fields not counted).
FIELDS = (
    "device",
    "port",
    "interval_s",
    "timestamp_start",
    "timestamp_end",
    "rx_bytes",
    "tx_bytes",
    "rx_util_pct",
    "tx_util_pct",
    "util_pct",
    *ERROR_FIELDS,
    "rx_power_dbm",
    "tx_power_dbm",
    "temperature_c",
)
POWER_FIELDS = ("rx_power_dbm", "tx_power_dbm")
#: Most lanes a power field may list (an OSFP-XD module has 16).
MAX_LANES = 16
#: Most problems reported for one file (the rest are counted).
MAX_PROBLEMS = 50
#: Most port rows one snapshot may hold.
MAX_ROWS = 400_000
FORMATS = ("counters-csv", "counters-json")


@dataclass(frozen=True)
class CounterProblem:
    row: int
    device: str
    port: str
    field: str
    code: str
    message: str

    def as_dict(self) -> dict:
        return {
            "row": self.row,
            "device": self.device,
            "port": self.port,
            "field": self.field,
            "code": self.code,
            "message": self.message,
        }


class CountersError(ValueError):
    """A snapshot that cannot be used; ``problems`` name each row and field at fault."""

    def __init__(self, problems: list[CounterProblem], more: int = 0):
        self.problems = problems
        self.more = more
        first = problems[0].message if problems else "bad snapshot"
        super().__init__(
            first + (f" (and {len(problems) - 1 + more} more)" if len(problems) > 1 else "")
        )


@dataclass(frozen=True)
class PortCounters:
    """One port's counters over one interval (``None`` where the snapshot does not say)."""

    row: int
    device: str
    port: str
    interval_s: float | None = None
    rx_bytes: int | None = None
    tx_bytes: int | None = None
    rx_util_pct: float | None = None
    tx_util_pct: float | None = None
    fec_corrected: int | None = None
    fec_uncorrected: int | None = None
    discards: int | None = None
    pfc_pause: int | None = None
    ecn_marked: int | None = None
    rx_power_dbm: tuple[float, ...] = ()
    tx_power_dbm: tuple[float, ...] = ()
    temperature_c: float | None = None

    def util(self, direction: str, speed_gbps: float) -> float | None:
        """Utilization of ``direction`` (``rx``/``tx``) as a fraction of ``speed_gbps``:
        the reported percent, else bytes x 8 / interval / speed.

        >>> PortCounters(2, "leaf1", "1", interval_s=10, rx_bytes=5 * 10**11).util("rx", 400)
        1.0
        """
        pct = getattr(self, f"{direction}_util_pct")
        if pct is not None:
            return pct / 100.0
        count = getattr(self, f"{direction}_bytes")
        if count is None or not self.interval_s or not speed_gbps:
            return None
        return count * 8.0 / self.interval_s / (float(speed_gbps) * 1e9)


@dataclass
class Snapshot:
    """A parsed snapshot: its rows and the design name it says it is of (or ``""``)."""

    rows: list[PortCounters]
    design: str = ""


# --- parsing ----------------------------------------------------------------------------------


class _Problems:
    def __init__(self):
        self.items: list[CounterProblem] = []
        self.more = 0

    def add(self, row, device, port, field_name, code, message):
        if len(self.items) < MAX_PROBLEMS:
            self.items.append(CounterProblem(row, device, port, field_name, code, message))
        else:
            self.more += 1

    def raise_if_any(self):
        if self.items:
            raise CountersError(self.items, self.more)


def _where(row: int, device: str, port: str) -> str:
    if device and port:
        return f"row {row} ({device} port {port})"
    return f"row {row}"


def _number(value, *, integer: bool, allow_inf: bool = False) -> float | int:
    if isinstance(value, bool):
        raise ValueError
    if isinstance(value, int | float):
        number = value
    else:
        text = str(value).strip()
        if allow_inf and text.lower() in ("-inf", "-infinity"):
            return -math.inf
        number = float(text) if not integer else _integer(text)
    if isinstance(number, float) and not math.isfinite(number):
        if allow_inf and number == -math.inf:
            return number
        raise ValueError
    if integer:
        if isinstance(number, float):
            if not number.is_integer():
                raise ValueError
            number = int(number)
        return int(number)
    return float(number)


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        number = float(text)
        if not math.isfinite(number) or not number.is_integer():
            raise
        return int(number)


def _timestamp(value) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise ValueError
        return float(value)
    text = str(value).strip()
    try:
        return float(text) if text.replace(".", "", 1).isdigit() else _iso(text)
    except OverflowError:
        raise ValueError from None


def _iso(text: str) -> float:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError("no time zone")
    return moment.timestamp()


def _lanes(value) -> list:
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [value]
    text = str(value).strip()
    for sep in (";", "|", " "):
        if sep in text:
            return [part for part in text.split(sep) if part.strip()]
    return [text]


def _empty(value) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _port_text(value) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    return str(value).strip() if isinstance(value, str) else ""


def _read_row(raw: dict, row: int, problems: _Problems) -> PortCounters | None:
    """One entry's fields checked and converted (problems added; ``None`` when any)."""
    device = _port_text(raw.get("device"))
    port = _port_text(raw.get("port"))
    before = len(problems.items) + problems.more
    for name in ("device", "port"):
        if not (device if name == "device" else port):
            problems.add(row, device, port, name, "missing", f"row {row}: {name} is empty.")
    where = _where(row, device, port)
    values: dict = {}
    for name in ("rx_bytes", "tx_bytes", *ERROR_FIELDS):
        if _empty(raw.get(name)):
            continue
        try:
            number = _number(raw[name], integer=True)
        except (ValueError, TypeError, OverflowError):
            problems.add(
                row, device, port, name, "not-a-count",
                f"{where}: {name} must be a whole number, not {str(raw[name])[:40]!r}.",
            )  # fmt: skip
            continue
        if number < 0:
            problems.add(
                row, device, port, name, "negative",
                f"{where}: {name} is {number:,}; counter deltas cannot be negative "
                "(a counter that wrapped or was cleared in the interval?).",
            )  # fmt: skip
            continue
        values[name] = number
    for name in ("rx_util_pct", "tx_util_pct", "util_pct"):
        if _empty(raw.get(name)):
            continue
        try:
            pct = _number(raw[name], integer=False)
        except (ValueError, TypeError, OverflowError):
            problems.add(
                row, device, port, name, "not-a-number",
                f"{where}: {name} must be a number of percent, not {str(raw[name])[:40]!r}.",
            )  # fmt: skip
            continue
        if not 0 <= pct <= 100:
            problems.add(
                row, device, port, name, "out-of-range",
                f"{where}: {name} is {pct:g}; utilization is 0 to 100 %.",
            )  # fmt: skip
            continue
        values[name] = pct
    if "util_pct" in values:
        pct = values.pop("util_pct")
        values.setdefault("rx_util_pct", pct)
        values.setdefault("tx_util_pct", pct)
    interval = None
    if not _empty(raw.get("interval_s")):
        try:
            interval = _number(raw["interval_s"], integer=False)
            if interval <= 0:
                raise ValueError
        except (ValueError, TypeError, OverflowError):
            interval = None
            problems.add(
                row, device, port, "interval_s", "bad-interval",
                f"{where}: interval_s must be a number of seconds above 0, "
                f"not {str(raw['interval_s'])[:40]!r}.",
            )  # fmt: skip
    elif not _empty(raw.get("timestamp_start")) or not _empty(raw.get("timestamp_end")):
        ends = []
        for name in ("timestamp_start", "timestamp_end"):
            try:
                if _empty(raw.get(name)):
                    raise ValueError
                ends.append(_timestamp(raw[name]))
            except (ValueError, TypeError, OverflowError):
                problems.add(
                    row, device, port, name, "bad-timestamp",
                    f"{where}: {name} must be an ISO 8601 time with its zone "
                    f"(2026-12-01T10:00:00Z) or Unix seconds, not {str(raw.get(name))[:40]!r}.",
                )  # fmt: skip
        if len(ends) == 2:
            if ends[1] <= ends[0]:
                problems.add(
                    row, device, port, "timestamp_end", "bad-interval",
                    f"{where}: timestamp_end is not after timestamp_start.",
                )  # fmt: skip
            else:
                interval = ends[1] - ends[0]
    needs_interval = [
        d for d in ("rx", "tx") if f"{d}_bytes" in values and f"{d}_util_pct" not in values
    ]
    if needs_interval and interval is None and len(problems.items) + problems.more == before:
        problems.add(
            row, device, port, "interval_s", "missing-interval",
            f"{where}: {needs_interval[0]}_bytes needs interval_s (or timestamp_start and "
            "timestamp_end) to give a utilization.",
        )  # fmt: skip
    for name in POWER_FIELDS:
        value = raw.get(name)
        if _empty(value) or (isinstance(value, list) and not value):
            continue
        try:
            lanes = [_number(v, integer=False, allow_inf=True) for v in _lanes(value)]
            if not lanes or len(lanes) > MAX_LANES:
                raise ValueError
        except (ValueError, TypeError, OverflowError):
            problems.add(
                row, device, port, name, "not-a-number",
                f"{where}: {name} must be dBm per lane (a number, or up to {MAX_LANES} "
                f"separated by ';'), not {str(value)[:40]!r}.",
            )  # fmt: skip
            continue
        values[name] = tuple(lanes)
    if not _empty(raw.get("temperature_c")):
        try:
            values["temperature_c"] = _number(raw["temperature_c"], integer=False)
        except (ValueError, TypeError, OverflowError):
            problems.add(
                row, device, port, "temperature_c", "not-a-number",
                f"{where}: temperature_c must be a number of °C, "
                f"not {str(raw['temperature_c'])[:40]!r}.",
            )  # fmt: skip
    # Every number inside its physical range (a 1e-27 s interval, 1e308 bytes, 1e308 °C).
    for name, value in {**values, "interval_s": interval}.items():
        for number in value if isinstance(value, tuple) else (value,):
            if number is None or number == -math.inf:  # not given; a dark lane
                continue
            if problem := range_problem(name, number):
                problems.add(row, device, port, name, "out-of-range", f"{where}: {problem}.")
                break
    if len(problems.items) + problems.more > before:
        return None
    return PortCounters(row=row, device=device, port=port, interval_s=interval, **values)


def _lane_columns(header: list[str]) -> dict[str, list[str]]:
    """``rx_power_dbm_lane1`` … columns grouped under their field, in lane order."""
    out: dict[str, list[tuple[int, str]]] = {}
    for column in header:
        for name in POWER_FIELDS:
            prefix = f"{name}_lane"
            if column.startswith(prefix) and column[len(prefix) :].isdigit():
                out.setdefault(name, []).append((int(column[len(prefix) :]), column))
    return {name: [c for _, c in sorted(cols)] for name, cols in out.items()}


def _csv_entries(text: str, problems: _Problems) -> Iterable[tuple[int, dict]]:
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        problems.add(1, "", "", "", "bad-csv", f"row 1: the header is {csv_error_text(exc)}.")
        return
    if not header or not any(h.strip() for h in header):
        problems.add(
            0,
            "",
            "",
            "",
            "empty",
            "The file is empty: a header row and one row per port are needed.",
        )
        return
    header = [h.strip().lstrip("\ufeff").lower() for h in header]
    lanes = _lane_columns(header)
    lane_columns = {c for cols in lanes.values() for c in cols}
    for name in header:
        if name and name not in FIELDS and name not in lane_columns:
            problems.add(
                1, "", "", name, "unknown-column",
                f"row 1: unknown column {name!r}; the columns are {', '.join(FIELDS)} "
                "(and rx_power_dbm_lane1 … for powers per lane).",
            )  # fmt: skip
    for name in ("device", "port"):
        if name not in header:
            problems.add(1, "", "", name, "missing-column", f"row 1: the {name} column is missing.")
    seen = {}
    for name in header:
        if name and name in seen:
            problems.add(
                1, "", "", name, "duplicate-column", f"row 1: column {name!r} appears twice."
            )
        seen[name] = True
    if problems.items:
        return
    line = 1
    try:
        for cells in reader:
            line += 1
            if not any(c.strip() for c in cells):
                continue
            if len(cells) > len(header):
                problems.add(
                    line, "", "", "", "extra-cells",
                    f"row {line}: {len(cells)} cells, but the header names {len(header)}.",
                )  # fmt: skip
                continue
            raw = dict(zip(header, cells, strict=False))
            for name, columns in lanes.items():
                values = [raw.pop(c, "") for c in columns]
                values = [v for v in values if v.strip()]
                if values and not _empty(raw.get(name)):
                    problems.add(
                        line, raw.get("device", ""), raw.get("port", ""), name, "duplicate-field",
                        f"row {line}: {name} is given both as one cell and per lane.",
                    )  # fmt: skip
                elif values:
                    raw[name] = values
            yield line, raw
    except csv.Error as exc:
        problems.add(line, "", "", "", "bad-csv", f"row {line}: {csv_error_text(exc)}.")


def _json_entries(text: str, problems: _Problems) -> tuple[list[tuple[int, dict]], str]:
    try:
        document = load_json(text)
    except DocumentError as exc:  # too deep, a number too long, text a database cannot store
        problems.add(0, "", "", exc.path[:80], "bad-json", f"The file is refused: {exc}.")
        return [], ""
    except ValueError as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if hasattr(exc, "lineno") else ""
        problems.add(0, "", "", "", "bad-json", f"The file is not JSON{where}.")
        return [], ""
    design = ""
    if isinstance(document, dict) and ("ports" in document or "devices" in document):
        name = document.get("design", "")
        if not isinstance(name, str):
            problems.add(
                0, "", "", "design", "bad-design", "design must be the design's name (text)."
            )
        design = name if isinstance(name, str) else ""
        document = document.get("ports", document.get("devices"))
    entries: list[tuple[int, dict]] = []
    if isinstance(document, list):
        for i, item in enumerate(document, start=1):
            if not isinstance(item, dict):
                problems.add(
                    i,
                    "",
                    "",
                    "",
                    "not-an-object",
                    f"entry {i}: a port must be an object of fields.",
                )
                continue
            unknown = [k for k in item if k not in FIELDS]
            for key in unknown[:3]:
                problems.add(
                    i, _port_text(item.get("device")), _port_text(item.get("port")), str(key)[:40],
                    "unknown-field",
                    f"entry {i}: unknown field {str(key)[:40]!r}; the fields are "
                    f"{', '.join(FIELDS)}.",
                )  # fmt: skip
            entries.append((i, item))
    elif isinstance(document, dict):
        i = 0
        for device, ports in document.items():
            if not isinstance(ports, dict):
                i += 1
                problems.add(
                    i, str(device)[:80], "", "", "not-an-object",
                    f"device {str(device)[:80]!r}: its ports must be an object "
                    "{port: {field: value}}.",
                )  # fmt: skip
                continue
            for port, fields in ports.items():
                i += 1
                if not isinstance(fields, dict):
                    problems.add(
                        i, str(device)[:80], str(port)[:80], "", "not-an-object",
                        f"{device} port {port}: its counters must be an object {{field: value}}.",
                    )  # fmt: skip
                    continue
                unknown = [k for k in fields if k not in FIELDS or k in ("device", "port")]
                for key in unknown[:3]:
                    problems.add(
                        i, str(device)[:80], str(port)[:80], str(key)[:40], "unknown-field",
                        f"{device} port {port}: unknown field {str(key)[:40]!r}.",
                    )  # fmt: skip
                entries.append((i, {**fields, "device": device, "port": port}))
    else:
        problems.add(
            0, "", "", "", "bad-json",
            "The JSON must be a list of ports, a map {device: {port: {...}}}, or either under "
            '"ports" / "devices" with "design".',
        )  # fmt: skip
    return entries, design


def parse_counters(text: str, fmt: str) -> Snapshot:
    """Read a snapshot whole.

    Parameters
    ----------
    text : str
        The file's text.
    fmt : str
        ``counters-csv`` or ``counters-json``.

    Raises
    ------
    CountersError
        Naming each bad row, device, port and field; nothing is returned in part.
    """
    problems = _Problems()
    if fmt not in FORMATS:
        raise CountersError(
            [
                CounterProblem(
                    0,
                    "",
                    "",
                    "format",
                    "bad-format",
                    f"format must be one of {', '.join(FORMATS)}.",
                )
            ]
        )
    design = ""
    if fmt == "counters-csv":
        entries = _csv_entries(text, problems)
    else:
        entries, design = _json_entries(text, problems)
    rows: list[PortCounters] = []
    seen: dict[tuple[str, str], int] = {}
    count = 0
    for row, raw in entries:
        count += 1
        if count > MAX_ROWS:
            problems.add(
                row, "", "", "", "too-many-rows", f"More than {MAX_ROWS:,} ports in one snapshot."
            )
            break
        entry = _read_row(raw, row, problems)
        if entry is None:
            continue
        key = (entry.device, entry.port)
        if key in seen:
            problems.add(
                row, entry.device, entry.port, "port", "duplicate",
                f"row {row}: {entry.device} port {entry.port} is already in row {seen[key]}.",
            )  # fmt: skip
            continue
        seen[key] = row
        rows.append(entry)
    problems.raise_if_any()
    if not rows:
        raise CountersError([CounterProblem(0, "", "", "", "empty", "The file names no port.")])
    return Snapshot(rows=rows, design=design)


# --- the overlay ------------------------------------------------------------------------------


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


__all__ = [
    "ERROR_FIELDS",
    "FIELDS",
    "FORMATS",
    "CounterProblem",
    "CountersError",
    "PortCounters",
    "PortRef",
    "Resolver",
    "RxExpectation",
    "Snapshot",
    "counter_overlay",
    "fabric_resolver",
    "parse_counters",
    "resolve_rows",
    "rx_expectation",
]
