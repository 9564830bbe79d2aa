"""A converged storage + in-band fabric (NVIDIA Enterprise RA "CPU Converged (N/S)"): one
Ethernet leaf-spine carrying storage, in-band and user traffic.

The rules are the storage fabric's (:func:`planner.domain.networks.storage.leaf_spine_network`)
with each node's ports dual-homed to two leaves and ``uplinks`` from the spines to the
customer's core. No reference architecture of a DGX SuperPOD has one, so the switch models
(``leaf``, ``spine``) have no default and must be given.
"""

from __future__ import annotations

from planner.domain.catalog import CatalogFacts
from planner.domain.networks.common import LinkGroup, NetworkPlan
from planner.domain.networks.storage import leaf_spine_network


def converged_network(
    values: dict, shared: dict, hosts: int, server: str, facts: CatalogFacts
) -> NetworkPlan:
    """The converged fabric; its customer uplinks leave from the spines (the leaves when the
    fabric is a single leaf).

    Raises
    ------
    FabricError
        As :func:`~planner.domain.networks.storage.leaf_spine_network`, naming
        ``networks.converged.<field>``.
    """
    plan = leaf_spine_network(
        "converged", {**values, "ufm_appliances": 0}, shared, hosts, server, facts
    )
    uplinks = int(values.get("uplinks") or 0)
    if not uplinks:
        return plan
    speed = plan.settings["speed_gbps"]
    group = LinkGroup(
        "spine-customer", "spine", "customer's core", uplinks, speed, "not chosen", uplinks
    )
    return NetworkPlan(
        name=plan.name,
        switches=plan.switches,
        link_groups=(*plan.link_groups, group),
        parts=plan.parts,
        endpoints=(*plan.endpoints, ("customer uplinks", uplinks)),
        conventions=(
            *plan.conventions,
            f"Uplinks to the customer's core: {uplinks} (spec field uplinks), from the spines.",
        ),
        settings=plan.settings,
        bandwidth=plan.bandwidth,
    )


__all__ = ["converged_network"]
