"""The directed links and GPU endpoints a flow simulation runs on.

:class:`Network` compiles a :class:`~planner.domain.fabric.Fabric` into directed links. Every
fabric link ``i`` becomes ``link:<i>:up`` (lower-tier end ``a`` to upper end ``b``) and
``link:<i>:down``, each of capacity ``speed_gbps * 1e9`` bit/s. GPUs are numbered server by
server; a server's NIC links, in port order, are shared out evenly: with ``k`` NIC links per
GPU (a multi-plane fabric: one link per plane), GPU ``j`` owns links ``j*k .. j*k+k-1``, and
link ``p`` of a GPU is its *plane* ``p``. With ``scale_up_gbps`` every GPU also gets a
scale-up pair ``gpu:<g>:su-out`` / ``gpu:<g>:su-in`` (NVLink to the server's switch); GPUs of
one server then talk over it. Without it, they talk through their NICs and the fabric.

Every NIC link also has a *destination index*, the number static routing (d-mod-k) divides by
the next hops: NIC links numbered leaf by leaf (leaves in node order, each plane on its own), in
leaf port order within a leaf. An InfiniBand subnet manager routes each destination port (LID)
on its own, spreading the destinations over a switch's equal-cost ports ("each port has a
counter counting the number of target LIDs going through it ... the one with less previously
assigned ports is selected", OpenSM ``doc/current-routing.txt``, primary) and its fat-tree
engine orders hosts leaf by leaf (the ``opensm-ftree-ca-order.dump`` it writes, same file). A
server is not a destination: the 72 NICs of a GB300 NVL72 rack are 72 destinations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from planner.analyses.errors import JobInputError
from planner.domain.fabric import ROLE, Fabric

__all__ = ["Network"]


def _nic_links_differ(fabric: Fabric, servers: np.ndarray, counts: np.ndarray) -> JobInputError:
    """The error for servers with different numbers of NIC links, naming one of them."""
    values, seen = np.unique(counts, return_counts=True)
    usual = int(values[np.argmax(seen)])
    odd = np.flatnonzero(counts != usual)
    first = int(servers[odd[0]])
    have = int(counts[odd[0]])
    more = f" ({odd.size - 1:,} more servers differ too)" if odd.size > 1 else ""
    return JobInputError(
        f"server {fabric.node_name[first]} has {have} NIC link{'s' if have != 1 else ''} "
        f"while the others have {usual}{more}: every server needs the same number of NIC "
        "links to be simulated; run Validate to see the links at fault, then link or remove "
        "the server on the canvas",
        field="rails",
        element_ids=[f"node:{fabric.node_name[int(servers[i])]}" for i in odd[:50]],
    )


def _destination_index(leaves: np.ndarray, *orders: np.ndarray) -> np.ndarray:
    """The destination index of each NIC link (``leaves`` and ``orders``: GPUs x planes;
    module docstring): ``leaf number * most NIC links on a leaf + rank on its leaf``, leaves
    numbered in node order within their plane (a plane is a fabric of its own, with its own
    subnet manager), NIC links ranked on their leaf by ``orders`` in turn (the first one
    first). A leaf with fewer NIC links leaves the rest of its numbers unused, as OpenSM's
    fat-tree engine routes "dummy CAs" in place of the missing ones (``osm_ucast_ftree.c``,
    primary)."""
    shape = np.shape(leaves)
    plane = np.broadcast_to(np.arange(shape[1]), shape).ravel()
    leaves = np.asarray(leaves).ravel()
    order = np.lexsort([np.asarray(o).ravel() for o in reversed(orders)] + [leaves, plane])
    key = plane[order] * (int(leaves.max(initial=0)) + 1) + leaves[order]
    _, first, per_leaf = np.unique(key, return_index=True, return_counts=True)
    group = np.repeat(np.arange(first.size), per_leaf)
    plane_first = np.unique(plane[order][first], return_index=True)[1]  # first leaf of a plane
    number = group - plane_first[np.searchsorted(plane_first, group, side="right") - 1]
    rank = np.empty(leaves.size, dtype=np.int64)
    rank[order] = number * int(per_leaf.max(initial=0)) + np.arange(leaves.size) - first[group]
    return rank.reshape(shape)


@dataclass
class Network:
    """Directed links (columns) plus the GPU endpoints; see the module docstring.

    ``gpu_nic`` and ``gpu_leaf`` are the GPU's first NIC link (plane 0) and its leaf;
    ``gpu_nics`` and ``gpu_leaves`` (GPUs x planes) hold all of them. ``nic_gbps`` is the
    slowest GPU's NIC bandwidth, all its planes together.
    """

    node_count: int
    is_switch: np.ndarray  # per node
    link_from: np.ndarray  # per directed link: node index, -1 for a scale-up link
    link_to: np.ndarray
    capacity: np.ndarray  # bit/s
    alive: np.ndarray  # bool
    fabric_links: int  # directed links 2i (up) and 2i+1 (down) come from fabric link i
    gpu_server: np.ndarray  # node index of the GPU's server
    gpu_ordinal: np.ndarray  # server ordinal (0..servers-1)
    gpu_local: np.ndarray  # index inside the server
    gpu_nic: np.ndarray  # fabric link index of the GPU's first NIC link
    gpu_leaf: np.ndarray  # node index of that NIC's leaf
    gpus_per_server: int
    nic_gbps: float
    scale_up_gbps: float | None = None
    node_name: list[str] = field(default_factory=list)
    gpu_nics: np.ndarray | None = None  # GPUs x planes: fabric link of each NIC link
    gpu_leaves: np.ndarray | None = None  # GPUs x planes: leaf of each NIC link
    gpu_dest: np.ndarray | None = None  # GPUs x planes: destination index (module docstring)
    #: ``opensm`` routing's tables (:class:`~planner.analyses.flow.forwarding.ForwardingTables`)
    forwarding: object | None = None

    def __post_init__(self):
        if self.gpu_nics is None:
            self.gpu_nics = np.asarray(self.gpu_nic, dtype=np.int64).reshape(-1, 1)
        if self.gpu_leaves is None:
            self.gpu_leaves = np.asarray(self.gpu_leaf, dtype=np.int64).reshape(-1, 1)
        if self.gpu_dest is None:  # no leaf ports known: the NIC links' order stands for them
            self.gpu_dest = _destination_index(self.gpu_leaves, self.gpu_nics)

    @property
    def gpu_count(self) -> int:
        return int(self.gpu_server.shape[0])

    @property
    def link_count(self) -> int:
        return int(self.capacity.shape[0])

    @property
    def planes(self) -> int:
        """NIC links per GPU (the fabric's planes)."""
        return int(self.gpu_nics.shape[1])

    @classmethod
    def from_fabric(cls, fabric: Fabric, *, scale_up_gbps: float | None = None) -> Network:
        """Compile ``fabric``; see the module docstring.

        Raises
        ------
        JobInputError
            The fabric has no server with NIC links, servers have different numbers of NIC
            links, or their NIC links cannot be shared out evenly between their GPUs (a NIC
            link shared by several GPUs); the message names a server at fault.
        """
        n_links = fabric.link_count
        a = fabric.link_a.astype(np.int64)
        b = fabric.link_b.astype(np.int64)
        link_from = np.empty(2 * n_links, dtype=np.int64)
        link_to = np.empty(2 * n_links, dtype=np.int64)
        link_from[0::2], link_to[0::2] = a, b
        link_from[1::2], link_to[1::2] = b, a
        capacity = np.repeat(fabric.link_speed_gbps.astype(np.float64) * 1e9, 2)
        role = fabric.node_role
        is_switch = np.isin(role, [ROLE["leaf"], ROLE["spine"], ROLE["core"]])
        servers = fabric.nodes_with_role("server")
        ordinal = np.full(fabric.node_count, -1, dtype=np.int64)
        ordinal[servers] = np.arange(servers.size)
        nic = np.flatnonzero(ordinal[a] >= 0)
        nic = nic[np.lexsort((fabric.link_a_port[nic], ordinal[a[nic]]))]
        counts = np.bincount(ordinal[a[nic]], minlength=servers.size)
        if counts.size == 0 or not counts.max():
            raise JobInputError(
                "the fabric has no server linked to a leaf: add servers and their NIC links, "
                "then run the simulation again",
                field="servers",
            )
        if counts.min() != counts.max():
            raise _nic_links_differ(fabric, servers, counts)
        links_per_server = int(counts[0])
        gpus = int(fabric.info.get("gpus", servers.size * links_per_server))
        per_server = gpus // servers.size
        if gpus % servers.size or per_server == 0 or links_per_server % per_server:
            raise JobInputError(
                f"{gpus:,} GPUs on {servers.size:,} servers with {links_per_server} NIC links "
                "each: every GPU needs the same number of NIC links of its own; give each "
                f"server a multiple of {max(per_server, 1)} NIC links (run Validate to see "
                "the links)",
                field="rails",
            )
        nics = nic.reshape(gpus, links_per_server // per_server)
        gpu_server = a[nics[:, 0]]
        net = cls(
            node_count=fabric.node_count,
            is_switch=is_switch,
            link_from=link_from,
            link_to=link_to,
            capacity=capacity,
            alive=np.ones(2 * n_links, dtype=bool),
            fabric_links=n_links,
            gpu_server=gpu_server,
            gpu_ordinal=ordinal[gpu_server],
            gpu_local=np.tile(np.arange(per_server), servers.size),
            gpu_nic=nics[:, 0],
            gpu_leaf=b[nics[:, 0]],
            gpus_per_server=per_server,
            nic_gbps=float(fabric.link_speed_gbps[nics].astype(np.float64).sum(axis=1).min()),
            scale_up_gbps=scale_up_gbps,
            node_name=list(fabric.node_name),
            gpu_nics=nics,
            gpu_leaves=b[nics],
            gpu_dest=_destination_index(b[nics], fabric.link_b_port[nics], nics),
        )
        if scale_up_gbps is not None:
            net.link_from = np.concatenate([link_from, np.full(2 * gpus, -1)])
            net.link_to = np.concatenate([link_to, np.full(2 * gpus, -1)])
            net.capacity = np.concatenate([capacity, np.full(2 * gpus, scale_up_gbps * 1e9)])
            net.alive = np.ones(net.capacity.size, dtype=bool)
        return net

    # ids -------------------------------------------------------------------------------------
    def link_id(self, index: int) -> str:
        index = int(index)
        if index < 2 * self.fabric_links:
            return f"link:{index // 2}:{'up' if index % 2 == 0 else 'down'}"
        g, kind = divmod(index - 2 * self.fabric_links, 2)
        return f"gpu:{g}:{'su-out' if kind == 0 else 'su-in'}"

    def link_index(self, link_id: str) -> int:
        kind, number, direction = link_id.split(":")
        if kind == "link":
            return 2 * int(number) + (0 if direction == "up" else 1)
        return 2 * self.fabric_links + 2 * int(number) + (0 if direction == "su-out" else 1)

    def scale_up_out(self, gpus: np.ndarray) -> np.ndarray:
        return 2 * self.fabric_links + 2 * np.asarray(gpus, dtype=np.int64)

    # failures --------------------------------------------------------------------------------
    def with_failures(
        self, *, links=(), switches=(), random_links: int = 0, seed: int = 0
    ) -> Network:
        """A copy with fabric links failed (both directions): by index or id ``link:<i>``, all
        links of the named switches (names or node indices), and ``random_links`` random
        switch-to-switch links (seeded). Routes are recomputed from the surviving links."""
        alive = self.alive.copy()
        fabric_ids = []
        for link in links:
            fabric_ids.append(int(str(link).split(":")[1]) if isinstance(link, str) else link)
        names = {name: i for i, name in enumerate(self.node_name)}
        for switch in switches:
            node = names[switch] if isinstance(switch, str) else int(switch)
            ends = np.flatnonzero(self.link_from[: 2 * self.fabric_links : 2] == node)
            ends2 = np.flatnonzero(self.link_to[: 2 * self.fabric_links : 2] == node)
            fabric_ids.extend(np.concatenate([ends, ends2]).tolist())
        if random_links:
            up = np.arange(0, 2 * self.fabric_links, 2)
            fabric_only = up[
                self.is_switch[self.link_from[up]] & self.is_switch[self.link_to[up]] & alive[up]
            ]
            rng = np.random.default_rng(seed)
            chosen = rng.choice(fabric_only, size=random_links, replace=False) // 2
            fabric_ids.extend(chosen.tolist())
        ids = np.asarray(fabric_ids, dtype=np.int64)
        alive[2 * ids] = False
        alive[2 * ids + 1] = False
        copy = Network(**{k: getattr(self, k) for k in self.__dataclass_fields__})
        copy.alive = alive
        return copy

    def failed_links(self) -> list[str]:
        return [self.link_id(i) for i in np.flatnonzero(~self.alive)]
