"""Job services: enqueue on commit, reuse, cap, cancel, execute, recovery, broker down.

No worker here: the task is replaced by a recorder (``sent``); tests/integration runs jobs on a
real worker.
"""

from __future__ import annotations

import os
import socket
import time
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from planner.designs.services import design_create
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.jobs import kinds
from simulation.jobs.errors import JobCancelled
from simulation.jobs.heartbeat import process_identity
from simulation.jobs.lifecycle import ProgressWriter
from simulation.models import Job, JobStatusChoices
from simulation.services import (
    JobLimitError,
    job_cancel,
    job_enqueue,
    job_execute,
    job_recover_stale,
    job_resend_lost,
    job_sweep_claim,
)

ONE_SU = {**load_spec_text((EXAMPLES_DIR / "h100-superpod-4su.yaml").read_text()), "servers": 31}


@pytest.fixture
def sent(monkeypatch):
    """Records task sends instead of talking to a broker."""
    from simulation.tasks import run_job

    calls = []
    monkeypatch.setattr(
        run_job, "apply_async", lambda *args, **kwargs: calls.append((args, kwargs))
    )
    return calls


@pytest.fixture
def revoked(monkeypatch):
    from planner.project.celery import app

    calls = []
    monkeypatch.setattr(app.control, "revoke", lambda task_id, **kw: calls.append(task_id))
    return calls


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU)


@pytest.fixture
def revision(design):
    return design.latest_revision


def _stale(job, *, seconds=600, attempts=1):
    """Make ``job`` look like a run whose worker stopped ``seconds`` ago."""
    past = timezone.now() - timedelta(seconds=seconds)
    Job.objects.filter(pk=job.pk).update(
        status=JobStatusChoices.RUNNING,
        started=past,
        heartbeat=past,
        attempts=attempts,
        worker="gone@host",
    )


# --- enqueue ---------------------------------------------------------------------------------


def test_the_task_is_sent_on_commit_with_the_row_id(user, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        job = job_enqueue(owner=user, kind="diagnostics", parameters={"echo": "x"})
        assert Job.objects.get(pk=job.pk).status == "queued"  # the row exists before the send
    assert sent == []  # nothing sent before the commit
    assert len(callbacks) == 1
    callbacks[0]()
    ((args, kwargs),) = sent
    assert kwargs["args"] == [str(job.pk)] and kwargs["task_id"] == str(job.pk)
    assert job.reused is False


def test_design_jobs_need_a_revision_and_clean_parameters(user, revision, sent):
    with pytest.raises(ValidationError, match="works on a design"):
        job_enqueue(owner=user, kind="validate", parameters={})
    with pytest.raises(ValidationError, match="does not work on a design"):
        job_enqueue(owner=user, kind="diagnostics", design_revision=revision, parameters={})
    with pytest.raises(ValidationError, match="pue"):
        job_enqueue(owner=user, kind="power", design_revision=revision, parameters={"pue": 0.5})
    with pytest.raises(ValidationError, match="unknown parameter"):
        job_enqueue(owner=user, kind="validate", design_revision=revision, parameters={"x": 1})
    with pytest.raises(ValidationError, match="kind"):
        job_enqueue(owner=user, kind="teleport", parameters={})
    job = job_enqueue(owner=user, kind="power", design_revision=revision, parameters={"pue": 1.25})
    # The design and revision ride along in the parameters (the canvas overlays find them).
    assert job.parameters == {"pue": 1.25, "design": revision.design_id, "revision": 1}
    assert Job.objects.count() == 1


def test_same_inputs_reuse_the_succeeded_job(user, other_user, revision, sent):
    first = job_enqueue(owner=user, kind="validate", design_revision=revision)
    assert len(Job.objects.filter(pk=first.pk)) == 1
    # Still queued: a second request makes a second job (only a success is reused).
    queued_again = job_enqueue(owner=user, kind="validate", design_revision=revision)
    assert queued_again.pk != first.pk
    Job.objects.filter(pk=first.pk).update(status=JobStatusChoices.SUCCEEDED, result={})
    sends = len(sent)
    reused = job_enqueue(owner=user, kind="validate", design_revision=revision)
    assert reused.pk == first.pk and reused.reused is True
    assert len(sent) == sends  # nothing dispatched
    # Other inputs are a new run: another kind, other parameters, another user's request.
    assert job_enqueue(owner=user, kind="power", design_revision=revision).pk != first.pk
    assert job_enqueue(owner=other_user, kind="validate", design_revision=revision).reused is False


def test_a_catalog_change_invalidates_reuse(user, revision, sent):
    from inventory.models import SwitchModel

    first = job_enqueue(owner=user, kind="power", design_revision=revision)
    Job.objects.filter(pk=first.pk).update(status=JobStatusChoices.SUCCEEDED, result={})
    assert job_enqueue(owner=user, kind="power", design_revision=revision).reused
    switch = SwitchModel.objects.get(slug="QM9700")
    switch.power_typical_w = 800
    switch.save()
    again = job_enqueue(owner=user, kind="power", design_revision=revision)
    assert again.reused is False and again.input_hash != first.input_hash


def test_diagnostics_always_run(user, sent):
    first = job_enqueue(owner=user, kind="diagnostics", parameters={"echo": "a"})
    Job.objects.filter(pk=first.pk).update(status=JobStatusChoices.SUCCEEDED)
    assert job_enqueue(owner=user, kind="diagnostics", parameters={"echo": "a"}).pk != first.pk


def test_concurrent_jobs_are_capped_per_user(user, other_user, sent, settings):
    settings.JOBS_MAX_CONCURRENT_PER_USER = 2
    first = job_enqueue(owner=user, kind="diagnostics")
    job_enqueue(owner=user, kind="diagnostics")
    with pytest.raises(JobLimitError, match=r"2 jobs queued or running; the limit is 2"):
        job_enqueue(owner=user, kind="diagnostics")
    assert Job.objects.filter(owner=user).count() == 2  # no row for the refused one
    job_enqueue(owner=other_user, kind="diagnostics")  # per user
    Job.objects.filter(pk=first.pk).update(status=JobStatusChoices.SUCCEEDED)
    job_enqueue(owner=user, kind="diagnostics")


def test_broker_down_at_submission_leaves_the_job_queued_and_waiting(
    user, django_capture_on_commit_callbacks
):
    from planner.project.celery import app
    from tests.conftest import reset_broker_connections

    previous = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    reset_broker_connections(app)
    started = time.monotonic()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            job = job_enqueue(owner=user, kind="diagnostics", parameters={"echo": "down"})
        # The broker cannot be read either: nothing is sent again, nothing fails.
        assert job_resend_lost(now=timezone.now() + timedelta(minutes=5)) == []
    finally:
        app.conf.broker_url = previous
        reset_broker_connections(app)
    assert time.monotonic() - started < 15
    job.refresh_from_db()
    # Was failed ("could not be queued"): the job now waits for the broker instead.
    assert job.status == JobStatusChoices.QUEUED and job.finished is None
    assert job.progress_message.startswith("waiting for the job broker (Redis)")


def test_a_queued_job_whose_task_the_broker_lost_is_sent_again(user, sent, monkeypatch):
    lost = job_enqueue(owner=user, kind="diagnostics")
    held = job_enqueue(owner=user, kind="diagnostics")
    fresh = job_enqueue(owner=user, kind="diagnostics")
    old = timezone.now() - timedelta(seconds=60)
    Job.objects.filter(pk__in=[lost.pk, held.pk]).update(created=old)
    monkeypatch.setattr("simulation.jobs.recovery.broker_task_ids", lambda: {str(held.pk)})
    sends = len(sent)
    assert job_resend_lost() == [str(lost.pk)]  # not the one the broker holds, nor the new one
    assert [call[1]["task_id"] for call in sent[sends:]] == [str(lost.pk)]
    assert str(fresh.pk) not in job_resend_lost(now=timezone.now())
    monkeypatch.setattr("simulation.jobs.recovery.broker_task_ids", lambda: None)
    assert job_resend_lost() == []  # a broker that cannot be read: nothing is sent blindly


def test_stuck_jobs_do_not_hold_the_cap(user, sent, settings, monkeypatch):
    settings.JOBS_MAX_CONCURRENT_PER_USER = 2
    first = job_enqueue(owner=user, kind="diagnostics")
    second = job_enqueue(owner=user, kind="diagnostics")
    _stale(first, attempts=3)  # its worker is lost, and it has no attempt left: it fails
    Job.objects.filter(pk=second.pk).update(created=timezone.now() - timedelta(minutes=5))
    monkeypatch.setattr("simulation.jobs.recovery.broker_task_ids", lambda: set())
    job_enqueue(owner=user, kind="diagnostics")  # not refused: the stale run no longer counts
    first.refresh_from_db()
    assert first.status == JobStatusChoices.FAILED
    assert str(second.pk) in [call[1]["task_id"] for call in sent]  # the lost one sent again
    with pytest.raises(JobLimitError, match="limit is 2"):
        job_enqueue(owner=user, kind="diagnostics")  # live jobs still count


# --- cancel ----------------------------------------------------------------------------------


def test_cancel_a_queued_job_revokes_it_and_a_worker_then_skips_it(user, sent, revoked):
    job = job_enqueue(owner=user, kind="diagnostics")
    job = job_cancel(job=job)
    assert job.status == JobStatusChoices.CANCELLED and job.finished is not None
    assert revoked == [str(job.pk)]
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == JobStatusChoices.CANCELLED and job.attempts == 0 and job.result is None


def test_cancel_a_running_job_stops_its_runner_cleanly(user, sent, revoked, monkeypatch):
    job = job_enqueue(owner=user, kind="diagnostics")
    steps = []

    def runner(job_row, on_progress):
        on_progress(0, 10, "first")
        job_cancel(job=job_row)  # the user cancels while it runs
        for step in range(1, 10):
            steps.append(step)
            on_progress(step, 10, "more")  # raises JobCancelled at the next write
            time.sleep(0.35)
        return {"never": "stored"}

    kind = kinds.KINDS["diagnostics"]
    monkeypatch.setitem(
        kinds.KINDS, "diagnostics", kinds.JobKind(runner, *list(vars(kind).values())[1:])
    )
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == JobStatusChoices.CANCELLED
    assert job.result is None and job.error == ""
    assert len(steps) < 9  # stopped early


def test_cancel_leaves_a_finished_job_alone(user, sent, revoked):
    job = job_enqueue(owner=user, kind="diagnostics")
    job_execute(job_id=job.pk, worker="w1")
    assert job_cancel(job=job).status == JobStatusChoices.SUCCEEDED
    assert revoked == []


# --- execute ---------------------------------------------------------------------------------


def test_execute_records_worker_attempt_and_result_and_is_idempotent(user, sent):
    job = job_enqueue(owner=user, kind="diagnostics", parameters={"echo": "hi"})
    job_execute(job_id=job.pk, worker="w1@host")
    job.refresh_from_db()
    assert job.status == JobStatusChoices.SUCCEEDED
    assert job.result["echo"] == "hi" and job.outcome.endswith(f"pid {job.result['pid']}")
    assert (job.worker, job.attempts) == ("w1@host", 1)
    assert job.heartbeat is not None and job.finished >= job.started
    finished = job.finished
    job_execute(job_id=job.pk, worker="w2@host")  # a redelivered task
    job.refresh_from_db()
    assert (job.worker, job.attempts, job.finished) == ("w1@host", 1, finished)


def test_execute_records_a_runner_failure(user, sent, monkeypatch):
    job = job_enqueue(owner=user, kind="diagnostics")

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(kinds, "worker_report", broken)
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == JobStatusChoices.FAILED
    assert "internal error" in job.error and f"job {job.pk}" in job.error
    assert "RuntimeError" not in job.error and "disk on fire" not in job.error  # only in the log
    assert job.finished is not None


def test_execute_leaves_a_job_running_elsewhere_alone(user, sent):
    job = job_enqueue(owner=user, kind="diagnostics")
    Job.objects.filter(pk=job.pk).update(
        status=JobStatusChoices.RUNNING, heartbeat=timezone.now(), attempts=1, worker="other"
    )
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert (job.status, job.worker, job.attempts) == ("running", "other", 1)


def test_diagnostics_hold_reports_progress_each_second(user, sent, settings):
    # No heartbeat thread write within the 2 s: its own connection would wait for this test's
    # open transaction (SQLite locks the whole file) until the thread is joined.
    settings.JOBS_HEARTBEAT_INTERVAL_S = 60
    job = job_enqueue(owner=user, kind="diagnostics", parameters={"hold_s": 2})
    started = time.monotonic()
    job_execute(job_id=job.pk, worker="w1")
    assert 1.9 < time.monotonic() - started < 5
    job.refresh_from_db()
    assert job.status == "succeeded" and (job.progress_done, job.progress_total) == (2, 2)


def test_progress_writes_are_throttled_and_stop_a_cancelled_run(user, sent):
    job = job_enqueue(owner=user, kind="diagnostics")
    Job.objects.filter(pk=job.pk).update(status=JobStatusChoices.RUNNING, attempts=1)
    writer = ProgressWriter(job.pk, attempt=1)
    writer(1, 100, "one")
    writer(50, 100, "skipped: within a second")
    job.refresh_from_db()
    assert (job.progress_done, job.progress_message) == (1, "one") and job.heartbeat
    writer(100, 100, "last step always written")
    job.refresh_from_db()
    assert job.progress_done == 100
    Job.objects.filter(pk=job.pk).update(status=JobStatusChoices.CANCELLED)
    with pytest.raises(JobCancelled):
        writer(100, 100)


def test_validate_and_power_jobs_run_the_engines_on_the_revision(user, revision, sent):
    from planner.analyses.power import power_budget
    from planner.designs.adapters import catalog_facts, fabric_unpack

    power = job_enqueue(owner=user, kind="power", design_revision=revision, parameters={"pue": 1.5})
    job_execute(job_id=power.pk, worker="w1")
    power.refresh_from_db()
    assert power.status == "succeeded", power.error
    expected = power_budget(fabric_unpack(revision.topology), catalog_facts(), pue=1.5)
    assert power.result["total_w"] == expected.total_w
    assert power.result["facility_w"] == pytest.approx(expected.total_w * 1.5, abs=0.1)
    assert power.outcome.startswith(f"{expected.total_w / 1000:,.1f} kW")
    assert power.result["racks"] and power.progress_done == power.progress_total

    validate = job_enqueue(owner=user, kind="validate", design_revision=revision)
    job_execute(job_id=validate.pk, worker="w1")
    validate.refresh_from_db()
    assert validate.status == "succeeded", validate.error
    assert set(validate.result) >= {"problems", "summary"}
    for problem in validate.result["problems"]:
        assert set(problem) >= {"code", "severity", "message", "element_ids", "suggestion"}
    assert validate.outcome


# --- recovery --------------------------------------------------------------------------------


def test_a_stale_running_job_is_queued_again_and_sent(user, sent):
    job = job_enqueue(owner=user, kind="diagnostics")
    _stale(job, attempts=1)
    sends = len(sent)
    outcome = job_recover_stale()
    assert outcome == {"requeued": [str(job.pk)], "failed": []}
    job.refresh_from_db()
    assert job.status == JobStatusChoices.QUEUED and job.worker == "" and job.heartbeat is None
    assert "worker lost (heartbeat stale since" in job.progress_message
    assert "attempt 2 of 3" in job.progress_message
    assert sent[sends:][0][1]["task_id"] == str(job.pk)
    job_execute(job_id=job.pk, worker="w2")  # the re-sent task runs
    job.refresh_from_db()
    assert (job.status, job.attempts, job.worker) == ("succeeded", 2, "w2")


def test_a_stale_job_fails_after_the_last_attempt(user, sent, settings):
    settings.JOBS_MAX_ATTEMPTS = 3
    job = job_enqueue(owner=user, kind="diagnostics")
    _stale(job, attempts=3, seconds=120)
    sends = len(sent)
    assert job_recover_stale() == {"requeued": [], "failed": [str(job.pk)]}
    job.refresh_from_db()
    assert job.status == JobStatusChoices.FAILED and job.finished is not None
    assert job.error.startswith("worker lost (heartbeat stale since ")
    assert "started 3 times, the limit is 3" in job.error
    assert len(sent) == sends


def test_live_and_finished_jobs_are_not_recovered(user, sent, settings):
    settings.JOBS_HEARTBEAT_TIMEOUT_S = 60
    live = job_enqueue(owner=user, kind="diagnostics")
    _stale(live, seconds=30)  # within the timeout
    done = job_enqueue(owner=user, kind="diagnostics")
    Job.objects.filter(pk=done.pk).update(
        status=JobStatusChoices.SUCCEEDED, heartbeat=timezone.now() - timedelta(hours=1)
    )
    assert job_recover_stale() == {"requeued": [], "failed": []}
    settings.JOBS_HEARTBEAT_TIMEOUT_S = 10  # tests (and workers) lower it
    assert job_recover_stale()["requeued"] == [str(live.pk)]


def test_a_redelivered_task_takes_over_a_stale_run(user, sent):
    job = job_enqueue(owner=user, kind="diagnostics")
    _stale(job, attempts=1)
    job_execute(job_id=job.pk, worker="w2")
    job.refresh_from_db()
    assert (job.status, job.attempts, job.worker) == ("succeeded", 2, "w2")
    last = job_enqueue(owner=user, kind="diagnostics")
    _stale(last, attempts=3)
    job_execute(job_id=last.pk, worker="w2")
    last.refresh_from_db()
    assert last.status == "failed" and "worker lost" in last.error


def _claimed_by(job, process: str, *, attempts=1):
    """Make ``job`` look like a run claimed a moment ago by ``process`` (a live heartbeat)."""
    Job.objects.filter(pk=job.pk).update(
        status=JobStatusChoices.RUNNING,
        started=timezone.now(),
        heartbeat=timezone.now(),
        attempts=attempts,
        worker=f"w1@host [{process}]",
    )


def _dead_pid() -> int:
    import subprocess

    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_a_run_whose_process_died_is_taken_over_at_once_by_the_redelivered_task(user, sent):
    job = job_enqueue(owner=user, kind="diagnostics", parameters={"echo": "again"})
    _claimed_by(job, f"pid {_dead_pid()} on {socket.gethostname()}, t1")
    started = time.monotonic()
    job_execute(job_id=job.pk, worker="w2@host", process=process_identity())
    assert time.monotonic() - started < 5  # no heartbeat wait
    job.refresh_from_db()
    assert (job.status, job.attempts, job.result["echo"]) == ("succeeded", 2, "again")
    assert job.worker == f"w2@host [{process_identity()}]"


def test_the_sweep_requeues_at_once_a_run_whose_process_died_on_this_machine(user, sent):
    job = job_enqueue(owner=user, kind="diagnostics")
    _claimed_by(job, f"pid {_dead_pid()} on {socket.gethostname()}, t1")  # a fresh heartbeat
    live = job_enqueue(owner=user, kind="diagnostics")
    _claimed_by(live, process_identity())  # this process: alive
    elsewhere = job_enqueue(owner=user, kind="diagnostics")
    _claimed_by(elsewhere, "pid 1 on another-machine, t1")  # cannot tell: the heartbeat decides
    sends = len(sent)
    assert job_recover_stale() == {"requeued": [str(job.pk)], "failed": []}
    job.refresh_from_db()
    assert job.status == JobStatusChoices.QUEUED
    assert job.progress_message.startswith("worker lost (its worker process exited)")
    assert [call[1]["task_id"] for call in sent[sends:]] == [str(job.pk)]


def test_a_process_whose_pid_was_reused_counts_as_dead(user, sent):
    job = job_enqueue(owner=user, kind="diagnostics")
    parent = os.getppid()  # alive, but not the process that claimed the run (t1)
    _claimed_by(job, f"pid {parent} on {socket.gethostname()}, t1")
    job_execute(job_id=job.pk, worker="w2", process=process_identity())
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("succeeded", 2)


def test_a_duplicate_delivery_leaves_a_live_process_alone(user, sent):
    job = job_enqueue(owner=user, kind="diagnostics")
    alive = process_identity()  # this test process: alive
    _claimed_by(job, alive)
    started = time.monotonic()
    job_execute(job_id=job.pk, worker="w2", process=alive, redelivered=True)
    assert time.monotonic() - started < 2  # known alive: no heartbeat watch
    job.refresh_from_db()
    assert (job.status, job.attempts, job.worker) == ("running", 1, f"w1@host [{alive}]")


def test_a_redelivered_run_of_another_machine_is_taken_over_when_its_heartbeat_stops(
    user, sent, settings
):
    settings.JOBS_HEARTBEAT_INTERVAL_S = 0.2
    job = job_enqueue(owner=user, kind="diagnostics")
    _claimed_by(job, "pid 4242 on another-machine, t1")
    job_execute(job_id=job.pk, worker="w2")  # not a redelivery: left alone
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("running", 1)
    started = time.monotonic()
    job_execute(job_id=job.pk, worker="w2", redelivered=True)
    assert time.monotonic() - started < 3  # two beats of 0.2 s, plus a second
    job.refresh_from_db()
    assert (job.status, job.attempts, job.worker) == ("succeeded", 2, "w2")


def test_a_run_whose_process_died_fails_after_the_last_attempt(user, sent, settings):
    settings.JOBS_MAX_ATTEMPTS = 2
    job = job_enqueue(owner=user, kind="diagnostics")
    pid = _dead_pid()
    _claimed_by(job, f"pid {pid} on {socket.gethostname()}, t1", attempts=2)
    job_execute(job_id=job.pk, worker="w2", process=process_identity())
    job.refresh_from_db()
    assert job.status == "failed" and job.attempts == 2
    assert job.error.startswith("worker lost (it stopped answering)")
    assert str(pid) not in job.error and socket.gethostname() not in job.error  # in the log
    assert "started 2 times, the limit is 2" in job.error


def test_the_sweep_lease_is_held_by_one_chain_until_it_expires():
    assert job_sweep_claim(token="a", name="t", interval_s=30)
    assert job_sweep_claim(token="a", name="t", interval_s=30)  # the holder keeps it
    assert not job_sweep_claim(token="b", name="t", interval_s=30)  # another chain stops
    from simulation.models import JobSweep

    JobSweep.objects.filter(name="t").update(last_run=timezone.now() - timedelta(seconds=61))
    assert job_sweep_claim(token="b", name="t", interval_s=30)  # the holder died: taken over
    assert not job_sweep_claim(token="a", name="t", interval_s=30)
