"""What a simulation found: finish times, link utilisation, hot spots, completion-time
statistics."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from planner.analyses.flow.flows import Flows
from planner.analyses.flow.network import Network

__all__ = ["Result", "summarize"]


@dataclass
class Result:
    """What :func:`~planner.analyses.flow.simulate` found; per-link arrays are over the
    network's directed links."""

    finish: np.ndarray  # per flow, seconds
    completion_time_s: float
    link_util_avg: np.ndarray  # per directed link: bytes / (capacity * completion time)
    link_util_peak: np.ndarray  # highest instantaneous utilisation
    hot_spots: list[dict]
    fct: dict
    events: int
    first_rates: np.ndarray  # bit/s of each flow at time 0 (sum over its sub-flows)
    sub_finish: np.ndarray | None = None  # per sub-flow (see sub_flows), seconds
    sub_parent: np.ndarray | None = None  # per sub-flow: index of its flow
    solves: dict = field(default_factory=dict)  # rate solves by kind: full, local, small
    sub_flows: Flows | None = None  # the sub-flows the engine ran (see sub_flows)
    incidence: object | None = None  # their routes: sub-flows x directed links (CSR)
    symmetry: str | None = None  # how symmetry cut the work (identical planes run once)

    def as_dict(self) -> dict:
        return {
            "completion_time_s": self.completion_time_s,
            "events": self.events,
            "fct": self.fct,
            "hot_spots": self.hot_spots,
        }


def summarize(
    net: Network,
    flows: Flows,
    incidence,
    peak: np.ndarray,
    solves: dict,
    *,
    parent: np.ndarray,
    finish: np.ndarray,
    first_rates: np.ndarray,
    first_bott: np.ndarray,
    bits: np.ndarray,
    cap: np.ndarray,
    events: int,
    hot_spot_count: int,
) -> Result:
    """The :class:`Result` of a finished run of the sub-flows of ``flows`` (``parent``: each
    sub-flow's flow; ``finish``, ``first_rates``, ``first_bott`` and ``bits`` per sub-flow;
    ``incidence`` their routes, ``peak`` each link's highest utilisation, ``solves`` the
    solver's counts)."""
    per_flow = np.full(len(flows), -np.inf)
    np.maximum.at(per_flow, parent, finish)
    rates0 = np.zeros(len(flows))
    np.add.at(rates0, parent, first_rates)
    total = float(per_flow.max()) if len(flows) else 0.0
    span = total - float(flows.start.min()) if len(flows) else 0.0
    link_bits = np.bincount(
        incidence.indices,
        weights=incidence.data * np.repeat(bits, np.diff(incidence.indptr)),
        minlength=net.link_count,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        util = np.where((cap > 0) & (span > 0), link_bits / (cap * span), 0.0)
    fct = per_flow - flows.start
    stats = {}
    if len(flows):
        stats = {
            "min": float(fct.min()),
            "p50": float(np.percentile(fct, 50)),
            "p90": float(np.percentile(fct, 90)),
            "p99": float(np.percentile(fct, 99)),
            "max": float(fct.max()),
            "mean": float(fct.mean()),
        }
    top = np.argsort(-util, kind="stable")[:hot_spot_count]
    hot = [
        {
            "link": net.link_id(i),
            "utilization": float(util[i]),
            "peak": float(peak[i]),
            "bottlenecked_flows": np.unique(parent[first_bott == i]).tolist(),
        }
        for i in top
        if util[i] > 0
    ]
    return Result(
        per_flow,
        total,
        util,
        peak,
        hot,
        stats,
        events,
        rates0,
        sub_finish=finish,
        sub_parent=parent,
        solves=dict(solves),
    )
