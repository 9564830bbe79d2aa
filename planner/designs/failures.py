"""A revision's expected failures (issue 24), for the design page and the API.

Reads only (nothing stored): the pure
:func:`planner.analyses.resilience.failures.expected_failures` on the revision's stored fabric
and the catalog as it is now. Parameters come from a query string
(:func:`parse_params`): ``job_gpus`` (default every GPU), ``lead_time_days`` (default 30),
``level`` (service level in percent, default 99) and ``fallback`` (``llama3``, the default,
or ``none``); a bad one is a :class:`FailureParamError` naming it.
"""

from __future__ import annotations

import json
import math
import zlib
from urllib.parse import urlencode

from django.urls import reverse

from planner import presentation
from planner.analyses.resilience.failures import (
    CATEGORIES,
    DEFAULT_LEAD_TIME_DAYS,
    DEFAULT_LEVEL,
    LLAMA3,
    expected_failures,
)
from planner.designs.adapters import catalog_facts
from planner.designs.cache import cached, revision_ref
from planner.designs.models import DesignRevision
from planner.designs.selectors import revision_fabric

NO_FABRIC = "This revision has no stored fabric to count failures on."
FALLBACKS = ("llama3", "none")


class FailureParamError(ValueError):
    """A query parameter the estimate cannot take, naming it (``field``)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def _given(params, name: str, blank_is_default: bool):
    """The parameter's value, or None when it is not given (or blank, on the page's form)."""
    raw = params.get(name)
    if raw is not None and str(raw).strip() == "":
        if blank_is_default:
            return None
        raise FailureParamError(name, "give a value, or leave the parameter out")
    return raw


def _number(params, name: str, default, *, whole: bool = False, blank_is_default: bool = True):
    raw = _given(params, name, blank_is_default)
    if raw is None:
        return default
    try:
        value = float(str(raw).replace(",", "").strip())
    except ValueError:
        raise FailureParamError(name, f"{raw!r} is not a number") from None
    if not math.isfinite(value) or (whole and not value.is_integer()):
        raise FailureParamError(name, f"{raw!r} is not a whole number" if whole else "not finite")
    return int(value) if whole else value


def parse_params(params, *, blank_is_default: bool = True) -> dict:
    """``job_gpus``, ``lead_time_days``, ``level`` (0-1) and ``fallback`` from a query dict.

    ``blank_is_default``: a blank value means the default (the page's form sends its empty
    fields); the API refuses it, naming the parameter, as it does every blank parameter.

    Raises
    ------
    FailureParamError
        A value that is not a number, out of range, or an unknown fallback.
    """
    blank = {"blank_is_default": blank_is_default}
    job = _number(params, "job_gpus", None, whole=True, **blank)
    if job is not None and job < 1:
        raise FailureParamError("job_gpus", "at least 1 GPU")
    lead = _number(params, "lead_time_days", DEFAULT_LEAD_TIME_DAYS, **blank)
    if not 0 < lead <= 365:
        raise FailureParamError("lead_time_days", "more than 0 and at most 365 days")
    level = _number(params, "level", DEFAULT_LEVEL * 100, **blank)
    if not 0 < level < 100:
        raise FailureParamError("level", "a percentage above 0 and below 100 (e.g. 99)")
    fallback = str(_given(params, "fallback", blank_is_default) or "llama3")
    if fallback not in FALLBACKS:
        raise FailureParamError("fallback", f"one of {', '.join(FALLBACKS)}")
    return {
        "job_gpus": job,
        "lead_time_days": lead,
        "level": level / 100,
        "fallback": fallback == "llama3",
    }


def revision_failures(revision: DesignRevision, params: dict | None = None) -> dict:
    """``expected_failures`` of ``revision`` with ``params`` (:func:`parse_params`), or
    ``{"unavailable": why}`` for a revision without a fabric.

    Raises
    ------
    FailureParamError
        ``job_gpus`` above the design's GPUs.
    """
    params = dict(params or parse_params({}))
    return cached("failures", [revision_ref(revision), params], lambda: _failures(revision, params))


def _failures(revision: DesignRevision, params: dict) -> dict:
    try:
        fabric = revision_fabric(revision) if revision.topology else None
    except (zlib.error, json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
        fabric = None
    if fabric is None or not fabric.node_count:
        return {"unavailable": NO_FABRIC}
    gpus = int(fabric.info.get("gpus") or 0)
    if params["job_gpus"] is not None and params["job_gpus"] > gpus:
        raise FailureParamError("job_gpus", f"at most the design's {gpus:,} GPUs")
    try:
        return {"unavailable": "", **expected_failures(fabric, catalog_facts(), **params)}
    except ValueError as exc:  # the analysis names the parameter first
        name, _, message = str(exc).partition(": ")
        raise FailureParamError(name, message or str(exc)) from None


def _per_day(value) -> str:
    if value is None:
        return "unknown"
    return f"{value:,.3f}" if value < 10 else f"{value:,.1f}"


def _hours(value) -> str:
    if value is None:
        return "—"
    if value >= 48:
        return f"{value:,.0f} h ({value / 24:,.1f} days)"
    return f"{value:,.1f} h"


FIELD_LABELS = {
    "job_gpus": "Job GPUs",
    "lead_time_days": "Lead time",
    "level": "Service level",
    "fallback": "Rates",
}
BASIS_TEXT = {
    "parts": "catalog MTBF",
    "llama3": "Llama 3 field rate (inferred)",
    "unknown": "no figure",
}


def page_context(request, design, revision: DesignRevision | None) -> dict | None:
    """What the design page's "Expected failures" section shows (its inputs from the
    query string: ``job_gpus``, ``lead_time_days``, ``level``).

    Long because: it formats the failure figures into the section's rows (groups, job,
    spares), each row a dict of formatted columns; a bad query parameter is shown on the page.
    """
    if revision is None:
        return None
    query = request.GET
    inputs = {k: query.get(k, "") for k in ("job_gpus", "lead_time_days", "level")}
    try:
        data = revision_failures(revision, parse_params(query))
        error = None
    except FailureParamError as exc:
        error = {"label": FIELD_LABELS.get(exc.field, exc.field), "message": exc.message}
        data = revision_failures(revision)
    if data.get("unavailable"):
        return {"unavailable": data["unavailable"]}
    groups = [
        {
            "label": g["label"],
            "parts": presentation.number(g["parts"]) if g["parts"] else "on board",
            "per_day": _per_day(g["per_day"]),
            "per_year": "—" if g["per_day"] is None else f"{g['per_day'] * 365:,.0f}",
            "basis": BASIS_TEXT[g["basis"]],
            "unknown": ", ".join(g["unknown"]),
            "partial": g["basis"] == "parts" and not g["complete"],
        }
        for g in data["groups"]
    ]
    job = data["job"] or {}
    spares = data["spares"]
    rows = [
        {
            "label": r["label"],
            "installed": presentation.number(r["installed"]),
            "mean": "—" if r["mean"] is None else f"{r['mean']:,.2f}",
            "spares": presentation.number(r["spares"]),
            "pct": "—" if r["spares_pct"] is None else f"{r['spares_pct']:,.2f} %",
            "basis": BASIS_TEXT[r["basis"]],
        }
        for r in spares["rows"]
    ]
    bom_query = {f"spares_{k}": f"{v:g}" for k, v in spares["bom_pct"].items()}
    bom_url = ""
    if bom_query:
        bom_url = (
            reverse("planner:revision-outputs", args=[design.pk, revision.number])
            + "?"
            + urlencode(bom_query)
        )
    return {
        "unavailable": "",
        "error": error,
        "inputs": inputs,
        "gpus": presentation.number(data["gpus"]),
        "groups": groups,
        "total_per_day": _per_day(data["total_per_day"]),
        "mtbf_between_any": _hours(24 / data["total_per_day"]) if data["total_per_day"] else "—",
        "job": {
            "gpus": presentation.number(job.get("gpus")),
            "servers": presentation.number(job.get("servers")),
            "switches": presentation.number(job.get("switches")),
            "links": presentation.number(job.get("links")),
            "per_day": _per_day(job.get("per_day")),
            "mtbi": _hours(job.get("mtbi_hours")),
            "approximation": job.get("approximation", ""),
        },
        "lead_time_days": presentation.number(spares["lead_time_days"]),
        "level": f"{spares['level'] * 100:g} %",
        "spares": rows,
        "network_spares": spares["network"],
        "network_spares_text": (
            None
            if not spares["network"]
            else f"{spares['network']['spares']:,} spare switches, optics and cables in all "
            f"(mean {spares['network']['mean']:,.2f} failures in the lead time)"
        ),
        "bom_url": bom_url,
        "bom_pct": ", ".join(
            f"{CATEGORIES[k][1]} {v:,.2f} %" for k, v in spares["bom_pct"].items()
        ),
        "notes": data["notes"],
        "source": {"title": LLAMA3["title"], "url": LLAMA3["source"]},
    }
