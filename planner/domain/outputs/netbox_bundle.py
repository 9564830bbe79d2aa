"""The NetBox bundle: everything an empty NetBox 4.x needs to hold a design, in import order.

NetBox's bulk import (each object list's *Import* page, or the REST API) is all or nothing per
file and refuses a row naming an object that does not exist yet: devices need their site,
rack, role, manufacturer and device type; cables need both interfaces, which NetBox creates
from the device type's interface templates when a device is made; tags must exist before a
row names them; a rack is 42U unless told otherwise. The bundle is one file per object kind,
numbered in the order NetBox needs them (:data:`BUNDLE_FILES`):

1. ``01-manufacturers.csv``: ``name, slug`` of every manufacturer a device type names;
2. ``02-tags.csv``: ``name, slug, color, weight, description``, one tag per network of the design
   (``compute`` always, ``storage``, ``converged``, ``inband``, ``oob``, ``management``; every
   device and cable row names its network's tag; the colour
   is the network's cord colour, :data:`~planner.domain.outputs.cabling_ends.CORD_COLOURS`,
   as NetBox's palette writes it);
3. ``03-sites.csv``: the site;
4. ``04-device-roles.csv``: every role a device row names;
5. ``05-racks.csv``: every rack a device row names, with its height from the layout
   (``u_height``; a rack the layout does not size, such as a management rack, gets the
   tallest height of the layout's racks);
6. ``06-device-types.yaml``: one YAML document per device type (NetBox's device type import
   reads YAML, not CSV: ``manufacturer, model, slug, u_height, comments, interfaces``), its
   interface templates named as the cabling plan names ports: every logical port of the
   catalog model as the design splits it (``17``, ``3/2``) and every port a network link
   names on a device of that type (``stor1``, ``mgmt``, ``bmc``);
7. ``07-devices.csv``: every device (the compute fabric's nodes, then every network's own
   devices) with its type, rack and position;
8. ``08-cables.csv``: every cable (:func:`~planner.domain.outputs.exports.netbox_cable_lines`)
   with its status (``planned`` unless told).

Every device has a type. A device the catalog has no model for (the fabric manager the compute
fabric reserves a port for, a storage array, the NFS storage, the customer's core router) gets
a **generic type**, stated as such: manufacturer ``Generic``, model ``Generic <role>`` and a
comment saying it stands in for the real model. A zero-height device (a rack PDU, catalog kind
``pdu``) is 0U, in its rack without a position, as NetBox requires. A model whose height the
catalog does not state is 1U, as the layout placed it, and its comment says so.

CSV cells are neutralised (:func:`~planner.domain.outputs.cabling.csv_lines`); the YAML is
written by PyYAML (quoted where needed). Pure: no Django.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import yaml

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric
from planner.domain.outputs.cabling import csv_lines
from planner.domain.outputs.cabling_ends import CORD_COLOURS, FabricEnds
from planner.domain.outputs.exports import (
    COMPUTE,
    DEFAULT_SITE,
    NETBOX_DEVICE_COLUMNS,
    NETBOX_ROLES,
    NETBOX_TAGS_COLUMN,
    NETWORK_NETBOX_ROLES,
    netbox_cable_lines,
    network_elements,
)

__all__ = [
    "BUNDLE_FILES",
    "GENERIC_MANUFACTURER",
    "NetboxBundle",
    "netbox_bundle",
    "netbox_bundle_zip",
    "netbox_interface_type",
]

BUNDLE_FILES = (
    "01-manufacturers.csv",
    "02-tags.csv",
    "03-sites.csv",
    "04-device-roles.csv",
    "05-racks.csv",
    "06-device-types.yaml",
    "07-devices.csv",
    "08-cables.csv",
)
README_NAME = "00-README.txt"
GENERIC_MANUFACTURER = "Generic"
GENERIC_COMMENT = (
    "Generic type: the catalog has no model for this device; it stands in for the real model "
    "(edit it, or assign the real type to the devices, once known)."
)
UNSIZED_COMMENT = "Height not stated in the catalog: 1U, as the layout placed it."
#: NetBox's colour palette (``ColorChoices``, netbox/utilities/choices.py) for the cord colours.
NETBOX_COLOURS = {
    "aqua": "00ffff",
    "green": "4caf50",
    "purple": "9c27b0",
    "black": "111111",
    "blue": "2196f3",
    "grey": "9e9e9e",
}
DEFAULT_COLOUR = "9e9e9e"
#: NetBox's default tag weight (``Tag.weight``, netbox/extras/models/tags.py), which its tag
#: import nevertheless requires.
TAG_WEIGHT = 1000
#: NetBox ``InterfaceTypeChoices`` (netbox/dcim/choices.py) of an InfiniBand port by speed.
INFINIBAND_TYPES = {
    100: "infiniband-edr",
    200: "infiniband-hdr",
    400: "infiniband-ndr",
    800: "infiniband-xdr",
}
#: ... of an Ethernet port by speed and cage form factor (the catalog's ``form_factor``).
ETHERNET_TYPES = {
    (1, "RJ45"): "1000base-t",
    (10, "RJ45"): "10gbase-t",
    (10, "SFP+"): "10gbase-x-sfpp",
    (25, "SFP28"): "25gbase-x-sfp28",
    (100, "QSFP28"): "100gbase-x-qsfp28",
    (200, "QSFP56"): "200gbase-x-qsfp56",
    (400, "QSFP112"): "400gbase-x-qsfp112",
    (400, "QSFP-DD"): "400gbase-x-qsfpdd",
    (400, "OSFP"): "400gbase-x-osfp",
    (800, "OSFP"): "800gbase-x-osfp",
    (800, "QSFP-DD"): "800gbase-x-qsfpdd",
}
RACK_COLUMNS = ("site", "name", "status", "width", "u_height")
_SLUG = re.compile(r"[^a-z0-9_]+")


def _slug(text: str) -> str:
    """A NetBox slug (letters, digits, ``-`` and ``_``).

    >>> _slug("Generic storage-array"), _slug("PX3-5747V-V2")
    ('generic-storage-array', 'px3-5747v-v2')
    """
    return _SLUG.sub("-", text.lower()).strip("-") or "x"


def netbox_interface_type(protocols, speed_gbps, form_factor) -> str:
    """NetBox's interface type for a port (``other`` when no NetBox type fits).

    >>> netbox_interface_type(("infiniband",), 400, "OSFP")
    'infiniband-ndr'
    >>> netbox_interface_type(("ethernet",), 400, "QSFP-DD"), netbox_interface_type((), 7, "")
    ('400gbase-x-qsfpdd', 'other')
    """
    speed = int(speed_gbps or 0)
    if "infiniband" in {str(p).lower() for p in protocols or ()} and speed in INFINIBAND_TYPES:
        return INFINIBAND_TYPES[speed]
    return ETHERNET_TYPES.get((speed, str(form_factor or "").upper()), "other")


@dataclass
class _Type:
    manufacturer: str  # the name NetBox knows
    model: str
    u_height: float | None = None
    comments: str = ""
    interfaces: dict[str, str] = field(default_factory=dict)  # name -> NetBox type
    cages: list[str] = field(default_factory=list)  # NetBox type of each catalog cage
    named_by_design: bool = False  # a compute node named every port

    def cage_type(self, port: str) -> str:
        head = port.split("/", 1)[0]
        if head.isdigit() and 0 < int(head) <= len(self.cages):
            return self.cages[int(head) - 1]
        return "other"

    def finish(self) -> None:
        """A type only network devices use: its catalog cages not named by any link too,
        unsplit; then every interface in natural order."""
        if not self.named_by_design:
            split = {name.split("/", 1)[0] for name in self.interfaces if "/" in name}
            for cage, kind in enumerate(self.cages, start=1):
                if str(cage) not in split:
                    self.interfaces.setdefault(str(cage), kind)
        self.interfaces = dict(sorted(self.interfaces.items(), key=lambda i: _natural(i[0])))


_DIGITS = re.compile(r"(\d+)")


def _natural(text: str) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in _DIGITS.split(text) if p)


@dataclass
class NetboxBundle:
    """The bundle's files, in import order: ``files`` maps a name of :data:`BUNDLE_FILES`
    to its text; ``counts`` how many objects each holds."""

    files: dict[str, str]
    counts: dict[str, int]

    def readme(self) -> str:
        lines = [
            "NetBox bundle written by Fabric Planner: import the files in their number order",
            "into an empty NetBox 4.x (each object list's Import page, or the REST API).",
            "06-device-types.yaml is YAML (Device Types > Import, format YAML); the others CSV.",
            "",
        ]
        lines += [f"{name}: {self.counts.get(name, 0):,} objects" for name in self.files]
        return "\n".join(lines) + "\n"


class _Builder:
    """The bundle's objects of one design, gathered in one pass over its devices and links."""

    def __init__(self, fabric: Fabric, facts: CatalogFacts, makers: Mapping[str, str], elements):
        self.fabric = fabric
        self.facts = facts
        self.makers = makers
        self.elements = elements
        self.ends = FabricEnds(fabric)
        self.types: dict[str, _Type] = {}  # by model
        self.type_of: dict[str, _Type] = {}  # device name -> its type

    def maker(self, slug: str) -> str:
        """The name NetBox knows a catalog manufacturer by (the catalog's ``generic`` is
        :data:`GENERIC_MANUFACTURER`, the generic types' manufacturer)."""
        return self.makers.get(slug) or (GENERIC_MANUFACTURER if slug == "generic" else slug)

    def type_for(self, model: str, role: str) -> _Type:
        """The device type of a catalog model, or the generic type of ``role``."""
        device = self.facts.devices.get(model) if model else None
        record = (self.facts.parts.get(model) if model else None) or {}
        known = device is not None or bool(record.get("manufacturer"))
        key = model if known else f"{GENERIC_MANUFACTURER} {role}"
        found = self.types.get(key)
        if found is not None:
            return found
        if not known:
            made = _Type(self.maker("generic"), key, 1, f"{GENERIC_COMMENT} {UNSIZED_COMMENT}")
        else:
            made = _Type(self.maker(str(record.get("manufacturer"))), model)
            made.u_height = device.rack_units if device is not None else None
            if device is not None and device.kind == "pdu":
                made.u_height = 0
            elif made.u_height is None:
                made.u_height, made.comments = 1, UNSIZED_COMMENT
            for group in device.port_groups if device is not None else ():
                kind = netbox_interface_type(
                    device.protocols, group.port_speed_gbps, group.form_factor
                )
                made.cages += [kind] * group.count
        self.types[key] = made
        return made

    def compute_rows(self, site: str, status: str, tag: tuple) -> Iterator[tuple]:
        ends, fabric = self.ends, self.fabric
        ports = fabric.node_ports.tolist() if len(fabric.node_ports) else [0] * fabric.node_count
        named: set[tuple[int, int, int]] = set()  # (model, ports, ports per cage) done
        models = fabric.node_model.tolist()
        for node in range(fabric.node_count):
            role = NETBOX_ROLES[ends.roles[node]]
            made = self.type_for(ends.models[node], role)
            self.type_of[ends.names[node]] = made
            shape = (models[node], int(ports[node]), ends.per_cage[node])
            if shape not in named:  # nodes of a model split alike name the same ports
                named.add(shape)
                made.named_by_design = True
                for port in range(shape[1]):
                    name = ends.port_name(node, port)
                    made.interfaces.setdefault(name, made.cage_type(name))
            yield self._row(ends.names[node], role, made, ends.rack[node], ends.ru[node])(
                site, status, *tag
            )

    @staticmethod
    def _row(name: str, role: str, made: _Type, rack: str, ru: str):
        placed = bool(rack and ru) and made.u_height != 0

        def row(site: str, status: str, *tag: str) -> tuple:
            front = "front" if placed else ""
            return (
                name,
                role,
                made.manufacturer,
                made.model,
                site,
                rack or "",
                ru if placed else "",
                front,
                status,
                *tag,
            )

        return row

    def network_rows(self, site: str, status: str) -> Iterator[tuple]:
        compute = set(self.ends.names)
        for device in self.elements.devices:
            if device.name in compute or device.network == COMPUTE:
                continue
            role = NETWORK_NETBOX_ROLES.get(device.role, device.role)
            made = self.type_for(device.model, role)
            self.type_of[device.name] = made
            ru = str(device.ru) if device.rack and device.ru else ""
            yield self._row(device.name, role, made, device.rack or "", ru)(
                site, status, device.network
            )

    def link_ports(self) -> None:
        """Every port a network link names, on its device's type (``mgmt``, ``stor1``...)."""
        for link in self.elements.links:
            copper = str(link.cable_kind or "").lower().startswith("cat")
            for device, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
                made = self.type_of.get(device)
                if made is not None and port not in made.interfaces:
                    kind = made.cage_type(port) if _CAGE_PORT.match(port) else "other"
                    made.interfaces[port] = "1000base-t" if copper and kind == "other" else kind


_CAGE_PORT = re.compile(r"^\d+(/\d+)?$")


def _rack_heights(fabric: Fabric) -> dict[str, int]:
    return {
        str(rack.get("name")): int(rack["rack_units"])
        for rack in fabric.racks or ()
        if rack.get("name") and rack.get("rack_units")
    }


def _device_type_yaml(types: list[_Type]) -> str:
    documents = []
    for made in types:
        document: dict = {
            "manufacturer": made.manufacturer,
            "model": made.model,
            "slug": _slug(made.model),
        }
        if made.u_height is not None:
            document["u_height"] = made.u_height
        if made.comments:
            document["comments"] = made.comments
        if made.interfaces:
            document["interfaces"] = [
                {"name": name, "type": kind} for name, kind in made.interfaces.items()
            ]
        documents.append(document)
    return yaml.safe_dump_all(documents, sort_keys=False, allow_unicode=True)


def _tagged(lines: Iterator[str], elements) -> str:
    """The cable CSV with its ``tags`` column: the export's own with networks, else
    ``compute`` on every row (each line ends ``\\r\\n``)."""
    if elements:
        return "".join(lines)
    header = next(lines)
    rows = (line[:-2] + f",{COMPUTE}\r\n" for line in lines)
    return header[:-2] + f",{NETBOX_TAGS_COLUMN}\r\n" + "".join(rows)


def netbox_bundle(
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    site: str = DEFAULT_SITE,
    manufacturer_names: Mapping[str, str] | None = None,
    status: str = "planned",
    cable_status: str = "planned",
    elements=None,
) -> NetboxBundle:
    """The whole bundle of ``fabric`` (see the module docstring).

    ``manufacturer_names`` maps a catalog manufacturer slug to the name NetBox knows it by;
    ``status`` is the devices' and racks' NetBox status, ``cable_status`` the cables'.
    """
    elements = network_elements(fabric, facts, elements)
    build = _Builder(fabric, facts, manufacturer_names or {}, elements)
    tag = (COMPUTE,)  # every device and cable is tagged, a compute-only design's too
    rows = list(build.compute_rows(site, status, tag))
    if elements:
        rows += list(build.network_rows(site, status))
        build.link_ports()
    columns = NETBOX_DEVICE_COLUMNS + (NETBOX_TAGS_COLUMN,)
    networks = [COMPUTE] + ([n for n in elements.networks() if n != COMPUTE] if elements else [])
    heights = _rack_heights(fabric)
    tallest = max(heights.values(), default=42)
    racks = sorted({row[5] for row in rows if row[5]})
    roles = sorted({row[1] for row in rows})
    makers = sorted({made.manufacturer for made in build.types.values()})
    types = list(build.types.values())
    for made in types:
        made.finish()
    files = {
        "01-manufacturers.csv": "".join(
            csv_lines(("name", "slug"), ((m, _slug(m)) for m in makers))
        ),
        "02-tags.csv": "".join(
            csv_lines(
                ("name", "slug", "color", "weight", "description"),
                (
                    (
                        n,
                        _slug(n),
                        NETBOX_COLOURS.get(CORD_COLOURS.get(n, ""), DEFAULT_COLOUR),
                        TAG_WEIGHT,
                        f"The {n} network",
                    )
                    for n in networks
                ),
            )
        ),
        "03-sites.csv": "".join(
            csv_lines(("name", "slug", "status"), [(site, _slug(site), status)])
        ),
        "04-device-roles.csv": "".join(
            csv_lines(("name", "slug", "color"), ((r, _slug(r), DEFAULT_COLOUR) for r in roles))
        ),
        "05-racks.csv": "".join(
            csv_lines(RACK_COLUMNS, ((site, r, status, 19, heights.get(r, tallest)) for r in racks))
        ),
        "06-device-types.yaml": _device_type_yaml(types),
        "07-devices.csv": "".join(csv_lines(columns, rows)),
        "08-cables.csv": _tagged(
            netbox_cable_lines(fabric, facts, status=cable_status, elements=elements), elements
        ),
    }
    cables = fabric.link_count + (len(elements.links) if elements else 0)
    counts = dict(
        zip(
            BUNDLE_FILES,
            (len(makers), len(networks), 1, len(roles), len(racks), len(types), len(rows), cables),
            strict=True,
        )
    )
    return NetboxBundle(files=files, counts=counts)


def netbox_bundle_zip(bundle: NetboxBundle) -> bytes:
    """The bundle as a zip: a README, then the files in import order."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(README_NAME, bundle.readme())
        for name, text in bundle.files.items():
            archive.writestr(name, text)
    return buffer.getvalue()
