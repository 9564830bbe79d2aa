"""The life of a job: submit, claim (or take over), progress, finish or fail, cancel.

House style (STYLE.md §2.6): the :class:`~simulation.models.Job` row holds all state; the task
id is the row id and the task is sent once the row is committed; tasks get ids, never objects;
no result backend; executing a finished job does nothing.

::

    queued --worker claims--> running --runner returns--> succeeded
       |                         |  \\--runner raises----> failed
       |                         |   \\-heartbeat stale--> queued again (attempts < max) or failed
       |                         |    \\-process lost---> taken over by the redelivered task
       \\--cancel--> cancelled <--/ (the runner sees it at its next progress report)

A run that dies with only its pool process (SIGKILL, out of memory) does not wait for the
stale-heartbeat sweep (:mod:`simulation.jobs.recovery`): Celery requeues the task at once
(``acks_late`` + ``reject_on_worker_lost``), and the redelivered task takes the run over when
the process that claimed it is gone (:mod:`simulation.jobs.heartbeat`). A takeover counts an
attempt like any other, and writes of the old attempt are fenced by ``attempts``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from planner.analyses.errors import JobInputError
from planner.audit.log import audit_record
from planner.audit.models import AuditActionChoices
from planner.designs.adapters import catalog_fingerprint
from planner.domain.fabric import FabricError
from planner.presentation import count
from simulation.jobs.config import (
    heartbeat_interval_s,
    max_attempts,
    max_concurrent,
    max_per_minute,
)
from simulation.jobs.dispatch import revoke, send_job
from simulation.jobs.errors import JobCancelled, JobLimitError
from simulation.jobs.heartbeat import PROCESS_RE, Heartbeat, claimant_alive, heartbeat_moves
from simulation.jobs.kinds import KINDS
from simulation.jobs.recovery import job_recover_stale, job_resend_lost, stale_q
from simulation.models import ACTIVE_STATUSES, Job, JobStatusChoices

logger = logging.getLogger(__name__)

PROGRESS_INTERVAL_S = 1.0
#: Set from the job's revision, never by the caller.
DESIGN_KEYS = ("design", "revision")


# --- submit --------------------------------------------------------------------------------------


def job_input_hash(*, kind: str, design_revision=None, parameters: dict) -> str:
    """sha256 of kind, revision id, parameters and (for design jobs) the catalog fingerprint."""
    payload = {"kind": kind, "parameters": parameters}
    if design_revision is not None:
        payload["revision"] = design_revision.pk
        payload["catalog"] = catalog_fingerprint()
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


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


def _check_limits(owner) -> None:
    """Raise :class:`JobLimitError` if ``owner`` may not start a job now (call under the
    owner's row lock, so that two requests cannot both pass the cap)."""
    active = Job.objects.filter(owner=owner, status__in=ACTIVE_STATUSES).count()
    limit = max_concurrent()
    if active >= limit:
        raise JobLimitError(
            f"You have {count(active, 'job')} queued or running; the limit is {limit} "
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
            f"You started {count(len(recent), 'job')} in the last minute; the limit is "
            f"{max_per_minute()} a minute. Try again in {retry_after_s} s.",
            retry_after_s=retry_after_s,
        )


def _recover_owner_jobs(owner) -> None:
    """Before ``owner``'s jobs are counted against the cap: recover those whose worker or task
    message was lost (only when the cap would refuse, so a normal submission costs nothing)."""
    active = list(
        Job.objects.filter(owner=owner, status__in=ACTIVE_STATUSES).values_list("pk", flat=True)
    )
    if len(active) >= max_concurrent():
        job_recover_stale(job_ids=active)
        job_resend_lost(job_ids=active)


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
        ``owner`` already has ``JOBS_MAX_CONCURRENT_PER_USER`` jobs queued or running (after
        lost ones were recovered: a job stuck with a lost worker or a lost message is sent
        again first, and never holds the limit).

    A job the broker does not take (Redis down) stays queued, says so, and is sent when the
    broker is back (:func:`~simulation.jobs.dispatch.send_job`).
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
    if spec.check is not None and design_revision is not None:
        spec.check(parameters, design_revision)
    if spec.owner_check is not None:
        spec.owner_check(parameters, owner)
    if design_revision is not None:
        # Also in the parameters, where the canvas overlays look jobs up
        # (planner.designs.selectors).
        parameters.update(design=design_revision.design_id, revision=design_revision.number)
    input_hash = job_input_hash(kind=kind, design_revision=design_revision, parameters=parameters)
    _recover_owner_jobs(owner)
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
        _check_limits(owner)
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
        transaction.on_commit(lambda: send_job(job_id))
    if transaction.get_autocommit():  # sent: the row may now say it waits for the broker
        job.refresh_from_db(fields=["progress_message"])
    job.reused = False
    return job


# --- claim and take over -------------------------------------------------------------------------


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


def claim(job_id, worker: str, *, process: str = "", redelivered: bool = False) -> int | None:
    """Mark the job running for this worker; returns the attempt number, or None if the job is
    not this worker's to run (finished, cancelled, missing, or running in a live process)."""
    now = timezone.now()
    rows = Job.objects.filter(pk=job_id)
    claimed = rows.filter(status=JobStatusChoices.QUEUED).update(**_claim_values(worker, process))
    if not claimed:
        # A redelivered task of a run whose worker was lost: take it over, within the limit.
        stale = rows.filter(stale_q(now)).filter(attempts__lt=max_attempts())
        claimed = stale.update(**_claim_values(worker, process))
    if not claimed:
        claimed = _take_over_lost(job_id, worker, process=process, redelivered=redelivered)
    if not claimed:
        job_recover_stale(now=now, job_ids=[job_id])
        return None
    return Job.objects.filter(pk=job_id).values_list("attempts", flat=True).first()


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
    alive = claimant_alive(claimant)
    match = PROCESS_RE.search(claimant or "")
    if alive is False:
        reason = f"its process, pid {match[1]} on {match[2]}, exited"
    elif alive is None and redelivered and not heartbeat_moves(job_id, row[:3]):
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
            # the process id and host are for the log, never the user
            error="worker lost (it stopped answering); the job was started "
            f"{count(attempts, 'time')}, the limit is {limit} (JOBS_MAX_ATTEMPTS)",
        ):
            logger.warning(
                "job %s failed: worker lost (%s) after %d attempts", job_id, reason, attempts
            )
        return 0
    claimed = this_run.update(**_claim_values(worker, process))
    if claimed:
        logger.warning("job %s taken over at once for attempt %d: %s", job_id, attempts + 1, reason)
    return claimed


# --- progress, finish, fail ----------------------------------------------------------------------


class ProgressWriter:
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


def job_error_text(exc: Exception, *, job_id) -> str:
    """What a failed job's row says: the plain reason of a failure the user can fix
    (:class:`~planner.analyses.errors.JobInputError`, a design the generator cannot build),
    never an exception's text or class otherwise (that is in the worker's log)."""
    if isinstance(exc, JobInputError | FabricError):
        message = str(exc)
        return (message[:1].upper() + message[1:]).rstrip(".") + "."
    return (
        f"The job stopped on an internal error (logged with job {job_id}). Run it again; "
        "if it fails again, tell an administrator."
    )


def job_execute(*, job_id, worker: str = "", process: str = "", redelivered: bool = False) -> None:
    """Run a job on this worker; does nothing for a finished, cancelled or live-running job.

    ``process`` (:func:`~simulation.jobs.heartbeat.process_identity`) is recorded with
    ``worker`` so that a redelivered task can tell a run whose process died (taken over at once)
    from a live one (left alone); ``redelivered`` says the broker delivers the task again (then
    a run claimed on another machine is taken over when its heartbeat stays silent for two
    intervals).

    Progress and heartbeat are written while the runner works; a cancel (or a takeover after a
    lost heartbeat) stops the runner at its next progress report without writing a result.
    A runner's exception fails the job with :func:`job_error_text` (it is logged, not raised).
    """
    attempt = claim(job_id, worker, process=process, redelivered=redelivered)
    if attempt is None:
        return
    job = Job.objects.select_related("design_revision").get(pk=job_id)
    spec = KINDS[job.kind]
    on_progress = ProgressWriter(job.pk, attempt)
    mine = Job.objects.filter(pk=job.pk, status=JobStatusChoices.RUNNING, attempts=attempt)
    try:
        with Heartbeat(job.pk, attempt, heartbeat_interval_s()):
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
        revoke(job.pk)
    job.refresh_from_db()
    return job
