"""Stale-job recovery: runs whose worker stopped sending heartbeats go back to the queue
(or fail after ``JOBS_MAX_ATTEMPTS``), and the lease that lets one sweep chain run per broker.

:func:`job_recover_stale` runs from the self-rescheduling ``simulation.recover_stale`` task
that every worker starts, from the jobs pages and API on every read, and for the one job a
redelivered task finds not its own to run. (A run whose *pool process* died is taken over at
once by its redelivered task instead: :mod:`simulation.jobs.lifecycle`.)
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from planner.presentation import count
from simulation.jobs.config import heartbeat_timeout_s, max_attempts
from simulation.jobs.dispatch import send_job
from simulation.jobs.errors import JobDispatchError
from simulation.models import Job, JobStatusChoices, JobSweep

logger = logging.getLogger(__name__)


def stale_q(now) -> Q:
    """Running jobs whose heartbeat (or start, before the first beat) is older than
    ``JOBS_HEARTBEAT_TIMEOUT_S`` at ``now``."""
    cutoff = now - timedelta(seconds=heartbeat_timeout_s())
    return Q(status=JobStatusChoices.RUNNING) & (
        Q(heartbeat__lt=cutoff) | Q(heartbeat__isnull=True, started__lt=cutoff)
    )


def job_recover_stale(*, now=None, job_ids=None) -> dict:
    """Run again, or fail, running jobs whose worker stopped sending heartbeats.

    A running job whose ``heartbeat`` is older than ``JOBS_HEARTBEAT_TIMEOUT_S`` goes back to
    ``queued`` and is sent again (same task id), unless it has already been started
    ``JOBS_MAX_ATTEMPTS`` times: then it fails with "worker lost (heartbeat stale since …)".
    One indexed query when nothing is stale. Returns ``{"requeued": [...], "failed": [...]}``.
    """
    now = now or timezone.now()
    stale = Job.objects.filter(stale_q(now))
    if job_ids is not None:
        stale = stale.filter(pk__in=job_ids)
    outcome = {"requeued": [], "failed": []}
    limit = max_attempts()
    for pk, attempts, heartbeat, started in stale.values_list(
        "pk", "attempts", "heartbeat", "started"
    ):
        since = heartbeat or started
        since_text = f"{since:%Y-%m-%d %H:%M:%S} UTC" if since else "its start"
        this_run = Job.objects.filter(stale_q(now), pk=pk, attempts=attempts)
        if attempts >= limit:
            if this_run.update(
                status=JobStatusChoices.FAILED,
                finished=now,
                error=f"worker lost (heartbeat stale since {since_text}); the job was started "
                f"{count(attempts, 'time')}, the limit is {limit} (JOBS_MAX_ATTEMPTS)",
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
                send_job(str(pk))
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
    """A fresh id for a sweep chain."""
    return uuid.uuid4().hex
