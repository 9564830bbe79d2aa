"""Where congestion would spread: hot ports, and the links lossless flow control pauses.

:func:`congestion_tree` finds the *hot ports* of a run (switch egress links offered more than
their capacity) and, for each, its *congestion tree*: the links upstream of the hot port that
carry a flow to it, each with its distance in hops. Under lossless flow control these are the
links a pause spreads to; under lossy or semi-lossless operation nothing spreads.

Model and assumptions (fluid, like the rest of the package):

* **Offered load.** The flows that start first (the earliest start time of the run) each send
  at their NIC link's line rate, shared equally by the flows leaving that NIC link, along the
  routes the simulation uses (fractions included). A switch egress link offered more than its
  capacity is a hot port: its queue grows until end-to-end congestion control (DCQCN for
  RoCE) slows the senders. The max-min rates of the simulation are where that control
  settles; the tree is where the queue builds before it does.
* **No buffer dynamics.** No buffer sizes, thresholds, pause timers or transient: a hot port's
  queue is taken to reach the pause threshold (xoff), and a paused link's sender to fill in
  turn. How long a pause lasts, and whether it clears before it spreads, is not modelled.
* **Lossless** (PFC, or InfiniBand's credit-based link-level flow control): a switch stops the
  upstream link the hot port's traffic arrives on. A pause stops the whole priority (or
  virtual lane) on that link, not one flow, so it blocks whatever is queued behind
  (head-of-line blocking); the paused sender's queue fills and it pauses its own upstream
  links. Pause spreads to every upstream link carrying a flow to the hot port, hop by hop back
  to the senders' NICs. Flows that cross a paused link without going to the hot port are its
  *victims*: slowed by congestion that is not theirs.
* **Semi-lossless** (NVIDIA Onyx: "pause rx compliant, no pause propagation"): switches obey
  pause frames from hosts but do not send their own, so a switch's hot port spreads nothing.
* **Lossy** (ECN only): the hot port marks ECN (and drops when its buffer overflows); nothing
  spreads.

Sources: Cisco Nexus 9000 QoS guide, "Configuring Priority Flow Control": pause frames "are
only local to the specific link but when traffic is suspended the congestion can cause PFC
Pause frames to be generated on other links spreading the congestion"
(https://cisco.com/c/en/us/td/docs/dcn/nx-os/nexus9000/102x/configuration/qos/cisco-nexus-9000-nx-os-quality-of-service-configuration-guide-102x/m-configuring-priority-flow-control.html,
primary); NVIDIA Onyx PFC watchdog: buffers "fill up not only for the target switch, but also
on all switches with problematic port queues in the traffic forwarding path ... on all switch
ports along the path to the traffic source"
(https://docs.nvidia.com/networking/display/nvidiaonyxusermanualv3104408lts/priority+flow+control+(pfc),
primary); RoCE modes (lossless, semi-lossless, lossy): NVIDIA Onyx RoCE commands
(https://docs.nvidia.com/networking/display/Onyxv31040100/RoCE+Commands, primary); congestion
spreading and victim flows under PFC, the reason for DCQCN: Zhu et al., "Congestion Control for
Large-Scale RDMA Deployments", SIGCOMM 2015 (copy:
https://wixlib.com/document/5bc28_congestion-control-for-large-scale-rdma-deployments-sigcomm.html).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from planner.analyses.flow.flows import Flows
from planner.analyses.flow.incidence import unmerge
from planner.analyses.flow.network import Network
from planner.analyses.flow.routing import mix64
from planner.analyses.flow.solver import gather, unique

__all__ = [
    "FLOW_CONTROLS",
    "SPREADS",
    "CongestionReport",
    "HotPort",
    "PausedLink",
    "congestion_tree",
    "offered_load",
]

#: How the fabric stops a sender: PFC modes (RoCE) and InfiniBand's credits.
FLOW_CONTROLS = ("lossless", "semi-lossless", "lossy", "credit")
#: Whether a switch's hot port pauses its upstream links under each.
SPREADS = {"lossless": True, "credit": True, "semi-lossless": False, "lossy": False}
#: A link is oversubscribed when offered more than ``capacity * (1 + OVER_RTOL)``.
OVER_RTOL = 1e-9
#: The walk numbers its (class of flows, node) states by class * nodes + node while there
#: are at most this many, else by their rank among the states in use (a sort).
STATES_DENSE_MAX = 1 << 22


@dataclass(frozen=True)
class PausedLink:
    """A link of a congestion tree: directed ``link``, ``hops`` from the hot port (1: it
    feeds the hot port's switch), ``flows`` to the hot port crossing it."""

    link: int
    hops: int
    flows: int


@dataclass(frozen=True, eq=False)
class HotPort:
    """A switch egress ``link`` offered ``offered`` times its capacity by ``flows`` flows;
    its tree: every upstream link carrying one of them, nearest first (``tree_links``, with
    their ``tree_hops`` and ``tree_flows``; :attr:`tree` as :class:`PausedLink` s);
    ``victims``: flows crossing a tree link but not the hot port."""

    link: int
    offered: float
    flows: int
    victims: int
    tree_links: np.ndarray
    tree_hops: np.ndarray
    tree_flows: np.ndarray

    @property
    def tree(self) -> tuple[PausedLink, ...]:
        """The tree links one by one (nearest first)."""
        return tuple(
            PausedLink(link=link, hops=hops, flows=flows)
            for link, hops, flows in zip(
                self.tree_links.tolist(),
                self.tree_hops.tolist(),
                self.tree_flows.tolist(),
                strict=True,
            )
        )


@dataclass(frozen=True)
class CongestionReport:
    """What :func:`congestion_tree` found. ``hot_ports`` holds at most ``max_ports`` of the
    ``hot_port_count`` hot ports, the most oversubscribed first; ``spreads`` says whether
    ``flow_control`` pauses their trees."""

    flow_control: str
    spreads: bool
    hot_ports: tuple[HotPort, ...]
    hot_port_count: int

    def paused_links(self) -> np.ndarray:
        """Directed links paused by the reported hot ports (none unless ``spreads``)."""
        if not self.spreads or not self.hot_ports:
            return np.zeros(0, dtype=np.int64)
        links = np.concatenate([h.tree_links for h in self.hot_ports])
        if not links.size:
            return links
        paused = np.zeros(int(links.max()) + 1, dtype=bool)
        paused[links] = True
        return np.flatnonzero(paused)


def _nic_links(net: Network, flows: Flows) -> np.ndarray:
    """Each flow's NIC up-link (directed link index), -1 for a flow over scale-up."""
    local = (net.gpu_server[flows.src] == net.gpu_server[flows.dst]) & (
        net.scale_up_gbps is not None
    )
    nic = np.full(len(flows), -1, dtype=np.int64)
    fabric = ~local
    nic[fabric] = 2 * net.gpu_nics[flows.src[fabric], flows.plane[fabric]]
    return nic


def offered_load(net: Network, incidence, flows: Flows) -> tuple[np.ndarray, np.ndarray]:
    """(demand per flow in bit/s, offered load per directed link in bit/s).

    The flows starting at the earliest start time send at their NIC link's line rate, shared
    equally by those leaving the same NIC link; the others offer nothing. With a merged
    incidence (:func:`~planner.analyses.flow.route` with ``merge_links``) the load is that of
    each group's representative link; every link of a group carries the same."""
    n = len(flows)
    demand = np.zeros(n)
    if n == 0:
        return demand, np.zeros(net.link_count)
    first = flows.start <= flows.start.min() * (1 + 1e-12) + 1e-300
    nic = _nic_links(net, flows)
    sending = first & (nic >= 0) & (flows.size > 0)
    per_nic = np.bincount(nic[sending], minlength=net.link_count)
    cap = np.where(net.alive, net.capacity, 0.0)
    demand[sending] = cap[nic[sending]] / per_nic[nic[sending]]
    a = sp.csr_matrix(incidence)
    return demand, np.asarray(a.T @ demand).ravel()


#: Kinds of directed link for the walk: scale-up (no fabric node at its tail), a server's
#: NIC up-link (the walk ends there), a link leaving a switch (the walk goes on).
_SCALE_UP, _FROM_SERVER, _FROM_SWITCH = 0, 1, 2


def _link_kind(net: Network) -> np.ndarray:
    kind = np.full(net.link_count, _SCALE_UP, dtype=np.int8)
    fabric = np.flatnonzero(net.link_from >= 0)
    kind[fabric] = np.where(net.is_switch[net.link_from[fabric]], _FROM_SWITCH, _FROM_SERVER)
    return kind


class _Groups:
    """Merged links (see :func:`~planner.analyses.flow.incidence.unmerge`): the links each
    representative stands for."""

    def __init__(self, merged: np.ndarray):
        self.merged = merged
        self.order = np.argsort(merged, kind="stable")
        self.size = np.bincount(merged, minlength=merged.size)
        self.first = np.cumsum(self.size) - self.size

    def members(self, reps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(position in ``reps``, link) for every link of each representative in ``reps``."""
        per = self.size[reps]
        at = np.repeat(self.first[reps] - (np.cumsum(per) - per), per) + np.arange(int(per.sum()))
        return np.repeat(np.arange(reps.size), per), self.order[at]


def _classes(a: sp.csr_matrix, rows: np.ndarray, switch_col: np.ndarray):
    """Rows whose links leaving a switch are the same (the same columns of ``a``; sorted
    indices): their walks from any hot port are the same. Returns (class per row of
    ``rows``, each class's first row). Grouped by two 64-bit hashes of the columns and then
    checked column by column; a row that differs from its group's first is a class alone."""
    seg, col, _ = gather(a.indptr, a.indices, a.data, rows)
    keep = switch_col[col]
    seg, col = seg[keep], col[keep].astype(np.int64)
    count = np.bincount(seg, minlength=rows.size)  # every row crosses a hot port: count >= 1
    starts = np.cumsum(count) - count
    key = mix64(col.astype(np.uint64))
    h1 = np.add.reduceat(mix64(key), starts)
    h2 = np.add.reduceat(mix64(key ^ np.uint64(0x5BD1E9955BD1E995)), starts)
    group_order = np.lexsort((count, h2, h1))
    k1, k2, kc = h1[group_order], h2[group_order], count[group_order]
    new = np.concatenate(([True], (k1[1:] != k1[:-1]) | (k2[1:] != k2[:-1]) | (kc[1:] != kc[:-1])))
    head = np.empty(rows.size, dtype=np.int64)
    head[group_order] = group_order[np.maximum.accumulate(np.where(new, np.arange(new.size), 0))]
    at = np.repeat(starts[head] - starts, count) + np.arange(col.size)
    alike = np.logical_and.reduceat(col[at] == col, starts)
    head = np.where(alike, head, np.arange(rows.size))
    heads, of_row = np.unique(head, return_inverse=True)
    return of_row.astype(np.int64), heads


class _Walk:
    """The congestion trees of a run's hot ports, walked once per class of flows that leave
    switches by the same links (:func:`_classes`), on the links as the run kept them
    (merged: one column per group of links that carry the same flows alike).

    A flow's walk goes back from the hot port's switch along the flow's own links entering
    each switch reached, so flows with the same switch links walk alike and one walk serves
    the class. The walk runs on *states* (class, node): a state's entries are the class's
    links entering the node, all taken at the first level the walk reaches it; a flow's NIC
    up-link is taken at the level its class reached the leaf the link enters. Levels, links
    and flow counts are those of a walk of every flow on the full incidence (see
    ``tests/unit/test_congestion_fast.py``)."""

    def __init__(self, net: Network, a: sp.csr_matrix, groups: _Groups, parent, rows):
        n = net.node_count
        self.net, self.a, self.merged, self.parent = net, a, groups.merged, parent
        kind = _link_kind(net)
        switch_col = kind == _FROM_SWITCH
        self.of_row = np.full(a.shape[0], -1, dtype=np.int64)
        of_row, heads = _classes(a, rows, switch_col)
        self.of_row[rows] = of_row
        classes = heads.size
        # each class's switch links (as representatives), then every link they stand for,
        # class by class, sorted by the node each enters
        c_seg, c_col, _ = gather(a.indptr, a.indices, a.data, rows[heads])
        keep = switch_col[c_col]
        c_seg, c_col = c_seg[keep], c_col[keep].astype(np.int64)
        by_rep = sp.csr_matrix(
            (np.ones(c_col.size, dtype=np.int8), (c_col, c_seg)), shape=(net.link_count, classes)
        )
        used = np.flatnonzero(np.diff(by_rep.indptr))
        _, links = groups.members(used)
        links = links[np.argsort(net.link_to[links], kind="stable")]
        per_link = by_rep[groups.merged[links]].tocsc()
        e_class = np.repeat(np.arange(classes), np.diff(per_link.indptr))
        self.e_link = links[per_link.indices]
        # parents: each class's distinct ones; on a representative whose classes share none,
        # a link's flows are the sum of its classes' counts
        span = int(parent.max()) + 1
        pairs = unique(of_row * span + parent[rows])
        self.span, self.c_parent = span, pairs % span
        weight = np.bincount(pairs // span, minlength=classes)
        self.p_ptr = np.concatenate(([0], np.cumsum(weight)))
        r_seg, r_parent, _ = gather(self.p_ptr, self.c_parent, self.c_parent, c_seg)
        distinct = np.bincount(
            unique(c_col[r_seg] * span + r_parent) // span, minlength=net.link_count
        )
        total = np.bincount(c_col, weights=weight[c_seg], minlength=net.link_count)
        self.e_class = e_class
        self.e_apart = (total == distinct)[groups.merged[self.e_link]]
        self.e_weight = weight[e_class].astype(np.float64)
        # the rows' NIC up-links: (row, link)
        n_seg, n_col, _ = gather(a.indptr, a.indices, a.data, rows)
        nic = kind[n_col] == _FROM_SERVER
        n_row = rows[n_seg[nic]]
        at, self.nic_link = groups.members(n_col[nic].astype(np.int64))
        self.nic_row = n_row[at]
        # states (class, node) as numbers 0..states-1: the key class * nodes + node itself
        # while there are few enough, else its rank among the keys in use
        e_key = e_class * n + net.link_to[self.e_link]
        up_key = e_class * n + net.link_from[self.e_link]
        nic_key = self.of_row[self.nic_row] * n + net.link_to[self.nic_link]
        self.classes, self.n = classes, n
        if classes * n <= STATES_DENSE_MAX:
            self.keys = None
            self.states = classes * n
            e_state, self.e_up, self.nic_state = e_key, up_key, nic_key
        else:
            self.keys = unique(np.concatenate([e_key, up_key, nic_key]))
            self.states = self.keys.size
            e_state = np.searchsorted(self.keys, e_key)
            self.e_up = np.searchsorted(self.keys, up_key)
            self.nic_state = np.searchsorted(self.keys, nic_key)
        # entries of each state: a range of the entries (sorted by state)
        self.ptr = np.concatenate(([0], np.cumsum(np.bincount(e_state, minlength=self.states))))
        self.scratch = np.empty(self.states, dtype=np.int64)

    def _state(self, keys: np.ndarray) -> np.ndarray:
        return keys if self.keys is None else np.searchsorted(self.keys, keys)

    def _distinct(self, states: np.ndarray) -> np.ndarray:
        """``states`` without repeats."""
        scratch, order = self.scratch, np.arange(states.size)
        scratch[states] = order  # every state read below was written here
        return states[scratch[states] == order]

    def tree(self, hot: int, hot_rows: np.ndarray):
        """(tree links nearest first, their hops, their flows) of hot port ``hot`` crossed
        by rows ``hot_rows``."""
        net = self.net
        hops = np.zeros(net.link_count, dtype=np.int64)  # 0: not in the tree
        level_of = np.zeros(self.states, dtype=np.int32)  # 0: not reached
        frontier = self._state(unique(self.of_row[hot_rows]) * self.n + net.link_from[hot])
        taken = []
        level = 0
        while frontier.size:
            level += 1
            level_of[frontier] = level
            low = self.ptr[frontier]
            length = self.ptr[frontier + 1] - low
            step = np.repeat(low - (np.cumsum(length) - length), length) + np.arange(length.sum())
            if not step.size:
                break
            taken.append(step)
            links = self.e_link[step]
            fresh = hops[links] == 0
            hops[links[fresh]] = level
            up = self.e_up[step]
            frontier = self._distinct(up[level_of[up] == 0])
        flows = np.zeros(net.link_count, dtype=np.int64)
        if taken:
            step = np.concatenate(taken)
            apart = self.e_apart[step]
            flows += np.bincount(
                self.e_link[step[apart]], weights=self.e_weight[step[apart]], minlength=flows.size
            ).astype(np.int64)
            if not apart.all():  # a parent in two classes on these links: count it once
                shared = step[~apart]
                seg, parents, _ = gather(
                    self.p_ptr, self.c_parent, self.c_parent, self.e_class[shared]
                )
                pairs = unique(self.e_link[shared][seg] * self.span + parents)
                flows += np.bincount(pairs // self.span, minlength=flows.size)
        # NIC up-links of the hot rows, taken at the level their class reached the switch
        # each enters
        is_hot = np.zeros(self.a.shape[0], dtype=bool)
        is_hot[hot_rows] = True
        mine = np.flatnonzero(is_hot[self.nic_row])
        level_here = level_of[self.nic_state[mine]]
        mine, level_here = mine[level_here > 0], level_here[level_here > 0]
        if mine.size:
            link = self.nic_link[mine]
            most = int(level_here.max()) + 1
            first = unique(link * most + level_here)  # by link, lowest level first
            lowest = first[np.concatenate(([True], first[1:] // most != first[:-1] // most))]
            hops[lowest // most] = lowest % most
            pairs = unique(link * self.span + self.parent[self.nic_row[mine]])
            flows += np.bincount(pairs // self.span, minlength=flows.size)
        tree_links = np.flatnonzero(hops)
        tree_links = tree_links[np.lexsort((tree_links, hops[tree_links]))]
        return tree_links, hops[tree_links], flows[tree_links]


def congestion_tree(
    net: Network,
    incidence,
    flows: Flows,
    *,
    flow_control: str = "lossless",
    parent: np.ndarray | None = None,
    max_ports: int = 10,
    merged: np.ndarray | None = None,
) -> CongestionReport:
    """Hot ports of a run and the links lossless flow control would pause from each.

    Parameters
    ----------
    net
        The network the flows ran on.
    incidence
        Their routes, flows x directed links (what :func:`~planner.analyses.flow.route`
        gives; ``Result.incidence`` of :func:`~planner.analyses.flow.simulate`), or with
        ``merged`` the routes as the run kept them (``Result.routes()``).
    flows
        The flows of the incidence's rows (``Result.sub_flows``).
    flow_control
        One of :data:`FLOW_CONTROLS`: ``lossless`` / ``semi-lossless`` / ``lossy`` (the RoCE
        PFC modes) or ``credit`` (InfiniBand).
    parent
        Per row, the flow it belongs to (``Result.sub_parent``), so flows split over planes
        count once; default: each row is a flow.
    max_ports
        Hot ports reported with their trees, the most oversubscribed first.
    merged
        Per directed link, the link it is merged into when ``incidence`` keeps one column per
        group of links that carry the same flows alike (:func:`~planner.analyses.flow.route`
        with ``merge_links``); the report is the one the full incidence
        (:func:`~planner.analyses.flow.incidence.unmerge`) gives.

    Returns
    -------
    CongestionReport
        See the module docstring for the model and its assumptions.

    Raises
    ------
    ValueError
        Unknown ``flow_control``.

    Long because: one vectorised pass over the run's arrays (hot ports, their trees, the victims)
    whose intermediate arrays each next step reads; split, they would be passed whole.
    """
    if flow_control not in FLOW_CONTROLS:
        raise ValueError(f"flow_control must be one of {FLOW_CONTROLS}, not {flow_control!r}")
    a = sp.csr_matrix(incidence, dtype=np.float64)
    if not a.has_canonical_format or (a.data == 0).any():
        a = a.copy()
        a.sum_duplicates()
        a.eliminate_zeros()
    if merged is not None:
        merged = np.asarray(merged, dtype=np.int64)
        kind = _link_kind(net)
        if (kind[merged] != kind).any():  # a group mixing kinds of link: walk them apart
            a, merged = unmerge(a, merged), None
    if merged is None:
        merged = np.arange(net.link_count)
    groups = _Groups(merged)
    parent = np.arange(a.shape[0]) if parent is None else np.asarray(parent, dtype=np.int64)
    _, offered = offered_load(net, a, flows)
    offered = offered[merged]
    cap = np.where(net.alive, net.capacity, 0.0)
    fabric = np.arange(2 * net.fabric_links)
    egress = fabric[net.is_switch[net.link_from[fabric]] & (cap[fabric] > 0)]
    over = egress[offered[egress] > cap[egress] * (1 + OVER_RTOL)]
    ratio = offered[over] / cap[over]
    over = over[np.lexsort((over, -ratio))]
    reported = over[:max_ports]
    hot_ports = []
    if reported.size:
        at = a.T.tocsr()
        rows_of = {}
        for link in reported.tolist():
            rep = int(merged[link])
            cut = slice(at.indptr[rep], at.indptr[rep + 1])
            rows_of[link] = at.indices[cut][at.data[cut] > 0].astype(np.int64)
        through = unique(np.concatenate(list(rows_of.values())))
        walk = _Walk(net, a, groups, parent, through)
        crossing = a.copy()
        crossing.data[:] = 1.0
        for link in reported.tolist():
            hot_rows = rows_of[link]
            tree_links, tree_hops, tree_flows = walk.tree(link, hot_rows)
            # victims: flows on a tree link that do not go through the hot port
            on_tree = np.zeros(net.link_count)
            on_tree[merged[tree_links]] = 1.0
            hit = np.flatnonzero(crossing @ on_tree)
            crossing_parents = unique(parent[hit])
            hot_parents = unique(parent[hot_rows])
            victims = crossing_parents.size - np.isin(crossing_parents, hot_parents).sum()
            hot_ports.append(
                HotPort(
                    link=int(link),
                    offered=float(offered[link] / cap[link]),
                    flows=int(hot_parents.size),
                    victims=int(victims),
                    tree_links=tree_links,
                    tree_hops=tree_hops,
                    tree_flows=tree_flows,
                )
            )
    return CongestionReport(
        flow_control=flow_control,
        spreads=SPREADS[flow_control],
        hot_ports=tuple(hot_ports),
        hot_port_count=int(over.size),
    )
