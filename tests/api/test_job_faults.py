"""Fault injection through the API: the job broker (Redis) is down when a job is submitted.

Nothing listens where the broker should be (a real refused connection, not a stub). The
submission answers within seconds: the job is queued, says in plain words that it waits for
the broker, and is sent by the recovery sweep once the broker is back
(tests/integration/test_broker_outage.py runs that with a real Redis stopped and restarted).
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
def test_a_job_submitted_while_the_broker_is_down_waits_for_it_in_plain_words(
    api_client, dead_broker
):
    started = time.monotonic()
    response = api_client.post(
        "/api/simulation/jobs/", {"kind": "diagnostics", "parameters": {}}, format="json"
    )
    took = time.monotonic() - started
    # Was a 503 and a failed row: the job now waits for the broker and runs when it is back.
    assert response.status_code == 201, response.content
    assert took < 15
    job = Job.objects.get()
    assert job.status == JobStatusChoices.QUEUED and job.error == ""
    assert "waiting for the job broker (Redis)" in job.progress_message
    assert "127.0.0.1" not in job.progress_message and "Error" not in job.progress_message
