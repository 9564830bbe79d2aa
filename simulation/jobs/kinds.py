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
from planner.analyses.errors import JobInputError
from planner.analyses.reports import (
    Progress,
    fabric_power,
    fabric_simulate,
    fabric_validate,
    scenario_of,
)
from planner.analyses.resilience.whatif import COLLECTIVES, parse_failed, run_whatif
from planner.analyses.sweep import AXES
from planner.designs.adapters import catalog_facts, fabric_unpack
from planner.designs.selectors import revision_fabric, revision_fabric_settings
from planner.domain.transport import PFC_MODES
from planner.presentation import count, severity_counts
from simulation.jobs.monte_carlo import simulate_monte_carlo
from simulation.jobs.sweep import run_sweep
from simulation.models import Job, JobKindChoices

MAX_HOLD_S = 3000
MAX_SIZE_BYTES = 1e13
MAX_SEEDS = 200
MAX_FAIL_LINKS = 10_000


# --- parameters ----------------------------------------------------------------------------------


def _plain(value) -> str:
    """A bound or a given value as a person writes it: ``2,000,000``, ``0.5``, ``-1``;
    ``infinity`` and ``not a number`` for the non-finite; any other value quoted."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"“{str(value)[:40]}”"
    if math.isnan(value):
        return "not a number"
    if math.isinf(value):
        return "infinity" if value > 0 else "minus infinity"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6g}"


def _number(parameters: dict, key: str, *, low: float, high: float) -> float | None:
    value = parameters.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValidationError(
            {
                "parameters": f"{key}: a number from {_plain(low)} to {_plain(high)} "
                f"(got {_plain(value)})"
            }
        )
    return value


def _only(parameters: dict, allowed: set[str]) -> None:
    unknown = sorted(set(parameters) - allowed)
    if unknown:
        accepted = ", ".join(sorted(allowed)) or "none"
        raise ValidationError(
            {"parameters": f"unknown parameter(s) {', '.join(unknown)} (accepted: {accepted})"}
        )


def _routing(parameters: dict) -> str | None:
    """The ``routing`` parameter's canonical name (None when not given)."""
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.flow import ROUTING_ALIASES, ROUTINGS, canonical_routing

    routing = parameters.get("routing")
    if not routing:
        return None
    try:
        return canonical_routing(routing)
    except (ValueError, TypeError):
        names = ", ".join(ROUTINGS + tuple(ROUTING_ALIASES))
        raise _problem(f"routing: one of {names} (got {routing!r})") from None


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
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.flow import FLOWLETS_MAX
    from planner.analyses.scenario import PLACEMENTS, TRAFFICS

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
    if routing := _routing(parameters):
        cleaned["routing"] = routing
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


def _problem(message: str) -> ValidationError:
    return ValidationError({"parameters": message})


def _axis(parameters: dict, key: str) -> list | None:
    """A sweep axis: a list of values, or one value (a list of one); None when not given."""
    value = parameters.get(key)
    if value is None:
        return None
    values = list(value) if isinstance(value, list | tuple) else [value]
    if not values:
        raise _problem(f"{key}: give at least one value (or leave it out)")
    return values


def _whole_numbers(values: list, key: str, *, low: int, high: int) -> list[int]:
    for value in values:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not low <= value <= high  # before int(): NaN and infinity are out of range
            or value != int(value)
        ):
            raise _problem(f"{key}: whole numbers from {low:,} to {high:,} (got {value!r})")
    return sorted({int(v) for v in values})


def _choices(values: list, key: str, choices: tuple, canonical=None) -> list[str]:
    """The values in the order of ``choices`` (``canonical`` maps an old name to its value)."""
    chosen = set()
    for value in values:
        try:
            name = canonical(value) if canonical else value
        except (ValueError, TypeError):
            name = None
        if name not in choices:
            raise _problem(f"{key}: each one of {', '.join(choices)} (got {value!r})")
        chosen.add(name)
    return [name for name in choices if name in chosen]


def _clean_sweep(parameters: dict) -> dict:
    """A sweep's traffic, its axes (``fail_links``, ``size_bytes``, ``placement``, ``routing``:
    each a list or one value) and Monte Carlo ``seeds`` per point; the points (the cross
    product of the axes) and runs (points x seeds) are capped. Numeric axes are sorted and
    repeated values dropped; ``routing`` is left out when not given: :func:`_check_sweep`
    gives the design's."""
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.flow import FLOWLETS_MAX, ROUTINGS, canonical_routing
    from planner.analyses.scenario import PLACEMENTS, STORAGE_TRAFFICS, TRAFFICS
    from planner.analyses.sweep import AXES, MAX_POINTS, MAX_RUNS, MAX_SEEDS

    _only(parameters, {*AXES, "traffic", "seeds", "seed", "flowlets", "pfc_mode"})
    swept = [t for t in TRAFFICS if t not in STORAGE_TRAFFICS]
    traffic = parameters.get("traffic") or "all-reduce"
    if traffic not in swept:
        raise _problem(
            f"traffic: one of {', '.join(swept)} (got {traffic!r}; storage-read is not swept)"
        )
    cleaned = {"traffic": traffic}
    fail_links = _axis(parameters, "fail_links") or [0]
    cleaned["fail_links"] = _whole_numbers(fail_links, "fail_links", low=0, high=MAX_FAIL_LINKS)
    sizes = _axis(parameters, "size_bytes") or [1e9]
    for value in sizes:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 1 <= value <= MAX_SIZE_BYTES
        ):
            raise _problem(f"size_bytes: numbers from 1 to {MAX_SIZE_BYTES:g} (got {value!r})")
    cleaned["size_bytes"] = sorted({float(v) for v in sizes})
    cleaned["placement"] = _choices(
        _axis(parameters, "placement") or ["contiguous"], "placement", PLACEMENTS
    )
    routings = _axis(parameters, "routing")
    if routings is not None:
        cleaned["routing"] = _choices(routings, "routing", ROUTINGS, canonical_routing)
    for key, low, high, default in (
        ("seeds", 1, MAX_SEEDS, 1),
        ("seed", 0, 2**31 - 1, 0),
        ("flowlets", 1, FLOWLETS_MAX, None),
    ):
        value = _number(parameters, key, low=low, high=high)
        if value is not None and value != int(value):
            raise _problem(f"{key}: a whole number (got {value!r})")
        if value is not None or default is not None:
            cleaned[key] = int(value) if value is not None else default
    pfc_mode = parameters.get("pfc_mode")
    if pfc_mode:
        if pfc_mode not in PFC_MODES:
            raise _problem(f"pfc_mode: one of {', '.join(PFC_MODES)} (got {pfc_mode!r})")
        cleaned["pfc_mode"] = pfc_mode
    counts = {axis: len(cleaned.get(axis) or [None]) for axis in AXES}
    points = math.prod(counts.values())
    if points > MAX_POINTS:
        named = [axis for axis in AXES if counts[axis] > 1]
        raise _problem(
            f"{' × '.join(named)}: {' × '.join(str(counts[a]) for a in named)} = {points:,} "
            f"points; a sweep has at most {MAX_POINTS:,}"
        )
    runs = points * cleaned["seeds"]
    if runs > MAX_RUNS:
        raise _problem(
            f"seeds: {count(points, 'point')} × {cleaned['seeds']} seeds = {runs:,} runs; a sweep "
            f"has at most {MAX_RUNS:,}"
        )
    if "routing" in cleaned:
        _check_sweep_routing(cleaned)
    return cleaned


def _check_sweep_routing(cleaned: dict) -> None:
    if "flowlets" in cleaned and "flowlet" not in cleaned["routing"]:
        raise _problem(
            "flowlets: only for flowlet routing (the sweep's routing is "
            f"{', '.join(cleaned['routing'])})"
        )


def _clean_size_sweep(parameters: dict) -> dict:
    """A message-size sweep: the ring collective (``traffic``), ``rings`` (``rail``: NCCL's
    ring per NIC, the default; ``flat``: one ring through every GPU's NIC), ``routing`` (a
    mode or an old name; the design's when not given), ``gpus`` (whole servers from the
    first; every GPU when not given), ``seed`` (ECMP hashing), ``switch_latency_ns`` (every
    switch's port-to-port latency instead of the catalog's) and ``overhead_us`` (a fixed cost
    per ring step)."""
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.size_sweep import RINGS, TRAFFICS

    _only(
        parameters,
        {"traffic", "rings", "routing", "gpus", "seed", "switch_latency_ns", "overhead_us"},
    )
    traffic = parameters.get("traffic") or "all-reduce"
    if traffic not in TRAFFICS:
        raise _problem(f"traffic: one of {', '.join(TRAFFICS)} (got {traffic!r})")
    rings = parameters.get("rings") or "rail"
    if rings not in RINGS:
        raise _problem(f"rings: one of {', '.join(RINGS)} (got {rings!r})")
    cleaned = {"traffic": traffic, "rings": rings}
    if routing := _routing(parameters):
        cleaned["routing"] = routing
    for key, low, high in (("gpus", 2, 2_000_000), ("seed", 0, 2**31 - 1)):
        value = _number(parameters, key, low=low, high=high)
        if value is not None:
            if value != int(value):
                raise _problem(f"{key}: a whole number (got {value!r})")
            cleaned[key] = int(value)
    cleaned.setdefault("seed", 0)
    for key, high in (("switch_latency_ns", 1e6), ("overhead_us", 1e4)):
        value = _number(parameters, key, low=0, high=high)
        if value is not None:
            cleaned[key] = float(value)
    return cleaned


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
        _check_sweep_routing(parameters)
    available = _switch_links(design_revision)
    most = max(parameters["fail_links"])
    if available is not None and most > available:
        raise _problem(
            f"fail_links: at most {available:,}, the switch-to-switch links of revision "
            f"{design_revision.number} (got {most:,})"
        )


#: Most elements and domains one what-if fails at once.
MAX_WHATIF_FAILED = 1_000


def _failed_list(parameters: dict) -> list[str]:
    """The what-if's ``failed``: a list of element or domain ids (``node:<name>``,
    ``link:<i>``, ``rack:<name>``...), repeats dropped, order kept."""
    failed = parameters.get("failed")
    if isinstance(failed, str):
        failed = [failed]
    if not isinstance(failed, list | tuple) or not failed:
        raise _problem(
            'failed: a list of element or domain ids, e.g. ["node:spine-01"] or ["rack:R001-01"]'
        )
    if len(failed) > MAX_WHATIF_FAILED:
        raise _problem(f"failed: at most {MAX_WHATIF_FAILED:,} ids (got {len(failed):,})")
    out = []
    for element in failed:
        if not isinstance(element, str) or ":" not in element or len(element) > 200:
            raise _problem(
                f"failed: each an id such as node:<name> or rack:<name> (got {element!r})"
            )
        if element not in out:
            out.append(element)
    return out


def _clean_whatif(parameters: dict) -> dict:
    """A what-if failure: ``failed`` (ids, checked against the revision by
    :func:`_check_whatif`), the collective (``traffic``: ring all-reduce or all-to-all),
    ``size_bytes``, ``routing`` (a mode or an old name; the design's when not given), ``seed``
    (ECMP hashing) and ``flowlets`` (flowlet routing only)."""
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.flow import FLOWLETS_MAX

    _only(parameters, {"failed", "traffic", "size_bytes", "routing", "seed", "flowlets"})
    cleaned = {"failed": _failed_list(parameters)}
    traffic = parameters.get("traffic") or "all-reduce"
    if traffic not in COLLECTIVES:
        raise _problem(f"traffic: one of {', '.join(COLLECTIVES)} (got {traffic!r})")
    cleaned["traffic"] = traffic
    if routing := _routing(parameters):
        cleaned["routing"] = routing
    for key, low, high, default in (("seed", 0, 2**31 - 1, 0), ("flowlets", 1, FLOWLETS_MAX, None)):
        value = _number(parameters, key, low=low, high=high)
        if value is not None and value != int(value):
            raise _problem(f"{key}: a whole number (got {value!r})")
        if value is not None or default is not None:
            cleaned[key] = int(value) if value is not None else default
    size = _number(parameters, "size_bytes", low=1, high=MAX_SIZE_BYTES)
    cleaned["size_bytes"] = float(size) if size is not None else 1e9
    if "flowlets" in cleaned and cleaned.get("routing", "flowlet") != "flowlet":
        raise _problem(f"flowlets: only for flowlet routing (routing is {cleaned['routing']})")
    return cleaned


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
    JobKindChoices.SWEEP: JobKind(
        run_sweep, _clean_sweep, _outcome_sweep, True, True, _check_sweep
    ),
    JobKindChoices.SIZE_SWEEP: JobKind(
        _run_size_sweep,
        _clean_size_sweep,
        _outcome_size_sweep,
        True,
        True,
        _check_size_sweep,
    ),
    JobKindChoices.WHATIF: JobKind(
        _run_whatif, _clean_whatif, _outcome_whatif, True, True, _check_whatif
    ),
}
