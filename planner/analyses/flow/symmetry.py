"""Identical planes: simulate one, copy it to the others.

On a multi-plane fabric every flow that leaves its server runs as one sub-flow per plane
(:func:`~planner.analyses.flow.sub_flows`), all of the same size. The planes share no link,
so the max-min rates of one plane's sub-flows do not depend on the other planes'. When the
planes are identical (same switches and links in the same order, same speeds, same failed
links) and the routing treats them alike, every plane runs exactly as plane 0 does: the
simulation runs plane 0 (and the flows between GPUs of one server) and copies its finish
times, rates and link figures to the other planes' twins.

Routing modes that treat identical planes alike: ``rail`` (d-mod-k on the destination NIC's
index, numbered within its plane; next hops by switch, then link order), ``spraying`` (equal
split) and ``ib-ar`` (levelling each switch's own ports, groups in link order). ``ecmp`` and
``flowlet`` hash the switch's node number, which differs between planes, so their planes differ
and run in full.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from planner.analyses.flow.network import Network

__all__ = ["PLANE_SYMMETRIC_ROUTINGS", "plane_links", "twins"]

PLANE_SYMMETRIC_ROUTINGS = ("rail", "spraying", "ib-ar")


def plane_links(net: Network) -> np.ndarray | None:
    """The directed links of each plane in one order (row ``p``: plane ``p``; column ``i`` of
    every row is the same link in its plane), or None when the planes are not identical.

    Each plane is the set of switches joined to its leaves (the leaves of the GPUs' NIC
    links ``p``); the planes must be distinct components of the switch graph of the same
    size. Switches correspond in node order; then every GPU's leaf in plane ``p`` must be
    the image of its plane-0 leaf, the switch links taken in index order must join image
    switches, and links and NIC links must agree in speed and in being alive."""
    k = net.planes
    if k < 2:
        return None
    n = net.node_count
    fabric = np.arange(net.fabric_links)
    a, b = net.link_from[2 * fabric], net.link_to[2 * fabric]
    switch_link = fabric[net.is_switch[a] & net.is_switch[b]]
    graph = sp.csr_matrix(
        (np.ones(switch_link.size, dtype=np.int8), (a[switch_link], b[switch_link])),
        shape=(n, n),
    )
    _, label = csgraph.connected_components(graph, directed=False)
    leaves = net.gpu_leaves
    plane_label = label[leaves[0]]
    if not (label[leaves] == plane_label).all() or np.unique(plane_label).size != k:
        return None
    nodes = [np.flatnonzero(net.is_switch & (label == c)) for c in plane_label]
    if any(v.size != nodes[0].size for v in nodes):
        return None
    image = np.full((k, n), -1, dtype=np.int64)
    for p in range(k):
        image[p, nodes[0]] = nodes[p]
    if not (leaves == image[:, leaves[:, 0]].T).all():
        return None
    links_of = [switch_link[label[a[switch_link]] == c] for c in plane_label]
    if any(e.size != links_of[0].size for e in links_of):
        return None
    nics = net.gpu_nics
    rows = []
    for p in range(k):
        e = links_of[p]
        same = (image[p, a[links_of[0]]] == a[e]).all() and (image[p, b[links_of[0]]] == b[e]).all()
        if not same:
            return None
        fabric_links = np.concatenate([e, nics[:, p]])
        rows.append(np.stack([2 * fabric_links, 2 * fabric_links + 1], axis=1).ravel())
    out = np.stack(rows)
    if not (
        (net.capacity[out] == net.capacity[out[0]]).all()
        and (net.alive[out] == net.alive[out[0]]).all()
    ):
        return None
    return out


def twins(plane: np.ndarray, qp_scaling: int) -> np.ndarray:
    """Each sub-flow's twin on plane 0 (itself there): sub-flows of one flow come plane by
    plane, each plane's ``qp_scaling`` queue pairs together (:func:`sub_flows`)."""
    return np.arange(plane.size) - plane * qp_scaling
