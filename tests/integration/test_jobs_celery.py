"""Jobs on real worker processes: validate and power on a saved design, live progress, cancel,
a worker killed with SIGKILL in the middle of a job (the job is run again or fails with
"worker lost"; it never stays running), and a pool process killed alone (its job is taken over
at once by the redelivered task, long before the heartbeat would go stale)."""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from planner.designs.services import design_create
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.models import Job, JobStatusChoices
from simulation.services import job_cancel, job_enqueue
from tests.conftest import start_worker, stop_worker

FOUR_SU = load_spec_text((EXAMPLES_DIR / "h100-superpod-4su.yaml").read_text())


def _poll(job_id, *, until, timeout_s: float, every_s: float = 0.05) -> tuple[Job, list[Job]]:
    """Poll the row until ``until(job)``; returns it and every row seen on the way."""
    seen = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=job_id)
        seen.append(job)
        if until(job):
            return job, seen
        time.sleep(every_s)
    raise AssertionError(f"job {job_id} still {job.status} after {timeout_s} s: {job.error}")


def _finished(job_id, timeout_s: float = 60):
    return _poll(job_id, until=lambda j: j.is_finished, timeout_s=timeout_s)


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user(username="jobs-worker", password="x-123456789")


def test_validate_and_power_jobs_run_on_a_worker(celery_worker_process, seed_catalog, owner):
    design = design_create(owner=owner, spec_document=FOUR_SU)
    revision = design.latest_revision
    for kind in ("validate", "power"):
        job = job_enqueue(owner=owner, kind=kind, design_revision=revision)
        done, seen = _finished(job.pk)
        assert done.status == JobStatusChoices.SUCCEEDED, done.error
        progress = [row.progress_done for row in seen]
        assert progress == sorted(progress), progress  # never goes back
        assert done.progress_done == done.progress_total > 0
        assert done.worker.startswith("test-") and done.attempts == 1
        assert done.heartbeat >= done.started
        if kind == "power":
            assert done.result["total_w"] == 1_354_296  # tests/unit/test_power.py
            assert done.progress_total == 5  # the engine's steps, written by the worker
        else:
            assert done.result["problems"] and "summary" in done.result
            assert done.progress_total >= 1


def test_a_monte_carlo_simulate_job_runs_its_seeds_on_the_worker(
    celery_worker_process, seed_catalog, owner
):
    spec = load_spec_text((EXAMPLES_DIR / "h100-superpod-1su.yaml").read_text(), name="1su")
    revision = design_create(owner=owner, spec_document=spec).latest_revision
    job = job_enqueue(
        owner=owner,
        kind="simulate",
        design_revision=revision,
        parameters={"traffic": "permutation", "routing": "ecmp", "seeds": 3, "seed": 1},
    )
    done, _ = _finished(job.pk, timeout_s=120)
    assert done.status == JobStatusChoices.SUCCEEDED, done.error
    mc = done.result["monte_carlo"]
    assert mc["seeds"] == 3 and [run["seed"] for run in mc["runs"]] == [1, 2, 3]
    for key in ("completion_time_s", "busbw_gbps"):
        assert set(mc[key]) >= {"p50", "p90", "max"}
        assert mc[key]["p50"] <= mc[key]["p90"] <= mc[key]["max"]
    assert done.result["link_utilization"]


def test_progress_and_heartbeat_advance_while_a_job_runs(celery_worker_process, owner):
    job = job_enqueue(owner=owner, kind="diagnostics", parameters={"hold_s": 4})
    done, seen = _poll(job.pk, until=lambda j: j.is_finished, timeout_s=60, every_s=0.2)
    assert done.status == JobStatusChoices.SUCCEEDED, done.error
    running = [row for row in seen if row.status == JobStatusChoices.RUNNING]
    values = [row.progress_done for row in running]
    assert values == sorted(values) and len(set(values)) >= 3, values  # 0, 1, 2, 3 over 4 s
    beats = [row.heartbeat for row in running]
    assert beats == sorted(beats) and len(set(beats)) >= 3
    assert (done.progress_done, done.progress_total) == (4, 4)


def test_cancel_stops_a_running_job_and_frees_the_worker(celery_worker_process, owner):
    job = job_enqueue(owner=owner, kind="diagnostics", parameters={"hold_s": 30})
    _poll(job.pk, until=lambda j: j.status == "running" and j.progress_done >= 1, timeout_s=30)
    cancelled_at = time.monotonic()
    job_cancel(job=job)
    follow_up = job_enqueue(owner=owner, kind="diagnostics", parameters={"echo": "next"})
    done, _ = _finished(follow_up.pk, timeout_s=30)
    assert done.status == JobStatusChoices.SUCCEEDED  # the worker let go of the held job
    assert time.monotonic() - cancelled_at < 15
    job.refresh_from_db()
    assert job.status == JobStatusChoices.CANCELLED and job.result is None


def test_a_job_survives_a_worker_killed_with_sigkill(
    isolated_broker, transactional_db, owner, tmp_path, monkeypatch
):
    # The workers read these from the environment: a lost heartbeat is noticed within seconds.
    monkeypatch.setenv("JOBS_HEARTBEAT_TIMEOUT_S", "3")
    monkeypatch.setenv("JOBS_HEARTBEAT_INTERVAL_S", "0.5")
    monkeypatch.setenv("JOBS_RECOVERY_INTERVAL_S", "1")
    workers = [start_worker(isolated_broker, tmp_path / "first.log")]
    try:
        job = job_enqueue(owner=owner, kind="diagnostics", parameters={"hold_s": 8, "echo": "soak"})
        _poll(job.pk, until=lambda j: j.status == "running" and j.progress_done >= 1, timeout_s=30)
        os.killpg(workers[0].pid, signal.SIGKILL)  # the whole worker: main process and pool
        workers[0].wait(timeout=10)
        killed_at = time.monotonic()
        assert Job.objects.get(pk=job.pk).status == JobStatusChoices.RUNNING  # for now

        workers.append(start_worker(isolated_broker, tmp_path / "second.log", concurrency=2))
        done, seen = _finished(job.pk, timeout_s=90)
        took = time.monotonic() - killed_at
        print(f"SIGKILL: job {done.status} {took:.1f} s after the kill, attempts {done.attempts}")
    finally:
        for proc in workers:
            stop_worker(proc)
    assert took < 90
    assert any(row.status == JobStatusChoices.QUEUED for row in seen) or done.attempts == 2
    if done.status == JobStatusChoices.SUCCEEDED:
        assert done.attempts == 2 and done.result["echo"] == "soak"  # run again, in full
    else:
        assert done.status == JobStatusChoices.FAILED, done.status
        assert done.error.startswith("worker lost (heartbeat stale since"), done.error


def test_a_job_whose_whole_worker_is_killed_finishes_within_15_s_of_the_kill(
    isolated_broker, transactional_db, owner, tmp_path, monkeypatch
):
    # The defaults (10 s heartbeat timeout): the worker that comes back does not wait for it,
    # it takes back at once the job of the dead process when it connects.
    for name in (
        "JOBS_HEARTBEAT_TIMEOUT_S",
        "JOBS_HEARTBEAT_INTERVAL_S",
        "JOBS_RECOVERY_INTERVAL_S",
    ):
        monkeypatch.delenv(name, raising=False)
    workers = [start_worker(isolated_broker, tmp_path / "first.log")]
    try:
        job = job_enqueue(owner=owner, kind="diagnostics", parameters={"hold_s": 2, "echo": "w"})
        _poll(job.pk, until=lambda j: j.status == "running" and j.progress_done >= 1, timeout_s=30)
        os.killpg(workers[0].pid, signal.SIGKILL)  # main process and pool
        killed_at = time.monotonic()
        # manage.py serve's supervisor starts it again at once
        workers.append(start_worker(isolated_broker, tmp_path / "second.log"))
        done, _ = _finished(job.pk, timeout_s=60)
        took = time.monotonic() - killed_at
        print(f"whole worker SIGKILL: job {done.status} {took:.1f} s after the kill")
    finally:
        for proc in workers:
            stop_worker(proc)
    assert done.status == JobStatusChoices.SUCCEEDED, done.error
    assert done.attempts == 2 and done.result["echo"] == "w"
    assert took <= 15, took  # not the 10 s heartbeat limit plus a sweep: taken back at once


def _parent_pid(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        text = stat.read()
    return int(text[text.rfind(b")") + 2 :].split()[1])


def test_a_job_whose_pool_process_is_killed_is_taken_over_at_once(
    isolated_broker, transactional_db, owner, tmp_path, monkeypatch
):
    # The default heartbeat limit: a run that waited for it would take a minute or more.
    monkeypatch.setenv("JOBS_HEARTBEAT_TIMEOUT_S", "60")
    monkeypatch.delenv("JOBS_HEARTBEAT_INTERVAL_S", raising=False)
    monkeypatch.delenv("JOBS_RECOVERY_INTERVAL_S", raising=False)
    worker = start_worker(isolated_broker, tmp_path / "worker.log")
    try:
        job = job_enqueue(owner=owner, kind="diagnostics", parameters={"hold_s": 3, "echo": "pool"})
        running, _ = _poll(
            job.pk, until=lambda j: j.status == "running" and j.progress_done >= 1, timeout_s=30
        )
        child = int(re.search(r"\[pid (\d+) on ", running.worker)[1])
        assert child != worker.pid and _parent_pid(child) == worker.pid  # a pool process
        os.kill(child, signal.SIGKILL)
        killed_at = time.monotonic()
        done, _ = _finished(job.pk, timeout_s=90)
        took = time.monotonic() - killed_at
        print(f"pool process SIGKILL: job {done.status} {took:.1f} s after the kill")
        assert worker.poll() is None  # the main process lives on
    finally:
        stop_worker(worker)
    assert done.status == JobStatusChoices.SUCCEEDED, done.error
    assert done.attempts == 2 and done.result["echo"] == "pool"  # run again, in full
    assert done.result["pid"] != child
    assert took <= 15, took  # 3 s of work: no wait for the heartbeat limit
    log = (tmp_path / "worker.log").read_text()
    # Taken over by the redelivered task, or put back in the queue by the worker's sweep, which
    # sees the claiming process gone: both at once, never after the heartbeat limit.
    assert "taken over at once for attempt 2" in log or "its worker process exited" in log, log[
        -3000:
    ]
