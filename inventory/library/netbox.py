"""Read NetBox community devicetype-library YAML files into catalog records.

The `devicetype-library <https://github.com/netbox-community/devicetype-library>`_ describes
device types (``device-types/<Manufacturer>/<model>.yaml``) and module types
(``module-types/<Manufacturer>/<model>.yaml``) as physical objects: height, weight, airflow,
power inlets and named interfaces with a NetBox interface ``type``. :func:`parse_devicetype`
turns one such file into a :class:`~inventory.library.files.PartRecord` for a switch or a NIC.
Every value it sets comes from the file, graded ``secondary`` under the source key ``netbox``;
the few values it has to infer (the top of an OSFP cage) are graded ``inferred`` with a note.

Pure: no Django; the service :mod:`inventory.netbox_import` resolves manufacturers and writes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import quote

import yaml

from inventory.library.documents import DocumentError, load_yaml
from inventory.library.files import CatalogFileError, PartRecord, part_from_entry
from inventory.library.rules import check_part

from .netbox_types import (
    MGMT_NAME,
    OSFP_FAMILY,
    TWIN_PORT,
    UNMAPPED_REASONS,
    CageType,
    _base_t_speed,
    map_interface_type,
)

__all__ = ["NetboxFileError", "NetboxProblem", "NetboxResult", "SOURCE_KEY", "parse_devicetype"]

SOURCE_KEY = "netbox"
GRADE = "secondary"
LIBRARY_URL = "https://github.com/netbox-community/devicetype-library/blob/master"
CATEGORIES = ("switch", "nic")


SLUG_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]*$")
LIBRARY_PATH = re.compile(r"(?:^|/)((?:device-types|module-types)/[^/]+/[^/]+\.ya?ml)$")

KG_PER_UNIT = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
AIRFLOWS = {"front-to-rear", "rear-to-front"}
NETBOX_AIRFLOWS = {
    "left-to-right",
    "right-to-left",
    "side-to-rear",
    "rear-to-side",
    "bottom-to-top",
    "top-to-bottom",
    "passive",
    "mixed",
}

#: Keys this reader uses; which of them matter depends on the category.
USED_KEYS = {
    "manufacturer",
    "model",
    "slug",
    "part_number",
    "description",
    "comments",
    "interfaces",
    "u_height",
    "airflow",
    "weight",
    "weight_unit",
    "power-ports",
    "subdevice_role",
}
NIC_UNUSED = ("u_height", "airflow", "weight", "weight_unit", "power-ports")
#: Other keys of NetBox's device-type and module-type schemas: read, not stored.
NETBOX_KEYS = {
    "is_full_depth",
    "front_image",
    "rear_image",
    "is_powered",
    "console-ports",
    "console-server-ports",
    "power-outlets",
    "front-ports",
    "rear-ports",
    "module-bays",
    "device-bays",
    "inventory-items",
    "exclude_from_utilization",
    "default_platform",
    "profile",
    "attribute_data",
}


@dataclass(frozen=True)
class NetboxProblem:
    """One reason a NetBox file cannot be imported.

    Attributes
    ----------
    field : str
        The NetBox key (``u_height``) or interface path (``interfaces[swp65].type``).
    message : str
        A sentence naming the interface and field.
    line : int or None
        1-based line in the file, when known.
    """

    field: str
    message: str
    line: int | None = None


class NetboxFileError(ValueError):
    """A NetBox file cannot be imported; ``problems`` lists every reason found.

    The message names the file (``origin``), the line when known, and the field.
    """

    def __init__(self, origin: str, problems: list[NetboxProblem]):
        self.origin = origin
        self.problems = problems
        super().__init__("\n".join(_located(origin, p) for p in problems))


def _located(origin: str, problem: NetboxProblem) -> str:
    where = f"{origin} line {problem.line}" if problem.line else origin
    return f"{where}: {problem.message}"


@dataclass
class NetboxResult:
    """A parsed NetBox file: the catalog record and what the reader could not keep."""

    record: PartRecord
    warnings: list[str] = field(default_factory=list)


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


class _Lines:
    """Line numbers of top-level keys and of list items, from the YAML node tree."""

    def __init__(self, text: str):
        self.keys: dict[str, int] = {}
        self.items: dict[str, list[int]] = {}
        try:
            root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            return
        if not isinstance(root, yaml.MappingNode):
            return
        for key_node, value_node in root.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            self.keys[key_node.value] = key_node.start_mark.line + 1
            if isinstance(value_node, yaml.SequenceNode):
                self.items[key_node.value] = [n.start_mark.line + 1 for n in value_node.value]

    def key(self, name: str) -> int | None:
        return self.keys.get(name)

    def item(self, section: str, index: int) -> int | None:
        lines = self.items.get(section) or []
        return lines[index] if index < len(lines) else self.keys.get(section)


def _load(text: str, origin: str):
    try:
        return load_yaml(text, loader=yaml.SafeLoader)
    except DocumentError as exc:
        raise NetboxFileError(origin, [NetboxProblem(exc.path, str(exc), None)]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        context = getattr(exc, "context", None)
        detail = f"{context}, {problem}" if context else problem
        line = mark.line + 1 if mark is not None else None
        raise NetboxFileError(
            origin, [NetboxProblem("", f"malformed YAML: {detail}", line)]
        ) from exc


def _library_path(origin: str) -> str | None:
    match = LIBRARY_PATH.search(origin.replace("\\", "/"))
    return match.group(1) if match else None


def netbox_source(origin: str) -> dict:
    """The ``sources`` entry for a NetBox file, with its GitHub address when the path shows it.

    Examples
    --------
    >>> netbox_source("/tmp/lib/device-types/Nvidia/QM9700.yaml")["url"]
    'https://github.com/netbox-community/devicetype-library/blob/master/device-types/Nvidia/QM9700.yaml'
    >>> netbox_source("upload.yaml")
    {'url': None, 'grade': 'secondary', 'title': 'NetBox devicetype-library file upload.yaml'}
    """
    path = _library_path(origin)
    url = f"{LIBRARY_URL}/{quote(path)}" if path else None
    short = path or PurePosixPath(origin.replace("\\", "/")).name or origin
    return {"url": url, "grade": GRADE, "title": f"NetBox devicetype-library file {short}"}


def catalog_slug(model: str) -> str:
    """Our slug for a NetBox ``model``: spaces and other characters become ``-``.

    Examples
    --------
    >>> catalog_slug("ConnectX-7 MCX755106AS-HEAT")
    'ConnectX-7-MCX755106AS-HEAT'
    >>> catalog_slug("QM9700")
    'QM9700'
    """
    slug = re.sub(r"[^A-Za-z0-9._\-]+", "-", model.strip())
    slug = re.sub(r"-{2,}", "-", slug)
    return re.sub(r"^[^A-Za-z0-9]+", "", slug).rstrip("-")


class _Reader:
    def __init__(self, text: str, origin: str):
        self.origin = origin
        self.lines = _Lines(text)
        self.problems: list[NetboxProblem] = []
        self.warnings: list[str] = []

    def problem(self, field_: str, message: str, line: int | None = None) -> None:
        if line is None and field_ and "[" not in field_:
            line = self.lines.key(field_)
        self.problems.append(NetboxProblem(field_, message, line))

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def text(self, data: dict, key: str, *, required: bool = False) -> str | None:
        value = data.get(key)
        if value is None or value == "":
            if required:
                self.problem(key, f"{key} is required")
            return None
        if _number(value):  # ``model: 5600`` reads as a number in YAML
            return str(_plain(value))
        if not isinstance(value, str):
            self.problem(key, f"{key} must be text, got {_kind(value)} {value!r}")
            return None
        return value.strip() or None


def _kind(value) -> str:
    return {bool: "true/false", list: "a list", dict: "a mapping"}.get(type(value), "a value")


def _decide_category(data: dict, category: str | None, reader: _Reader) -> str:
    if category is not None:
        return category
    height = data.get("u_height")
    if data.get("subdevice_role") == "child":
        reader.warn(
            "subdevice_role child (installed inside another device): read as a NIC; "
            "pass category='switch' to override"
        )
        return "nic"
    if height is None or (_number(height) and height == 0):
        reader.warn(
            "no u_height (a module type) or u_height 0: read as a NIC; "
            "pass category='switch' to override"
        )
        return "nic"
    return "switch"


@dataclass
class _Group:
    form_factor: str
    speed: int | float
    top: str | None
    top_inferred: bool
    names: list[str] = field(default_factory=list)


def _top(cage: CageType, category: str) -> tuple[str | None, bool]:
    """Top of a cage: stated by the type (``-rhs``), or inferred for the OSFP family."""
    if cage.top:
        return cage.top, False
    if cage.form_factor in OSFP_FAMILY:
        return ("ihs" if category == "switch" else "rhs"), True
    return None, False


TOP_NOTES = {
    "ihs": "NetBox's type does not say finned or flat top; switch OSFP cages take finned-top "
    "(IHS) modules",
    "rhs": "NetBox's type does not say finned or flat top; NIC OSFP cages take flat-top "
    "(RHS) modules",
}


def _read_interfaces(data: dict, category: str, reader: _Reader) -> tuple[list, list]:
    """Data and management groups, in order of first appearance.

    Long because: one pass over the file's interfaces that sorts each into a data or management
    group as it goes; the groups' running state is shared by every branch.
    """
    interfaces = data.get("interfaces")
    if interfaces is None:
        return [], []
    if not isinstance(interfaces, list):
        reader.problem("interfaces", f"interfaces must be a list, got {_kind(interfaces)}")
        return [], []
    data_groups: dict[tuple, _Group] = {}
    mgmt_groups: dict[tuple, _Group] = {}
    seen: set[str] = set()
    for index, item in enumerate(interfaces):
        line = reader.lines.item("interfaces", index)
        if not isinstance(item, dict):
            reader.problem(
                f"interfaces[{index + 1}]",
                f"interface #{index + 1} must be a mapping with name and type, got {_kind(item)}",
                line,
            )
            continue
        name, netbox_type = item.get("name"), item.get("type")
        if _number(name):
            name = str(name)
        label = name.strip() if isinstance(name, str) and name.strip() else f"#{index + 1}"
        if label.startswith("#"):
            reader.problem(
                f"interfaces[{label}].name", f"interface {label}: name is required (text)", line
            )
        if not isinstance(netbox_type, str) or not netbox_type.strip():
            reader.problem(
                f"interfaces[{label}].type",
                f"interface {label}: type is required "
                f"(a NetBox interface type), got {netbox_type!r}",
                line,
            )
            continue
        mgmt_only = item.get("mgmt_only", False)
        if mgmt_only is None:
            mgmt_only = False
        if not isinstance(mgmt_only, bool):
            reader.problem(
                f"interfaces[{label}].mgmt_only",
                f"interface {label}: mgmt_only must be true or false, got {mgmt_only!r}",
                line,
            )
            continue
        if label in seen:
            reader.warn(f"interface {label} is listed twice; counted once")
            continue
        seen.add(label)
        kind = netbox_type.strip().lower()
        cage = map_interface_type(kind)
        base_t = _base_t_speed(kind)
        by_name = bool(MGMT_NAME.match(label)) and (category == "switch" or cage is None)
        if mgmt_only or base_t is not None or by_name:
            if category == "nic":
                reader.warn(
                    f"interface {label} ({kind}): a management/BASE-T port on a NIC; skipped"
                )
                continue
            if base_t is not None:
                key, group = ("RJ45", base_t), _Group("RJ45", base_t, None, False)
                if not mgmt_only:
                    reader.warn(
                        f"interface {label} ({kind}) is not marked mgmt_only; BASE-T "
                        "ports are read as management ports"
                    )
            elif cage is not None:
                top, inferred = _top(cage, category)
                key = (cage.form_factor, top, cage.speed_gbps)
                group = _Group(cage.form_factor, cage.speed_gbps, top, inferred)
            else:
                reason = UNMAPPED_REASONS.get(kind, "not a cage type we know")
                reader.warn(
                    f"management interface {label} type {kind}: cannot map to a cage "
                    f"type ({reason}); skipped"
                )
                continue
            mgmt_groups.setdefault(key, group).names.append(label)
            continue
        if cage is None:
            reason = UNMAPPED_REASONS.get(kind, "not a cage type we know")
            reader.problem(
                f"interfaces[{label}].type",
                f"interface {label} type {kind}: cannot map to a cage type ({reason})",
                line,
            )
            continue
        top, inferred = _top(cage, category)
        key = (cage.form_factor, top, cage.speed_gbps)
        data_groups.setdefault(key, _Group(cage.form_factor, cage.speed_gbps, top, inferred))
        data_groups[key].names.append(label)
    return list(data_groups.values()), list(mgmt_groups.values())


def _cages(group: _Group, reader: _Reader) -> tuple[int, int]:
    """``(cage count, ports per cage)``: twin-port when names read ``<cage>.<n>``/``<cage>/<n>``.

    Twin-port needs every name of the group to match, no cage with more than two ports and
    most cages with two; a cage listing one port is still counted as a twin cage, with a
    warning (NetBox's QM9700 file lists P22.0 and P23.1 only).
    """
    matches = [TWIN_PORT.match(name) for name in group.names]
    if not all(matches):
        return len(group.names), 1
    cages: dict[str, list[str]] = {}
    for match in matches:
        cages.setdefault(match["cage"], []).append(match.string)
    sizes = [len(ports) for ports in cages.values()]
    if max(sizes) > 2:
        crowded = [cage for cage, ports in cages.items() if len(ports) > 2]
        reader.warn(
            f"{group.form_factor} {group.speed}G: cage(s) {', '.join(crowded)} list "
            "more than two ports (breakout ports?); each interface counted as one "
            "single-port cage"
        )
        return len(group.names), 1
    if sizes.count(2) * 2 <= len(sizes):
        return len(group.names), 1
    singles = [ports[0] for ports in cages.values() if len(ports) == 1]
    if singles:
        names = ", ".join(m for m in cages if len(cages[m]) == 1)
        reader.warn(
            f"twin-port {group.form_factor} cages {names} list only one port "
            f"({', '.join(singles)}); counted as twin-port cages (the file seems to "
            "miss their other port)"
        )
    return len(cages), 2


def _top_value(group: _Group):
    if group.top is None:
        return None
    if group.top_inferred:
        return {"value": group.top, "grade": "inferred", "note": TOP_NOTES[group.top]}
    return group.top


def _cage_group(group: _Group, role: str, reader: _Reader) -> dict:
    count, per_cage = _cages(group, reader) if role == "data" else (len(group.names), 1)
    result: dict = {"role": role, "count": count, "form_factor": group.form_factor}
    top = _top_value(group)
    if top is not None:
        result["top"] = top
    result["ports_per_cage"] = per_cage
    result["port_speed_gbps"] = group.speed
    return result


def _nic_port(group: _Group) -> dict:
    result: dict = {"count": len(group.names), "form_factor": group.form_factor}
    top = _top_value(group)
    if top is not None:
        result["top"] = top
    result["max_speed_gbps"] = group.speed
    return result


def _rack_units(data: dict, category: str, reader: _Reader):
    height = data.get("u_height")
    if height is None:
        return None
    if not _number(height) or height < 0:
        reader.problem("u_height", f"u_height must be a number of rack units ≥ 0, got {height!r}")
        return None
    if (height * 2) % 1:
        reader.problem("u_height", f"u_height must be a multiple of 0.5, got {height!r}")
        return None
    if category != "switch":
        return None
    if height == 0:
        reader.warn("u_height 0: rack units left unknown")
        return None
    return _plain(height)


def _weight(data: dict, reader: _Reader):
    weight, unit = data.get("weight"), data.get("weight_unit")
    if weight is None and unit is None:
        return None
    if weight is None:
        reader.problem("weight", "weight_unit is given without weight")
        return None
    if not _number(weight) or weight < 0:
        reader.problem("weight", f"weight must be a number ≥ 0, got {weight!r}")
        return None
    if unit is None:
        reader.problem("weight_unit", "weight_unit is required with weight (kg, g, lb or oz)")
        return None
    factor = KG_PER_UNIT.get(str(unit).strip().lower())
    if factor is None:
        reader.problem("weight_unit", f"weight_unit must be kg, g, lb or oz, got {unit!r}")
        return None
    if weight == 0:
        reader.warn("weight 0: left unknown")
        return None
    kilograms = _plain(round(weight * factor, 3))
    if factor == 1.0:
        return kilograms
    return {"value": kilograms, "note": f"converted from {_plain(weight)} {unit}"}


def _airflow(data: dict, reader: _Reader):
    airflow = data.get("airflow")
    if airflow is None:
        return None
    if not isinstance(airflow, str):
        reader.problem("airflow", f"airflow must be text, got {airflow!r}")
        return None
    value = airflow.strip().lower()
    if value in AIRFLOWS:
        return value
    known = "NetBox airflow" if value in NETBOX_AIRFLOWS else "unknown airflow value"
    reader.warn(f"{known} {airflow!r} has no equivalent in our vocabulary; airflow left empty")
    return None


PSU_NOTE = (
    "NetBox power-port maximum_draw: the rating of one PSU inlet, not the switch's power draw"
)


def _power(data: dict, reader: _Reader) -> dict:
    ports = data.get("power-ports")
    if ports is None or ports == []:
        reader.warn(
            "no power-ports listed: PSU count and rating left unknown (PSUs may be module bays)"
        )
        return {}
    if not isinstance(ports, list):
        reader.problem("power-ports", f"power-ports must be a list, got {_kind(ports)}")
        return {}
    draws = []
    for index, port in enumerate(ports):
        line = reader.lines.item("power-ports", index)
        if not isinstance(port, dict):
            reader.problem(
                f"power-ports[{index + 1}]",
                f"power port #{index + 1} must be a mapping, got {_kind(port)}",
                line,
            )
            continue
        label = port.get("name") or f"#{index + 1}"
        for key in ("maximum_draw", "allocated_draw"):
            value = port.get(key)
            if value is not None and (not _number(value) or value < 0):
                reader.problem(
                    f"power-ports[{label}].{key}",
                    f"power port {label}: {key} must be a number of watts ≥ 0, got {value!r}",
                    line,
                )
        draw = port.get("maximum_draw")
        draws.append(draw if _number(draw) and draw > 0 else None)
    result: dict = {"psu_count": len(ports)}
    known = [d for d in draws if d is not None]
    if known and len(known) == len(draws) and len(set(known)) == 1:
        result["psu_rating_w"] = {"value": _plain(known[0]), "note": PSU_NOTE}
        reader.warn(
            f"psu_rating_w {_plain(known[0])} W from power-port maximum_draw (a PSU "
            "inlet rating, not used as system power)"
        )
    elif known:
        reader.warn(
            "power ports give different or missing maximum_draw values: PSU rating left unknown"
        )
    return result


def parse_devicetype(text: str, origin: str, *, category: str | None = None) -> NetboxResult:
    """Read one NetBox devicetype-library file (device type or module type) as a part record.

    Category heuristic: NetBox files do not say "switch" or "NIC". The ``category`` argument
    wins. Otherwise a file with ``subdevice_role: child`` (installed inside another device),
    without ``u_height`` (module types have none) or with ``u_height: 0`` is read as a
    ``nic``; every other file as a ``switch``. A warning says so whenever the heuristic
    chose ``nic``.

    Mapping: ``model`` becomes our slug (spaces and other characters -> ``-``), NetBox's
    ``slug`` (and the model if it differs) an alias; the manufacturer *name* goes to
    ``identity["manufacturer"]``. Interfaces whose type names a cage (:data:`CAGE_TYPES`)
    become one group per (form factor, top, speed); names ``<cage>.<n>`` / ``<cage>/<n>``
    with two ports per cage make twin-port cages. ``mgmt_only``, BASE-T and ``mgmt``/``eth0``
    ports become a switch's ``mgmt`` group (skipped on a NIC). ``power-ports`` give
    ``psu_count`` and, when all equal, ``psu_rating_w`` from ``maximum_draw`` (never system
    power); ``u_height`` -> ``rack_units``; ``weight`` -> ``weight_kg``; ``airflow``
    front-to-rear / rear-to-front only. Protocols, lanes and power are left unknown.

    Parameters
    ----------
    text : str
        The YAML text.
    origin : str
        File name or path, used in messages; a path containing
        ``device-types/<Manufacturer>/<file>`` also gives the source's GitHub address.
    category : {"switch", "nic"}, optional
        Force the category instead of the heuristic.

    Returns
    -------
    NetboxResult
        ``record`` (a :class:`PartRecord` with source ``netbox``, grade secondary) and
        ``warnings`` (ignored keys, values left empty, inferred values, data gaps).

    Raises
    ------
    NetboxFileError
        Malformed YAML (with its line), a missing manufacturer or model, a value of the wrong
        type, or a data interface whose type maps to no cage (each named with its type).

    Examples
    --------
    >>> text = '''
    ... manufacturer: Acme
    ... model: X1
    ... slug: acme-x1
    ... u_height: 1
    ... interfaces:
    ...   - {name: swp1, type: 400gbase-x-qsfp112}
    ...   - {name: swp2, type: 400gbase-x-qsfp112}
    ... '''
    >>> result = parse_devicetype(text, "X1.yaml")
    >>> result.record.category, result.record.slug, result.record.spec["cage_groups"]
    ('switch', 'X1', [{'role': 'data', 'count': 2, 'form_factor': 'QSFP112', \
'ports_per_cage': 1, 'port_speed_gbps': 400}])

    Long because: it reads one file's fields in the file's order (kind, names, cages, rack units,
    weight, airflow, power) into one part record; each step is a call or a few lines that fill the
    record.
    """
    if category is not None and category not in CATEGORIES:
        raise NetboxFileError(
            origin,
            [
                NetboxProblem(
                    "category", f"category must be one of {', '.join(CATEGORIES)}, got {category!r}"
                )
            ],
        )
    data = _load(text, origin)
    reader = _Reader(text, origin)
    if not isinstance(data, dict):
        raise NetboxFileError(
            origin,
            [
                NetboxProblem(
                    "", "expected a NetBox device type: a mapping with manufacturer, model, ...", 1
                )
            ],
        )
    category = _decide_category(data, category, reader)

    manufacturer = reader.text(data, "manufacturer", required=True)
    model = reader.text(data, "model", required=True)
    netbox_slug = reader.text(data, "slug")
    part_number = reader.text(data, "part_number")
    description = reader.text(data, "description")
    comments = reader.text(data, "comments")
    subdevice_role = data.get("subdevice_role")
    if subdevice_role is not None and subdevice_role not in ("parent", "child"):
        reader.problem(
            "subdevice_role", f"subdevice_role must be parent or child, got {subdevice_role!r}"
        )

    slug = catalog_slug(model) if model else ""
    if model and not slug:
        reader.problem("model", f"model {model!r} gives no usable slug")
    elif slug and len(slug) > 100:
        reader.problem("model", f"model {model!r} is longer than 100 characters")
    elif model and slug != re.sub(r"\s+", "-", model.strip()):
        reader.warn(f"model {model!r} has characters a slug cannot hold; slug {slug!r}")

    spec: dict = {}
    data_groups, mgmt_groups = _read_interfaces(data, category, reader)
    rack_units = _rack_units(data, category, reader)
    if category == "switch":
        weight = _weight(data, reader)
        airflow = _airflow(data, reader)
        power = _power(data, reader)
        groups = [_cage_group(g, "data", reader) for g in data_groups]
        groups += [_cage_group(g, "mgmt", reader) for g in mgmt_groups]
        for key, value in (
            ("rack_units", rack_units),
            ("airflow", airflow),
            ("weight_kg", weight),
            *power.items(),
            ("cage_groups", groups),
        ):
            if value not in (None, [], {}):
                spec[key] = value
        if not data_groups:
            reader.warn("no data interfaces: cage groups hold no data ports")
    else:
        _weight(data, reader)  # checked, not stored
        unused = [key for key in NIC_UNUSED if key in data]
        if unused:
            reader.warn(f"ignored for a NIC (no such field): {', '.join(unused)}")
        ports = [_nic_port(g) for g in data_groups]
        if ports:
            spec["ports"] = ports
            spec["max_speed_gbps"] = max(p["max_speed_gbps"] for p in ports)
        else:
            reader.warn("no data interfaces: the NIC has no ports")
    reader.warn(
        "protocols not stated by NetBox (interface types do not say Ethernet or "
        "InfiniBand): left empty"
    )

    ignored = sorted(key for key in data if key in NETBOX_KEYS)
    if ignored:
        reader.warn(f"ignored NetBox keys: {', '.join(ignored)}")
    unknown = sorted(str(key) for key in data if key not in NETBOX_KEYS and key not in USED_KEYS)
    if unknown:
        reader.warn(f"unknown keys (not in NetBox's schema), ignored: {', '.join(unknown)}")

    if reader.problems:
        in_order = sorted(reader.problems, key=lambda p: (p.line is None, p.line or 0))
        raise NetboxFileError(origin, in_order)

    aliases = []
    for alias in (netbox_slug, model):
        if alias and alias != slug and alias not in aliases:
            aliases.append(alias)
    if description and len(description) > 300:
        reader.warn("description longer than 300 characters: shortened")
        description = description[:299] + "…"
    name = model if model.lower().startswith(manufacturer.lower()) else f"{manufacturer} {model}"
    notes = [comments] if comments else []
    notes.append(
        "Imported from the NetBox devicetype-library (secondary source). Protocols "
        "and power are not stated there."
        + (
            " psu_rating_w is a PSU inlet's maximum_draw, not the system's power."
            if "psu_rating_w" in spec
            else ""
        )
    )
    entry = {
        "slug": slug,
        "name": name[:200],
        "manufacturer": manufacturer,
        "part_number": part_number or "",
        "aliases": aliases,
        "description": description or "",
        "notes": "\n\n".join(notes),
        "sources": {SOURCE_KEY: netbox_source(origin)},
        "source": SOURCE_KEY,
        **spec,
    }
    try:
        record = part_from_entry(category, entry, origin)
    except CatalogFileError as exc:  # a bug of this reader, reported rather than hidden
        raise NetboxFileError(origin, [NetboxProblem("", str(exc))]) from exc
    violations = check_part(category, record.spec)
    if violations:
        raise NetboxFileError(origin, [NetboxProblem(v.field, v.message) for v in violations])
    return NetboxResult(record=record, warnings=reader.warnings)
