"""Capacity and redundancy of the tiers: built oversubscription against the design, ECMP
balance, and single points of failure."""

from __future__ import annotations

import numpy as np

from planner.analyses.validate.context import Context
from planner.analyses.validate.parts import num
from planner.analyses.validate.registry import register
from planner.domain.arrays import unique as unique_sorted
from planner.domain.fabric import ROLE

RATIO_TOLERANCE = 1e-3


@register(
    stage="fabric",
    order=140,
    codes=("leaf-no-uplinks", "oversubscription-above-design", "oversubscription-below-design"),
)
def oversubscription(ctx: Context) -> None:
    """Each leaf and spine has uplinks; its downlink:uplink capacity is the design's
    (``fabric.info["oversubscription"]``)."""
    if ctx.wiring is None:
        return
    tiers = ctx.links_by_tier
    fabric = ctx.fabric
    info = fabric.info
    n = fabric.node_count
    speed = fabric.link_speed_gbps.astype(np.float64)
    design = info.get("oversubscription") or {}
    for role, down_tier, up_tier in (
        ("leaf", "server-leaf", "leaf-spine"),
        ("spine", "leaf-spine", "spine-core"),
    ):
        down_links, up_links = tiers[down_tier], tiers[up_tier]
        nodes = fabric.nodes_with_role(role)
        if not (nodes.size and down_links.size and up_links.size):
            continue  # nothing above this tier
        down = np.bincount(fabric.link_b[down_links], weights=speed[down_links], minlength=n)
        up = np.bincount(fabric.link_a[up_links], weights=speed[up_links], minlength=n)
        down, up = down[nodes], up[nodes]
        lonely = nodes[(up == 0) & (down > 0)]
        if lonely.size:
            ctx.out.add(
                "leaf-no-uplinks",
                f"{role} with downlinks but no uplinks: its servers reach nothing else",
                nodes=lonely,
            )
        target = num(design.get(role))
        if target is None:
            continue
        has = (up > 0) & (down > 0)
        ratio = np.divide(down, up, out=np.zeros_like(down), where=up > 0)
        above = nodes[has & (ratio > target * (1 + RATIO_TOLERANCE) + 1e-9)]
        if above.size:
            worst = float(ratio[has].max())
            ctx.out.add(
                "oversubscription-above-design",
                f"{role} downlink:uplink capacity reaches {worst:.3g}:1; the design "
                f"(fabric.info) is {target:g}:1",
                nodes=above,
                suggestion=f"add uplinks to these {role}s or move downlinks away",
            )
        elif has.any() and float(ratio[has].max()) < target * (1 - RATIO_TOLERANCE):
            ctx.out.add(
                "oversubscription-below-design",
                f"every {role} is below the design {target:g}:1 (built at most "
                f"{float(ratio[has].max()):.3g}:1)",
                nodes=nodes[has][:1],
            )


@register(
    stage="fabric",
    order=150,
    codes=("ecmp-unbalanced", "ecmp-incomplete", "spof-single-uplink", "spof-single-spine"),
)
def ecmp_balance(ctx: Context) -> None:
    """ECMP: a leaf has equal links to every spine of its pod; a spine to every core of
    its group (the pod's / group's switch set = those its peers reach)."""
    if ctx.wiring is None:
        return
    tiers = ctx.links_by_tier
    fabric = ctx.fabric
    n = fabric.node_count
    for lower_role, tier, upper_role in (
        ("leaf", "leaf-spine", "spine"),
        ("spine", "spine-core", "core"),
    ):
        links = tiers[tier]
        if not links.size:
            continue
        lower = fabric.link_a[links].astype(np.int64)
        upper = fabric.link_b[links].astype(np.int64)
        pairs, counts = np.unique(lower * n + upper, return_counts=True)
        pair_lower, pair_upper = pairs // n, pairs % n
        nodes, start, distinct = np.unique(pair_lower, return_index=True, return_counts=True)
        low = np.minimum.reduceat(counts, start)
        high = np.maximum.reduceat(counts, start)
        unbalanced = nodes[low != high]
        if unbalanced.size:
            ctx.out.add(
                "ecmp-unbalanced",
                f"a {lower_role} has unequal numbers of links to the {upper_role}s it "
                "reaches (ECMP spreads flows evenly, so the busiest link limits it)",
                nodes=unbalanced,
                suggestion=f"give each {lower_role} the same number of links to each "
                f"{upper_role} of its pod or group",
            )
        pod = fabric.node_plane[nodes].astype(np.int64) * (n + 1) + (
            fabric.node_group[nodes].astype(np.int64) + 1
        )
        pod_of_pair = np.repeat(pod, distinct)
        pod_pairs = unique_sorted(pod_of_pair * n + pair_upper)
        pods, pod_size = np.unique(pod_pairs // n, return_counts=True)
        size = pod_size[np.searchsorted(pods, pod)]
        incomplete = nodes[distinct < size]
        if incomplete.size:
            ctx.out.add(
                "ecmp-incomplete",
                f"a {lower_role} is not linked to every {upper_role} of its pod or group",
                nodes=incomplete,
            )
        single = nodes[distinct < 2]
        if single.size:
            ctx.out.add(
                "spof-single-uplink",
                f"a {lower_role} reaches one {upper_role} only: that {upper_role} or its "
                "links are a single point of failure",
                nodes=single,
            )
        lonely_pods = pods[pod_size < 2]
        if lonely_pods.size:
            members = nodes[np.isin(pod, lonely_pods)]
            ctx.out.add(
                "spof-single-spine",
                f"a pod or group has one {upper_role}: it is a single point of failure",
                nodes=unique_sorted(pair_upper[np.isin(pod_of_pair, lonely_pods)]),
                example=f"{fabric.node_name[int(members[0])]} and its peers",
            )


@register(stage="fabric", order=160, codes=("spof-server-single-leaf",))
def server_leaves(ctx: Context) -> None:
    """A server's rails do not all land on one leaf."""
    wiring = ctx.wiring
    if wiring is None:
        return
    links, a, b = wiring
    fabric = ctx.fabric
    n = fabric.node_count
    mask = (fabric.node_role[a] == ROLE["server"]) & (fabric.node_role[b] == ROLE["leaf"])
    if not mask.any():
        return
    pairs = unique_sorted(a[mask] * n + b[mask])
    servers, distinct = np.unique(pairs // n, return_counts=True)
    per_server = np.bincount(a[mask], minlength=n)[servers]
    single = servers[(distinct == 1) & (per_server > 1)]
    if single.size:
        ctx.out.add(
            "spof-server-single-leaf",
            "all of a server's rails land on one leaf: that leaf is a single point of "
            "failure for its GPUs",
            nodes=single,
        )
