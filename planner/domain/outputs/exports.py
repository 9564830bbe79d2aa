"""Exports in the formats other tools read: BOM CSV, NetBox bulk import, NVIDIA P2P, Arista AVD
topology CSV and the whole design as JSON.

Every CSV export is a generator of lines (:func:`planner.domain.outputs.cabling.csv_lines`),
so a large fabric streams with flat memory.

- **NetBox** (DCIM bulk import, *Devices* and *Cables*): the device CSV has NetBox's import
  field names ``name, role, manufacturer, device_type, site, rack, position, face, status``
  (``manufacturer`` by name, ``device_type`` by model: both must exist in NetBox, as must the
  site, the racks and the device roles); the cable CSV ``side_a_device, side_a_type,
  side_a_name, side_b_device, side_b_type, side_b_name, type, status, label, length,
  length_unit`` with ``dcim.interface`` terminations named as the cabling plan names ports,
  NetBox cable types (``dac-passive``, ``dac-active``, ``aoc``, ``mmf``/``mmf-om4``,
  ``smf``/``smf-os2``) and status ``planned``. A breakout leg is one NetBox cable.
- **NVIDIA P2P** (UFM Cable Validation Tool point-to-point sheet): ``A-Rack, A-U, A-Node Name,
  A-Type, A-Port, Z-Rack, Z-U, Z-Node Name, Z-Type, Z-Port``; types ``Host`` and ``Switch``;
  split ports written ``1/2``.
- **Arista AVD** topology CSV (as ``eos_designs`` fabric documentation writes it): ``Node Type,
  Node, Node Interface, Peer Type, Peer Node, Peer Interface, Node Interface Enabled``, one row
  per switch interface with a link, sorted by node name (natural order) and interface; a
  switch-to-switch link appears from both ends, a server link from the switch end. Every
  interface is named as the cabling plan names the port (``<cage>`` or ``<cage>/<port>``);
  node types ``l3leaf``, ``spine``, ``super-spine``, and ``server`` for servers and
  fabric-manager endpoints. AVD describes Ethernet fabrics: a design whose switches run
  InfiniBand (by the catalog's ``protocols``) is refused with :class:`ExportError`.
- **JSON**: the spec, the summary, the topology (``Fabric.to_dict()`` columns) and the BOM.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping

import numpy as np

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, Fabric
from planner.domain.outputs.bom import BillOfMaterials
from planner.domain.outputs.cabling import (
    COPPER_TYPES,
    FabricEnds,
    csv_lines,
    iter_link_labels,
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
AVD_COLUMNS = (
    "Node Type",
    "Node",
    "Node Interface",
    "Peer Type",
    "Peer Node",
    "Peer Interface",
    "Node Interface Enabled",
)
NETBOX_ROLES = {
    "server": "server",
    "manager": "fabric-manager",
    "leaf": "leaf",
    "spine": "spine",
    "core": "core",
}
AVD_NODE_TYPES = {
    "server": "server",
    "manager": "server",
    "leaf": "l3leaf",
    "spine": "spine",
    "core": "super-spine",
}
DEFAULT_SITE = "fabric-planner"


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
) -> Iterator[str]:
    """NetBox device bulk-import CSV (:data:`NETBOX_DEVICE_COLUMNS`), one row per node.

    ``manufacturer_names`` maps a catalog manufacturer slug to the name NetBox knows it by
    (NetBox matches manufacturers by name); without it the slug is written.
    """
    ends = FabricEnds(fabric)
    names = manufacturer_names or {}

    def rows():
        for node in range(fabric.node_count):
            model = ends.models[node]
            record = facts.parts.get(model) or {}
            maker = str(record.get("manufacturer") or "")
            placed = bool(ends.rack[node] and ends.ru[node])
            yield (
                ends.names[node],
                NETBOX_ROLES[ends.roles[node]],
                names.get(maker, maker),
                model,
                site,
                ends.rack[node],
                ends.ru[node] if placed else "",
                "front" if placed else "",
                status,
            )

    return csv_lines(NETBOX_DEVICE_COLUMNS, rows())


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
    fabric: Fabric, facts: CatalogFacts, *, status: str = "planned"
) -> Iterator[str]:
    """NetBox cable bulk-import CSV (:data:`NETBOX_CABLE_COLUMNS`), one row per link."""
    ends = FabricEnds(fabric)
    types = [netbox_cable_type(facts.parts.get(slug)) for slug in fabric.parts]
    cable_part = fabric.link_cable_part
    lengths = ordered_cable_length_m(fabric)

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
            )

    return csv_lines(NETBOX_CABLE_COLUMNS, rows())


# --- NVIDIA P2P -----------------------------------------------------------------------------------


def p2p_lines(fabric: Fabric) -> Iterator[str]:
    """NVIDIA Cable Validation Tool point-to-point sheet (:data:`P2P_COLUMNS`), per link."""
    ends = FabricEnds(fabric)

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
            )

    return csv_lines(P2P_COLUMNS, rows())


# --- Arista AVD ---------------------------------------------------------------------------------

_DIGITS = re.compile(r"(\d+)")


def _natural_key(text: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in _DIGITS.split(text))


class ExportError(ValueError):
    """A design that a format cannot describe (e.g. AVD for an InfiniBand fabric)."""


AVD_NOT_ETHERNET = "AVD describes Ethernet fabrics; this design's switches run InfiniBand"


def avd_refusal(fabric: Fabric, facts: CatalogFacts) -> str | None:
    """Why AVD cannot describe ``fabric`` (a switch model runs InfiniBand only), else None.

    >>> from planner.domain.catalog import DeviceModel
    >>> fabric = Fabric(node_role=np.array([2], dtype=np.int8),
    ...                 node_model=np.array([0], dtype=np.int16), models=["QM9700"])
    >>> ib = DeviceModel("QM9700", "switch", protocols=("infiniband",))
    >>> avd_refusal(fabric, CatalogFacts(devices={"QM9700": ib}))
    "AVD describes Ethernet fabrics; this design's switches run InfiniBand (QM9700)"
    >>> eth = DeviceModel("QM9700", "switch", protocols=("ethernet", "infiniband"))
    >>> avd_refusal(fabric, CatalogFacts(devices={"QM9700": eth})) is None
    True
    """
    switch_roles = [ROLE[role] for role in ("leaf", "spine", "core")]
    switches = np.isin(fabric.node_role, switch_roles)
    infiniband = []
    for index in np.unique(fabric.node_model[switches]).tolist():
        slug = fabric.models[index]
        device = facts.devices.get(slug)
        protocols = {p.lower() for p in device.protocols} if device else set()
        if "infiniband" in protocols and "ethernet" not in protocols:
            infiniband.append(slug)
    if not infiniband:
        return None
    return f"{AVD_NOT_ETHERNET} ({', '.join(sorted(infiniband))})"


def avd_topology_lines(fabric: Fabric, facts: CatalogFacts | None = None) -> Iterator[str]:
    """Arista AVD topology CSV (:data:`AVD_COLUMNS`): every switch interface with a link.

    Raises
    ------
    ExportError
        With ``facts``: a switch model runs InfiniBand (:func:`avd_refusal`); raised at the
        call, before any line is produced.
    """
    if facts is not None and (refusal := avd_refusal(fabric, facts)):
        raise ExportError(refusal)
    ends = FabricEnds(fabric)
    switch = np.array([role in ("leaf", "spine", "core") for role in ends.roles], dtype=bool)
    if not fabric.node_count:
        return csv_lines(AVD_COLUMNS, ())
    rank = np.empty(fabric.node_count, dtype=np.int64)
    rank[sorted(range(fabric.node_count), key=lambda n: _natural_key(ends.names[n]))] = np.arange(
        fabric.node_count
    )
    links = np.arange(fabric.link_count)
    # (node, port, peer, peer port) from the B end always (a switch), from the A end if a switch
    from_a = links[switch[fabric.link_a]]
    node = np.concatenate([fabric.link_b, fabric.link_a[from_a]]).astype(np.int64)
    port = np.concatenate([fabric.link_b_port, fabric.link_a_port[from_a]]).astype(np.int64)
    peer = np.concatenate([fabric.link_a, fabric.link_b[from_a]]).astype(np.int64)
    peer_port = np.concatenate([fabric.link_a_port, fabric.link_b_port[from_a]]).astype(np.int64)
    order = np.lexsort((port, rank[node]))

    def rows():
        for k in order.tolist():
            n, p, q, qp = int(node[k]), int(port[k]), int(peer[k]), int(peer_port[k])
            yield (
                AVD_NODE_TYPES[ends.roles[n]],
                ends.names[n],
                ends.port_name(n, p),
                AVD_NODE_TYPES[ends.roles[q]],
                ends.names[q],
                ends.port_name(q, qp),
                "True",
            )

    return csv_lines(AVD_COLUMNS, rows())


# --- JSON ---------------------------------------------------------------------------------------


def design_json(
    *,
    name: str,
    revision: int | None,
    spec: Mapping,
    summary: Mapping,
    fabric: Fabric,
    bom: BillOfMaterials,
) -> dict:
    """The whole design as one JSON-ready dict: ``format``, ``name``, ``revision``, ``spec``,
    ``summary``, ``topology`` (``Fabric.to_dict()``) and ``bom``."""
    return {
        "format": "fabric-planner-design/1",
        "name": name,
        "revision": revision,
        "spec": dict(spec),
        "summary": dict(summary),
        "topology": fabric.to_dict(),
        "bom": bom.to_dict(),
    }


__all__ = [
    "AVD_COLUMNS",
    "AVD_NOT_ETHERNET",
    "ExportError",
    "avd_refusal",
    "BOM_COLUMNS",
    "EXPORT_FORMATS",
    "NETBOX_CABLE_COLUMNS",
    "NETBOX_DEVICE_COLUMNS",
    "P2P_COLUMNS",
    "avd_topology_lines",
    "bom_csv_lines",
    "design_json",
    "netbox_cable_lines",
    "netbox_cable_type",
    "netbox_device_lines",
    "p2p_lines",
]
