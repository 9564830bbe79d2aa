"""What a simulation found: finish times, link utilisation, hot spots, completion-time
statistics."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from planner.analyses.flow.flows import Flows
from planner.analyses.flow.network import Network

__all__ = ["Result", "link_bits", "summarize"]


def link_bits(incidence, bits: np.ndarray, link_count: int) -> np.ndarray:
    """Bits that cross each link over a run: every flow's bits times its share of the link."""
    return np.bincount(
        incidence.indices,
        weights=incidence.data * np.repeat(bits, np.diff(incidence.indptr)),
        minlength=link_count,
    )


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
    symmetry: str | None = None  # how symmetry cut the work (identical planes run once)
    _incidence: object | None = field(default=None, repr=False)
    _build_incidence: object | None = field(default=None, repr=False)
    _routes: object | None = field(default=None, repr=False)

    @property
    def incidence(self):
        """The sub-flows' routes: sub-flows x directed links (CSR). After a run that copied
        identical planes it is built on first use (every plane's rows)."""
        if self._incidence is None and self._build_incidence is not None:
            self._incidence, self._build_incidence = self._build_incidence(), None
        return self._incidence

    @incidence.setter
    def incidence(self, value) -> None:
        self._incidence, self._build_incidence, self._routes = value, None, None

    def routes(self):
        """(incidence, merged): the sub-flows' routes as the run kept them. Where links carry
        the same flows alike (a leaf's sprayed uplinks, say) only the lowest-indexed link of
        each group has a column, ``merged[link]`` being that link, and :attr:`incidence` is
        its :func:`~planner.analyses.flow.incidence.unmerge`; ``merged`` is None when nothing
        merged. Far smaller than :attr:`incidence` under spraying and ``ib-ar``."""
        if self._routes is None:
            return self.incidence, None
        if callable(self._routes):
            self._routes = self._routes()
        return self._routes

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
    link_bits: np.ndarray,
    peak: np.ndarray,
    solves: dict,
    *,
    parent: np.ndarray,
    finish: np.ndarray,
    first_rates: np.ndarray,
    first_bott: np.ndarray,
    cap: np.ndarray,
    events: int,
    hot_spot_count: int,
) -> Result:
    """The :class:`Result` of a finished run of the sub-flows of ``flows`` (``parent``: each
    sub-flow's flow; ``finish``, ``first_rates`` and ``first_bott`` per sub-flow;
    ``link_bits`` what crossed each link over the run (:func:`link_bits`), ``peak`` each
    link's highest utilisation, ``solves`` the solver's counts)."""
    per_flow = np.full(len(flows), -np.inf)
    np.maximum.at(per_flow, parent, finish)
    rates0 = np.zeros(len(flows))
    np.add.at(rates0, parent, first_rates)
    total = float(per_flow.max()) if len(flows) else 0.0
    span = total - float(flows.start.min()) if len(flows) else 0.0
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
