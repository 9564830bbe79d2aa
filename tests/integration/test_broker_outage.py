"""A Redis outage around queued and running jobs, with a real Redis and a real Celery worker.

The test starts a private ``redis-server`` on a free port (never the shared one), a worker on
it, and jobs: one running, two queued behind it. Redis then stops (its data goes with it: no
persistence, as after a crash), a job is submitted while it is down, and Redis comes back
empty on the same port. The worker must still live and every job must finish: the running one
when its heartbeat outlives the outage, the queued ones because the recovery sweep sends their
lost messages again (:func:`simulation.jobs.recovery.job_recover_stale`).
"""

from __future__ import annotations

import os
import time

import pytest

from simulation.models import Job, JobStatusChoices
from simulation.services import job_enqueue
from tests.conftest import reset_broker_connections, service_missing, start_worker, stop_worker
from tests.redis_server import free_port, redis_server_missing, start_redis, stop_redis


@pytest.fixture
def private_redis():
    """A redis-server of this test's own on a free port, as the app's broker; yields
    ``(url, stop, start)``: ``stop()`` stops it (its data goes with it), ``start()`` starts it
    again, empty, on the same port."""
    if redis_server_missing():
        service_missing(redis_server_missing())
    port = free_port()
    procs = [start_redis(port)]
    from planner.project.celery import app

    previous = app.conf.broker_url
    app.conf.broker_url = f"redis://127.0.0.1:{port}/0"
    reset_broker_connections(app)
    yield (
        app.conf.broker_url,
        lambda: stop_redis(procs[-1]),
        lambda: procs.append(start_redis(port)),
    )
    app.conf.broker_url = previous
    reset_broker_connections(app)
    stop_redis(procs[-1])


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user(username="outage", password="x-123456789")


def test_a_redis_outage_keeps_the_worker_and_finishes_every_job(
    private_redis, transactional_db, owner, tmp_path, monkeypatch, settings
):
    url, redis_down, redis_up = private_redis
    # The worker reads these from the environment: a lost message is looked for every second.
    monkeypatch.setenv("JOBS_RECOVERY_INTERVAL_S", "1")
    monkeypatch.setenv("JOBS_QUEUED_RESEND_S", "2")
    settings.JOBS_QUEUED_RESEND_S = 2
    settings.JOBS_MAX_CONCURRENT_PER_USER = 5
    log_path = tmp_path / "worker.log"
    worker = start_worker(url, log_path)
    try:
        running = job_enqueue(
            owner=owner, kind="diagnostics", parameters={"hold_s": 4, "echo": "r"}
        )
        queued = [
            job_enqueue(owner=owner, kind="diagnostics", parameters={"echo": f"q{n}"})
            for n in range(2)
        ]
        deadline = time.monotonic() + 30
        while Job.objects.get(pk=running.pk).status != JobStatusChoices.RUNNING:
            assert time.monotonic() < deadline, "the first job never started"
            time.sleep(0.1)

        redis_down()
        during = job_enqueue(owner=owner, kind="diagnostics", parameters={"echo": "during"})
        assert Job.objects.get(pk=during.pk).status == JobStatusChoices.QUEUED
        time.sleep(float(os.environ.get("OUTAGE_S", "3")))  # OUTAGE_S=20 for a longer one
        assert worker.poll() is None, log_path.read_text()[-3000:]
        redis_up()
        back_at = time.monotonic()
        after = job_enqueue(owner=owner, kind="diagnostics", parameters={"echo": "after"})

        jobs = [running, *queued, during, after]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            rows = list(Job.objects.filter(pk__in=[j.pk for j in jobs]))
            if all(row.is_finished for row in rows):
                break
            time.sleep(0.2)
        took = time.monotonic() - back_at
        print(f"Redis outage: every job finished {took:.1f} s after Redis came back")
        assert worker.poll() is None, log_path.read_text()[-3000:]  # the worker lives on
    finally:
        stop_worker(worker)
    log = log_path.read_text()
    assert "Unrecoverable error" not in log, log[-3000:]
    by_echo = {row.parameters["echo"]: row for row in rows}
    for echo, row in by_echo.items():
        assert row.status == JobStatusChoices.SUCCEEDED, (echo, row.status, row.error, log[-3000:])
        assert row.result["echo"] == echo
