"""The other networks of a cluster: storage, in-band, out-of-band and converged (issue 18).

A spec's ``networks`` block names them; :func:`cluster_networks` sizes each by rule from the
built compute fabric (its servers, switches and the layout's racks) and the catalog. Defaults
follow the server family's reference architecture (:mod:`planner.domain.networks.common`):
``server: DGX-H100`` with ``networks: {storage: {}, inband: {}, oob: {}}`` builds what the
NVIDIA DGX SuperPOD H100 RA (RA-11333-001 V11, Tables 7 and 8) builds.

Examples
--------
>>> check_networks({"storage": {}}, "DGX-H100")
[]
>>> check_networks({"converged": {}}, "DGX-H100")[0][0]
'networks.converged.leaf'
>>> check_networks({"converged": {"leaf": "SN5600"}, "storage": {}}, "DGX-H100")[0][0]
'networks.converged'
"""

from __future__ import annotations

from dataclasses import replace

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, SWITCH_ROLES, Fabric, FabricError
from planner.domain.networks.common import (
    NETWORKS,
    RA_H100,
    ClusterNetworks,
    LinkGroup,
    NetworkPlan,
    PartCount,
    PartRef,
    SwitchGroup,
    node_port_defaults,
    resolve_settings,
)
from planner.domain.networks.converged import converged_network
from planner.domain.networks.inband import inband_network, take_core_ports
from planner.domain.networks.management import management_plan
from planner.domain.networks.oob import oob_network
from planner.domain.networks.storage import storage_network


def check_networks(networks: dict, server: str) -> list[tuple[str, str]]:
    """Problems of a ``networks`` block that need no catalog: fields without a default for
    ``server`` (e.g. ``networks.oob.leaf`` for a server outside the H100 family), bad ratios.

    A converged fabric carries the storage and in-band traffic (NVIDIA Enterprise RA: three
    physical fabrics, compute, "CPU Converged" and OOB), so it is refused beside a separate
    ``storage`` or ``inband`` network, naming ``networks.converged``.

    The JSON Schema has already checked the block's structure and types.
    """
    problems = resolve_settings(networks, server)[1]
    separate = [name for name in ("storage", "inband") if name in networks]
    if "converged" in networks and separate:
        problems.append(
            (
                "networks.converged",
                "a converged fabric carries the storage and in-band traffic: give it instead "
                f"of {' and '.join(separate)}, not beside",
            )
        )
    return problems


def _hosts(spec, fabric: Fabric, facts: CatalogFacts) -> tuple[int, int]:
    """Nodes with their own ports (a rack-scale system's compute trays) and NVLink switch
    trays, from the fabric's servers."""
    servers = int((fabric.node_role == ROLE["server"]).sum())
    device = facts.devices.get(spec.server)
    trays = (facts.parts.get(spec.server) or {}).get("trays") or {}
    if device is not None and device.compute_trays:
        switch_trays = trays.get("switch") if isinstance(trays, dict) else None
        return servers * device.compute_trays, servers * int(switch_trays or 0)
    return servers, 0


def _rack_servers(fabric: Fabric) -> tuple[int, ...]:
    """Servers per compute rack (a layout rack of kind ``server``), in layout order."""
    racks = [i for i, rack in enumerate(fabric.racks) if rack.get("kind") == "server"]
    if not racks or fabric.node_rack is None:
        return ()
    servers = fabric.node_rack[fabric.node_role == ROLE["server"]]
    return tuple(int((servers == i).sum()) for i in racks)


def cluster_networks(spec, fabric: Fabric, facts: CatalogFacts) -> ClusterNetworks:
    """Size every network the spec's ``networks`` block names.

    Parameters
    ----------
    spec : planner.domain.spec_model.DesignSpec
        A parsed spec; ``spec.networks`` is its ``networks`` block (may be empty).
    fabric : Fabric
        The compute fabric after layout (its racks give the PDU count).
    facts : CatalogFacts
        Switch ports and part records; parts missing from the catalog are reported, not
        refused.

    Returns
    -------
    ClusterNetworks
        Per network, in the order storage, converged, in-band, OOB.

    Raises
    ------
    FabricError
        A network cannot be built; ``field`` names the setting, e.g. ``networks.oob.uplinks``.

    Long because: the networks are sized in an order and again until the in-band cores and OOB
    uplinks agree (see its comment).
    """
    settings, problems = resolve_settings(spec.networks or {}, spec.server)
    if problems:
        field, message = problems[0]
        raise FabricError(f"{field}: {message}", field=field)
    settings, port_notes = node_port_defaults(settings, spec.networks or {}, spec.server, facts)
    shared = settings["shared"]
    hosts, nvlink_trays = _hosts(spec, fabric, facts)
    compute_racks = sum(1 for rack in fabric.racks if rack.get("kind") == "server")
    rack_servers = _rack_servers(fabric)
    plans: dict[str, NetworkPlan] = {}
    if "storage" in settings:
        plans["storage"] = storage_network(settings["storage"], shared, hosts, spec.server, facts)
    if "converged" in settings:
        plans["converged"] = converged_network(
            settings["converged"], shared, hosts, spec.server, facts
        )
    if "inband" in settings:
        plans["inband"] = inband_network(settings["inband"], shared, hosts, spec.server, facts)
    if "oob" in settings:
        compute_switches = int(sum((fabric.node_role == ROLE[role]).sum() for role in SWITCH_ROLES))
        # The OOB uplinks land on the in-band cores; when the cores are sized by rule, they
        # are sized for them too, and the OOB switch count follows the in-band switch count:
        # built again until both stand still (two rounds in practice).
        reserved = 0
        for _ in range(8):
            plan = oob_network(
                settings["oob"],
                shared,
                server=spec.server,
                hosts=hosts,
                compute_switches=compute_switches,
                other_switches={name: p.switch_count for name, p in plans.items()},
                compute_racks=compute_racks,
                nvlink_trays=nvlink_trays,
                facts=facts,
                rack_servers=rack_servers,
            )
            uplinks = sum(g.links for g in plan.link_groups if g.name == "uplinks")
            auto_cores = "inband" in plans and not settings["inband"].get("cores")
            if not auto_cores or uplinks == reserved:
                break
            reserved = uplinks
            plans["inband"] = inband_network(
                settings["inband"], shared, hosts, spec.server, facts, oob_uplinks=reserved
            )
        plans["oob"] = plan
        if "inband" in plans and uplinks and uplinks != reserved:
            plans["inband"] = take_core_ports(
                plans["inband"], uplinks, field="networks.oob.uplinks"
            )
    for name, note in port_notes.items():
        if name in plans:
            plans[name] = replace(plans[name], conventions=(*plans[name].conventions, note))
    oob_settings = settings.get("oob") or resolve_settings({"oob": {}}, spec.server)[0]["oob"]
    management = management_plan(shared, oob_settings, compute_racks=compute_racks, facts=facts)
    ordered = tuple(plans[name] for name in NETWORKS if name in plans)
    return ClusterNetworks(
        server=spec.server,
        networks=ordered + ((management,) if management is not None else ()),
        shared=dict(shared),
    )


__all__ = [
    "NETWORKS",
    "RA_H100",
    "ClusterNetworks",
    "LinkGroup",
    "NetworkPlan",
    "PartCount",
    "PartRef",
    "SwitchGroup",
    "check_networks",
    "cluster_networks",
]
