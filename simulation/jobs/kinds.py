"""Job kinds: what each kind accepts (its parameters' serializer and the checks against the
revision), runs, and says when it succeeds.

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
from planner.analyses.errors import JobInputError
from planner.analyses.reports import (
    Progress,
    fabric_power,
    fabric_simulate,
    fabric_validate,
    scenario_of,
)
from planner.analyses.resilience.whatif import parse_failed, run_whatif
from planner.analyses.sweep import AXES
from planner.designs.adapters import catalog_facts, fabric_unpack
from planner.designs.selectors import revision_fabric, revision_fabric_settings
from planner.presentation import count, severity_counts
from simulation.jobs.explore import check_requirements, explore_outcome, run_explore
from simulation.jobs.monte_carlo import simulate_monte_carlo
from simulation.jobs.parameters import (
    DiagnosticsParameters,
    ExploreParameters,
    JobParameters,
    PowerParameters,
    SimulateParameters,
    SizeSweepParameters,
    SweepParameters,
    ValidateParameters,
    WhatifParameters,
    routing_problem,
    sweep_routing_problem,
)
from simulation.jobs.sweep import run_sweep
from simulation.models import Job, JobKindChoices

# --- parameters ----------------------------------------------------------------------------------
# Each kind's parameters are a serializer (simulation.jobs.parameters); the checks below need
# the revision.


def _problem(message: str) -> ValidationError:
    return ValidationError({"parameters": message})


def _check_size_sweep(parameters: dict, design_revision) -> None:
    """Without a ``routing``, the one the revision's transport settings give; ``gpus`` whole
    servers of the revision, at most all of its GPUs (from its summary, when it says)."""
    if "routing" not in parameters:
        parameters["routing"] = design_transport_defaults(design_revision).routing
    gpus = parameters.get("gpus")
    summary = design_revision.summary or {}
    total, servers = summary.get("gpus"), summary.get("servers")
    if gpus is None or not isinstance(total, int) or not isinstance(servers, int) or not servers:
        return
    if gpus > total:
        raise _problem(
            f"gpus: at most the {total:,} GPUs of revision {design_revision.number} (got {gpus:,})"
        )
    per = total // servers
    if per and total == per * servers and gpus % per:
        raise _problem(f"gpus: whole servers of {per} GPUs, a multiple of {per} (got {gpus:,})")


def _switch_links(design_revision) -> int | None:
    """The switch-to-switch links of the revision (what ``fail_links`` picks from), from its
    summary; None when the summary does not say."""
    links = (design_revision.summary or {}).get("links")
    if not isinstance(links, dict) or not links:
        return None
    return sum(int(n) for tier, n in links.items() if tier != "server-leaf")


def _check_sweep(parameters: dict, design_revision) -> None:
    """Without a ``routing``, the one the revision's transport settings give; the most failed
    links no more than the revision's switch-to-switch links."""
    if "routing" not in parameters:
        parameters["routing"] = [design_transport_defaults(design_revision).routing]
        if problem := sweep_routing_problem(parameters):
            raise _problem(problem)
    available = _switch_links(design_revision)
    most = max(parameters["fail_links"])
    if available is not None and most > available:
        raise _problem(
            f"fail_links: at most {available:,}, the switch-to-switch links of revision "
            f"{design_revision.number} (got {most:,})"
        )


def _check_whatif(parameters: dict, design_revision) -> None:
    """Every failed id names an element or domain of the revision; without a ``routing``, the
    one the revision's transport settings give."""
    import json
    import zlib

    if "routing" not in parameters:
        parameters["routing"] = design_transport_defaults(design_revision).routing
    if "flowlets" in parameters and parameters["routing"] != "flowlet":
        raise _problem(f"flowlets: only for flowlet routing (routing is {parameters['routing']})")
    try:
        fabric = revision_fabric(design_revision) if design_revision.topology else None
    except (zlib.error, json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
        fabric = None
    if fabric is None or not fabric.node_count:
        raise _problem(f"failed: revision {design_revision.number} has no stored fabric")
    try:
        parse_failed(fabric, parameters["failed"])
    except JobInputError as exc:
        raise _problem(exc.message) from None


def design_transport_defaults(design_revision):
    """The routing and flow control the revision's transport settings give
    (:func:`planner.analyses.scenario.transport_defaults`), read from the head of its stored
    fabric (:func:`planner.designs.selectors.revision_fabric_settings`)."""
    import zlib

    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.scenario import transport_defaults

    try:
        return transport_defaults(revision_fabric_settings(design_revision).transport)
    except (ValueError, KeyError, TypeError, zlib.error):  # unreadable: as with no settings
        return transport_defaults(None)


def _check_simulate(parameters: dict, design_revision) -> None:
    """``storage-read`` only on a revision with a storage or converged network; without a
    ``routing``, the one the revision's transport settings give (then checked)."""
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.storage_read import READ_NETWORKS

    if "routing" not in parameters:
        parameters["routing"] = design_transport_defaults(design_revision).routing
        if problem := routing_problem(parameters):
            raise _problem(problem)
    if parameters["routing"] == "opensm":
        transport = design_transport_defaults(design_revision)
        if transport.flow_control != "credit" and transport.reason.startswith("RoCE"):
            raise _problem(
                "routing: opensm is for an InfiniBand design; this one runs RoCE (Ethernet), "
                "which has no subnet manager: choose rail, ecmp, flowlet or spraying"
            )
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
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.scenario import STORAGE_TRAFFICS

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


def _run_size_sweep(job: Job, on_progress: Progress) -> dict:
    """busbw against message size (:func:`planner.analyses.size_sweep.run_size_sweep`), with
    the catalog's link and switch latencies."""
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.size_sweep import catalog_latency, run_size_sweep

    fabric, facts = _revision_fabric(job, on_progress)
    link_ns, node_ns, notes = catalog_latency(fabric, facts)
    keys = ("traffic", "rings", "routing", "gpus", "seed", "switch_latency_ns", "overhead_us")
    params = {key: job.parameters[key] for key in keys if key in job.parameters}
    return run_size_sweep(
        fabric,
        link_ns=link_ns,
        node_ns=node_ns,
        notes=notes,
        on_progress=on_progress,
        **params,
    )


def _run_whatif(job: Job, on_progress: Progress) -> dict:
    """The failure's blast radius and the collective before and after it
    (:func:`planner.analyses.resilience.whatif.run_whatif`)."""
    on_progress(0, 1, "loading the fabric")
    fabric = fabric_unpack(job.design_revision.topology)
    keys = ("failed", "traffic", "size_bytes", "routing", "seed", "flowlets")
    params = {key: job.parameters[key] for key in keys if key in job.parameters}
    return run_whatif(fabric, on_progress=on_progress, **params)


# --- outcomes (the one line a jobs list shows) ---------------------------------------------------


def _outcome_diagnostics(result: dict) -> str:
    return f"{result.get('hostname', '?')} pid {result.get('pid', '?')}"


def _outcome_validate(result: dict) -> str:
    problems = result.get("problems") or []
    if not problems:
        return "no problems"
    return severity_counts(Counter(p.get("severity") or "info" for p in problems))


def _outcome_simulate(result: dict) -> str:
    # Lazy: it loads numba (about 1 s); only simulating needs it.
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


def _outcome_sweep(result: dict) -> str:
    points = [p for p in result.get("points") or [] if "busbw_gbps" in p]
    varying = [a for a in result.get("varying") or [] if a in AXES]
    words = {"fail_links": "failed links", "size_bytes": "message size"}
    over = f" over {' × '.join(words.get(a, a) for a in varying)}" if varying else ""
    text = (
        f"{count(result.get('points_total') or 0, 'point')} × "
        f"{count(result.get('seeds') or 1, 'seed')}{over}"
    )
    if points:
        p50 = [p["busbw_gbps"]["p50"] for p in points]
        text += f": busbw p50 {min(p50):,.1f}–{max(p50):,.1f} Gb/s"
    return text


def _outcome_size_sweep(result: dict) -> str:
    points = result.get("points") or []
    if not points:
        return "no sizes"
    last = points[-1]
    return (
        f"{result.get('traffic', '?')} on {count(result.get('gpus') or 0, 'GPU')}"
        f"{', ' + count(result['ring_count'], 'ring') if result.get('ring_count') else ''}: busbw "
        f"{last['busbw_gbytes_s']:,.1f} GB/s at {last['size_bytes'] / 2**30:,.0f} GiB, "
        f"{points[0]['time_s'] * 1e6:,.1f} µs at {points[0]['size_bytes']:,} B"
    )


def _outcome_whatif(result: dict) -> str:
    whatif = result.get("whatif") or {}
    gpus = whatif.get("gpus") or {}
    failed = whatif.get("failed") or []
    text = failed[0] if len(failed) == 1 else count(len(failed), "element")
    text += f": {count(gpus.get('lost') or 0, 'GPU')} lost"
    before, after = result.get("before") or {}, result.get("after") or {}
    if before.get("completion_time_s") and after.get("completion_time_s"):
        text += (
            f"; {result.get('traffic', '?')} {before['completion_time_s'] * 1e3:,.2f} → "
            f"{after['completion_time_s'] * 1e3:,.2f} ms"
        )
    elif after.get("error"):
        text += "; no run after the failure"
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
    #: the kind's parameters: ``parameters.clean(raw)`` is the one validation path, and
    #: ``parameters.json_schema()`` what the OpenAPI schema shows
    parameters: type[JobParameters]
    outcome: Callable[[dict], str]
    needs_revision: bool
    reusable: bool  # a succeeded job with the same input hash is returned instead of a new run
    #: ``check(parameters, design_revision)``: raises ``ValidationError`` when the cleaned
    #: parameters do not suit the revision (e.g. a traffic its design has no network for)
    check: Callable[[dict, object], None] | None = None
    #: ``owner_check(parameters, owner)``: raises ``ValidationError`` when the cleaned
    #: parameters name something the owner may not use (an explore budget's price book)
    owner_check: Callable[[dict, object], None] | None = None

    def clean(self, parameters: dict) -> dict:
        """The cleaned parameters, or a ``ValidationError`` keyed ``parameters``."""
        return self.parameters.clean(parameters)


KINDS: dict[str, JobKind] = {
    JobKindChoices.DIAGNOSTICS: JobKind(
        _run_diagnostics, DiagnosticsParameters, _outcome_diagnostics, False, False
    ),
    JobKindChoices.VALIDATE: JobKind(
        _run_validate, ValidateParameters, _outcome_validate, True, True
    ),
    JobKindChoices.POWER: JobKind(_run_power, PowerParameters, _outcome_power, True, True),
    JobKindChoices.SIMULATE: JobKind(
        _run_simulate, SimulateParameters, _outcome_simulate, True, True, _check_simulate
    ),
    JobKindChoices.SWEEP: JobKind(
        run_sweep, SweepParameters, _outcome_sweep, True, True, _check_sweep
    ),
    JobKindChoices.SIZE_SWEEP: JobKind(
        _run_size_sweep,
        SizeSweepParameters,
        _outcome_size_sweep,
        True,
        True,
        _check_size_sweep,
    ),
    JobKindChoices.WHATIF: JobKind(
        _run_whatif, WhatifParameters, _outcome_whatif, True, True, _check_whatif
    ),
    # Not reusable: the catalog and the price book's offers may change between two runs.
    JobKindChoices.EXPLORE: JobKind(
        run_explore,
        ExploreParameters,
        explore_outcome,
        False,
        False,
        owner_check=check_requirements,
    ),
}
