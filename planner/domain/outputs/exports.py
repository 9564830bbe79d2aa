"""Exports in the formats other tools read: BOM CSV, NetBox bulk import, NVIDIA P2P, Arista AVD
topology CSV and the whole design as JSON.

Every CSV export is a generator of lines (:func:`planner.domain.outputs.cabling.csv_lines`),
so a large fabric streams with flat memory.

The cluster's other networks (a spec's ``networks:`` block: storage, converged, in-band,
out-of-band and the management systems) are in every export once the fabric has them
(``fabric.settings.networks``): their devices and links are the ones stored with the fabric
(:func:`planner.domain.networks.elements.network_elements`; ``elements`` given to an export
replaces them). A design without networks gets the compute fabric alone,
byte for byte as before (no extra column).

- **NetBox** (DCIM bulk import, *Devices* and *Cables*): the device CSV has NetBox's import
  field names ``name, role, manufacturer, device_type, site, rack, position, face, status``
  (``manufacturer`` by name, ``device_type`` by model: both must exist in NetBox, as must the
  site, the racks and the device roles); the cable CSV ``side_a_device, side_a_type,
  side_a_name, side_b_device, side_b_type, side_b_name, type, status, label, length,
  length_unit`` with ``dcim.interface`` terminations named as the cabling plan names ports,
  NetBox cable types (``dac-passive``, ``dac-active``, ``aoc``, ``mmf``/``mmf-om4``,
  ``smf``/``smf-os2``; twisted pair ``cat5e``, ``cat6`` ...: NetBox's ``CableTypeChoices``,
  netbox-community/netbox ``netbox/dcim/choices.py``) and status ``planned``. A breakout leg
  is one NetBox cable. With networks both CSVs add a ``tags`` column naming the network of
  each device and cable (``compute``, ``storage``, ``converged``, ``inband``, ``oob``,
  ``management``; NetBox reads tag slugs, so create these tags before the import), and the
  device CSV lists every device of every network (switches by role, management systems,
  storage arrays, PDUs) with its catalog model and, when placed, its rack and RU (the
  management racks ``MGMT-nn`` must exist in NetBox like the layout's racks). Endpoints
  outside the plan (storage arrays, NFS storage, the customer's core) have no catalog model:
  their ``device_type`` is empty, for NetBox refuses a guess; fill it in (or drop those rows
  and their cables) before the import.
- **NVIDIA P2P** (UFM Cable Validation Tool point-to-point sheet): ``A-Rack, A-U, A-Node Name,
  A-Type, A-Port, Z-Rack, Z-U, Z-Node Name, Z-Type, Z-Port``; types ``Host`` and ``Switch``;
  split ports written ``1/2``. With networks every network's links follow the compute
  fabric's, and a last column ``Network`` names each row's network (the tool validates one
  fabric at a time: filter the rows on it).
- **Arista AVD** topology CSV: the fabric documentation pyavd writes (``Node Type, Node,
  Serial Number, Node Interface, Peer Type, Peer Node, Peer Serial Number, Peer Interface, Node
  Interface Enabled``) from the design's AVD inputs (:mod:`planner.domain.outputs.avd`, the
  ``avd-yaml`` download): every switch interface eos_designs configures, on its EOS name, hosts
  and interfaces in natural order (:func:`planner.domain.outputs.avd.avd_topology_rows`; equal
  to pyavd's own text in ``tests/interop/test_pyavd.py``). It describes what AVD would build,
  so it is refused where the AVD inputs are (a switch that is not an Arista switch EOS names):
  the cabling plan, NetBox and NVIDIA P2P exports list every design's links.
- **JSON**: the spec, the summary, the topology (``Fabric.to_dict()`` columns; its ``info``
  holds the networks' plan, ``settings.networks``) and the BOM; with networks also
  ``network_elements``, every network device and link (the
  :class:`~planner.domain.networks.elements.ClusterElements` as lists of dicts).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import asdict

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric
from planner.domain.networks.elements import network_elements as stored
from planner.domain.outputs.bom import BillOfMaterials
from planner.domain.outputs.cabling import (
    COPPER_TYPES,
    FabricEnds,
    csv_lines,
    iter_link_labels,
    network_ordered_lengths_m,
)
from planner.domain.summary import ordered_cable_length_m

EXPORT_FORMATS = ("bom-csv", "cabling-csv", "netbox", "p2p", "avd", "json")
BOM_COLUMNS = (
    "part",
    "part_number",
    "name",
    "manufacturer",
    "category",
    "tier",
    "length_m",
    "base_quantity",
    "spares",
    "quantity",
    "counted_per",
    "length_rule",
)
NETBOX_DEVICE_COLUMNS = (
    "name",
    "role",
    "manufacturer",
    "device_type",
    "site",
    "rack",
    "position",
    "face",
    "status",
)
NETBOX_CABLE_COLUMNS = (
    "side_a_device",
    "side_a_type",
    "side_a_name",
    "side_b_device",
    "side_b_type",
    "side_b_name",
    "type",
    "status",
    "label",
    "length",
    "length_unit",
)
P2P_COLUMNS = (
    "A-Rack",
    "A-U",
    "A-Node Name",
    "A-Type",
    "A-Port",
    "Z-Rack",
    "Z-U",
    "Z-Node Name",
    "Z-Type",
    "Z-Port",
)
NETBOX_ROLES = {
    "server": "server",
    "manager": "fabric-manager",
    "leaf": "leaf",
    "spine": "spine",
    "core": "core",
}
DEFAULT_SITE = "fabric-planner"
#: The column a design with networks adds: NetBox ``tags`` (tag slugs), P2P ``Network``.
NETBOX_TAGS_COLUMN = "tags"
P2P_NETWORK_COLUMN = "Network"
COMPUTE = "compute"
#: NetBox role of a network device whose role NetBox names otherwise (else the role as is).
NETWORK_NETBOX_ROLES = {"ufm": "fabric-manager", "node": "server"}
#: Roles of switches in the networks' elements (a device whose catalog category is
#: ``switch`` is one too).
NETWORK_SWITCH_ROLES = frozenset({"leaf", "storage-leaf", "spine", "core", "switch"})
#: Twisted-pair categories NetBox has a cable type for (``CableTypeChoices``: cat3 ... cat8).
TWISTED_PAIR = ("cat3", "cat5", "cat5e", "cat6", "cat6a", "cat7", "cat7a", "cat8")
#: NetBox cable type from a network link's ``cable_kind`` when its part is not in the catalog.
KIND_NETBOX_TYPES = {
    "dac": "dac-passive",
    "acc": "dac-active",
    "aec": "dac-active",
    "aoc": "aoc",
    "mmf": "mmf",
    "smf": "smf",
}


# --- the networks' elements ---------------------------------------------------------------------


def network_elements(fabric: Fabric, facts: CatalogFacts | None, elements=None):
    """The networks' devices and links of ``fabric``, or None when it has no networks.

    ``elements`` (a :class:`~planner.domain.networks.elements.ClusterElements`) is returned
    as is when given; without it they are the fabric's stored ones
    (:func:`~planner.domain.networks.elements.network_elements`; ``facts`` only upgrades a
    fabric stored without them). An empty set
    (no devices, no links) is None too, so the compute-only outputs stay unchanged.
    """
    if elements is None:
        if not fabric.settings.networks or (fabric.networks is None and facts is None):
            return None

        elements = stored(fabric, facts)
    if not elements.devices and not elements.links:
        return None
    return elements


class _NetworkEnds:
    """Per-device strings of the networks' outputs: rack, RU, role, model and location of
    every device a network link names (the networks' own devices and the compute fabric's
    nodes they reach), computed once."""

    def __init__(self, fabric: Fabric, ends: FabricEnds, elements, facts: CatalogFacts | None):
        self.ends = ends
        self.devices = {device.name: device for device in elements.devices}
        self.compute = {name: node for node, name in enumerate(fabric.node_name)}
        self.facts = facts
        places: dict[tuple[str, str], int] = {}
        for node in range(fabric.node_count):
            if ends.rack[node] and ends.ru[node]:
                key = (ends.rack[node], ends.ru[node])
                places[key] = places.get(key, 0) + 1
        for device in elements.devices:
            if device.name not in self.compute and device.rack and device.ru:
                key = (device.rack, str(device.ru))
                places[key] = places.get(key, 0) + 1
        self._places = places

    def own(self, name: str):
        """The network device ``name`` unless it is a compute node (those keep their rows)."""
        return None if name in self.compute else self.devices.get(name)

    def rack_ru(self, name: str) -> tuple[str, str]:
        node = self.compute.get(name)
        if node is not None:
            return self.ends.rack[node], self.ends.ru[node]
        device = self.devices.get(name)
        if device is None:
            return "", ""
        return device.rack or "", str(device.ru) if device.rack and device.ru else ""

    def location(self, name: str) -> str:
        node = self.compute.get(name)
        if node is not None:
            return self.ends.location[node]
        rack, ru = self.rack_ru(name)
        if rack and ru and self._places.get((rack, ru)) == 1:
            return f"{rack}.U{int(ru):02d}"
        return name

    def is_switch(self, name: str) -> bool:
        node = self.compute.get(name)
        if node is not None:
            return self.ends.roles[node] in ("leaf", "spine", "core")
        device = self.devices.get(name)
        if device is None:
            return False
        if device.role in NETWORK_SWITCH_ROLES:
            return True
        model = self.facts.devices.get(device.model) if self.facts else None
        return model is not None and model.category == "switch"

    def label(self, link) -> str:
        """TIA-606-style label of a network link, as the cabling plan writes compute ones."""
        a = f"{self.location(link.a_device)}.P{link.a_port.replace('/', '.')}"
        b = f"{self.location(link.b_device)}.P{link.b_port.replace('/', '.')}"
        return f"{a}/{b}"


def _network_order(elements) -> list[str]:
    return list(elements.networks())


def network_cable_type(link, facts: CatalogFacts | None) -> str:
    """NetBox's cable type of a network link: twisted pair by its category (``cat5e``; the
    catalog files RJ45 cords under ``dac`` for "passive copper"), else from the cable part
    (:func:`netbox_cable_type`), else from the link's cable kind ("" when none fits).

    Examples
    --------
    >>> from types import SimpleNamespace as Link
    >>> network_cable_type(Link(cable_kind="Cat5e", cable_part=""), None)
    'cat5e'
    >>> network_cable_type(Link(cable_kind="AOC splitter 1:2", cable_part="x"), None)
    'aoc'
    """
    kind = (link.cable_kind or "").strip().lower()
    head = kind.split()[0] if kind else ""
    if head in TWISTED_PAIR:
        return head
    record = facts.parts.get(link.cable_part) if facts and link.cable_part else None
    if record:
        if str(record.get("end_a_form_factor") or "").upper() == "RJ45":
            return ""  # twisted pair whose category the link does not state
        found = netbox_cable_type(record)
        if found:
            return found
    if head in ("fibre", "fiber"):
        return "mmf" if "mmf" in kind else ("smf" if "smf" in kind else "")
    return KIND_NETBOX_TYPES.get(head, "")


def bom_csv_lines(bom: BillOfMaterials) -> Iterator[str]:
    """The BOM as CSV (:data:`BOM_COLUMNS`), in the BOM's line order."""
    rows = (
        (
            line.part,
            line.part_number,
            line.name,
            line.manufacturer,
            line.category,
            line.tier,
            "" if line.length_m is None else f"{line.length_m:g}",
            line.base_quantity,
            line.spares,
            line.quantity,
            line.counted_per,
            line.length_rule,
        )
        for line in bom.lines
    )
    return csv_lines(BOM_COLUMNS, rows)


# --- NetBox --------------------------------------------------------------------------------------


def netbox_device_lines(
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    site: str = DEFAULT_SITE,
    manufacturer_names: Mapping[str, str] | None = None,
    status: str = "planned",
    elements=None,
) -> Iterator[str]:
    """NetBox device bulk-import CSV (:data:`NETBOX_DEVICE_COLUMNS`), one row per node.

    ``manufacturer_names`` maps a catalog manufacturer slug to the name NetBox knows it by
    (NetBox matches manufacturers by name); without it the slug is written.

    With networks (:func:`network_elements`; ``elements`` reuses a built set) every device
    of every network follows the compute fabric's nodes, and a last column ``tags`` names
    each row's network (``compute`` for the fabric's own nodes). A network device's role is
    its role in the network (``leaf``, ``spine``, ``core``, ``storage-array``, ``pdu`` ...;
    a UFM appliance ``fabric-manager``), its ``device_type`` the catalog model (or the printed
    part number when the catalog lacks it).
    """
    ends = FabricEnds(fabric)
    names = manufacturer_names or {}
    elements = network_elements(fabric, facts, elements)
    columns = NETBOX_DEVICE_COLUMNS + ((NETBOX_TAGS_COLUMN,) if elements else ())
    tag = (COMPUTE,) if elements else ()

    def maker(model: str) -> str:
        record = facts.parts.get(model) or {}
        slug = str(record.get("manufacturer") or "")
        return names.get(slug, slug)

    def rows():
        for node in range(fabric.node_count):
            model = ends.models[node]
            placed = bool(ends.rack[node] and ends.ru[node])
            yield (
                ends.names[node],
                NETBOX_ROLES[ends.roles[node]],
                maker(model),
                model,
                site,
                ends.rack[node],
                ends.ru[node] if placed else "",
                "front" if placed else "",
                status,
                *tag,
            )
        if not elements:
            return
        compute = set(ends.names)
        for device in elements.devices:
            if device.name in compute or device.network == COMPUTE:
                continue
            placed = bool(device.rack and device.ru)
            yield (
                device.name,
                NETWORK_NETBOX_ROLES.get(device.role, device.role),
                maker(device.model),
                device.model,
                site,
                device.rack or "",
                str(device.ru) if placed else "",
                "front" if placed else "",
                status,
                device.network,
            )

    return csv_lines(columns, rows())


def netbox_cable_type(record: Mapping | None) -> str:
    """NetBox's cable type for a catalog cable or fiber ("" when it has no matching type).

    Examples
    --------
    >>> netbox_cable_type({"category": "fiber", "fiber_type": "mmf", "fiber_grade": "OM4"})
    'mmf-om4'
    >>> netbox_cable_type({"category": "cable", "cable_type": "aec"})
    'dac-active'
    """
    if not record:
        return ""
    if record.get("category") == "fiber":
        kind = str(record.get("fiber_type") or "").lower()
        grade = str(record.get("fiber_grade") or "").lower()
        if kind in ("mmf", "smf"):
            return f"{kind}-{grade}" if grade in ("om3", "om4", "om5", "os1", "os2") else kind
        return ""
    kind = str(record.get("cable_type") or "").lower()
    if kind == "dac":
        return "dac-passive"
    if kind in COPPER_TYPES:
        return "dac-active"  # ACC and AEC are active copper assemblies
    if kind == "aoc":
        return "aoc"
    return ""


def netbox_cable_lines(
    fabric: Fabric, facts: CatalogFacts, *, status: str = "planned", elements=None
) -> Iterator[str]:
    """NetBox cable bulk-import CSV (:data:`NETBOX_CABLE_COLUMNS`), one row per link.

    With networks (:func:`network_elements`) every network's links follow the compute
    fabric's, one row per link (a splitter's legs are one cable each), its type from
    :func:`network_cable_type`, its length the one ordered for the cable when the run is
    known, and a last column ``tags`` naming the network (``compute`` for the fabric's own).
    """
    ends = FabricEnds(fabric)
    types = [netbox_cable_type(facts.parts.get(slug)) for slug in fabric.parts]
    cable_part = fabric.link_cable_part
    lengths = ordered_cable_length_m(fabric)
    elements = network_elements(fabric, facts, elements)
    columns = NETBOX_CABLE_COLUMNS + ((NETBOX_TAGS_COLUMN,) if elements else ())
    tag = (COMPUTE,) if elements else ()

    def rows():
        labels = iter_link_labels(fabric, ends)
        for i in range(fabric.link_count):
            a, b = int(fabric.link_a[i]), int(fabric.link_b[i])
            part = int(cable_part[i]) if cable_part is not None else -1
            length = float(lengths[i]) if lengths is not None and part >= 0 else float("nan")
            known = math.isfinite(length)
            yield (
                ends.names[a],
                "dcim.interface",
                ends.port_name(a, int(fabric.link_a_port[i])),
                ends.names[b],
                "dcim.interface",
                ends.port_name(b, int(fabric.link_b_port[i])),
                types[part] if part >= 0 else "",
                status,
                next(labels),
                f"{length:g}" if known else "",
                "m" if known else "",
                *tag,
            )
        if not elements:
            return
        places = _NetworkEnds(fabric, ends, elements, facts)
        ordered = network_ordered_lengths_m(elements, facts)
        for index, link in enumerate(elements.links):
            length = ordered.get(index)
            yield (
                link.a_device,
                "dcim.interface",
                link.a_port,
                link.b_device,
                "dcim.interface",
                link.b_port,
                network_cable_type(link, facts),
                status,
                places.label(link),
                "" if length is None else f"{length:g}",
                "" if length is None else "m",
                link.network,
            )

    return csv_lines(columns, rows())


# --- NVIDIA P2P -----------------------------------------------------------------------------------


def p2p_lines(fabric: Fabric, facts: CatalogFacts | None = None, *, elements=None) -> Iterator[str]:
    """NVIDIA Cable Validation Tool point-to-point sheet (:data:`P2P_COLUMNS`), per link.

    With networks (``facts`` or ``elements`` given, see :func:`network_elements`) every
    network's links follow the compute fabric's and a last column ``Network`` names each
    row's network (``compute`` for the fabric's own); a network switch is ``Switch``, every
    other device ``Host``.
    """
    ends = FabricEnds(fabric)
    elements = network_elements(fabric, facts, elements)
    columns = P2P_COLUMNS + ((P2P_NETWORK_COLUMN,) if elements else ())
    tag = (COMPUTE,) if elements else ()

    def kind(node: int) -> str:
        return "Switch" if ends.roles[node] in ("leaf", "spine", "core") else "Host"

    def rows():
        for i in range(fabric.link_count):
            a, b = int(fabric.link_a[i]), int(fabric.link_b[i])
            yield (
                ends.rack[a],
                ends.ru[a],
                ends.names[a],
                kind(a),
                ends.port_name(a, int(fabric.link_a_port[i])),
                ends.rack[b],
                ends.ru[b],
                ends.names[b],
                kind(b),
                ends.port_name(b, int(fabric.link_b_port[i])),
                *tag,
            )
        if not elements:
            return
        places = _NetworkEnds(fabric, ends, elements, facts)
        for link in elements.links:
            a_rack, a_ru = places.rack_ru(link.a_device)
            b_rack, b_ru = places.rack_ru(link.b_device)
            yield (
                a_rack,
                a_ru,
                link.a_device,
                "Switch" if places.is_switch(link.a_device) else "Host",
                link.a_port,
                b_rack,
                b_ru,
                link.b_device,
                "Switch" if places.is_switch(link.b_device) else "Host",
                link.b_port,
                link.network,
            )

    return csv_lines(columns, rows())


# --- JSON ---------------------------------------------------------------------------------------


def design_json(
    *,
    name: str,
    revision: int | None,
    spec: Mapping,
    summary: Mapping,
    fabric: Fabric,
    bom: BillOfMaterials,
    facts: CatalogFacts | None = None,
    elements=None,
) -> dict:
    """The whole design as one JSON-ready dict: ``format``, ``name``, ``revision``, ``spec``,
    ``summary``, ``topology`` (``Fabric.to_dict()``; the networks' plan is its
    ``settings.networks``) and ``bom``; with networks (``facts`` or ``elements`` given, see
    :func:`network_elements`) also ``network_elements``: ``{"devices": [...], "links":
    [...]}``, each device and link as a dict of its fields."""
    document = {
        "format": "fabric-planner-design/1",
        "name": name,
        "revision": revision,
        "spec": dict(spec),
        "summary": dict(summary),
        "topology": fabric.to_dict(),
        "bom": bom.to_dict(),
    }
    elements = network_elements(fabric, facts, elements)
    if elements:
        document["network_elements"] = {
            "devices": [asdict(device) for device in elements.devices],
            "links": [asdict(link) for link in elements.links],
        }
    return document


__all__ = [
    "NETBOX_TAGS_COLUMN",
    "P2P_NETWORK_COLUMN",
    "network_cable_type",
    "network_elements",
    "BOM_COLUMNS",
    "EXPORT_FORMATS",
    "NETBOX_CABLE_COLUMNS",
    "NETBOX_DEVICE_COLUMNS",
    "P2P_COLUMNS",
    "bom_csv_lines",
    "design_json",
    "netbox_cable_lines",
    "netbox_cable_type",
    "netbox_device_lines",
    "p2p_lines",
]
