"""A parameter sweep on real Celery workers: the same sweep on one worker process and on three
gives the same result, exactly, and on three the runs are spread over the processes."""

from __future__ import annotations

import re
import time

from planner.designs.services import design_create
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.models import Job, JobStatusChoices
from simulation.services import job_enqueue
from tests.conftest import start_worker, start_workers, stop_workers

ONE_SU = load_spec_text((EXAMPLES_DIR / "h100-superpod-1su.yaml").read_text(), name="1su")
#: 6 runs of an all-to-all (61,256 flows each): long enough that three processes share them.
SWEEP = {
    "traffic": "all-to-all",
    "routing": "ecmp",
    "fail_links": [0, 4, 8],
    "seeds": 2,
    "size_bytes": 1e8,
}


def _finished(job_id, timeout_s: float = 60) -> Job:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=job_id)
        if job.is_finished:
            return job
        time.sleep(0.05)
    raise AssertionError(f"sweep {job_id} still {job.status} after {timeout_s} s")


def _runs_by_log(logs, job_id) -> dict[str, int]:
    """How many runs of the job each worker's subtasks did (the worker's log says each)."""
    pattern = re.compile(rf"sweep job {job_id}: run \d+ done by")
    return {path.stem: len(pattern.findall(path.read_text())) for path in logs}


def test_a_sweep_gives_the_same_result_on_one_and_on_three_worker_processes(
    isolated_broker, transactional_db, seed_catalog, django_user_model, tmp_path
):
    first = django_user_model.objects.create_user(username="sweep-one", password="x-123456789")
    second = django_user_model.objects.create_user(username="sweep-three", password="x-12345678")
    revision = design_create(owner=first, spec_document=ONE_SU).latest_revision
    logs = [tmp_path / "a.log", tmp_path / "b.log", tmp_path / "c.log"]
    started = time.monotonic()
    workers = [start_worker(isolated_broker, logs[0], name="a")]
    try:
        ready = time.monotonic()
        one = job_enqueue(owner=first, kind="sweep", design_revision=revision, parameters=SWEEP)
        one = _finished(one.pk)
        ran_one = time.monotonic()
        workers += start_workers(isolated_broker, logs[1:])
        ready_three = time.monotonic()
        # another owner: the same inputs are not answered from the first run
        three = job_enqueue(owner=second, kind="sweep", design_revision=revision, parameters=SWEEP)
        assert not three.reused
        three = _finished(three.pk)
        print(
            f"sweep: worker start {ready - started:.1f} s, 1 process {ran_one - ready:.1f} s, "
            f"two more start {ready_three - ran_one:.1f} s, "
            f"3 processes {time.monotonic() - ready_three:.1f} s"
        )
    finally:
        stop_workers(workers)
    assert one.status == three.status == JobStatusChoices.SUCCEEDED, (one.error, three.error)
    assert one.result["points_done"] == 3 and one.result["runs_done"] == 6
    assert one.result == three.result  # exactly: every figure of every point and run
    # One process: its runner ran every run itself (the subtasks found them done).
    assert sum(_runs_by_log(logs[:1], one.pk).values()) == 0
    # Three processes: the subtasks on the other processes took some of the runs.
    spread = _runs_by_log(logs, three.pk)
    print(f"runs done by each worker's subtasks: {spread}")
    assert sum(1 for runs in spread.values() if runs) >= 1 and sum(spread.values()) >= 2, spread
