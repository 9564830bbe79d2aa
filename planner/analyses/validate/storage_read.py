"""Storage read bandwidth: a storage (or converged) network that cannot carry the read rate
its spec asks per node (``networks.<name>.read_gbytes_per_node``).

The figures are the domain's (:mod:`planner.domain.networks.bandwidth`), stored with the
fabric as ``fabric.settings.networks[<name>]["bandwidth"]``; this check turns a shortfall into a
problem naming the field, the reading nodes, the devices of the limiting tier (from the
network's concrete elements, when they can be built) and a fix.
"""

from __future__ import annotations

import math

from planner.analyses.validate.context import Context
from planner.analyses.validate.registry import register
from planner.domain.fabric import FabricError
from planner.domain.networks.bandwidth import BITS_PER_BYTE, TIER_ROLES
from planner.domain.networks.elements import network_elements

NETWORKS = ("storage", "converged")


def _fix(name: str, bandwidth: dict, settings: dict, tier: str) -> str:
    """What would carry the asked rate, for the limiting ``tier``."""
    where = f"networks.{name}"
    asked_gbps = float(bandwidth["asked_gbytes_per_node"]) * BITS_PER_BYTE
    readers = int(bandwidth["readers"])
    fewer = f", or fewer {where}.concurrent_readers, or ask less in {where}.read_gbytes_per_node"
    if tier in ("storage-array ports", "storage-leaf uplinks"):
        speed = float(settings.get("storage_port_speed_gbps") or settings.get("speed_gbps") or 0)
        if speed:
            ports = math.ceil(asked_gbps * readers / speed - 1e-9)
            return (
                f"give {where}.storage_ports at least {ports:,} (at {speed:g}G; the storage "
                f"leaves' uplinks follow 1:1){fewer}"
            )
        return f"give more {where}.storage_ports{fewer}"
    if tier == "node-leaf uplinks":
        return (
            f"lower {where}.oversubscription (now {settings.get('oversubscription')}) so "
            f"that each node leaf has more uplinks{fewer}"
        )
    speed = float(settings.get("speed_gbps") or 0)
    ports = math.ceil(asked_gbps / speed - 1e-9) if speed else None
    more = f" (at least {ports} at {speed:g}G)" if ports else ""
    return (
        f"give each node more or faster storage ports: {where}.ports_per_node{more} or "
        f"{where}.speed_gbps, or ask less in {where}.read_gbytes_per_node"
    )


def _device_ids(ctx: Context, name: str, roles: tuple[str, ...]) -> list[str]:
    """``node:<name>`` of the network's devices with these roles; none when the network's
    elements cannot be built (an old revision)."""
    try:
        elements = network_elements(ctx.fabric, ctx.facts)
    except FabricError:
        return []
    return [f"node:{d.name}" for d in elements.devices_of(name) if d.role in roles]


@register(stage="fabric", order=300, codes=("storage-read-short",))
def storage_read(ctx: Context) -> None:
    """Each storage or converged network carries the read rate asked per reading node."""
    networks = ctx.fabric.settings.networks or {}
    for name in NETWORKS:
        bandwidth = (networks.get(name) or {}).get("bandwidth") or {}
        if bandwidth.get("ok", True) or bandwidth.get("asked_gbytes_per_node") is None:
            continue
        settings = networks[name].get("settings") or {}
        tiers = {t["tier"]: t for t in bandwidth.get("tiers") or []}
        bottleneck = list(bandwidth.get("bottleneck") or [])
        readers, nodes = int(bandwidth["readers"]), int(bandwidth["nodes"])
        who = (
            f"all {nodes:,} nodes reading at once"
            if readers == nodes
            else f"{readers:,} of {nodes:,} nodes reading at once"
        )
        limits = "; ".join(f"{tier}: {tiers[tier]['rule']}" for tier in bottleneck if tier in tiers)
        message = (
            f"networks.{name}.read_gbytes_per_node: {bandwidth['asked_gbytes_per_node']:g} GB/s "
            f"asked per node with {who}; the {name} network carries "
            f"{bandwidth['carried_gbytes_per_node']:.3g} GB/s "
            f"({bandwidth['carried_gbps_per_node']:,.1f} Gb/s) per node, limited by the "
            f"{' and the '.join(bottleneck)} ({limits})"
        )
        roles = tuple(r for tier in bottleneck for r in TIER_ROLES.get(tier, ()) if r != "node")
        servers = ctx.fabric.nodes_with_role("server")
        ctx.out.add(
            "storage-read-short",
            message,
            nodes=servers[: max(1, readers)],
            ids=_device_ids(ctx, name, roles) if roles else (),
            suggestion=_fix(name, bandwidth, settings, bottleneck[0] if bottleneck else ""),
        )


__all__ = ["storage_read"]
