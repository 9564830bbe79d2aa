"""Fault injection through the API: the job broker (Redis) is down when a job is submitted.

Nothing listens where the broker should be (a real refused connection, not a stub). The
submission answers within seconds: the job is queued, says in plain words that it waits for
the broker, and is sent by the recovery sweep once the broker is back
(tests/integration/test_broker_outage.py runs that with a real Redis stopped and restarted).
tests/services/test_jobs.py covers the service alone; a worker killed mid-job is
tests/integration/test_jobs_celery.py.
"""

from __future__ import annotations

import dataclasses
import re
import time

import pytest
from django.urls import reverse

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


#: What must never reach a user: an exception's class, an internal address, a traceback.
LEAKS = re.compile(
    r"\bError \d+|\b\w*(Error|Exception)\b(?!s)|\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b|redis://|Traceback|"
    r"Connection refused|Errno"
)


def _leaks(text: str) -> list[str]:
    return [match.group(0) for match in LEAKS.finditer(text)]


def test_the_leak_pattern_finds_the_issues_words():
    issue = "(OperationalError: Error 111 connecting to 127.0.0.1:6390. Connection refused.)"
    assert _leaks(issue) == [
        "OperationalError",
        "Error 111",
        "127.0.0.1:6390",
        "Connection refused",
    ]
    assert not _leaks("The job could not be queued: errors are logged. Try again in a minute.")


@pytest.mark.django_db(transaction=True)
def test_a_broker_outage_reads_in_plain_words_in_the_api_the_row_and_the_pages(
    api_client, logged_in_client, user, dead_broker
):
    response = api_client.post(
        "/api/simulation/jobs/", {"kind": "diagnostics", "parameters": {}}, format="json"
    )
    assert response.status_code == 201  # waits for the broker (issue 34 item 1)
    assert not _leaks(response.content.decode()), response.content
    page = logged_in_client.post(reverse("simulation:job-diagnostics"), follow=True)
    assert page.status_code == 200
    assert not _leaks(_visible_text(page.content.decode()))
    assert Job.objects.filter(status=JobStatusChoices.QUEUED).count() == 2
    for job in Job.objects.all():
        assert "waiting for the job broker" in job.progress_message
        assert not _leaks(job.progress_message), job.progress_message
        detail = logged_in_client.get(reverse("simulation:job-detail", args=[job.pk]))
        assert not _leaks(_visible_text(detail.content.decode()))
        assert not _leaks(api_client.get(f"/api/simulation/jobs/{job.pk}/").content.decode())


@pytest.mark.django_db(transaction=True)
def test_a_job_failing_on_a_lost_connection_says_so_without_its_text(
    api_client, logged_in_client, user, monkeypatch
):
    from redis.exceptions import ConnectionError as RedisConnectionError

    from simulation.jobs import kinds
    from simulation.services import job_enqueue, job_execute
    from simulation.tasks import run_job

    def broken(job, on_progress):
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")

    monkeypatch.setattr(run_job, "apply_async", lambda *a, **k: None)
    kind = dataclasses.replace(kinds.KINDS["diagnostics"], runner=broken)
    monkeypatch.setitem(kinds.KINDS, "diagnostics", kind)
    job = job_enqueue(owner=user, kind="diagnostics", parameters={"echo": "x"})
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == JobStatusChoices.FAILED
    assert job.error and not _leaks(job.error), job.error
    for url in (reverse("simulation:job-detail", args=[job.pk]), reverse("simulation:job-list")):
        text = logged_in_client.get(url).content.decode()
        assert job.error in text and not _leaks(_visible_text(text)), url
    assert not _leaks(api_client.get(f"/api/simulation/jobs/{job.pk}/").content.decode())
    assert not _leaks(api_client.get("/api/simulation/jobs/").content.decode())


def _visible_text(html: str) -> str:
    """The page's words (not its markup or scripts, whose names may contain "Error")."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)
