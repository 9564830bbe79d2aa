"""Edit documents (format in :mod:`planner.domain.canvas`): :func:`validate_edit` reports
every problem, :func:`fabric_from_edit` builds the fabric of a valid document and
:func:`edit_document` writes a fabric as one.

What an edit keeps of the revision it is based on (rack types, generator parameters) is
:mod:`planner.domain.edits`, applied by the service that saves the edit.
"""

from __future__ import annotations

from collections import Counter

from inventory.library.rules import Violation
from planner.domain.canvas.common import MAX_ELEMENTS, CanvasError, EditError, finite, rack_name
from planner.domain.canvas.edit_media import (
    check_breakouts,
    check_cages,
    check_media,
    fill_media,
)
from planner.domain.canvas.edit_parse import (
    SWITCH_EDIT_ROLES,
    ParsedEdit,
    assemble,
    parse_links,
    parse_nodes,
)
from planner.domain.canvas.views import node_positions
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLES, Fabric
from planner.domain.media import MediaCatalog
from planner.domain.settings import FabricSettings


def _parse(document, facts: CatalogFacts) -> ParsedEdit:
    out = ParsedEdit()
    if not isinstance(document, dict):
        out.add("malformed", "A topology document is a mapping with nodes and links.")
        return out
    index = parse_nodes(document, facts, out)
    parse_links(document, index, out)
    total = len(out.nodes) + len(out.links)
    if total > MAX_ELEMENTS:
        out.add(
            "too-large",
            f"The document has {total:,} nodes and links; hand edits are limited to "
            f"{MAX_ELEMENTS:,}: change larger fabrics through their spec.",
        )
        return out
    if not out.nodes:
        out.add("malformed", "A topology needs at least one node.", field_name="nodes")
        return out
    if any(not node.ok for node in out.nodes):
        return out
    out.fabric = assemble(out)
    catalog = MediaCatalog(facts, None)
    check_breakouts(out, facts)
    check_media(out, facts, catalog)
    check_cages(out, facts)
    return out


def validate_edit(document, facts: CatalogFacts) -> list[Violation]:
    """Every problem of an edit document (errors, and warnings for facts the catalog lacks).

    Codes: ``malformed``, ``unknown-role``, ``unknown-model``, ``duplicate-name``,
    ``unknown-node``, ``self-link``, ``tier-order``, ``speed-unsupported``,
    ``port-out-of-range``, ``port-in-use``, ``unknown-part``, ``part-category``,
    ``cable-with-modules``, ``module-mismatch`` (a module does not fit its cage),
    ``optics-mismatch`` (the two modules or the fiber do not go together), ``cable-mismatch``,
    ``reach-exceeded``, ``cage-mixed-plugs``, ``breakout-legs`` (more links through one
    cage name a 1:N breakout than it has legs), ``breakout-leg-speed`` (a breakout's legs not
    all at its leg speed), ``too-large``; warnings ``unverified``.
    ``element_ids`` name the nodes and links (``link:<index in the document>``).
    """
    return _parse(document, facts).problems


def fabric_from_edit(document, facts: CatalogFacts) -> Fabric:
    """A :class:`Fabric` of a valid edit document: nodes and links in document order (so
    ``link:<i>`` stays the document's index), parts as named, positions in ``node_x/y``.

    Raises
    ------
    EditError
        The document has errors (``violations``: what :func:`validate_edit` reports).
    """
    out = _parse(document, facts)
    if out.fabric is None or any(p.severity == "error" for p in out.problems):
        raise EditError(out.problems)
    fabric = out.fabric
    fill_media(fabric, out, facts)
    nodes = out.nodes
    servers = [node for node in nodes if node.role == "server"]
    switch_tiers = {node.role for node in nodes if node.role in SWITCH_EDIT_ROLES}
    speeds = Counter(link.speed for link in out.links)
    planes = max([node.extra["plane"] for node in nodes if "plane" in node.extra] or [1])
    rails = [node.extra["rail"] for node in nodes if "rail" in node.extra]
    sus = [node.extra["su"] for node in servers if "su" in node.extra]
    manager_links = sum(1 for link in out.links if nodes[link.a].role == "manager")
    fabric.info = {
        "topology": "custom",
        "tiers": len(switch_tiers),
        "gpus": sum((node.device.gpus or node.device.ports) for node in servers if node.device),
        "servers": len(servers),
        "speed_gbps": speeds.most_common(1)[0][0] if speeds else None,
        "rails": max(rails) if rails else None,
        "sus": max(sus) if sus else None,
        "reserved_leaf_ports": manager_links // planes,
        "media_warnings": sorted({p.message for p in out.problems if p.severity == "warning"}),
        "media_notes": [],
    }
    fabric.settings = FabricSettings(planes=planes)
    return fabric


def edit_document(fabric: Fabric) -> dict:
    """The edit document of a fabric (the reverse of :func:`fabric_from_edit`): 1-based
    ports, parts by slug (a cable assembly only as ``cable``), stored positions or the
    preset tier positions of the whole-fabric view.

    Raises
    ------
    CanvasError
        The fabric has more than :data:`MAX_ELEMENTS` nodes + links (edit it in scopes or
        through its spec).
    """
    total = fabric.node_count + fabric.link_count
    if total > MAX_ELEMENTS:
        raise CanvasError(
            f"this fabric has {total:,} nodes and links; hand edits are limited to "
            f"{MAX_ELEMENTS:,}: change it through its spec, or open a scope to view it"
        )
    positions = node_positions(fabric)
    nodes = []
    for i, name in enumerate(fabric.node_name):
        role = ROLES[int(fabric.node_role[i])]
        x, y = positions[i]
        node = {
            "name": name,
            "model": fabric.models[int(fabric.node_model[i])],
            "role": role,
            "x": round(x, 1),
            "y": round(y, 1),
        }
        for key, column in (
            ("plane", fabric.node_plane),
            ("su", fabric.node_su),
            ("rail", fabric.node_rail),
            ("group", fabric.node_group),
        ):
            value = int(column[i])
            if value >= 0 and not (key == "plane" and role == "server"):
                node[key] = value + 1
        rack = rack_name(fabric, i)
        if rack is not None:
            node["rack"] = rack
            if fabric.node_ru is not None and fabric.node_ru[i] > 0:
                node["ru"] = int(fabric.node_ru[i])
        nodes.append(node)
    links = []
    parts = fabric.parts
    names = fabric.node_name
    for i in range(fabric.link_count):
        a_part = b_part = cable = None
        if fabric.link_a_part is not None:
            pa, pb, pc = (
                int(fabric.link_a_part[i]),
                int(fabric.link_b_part[i]),
                int(fabric.link_cable_part[i]),
            )
            cable = parts[pc] if pc >= 0 else None
            a_part = parts[pa] if pa >= 0 and pa != pc else None
            b_part = parts[pb] if pb >= 0 and pb != pc else None
        length = None
        if fabric.link_length_m is not None:
            length = finite(fabric.link_length_m[i])
        links.append(
            {
                "a": names[int(fabric.link_a[i])],
                "a_port": int(fabric.link_a_port[i]) + 1,
                "b": names[int(fabric.link_b[i])],
                "b_port": int(fabric.link_b_port[i]) + 1,
                "speed_gbps": int(fabric.link_speed_gbps[i]),
                "a_part": a_part,
                "b_part": b_part,
                "cable": cable,
                "length_m": length,
            }
        )
    return {"nodes": nodes, "links": links}
