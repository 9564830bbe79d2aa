"""Sending job tasks to the broker, by task name.

This module never imports :mod:`simulation.tasks` (the tasks import the services, not the
other way round): it builds signatures by name on the current Celery app. Where the task is
registered (a worker, or a process that imported the tasks) Celery sends it through the task
object; elsewhere through ``send_task`` with the same name, routes and options.
"""

from __future__ import annotations

import logging

from celery import current_app, group

from simulation.models import Job, JobStatusChoices

logger = logging.getLogger(__name__)

#: The task names of :mod:`simulation.tasks`.
RUN_JOB = "simulation.run_job"
SIMULATE_SEED = "simulation.simulate_seed"
SWEEP_RUN = "simulation.sweep_run"

#: Publishing to a broker that does not answer gives up after about a second.
DISPATCH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.3,
    "interval_max": 0.5,
}


def _apply_async(name: str, **options) -> None:
    """Send the task ``name``: through the registered task object when this process has it
    (Celery then adds the task's own options), else with ``send_task`` by name (what
    ``Signature.apply_async`` does too)."""
    try:
        task = current_app.tasks[name]
    except KeyError:
        current_app.send_task(name, **options)
    else:
        task.apply_async(**options)


#: A queued job's progress line while its task waits for the broker.
BROKER_WAIT_MESSAGE = (
    "waiting for the job broker (Redis), which did not answer; the job is sent as soon as it "
    "is back"
)


def send_job(job_id: str) -> bool:
    """Send the task of ``job_id`` (task id = row id); whether the broker took it.

    When the broker does not answer, the row stays ``queued`` and says so
    (:data:`BROKER_WAIT_MESSAGE`); the recovery sweep sends it again once the broker is back
    (:func:`simulation.jobs.recovery.job_resend_lost`). Nothing is raised.
    """
    try:
        _apply_async(
            RUN_JOB,
            args=[job_id],
            task_id=job_id,
            retry=True,
            retry_policy=DISPATCH_RETRY_POLICY,
        )
    except Exception as exc:  # noqa: BLE001 - kombu raises several kinds of connection errors
        Job.objects.filter(pk=job_id, status=JobStatusChoices.QUEUED).update(
            progress_message=BROKER_WAIT_MESSAGE
        )
        logger.warning("job %s not sent (sent again when the broker is back): %s", job_id, exc)
        return False
    return True


def send_parts(task: str, job_id, attempt: int, parts: list[int]) -> None:
    """Send a group of subtasks ``task(job_id, attempt, part)``, one per part; if the broker
    does not take them, the runner computes the unclaimed parts itself (logged, not raised)."""
    if not parts:
        return
    try:
        group(
            current_app.signature(task, args=(str(job_id), attempt, p), immutable=True)
            for p in parts
        ).apply_async(retry=True, retry_policy=DISPATCH_RETRY_POLICY)
    except Exception:  # noqa: BLE001 - the runner computes unclaimed parts itself
        logger.warning("%s subtasks of job %s not sent; running them here", task, job_id)


def send_seeds(job_id, attempt: int, seeds: list[int]) -> None:
    """Send a group of Monte Carlo seed subtasks (:func:`send_parts`)."""
    send_parts(SIMULATE_SEED, job_id, attempt, seeds)


def send_sweep_runs(job_id, attempt: int, runs: list[int]) -> None:
    """Send a group of sweep run subtasks (:func:`send_parts`)."""
    send_parts(SWEEP_RUN, job_id, attempt, runs)


def revoke(job_id) -> None:
    """Revoke a cancelled job's task; a worker skips a cancelled row anyway."""
    try:
        current_app.control.revoke(str(job_id))
    except Exception:  # noqa: BLE001 - the row is cancelled; a worker skips it anyway
        logger.info("revoke of job %s not sent (broker unavailable)", job_id)
