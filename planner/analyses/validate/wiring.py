"""Wiring of the whole fabric: links that dangle or join the wrong roles, ports used twice,
out of range or beyond the model, and rail alignment of rail-optimized fabrics."""

from __future__ import annotations

import numpy as np

from planner.analyses.validate.context import Context
from planner.analyses.validate.registry import register
from planner.domain.arrays import unique as unique_sorted
from planner.domain.fabric import ROLE, SWITCH_ROLES, TIER
from planner.domain.names import end_name

TIER_ROLES = {  # tier -> (allowed a-end roles, b-end role)
    "server-leaf": ({"server", "manager"}, "leaf"),
    "leaf-spine": ({"leaf"}, "spine"),
    "spine-core": ({"spine"}, "core"),
}
SWITCH_ROLE_CODES = [ROLE[role] for role in SWITCH_ROLES]


@register(stage="fabric", order=100, codes=("dangling-link",))
def dangling_links(ctx: Context) -> None:
    """Links to a node that does not exist, or from a node to itself."""
    bad = np.flatnonzero(~ctx.valid)
    if bad.size:
        ctx.out.add(
            "dangling-link",
            "link to a node that does not exist, or from a node to itself",
            links=bad,
        )


@register(stage="fabric", order=110, codes=("link-roles-mismatch",))
def link_roles(ctx: Context) -> None:
    """The roles at a link's ends match its tier (a = lower tier)."""
    wiring = ctx.wiring
    if wiring is None:
        return
    links, a, b = wiring
    fabric = ctx.fabric
    role_a, role_b = fabric.node_role[a], fabric.node_role[b]
    tiers = fabric.link_tier[links]
    wrong = np.zeros(links.size, dtype=bool)
    for tier, (lower, upper) in TIER_ROLES.items():
        fits = np.isin(role_a, [ROLE[r] for r in lower]) & (role_b == ROLE[upper])
        wrong |= (tiers == TIER[tier]) & ~fits
    if wrong.any():
        ctx.out.add(
            "link-roles-mismatch",
            "the link's tier does not match the roles of its ends (a = lower tier)",
            links=links[wrong],
        )


@register(
    stage="fabric",
    order=120,
    codes=(
        "port-out-of-range",
        "port-used-twice",
        "too-many-links",
        "isolated-node",
        "ports-exceed-model",
    ),
)
def ports(ctx: Context) -> None:
    """Each port used once and within the device's ports; the model's radix at the link speed."""
    wiring = ctx.wiring
    if wiring is None:
        return
    links, a, b = wiring
    fabric = ctx.fabric
    n = fabric.node_count
    ports = fabric.node_ports.astype(np.int64)
    nodes = np.concatenate([a, b])
    port = np.concatenate([fabric.link_a_port[links], fabric.link_b_port[links]]).astype(np.int64)
    both = np.concatenate([links, links])
    out_of_range = (port < 0) | (port >= ports[nodes])
    if out_of_range.any():
        ctx.out.add(
            "port-out-of-range",
            "link on a port the device does not have (port number above its port count)",
            links=both[out_of_range],
            nodes=nodes[out_of_range],
        )
    width = int(max(port.max(initial=0), ports.max(initial=0))) + 2
    key = nodes * width + (port + 1)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    dup = np.zeros(key.size, dtype=bool)
    same = sorted_key[1:] == sorted_key[:-1]
    dup[order[1:][same]] = True
    dup[order[:-1][same]] = True
    if dup.any():
        ctx.out.add(
            "port-used-twice",
            "a port is used by two links",
            links=both[dup],
            nodes=unique_sorted(nodes[dup]),
        )
    ends = np.bincount(nodes, minlength=n)
    over = np.flatnonzero(ends > ports)
    if over.size:
        ctx.out.add("too-many-links", "more links than ports on a device", nodes=over)
    isolated = np.flatnonzero(ends == 0)
    if isolated.size:
        ctx.out.add("isolated-node", "node without any link", nodes=isolated)
    # Logical ports against the catalog model's ports at the node's slowest link speed (a
    # leaf numbers its ports at the slower of its down- and uplinks; a faster link takes
    # several of them).
    speed = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(speed, nodes, np.concatenate([fabric.link_speed_gbps[links]] * 2))
    speed[speed == np.iinfo(np.int64).max] = 0
    for model_index, slug in enumerate(fabric.models):
        model = ctx.facts.devices.get(slug)
        if model is None or model.category != "switch":
            continue
        members = np.flatnonzero(
            (fabric.node_model == model_index) & np.isin(fabric.node_role, SWITCH_ROLE_CODES)
        )
        for value in unique_sorted(speed[members]):
            if value <= 0:
                continue
            radix = model.radix_at(int(value))
            sel = members[(speed[members] == value) & (ports[members] > radix)]
            if radix and sel.size:
                ctx.out.add(
                    "ports-exceed-model",
                    f"{slug} has {radix} ports at {int(value)}G; the fabric gives it more",
                    nodes=sel,
                )


@register(stage="fabric", order=130, codes=("rail-mismatch",))
def rails(ctx: Context) -> None:
    """Rail-optimized: rail r of every server of an SU goes to that SU's rail-r leaf."""
    wiring = ctx.wiring
    if wiring is None:
        return
    links, a, b = wiring
    fabric = ctx.fabric
    if fabric.info.get("topology") != "rail-optimized":
        return
    planes = fabric.settings.planes
    server = (fabric.node_role[a] == ROLE["server"]) & (fabric.node_role[b] == ROLE["leaf"])
    if not server.any():
        return
    sl, sa, sb = links[server], a[server], b[server]
    port = fabric.link_a_port[sl].astype(np.int64)
    # A rack-scale system's port is (tray * rails + rail) * planes + plane.
    rails_per_unit = int(fabric.info.get("rails") or 0) or None
    rail, plane = port // planes, port % planes
    if rails_per_unit and (fabric.settings.rack_system or {}).get("compute_trays"):
        rail = rail % rails_per_unit
    wrong = (
        (fabric.node_rail[sb] != rail)
        | (fabric.node_su[sb] != fabric.node_su[sa])
        | (fabric.node_plane[sb] != plane)
    )
    if not wrong.any():
        return
    first = int(np.flatnonzero(wrong)[0])
    leaves = fabric.nodes_with_role("leaf")
    want = leaves[
        (fabric.node_rail[leaves] == rail[first])
        & (fabric.node_su[leaves] == fabric.node_su[sa[first]])
        & (fabric.node_plane[leaves] == plane[first])
    ]
    where = fabric.node_name[int(want[0])] if want.size else "its rail leaf"
    suggestion = (
        f"re-cable: {end_name(fabric, int(sa[first]), int(port[first]))} goes to "
        f"{fabric.node_name[int(sb[first])]}; it belongs on {where}"
    )
    ctx.out.add(
        "rail-mismatch",
        "a GPU's NIC lands on a leaf of another rail, SU or plane (rail-optimized: rail r of "
        "every server of an SU goes to that SU's rail-r leaf)",
        links=sl[wrong],
        nodes=unique_sorted(sa[wrong]),
        suggestion=suggestion,
    )
