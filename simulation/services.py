"""Writes for jobs: enqueue on commit, execute idempotently, cancel, recover lost runs.

House style (STYLE.md §2.6): the :class:`~simulation.models.Job` row holds all state; the task
id is the row id and the task is sent once the row is committed; tasks get ids, never objects;
no result backend; executing a finished job does nothing.

Life of a job::

    queued --worker claims--> running --runner returns--> succeeded
       |                         |  \\--runner raises----> failed
       |                         |   \\-heartbeat stale--> queued again (attempts < max) or failed
       \\--cancel--> cancelled <--/ (the runner sees it at its next progress report)

A running job's worker writes ``heartbeat`` from a background thread every
``JOBS_HEARTBEAT_INTERVAL_S`` and with each progress report (at most about once a second).
:func:`job_recover_stale` runs from a self-rescheduling Celery task that every worker starts
(``simulation.recover_stale``) and from the jobs pages and API.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

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
    """The user already has ``JOBS_MAX_CONCURRENT_PER_USER`` jobs queued or running."""


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
    errors = sum(1 for p in problems if p.get("severity") == "error")
    return f"{_plural(len(problems), 'problem')} ({_plural(errors, 'error')})"


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
        job = Job(
            owner=owner,
            kind=kind,
            design_revision=design_revision,
            parameters=parameters,
            input_hash=input_hash,
        )
        job.full_clean()
        job.save()
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


def _claim(job_id, worker: str) -> int | None:
    """Mark the job running for this worker; returns the attempt number, or None if the job is
    not this worker's to run (finished, cancelled, missing, or running with a live heartbeat)."""
    now = timezone.now()
    claim = {
        "status": JobStatusChoices.RUNNING,
        "started": now,
        "heartbeat": now,
        "worker": worker[:200],
        "attempts": F("attempts") + 1,
        "progress_done": 0,
        "progress_total": 0,
        "progress_message": "started",
        "error": "",
    }
    rows = Job.objects.filter(pk=job_id)
    if not rows.filter(status=JobStatusChoices.QUEUED).update(**claim):
        # A redelivered task of a run whose worker was lost: take it over, within the limit.
        stale = rows.filter(_stale_q(now))
        if not stale.filter(attempts__lt=max_attempts()).update(**claim):
            job_recover_stale(now=now, job_ids=[job_id])
            return None
    return Job.objects.filter(pk=job_id).values_list("attempts", flat=True).first()


def job_execute(*, job_id, worker: str = "") -> None:
    """Run a job on this worker; does nothing for a finished, cancelled or live-running job.

    Progress and heartbeat are written while the runner works; a cancel (or a takeover after a
    lost heartbeat) stops the runner at its next progress report without writing a result.
    A runner's exception fails the job with the exception's text (it is logged, not raised).
    """
    attempt = _claim(job_id, worker)
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
            error=f"{type(exc).__name__}: {exc}",
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
    updated = Job.objects.filter(pk=job.pk, status__in=ACTIVE_STATUSES).update(
        status=JobStatusChoices.CANCELLED,
        finished=now,
        progress_message="cancelled",
    )
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
