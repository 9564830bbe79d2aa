"""The Pareto front of an exploration and, for every other candidate, why it is off it.

A feasible candidate *dominates* another when it is at least as good on every objective and
better on one (cost, collective time, power and failures a day are minimised, bisection is
maximised). The front is the feasible candidates no other feasible candidate dominates. Each
dominated candidate names the front candidate that dominates it by the most (the largest sum
of relative gains over the objectives; the lowest index on a tie) and by how much ("dominated
by #12: 8 % cheaper and 3 % faster"); an infeasible or crashed candidate gives its reasons.
A missing figure (no price table: no cost) counts as the worst value, and the text says so.

Pure (no Django); the result is ordered by candidate index, whatever order the evaluations
came in, so it is the same however many workers evaluated them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .candidates import Enumeration
from .requirements import DEFAULT_OBJECTIVES, OBJECTIVES, Requirements

#: name -> label, unit, sense ("min" or "max") and the words of a gain.
METRICS = {
    "cost": {"label": "Cost", "unit": "currency", "sense": "min", "better": "cheaper"},
    "collective_time_s": {
        "label": "Collective time",
        "unit": "s",
        "sense": "min",
        "better": "faster",
    },
    "power_w": {"label": "Power", "unit": "W", "sense": "min", "better": "less power"},
    "bisection_gbps": {
        "label": "Bisection",
        "unit": "Gb/s",
        "sense": "max",
        "better": "more bisection",
    },
    "failures_per_day": {
        "label": "Failures a day",
        "unit": "1/day",
        "sense": "min",
        "better": "fewer failures a day",
    },
}
assert tuple(METRICS) == OBJECTIVES

STATUSES = ("feasible", "infeasible", "crashed")


def _matrix(candidates: Sequence[dict], objectives: Sequence[str]) -> np.ndarray:
    """Objective values as costs to minimise (maximised ones negated; missing = +inf)."""
    values = np.full((len(candidates), len(objectives)), np.inf)
    for i, candidate in enumerate(candidates):
        metrics = candidate.get("metrics") or {}
        for j, name in enumerate(objectives):
            value = metrics.get(name)
            if value is not None:
                values[i, j] = -float(value) if METRICS[name]["sense"] == "max" else float(value)
    return values


def _gain_text(name: str, better: float, worse: float) -> str:
    """``8 % cheaper``; ``same cost`` when equal."""
    metric = METRICS[name]
    if better == worse:
        return f"same {metric['label'].lower()}"
    if not np.isfinite(worse):
        return f"{metric['better']} (this one has no {metric['label'].lower()} figure)"
    a, b = abs(better), abs(worse)
    if METRICS[name]["sense"] == "max":
        pct = (a - b) / b * 100 if b else float("inf")
    else:
        pct = (b - a) / b * 100 if b else 0.0
    if pct == float("inf"):
        return f"{metric['better']} (this one has none)"
    return f"{pct:.3g} % {metric['better']}"


def pareto_front(candidates: Sequence[dict], objectives: Sequence[str] | None = None) -> dict:
    """The front of ``candidates`` (evaluations) over ``objectives``.

    Returns ``{"objectives", "front": [index, ...], "dominated": {index: {"by": index, "key",
    "why"}}}``; only feasible candidates take part.
    """
    objectives = tuple(objectives or DEFAULT_OBJECTIVES)
    unknown = [o for o in objectives if o not in METRICS]
    if unknown:
        raise ValueError(f"objectives: unknown {', '.join(unknown)}; one of {', '.join(METRICS)}")
    feasible = sorted(
        (c for c in candidates if c.get("status") == "feasible"), key=lambda c: c["index"]
    )
    values = _matrix(feasible, objectives)
    n = len(feasible)
    if not n:
        return {"objectives": list(objectives), "front": [], "dominated": {}}
    # dominates[i, j]: i dominates j
    le = (values[:, None, :] <= values[None, :, :]).all(axis=2)
    lt = (values[:, None, :] < values[None, :, :]).any(axis=2)
    dominates = le & lt
    on_front = ~dominates.any(axis=0)
    front = [feasible[i]["index"] for i in range(n) if on_front[i]]
    dominated = {}
    front_rows = np.flatnonzero(on_front)
    for j in np.flatnonzero(~on_front).tolist():
        by = front_rows[dominates[front_rows, j]]
        if not by.size:  # pragma: no cover - a dominated point always has a front dominator
            by = np.flatnonzero(dominates[:, j])
        gains = np.zeros(by.size)
        for pos, i in enumerate(by.tolist()):
            worse, better = values[j], values[i]
            finite = np.isfinite(worse) & np.isfinite(better) & (worse != 0)
            gains[pos] = np.sum(np.abs(worse[finite] - better[finite]) / np.abs(worse[finite]))
        best = int(by[int(np.argmax(gains))])  # argmax: first (lowest index) on a tie
        parts = [
            _gain_text(name, values[best, k], values[j, k]) for k, name in enumerate(objectives)
        ]
        dominated[feasible[j]["index"]] = {
            "by": feasible[best]["index"],
            "key": feasible[best]["key"],
            "why": f"dominated by #{feasible[best]['index']}: " + " and ".join(parts),
        }
    return {"objectives": list(objectives), "front": front, "dominated": dominated}


def explore_result(
    requirements: Requirements,
    enumeration: Enumeration,
    evaluations: Mapping[int | str, dict],
    *,
    objectives: Sequence[str] | None = None,
) -> dict:
    """The exploration's result: counts, every candidate (ordered by index) with whether it is
    on the front and why not, the front's indices and the prunes. A candidate without an
    evaluation is listed as ``crashed`` ("not evaluated"): never dropped."""
    objectives = tuple(objectives or requirements.objectives)
    by_index = {int(k): dict(v) for k, v in evaluations.items()}
    rows = []
    for candidate in enumeration.candidates:
        row = by_index.get(candidate.index)
        if row is None:
            row = {
                "index": candidate.index,
                "key": candidate.key,
                "label": candidate.label,
                "axes": dict(candidate.axes),
                "status": "crashed",
                "reasons": ["not evaluated: no result came back for this candidate"],
                "metrics": {},
                "limits": [],
                "seconds": 0.0,
            }
        rows.append(row)
    front = pareto_front(rows, objectives)
    on_front = set(front["front"])
    out_rows = []
    for row in rows:
        index = row["index"]
        entry = {**row, "front": index in on_front, "dominated_by": None, "why": ""}
        if row["status"] == "infeasible":
            entry["why"] = "infeasible: " + "; ".join(row.get("reasons") or ["no reason given"])
        elif row["status"] == "crashed":
            entry["why"] = "crashed: " + "; ".join(row.get("reasons") or ["no message"])
        elif index in on_front:
            entry["why"] = "on the front: no feasible candidate is as good on every objective"
        else:
            dominated = front["dominated"][index]
            entry["dominated_by"] = dominated["key"]
            entry["dominated_by_index"] = dominated["by"]
            entry["why"] = dominated["why"]
        out_rows.append(entry)
    counts = {status: sum(r["status"] == status for r in rows) for status in STATUSES}
    return {
        "requirements": requirements.as_document(),
        "objectives": list(objectives),
        "metrics": {name: dict(METRICS[name]) for name in METRICS},
        "counts": {
            "enumerated": len(enumeration.candidates),
            "pruned": sum(int(p.get("count", 1)) for p in enumeration.pruned),
            **counts,
            "front": len(front["front"]),
        },
        "bounds": dict(enumeration.bounds),
        "candidates": out_rows,
        "front": front["front"],
        "pruned": [dict(p) for p in enumeration.pruned],
    }


__all__ = ["DEFAULT_OBJECTIVES", "METRICS", "explore_result", "pareto_front"]
