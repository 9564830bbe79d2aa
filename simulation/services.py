"""Writes for jobs: enqueue on commit, execute idempotently on a worker."""

from __future__ import annotations

import hashlib
import json

from django.db import transaction
from django.utils import timezone

from simulation.engine.diagnostics import worker_report
from simulation.models import Job, JobKindChoices, JobStatusChoices


def _input_hash(*, kind: str, parameters: dict) -> str:
    payload = json.dumps({"kind": kind, "parameters": parameters}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


@transaction.atomic
def job_enqueue(*, owner, kind: str, parameters: dict | None = None) -> Job:
    """Create a queued job row and send its task once the transaction commits."""
    from simulation.tasks import run_job as run_job_task

    parameters = parameters or {}
    job = Job(
        owner=owner,
        kind=kind,
        parameters=parameters,
        input_hash=_input_hash(kind=kind, parameters=parameters),
    )
    job.full_clean()
    job.save()
    job_id = str(job.pk)
    transaction.on_commit(lambda: run_job_task.apply_async(args=[job_id], task_id=job_id))
    return job


def _run_diagnostics(job: Job) -> dict:
    return worker_report(echo=str(job.parameters.get("echo", ""))).as_dict()


RUNNERS = {JobKindChoices.DIAGNOSTICS: _run_diagnostics}


def job_execute(*, job_id: str) -> None:
    """Run a job on this worker. A finished or cancelled job is left as it is (idempotent)."""
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        if job.is_finished:
            return
        job.status = JobStatusChoices.RUNNING
        job.started = timezone.now()
        job.save(update_fields=["status", "started"])
    try:
        result = RUNNERS[job.kind](job)
    except Exception as exc:
        Job.objects.filter(pk=job.pk).update(
            status=JobStatusChoices.FAILED,
            error=f"{type(exc).__name__}: {exc}",
            finished=timezone.now(),
        )
        raise
    Job.objects.filter(pk=job.pk, status=JobStatusChoices.RUNNING).update(
        status=JobStatusChoices.SUCCEEDED,
        result=result,
        finished=timezone.now(),
        progress_done=1,
        progress_total=1,
    )
