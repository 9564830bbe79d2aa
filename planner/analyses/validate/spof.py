"""Single points of failure by failure domain (issue 24): what one power feed, one switch or one
rack takes down although the design meant it to be redundant.

- ``spof-feed``: both leaves of a leaf pair (MLAG: two leaves of a cluster network joined by
  ISLs) stand in racks fed from one and the same single power feed, so that feed's failure
  takes the pair down. Feeds come from the spec's ``power`` block (failure domains,
  :mod:`planner.analyses.resilience.domains`); the management racks of the cluster networks
  (``MGMT-nn``) are network racks (``power.by_rack_kind.network``, else ``power.feeds``).
  Nothing is checked when the spec states no feeds.
- ``spof-dual-homed``: a node with two or more uplinks, all of them on one switch: a
  fabric-manager endpoint of the compute fabric, or a node of a cluster network that is not
  declared ``dual_homed`` (a declared one is ``network-dual-homing-single-leaf``, and a
  compute server's rails on one leaf ``spof-server-single-leaf``).
- ``spof-plane-rack``: every spine (or every core) of one plane in one rack: the rack, its
  PDU or its row takes the plane's whole upper tier (needs the layout).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from planner.analyses.validate.context import Context
from planner.analyses.validate.networks import _elements as network_elements
from planner.analyses.validate.registry import register
from planner.domain.fabric import ROLE

CODES = ("spof-feed", "spof-dual-homed", "spof-plane-rack")
#: The rack kind of the cluster networks' management racks, for the power block.
MANAGEMENT_RACK_KIND = "network"


def _elements(ctx: Context):
    """The cluster networks' elements (shared with the networks checks), or None."""
    return network_elements(ctx)


def _feeds_by_rack(ctx: Context) -> dict[str, tuple[str, ...]] | None:
    """Rack name -> its feeds, or None when the spec states no power feeds."""
    block = ctx.fabric.settings.power_feeds or {}
    if not block:
        return None
    default = tuple(block.get("feeds") or ())
    by_kind = block.get("by_rack_kind") or {}
    out = {rack["name"]: tuple(by_kind.get(rack.get("kind"), default)) for rack in ctx.fabric.racks}
    out[""] = ()  # a device in no rack: feeds unknown
    out["*management*"] = tuple(by_kind.get(MANAGEMENT_RACK_KIND, default))
    return out


@register(stage="fabric", order=945, codes=("spof-feed",))
def leaf_pair_feeds(ctx: Context) -> None:
    """A leaf pair whose two switches hang on one single feed."""
    feeds = _feeds_by_rack(ctx)
    index = _elements(ctx) if feeds is not None else None
    if index is None:
        return
    pairs: set[tuple[str, str, str]] = set()
    for link in index.elements.links:
        network = link.network
        if link.a_device == link.b_device:
            continue
        same = index.leaves.get(link.a_device) == index.leaves.get(link.b_device) == network
        if same and index.data_port(link.a_port) and index.data_port(link.b_port):
            first, second = sorted((link.a_device, link.b_device))
            pairs.add((network, first, second))
    for network, first, second in sorted(pairs):
        racks = [index.devices[name].rack for name in (first, second)]
        fed = [feeds.get(rack, feeds["*management*"]) for rack in racks]
        if not all(len(f) == 1 for f in fed) or fed[0] != fed[1]:
            continue
        feed = fed[0][0]
        where = racks[0] if racks[0] == racks[1] else f"{racks[0]} and {racks[1]}"
        ctx.out.add(
            "spof-feed",
            f"{network}: leaf pair {first} and {second} run on power feed {feed} only "
            f"(rack {where}): that feed's failure takes down both leaves of the pair",
            ids=[f"node:{first}", f"node:{second}"],
            suggestion="feed the pair's racks from two feeds (power.feeds: [A, B], or "
            "power.by_rack_kind.network) or place its two leaves in racks on different feeds",
            example=f"{first} / {second}",
        )


@register(stage="fabric", order=946, codes=("spof-dual-homed",))
def dual_homed_one_switch(ctx: Context) -> None:
    """A node with two or more uplinks that all reach one switch."""
    fabric = ctx.fabric
    role = fabric.node_role
    a, b = fabric.link_a, fabric.link_b
    managers = role[a] == ROLE["manager"]
    if managers.any():
        nodes, far = a[managers], b[managers]
        count = np.bincount(nodes, minlength=fabric.node_count)
        lo = np.full(fabric.node_count, np.iinfo(np.int64).max, dtype=np.int64)
        hi = np.full(fabric.node_count, -1, dtype=np.int64)
        np.minimum.at(lo, nodes, far)
        np.maximum.at(hi, nodes, far)
        single = np.flatnonzero((count >= 2) & (lo == hi))
        for node in single.tolist():
            switch = fabric.node_name[int(lo[node])]
            ctx.out.add(
                "spof-dual-homed",
                f"fabric manager {fabric.node_name[node]}: its {int(count[node])} uplinks all "
                f"reach {switch}, so that one switch cuts it off",
                nodes=[node],
                links=np.flatnonzero(managers & (a == node)),
                suggestion="cable the second uplink to another leaf",
            )
    index = _elements(ctx)
    if index is None:
        return
    homes: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    for i, link in enumerate(index.elements.links):
        network = link.network
        if link.group != "node-leaf" or index.leaves.get(link.a_device) is not None:
            continue
        if index.leaves.get(link.b_device) != network:
            continue
        if index.settings.get(network, {}).get("dual_homed"):
            continue  # network-dual-homing-single-leaf reports these
        homes[(network, link.a_device)].append((i, link.b_device))
    by_message: dict[tuple[str, str], list[str]] = defaultdict(list)
    for (network, node), ends in sorted(homes.items()):
        leaves = {leaf for _, leaf in ends}
        if len(ends) >= 2 and len(leaves) == 1:
            by_message[(network, len(ends))].extend(
                [f"node:{node}", *(f"netlink:{i}" for i, _ in ends)]
            )
    for (network, uplinks), ids in sorted(by_message.items()):
        ctx.out.add(
            "spof-dual-homed",
            f"{network}: nodes with {uplinks} uplinks all on one leaf: that leaf cuts them off",
            ids=ids,
            suggestion=f"set networks.{network}.dual_homed (uplinks on the two leaves of a "
            "leaf pair) or cable the second uplink to another leaf",
        )


@register(stage="fabric", order=947, codes=("spof-plane-rack",))
def plane_upper_tier_one_rack(ctx: Context) -> None:
    """Every spine (or core) of a plane in one rack."""
    fabric = ctx.fabric
    if fabric.node_rack is None or not fabric.racks:
        return
    planes = fabric.settings.planes
    for tier in ("spine", "core"):
        members = np.flatnonzero(fabric.node_role == ROLE[tier])
        if members.size < 2:
            continue  # one switch: spof-single-spine
        plane_of = fabric.node_plane[members] if planes > 1 else np.zeros(members.size, int)
        for plane in np.unique(plane_of).tolist():
            mine = members[plane_of == plane]
            racks = np.unique(fabric.node_rack[mine])
            if mine.size < 2 or racks.size != 1 or racks[0] < 0:
                continue
            rack = fabric.racks[int(racks[0])]["name"]
            label = f"plane {plane + 1}" if planes > 1 else "the fabric"
            ctx.out.add(
                "spof-plane-rack",
                f"every {tier} of {label} ({mine.size}) stands in rack {rack}: that rack, its "
                f"PDUs or its row takes the whole {tier} tier of {label}",
                nodes=mine,
                suggestion=f"spread the {tier}s over two or more racks (layout: fewer "
                "switches per network rack, or another row)",
                example=rack,
            )


__all__ = ["CODES", "dual_homed_one_switch", "leaf_pair_feeds", "plane_upper_tier_one_rack"]
