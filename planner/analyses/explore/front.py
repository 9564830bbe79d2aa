"""The Pareto front of an exploration and, for every other candidate, why it is off it.

A feasible candidate *dominates* another when it is at least as good on every objective and
better on one (cost, collective time, power and failures a day are minimised, bisection is
maximised); figures within :data:`TOLERANCE` (0.2 %) of each other count as equal, and costs
compare only between candidates missing the same parts' prices (an incomplete cost is a lower
bound). The front is the feasible candidates no other feasible candidate dominates. Each
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
    "cost": {
        "label": "Cost",
        "unit": "currency",
        "sense": "min",
        "better": "cheaper",
        "worse": "dearer",
    },
    "fabric_cost": {
        "label": "Fabric cost",
        "unit": "currency",
        "sense": "min",
        "better": "cheaper fabric",
        "worse": "dearer fabric",
    },
    "collective_time_s": {
        "label": "Collective time",
        "unit": "s",
        "sense": "min",
        "better": "faster",
        "worse": "slower",
    },
    "power_w": {
        "label": "Power",
        "unit": "W",
        "sense": "min",
        "better": "less power",
        "worse": "more power",
    },
    "bisection_gbps": {
        "label": "Bisection",
        "unit": "Gb/s",
        "sense": "max",
        "better": "more bisection",
        "worse": "less bisection",
    },
    "failures_per_day": {
        "label": "Failures a day",
        "unit": "1/day",
        "sense": "min",
        "better": "fewer failures a day",
        "worse": "more failures a day",
    },
}
assert tuple(METRICS) == OBJECTIVES

STATUSES = ("feasible", "infeasible", "crashed")
#: Relative difference under which two figures count as equal (0.2 %): a flow simulation's
#: last digits, or two optics a few watts apart, do not keep a candidate on the front.
TOLERANCE = 0.002


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
    if abs(pct) < TOLERANCE * 100:
        return f"about the same {metric['label'].lower()}"
    return f"{pct:.3g} % {metric['better']}"


def _unpriced(candidate: dict) -> tuple:
    return tuple(sorted((candidate.get("metrics") or {}).get("unpriced_parts") or ()))


def _dominance(values: np.ndarray, rows: Sequence[dict], objectives: Sequence[str]) -> np.ndarray:
    """``dominates[i, j]``: row i dominates row j. Costs compare only between candidates
    missing the same parts' prices: a candidate whose switch is unpriced would otherwise look
    cheaper than one whose switch is priced (an incomplete cost is a lower bound)."""
    a, b = values[:, None, :], values[None, :, :]
    slack = np.where(np.isfinite(b), np.abs(b) * TOLERANCE, 0.0)
    with np.errstate(invalid="ignore"):  # inf - inf: both figures missing
        le = (a <= b + slack) | (a == b)
        lt = a < b - slack
    keys = [_unpriced(r) for r in rows]
    codes = {key: n for n, key in enumerate(dict.fromkeys(keys))}
    group = np.array([codes[key] for key in keys])
    same = group[:, None] == group[None, :]
    for k, name in enumerate(objectives):
        if name in ("cost", "fabric_cost"):
            le[:, :, k] &= same
            lt[:, :, k] &= same
    return le.all(axis=2) & lt.any(axis=2)


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
    dominates = _dominance(values, feasible, objectives)
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


def _signed_text(name: str, theirs: float, mine: float) -> str:
    """How ``theirs`` compares with ``mine`` on one objective (both as stored: maximised ones
    negated): ``2.5 % cheaper``, ``4 % slower``, ``about the same power``."""
    metric = METRICS[name]
    if not (np.isfinite(theirs) and np.isfinite(mine)) or mine == 0:
        return f"no comparable {metric['label'].lower()}"
    pct = (abs(theirs) - abs(mine)) / abs(mine) * 100
    if abs(pct) < TOLERANCE * 100:
        return f"about the same {metric['label'].lower()}"
    gains = pct > 0 if metric["sense"] == "max" else pct < 0
    return f"{abs(pct):.3g} % {metric['better'] if gains else metric['worse']}"


def distance_to_front(evaluation: dict, result: dict) -> dict:
    """How far ``evaluation`` (e.g. a published design evaluated with the same requirements)
    is from ``result``'s front.

    Dominated: ``nearest`` is the dominating front candidate with the largest sum of relative
    gains. On the front: ``same`` lists the front candidates with the same figures (the
    explorer found this design) and ``nearest`` is the closest *other* front point (relative
    distance over the objectives), so the answer says what the next trade-off is. ``gaps``:
    per objective, and for cost, power and collective time whatever the objectives, the
    nearest point's value relative to this one's (``-0.08``: 8 % lower); ``why`` in words.
    """
    objectives = tuple(result["objectives"])
    rows = {r["index"]: r for r in result["candidates"]}
    front = [rows[i] for i in result["front"]]
    if evaluation.get("status") != "feasible" or not front:
        return {
            "on_front": False,
            "status": evaluation.get("status"),
            "why": "; ".join(evaluation.get("reasons") or ["no front to compare with"]),
        }
    mine = _matrix([evaluation], objectives)[0]
    values = _matrix(front, objectives)
    together = np.vstack([values, mine[None, :]])
    dominates = _dominance(together, [*front, evaluation], objectives)[:, -1]
    dominating = [k for k in range(len(front)) if dominates[k]]

    def rel(k: int) -> float:
        finite = np.isfinite(values[k]) & np.isfinite(mine) & (mine != 0)
        return float(np.sum(np.abs(values[k][finite] - mine[finite]) / np.abs(mine[finite])))

    same = [k for k in range(len(front)) if rel(k) < TOLERANCE and not dominating]
    pool = dominating or [k for k in range(len(front)) if k not in same] or same
    pick = max(pool, key=lambda k: (rel(k), -k)) if dominating else min(pool, key=rel)
    nearest = front[pick]
    gaps = {}
    for name in dict.fromkeys((*objectives, "cost", "power_w", "collective_time_s")):
        ours, theirs = evaluation["metrics"].get(name), nearest["metrics"].get(name)
        gaps[name] = (
            None if ours in (None, 0) or theirs is None else round((theirs - ours) / ours, 4)
        )
    compared = ", ".join(
        _signed_text(n, values[pick, j], mine[j]) for j, n in enumerate(objectives)
    )
    if _unpriced(nearest) != _unpriced(evaluation) and {"cost", "fabric_cost"} & set(objectives):
        missing = sorted(set(_unpriced(nearest)) ^ set(_unpriced(evaluation)))
        compared += f" (costs not comparable: {', '.join(missing)} priced on one side only)"
    if dominating:
        why = f"dominated by #{nearest['index']} ({nearest['label']}): {compared}"
    else:
        found = (
            f" (the explorer's #{', #'.join(str(front[k]['index']) for k in same)} "
            f"{'has' if len(same) == 1 else 'have'} the same figures)"
            if same
            else ""
        )
        why = (
            f"on the front{found}; the nearest other front point, #{nearest['index']} "
            f"({nearest['label']}), is {compared}"
        )
    return {
        "on_front": not dominating,
        "same": [front[k]["index"] for k in same],
        "nearest": nearest["index"],
        "nearest_key": nearest["key"],
        "gaps": gaps,
        "why": why,
    }


__all__ = ["DEFAULT_OBJECTIVES", "METRICS", "distance_to_front", "explore_result", "pareto_front"]
