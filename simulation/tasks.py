"""Celery tasks: thin wrappers that call services with row ids.

``simulation.recover_stale`` is a self-rescheduling sweep (no Celery beat): each time a worker
connects to the broker (at start, and again after every broker outage, whose restart may have
lost the chain's message) it recovers lost jobs at once and sends a new chain
(:class:`RecoverySweep`); the chain that holds the sweep lease (one per broker) runs
:func:`~simulation.jobs.recovery.job_recover_stale` and
:func:`~simulation.jobs.recovery.job_resend_lost` and sends itself again after
``JOBS_RECOVERY_INTERVAL_S``; other chains look again a few times in case the holder died, then
stop. The jobs pages and API also sweep on every read, so recovery never depends on this chain
alone.
"""

import hashlib
import logging
import socket

from celery import bootsteps, shared_task
from django.conf import settings
from django.db import connections

from simulation.services import (
    explore_candidate_run,
    job_execute,
    job_recover_stale,
    job_resend_lost,
    job_sweep_claim,
    new_sweep_token,
    process_identity,
    recovery_interval_s,
    simulate_seed_run,
    sweep_run_part,
)

logger = logging.getLogger(__name__)

#: A chain that finds the lease held looks again this many times, then stops.
SWEEP_PROBES = 3


@shared_task(
    name="simulation.run_job",
    bind=True,
    acks_late=True,
    ignore_result=True,
    soft_time_limit=getattr(settings, "JOBS_TIME_LIMIT_S", 3600),
)
def run_job(self, job_id: str) -> None:
    """Execute the job row ``job_id``.

    When a pool process dies mid-job, Celery requeues the task at once (``acks_late`` and
    ``reject_on_worker_lost``); the redelivered task sees the claiming process gone and takes
    the run over, without waiting for the stale-heartbeat sweep.
    """
    job_execute(
        job_id=job_id,
        worker=self.request.hostname or socket.gethostname(),
        process=process_identity(),
        redelivered=bool((self.request.delivery_info or {}).get("redelivered")),
    )


@shared_task(
    name="simulation.simulate_seed",
    bind=True,
    acks_late=True,
    ignore_result=True,
    soft_time_limit=getattr(settings, "JOBS_TIME_LIMIT_S", 3600),
)
def simulate_seed(self, job_id: str, attempt: int, seed: int) -> None:
    """One Monte Carlo seed of a running simulate job (see simulation.jobs.monte_carlo)."""
    simulate_seed_run(
        job_id=job_id,
        attempt=attempt,
        seed=seed,
        worker=self.request.hostname or "",
        process=process_identity(),
    )


@shared_task(
    name="simulation.sweep_run",
    bind=True,
    acks_late=True,
    ignore_result=True,
    soft_time_limit=getattr(settings, "JOBS_TIME_LIMIT_S", 3600),
)
def sweep_run(self, job_id: str, attempt: int, run: int) -> None:
    """One run of a running sweep job (see simulation.jobs.sweep)."""
    sweep_run_part(
        job_id=job_id,
        attempt=attempt,
        run=run,
        worker=self.request.hostname or "",
        process=process_identity(),
    )


@shared_task(
    name="simulation.explore_candidate",
    bind=True,
    acks_late=True,
    ignore_result=True,
    soft_time_limit=getattr(settings, "JOBS_TIME_LIMIT_S", 3600),
)
def explore_candidate(self, job_id: str, attempt: int, index: int) -> None:
    """One candidate of a running explore job (see simulation.jobs.explore)."""
    explore_candidate_run(
        job_id=job_id,
        attempt=attempt,
        index=index,
        worker=self.request.hostname or "",
        process=process_identity(),
    )


def _sweep_name(app) -> str:
    url = str(app.conf.broker_url or "")
    return f"recover_stale:{hashlib.sha256(url.encode()).hexdigest()[:12]}"


def _send_sweep(token: str, probes: int, countdown: float) -> None:
    try:
        recover_stale.apply_async(
            kwargs={"token": token, "probes": probes},
            countdown=countdown,
            retry=True,
            retry_policy={"max_retries": 2, "interval_start": 0, "interval_step": 1},
        )
    except Exception:  # noqa: BLE001 - the next worker start, or the jobs API, sweeps instead
        logger.warning("stale-job sweep not rescheduled (broker unavailable)", exc_info=True)


@shared_task(name="simulation.recover_stale", bind=True, acks_late=True, ignore_result=True)
def recover_stale(self, token: str = "", probes: int = 0) -> None:
    """Sweep for jobs whose worker was lost, then send itself again (see the module doc)."""
    token = token or new_sweep_token()
    interval = recovery_interval_s()
    if job_sweep_claim(token=token, name=_sweep_name(self.app), interval_s=interval):
        try:
            result = job_recover_stale()
            if result["requeued"] or result["failed"]:
                logger.warning("stale jobs: %s", result)
            job_resend_lost()
        finally:
            _send_sweep(token, 0, interval)
    elif probes < SWEEP_PROBES:
        _send_sweep(token, probes + 1, 2 * interval + 1)


class RecoverySweep(bootsteps.StartStopStep):
    """A step of the worker's consumer, started each time it (re)connects to the broker:
    recovers lost jobs at once (a worker restarted after a kill takes its jobs back without
    waiting for a stale heartbeat), then starts a sweep chain."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def start(self, parent) -> None:
        try:
            result = job_recover_stale()
            if result["requeued"] or result["failed"]:
                logger.warning("lost jobs at connection: %s", result)
            job_resend_lost()
        except Exception:  # noqa: BLE001 - the sweep chain and the jobs pages recover later
            logger.warning("lost jobs not recovered at connection", exc_info=True)
        finally:
            connections.close_all()  # pool processes forked later must not share them
        _send_sweep(new_sweep_token(), 0, 1)
