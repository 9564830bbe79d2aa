"""A job travels web -> Redis -> a real worker process -> database, and back to the API."""

import time

from simulation.models import Job, JobStatusChoices
from simulation.services import job_enqueue


def _wait_finished(job_id, timeout_s=30):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=job_id)
        if job.is_finished:
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} still {job.status} after {timeout_s} s")


def test_diagnostics_job_runs_on_a_real_worker(celery_worker_process, django_user_model):
    import os

    user = django_user_model.objects.create_user(username="worker-test", password="x-123456789")
    job = job_enqueue(owner=user, kind="diagnostics", parameters={"echo": "round-trip"})
    finished = _wait_finished(job.pk)
    assert finished.status == JobStatusChoices.SUCCEEDED, finished.error
    assert finished.result["echo"] == "round-trip"
    # It ran in the worker process, not in this one.
    assert finished.result["pid"] != os.getpid()
    assert finished.started is not None and finished.finished >= finished.started


def test_api_round_trip(celery_worker_process, django_user_model):
    from rest_framework.test import APIClient

    user = django_user_model.objects.create_user(username="api-worker", password="x-123456789")
    client = APIClient()
    client.force_authenticate(user)
    created = client.post(
        "/api/simulation/jobs/",
        {"kind": "diagnostics", "parameters": {"echo": "api"}},
        format="json",
    )
    assert created.status_code == 201
    job_id = created.json()["id"]
    _wait_finished(job_id)
    polled = client.get(f"/api/simulation/jobs/{job_id}/").json()
    assert polled["status"] == "succeeded"
    assert polled["result"]["echo"] == "api"
