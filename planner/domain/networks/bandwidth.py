"""Storage read bandwidth per node: what a storage (or converged) leaf-spine carries, by tier.

Every node that reads at once (``concurrent_readers``, the first nodes in node order) reads
from every storage-array port (a striped, parallel file system). Each tier's figure is the
rate per node that tier allows, in Gb/s (gigabits per second, like link speeds) and in GB/s
(10^9 bytes per second: Gb/s / 8, eight bits per byte). Line rates only: protocol overhead
(headers, encoding, RDMA or NFS framing) is not modelled, no source gives it for this fabric,
so real reads land below these figures.

Tiers, from the nodes to the storage arrays:

- ``node ports``: a node's ``ports_per_node`` x ``speed_gbps``;
- ``node-leaf uplinks``: a node leaf's uplinks shared by the readers' ports on it, each port
  at most its own speed (the worst-served reader; leaves are filled as
  :func:`~planner.domain.networks.storage.leaf_spine_network` fills them, the port-0s of
  every node first);
- ``storage-leaf uplinks``: every storage leaf's uplinks (sized 1:1 with the arrays' ports)
  shared by all readers;
- ``storage-array ports``: ``storage_ports`` x ``storage_port_speed_gbps`` shared by all
  readers.

The spines carry every leaf uplink on a port of their own (a two-tier leaf-spine, each leaf
spread evenly over the spines), so they add no limit of their own beyond the leaf uplinks.
The carried rate is the smallest tier: under max-min fair sharing the worst-served reader gets
exactly that when each leaf's uplinks divide evenly over the spines (the flow simulation's
``storage-read`` traffic reproduces it with adaptive routing); otherwise the uplink figures are
upper bounds (``exact`` False), as traffic spread evenly over the spines fills first the
spines with fewer links to a leaf.

Nothing here imports Django.

Examples
--------
The NVIDIA DGX SuperPOD H100 RA's 4 SU storage fabric (127 nodes, 2 x 400G each, 8 node
leaves of 32 ports with 24 uplinks, 4 storage leaves with 12 uplinks each, 96 x 200G
storage-array ports), every node reading at once:

>>> bw = read_bandwidth(network="storage", hosts=127, ports_per_node=2, speed_gbps=400,
...     leaf_loads=[32] * 7 + [30], node_uplinks=24, storage_ports=96,
...     storage_port_speed_gbps=200, storage_uplinks=48, asked_gbytes_per_node=40,
...     readers="all")
>>> round(bw.carried_gbytes_per_node, 2), bw.bottleneck, bw.ok
(18.9, ('storage-leaf uplinks', 'storage-array ports'), False)
>>> round(bw.alone_gbytes_per_node, 2)
100.0
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

BITS_PER_BYTE = 8
#: Figures within this relative distance of the smallest are bottlenecks too (ties: a 1:1
#: storage leaf's uplinks equal its arrays' ports).
TIE_RTOL = 1e-9

# The reference figure (DGX-H100/H200 default of ``read_gbytes_per_node``): NVIDIA DGX
# SuperPOD H100 reference architecture RA-11333-001 V11 (2023-09-22), storage section: "Using
# the storage fabric on the DGX SuperPOD, a GDS-enabled application should be able to read
# data at over 40 GBps" (read in a copy of the RA's page, cidian.kuaisou.com/dgx-superpod-
# reference-architecture-dgx-h100, 2026). The RA speaks of one application; that it means one
# node reading (``concurrent_readers`` 1) is our reading of it (inferred).
RA_READ_GBYTES_PER_NODE = 40
RA_READ_SOURCE = (
    "NVIDIA DGX SuperPOD H100 RA-11333-001 V11, storage: 'a GDS-enabled application should "
    "be able to read data at over 40 GBps' (one node reading: inferred)"
)

TIERS = ("node ports", "node-leaf uplinks", "storage-leaf uplinks", "storage-array ports")
#: The devices that each tier's links leave from (roles of the network's elements).
TIER_ROLES = {
    "node ports": ("node",),
    "node-leaf uplinks": ("leaf",),
    "storage-leaf uplinks": ("storage-leaf",),
    "storage-array ports": ("storage-array",),
}


def _nodes(count: int) -> str:
    return "1 node" if count == 1 else f"{count:,} nodes"


def gbytes(gbps: float) -> float:
    """GB/s (10^9 bytes a second) from Gb/s: eight bits per byte.

    >>> gbytes(400)
    50.0
    """
    return gbps / BITS_PER_BYTE


@dataclass(frozen=True)
class TierRate:
    """One tier: the read rate per node it allows (Gb/s) and what it is made of."""

    tier: str
    gbps_per_node: float
    capacity_gbps: float  # the tier's whole capacity toward the readers
    rule: str  # how the figure is made, in words

    @property
    def gbytes_per_node(self) -> float:
        return gbytes(self.gbps_per_node)

    def as_dict(self) -> dict:
        return {
            "tier": self.tier,
            "gbps_per_node": self.gbps_per_node,
            "gbytes_per_node": self.gbytes_per_node,
            "capacity_gbps": self.capacity_gbps,
            "rule": self.rule,
        }


@dataclass(frozen=True)
class StorageBandwidth:
    """What a storage network carries per reading node, against what the spec asks.

    ``tiers`` is for ``readers`` nodes reading at once; ``alone_gbps_per_node`` for one node
    reading alone and ``all_gbps_per_node`` for every node at once (shown whatever
    ``readers`` is). ``asked_gbytes_per_node`` None: nothing asked, nothing checked.
    """

    network: str
    nodes: int
    readers: int
    tiers: tuple[TierRate, ...]
    alone_gbps_per_node: float
    all_gbps_per_node: float
    asked_gbytes_per_node: float | None = None
    source: str = ""
    all_bottleneck: tuple[str, ...] = ()  # the limiting tiers with every node reading
    even_uplinks: bool = True  # every leaf's uplinks divide evenly over the spines

    @property
    def field(self) -> str:
        return f"networks.{self.network}.read_gbytes_per_node"

    @property
    def carried_gbps_per_node(self) -> float:
        return min((t.gbps_per_node for t in self.tiers), default=0.0)

    @property
    def carried_gbytes_per_node(self) -> float:
        return gbytes(self.carried_gbps_per_node)

    @property
    def alone_gbytes_per_node(self) -> float:
        return gbytes(self.alone_gbps_per_node)

    @property
    def all_gbytes_per_node(self) -> float:
        return gbytes(self.all_gbps_per_node)

    @property
    def bottleneck(self) -> tuple[str, ...]:
        """The tiers whose figure is the smallest (several on a tie)."""
        return limiting(self.tiers)

    @property
    def ok(self) -> bool:
        """Nothing asked, or the carried rate reaches it."""
        if self.asked_gbytes_per_node is None:
            return True
        return self.carried_gbytes_per_node >= self.asked_gbytes_per_node * (1 - TIE_RTOL)

    def tier(self, name: str) -> TierRate | None:
        return next((t for t in self.tiers if t.tier == name), None)

    def as_dict(self) -> dict:
        """JSON-ready: the summary's ``networks.<name>.bandwidth``."""
        return {
            "field": self.field,
            "asked_gbytes_per_node": self.asked_gbytes_per_node,
            "asked_source": self.source,
            "readers": self.readers,
            "nodes": self.nodes,
            "carried_gbps_per_node": self.carried_gbps_per_node,
            "carried_gbytes_per_node": self.carried_gbytes_per_node,
            "bottleneck": list(self.bottleneck),
            "ok": self.ok,
            "alone_gbytes_per_node": self.alone_gbytes_per_node,
            "all_gbytes_per_node": self.all_gbytes_per_node,
            "all_bottleneck": list(self.all_bottleneck),
            "tiers": [t.as_dict() for t in self.tiers],
            "exact": self.even_uplinks,
            "note": (
                ""
                if self.even_uplinks
                else "an upper bound: a leaf's uplinks do not divide evenly over the spines, "
                "so traffic spread evenly over the spines fills the spines with fewer links to "
                "a leaf first (the storage-read simulation shows by how much)"
            ),
            "units": "GB/s = 10^9 bytes/s = Gb/s / 8; line rate, protocol overhead not modelled",
        }


def limiting(tiers) -> tuple[str, ...]:
    """The tiers whose figure is the smallest (several on a tie). The node-leaf uplinks are
    left out when they merely equal the node ports (a reading port gets at most its own
    speed there: the ports limit, not the uplinks).
    """
    if not tiers:
        return ()
    low = min(t.gbps_per_node for t in tiers)
    out = [t.tier for t in tiers if t.gbps_per_node <= low * (1 + TIE_RTOL) + 1e-12]
    if "node ports" in out and "node-leaf uplinks" in out:
        out.remove("node-leaf uplinks")
    return tuple(out)


def leaf_of_port(leaf_loads: list[int], hosts: int, node: int, port: int) -> int:
    """The node leaf of ``port`` of ``node``: ports are filled leaf by leaf in the order
    port 0 of every node, then port 1 of every node, ... (``leaf_loads`` ports per leaf).

    >>> leaf_of_port([32] * 7 + [30], 127, 0, 0), leaf_of_port([32] * 7 + [30], 127, 0, 1)
    (0, 3)
    """
    index = port * hosts + node
    ends = _cumulative(leaf_loads)
    return bisect.bisect_right(ends, index)


def _cumulative(loads: list[int]) -> list[int]:
    out, total = [], 0
    for load in loads:
        total += load
        out.append(total)
    return out


def _node_leaf_rate(
    *,
    hosts: int,
    readers: int,
    ports_per_node: int,
    speed_gbps: float,
    leaf_loads: list[int],
    node_uplinks: int,
) -> float:
    """The worst reader's rate through its node leaves' uplinks (Gb/s)."""
    ends = _cumulative(leaf_loads)
    on_leaf = [0] * len(leaf_loads)
    where: list[list[int]] = []
    for node in range(readers):
        leaves = [bisect.bisect_right(ends, p * hosts + node) for p in range(ports_per_node)]
        where.append(leaves)
        for leaf in leaves:
            on_leaf[leaf] += 1
    uplink_gbps = node_uplinks * speed_gbps
    share = [min(speed_gbps, uplink_gbps / n) if n else speed_gbps for n in on_leaf]
    return min((sum(share[leaf] for leaf in leaves) for leaves in where), default=0.0)


def read_bandwidth(
    *,
    network: str,
    hosts: int,
    ports_per_node: int,
    speed_gbps: float,
    leaf_loads: list[int],
    node_uplinks: int,
    storage_ports: int,
    storage_port_speed_gbps: float,
    storage_uplinks: int,
    asked_gbytes_per_node: float | None = None,
    readers: int | str = "all",
    source: str = "",
    even_uplinks: bool = True,
) -> StorageBandwidth:
    """The read rate per node each tier of a leaf-spine storage network allows.

    Parameters
    ----------
    network : str
        ``storage`` or ``converged`` (names the spec field).
    hosts : int
        Nodes on the network.
    ports_per_node, speed_gbps : int, float
        Each node's ports and their speed (Gb/s).
    leaf_loads : list of int
        Node ports on each node leaf, in fill order.
    node_uplinks : int
        Uplinks of each node leaf at ``speed_gbps`` (0: a single leaf, nothing above it).
    storage_ports, storage_port_speed_gbps : int, float
        The storage arrays' ports and their speed (Gb/s).
    storage_uplinks : int
        Uplinks of all storage leaves together at ``speed_gbps`` (0 with no storage leaves
        or a single leaf).
    asked_gbytes_per_node : float, optional
        The rate asked per reading node (GB/s); None asks nothing.
    readers : int or ``"all"``
        Nodes reading at once (the first ones in node order).
    source : str
        Where the asked figure comes from (a default's source), for the summary.
    even_uplinks : bool
        Every leaf's uplinks divide evenly over the spines. When not, the uplink figures are
        upper bounds (they pool a leaf's uplinks; spreading evenly over the spines does not).

    Returns
    -------
    StorageBandwidth

    Raises
    ------
    ValueError
        ``readers`` is not ``"all"`` or a whole number from 1 to ``hosts``.

    Long because: its docstring documents a dozen parameters, and its nested helper computes
    every tier's rate for a count of readers, read for the readers asked, one reader alone and
    every node.
    """
    if readers == "all":
        readers = hosts
    if isinstance(readers, bool) or not isinstance(readers, int) or not 1 <= readers <= hosts:
        raise ValueError(f"{readers!r}: 'all' or a whole number of nodes from 1 to {hosts}")

    def tiers_for(count: int) -> tuple[TierRate, ...]:
        out = [
            TierRate(
                "node ports",
                ports_per_node * speed_gbps,
                count * ports_per_node * speed_gbps,
                f"{ports_per_node} x {speed_gbps:g}G per node",
            )
        ]
        if node_uplinks and storage_uplinks:
            out.append(
                TierRate(
                    "node-leaf uplinks",
                    _node_leaf_rate(
                        hosts=hosts,
                        readers=count,
                        ports_per_node=ports_per_node,
                        speed_gbps=speed_gbps,
                        leaf_loads=leaf_loads,
                        node_uplinks=node_uplinks,
                    ),
                    len(leaf_loads) * node_uplinks * speed_gbps,
                    f"{node_uplinks} x {speed_gbps:g}G uplinks per node leaf shared by the "
                    "reading ports on it (the worst-served node)",
                )
            )
            out.append(
                TierRate(
                    "storage-leaf uplinks",
                    storage_uplinks * speed_gbps / count,
                    storage_uplinks * speed_gbps,
                    f"{storage_uplinks} x {speed_gbps:g}G storage-leaf uplinks / {_nodes(count)}",
                )
            )
        out.append(
            TierRate(
                "storage-array ports",
                storage_ports * storage_port_speed_gbps / count,
                storage_ports * storage_port_speed_gbps,
                f"{storage_ports} x {storage_port_speed_gbps:g}G storage-array ports / "
                f"{_nodes(count)}",
            )
        )
        return tuple(out)

    def low(tiers) -> float:
        return min(t.gbps_per_node for t in tiers)

    every = tiers_for(hosts)
    return StorageBandwidth(
        network=network,
        nodes=hosts,
        readers=readers,
        tiers=tiers_for(readers),
        alone_gbps_per_node=low(tiers_for(1)),
        all_gbps_per_node=low(every),
        all_bottleneck=limiting(every),
        even_uplinks=even_uplinks,
        asked_gbytes_per_node=(
            None if asked_gbytes_per_node is None else float(asked_gbytes_per_node)
        ),
        source=source,
    )


def ports_for(asked_gbytes_per_node: float, readers: int, port_speed_gbps: float) -> int:
    """Storage-array ports at ``port_speed_gbps`` that carry ``asked_gbytes_per_node`` to
    each of ``readers`` nodes at once.

    >>> ports_for(40, 127, 200)
    204
    """
    return math.ceil(asked_gbytes_per_node * BITS_PER_BYTE * readers / port_speed_gbps - 1e-9)


__all__ = [
    "BITS_PER_BYTE",
    "RA_READ_GBYTES_PER_NODE",
    "RA_READ_SOURCE",
    "TIERS",
    "TIER_ROLES",
    "StorageBandwidth",
    "TierRate",
    "gbytes",
    "leaf_of_port",
    "limiting",
    "ports_for",
    "read_bandwidth",
]
