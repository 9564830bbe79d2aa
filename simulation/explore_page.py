"""How an exploration reads on its job page and on a candidate's page: the scatter, the table
of every candidate with why it is dominated, infeasible or crashed, what was pruned before
building, and one candidate's figures, limits and spec.

Pure formatting of the job's result (:func:`planner.analyses.explore.front.explore_result`);
templates only place what is built here.
"""

from __future__ import annotations

import math

import yaml
from django.urls import reverse

from planner.presentation import count, number
from simulation.explore_chart import AXES, explore_chart, pick_axes

STATUS_ORDER = {"front": 0, "feasible": 1, "infeasible": 2, "crashed": 3}
STATUS_LABELS = {
    "front": "On the front",
    "feasible": "Dominated",
    "infeasible": "Infeasible",
    "crashed": "Crashed",
}
AXIS_LABELS = {
    "topology": "Topology",
    "server": "Server",
    "leaf": "Leaf",
    "spine": "Spine",
    "core": "Core",
    "transport": "Transport",
    "speed_gbps": "Speed (Gb/s)",
    "planes": "Planes",
    "tiers": "Tiers",
    "oversubscription": "Oversubscription",
    "cabling": "Cabling",
    "uplink_gbps": "Uplinks (Gb/s)",
    "servers": "Servers",
    "gpus": "GPUs",
    "k": "k (fat-tree)",
}


def _finite(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def money(value, currency: str) -> str:
    """``12,345,678 USD``; ``—`` when unknown."""
    return f"{value:,.0f} {currency}".strip() if _finite(value) else "—"


def metric_text(name: str, metrics: dict, *, mark: str = " (incomplete)") -> str:
    """A metric of a candidate with its unit, as the table shows it; a cost that leaves out
    unpriced BOM lines ends with ``mark``."""
    value = metrics.get(name)
    if not _finite(value):
        return "—"
    if name in ("cost", "fabric_cost"):
        text = money(value, metrics.get("currency") or "")
        return text if metrics.get("cost_complete", True) else f"{text}{mark}"
    if name == "collective_time_s":
        return f"{value * 1e3:,.3f} ms"
    if name == "power_w":
        return f"{value / 1e3:,.1f} kW"
    if name == "bisection_gbps":
        return f"{value / 1e3:,.1f} Tb/s"
    if name == "failures_per_day":
        return f"{value:,.3f}"
    if name == "busbw_gbps":
        return f"{value:,.1f} Gb/s"
    if name == "optical_margin_min_db":
        return f"{value:,.2f} dB"
    return number(value)


def candidate_status(candidate: dict) -> str:
    if candidate.get("front"):
        return "front"
    return candidate.get("status") or "crashed"


def why_text(candidate: dict) -> str:
    """Why a candidate is not on the front (or what it is best at)."""
    if candidate.get("why"):
        return str(candidate["why"])
    reasons = candidate.get("reasons") or []
    return "; ".join(str(r) for r in reasons) if reasons else ""


def candidate_url(job, index: int) -> str:
    return reverse("explore:candidate", args=[job.pk, index])


#: The figures the table shows (the fabric cost is on the candidate's page, chart and CSV).
TABLE_METRICS = tuple(name for name in AXES if name != "fabric_cost")
TABLE_TITLES = {"failures_per_day": "Failures a day", "bisection_gbps": "Bisection"}


def _row(job, candidate: dict) -> dict:
    metrics = candidate.get("metrics") or {}
    status = candidate_status(candidate)
    return {
        "index": candidate.get("index"),
        "label": candidate.get("label") or candidate.get("key"),
        "key": candidate.get("key"),
        "status": status,
        "status_label": STATUS_LABELS.get(status, status),
        "figures": [metric_text(name, metrics, mark=" *") for name in TABLE_METRICS],
        "gpus": number(metrics.get("gpus")),
        "why": why_text(candidate),
        "url": candidate_url(job, candidate["index"]),
        "open_url": reverse("explore:candidate-open", args=[job.pk, candidate["index"]]),
        "openable": status != "crashed",
    }


def _pruned(result: dict) -> list[dict]:
    rows = []
    for item in result.get("pruned") or []:
        axes = item.get("axes") or {}
        where = ", ".join(f"{AXIS_LABELS.get(k, k)} {v}" for k, v in axes.items() if v is not None)
        rows.append(
            {
                "count": number(item.get("count") or 1),
                "where": where or "—",
                "field": item.get("field") or "",
                "reason": item.get("reason") or "",
            }
        )
    return rows


def explore_context(job, query) -> dict | None:
    """What the job page shows of a succeeded exploration: counts, the scatter for the metrics
    of ``?x=&y=``, every candidate (front first, then dominated, infeasible, crashed) and what
    was pruned before building."""
    result = job.result if isinstance(job.result, dict) else None
    if job.status != "succeeded" or not result or "candidates" not in result:
        return None
    x, y = pick_axes(query)
    candidates = result.get("candidates") or []
    rows = sorted(
        (_row(job, c) for c in candidates),
        key=lambda r: (STATUS_ORDER.get(r["status"], 9), r["index"]),
    )
    counts = result.get("counts") or {}
    incomplete = any(not (c.get("metrics") or {}).get("cost_complete", True) for c in candidates)
    objectives = [AXES.get(o, (o,))[0] for o in result.get("objectives") or []]
    return {
        "x": x,
        "y": y,
        "axis_choices": [(name, spec[0]) for name, spec in AXES.items()],
        "chart": explore_chart(result, x, y, lambda index: candidate_url(job, index)),
        "rows": rows,
        "columns": [TABLE_TITLES.get(name, AXES[name][0]) for name in TABLE_METRICS],
        "counts": [
            (label, number(counts.get(key) or 0))
            for key, label in (
                ("enumerated", "Candidates"),
                ("feasible", "Feasible"),
                ("infeasible", "Infeasible"),
                ("crashed", "Crashed"),
                ("pruned", "Pruned before building"),
            )
        ],
        "front_size": count(len(result.get("front") or []), "candidate"),
        "incomplete": incomplete,
        "objectives": " and ".join(objectives),
        "pruned": _pruned(result),
        "requirements_yaml": yaml.safe_dump(
            result.get("requirements") or job.parameters, sort_keys=False, allow_unicode=True
        ),
    }


def candidate_context(job, candidate: dict, document: dict | None) -> dict:
    """One candidate's page: its choices, figures, limits, why, and its design spec."""
    metrics = candidate.get("metrics") or {}
    status = candidate_status(candidate)
    limits = [
        {
            "field": item.get("field"),
            "limit": number(item.get("limit")),
            "value": number(item.get("value")),
            "ok": item.get("ok"),
        }
        for item in candidate.get("limits") or []
    ]
    figures = [(spec[0], metric_text(name, metrics, mark=" *")) for name, spec in AXES.items()]
    figures[-1] = ("Expected failures a day", figures[-1][1])
    figures += [
        ("GPUs", number(metrics.get("gpus"))),
        ("Servers", number(metrics.get("servers"))),
        ("Switches", number(metrics.get("switches"))),
        ("Links", number(metrics.get("links"))),
        ("Racks", number(metrics.get("racks"))),
        ("Bus bandwidth", metric_text("busbw_gbps", metrics)),
        ("Optical margin, least", metric_text("optical_margin_min_db", metrics)),
        ("GPUs lost to one switch", number(metrics.get("gpus_lost_switch"))),
        ("GPUs lost to one rack", number(metrics.get("gpus_lost_rack"))),
    ]
    unpriced = metrics.get("unpriced_lines") or 0
    unpriced = len(unpriced) if isinstance(unpriced, list) else unpriced
    return {
        "candidate": candidate,
        "status": status,
        "status_label": STATUS_LABELS.get(status, status),
        "why": why_text(candidate),
        "reasons": [str(r) for r in candidate.get("reasons") or []],
        "axes": [
            (AXIS_LABELS.get(k, k), "—" if v is None else number(v) if _finite(v) else v)
            for k, v in sorted(
                (candidate.get("axes") or {}).items(),
                key=lambda item: (
                    list(AXIS_LABELS).index(item[0]) if item[0] in AXIS_LABELS else len(AXIS_LABELS)
                ),
            )
        ],
        "figures": figures,
        "limits": limits,
        "unpriced": count(unpriced, "BOM line") if unpriced else "",
        "cost_incomplete": not metrics.get("cost_complete", True),
        "spec_yaml": yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
        if document
        else "",
        "open_url": reverse("explore:candidate-open", args=[job.pk, candidate["index"]]),
        "openable": status != "crashed" and bool(document),
    }
