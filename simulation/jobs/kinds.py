"""Job kinds: what each kind accepts (parameter cleaning), runs, and says when it succeeds.

``KINDS`` maps :class:`~simulation.models.JobKindChoices` to a :class:`JobKind`. A runner gets
the job row and ``on_progress(done, total, message="")`` and returns the result dict; cleaning
raises a ``ValidationError`` keyed ``parameters`` that names the parameter.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from planner.analyses.diagnostics import worker_report
from planner.analyses.reports import (
    Progress,
    fabric_power,
    fabric_simulate,
    fabric_validate,
    scenario_of,
)
from planner.presentation import count, severity_counts
from simulation.jobs.monte_carlo import simulate_monte_carlo
from simulation.models import Job, JobKindChoices

MAX_HOLD_S = 3000
MAX_SIZE_BYTES = 1e13
MAX_SEEDS = 200
MAX_FAIL_LINKS = 10_000


# --- parameters ----------------------------------------------------------------------------------


def _number(parameters: dict, key: str, *, low: float, high: float) -> float | None:
    value = parameters.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValidationError(
            {"parameters": f"{key}: a number from {low:g} to {high:g} (got {value!r})"}
        )
    return value


def _only(parameters: dict, allowed: set[str]) -> None:
    unknown = sorted(set(parameters) - allowed)
    if unknown:
        accepted = ", ".join(sorted(allowed)) or "none"
        raise ValidationError(
            {"parameters": f"unknown parameter(s) {', '.join(unknown)} (accepted: {accepted})"}
        )


def _clean_diagnostics(parameters: dict) -> dict:
    _only(parameters, {"echo", "hold_s"})
    cleaned = {"echo": str(parameters.get("echo", ""))[:200]}
    hold = _number(parameters, "hold_s", low=0, high=MAX_HOLD_S)
    if hold:
        cleaned["hold_s"] = hold
    return cleaned


def _clean_validate(parameters: dict) -> dict:
    _only(parameters, set())
    return {}


def _clean_power(parameters: dict) -> dict:
    _only(parameters, {"pue"})
    pue = _number(parameters, "pue", low=1.0, high=5.0)
    return {"pue": float(pue)} if pue is not None else {}


def _clean_simulate(parameters: dict) -> dict:
    """Traffic, placement and the numbers; ``routing`` (a mode or an old name, stored as the
    mode) only if given: :func:`_check_simulate` gives the design's when it is not."""
    from planner.analyses.flow import FLOWLETS_MAX, ROUTING_ALIASES, ROUTINGS, canonical_routing
    from planner.analyses.scenario import PLACEMENTS, TRAFFICS
    from planner.domain.transport import PFC_MODES

    _only(
        parameters,
        {
            "traffic",
            "routing",
            "seed",
            "size_bytes",
            "fail_links",
            "placement",
            "seeds",
            "flowlets",
            "pfc_mode",
        },
    )
    cleaned = {}
    for key, choices, default in (
        ("traffic", TRAFFICS, "all-reduce"),
        ("placement", PLACEMENTS, "contiguous"),
    ):
        value = parameters.get(key) or default
        if value not in choices:
            raise ValidationError(
                {"parameters": f"{key}: one of {', '.join(choices)} (got {value!r})"}
            )
        cleaned[key] = value
    routing = parameters.get("routing")
    if routing:
        try:
            cleaned["routing"] = canonical_routing(routing)
        except (ValueError, TypeError):
            names = ", ".join(ROUTINGS + tuple(ROUTING_ALIASES))
            raise ValidationError(
                {"parameters": f"routing: one of {names} (got {routing!r})"}
            ) from None
    pfc_mode = parameters.get("pfc_mode")
    if pfc_mode:
        if pfc_mode not in PFC_MODES:
            raise ValidationError(
                {"parameters": f"pfc_mode: one of {', '.join(PFC_MODES)} (got {pfc_mode!r})"}
            )
        cleaned["pfc_mode"] = pfc_mode
    for key, low, high, default in (
        ("seed", 0, 2**31 - 1, 0),
        ("fail_links", 0, MAX_FAIL_LINKS, 0),
        ("seeds", 1, MAX_SEEDS, 1),
        ("flowlets", 1, FLOWLETS_MAX, None),
    ):
        value = _number(parameters, key, low=low, high=high)
        if value is not None and value != int(value):
            raise ValidationError({"parameters": f"{key}: a whole number (got {value!r})"})
        if value is not None or default is not None:
            cleaned[key] = int(value) if value is not None else default
    size = _number(parameters, "size_bytes", low=1, high=MAX_SIZE_BYTES)
    cleaned["size_bytes"] = float(size) if size is not None else 1e9
    if cleaned["seeds"] > 1 and cleaned["traffic"] == "storage-read":
        raise ValidationError(
            {"parameters": "seeds: Monte Carlo is not offered for storage-read; give seeds 1"}
        )
    if "routing" in cleaned:
        _check_routing(cleaned)
    return cleaned


#: Routings whose outcome depends on the hash seed (Monte Carlo over seeds means something).
HASHED_ROUTINGS = ("ecmp", "flowlet")


def _check_routing(cleaned: dict) -> None:
    """What depends on the routing: Monte Carlo needs a hashed one, flowlets needs flowlet."""
    routing = cleaned["routing"]
    if cleaned["seeds"] > 1 and routing not in HASHED_ROUTINGS:
        raise ValidationError(
            {
                "parameters": (
                    "seeds: Monte Carlo over hash seeds is for ecmp or flowlet routing only "
                    f"(routing is {routing})"
                )
            }
        )
    if "flowlets" in cleaned and routing != "flowlet":
        raise ValidationError(
            {"parameters": f"flowlets: only for flowlet routing (routing is {routing})"}
        )


def design_transport_defaults(design_revision):
    """The routing and flow control the revision's transport settings give
    (:func:`planner.analyses.scenario.transport_defaults`), read from the head of its stored
    fabric (:func:`planner.designs.selectors.revision_fabric_info`)."""
    import zlib

    from planner.analyses.scenario import transport_defaults
    from planner.designs.selectors import revision_fabric_info

    try:
        return transport_defaults(revision_fabric_info(design_revision))
    except (ValueError, KeyError, TypeError, zlib.error):  # unreadable: as with no settings
        return transport_defaults({})


def _check_simulate(parameters: dict, design_revision) -> None:
    """``storage-read`` only on a revision with a storage or converged network; without a
    ``routing``, the one the revision's transport settings give (then checked)."""
    from planner.analyses.storage_read import READ_NETWORKS

    if "routing" not in parameters:
        parameters["routing"] = design_transport_defaults(design_revision).routing
        _check_routing(parameters)
    if parameters.get("traffic") != "storage-read":
        return
    networks = (design_revision.summary or {}).get("networks") or {}
    if not any(name in networks for name in READ_NETWORKS):
        raise ValidationError(
            {
                "parameters": (
                    "traffic: storage-read runs on the design's storage network, and revision "
                    f"{design_revision.number} has none: add networks.storage (or "
                    "networks.converged) to the spec, or choose another traffic"
                )
            }
        )


# --- runners -------------------------------------------------------------------------------------


def _run_diagnostics(job: Job, on_progress: Progress) -> dict:
    """Describe the worker; with ``hold_s``, first keep it busy that long (burn-in / soak)."""
    hold = float(job.parameters.get("hold_s") or 0)
    if hold:
        seconds = math.ceil(hold)
        started = time.monotonic()
        for second in range(seconds):
            on_progress(second, seconds, f"holding the worker: {second} of {seconds} s")
            time.sleep(max(0.0, started + min(second + 1, hold) - time.monotonic()))
        on_progress(seconds, seconds, f"held the worker {hold:g} s")
    return worker_report(echo=str(job.parameters.get("echo", ""))).as_dict()


def _revision_fabric(job: Job, on_progress: Progress):
    """The job revision's fabric and the catalog facts (two progress steps)."""
    from planner.designs.adapters import catalog_facts, fabric_unpack

    on_progress(0, 1, "loading the fabric")
    fabric = fabric_unpack(job.design_revision.topology)
    on_progress(0, 1, "reading the catalog")
    return fabric, catalog_facts()


def _run_validate(job: Job, on_progress: Progress) -> dict:
    fabric, facts = _revision_fabric(job, on_progress)
    return fabric_validate(fabric=fabric, facts=facts, on_progress=on_progress)


def _run_power(job: Job, on_progress: Progress) -> dict:
    fabric, facts = _revision_fabric(job, on_progress)
    return fabric_power(
        fabric=fabric, facts=facts, pue=job.parameters.get("pue"), on_progress=on_progress
    )


def _run_simulate(job: Job, on_progress: Progress) -> dict:
    """One scenario; with ``seeds`` > 1, Monte Carlo over hash seeds (:mod:`.monte_carlo`)."""
    from planner.analyses.scenario import STORAGE_TRAFFICS
    from planner.designs.adapters import fabric_unpack

    if int(job.parameters.get("seeds") or 1) > 1:
        return simulate_monte_carlo(job, on_progress)
    if job.parameters.get("traffic") in STORAGE_TRAFFICS:  # the storage network's elements
        fabric, facts = _revision_fabric(job, on_progress)
        return fabric_simulate(
            fabric=fabric, facts=facts, on_progress=on_progress, **scenario_of(job.parameters)
        )
    on_progress(0, 1, "loading the fabric")
    fabric = fabric_unpack(job.design_revision.topology)
    return fabric_simulate(fabric=fabric, on_progress=on_progress, **scenario_of(job.parameters))


# --- outcomes (the one line a jobs list shows) ---------------------------------------------------


def _outcome_diagnostics(result: dict) -> str:
    return f"{result.get('hostname', '?')} pid {result.get('pid', '?')}"


def _outcome_validate(result: dict) -> str:
    problems = result.get("problems") or []
    if not problems:
        return "no problems"
    return severity_counts(Counter(p.get("severity") or "info" for p in problems))


def _outcome_simulate(result: dict) -> str:
    from planner.analyses.flow import ROUTING_ALIASES

    routing = result.get("routing", "?")
    routing = ROUTING_ALIASES.get(routing, routing)
    read = result.get("storage_read")
    if read:
        rate = (read.get("read_gbytes_per_node") or {}).get("min") or 0
        text = f"storage-read {routing}: {rate:,.1f} GB/s per node (min)"
        if read.get("bottleneck_tiers"):
            text += f", limited by {' and '.join(read['bottleneck_tiers'])}"
        return text
    text = (
        f"{result.get('traffic', '?')} {routing}: busbw {result.get('busbw_gbps') or 0:,.1f} Gb/s"
    )
    if result.get("efficiency") is not None:
        text += f" ({result['efficiency']:.0%} of bound)"
    congestion = result.get("congestion") or {}
    if congestion.get("spreads") and congestion.get("paused_links"):
        text += f", pause reaches {count(congestion['paused_links'], 'link')}"
    mc = result.get("monte_carlo")
    if mc:
        text += f", {mc['seeds']} seeds p90 {mc['completion_time_s']['p90'] * 1e3:,.2f} ms"
    return text


def _outcome_power(result: dict) -> str:
    text = f"{(result.get('total_w') or 0) / 1000:,.1f} kW"
    over = sum(1 for p in result.get("problems") or [] if p.get("code") == "rack-power-over-limit")
    if over:
        text += f", {count(over, 'rack')} over the limit"
    unknown = (result.get("confidence") or {}).get("unknown") or 0
    if unknown:
        text += f", {unknown:.1%} unknown"
    return text


@dataclass(frozen=True)
class JobKind:
    """How a kind of job is checked, run and summarized."""

    runner: Callable[[Job, Progress], dict]
    clean: Callable[[dict], dict]
    outcome: Callable[[dict], str]
    needs_revision: bool
    reusable: bool  # a succeeded job with the same input hash is returned instead of a new run
    #: ``check(parameters, design_revision)``: raises ``ValidationError`` when the cleaned
    #: parameters do not suit the revision (e.g. a traffic its design has no network for)
    check: Callable[[dict, object], None] | None = None


KINDS: dict[str, JobKind] = {
    JobKindChoices.DIAGNOSTICS: JobKind(
        _run_diagnostics, _clean_diagnostics, _outcome_diagnostics, False, False
    ),
    JobKindChoices.VALIDATE: JobKind(_run_validate, _clean_validate, _outcome_validate, True, True),
    JobKindChoices.POWER: JobKind(_run_power, _clean_power, _outcome_power, True, True),
    JobKindChoices.SIMULATE: JobKind(
        _run_simulate, _clean_simulate, _outcome_simulate, True, True, _check_simulate
    ),
}
