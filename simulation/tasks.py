"""Celery tasks: thin wrappers that call services with row ids."""

from celery import shared_task


@shared_task(name="simulation.run_job", acks_late=True, ignore_result=True)
def run_job(job_id: str) -> None:
    """Execute the job row ``job_id``."""
    from simulation.services import job_execute

    job_execute(job_id=job_id)
