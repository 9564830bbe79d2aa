"""An exploration on real Celery workers (issue 39 item 3): the same requirements on one worker
process and on three give the same result, every figure of every candidate (only each
evaluation's ``seconds``, its timing, differs), and on three the candidates are spread over
the processes."""

from __future__ import annotations

import re
import time

from planner.teams.models import Team, TeamMembership
from simulation.models import Job, JobStatusChoices
from simulation.services import job_enqueue
from tests.conftest import start_worker, start_workers, stop_workers

#: Six candidates (rail-optimized and Clos at 1:1, 1.5:1 and 2:1), about a second each.
REQUIREMENTS = {
    "name": "256 H100, three ratios",
    "gpus": 256,
    "servers": ["DGX-H100"],
    "switches": ["QM9700"],
    "tiers": [2],
    "oversubscription": {"min": 1, "max": 2},
}


def _finished(job_id, timeout_s: float = 120) -> Job:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=job_id)
        if job.is_finished:
            return job
        time.sleep(0.1)
    raise AssertionError(f"exploration {job_id} still {job.status} after {timeout_s} s")


def _without_timings(result: dict) -> dict:
    return {
        **result,
        "candidates": [
            {k: v for k, v in c.items() if k != "seconds"} for c in result["candidates"]
        ],
    }


def _candidates_by_log(logs, job_id) -> dict[str, int]:
    """How many candidates of the job each worker's subtasks evaluated (its log says each)."""
    pattern = re.compile(rf"explore job {job_id}: candidate \d+ done by")
    return {path.stem: len(pattern.findall(path.read_text())) for path in logs}


def test_an_exploration_gives_the_same_result_on_one_and_on_three_worker_processes(
    isolated_broker, transactional_db, seed_catalog, django_user_model, tmp_path
):
    first = django_user_model.objects.create_user(username="explore-one", password="x-12345678")
    second = django_user_model.objects.create_user(username="explore-3", password="x-12345678")
    team = Team.objects.create(name="Sales", slug="sales")
    for user in (first, second):  # both may read the seed book: the candidates are costed
        TeamMembership.objects.create(team=team, user=user, can_view_prices=True)
    logs = [tmp_path / "a.log", tmp_path / "b.log", tmp_path / "c.log"]
    started = time.monotonic()
    workers = [start_worker(isolated_broker, logs[0], name="a")]
    try:
        ready = time.monotonic()
        one = job_enqueue(owner=first, kind="explore", parameters=REQUIREMENTS)
        one = _finished(one.pk)
        ran_one = time.monotonic()
        workers += start_workers(isolated_broker, logs[1:])
        ready_three = time.monotonic()
        three = job_enqueue(owner=second, kind="explore", parameters=REQUIREMENTS)
        three = _finished(three.pk)
        print(
            f"explore: worker start {ready - started:.1f} s, 1 process {ran_one - ready:.1f} s, "
            f"two more start {ready_three - ran_one:.1f} s, "
            f"3 processes {time.monotonic() - ready_three:.1f} s"
        )
    finally:
        stop_workers(workers)
    assert one.status == three.status == JobStatusChoices.SUCCEEDED, (one.error, three.error)
    assert one.result["counts"]["enumerated"] == 6
    assert all(c["status"] != "crashed" for c in one.result["candidates"])
    assert all(c["metrics"]["cost"] > 0 for c in one.result["candidates"])
    assert _without_timings(one.result) == _without_timings(three.result)
    assert (three.progress_done, three.progress_total) == (6, 6)
    # One process: its runner evaluated every candidate itself (the subtasks found them done).
    assert sum(_candidates_by_log(logs[:1], one.pk).values()) == 0
    # Three processes: the subtasks on the other processes took some of the candidates.
    spread = _candidates_by_log(logs, three.pk)
    print(f"candidates done by each worker's subtasks: {spread}")
    assert sum(1 for n in spread.values() if n) >= 1 and sum(spread.values()) >= 2, spread
