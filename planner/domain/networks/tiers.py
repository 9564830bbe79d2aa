"""Three-tier leaf-spine-core sizing shared by the cluster networks that outgrow two tiers.

Storage, converged and in-band networks of a few SUs are two tiers (NVIDIA's RAs); a cluster
of thousands of nodes needs pods of leaves under their own spines and cores above the spines.
The rule here is the standard folded Clos (inferred, not a published storage or management
design). Nothing here imports Django.
"""

from __future__ import annotations

from planner.domain.fabric import FabricError
from planner.domain.networks.common import ceil_div, spread

MIN_CORES = 2


def spread_uplinks(uplinks: list[int], switches: int) -> list[int]:
    """Ports used per upper switch when each lower switch's uplinks go round-robin over them,
    each starting where the previous one stopped (so loads differ by at most one)."""
    used = [0] * switches
    offset = 0
    for up in uplinks:
        for k in range(up):
            used[(offset + k) % switches] += 1
        offset += up
    return used


def three_tiers(
    where: str,
    name: str,
    leaf_uplinks: list[int],
    customer_uplinks: int,
    spine: str,
    radix: int,
    *,
    unit: int = 1,
) -> tuple[list[int], int, list[int], list[int], list[int]]:
    """Pods of leaves under their own spines, and the spines 1:1 under cores.

    The standard folded Clos (inferred, not a published storage design): a pod has as many
    spines as a leaf has uplinks (one link from each leaf to each spine of its pod); the
    leaves are spread evenly over the fewest pods whose spines' downlinks fit in half their
    ports; every spine takes as many core links as it has downlinks (1:1); spine ``j`` of
    every pod goes to core group ``j``, whose cores are the fewest, at least 2, that take
    its spines' uplinks, each spine spread evenly over its group. Customer uplinks land on
    the cores.

    ``unit`` leaves stay in one pod (2: an MLAG leaf pair).

    Returns
    -------
    tuple
        ``(leaves per pod, spines per pod, ports used per spine, ports used per core, cores per
        group)``; spines in pod order, cores in group order.

    Raises
    ------
    FabricError
        ``networks.<name>.spine``: a core group needs more cores than a spine has uplinks (a
        fourth tier). The links that land on the cores (``customer_uplinks``) add cores to the
        groups with the fewest until they fit.
    """
    per_pod = max(leaf_uplinks)
    half = radix // 2
    pod_count = max(1, ceil_div(sum(leaf_uplinks), per_pod * half))  # a lower bound
    while True:
        sizes = [size * unit for size in spread(len(leaf_uplinks) // unit, pod_count)]
        pods, start = [], 0
        for size in sizes:
            pods.append(leaf_uplinks[start : start + size])
            start += size
        downs = [spread_uplinks(pod, per_pod) for pod in pods]
        if max(max(d) for d in downs) <= half or pod_count >= len(leaf_uplinks) // unit:
            break
        pod_count += 1
    groups = [[down[group] for down in downs if down[group]] for group in range(per_pod)]
    groups = [ups for ups in groups if ups]
    counts = []
    for ups in groups:
        cores = max(MIN_CORES, ceil_div(sum(ups), radix))
        while max(spread_uplinks(ups, cores)) > radix:
            cores += 1
        counts.append(cores)

    def free_ports() -> int:
        return sum(c * radix - sum(ups) for c, ups in zip(counts, groups, strict=True))

    while free_ports() < customer_uplinks:  # room for the links that land on the cores
        smallest = min(range(len(groups)), key=lambda g: counts[g])
        counts[smallest] += 1
    for ups, cores in zip(groups, counts, strict=True):
        if min(ups) < cores:
            raise FabricError(
                f"{where}.spine: {cores} {spine} cores per spine group are needed, more than "
                f"a spine's {min(ups)} uplinks reach; a four-tier {name} fabric is not generated",
                field=f"{where}.spine",
            )
    core_ports = [
        load for ups, c in zip(groups, counts, strict=True) for load in spread_uplinks(ups, c)
    ]
    left = customer_uplinks
    while left:  # the emptiest core first
        index = min(range(len(core_ports)), key=core_ports.__getitem__)
        core_ports[index] += 1
        left -= 1
    spine_used = [2 * load for down in downs for load in down]
    return [len(pod) for pod in pods], per_pod, spine_used, core_ports, counts


__all__ = ["spread_uplinks", "three_tiers"]
