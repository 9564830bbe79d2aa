"""Recovery of lost jobs, and the lease that lets one sweep chain run per broker.

- :func:`job_recover_stale`: runs whose worker was lost go back to the queue (or fail after
  ``JOBS_MAX_ATTEMPTS``): their heartbeat is older than ``JOBS_HEARTBEAT_TIMEOUT_S``, or the
  process that claimed them on this machine is gone (then at once: a watchdog, not a timeout).
- :func:`job_resend_lost`: queued jobs older than ``JOBS_QUEUED_RESEND_S`` whose task the
  broker does not hold (lost with a Redis restart, or never sent while it was down) are sent
  again.

Both run from the ``simulation.recover_stale`` sweep that every worker starts each time it
connects to the broker (:mod:`simulation.tasks`) and before a user's job limit is counted;
:func:`job_recover_stale` also on every read of the jobs pages and API, and for the one job a
redelivered task finds not its own to run. (A run whose *pool process* died is taken over at
once by its redelivered task instead: :mod:`simulation.jobs.lifecycle`.)
"""

from __future__ import annotations

import logging
import re
import uuid
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from planner.presentation import count
from simulation.jobs.config import heartbeat_timeout_s, max_attempts, queued_resend_s
from simulation.jobs.dispatch import send_job
from simulation.jobs.heartbeat import claimant_alive
from simulation.models import Job, JobStatusChoices, JobSweep

logger = logging.getLogger(__name__)


def stale_q(now) -> Q:
    """Running jobs whose heartbeat (or start, before the first beat) is older than
    ``JOBS_HEARTBEAT_TIMEOUT_S`` at ``now``."""
    cutoff = now - timedelta(seconds=heartbeat_timeout_s())
    return Q(status=JobStatusChoices.RUNNING) & (
        Q(heartbeat__lt=cutoff) | Q(heartbeat__isnull=True, started__lt=cutoff)
    )


def _lost_runs(now, job_ids) -> list[tuple]:
    """``(pk, attempts, worker, reason)`` of the running jobs whose worker
    is lost: a stale heartbeat, or a claiming process on this machine that no longer runs."""
    running = Job.objects.filter(status=JobStatusChoices.RUNNING)
    if job_ids is not None:
        running = running.filter(pk__in=job_ids)
    stale = running.filter(stale_q(now))
    lost = []
    for pk, attempts, heartbeat, started, worker in stale.values_list(
        "pk", "attempts", "heartbeat", "started", "worker"
    ):
        since = heartbeat or started
        since_text = f"{since:%Y-%m-%d %H:%M:%S} UTC" if since else "its start"
        lost.append((pk, attempts, worker, f"heartbeat stale since {since_text}"))
    stale_ids = {row[0] for row in lost}
    for pk, attempts, worker in running.exclude(pk__in=stale_ids).values_list(
        "pk", "attempts", "worker"
    ):
        if claimant_alive(worker) is False:
            lost.append((pk, attempts, worker, "its worker process exited"))
    return lost


def job_recover_stale(*, now=None, job_ids=None) -> dict:
    """Run again, or fail, running jobs whose worker was lost.

    A running job whose ``heartbeat`` is older than ``JOBS_HEARTBEAT_TIMEOUT_S``, or whose
    claiming process ran on this machine and is gone (killed with its worker), goes back to
    ``queued`` and is sent again (same task id), unless it has already been started
    ``JOBS_MAX_ATTEMPTS`` times: then it fails with "worker lost (…)". One indexed query, and
    one look at ``/proc`` per running job, when nothing is lost. A job the broker does not take
    now stays queued and is sent by :func:`job_resend_lost`. Returns
    ``{"requeued": [...], "failed": [...]}``.
    """
    now = now or timezone.now()
    outcome = {"requeued": [], "failed": []}
    limit = max_attempts()
    for pk, attempts, worker, reason in _lost_runs(now, job_ids):
        this_run = Job.objects.filter(
            pk=pk, status=JobStatusChoices.RUNNING, attempts=attempts, worker=worker
        )
        if attempts >= limit:
            if this_run.update(
                status=JobStatusChoices.FAILED,
                finished=now,
                error=f"worker lost ({reason}); the job was started "
                f"{count(attempts, 'time')}, the limit is {limit} (JOBS_MAX_ATTEMPTS)",
            ):
                outcome["failed"].append(str(pk))
                logger.warning("job %s failed: worker lost after %d attempts", pk, attempts)
            continue
        if this_run.update(
            status=JobStatusChoices.QUEUED,
            worker="",
            heartbeat=None,
            progress_message=f"worker lost ({reason}); queued again "
            f"for attempt {attempts + 1} of {limit}",
        ):
            outcome["requeued"].append(str(pk))
            logger.warning("job %s queued again: worker lost (%s)", pk, reason)
            send_job(str(pk))
    return outcome


#: A job id (a UUID) as it appears in a task message: its task id and its argument.
_UUID_RE = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def broker_task_ids() -> set[str] | None:
    """The job ids in the task messages waiting in the broker's jobs queue; None when the
    broker cannot be read (down, or not Redis: the filesystem broker of development keeps its
    messages on disk and loses none).

    Messages a worker has taken and not yet acknowledged are not counted: one the worker still
    holds runs anyway (a copy sent again finds the job claimed and does nothing), and one whose
    worker was killed would otherwise wait for Redis's visibility timeout (an hour).
    """
    import redis
    from celery import current_app

    url = str(current_app.conf.broker_url or "")
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    prefix = (current_app.conf.broker_transport_options or {}).get("global_keyprefix", "")
    queue = current_app.conf.task_default_queue
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2)
        with client.pipeline(transaction=False) as pipe:
            # kombu's Redis transport keeps a list per queue and priority step.
            for step in ("", *(f"\x06\x16{pri}" for pri in (3, 6, 9))):
                pipe.lrange(f"{prefix}{queue}{step}", 0, -1)
            replies = pipe.execute()
        client.close()
    except redis.RedisError:
        return None
    return {match.decode() for reply in replies for raw in reply for match in _UUID_RE.findall(raw)}


def job_resend_lost(*, now=None, job_ids=None) -> list[str]:
    """Send again the queued jobs whose task message is lost; returns their ids.

    A job queued and created more than ``JOBS_QUEUED_RESEND_S`` ago whose id is in none of
    the broker's messages (:func:`broker_task_ids`) is sent again with the same task id: a
    task delivered twice runs once (the claim is atomic). Nothing is sent while the broker
    cannot be read.
    """
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=queued_resend_s())
    waiting = Job.objects.filter(status=JobStatusChoices.QUEUED, created__lt=cutoff)
    if job_ids is not None:
        waiting = waiting.filter(pk__in=job_ids)
    candidates = [str(pk) for pk in waiting.values_list("pk", flat=True)]
    if not candidates:
        return []
    held = broker_task_ids()
    if held is None:
        return []
    resent = []
    for job_id in candidates:
        if job_id not in held and send_job(job_id):
            resent.append(job_id)
            logger.warning("job %s sent again: the broker had lost its task", job_id)
    return resent


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
