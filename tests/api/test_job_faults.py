"""Fault injection through the API: the job broker (Redis) is down when a job is submitted.

Nothing listens where the broker should be (a real refused connection, not a stub). The
submission answers 503 within seconds with a message that says what happened and what to do,
and leaves no job queued that no worker will ever run: the row records the failed attempt.
tests/services/test_jobs.py covers the service alone; a worker killed mid-job is
tests/integration/test_jobs_celery.py.
"""

from __future__ import annotations

import time

import pytest

from simulation.models import Job, JobStatusChoices
from tests.conftest import reset_broker_connections


@pytest.fixture
def dead_broker():
    """Point the app's producer at a port where nothing listens, for this test only."""
    from planner.project.celery import app

    previous = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    reset_broker_connections(app)
    yield
    app.conf.broker_url = previous
    reset_broker_connections(app)


@pytest.mark.django_db(transaction=True)  # as in production: the task is sent on commit
def test_a_job_submitted_while_the_broker_is_down_is_503_and_not_left_queued(
    api_client, dead_broker
):
    started = time.monotonic()
    response = api_client.post(
        "/api/simulation/jobs/", {"kind": "diagnostics", "parameters": {}}, format="json"
    )
    took = time.monotonic() - started
    assert response.status_code == 503, response.content
    detail = response.json()["detail"]
    assert "could not be queued" in detail and "Try again" in detail, detail
    assert took < 15
    assert not Job.objects.filter(status__in=["queued", "running"]).exists()
    job = Job.objects.get()
    assert job.status == JobStatusChoices.FAILED and job.error == detail
