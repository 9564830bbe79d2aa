"""The cluster's management systems as parts: fabric-manager (UFM) appliances, management
(head) nodes and rack PDUs, counted once for the whole cluster (issue 18, item 4).

The OOB network counts their management ports; this plan counts the systems themselves, so
that the bill of materials and the quote list them. Counts follow the spec's shared settings
(``networks.ufm_appliances``, ``networks.management_nodes``, ``networks.management_racks``) and
the PDUs per rack (``networks.oob.pdus_per_rack`` per compute rack of the layout and
``pdus_per_management_rack`` per management rack; the H100 SuperPOD RA: 3 and 2, so 96 + 12
PDUs for 32 compute and 6 management racks, RA-11333-001 V11 Table 7). Parts: the spec's
``networks.parts`` slugs, else the reference architecture's (UFM Enterprise Appliance NDR,
the RA's Base Command Manager node, Raritan PX3-5878I2R-P1Q2R1A15D5 in compute racks and
PX3-5747V-V2 in management racks).
"""

from __future__ import annotations

from planner.domain.catalog import CatalogFacts
from planner.domain.networks.common import NetworkPlan, PartCount, find_part

#: The RA's parts, by role: (catalog slug, description).
RA_PARTS = {
    "ufm": ("UFM-Enterprise-Appliance-NDR", "UFM Enterprise Appliance (NDR)"),
    "management_node": ("SuperPOD-H100-BCM-node", "Base Command Manager head node"),
    "compute_pdu": ("PX3-5878I2R-P1Q2R1A15D5", "rack PDU, compute racks (Raritan)"),
    "management_pdu": ("PX3-5747V-V2", "rack PDU, management racks (Raritan)"),
}


def management_plan(
    shared: dict, oob: dict, *, compute_racks: int, facts: CatalogFacts
) -> NetworkPlan | None:
    """The management systems of the cluster as counted parts (None when there are none).

    Examples
    --------
    >>> from planner.domain.catalog import CatalogFacts
    >>> plan = management_plan(
    ...     {"ufm_appliances": 4, "management_nodes": 4, "management_racks": 6},
    ...     {"pdus_per_rack": 3, "pdus_per_management_rack": 2},
    ...     compute_racks=32, facts=CatalogFacts())
    >>> [(p.part.label, p.count) for p in plan.parts]  # doctest: +NORMALIZE_WHITESPACE
    [('UFM-Enterprise-Appliance-NDR', 4), ('SuperPOD-H100-BCM-node', 4),
     ('PX3-5878I2R-P1Q2R1A15D5', 96), ('PX3-5747V-V2', 12)]
    """
    management_racks = int(shared.get("management_racks") or 0)
    rows = [
        ("ufm", int(shared.get("ufm_appliances") or 0), "fabric-manager appliance"),
        ("management_node", int(shared.get("management_nodes") or 0), "management node"),
        (
            "compute_pdu",
            compute_racks * int(oob.get("pdus_per_rack") or 0),
            f"{oob.get('pdus_per_rack')} per compute rack x {compute_racks}",
        ),
        (
            "management_pdu",
            management_racks * int(oob.get("pdus_per_management_rack") or 0),
            f"{oob.get('pdus_per_management_rack')} per management rack x {management_racks}",
        ),
    ]
    parts = []
    for role, count, why in rows:
        if count <= 0:
            continue
        slug, description = RA_PARTS[role]
        part = find_part(facts, (slug,), description, category="server")
        parts.append(PartCount(part, "rack", count, "server", why))
    if not parts:
        return None
    return NetworkPlan(
        name="management",
        switches=(),
        link_groups=(),
        parts=tuple(parts),
        # what planner.domain.networks.elements places devices and racks by
        settings={
            "management_nodes": int(shared.get("management_nodes") or 0),
            "ufm_appliances": int(shared.get("ufm_appliances") or 0),
            "management_racks": management_racks,
            "compute_racks": compute_racks,
            "pdus_per_rack": int(oob.get("pdus_per_rack") or 0),
            "pdus_per_management_rack": int(oob.get("pdus_per_management_rack") or 0),
        },
        conventions=(
            "Management systems counted once for the cluster: UFM appliances and management "
            "nodes as the spec's networks.ufm_appliances and networks.management_nodes; PDUs "
            "per compute rack of the layout and per management rack (networks.oob."
            "pdus_per_rack, pdus_per_management_rack; RA-11333-001 V11 Table 7: 96 + 12).",
        ),
    )
