"""Read what the built fabric reports about its cabling into neighbour rows.

Each parser takes the file's text and gives :class:`Neighbour` rows (one per cable end pair
seen, with the file's row or line number), or raises :class:`ParseError` naming the row and
field. Names stay as the file writes them; :mod:`planner.domain.asbuilt.names` resolves them.

Formats
-------
``lldp-json``: ``lldpctl -f json`` of lldpd, the LLDP daemon NVIDIA Cumulus Linux and SONiC
both run (SONiC's ``show lldp table`` reads it; lldpd's ``lldpcli(8)``: ``-f json``):
``{"lldp": {"interface": {"<local port>": {"chassis": {"<system name>": {...}}, "port":
{"id": {"type": "ifname", "value": "<remote port>"}, "descr": ...}}}}}`` (``interface`` is a
list of one-key objects when several neighbours are listed). lldpd does not name the local
host in this output, so a file holds one device's table with ``device`` given, or several
keyed by host: ``{"<host>": <lldpctl -f json output>, ...}``. A chassis without a name is
read by its ``id`` value; a port id of type ``mac`` falls back to ``descr`` (hosts often
send their interface name there).

``lldp-csv``: a CSV with a header, one row per neighbour: local device, local port, remote
device, remote port and optionally speed. Headers are matched case-insensitively, with the
column names of NVIDIA NVUE ``nv show interface lldp`` (``Interface``, ``Speed``, ``Remote
Host``, ``Remote Port``; NVUE reference, LLDP show commands,
https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Show-Commands/LLDP/) and
SONiC ``show lldp table`` (``LocalPort``, ``RemoteDevice``, ``RemotePortID``) accepted, plus
``local_device``/``device``/``hostname``; without a local-device column ``device`` names the
switch. Speed: ``400G``, ``1.6T``, ``400000`` (Mb/s, as SONiC's PORT table writes it) or a
number of Gb/s.

``ibnetdiscover``: the topology file of ``ibnetdiscover(8)`` (infiniband-diags; man page
https://man7.org/linux/man-pages/man8/IBNETDISCOVER.8.html): node blocks headed ``Switch
<ports> "S-<guid>" # "<node description>" ...`` or ``Ca <ports> "H-<guid>" # "<node
description>"``, then one line per connected port ``[<port>] "<peer guid>"[<peer port>] #
"<peer description>" lid <n> <width>x<speed>`` (a CA's port line adds its port GUID in
parentheses). Every link is listed from both ends; it is read once. Speed from the width and
the lane rate: SDR 2.5, DDR 5, QDR 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s per lane
(``4xNDR`` = 400 Gb/s; a width ``2x`` halves it).

``netbox-cables``: a NetBox cable CSV, either the bulk-import form's columns (``side_a_device``,
``side_a_name``, ``side_b_device``, ``side_b_name``, ``label``, ``type``, ``status``,
``length``, ``length_unit``: NetBox ``CableImportForm``, netbox/dcim/forms/bulk_import.py; what
this planner's own NetBox export writes) or the cable list's CSV export (NetBox ``CableTable``,
netbox/dcim/tables/cables.py), either "All data" (``Device A``, ``Termination A``, ``Device
B``, ``Termination B``, ``Label`` and the rest) or "Current view", the default columns (``ID``,
``Label``, ``Termination A``, ``Termination B``, ``Status``, ``Type``), which name the
interfaces but not their devices: each end's device is then read from the cable's label as
the planner's exports write it (``<rack>.U<ru>.P<port>/<rack>.U<ru>.P<port>``, or the device
name where no rack unit is its own), and a row without such a label is refused (export "All
data" instead). A ``status`` other than ``connected`` (``planned``, ``decommissioning``) is not
a cable in place and is skipped.
"""

from __future__ import annotations

import csv
import io
import re
from typing import NamedTuple

from inventory.library.cells import unescape_cell
from inventory.library.documents import DocumentError, load_json
from inventory.library.parse_errors import csv_error_text, json_error_text
from inventory.library.quantities import range_problem

__all__ = ["FORMATS", "Neighbour", "ParseError", "parse"]

MAX_BYTES = 10 * 1024 * 1024
#: Most lines a file may hold, counted before it is parsed (as the counter snapshots:
#: 400,000 rows; 300,000 realistic LLDP rows fill the 10 MiB).
MAX_LINES = 400_000


def _check_size(text: str) -> None:
    """Bytes and lines within the limits, before anything is parsed."""
    if len(text) > MAX_BYTES:
        raise ParseError("the file is over 10 MiB", field="file")
    lines = text.count("\n") + 1
    if lines > MAX_LINES:
        raise ParseError(f"the file has {lines:,} lines; the limit is {MAX_LINES:,}", field="file")


class Neighbour(NamedTuple):
    """One cable as the file reports it: the local end (``a``) and its neighbour (``b``).

    A named tuple: immutable, and cheap to build for the 300,000 rows of a large file."""

    row: int
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    speed_gbps: float | None = None
    label: str = ""
    reporter: str = ""  # the device whose table the row is from (LLDP), else ""


class ParseError(ValueError):
    """A file that is not in its format: ``row`` (1-based, as an editor or spreadsheet shows
    it; 0 for the whole file) and ``field`` name where."""

    def __init__(self, message: str, *, row: int = 0, field: str = ""):
        super().__init__(message)
        self.row = row
        self.field = field


# --- speed ----------------------------------------------------------------------------------

_SPEED = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([gGtTmM]?)(?:b(?:ps|/s)?)?\s*$")
#: Gb/s per lane of the InfiniBand data rates (IBTA names; ``ibnetdiscover`` writes them).
IB_LANE_GBPS = {
    "SDR": 2.5,
    "DDR": 5,
    "QDR": 10,
    "FDR10": 10,
    "FDR": 14,
    "EDR": 25,
    "HDR": 50,
    "NDR": 100,
    "XDR": 200,
}


#: Link widths (lanes per port) the InfiniBand architecture defines (IBTA Vol. 2: 1x, 2x, 4x,
#: 8x, 12x); ``ibnetdiscover`` writes the active one before the rate (``4xNDR``).
IB_WIDTHS = (1, 2, 4, 8, 12)


def parse_speed(text: str, *, row: int = 0, field: str = "speed") -> float | None:
    """``400G`` / ``1.6T`` / ``400000`` (Mb/s when over 10,000) / ``400`` -> Gb/s; empty -> None."""
    text = (text or "").strip()
    if not text or text.lower() in ("unknown", "n/a", "-"):
        return None
    match = _SPEED.match(text)
    if not match:
        raise ParseError(f"speed {text!r} is not a speed (write e.g. 400G)", row=row, field=field)
    value, unit = float(match.group(1)), match.group(2).lower()
    if unit == "t":
        value *= 1000
    elif unit == "m" or (not unit and value > 10000):
        value /= 1000
    if problem := range_problem("speed_gbps", value):
        raise ParseError(f"row {row}: {field} {text[:20]!r}: {problem}", row=row, field=field)
    return value


# --- LLDP JSON ------------------------------------------------------------------------------


def _entries(value) -> list[tuple[str, dict]]:
    """lldpd writes a one-key object, or a list of them when there are several."""
    if isinstance(value, dict):
        return [(k, v) for k, v in value.items() if isinstance(v, dict)]
    if isinstance(value, list):
        out = []
        for item in value:
            if isinstance(item, dict):
                if "name" in item and isinstance(item.get("name"), str):  # json0 style
                    out.append((item["name"], item))
                else:
                    out.extend((k, v) for k, v in item.items() if isinstance(v, dict))
        return out
    return []


def _value(node) -> str:
    if isinstance(node, str):
        return node
    if isinstance(node, dict):
        return str(node.get("value", "") or "")
    if isinstance(node, list) and node:
        return _value(node[0])
    return ""


def _lldpctl(doc: dict, device: str, first_row: int) -> list[Neighbour]:
    lldp = doc.get("lldp")
    if not isinstance(lldp, dict):
        raise ParseError(
            f'the table of {device} has no "lldp" object (expected lldpctl -f json output)',
            field="lldp",
        )
    rows = []
    for offset, (local_port, entry) in enumerate(_entries(lldp.get("interface")), start=0):
        chassis = _entries(entry.get("chassis"))
        remote = ""
        if chassis:
            name, body = chassis[0]
            remote = name if name not in ("id",) else ""
            if not remote or remote == "id":
                remote = _value(body.get("name")) or _value(body.get("id"))
        port = entry.get("port") or {}
        if isinstance(port, list):
            port = port[0] if port and isinstance(port[0], dict) else {}
        port_id = port.get("id") if isinstance(port, dict) else None
        kind = port_id.get("type", "") if isinstance(port_id, dict) else ""
        remote_port = _value(port_id)
        if kind == "mac" or not remote_port:
            remote_port = _value(port.get("descr")) or remote_port
        if not remote:
            raise ParseError(
                f"neighbour on {device} {local_port} has no system name or chassis id",
                row=first_row + offset,
                field="chassis",
            )
        rows.append(
            Neighbour(
                row=first_row + offset,
                a_device=device,
                a_port=local_port,
                b_device=remote,
                b_port=remote_port,
                reporter=device,
            )
        )
    return rows


def parse_lldp_json(text: str, *, device: str = "") -> list[Neighbour]:
    _check_size(text)
    try:
        doc = load_json(text)
    except DocumentError as error:  # too deep, a number too long, text a database cannot store
        raise ParseError(f"the file is refused: {error}", field=error.path or "file") from None
    except ValueError as error:
        raise ParseError(json_error_text(error), field="file") from None
    if not isinstance(doc, dict):
        raise ParseError("the file is not a JSON object", field="file")
    if "lldp" in doc:
        if not device:
            raise ParseError(
                "lldpctl output does not name its switch: give the device, or key the file by "
                'host name ({"leaf01": <lldpctl -f json>})',
                field="device",
            )
        return _lldpctl(doc, device, 1)
    rows: list[Neighbour] = []
    for host, table in doc.items():
        if not isinstance(table, dict):
            raise ParseError(f"{host!r}: expected lldpctl -f json output", field=host)
        rows.extend(_lldpctl(table, host, len(rows) + 1))
    return rows


# --- CSV ------------------------------------------------------------------------------------

_ALIASES = {
    "a_device": ("local_device", "local device", "device", "hostname", "host", "local host"),
    "a_port": ("local_port", "local port", "localport", "interface", "local interface"),
    "b_device": (
        "remote_device",
        "remote device",
        "remotedevice",
        "remote host",
        "remote_host",
        "neighbor",
        "neighbour",
        "system name",
    ),
    "b_port": ("remote_port", "remote port", "remoteportid", "remote port id", "port id"),
    "speed": ("speed", "speed_gbps", "speed (gb/s)"),
}


def _reader(text: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    _check_size(text)
    if "\x00" in text:
        raise ParseError("the file holds NUL bytes: not a text CSV", field="file")
    try:
        lines = list(csv.reader(io.StringIO(text)))
    except csv.Error as error:
        raise ParseError(csv_error_text(error), field="file") from None
    numbered = [(i + 1, row) for i, row in enumerate(lines) if any(c.strip() for c in row)]
    if not numbered:
        raise ParseError("the file is empty", field="file")
    header = [c.strip().lower() for c in numbered[0][1]]
    return header, numbered[1:]


def _columns(header: list[str], want: tuple[str, ...]) -> dict[str, int]:
    found = {}
    for key in want:
        for alias in (key, *_ALIASES.get(key, ())):
            if alias in header:
                found[key] = header.index(alias)
                break
    return found


def parse_lldp_csv(text: str, *, device: str = "") -> list[Neighbour]:
    header, rows = _reader(text)
    cols = _columns(header, ("a_device", "a_port", "b_device", "b_port", "speed"))
    missing = [k for k in ("a_port", "b_device", "b_port") if k not in cols]
    if "a_device" not in cols and not device:
        missing.insert(0, "a_device")
    if missing:
        names = {
            "a_device": "local_device",
            "a_port": "local_port",
            "b_device": "remote_device",
            "b_port": "remote_port",
        }
        raise ParseError(
            "the header lacks " + ", ".join(names[m] for m in missing) + f" (found: {header})",
            row=1,
            field=names[missing[0]],
        )
    out = []
    read: dict[tuple[str, ...], tuple] = {}  # a row repeated is read once
    for number, row in rows:
        key = tuple(row)
        values = read.get(key)
        if values is None:

            def cell(key, row=row):
                index = cols.get(key)
                return (
                    unescape_cell(row[index].strip())
                    if index is not None and index < len(row)
                    else ""
                )

            local = cell("a_device") or device
            for name_key, name in (("a_port", "local_port"), ("b_device", "remote_device")):
                if not cell(name_key):
                    raise ParseError(f"row {number}: {name} is empty", row=number, field=name)
            values = read[key] = (
                local,
                cell("a_port"),
                cell("b_device"),
                cell("b_port"),
                parse_speed(cell("speed"), row=number),
            )
        out.append(Neighbour(number, *values, reporter=values[0]))
    return out


# --- NetBox ---------------------------------------------------------------------------------


def parse_netbox_cables(text: str, **_) -> list[Neighbour]:
    header, rows = _reader(text)
    import_form = ("side_a_device", "side_a_name", "side_b_device", "side_b_name")
    table = ("device a", "termination a", "device b", "termination b")
    current_view = ("termination a", "termination b", "label")
    from_label = False
    if all(c in header for c in import_form):
        a_dev, a_port, b_dev, b_port = (header.index(c) for c in import_form)
    elif all(c in header for c in table):
        a_dev, a_port, b_dev, b_port = (header.index(c) for c in table)
    elif all(c in header for c in current_view):
        a_dev = b_dev = None
        a_port, b_port = header.index("termination a"), header.index("termination b")
        from_label = True
    else:
        raise ParseError(
            "not a NetBox cable CSV: the header needs side_a_device, side_a_name, side_b_device, "
            "side_b_name (bulk import), Device A, Termination A, Device B, Termination B (cable "
            "list export, All data) or Label, Termination A, Termination B (Current view)",
            row=1,
            field="header",
        )
    label = header.index("label") if "label" in header else None
    status = header.index("status") if "status" in header else None
    length = header.index("length") if "length" in header else None
    length_unit = header.index("length_unit") if "length_unit" in header else None
    out = []
    for number, row in rows:

        def cell(index, row=row):
            return (
                unescape_cell(row[index].strip()) if index is not None and index < len(row) else ""
            )

        state = cell(status).lower()
        if state and state != "connected":
            continue
        values = [cell(i) for i in (a_dev, a_port, b_dev, b_port)]
        if from_label:
            values[0], values[2] = _label_devices(cell(label), number)
        for value, name in zip(
            values, ("side A device", "side A port", "side B device", "side B port"), strict=True
        ):
            if not value:
                raise ParseError(f"row {number}: {name} is empty", row=number, field=name)
        if "," in values[1] or "," in values[3]:
            raise ParseError(
                f"row {number}: a cable with several terminations on one side is not read",
                row=number,
                field="termination",
            )
        _netbox_length(cell(length), cell(length_unit), number)
        out.append(Neighbour(number, *values, label=cell(label)))
    return out


def _label_devices(label: str, row: int) -> tuple[str, str]:
    """The two devices a cable label names (``R001-01.U01.P1.1/R001-05.U01.P1.1`` ->
    ``R001-01.U01``, ``R001-05.U01``), for NetBox's Current view export.

    >>> _label_devices("R001-01.U01.P1.1/R001-05.U01.P1.1", 2)
    ('R001-01.U01', 'R001-05.U01')
    >>> _label_devices("customer-core.P1/R003-01.U07.P33", 2)
    ('customer-core', 'R003-01.U07')
    """
    halves = label.split("/")
    devices = [half.rsplit(".P", 1)[0] for half in halves if ".P" in half]
    if len(halves) != 2 or len(devices) != 2 or not all(devices):
        raise ParseError(
            f"row {row}: NetBox's Current view names no devices, and the label "
            f"{label[:60]!r} is not one of this planner's (<rack>.U<ru>.P<port>/...): "
            'export the cable list with "All data" instead',
            row=row,
            field="label",
        )
    return devices[0], devices[1]


#: Metres per NetBox cable length unit (``CableLengthUnitChoices``: km, m, cm, mi, ft, in).
NETBOX_LENGTH_UNITS_M = {
    "km": 1000.0,
    "m": 1.0,
    "cm": 0.01,
    "mi": 1609.344,
    "ft": 0.3048,
    "in": 0.0254,
}


#: NetBox's names of its length units (``CableLengthUnitChoices`` labels).
NETBOX_LENGTH_UNIT_NAMES = {
    "kilometers": "km",
    "meters": "m",
    "centimeters": "cm",
    "miles": "mi",
    "feet": "ft",
    "inches": "in",
}


def _netbox_length(text: str, unit: str, row: int) -> float | None:
    """A cable's ``length`` in ``length_unit`` (metres when none), as metres; checked to be a
    number inside a cable's physical range (:mod:`inventory.library.quantities`). The cable
    list's export writes both in one cell (``10 m``).

    >>> _netbox_length("10 m", "", 2), _netbox_length("3", "ft", 2), _netbox_length("", "", 2)
    (10.0, 0.9144000000000001, None)
    """
    if not text:
        return None
    number, _, written = text.strip().partition(" ")
    if written and not unit.strip():  # NetBox's cable list writes "10 m" in one column
        text, unit = number, NETBOX_LENGTH_UNIT_NAMES.get(written.strip().lower(), written)
    unit = unit.strip().lower() or "m"
    if unit not in NETBOX_LENGTH_UNITS_M:
        raise ParseError(
            f"row {row}: length_unit {unit[:20]!r} is not one of "
            f"{', '.join(NETBOX_LENGTH_UNITS_M)}",
            row=row,
            field="length_unit",
        )
    try:
        metres = float(text.replace(",", "")) * NETBOX_LENGTH_UNITS_M[unit]
    except ValueError:
        metres = None
    problem = range_problem("length_m", metres) if metres is not None else "not a number"
    if problem:
        raise ParseError(
            f"row {row}: length {text[:20]!r} {unit}: {problem.split(': ', 1)[-1]}",
            row=row,
            field="length",
        )
    return metres


# --- ibnetdiscover --------------------------------------------------------------------------

_NODE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([^"]+)"\s*(?:#\s*"([^"]*)")?')
_PORT = re.compile(
    r'^\[(\d+)\](?:\([0-9a-fA-Fx]+\))?\s+"([^"]+)"\[(\d+)\](?:\([0-9a-fA-Fx]+\))?'
    r"\s*(?:#\s*(.*))?$"
)
_DESC = re.compile(r'"([^"]*)"')
_WIDTH_SPEED = re.compile(r"\b(\d+)x([A-Z]+[0-9]*)\b")


def _ib_speed(comment: str, row: int) -> float | None:
    match = _WIDTH_SPEED.search(comment or "")
    if not match:
        return None
    lane = IB_LANE_GBPS.get(match.group(2))
    if lane is None:
        return None
    width = match.group(1)
    if len(width) > 2 or int(width) not in IB_WIDTHS:
        raise ParseError(
            f"line {row}: link width {width[:12]}x is not an InfiniBand width "
            f"({', '.join(f'{w}x' for w in IB_WIDTHS)})",
            row=row,
            field="width",
        )
    return int(width) * lane


def parse_ibnetdiscover(text: str, **_) -> list[Neighbour]:
    _check_size(text)
    names: dict[str, str] = {}
    kinds: dict[str, str] = {}
    links: list[tuple[int, str, int, str, int, str, float | None]] = []
    current = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        node = _NODE.match(line)
        if node:
            current = node.group(3)
            kinds[current] = node.group(1)
            names[current] = node.group(4) or current
            continue
        if line.startswith("["):
            port = _PORT.match(line)
            if not port:
                raise ParseError(
                    f'line {number}: a port line must read [port] "guid"[port] # "name" ...',
                    row=number,
                    field="port",
                )
            if current is None:
                raise ParseError(
                    f"line {number}: a port line before any Switch or Ca line",
                    row=number,
                    field="port",
                )
            comment = port.group(4) or ""
            described = _DESC.search(comment)
            peer = port.group(2)
            if described and peer not in names:
                names.setdefault(f"~{peer}", described.group(1))
            links.append(
                (
                    number,
                    current,
                    int(port.group(1)),
                    peer,
                    int(port.group(3)),
                    comment,
                    _ib_speed(comment, number),
                )
            )
            continue
        if "=" in line and not line.startswith(("Switch", "Ca", "Rt")):
            continue  # vendid=, devid=, sysimgguid=, switchguid=, caguid=
        raise ParseError(
            f"line {number}: not an ibnetdiscover line ({line[:40]!r})", row=number, field="line"
        )
    if not kinds:
        raise ParseError("no Switch or Ca blocks: not ibnetdiscover output", field="file")
    out = []
    seen = set()
    for number, guid, port, peer, peer_port, _comment, speed in links:
        key = tuple(sorted([(guid, port), (peer, peer_port)]))
        if key in seen:
            continue
        seen.add(key)
        out.append(
            Neighbour(
                row=number,
                a_device=_ib_name(names, guid),
                a_port=_ib_port(names, kinds, guid, port),
                b_device=_ib_name(names, peer),
                b_port=_ib_port(names, kinds, peer, peer_port),
                speed_gbps=speed,
            )
        )
    return out


def _ib_desc(names, guid) -> str:
    return names.get(guid) or names.get(f"~{guid}") or guid


def _ib_name(names, guid) -> str:
    """A switch's description as it is (``MF0;host:model/U1``; names resolves it); a CA's
    ``<host> <adapter>`` gives the host."""
    desc = _ib_desc(names, guid)
    if guid.startswith("H-") or (";" not in desc and " " in desc):
        return desc.split(" ", 1)[0]
    return desc


def _ib_port(names, kinds, guid, port: int) -> str:
    """A switch port by number; a CA's port by its adapter name when the description has one
    (``gpu00001 mlx5_0``: ``mlx5_0``), else its port number."""
    desc = _ib_desc(names, guid)
    is_ca = kinds.get(guid) == "Ca" or guid.startswith("H-")
    if is_ca and " " in desc:
        adapter = desc.split(" ", 1)[1].strip()
        return adapter if port == 1 else f"{adapter}/{port}"
    return str(port)


# --- dispatch -------------------------------------------------------------------------------

FORMATS = {
    "lldp-json": parse_lldp_json,
    "lldp-csv": parse_lldp_csv,
    "ibnetdiscover": parse_ibnetdiscover,
    "netbox-cables": parse_netbox_cables,
}


def parse(fmt: str, text: str, *, device: str = "") -> list[Neighbour]:
    """The neighbour rows of a file in format ``fmt`` (a key of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise ParseError(
            f"unknown format {fmt!r}: one of {', '.join(FORMATS)}", field="source_format"
        )
    return FORMATS[fmt](text, device=device)
