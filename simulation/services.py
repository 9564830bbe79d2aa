"""Writes for jobs: enqueue on commit, execute idempotently, cancel, recover lost runs.

House style (STYLE.md §2.6): the :class:`~simulation.models.Job` row holds all state; the task
id is the row id and the task is sent once the row is committed; tasks get ids, never objects;
no result backend; executing a finished job does nothing.

Life of a job::

    queued --worker claims--> running --runner returns--> succeeded
       |                         |  \\--runner raises----> failed
       |                         |   \\-heartbeat stale--> queued again (attempts < max) or failed
       |                         |    \\-process lost---> taken over by the redelivered task
       \\--cancel--> cancelled <--/ (the runner sees it at its next progress report)

A running job's worker writes ``heartbeat`` from a background thread every
``JOBS_HEARTBEAT_INTERVAL_S`` and with each progress report (at most about once a second).
:func:`job_recover_stale` runs from a self-rescheduling Celery task that every worker starts
(``simulation.recover_stale``) and from the jobs pages and API.

A run that dies with only its pool process (SIGKILL, out of memory) does not wait for that
sweep: Celery requeues the task at once (``acks_late`` + ``reject_on_worker_lost``), and the
redelivered task takes the run over when the process that claimed it is gone. A claim records
that process in ``worker`` (``"<node> [pid N on <machine>, t<start>]"``): on the same machine
the task sees at once whether it still lives; from another machine a *redelivered* task watches
the heartbeat for two beats instead. A takeover counts an attempt like any other, and writes of
the old attempt are fenced by ``attempts``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from planner.audit import audit_record
from planner.models import AuditActionChoices
from planner.presentation import severity_counts
from simulation.engine.diagnostics import worker_report
from simulation.models import (
    ACTIVE_STATUSES,
    Job,
    JobKindChoices,
    JobStatusChoices,
    JobSweep,
)

logger = logging.getLogger(__name__)

#: Publishing to a broker that does not answer gives up after about a second.
DISPATCH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.3,
    "interval_max": 0.5,
}
PROGRESS_INTERVAL_S = 1.0
#: Set from the job's revision, never by the caller.
DESIGN_KEYS = ("design", "revision")
MAX_HOLD_S = 3000


class JobError(Exception):
    """A job cannot be started; the message says why and what to do."""


class JobLimitError(JobError):
    """The user already has ``JOBS_MAX_CONCURRENT_PER_USER`` jobs queued or running, or
    started ``JOBS_MAX_PER_MINUTE_PER_USER`` in the last minute (``retry_after_s`` says when
    to try again; 0 = when a job finishes)."""

    def __init__(self, message: str, *, retry_after_s: int = 0):
        super().__init__(message)
        self.retry_after_s = retry_after_s


class JobDispatchError(JobError):
    """The task could not be sent to the broker; the job row is marked failed."""


class JobCancelled(Exception):
    """Raised inside a runner when its row is no longer this run's (cancelled or taken over)."""


# --- settings ------------------------------------------------------------------------------------


def _setting(name: str, default: float) -> float:
    return getattr(settings, name, default)


def heartbeat_timeout_s() -> float:
    return float(_setting("JOBS_HEARTBEAT_TIMEOUT_S", 60))


def max_attempts() -> int:
    return int(_setting("JOBS_MAX_ATTEMPTS", 3))


def max_concurrent() -> int:
    return int(_setting("JOBS_MAX_CONCURRENT_PER_USER", 4))


def max_per_minute() -> int:
    return int(_setting("JOBS_MAX_PER_MINUTE_PER_USER", 30))


def heartbeat_interval_s() -> float:
    return float(_setting("JOBS_HEARTBEAT_INTERVAL_S", max(0.5, heartbeat_timeout_s() / 6)))


def recovery_interval_s() -> float:
    return float(_setting("JOBS_RECOVERY_INTERVAL_S", max(1.0, heartbeat_timeout_s() / 2)))


# --- progress ------------------------------------------------------------------------------------

Progress = Callable[..., None]


class _ProgressWriter:
    """``on_progress(done, total, message="")`` for runners: writes progress and heartbeat at
    most once per ``interval`` (and always the last step), and raises :class:`JobCancelled`
    when the row is no longer this run's."""

    def __init__(self, job_id, attempt: int, interval: float = PROGRESS_INTERVAL_S):
        self.job_id, self.attempt, self.interval = job_id, attempt, interval
        self._last = -math.inf

    def __call__(self, done, total, message: str = "", **_ignored) -> None:
        now = time.monotonic()
        if now - self._last < self.interval and done < total:
            return
        self._last = now
        updated = Job.objects.filter(
            pk=self.job_id, status=JobStatusChoices.RUNNING, attempts=self.attempt
        ).update(
            progress_done=max(0, int(done)),
            progress_total=max(0, int(total)),
            progress_message=str(message or "")[:200],
            heartbeat=timezone.now(),
        )
        if not updated:
            raise JobCancelled(f"job {self.job_id} was cancelled or taken over")


class _Heartbeat:
    """A daemon thread that refreshes the row's heartbeat while the runner computes."""

    def __init__(self, job_id, attempt: int, interval: float):
        self.job_id, self.attempt, self.interval = job_id, attempt, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{job_id}", daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                try:
                    alive = Job.objects.filter(
                        pk=self.job_id, status=JobStatusChoices.RUNNING, attempts=self.attempt
                    ).update(heartbeat=timezone.now())
                except Exception:  # noqa: BLE001 - a missed beat is retried at the next tick
                    logger.warning("heartbeat of job %s not written", self.job_id, exc_info=True)
                    continue
                if not alive:
                    return
        finally:
            connection.close()  # this thread's own connection


# --- job kinds -----------------------------------------------------------------------------------


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


MAX_SIZE_BYTES = 1e13
MAX_SEEDS = 200
MAX_FAIL_LINKS = 10_000


def _clean_simulate(parameters: dict) -> dict:
    from simulation.engine.flow import ROUTINGS
    from simulation.engine.scenario import PLACEMENTS, TRAFFICS

    _only(
        parameters,
        {"traffic", "routing", "seed", "size_bytes", "fail_links", "placement", "seeds"},
    )
    cleaned = {}
    for key, choices, default in (
        ("traffic", TRAFFICS, "all-reduce"),
        ("routing", ROUTINGS, "ecmp"),
        ("placement", PLACEMENTS, "contiguous"),
    ):
        value = parameters.get(key) or default
        if value not in choices:
            raise ValidationError(
                {"parameters": f"{key}: one of {', '.join(choices)} (got {value!r})"}
            )
        cleaned[key] = value
    for key, low, high, default in (
        ("seed", 0, 2**31 - 1, 0),
        ("fail_links", 0, MAX_FAIL_LINKS, 0),
        ("seeds", 1, MAX_SEEDS, 1),
    ):
        value = _number(parameters, key, low=low, high=high)
        if value is not None and value != int(value):
            raise ValidationError({"parameters": f"{key}: a whole number (got {value!r})"})
        cleaned[key] = int(value) if value is not None else default
    size = _number(parameters, "size_bytes", low=1, high=MAX_SIZE_BYTES)
    cleaned["size_bytes"] = float(size) if size is not None else 1e9
    if cleaned["seeds"] > 1 and cleaned["routing"] != "ecmp":
        raise ValidationError(
            {"parameters": "seeds: Monte Carlo over hash seeds is for ecmp routing only"}
        )
    return cleaned


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
    from planner.adapters import catalog_facts, fabric_unpack

    on_progress(0, 1, "loading the fabric")
    fabric = fabric_unpack(job.design_revision.topology)
    on_progress(0, 1, "reading the catalog")
    return fabric, catalog_facts()


def fabric_validate(*, fabric, facts, on_progress: Progress | None = None) -> dict:
    """Validate a fabric's links (``engine.validate.validate_fabric``); the report as a dict.

    The one code path of the ``validate`` job and ``manage.py fabric validate``.
    """
    from simulation.engine.validate import validate_fabric

    return validate_fabric(fabric, facts, on_progress=on_progress).as_dict()


def fabric_power(*, fabric, facts, pue=None, on_progress: Progress | None = None) -> dict:
    """Power and thermal budget of a fabric (``engine.power.power_budget``) as a dict.

    The one code path of the ``power`` job and ``manage.py fabric power``.
    """
    from simulation.engine.power import power_budget

    return power_budget(fabric, facts, pue=pue, on_progress=on_progress).as_dict()


SCENARIO_KEYS = ("traffic", "routing", "seed", "size_bytes", "fail_links", "placement")


def fabric_simulate(
    *,
    fabric,
    on_progress: Progress | None = None,
    summary_only: bool = False,
    keep=None,
    **scenario,
) -> dict:
    """Flow simulation of one scenario (``engine.scenario.run_scenario``) as a dict.

    The one code path of the ``simulate`` job (each Monte Carlo seed too) and
    ``manage.py fabric simulate``.
    """
    from simulation.engine.scenario import run_scenario

    return run_scenario(
        fabric, on_progress=on_progress, summary_only=summary_only, keep=keep, **scenario
    )


def _scenario(parameters: dict) -> dict:
    return {k: parameters[k] for k in SCENARIO_KEYS if k in parameters}


# Monte Carlo (ecmp, seeds > 1). No result backend is used (STYLE.md §2.6), so no chord
# callback: the job's runner sends a Celery group of ``simulation.simulate_seed`` subtasks (one
# per extra hash seed) and collects their summaries from the job row itself
# (``result["monte_carlo"]`` while the job runs: ``claimed`` and ``done`` by seed). Every seed
# is claimed under a row lock by whoever reaches it first, the runner included, so the job
# finishes even with one worker process (the runner then computes the seeds itself), and a seed
# whose subtask was lost (claimed, not done for JOBS_HEARTBEAT_TIMEOUT_S) is run by the runner;
# one whose subtask's pool process died is run at once by the redelivered subtask.
# The job's result is the first seed's full result plus ``monte_carlo`` = p50/p90/max of
# completion time and busbw over all seeds (engine.scenario.monte_carlo_summary).


def _mc_claim(job_id, attempt: int, seed: int, owner: str, *, steal_after: float | None = None):
    """Claim ``seed`` of the running job for ``owner``; False if taken (or the job is not
    running this attempt). With ``steal_after``, also take a seed claimed that long ago and
    still not done. A seed whose claiming process is gone (see :func:`process_identity`) is
    free at once, so a seed subtask redelivered after its pool process died runs it again."""
    with transaction.atomic():
        job = (
            Job.objects.select_for_update()
            .filter(pk=job_id, status=JobStatusChoices.RUNNING, attempts=attempt)
            .only("result")
            .first()
        )
        if job is None:
            return False
        result = job.result if isinstance(job.result, dict) else {}
        mc = result.setdefault("monte_carlo", {"claimed": {}, "done": {}})
        key = str(seed)
        if key in mc["done"]:
            return False
        claim = mc["claimed"].get(key)
        if (
            claim is not None
            and (steal_after is None or time.time() - claim["at"] < steal_after)
            and _claimant_alive(claim.get("by", "")) is not False
        ):
            return False
        mc["claimed"][key] = {"by": owner, "at": time.time()}
        Job.objects.filter(pk=job_id).update(result=result)
    return True


def _mc_done(job_id, attempt: int, seed: int, summary: dict) -> None:
    with transaction.atomic():
        job = (
            Job.objects.select_for_update()
            .filter(pk=job_id, status=JobStatusChoices.RUNNING, attempts=attempt)
            .only("result")
            .first()
        )
        if job is None:
            return
        result = job.result if isinstance(job.result, dict) else {}
        result.setdefault("monte_carlo", {"claimed": {}, "done": {}})["done"][str(seed)] = summary
        Job.objects.filter(pk=job_id).update(result=result)


def _mc_state(job_id) -> dict:
    result = Job.objects.filter(pk=job_id).values_list("result", flat=True).first()
    return (result or {}).get("monte_carlo") or {"claimed": {}, "done": {}}


def simulate_seed_run(
    *, job_id, attempt: int, seed: int, worker: str = "", process: str = ""
) -> bool:
    """Run one Monte Carlo seed of a running simulate job, unless someone took it already.

    The service of the ``simulation.simulate_seed`` subtask; ``process``
    (:func:`process_identity`) is recorded with the claim. Returns whether it ran.
    """
    owner = worker or "subtask"
    if not _mc_claim(job_id, attempt, seed, f"{owner} [{process}]" if process else owner):
        return False
    job = Job.objects.select_related("design_revision").get(pk=job_id)
    from planner.adapters import fabric_unpack

    fabric = fabric_unpack(job.design_revision.topology)
    summary = fabric_simulate(
        fabric=fabric, summary_only=True, hash_seed=seed, **_scenario(job.parameters)
    )
    _mc_done(job_id, attempt, seed, summary)
    return True


def _send_seeds(job_id, attempt: int, seeds: list[int]) -> None:
    from celery import group

    from simulation.tasks import simulate_seed

    try:
        group(simulate_seed.si(str(job_id), attempt, s) for s in seeds).apply_async(
            retry=True, retry_policy=DISPATCH_RETRY_POLICY
        )
    except Exception:  # noqa: BLE001 - the runner computes unclaimed seeds itself
        logger.warning("seed subtasks of job %s not sent; running them here", job_id)


def _run_simulate(job: Job, on_progress: Progress) -> dict:
    from planner.adapters import fabric_unpack
    from simulation.engine.scenario import monte_carlo_summary

    params = job.parameters
    seeds = int(params.get("seeds") or 1)
    base = int(params.get("seed") or 0)
    extra = [base + k for k in range(1, seeds)]
    attempt = getattr(on_progress, "attempt", None)
    if extra and attempt is not None:
        Job.objects.filter(pk=job.pk).update(result=None)
        _send_seeds(job.pk, attempt, extra)
    on_progress(0, 1, "loading the fabric")
    fabric = fabric_unpack(job.design_revision.topology)
    if not extra:
        return fabric_simulate(fabric=fabric, on_progress=on_progress, **_scenario(params))

    def first_seed(done, total, message="", **_ignored):
        # The bar counts seeds: the first seed's own steps are "0 of N seeds done".
        step = f": {message}" if message else ""
        on_progress(0, seeds, f"Monte Carlo: 0 of {seeds} seeds done (seed {base}{step})")

    result = fabric_simulate(fabric=fabric, on_progress=first_seed, **_scenario(params))
    runs = {base: {k: result[k] for k in result if not isinstance(result[k], dict | list)}}
    if attempt is None:  # not on a worker (direct call): run the seeds here
        for s in extra:
            runs[s] = fabric_simulate(
                fabric=fabric, summary_only=True, hash_seed=s, **_scenario(params)
            )
    else:
        me = f"runner {job.pk}"
        waited_since = time.monotonic()
        while True:
            state = _mc_state(job.pk)
            done = {int(k): v for k, v in state.get("done", {}).items()}
            on_progress(len(done) + 1, seeds, f"Monte Carlo: {len(done) + 1} of {seeds} seeds done")
            pending = [s for s in extra if s not in done]
            if not pending:
                runs.update(done)
                break
            todo = [s for s in pending if str(s) not in state.get("claimed", {})]
            stale = [s for s in pending if s not in todo]
            seed = next(
                (s for s in todo if _mc_claim(job.pk, attempt, s, me)),
                None,
            )
            if seed is None and time.monotonic() - waited_since > heartbeat_timeout_s():
                seed = next(
                    (
                        s
                        for s in stale
                        if _mc_claim(job.pk, attempt, s, me, steal_after=heartbeat_timeout_s())
                    ),
                    None,
                )
            if seed is None:
                time.sleep(0.2)
                continue
            summary = fabric_simulate(
                fabric=fabric, summary_only=True, hash_seed=seed, **_scenario(params)
            )
            _mc_done(job.pk, attempt, seed, summary)
            waited_since = time.monotonic()
    result["monte_carlo"] = monte_carlo_summary(list(runs.values()))
    return result


def _run_validate(job: Job, on_progress: Progress) -> dict:
    fabric, facts = _revision_fabric(job, on_progress)
    return fabric_validate(fabric=fabric, facts=facts, on_progress=on_progress)


def _run_power(job: Job, on_progress: Progress) -> dict:
    fabric, facts = _revision_fabric(job, on_progress)
    return fabric_power(
        fabric=fabric, facts=facts, pue=job.parameters.get("pue"), on_progress=on_progress
    )


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _outcome_diagnostics(result: dict) -> str:
    return f"{result.get('hostname', '?')} pid {result.get('pid', '?')}"


def _outcome_validate(result: dict) -> str:
    problems = result.get("problems") or []
    if not problems:
        return "no problems"
    return severity_counts(Counter(p.get("severity") or "info" for p in problems))


def _outcome_simulate(result: dict) -> str:
    text = (
        f"{result.get('traffic', '?')} {result.get('routing', '?')}: "
        f"busbw {result.get('busbw_gbps') or 0:,.1f} Gb/s"
    )
    if result.get("efficiency") is not None:
        text += f" ({result['efficiency']:.0%} of bound)"
    mc = result.get("monte_carlo")
    if mc:
        text += f", {mc['seeds']} seeds p90 {mc['completion_time_s']['p90'] * 1e3:,.2f} ms"
    return text


def _outcome_power(result: dict) -> str:
    text = f"{(result.get('total_w') or 0) / 1000:,.1f} kW"
    over = sum(1 for p in result.get("problems") or [] if p.get("code") == "rack-power-over-limit")
    if over:
        text += f", {_plural(over, 'rack')} over the limit"
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


KINDS: dict[str, JobKind] = {
    JobKindChoices.DIAGNOSTICS: JobKind(
        _run_diagnostics, _clean_diagnostics, _outcome_diagnostics, False, False
    ),
    JobKindChoices.VALIDATE: JobKind(_run_validate, _clean_validate, _outcome_validate, True, True),
    JobKindChoices.POWER: JobKind(_run_power, _clean_power, _outcome_power, True, True),
    JobKindChoices.SIMULATE: JobKind(_run_simulate, _clean_simulate, _outcome_simulate, True, True),
}


# --- enqueue -------------------------------------------------------------------------------------


def job_input_hash(*, kind: str, design_revision=None, parameters: dict) -> str:
    """sha256 of kind, revision id, parameters and (for design jobs) the catalog fingerprint."""
    payload = {"kind": kind, "parameters": parameters}
    if design_revision is not None:
        from planner.adapters import catalog_fingerprint

        payload["revision"] = design_revision.pk
        payload["catalog"] = catalog_fingerprint()
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _send(job_id: str) -> None:
    """Send the task of ``job_id``; if the broker does not take it, fail the row and raise."""
    from simulation.tasks import run_job

    try:
        run_job.apply_async(
            args=[job_id], task_id=job_id, retry=True, retry_policy=DISPATCH_RETRY_POLICY
        )
    except Exception as exc:  # noqa: BLE001 - kombu raises several kinds of connection errors
        reason = (
            "The job could not be queued: the job broker (Redis) did not answer "
            f"({type(exc).__name__}: {exc}). Try again when it is back."
        )
        Job.objects.filter(pk=job_id, status=JobStatusChoices.QUEUED).update(
            status=JobStatusChoices.FAILED, error=reason, finished=timezone.now()
        )
        logger.warning("job %s not sent: %s", job_id, exc)
        raise JobDispatchError(reason) from exc


def _audit_job(job: Job, actor, action: str, verb: str) -> None:
    revision = job.design_revision
    design = revision.design if revision is not None else None
    where = f" on revision {revision.number} of “{design.name}”" if design is not None else ""
    audit_record(
        actor=actor,
        action=action,
        design=design,
        summary=f"{verb} a {job.get_kind_display().lower()} job{where}",
        object_type="job",
        object_ref=str(job.pk),
        details={"kind": job.kind, "parameters": job.parameters},
    )


def job_enqueue(*, owner, kind: str, design_revision=None, parameters: dict | None = None) -> Job:
    """Create a queued job and send its task once the transaction commits.

    Returns the job with ``job.reused`` set: ``True`` when a succeeded job of ``owner`` with
    the same input hash (same kind, revision, parameters and catalog) is returned instead of
    a new run (validate and power only; diagnostics always run).

    Raises
    ------
    ValidationError
        Unknown kind, bad parameters, or a revision missing (or given where none is used).
    JobLimitError
        ``owner`` already has ``JOBS_MAX_CONCURRENT_PER_USER`` jobs queued or running.
    JobDispatchError
        The broker did not take the task (raised when the transaction commits); the row is
        then ``failed`` with the reason, never left queued.
    """
    spec = KINDS.get(kind)
    if spec is None:
        raise ValidationError({"kind": f"unknown job kind {kind!r}"})
    if not isinstance(parameters or {}, dict):
        raise ValidationError({"parameters": "parameters are a mapping"})
    parameters = {k: v for k, v in (parameters or {}).items() if k not in DESIGN_KEYS}
    parameters = spec.clean(parameters)
    if spec.needs_revision and design_revision is None:
        raise ValidationError({"design": f"a {kind} job works on a design: name one"})
    if not spec.needs_revision and design_revision is not None:
        raise ValidationError({"design": f"a {kind} job does not work on a design"})
    if design_revision is not None:
        # Also in the parameters, where the canvas overlays look jobs up (planner.selectors).
        parameters.update(design=design_revision.design_id, revision=design_revision.number)
    input_hash = job_input_hash(kind=kind, design_revision=design_revision, parameters=parameters)
    with transaction.atomic():
        if spec.reusable:
            done = (
                Job.objects.filter(
                    owner=owner, input_hash=input_hash, status=JobStatusChoices.SUCCEEDED
                )
                .order_by("-finished")
                .first()
            )
            if done is not None:
                done.reused = True
                return done
        # One submission at a time per user, so that two requests cannot both pass the cap.
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        active = Job.objects.filter(owner=owner, status__in=ACTIVE_STATUSES).count()
        limit = max_concurrent()
        if active >= limit:
            raise JobLimitError(
                f"You have {_plural(active, 'job')} queued or running; the limit is {limit} "
                "at a time. Wait for one to finish or cancel one."
            )
        window_start = timezone.now() - timedelta(minutes=1)
        recent = list(
            Job.objects.filter(owner=owner, created__gte=window_start)
            .order_by("created")
            .values_list("created", flat=True)[: max_per_minute()]
        )
        if len(recent) >= max_per_minute():
            retry_after_s = max(1, math.ceil((recent[0] - window_start).total_seconds()))
            raise JobLimitError(
                f"You started {_plural(len(recent), 'job')} in the last minute; the limit is "
                f"{max_per_minute()} a minute. Try again in {retry_after_s} s.",
                retry_after_s=retry_after_s,
            )
        job = Job(
            owner=owner,
            kind=kind,
            design_revision=design_revision,
            parameters=parameters,
            input_hash=input_hash,
        )
        job.full_clean()
        job.save()
        _audit_job(job, owner, AuditActionChoices.JOB_SUBMITTED, "Submitted")
        job_id = str(job.pk)
        transaction.on_commit(lambda: _send(job_id))
    job.reused = False
    return job


# --- execute -------------------------------------------------------------------------------------


def _stale_q(now) -> Q:
    cutoff = now - timedelta(seconds=heartbeat_timeout_s())
    return Q(status=JobStatusChoices.RUNNING) & (
        Q(heartbeat__lt=cutoff) | Q(heartbeat__isnull=True, started__lt=cutoff)
    )


def _claim_values(worker: str, process: str) -> dict:
    now = timezone.now()
    return {
        "status": JobStatusChoices.RUNNING,
        "started": now,
        "heartbeat": now,
        "worker": f"{worker[:140]} [{process}]" if process else worker[:200],
        "attempts": F("attempts") + 1,
        "progress_done": 0,
        "progress_total": 0,
        "progress_message": "started",
        "error": "",
    }


def _claim(job_id, worker: str, *, process: str = "", redelivered: bool = False) -> int | None:
    """Mark the job running for this worker; returns the attempt number, or None if the job is
    not this worker's to run (finished, cancelled, missing, or running in a live process)."""
    now = timezone.now()
    rows = Job.objects.filter(pk=job_id)
    claimed = rows.filter(status=JobStatusChoices.QUEUED).update(**_claim_values(worker, process))
    if not claimed:
        # A redelivered task of a run whose worker was lost: take it over, within the limit.
        stale = rows.filter(_stale_q(now)).filter(attempts__lt=max_attempts())
        claimed = stale.update(**_claim_values(worker, process))
    if not claimed:
        claimed = _take_over_lost(job_id, worker, process=process, redelivered=redelivered)
    if not claimed:
        job_recover_stale(now=now, job_ids=[job_id])
        return None
    return Job.objects.filter(pk=job_id).values_list("attempts", flat=True).first()


# --- which process runs an attempt ---------------------------------------------------------------

#: ``[pid N on <machine>, t<start>]`` at the end of ``Job.worker`` (see :func:`process_identity`).
_PROCESS_RE = re.compile(r"\[pid (\d+) on (\S+), t(\d*)\]$")


def _process_stat(pid: int) -> tuple[str, str] | None:
    """``(state, start time in clock ticks since boot)`` of process ``pid`` from Linux's
    ``/proc``; None when there is no such process (or no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except OSError:
        return None
    fields = text[text.rfind(b")") + 2 :].split()  # after the command name, from field 3 on
    return fields[0].decode(), fields[19].decode()


def process_identity() -> str:
    """This process, as recorded in a claim: pid, machine, and start time (with the pid, it
    tells this process from a later one that reuses the pid)."""
    pid = os.getpid()
    stat = _process_stat(pid)
    return f"pid {pid} on {socket.gethostname()}, t{stat[1] if stat else ''}"


def _claimant_alive(worker: str) -> bool | None:
    """Whether the process recorded in ``worker`` still runs; None when this process cannot
    tell (no process recorded, or it ran on another machine)."""
    match = _PROCESS_RE.search(worker or "")
    if match is None or match[2] != socket.gethostname():
        return None
    pid, start = int(match[1]), match[3]
    if pid == os.getpid():
        return True
    stat = _process_stat(pid)
    if stat is not None:
        state, started = stat
        return state not in {"Z", "X"} and (not start or started == start)
    if os.path.isdir("/proc/self"):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _watch_heartbeat(job_id, seen: tuple) -> bool:
    """Whether the run ``seen`` (status, attempts, heartbeat) shows a sign of life (or changes)
    within two heartbeat intervals."""
    deadline = time.monotonic() + 2 * heartbeat_interval_s() + 1
    while time.monotonic() < deadline:
        time.sleep(min(0.5, heartbeat_interval_s() / 2))
        now = Job.objects.filter(pk=job_id).values_list("status", "attempts", "heartbeat").first()
        if now != seen:
            return True
    return False


def _take_over_lost(job_id, worker: str, *, process: str, redelivered: bool) -> int:
    """Take over (or fail, after the last attempt) a running job whose claiming process is
    gone: dead on this machine, or, for a redelivered task, silent for two heartbeats.
    Returns the number of rows claimed (0 or 1)."""
    row = (
        Job.objects.filter(pk=job_id, status=JobStatusChoices.RUNNING)
        .values_list("status", "attempts", "heartbeat", "worker")
        .first()
    )
    if row is None:
        return 0
    attempts, claimant = row[1], row[3]
    alive = _claimant_alive(claimant)
    match = _PROCESS_RE.search(claimant or "")
    if alive is False:
        reason = f"its process, pid {match[1]} on {match[2]}, exited"
    elif alive is None and redelivered and not _watch_heartbeat(job_id, row[:3]):
        reason = f"no heartbeat for {2 * heartbeat_interval_s() + 1:g} s after a redelivery"
    else:
        return 0
    this_run = Job.objects.filter(
        pk=job_id, status=JobStatusChoices.RUNNING, attempts=attempts, worker=claimant
    )
    limit = max_attempts()
    if attempts >= limit:
        if this_run.update(
            status=JobStatusChoices.FAILED,
            finished=timezone.now(),
            error=f"worker lost ({reason}); the job was started "
            f"{_plural(attempts, 'time')}, the limit is {limit} (JOBS_MAX_ATTEMPTS)",
        ):
            logger.warning(
                "job %s failed: worker lost (%s) after %d attempts", job_id, reason, attempts
            )
        return 0
    claimed = this_run.update(**_claim_values(worker, process))
    if claimed:
        logger.warning("job %s taken over at once for attempt %d: %s", job_id, attempts + 1, reason)
    return claimed


def job_error_text(exc: Exception, *, job_id) -> str:
    """What a failed job's row says: the plain reason of a failure the user can fix
    (:class:`~simulation.engine.errors.JobInputError`, a design the generator cannot build),
    never an exception's text or class otherwise (that is in the worker's log)."""
    from planner.domain.fabric import FabricError
    from simulation.engine.errors import JobInputError

    if isinstance(exc, JobInputError | FabricError):
        message = str(exc)
        return (message[:1].upper() + message[1:]).rstrip(".") + "."
    return (
        f"The job stopped on an internal error (logged with job {job_id}). Run it again; "
        "if it fails again, tell an administrator."
    )


def job_execute(*, job_id, worker: str = "", process: str = "", redelivered: bool = False) -> None:
    """Run a job on this worker; does nothing for a finished, cancelled or live-running job.

    ``process`` (:func:`process_identity`) is recorded with ``worker`` so that a redelivered
    task can tell a run whose process died (taken over at once) from a live one (left alone);
    ``redelivered`` says the broker delivers the task again (then a run claimed on another
    machine is taken over when its heartbeat stays silent for two intervals).

    Progress and heartbeat are written while the runner works; a cancel (or a takeover after a
    lost heartbeat) stops the runner at its next progress report without writing a result.
    A runner's exception fails the job with :func:`job_error_text` (it is logged, not raised).
    """
    attempt = _claim(job_id, worker, process=process, redelivered=redelivered)
    if attempt is None:
        return
    job = Job.objects.select_related("design_revision").get(pk=job_id)
    spec = KINDS[job.kind]
    on_progress = _ProgressWriter(job.pk, attempt)
    mine = Job.objects.filter(pk=job.pk, status=JobStatusChoices.RUNNING, attempts=attempt)
    try:
        with _Heartbeat(job.pk, attempt, heartbeat_interval_s()):
            result = spec.runner(job, on_progress)
    except JobCancelled:
        logger.info("job %s stopped: cancelled or taken over", job.pk)
        return
    except Exception as exc:  # noqa: BLE001 - the row records any failure of a runner
        logger.exception("job %s failed", job.pk)
        mine.update(
            status=JobStatusChoices.FAILED,
            error=job_error_text(exc, job_id=job.pk),
            finished=timezone.now(),
            heartbeat=timezone.now(),
        )
        return
    total = max(1, Job.objects.filter(pk=job.pk).values_list("progress_total", flat=True)[0])
    mine.update(
        status=JobStatusChoices.SUCCEEDED,
        result=result,
        outcome=spec.outcome(result)[:200],
        finished=timezone.now(),
        heartbeat=timezone.now(),
        progress_done=total,
        progress_total=total,
        progress_message="done",
    )


# --- cancel --------------------------------------------------------------------------------------


def job_cancel(*, job: Job) -> Job:
    """Cancel a queued job (its task is revoked) or stop a running one.

    A running job's row turns ``cancelled`` at once; its runner stops at its next progress
    report and writes no result. A finished job is left as it is. Returns the fresh row.
    """
    now = timezone.now()
    with transaction.atomic():
        updated = Job.objects.filter(pk=job.pk, status__in=ACTIVE_STATUSES).update(
            status=JobStatusChoices.CANCELLED,
            finished=now,
            progress_message="cancelled",
        )
        if updated:
            _audit_job(job, job.owner, AuditActionChoices.JOB_CANCELLED, "Cancelled")
    if updated:
        try:
            from planner.celery import app

            app.control.revoke(str(job.pk))
        except Exception:  # noqa: BLE001 - the row is cancelled; a worker skips it anyway
            logger.info("revoke of job %s not sent (broker unavailable)", job.pk)
    job.refresh_from_db()
    return job


# --- recover -------------------------------------------------------------------------------------


def job_recover_stale(*, now=None, job_ids=None) -> dict:
    """Run again, or fail, running jobs whose worker stopped sending heartbeats.

    A running job whose ``heartbeat`` is older than ``JOBS_HEARTBEAT_TIMEOUT_S`` goes back to
    ``queued`` and is sent again (same task id), unless it has already been started
    ``JOBS_MAX_ATTEMPTS`` times: then it fails with "worker lost (heartbeat stale since …)".
    One indexed query when nothing is stale. Returns ``{"requeued": [...], "failed": [...]}``.
    """
    now = now or timezone.now()
    stale = Job.objects.filter(_stale_q(now))
    if job_ids is not None:
        stale = stale.filter(pk__in=job_ids)
    outcome = {"requeued": [], "failed": []}
    limit = max_attempts()
    for pk, attempts, heartbeat, started in stale.values_list(
        "pk", "attempts", "heartbeat", "started"
    ):
        since = heartbeat or started
        since_text = f"{since:%Y-%m-%d %H:%M:%S} UTC" if since else "its start"
        this_run = Job.objects.filter(_stale_q(now), pk=pk, attempts=attempts)
        if attempts >= limit:
            if this_run.update(
                status=JobStatusChoices.FAILED,
                finished=now,
                error=f"worker lost (heartbeat stale since {since_text}); the job was started "
                f"{_plural(attempts, 'time')}, the limit is {limit} (JOBS_MAX_ATTEMPTS)",
            ):
                outcome["failed"].append(str(pk))
                logger.warning("job %s failed: worker lost after %d attempts", pk, attempts)
            continue
        if this_run.update(
            status=JobStatusChoices.QUEUED,
            worker="",
            heartbeat=None,
            progress_message=f"worker lost (heartbeat stale since {since_text}); queued again "
            f"for attempt {attempts + 1} of {limit}",
        ):
            outcome["requeued"].append(str(pk))
            logger.warning("job %s queued again: worker lost", pk)
            try:
                _send(str(pk))
            except JobDispatchError:
                outcome["requeued"].remove(str(pk))
                outcome["failed"].append(str(pk))
    return outcome


def job_sweep_claim(*, token: str, name: str, interval_s: float) -> bool:
    """Whether the recovery chain ``token`` holds the lease ``name`` (taking it if it expired).

    The lease expires after two intervals without a sweep; at most one chain holds it.
    """
    now = timezone.now()
    JobSweep.objects.get_or_create(
        name=name, defaults={"token": token, "last_run": now - timedelta(days=1)}
    )
    expired = now - timedelta(seconds=2 * interval_s)
    return bool(
        JobSweep.objects.filter(Q(token=token) | Q(last_run__lt=expired), name=name).update(
            token=token, last_run=now
        )
    )


def new_sweep_token() -> str:
    return uuid.uuid4().hex
