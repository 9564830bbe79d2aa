"""Parameter sweeps of the flow simulation: the points of a sweep, its runs, and the
aggregation of the runs' summaries into statistics per point.

A sweep crosses the values of four axes -- failed links, message size, GPU placement and
routing -- and runs every point ``seeds`` times (Monte Carlo: run ``k`` of every point uses
seed ``seed + k``, which draws the failed links, the placement, the permutation and the ECMP
hash, so each point sees the same seeds). Runs are numbered ``0 .. points * seeds - 1``, point
by point, so a run's scenario follows from its number alone; :func:`sweep_result` reads the
runs' summaries by number, never in the order they came, so the result is the same whoever
computed which run and when::

    >>> plan = SweepPlan(traffic="all-reduce", fail_links=(0, 2), routing=("ecmp",), seeds=3)
    >>> plan.point_count, plan.run_count
    (2, 6)
    >>> plan.run_point(4), plan.run_scenario(4)["fail_links"], plan.run_scenario(4)["seed"]
    (1, 2, 1)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

#: The swept parameters, in the order points are numbered (the last changes fastest).
AXES = ("fail_links", "size_bytes", "placement", "routing")
#: What a run keeps of its scenario's result (``run_scenario(summary_only=True)``).
RUN_KEYS = (
    "seed",
    "completion_time_s",
    "busbw_gbps",
    "algbw_gbps",
    "bound_busbw_gbps",
    "max_link_utilization",
    "failed_links",
)
#: A sweep has at most this many points (the product of its axes' value counts) ...
MAX_POINTS = 100
#: ... and at most this many runs (points x seeds): each run is a simulation.
MAX_RUNS = 1000
#: Monte Carlo seeds per point.
MAX_SEEDS = 100


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep runs: one traffic, the values of each axis, and seeds per point.

    Parameters
    ----------
    traffic
        The traffic pattern of every point (``planner.analyses.scenario.TRAFFICS``).
    fail_links, size_bytes, placement, routing
        The values of each axis; the points are their cross product, in :data:`AXES` order.
    seeds
        Runs per point; run ``k`` of a point uses seed ``seed + k``.
    seed
        The first seed.
    flowlets
        Flowlets per flow of the ``flowlet`` routing's points.
    pfc_mode
        The flow control the congestion report assumes (``None``: the design's).
    """

    traffic: str
    fail_links: tuple[int, ...] = (0,)
    size_bytes: tuple[float, ...] = (1e9,)
    placement: tuple[str, ...] = ("contiguous",)
    routing: tuple[str, ...] = ("ecmp",)
    seeds: int = 1
    seed: int = 0
    flowlets: int | None = None
    pfc_mode: str | None = None

    @classmethod
    def from_parameters(cls, parameters: Mapping) -> SweepPlan:
        """The plan of a ``sweep`` job's cleaned parameters (each axis a list)."""

        def axis(key, cast, default):
            value = parameters.get(key)
            if value is None:
                return default
            values = value if isinstance(value, list | tuple) else [value]
            return tuple(cast(v) for v in values)

        flowlets = parameters.get("flowlets")
        return cls(
            traffic=str(parameters.get("traffic") or "all-reduce"),
            fail_links=axis("fail_links", int, (0,)),
            size_bytes=axis("size_bytes", float, (1e9,)),
            placement=axis("placement", str, ("contiguous",)),
            routing=axis("routing", str, ("ecmp",)),
            seeds=int(parameters.get("seeds") or 1),
            seed=int(parameters.get("seed") or 0),
            flowlets=int(flowlets) if flowlets is not None else None,
            pfc_mode=parameters.get("pfc_mode") or None,
        )

    def axis_values(self, axis: str) -> tuple:
        return getattr(self, axis)

    @property
    def varying(self) -> tuple[str, ...]:
        """The axes with more than one value, in :data:`AXES` order."""
        return tuple(axis for axis in AXES if len(self.axis_values(axis)) > 1)

    @property
    def point_count(self) -> int:
        count = 1
        for axis in AXES:
            count *= len(self.axis_values(axis))
        return count

    @property
    def run_count(self) -> int:
        return self.point_count * self.seeds

    def points(self) -> list[dict]:
        """Each point's axis values, in point order."""
        values = [self.axis_values(axis) for axis in AXES]
        return [dict(zip(AXES, combo, strict=True)) for combo in itertools.product(*values)]

    def run_point(self, run: int) -> int:
        """The point a run belongs to."""
        return run // self.seeds

    def run_scenario(self, run: int) -> dict:
        """The keyword arguments of ``run_scenario`` for run number ``run``."""
        if not 0 <= run < self.run_count:
            raise ValueError(f"run {run} is not one of the sweep's {self.run_count} runs")
        point = self.points()[self.run_point(run)]
        scenario = {
            "traffic": self.traffic,
            **point,
            "seed": self.seed + run % self.seeds,
        }
        if point["routing"] == "flowlet" and self.flowlets is not None:
            scenario["flowlets"] = self.flowlets
        if self.pfc_mode:
            scenario["pfc_mode"] = self.pfc_mode
        return scenario


def run_summary(result: Mapping) -> dict:
    """What a sweep keeps of one run's result (:data:`RUN_KEYS`)."""
    return {key: result.get(key) for key in RUN_KEYS}


def _stats(values: list[float]) -> dict:
    """min, p50, p90 and max, as ``scenario.monte_carlo_summary`` gives them (linear
    percentiles), of the values sorted first: their order does not enter."""
    array = np.sort(np.asarray(values, dtype=float))
    return {
        "min": float(array[0]),
        "p50": float(np.percentile(array, 50)),
        "p90": float(np.percentile(array, 90)),
        "max": float(array[-1]),
    }


def _point_stats(runs: list[dict]) -> dict:
    bounds = sorted({r["bound_busbw_gbps"] for r in runs if r.get("bound_busbw_gbps") is not None})
    busbw = _stats([r["busbw_gbps"] for r in runs])
    bound = bounds[-1] if bounds else None
    return {
        "busbw_gbps": busbw,
        "completion_time_s": _stats([r["completion_time_s"] for r in runs]),
        "max_link_utilization": _stats([r["max_link_utilization"] for r in runs]),
        "failed_links": max(int(r.get("failed_links") or 0) for r in runs),
        "bound_busbw_gbps": bound,
        "efficiency_p50": busbw["p50"] / bound if bound else None,
        "runs": [
            {k: r[k] for k in ("seed", "completion_time_s", "busbw_gbps", "max_link_utilization")}
            for r in runs
        ],
    }


def sweep_result(plan: SweepPlan, done: Mapping) -> dict:
    """The sweep's result from the summaries of the runs done so far (``done``: run number,
    as an int or its string, -> :func:`run_summary`).

    Each point lists its axis values and how many of its runs are done; a point whose runs are
    all done also has min/p50/p90/max of busbw, completion time and max link utilization over
    its seeds (and its runs, by seed). The order in which runs were done, or who did them,
    does not enter: the same ``done`` gives the same result.
    """
    runs_by_number = {int(key): value for key, value in done.items()}
    points = []
    for index, point in enumerate(plan.points()):
        numbers = range(index * plan.seeds, (index + 1) * plan.seeds)
        runs = [runs_by_number[n] for n in numbers if n in runs_by_number]
        entry = {"index": index, **point, "runs_done": len(runs)}
        if len(runs) == plan.seeds:
            entry.update(_point_stats(runs))
        points.append(entry)
    return {
        "traffic": plan.traffic,
        "seed": plan.seed,
        "seeds": plan.seeds,
        "axes": {axis: list(plan.axis_values(axis)) for axis in AXES},
        "varying": list(plan.varying),
        "points_total": plan.point_count,
        "points_done": sum(1 for p in points if p["runs_done"] == plan.seeds),
        "runs_total": plan.run_count,
        "runs_done": sum(p["runs_done"] for p in points),
        "points": points,
    }


def progress_text(plan: SweepPlan, done_runs) -> str:
    """``"Sweep: 3 of 8 points done (14 of 32 runs)"`` for the run numbers done so far."""
    numbers = {int(n) for n in done_runs}
    points = sum(
        1
        for index in range(plan.point_count)
        if all(n in numbers for n in range(index * plan.seeds, (index + 1) * plan.seeds))
    )
    return (
        f"Sweep: {points:,} of {plan.point_count:,} points done "
        f"({len(numbers):,} of {plan.run_count:,} runs)"
    )


__all__ = [
    "AXES",
    "MAX_POINTS",
    "MAX_RUNS",
    "MAX_SEEDS",
    "RUN_KEYS",
    "SweepPlan",
    "progress_text",
    "run_summary",
    "sweep_result",
]
