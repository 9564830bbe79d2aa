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
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from inventory.library.documents import DocumentError, load_json
from inventory.library.parse_errors import csv_error_text
from inventory.library.quantities import range_problem

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
    """One entry's fields checked and converted (problems added; ``None`` when any).

    Long because: one check per field of a snapshot entry (port, counters, lanes, power, time), each
    naming its field in the problem it adds.
    """
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


__all__ = [
    "ERROR_FIELDS",
    "FIELDS",
    "FORMATS",
    "CounterProblem",
    "CountersError",
    "PortCounters",
    "Snapshot",
    "parse_counters",
]
