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
from planner.analyses.flow.network import Network
from planner.analyses.flow.solver import unique

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


@dataclass(frozen=True)
class PausedLink:
    """A link of a congestion tree: directed ``link``, ``hops`` from the hot port (1: it
    feeds the hot port's switch), ``flows`` to the hot port crossing it."""

    link: int
    hops: int
    flows: int


@dataclass(frozen=True)
class HotPort:
    """A switch egress ``link`` offered ``offered`` times its capacity by ``flows`` flows;
    ``tree``: every upstream link carrying one of them (nearest first); ``victims``: flows
    crossing a tree link but not the hot port."""

    link: int
    offered: float
    flows: int
    tree: tuple[PausedLink, ...]
    victims: int


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
        return np.unique(np.asarray([p.link for h in self.hot_ports for p in h.tree], np.int64))


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
    equally by those leaving the same NIC link; the others offer nothing."""
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


def _entries(m: sp.csr_matrix, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of every stored entry of ``rows`` of CSR ``m``."""
    rows = np.asarray(rows, dtype=np.int64)
    length = m.indptr[rows + 1] - m.indptr[rows]
    low = np.repeat(m.indptr[rows] - (np.cumsum(length) - length), length)
    return np.repeat(rows, length), m.indices[np.arange(int(length.sum())) + low].astype(np.int64)


def _keyed_entries(net: Network, a: sp.csr_matrix, flows: np.ndarray):
    """The fabric-link entries of ``flows``' rows, sorted by ``flow * nodes + node the link
    enters``: (those keys, the links). The flow of an entry is its key // nodes."""
    e_flow, e_link = _entries(a, flows)
    fabric = net.link_from[e_link] >= 0
    e_key = e_flow[fabric] * net.node_count + net.link_to[e_link[fabric]]
    e_link = e_link[fabric].astype(np.int32)
    del e_flow, fabric
    order = np.argsort(e_key)
    return e_key[order], e_link[order]


def _tree(
    net: Network,
    at: sp.csr_matrix,
    entries: tuple[np.ndarray, np.ndarray],
    hot: int,
    parent: np.ndarray,
    distinct_parents: bool,
):
    """The congestion tree of directed link ``hot`` (see the module docstring); ``entries``
    (:func:`_keyed_entries`) hold at least the rows of the flows through ``hot``."""
    n = net.node_count
    sorted_key, e_link = entries
    hot_flows = at.indices[at.indptr[hot] : at.indptr[hot + 1]]
    hot_flows = hot_flows[at.data[at.indptr[hot] : at.indptr[hot + 1]] > 0].astype(np.int64)
    hops = np.zeros(net.link_count, dtype=np.int64)  # 0: not in the tree
    frontier = unique(hot_flows * n + net.link_from[hot])
    level = 0
    taken = np.zeros(e_link.size, dtype=bool)
    while frontier.size:
        level += 1
        # the entries entering a frontier (flow, node): ranges of the sorted keys
        low = np.searchsorted(sorted_key, frontier, side="left")
        length = np.searchsorted(sorted_key, frontier, side="right") - low
        step = np.repeat(low - (np.cumsum(length) - length), length) + np.arange(length.sum())
        step = step[~taken[step]]
        if not step.size:
            break
        taken[step] = True
        links, flows_here = e_link[step].astype(np.int64), sorted_key[step] // n
        fresh = hops[links] == 0
        hops[links[fresh]] = level
        up = net.link_from[links]
        going = net.is_switch[up]  # a server's NIC link ends the walk
        frontier = unique(flows_here[going] * n + up[going])
    tree_links = np.flatnonzero(hops)
    order = np.lexsort((tree_links, hops[tree_links]))
    tree_links = tree_links[order]
    # distinct flows (parents) to the hot port on each tree link; a row's entries are
    # distinct links, so with one row per flow every entry is one (flow, link)
    if distinct_parents:
        per_link = np.bincount(e_link[taken], minlength=net.link_count)
    else:
        span = int(parent.max()) + 1
        pairs = unique(e_link[taken].astype(np.int64) * span + parent[sorted_key[taken] // n])
        per_link = np.bincount(pairs // span, minlength=net.link_count)
    tree = tuple(
        PausedLink(link=int(link), hops=int(hops[link]), flows=int(per_link[link]))
        for link in tree_links
    )
    # victims: flows on a tree link that do not go through the hot port
    crossing = unique(parent[_entries(at, tree_links)[1]])
    victims = crossing.size - np.isin(crossing, parent[hot_flows]).sum()
    return hot_flows, tree, int(victims)


def congestion_tree(
    net: Network,
    incidence,
    flows: Flows,
    *,
    flow_control: str = "lossless",
    parent: np.ndarray | None = None,
    max_ports: int = 10,
) -> CongestionReport:
    """Hot ports of a run and the links lossless flow control would pause from each.

    Parameters
    ----------
    net
        The network the flows ran on.
    incidence
        Their routes, flows x directed links (what :func:`~planner.analyses.flow.route`
        gives; ``Result.incidence`` of :func:`~planner.analyses.flow.simulate`).
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

    Returns
    -------
    CongestionReport
        See the module docstring for the model and its assumptions.

    Raises
    ------
    ValueError
        Unknown ``flow_control``.
    """
    if flow_control not in FLOW_CONTROLS:
        raise ValueError(f"flow_control must be one of {FLOW_CONTROLS}, not {flow_control!r}")
    a = sp.csr_matrix(incidence, dtype=np.float64)
    a.eliminate_zeros()
    parent = np.arange(a.shape[0]) if parent is None else np.asarray(parent, dtype=np.int64)
    _, offered = offered_load(net, a, flows)
    cap = np.where(net.alive, net.capacity, 0.0)
    fabric = np.arange(2 * net.fabric_links)
    egress = fabric[net.is_switch[net.link_from[fabric]] & (cap[fabric] > 0)]
    over = egress[offered[egress] > cap[egress] * (1 + OVER_RTOL)]
    ratio = offered[over] / cap[over]
    over = over[np.lexsort((over, -ratio))]
    at = a.T.tocsr()
    distinct_parents = unique(parent).size == parent.size
    reported = over[:max_ports]
    through = unique(_entries(at, reported)[1])  # flows through any reported hot port
    entries = _keyed_entries(net, a, through)
    hot_ports = []
    for link in reported.tolist():
        hot_flows, tree, victims = _tree(net, at, entries, link, parent, distinct_parents)
        hot_ports.append(
            HotPort(
                link=int(link),
                offered=float(offered[link] / cap[link]),
                flows=int(unique(parent[hot_flows]).size),
                tree=tree,
                victims=victims,
            )
        )
    return CongestionReport(
        flow_control=flow_control,
        spreads=SPREADS[flow_control],
        hot_ports=tuple(hot_ports),
        hot_port_count=int(over.size),
    )
