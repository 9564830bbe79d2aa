"""Reachability: every server's compute ports linked, and every GPU pair connected in each
plane (NumPy union-find)."""

from __future__ import annotations

import numpy as np

from planner.analyses.validate.context import Context
from planner.analyses.validate.registry import register
from planner.domain.arrays import unique as unique_sorted


@register(stage="fabric", order=170, codes=("server-ports-unconnected", "gpus-disconnected"))
def gpu_reachability(ctx: Context) -> None:
    """Servers' ports are all linked and every server reaches the others in each plane."""
    wiring = ctx.wiring
    if wiring is None:
        return
    links, a, b = wiring
    fabric = ctx.fabric
    n = fabric.node_count
    servers = fabric.nodes_with_role("server")
    if not servers.size:
        return
    ends = np.bincount(np.concatenate([a, b]), minlength=n)
    ports = fabric.node_ports.astype(np.int64)
    short = servers[ends[servers] < ports[servers]]
    if short.size:
        ctx.out.add(
            "server-ports-unconnected",
            "a server has compute ports without a link: the GPUs behind them cannot reach "
            "the fabric",
            nodes=short,
        )
    planes = unique_sorted(fabric.link_plane[links])
    disconnected = []
    for plane in planes:
        sel = fabric.link_plane[links] == plane
        parent = components(n, a[sel], b[sel])
        present = np.zeros(n, dtype=bool)
        present[a[sel]] = True
        present[b[sel]] = True
        members = servers[present[servers]]
        if members.size < 2:
            continue
        labels = parent[members]
        values, counts = np.unique(labels, return_counts=True)
        if values.size > 1:
            main = values[np.argmax(counts)]
            disconnected.append(members[labels != main])
    if disconnected:
        ctx.out.add(
            "gpus-disconnected",
            "some servers cannot reach the others through their plane: not every GPU pair "
            "is connected",
            nodes=unique_sorted(np.concatenate(disconnected)),
        )


def components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Union-find with NumPy: each node's root (the smallest node of its component).

    Roots hook onto the smaller root of every link, then paths are compressed; a Clos has a
    small diameter, so few rounds are needed.

    Examples
    --------
    >>> components(5, np.array([0, 3]), np.array([1, 4])).tolist()
    [0, 0, 2, 3, 3]
    """
    parent = np.arange(n, dtype=np.int64)
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    while True:
        pa, pb = parent[a], parent[b]
        differ = pa != pb
        if not differ.any():
            return parent
        low = np.minimum(pa[differ], pb[differ])
        high = np.maximum(pa[differ], pb[differ])
        np.minimum.at(parent, high, low)
        while True:
            jumped = parent[parent]
            if np.array_equal(jumped, parent):
                break
            parent = jumped
