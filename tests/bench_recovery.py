"""``make bench`` (recovery): how fast jobs come back from a killed worker and a Redis outage.

Issue 34: a worker killed mid-job must have its job finished <= 15 s after the kill, and a
Redis outage of any length must neither stop the worker nor leave a job stuck. Measured the way
the product runs: a private ``redis-server`` (its own port, no persistence: a restart loses
every message, as after a crash), a Celery worker (``--concurrency 1``) supervised by
``manage.py serve``'s :class:`~planner.management.commands.serve.Supervised` (started again
after 1 s when it exits), SQLite in ``.var/bench/recovery/``, this process submitting
``diagnostics`` jobs that hold the worker ``HOLD_S`` seconds and polling their rows.

- ``worker_kill``: SIGKILL to the worker's whole process group (main process and pool) once
  the job reports progress; seconds from the kill to the finished row (the job then runs again
  in full: ``HOLD_S`` of it is the job's own work).
- ``pool_kill``: SIGKILL to the pool process that runs the job alone.
- ``redis_outage_<N>s``: one job running and four queued, Redis stopped N s (a job submitted
  meanwhile), started again empty; seconds from Redis back to every job finished, and whether
  the worker process is the same one (one worker lives through all the outages in turn).

Results go to ``.var/bench/recovery.json`` (and are printed); the exit status is 1 when a kill
takes longer than 15 s or a job does not finish.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"
VAR = OUT / "recovery"
RESULT = OUT / "recovery.json"
HOLD_S = 3
KILL_TARGET_S = 15.0
OUTAGES_S = (5, 20)


def _configure(port: int) -> None:
    for name in ("DEBUG", "PRODUCTION", "DATABASE_URL", "JOBS_MAX_CONCURRENT_PER_USER"):
        os.environ.pop(name, None)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="planner.project.settings",
        FABRIC_VAR_DIR=str(VAR),
        REDIS_URL=f"redis://127.0.0.1:{port}/0",
        JOBS_MAX_CONCURRENT_PER_USER="10",
    )


def _worker(name: str):
    from planner.management.commands.serve import Supervised

    command = [sys.executable, "-m", "celery", "-A", "planner.project", "worker"]
    command += ["--concurrency", "1", "--hostname", f"bench-{name}@%h", "--loglevel", "INFO"]
    command += ["--without-gossip", "--without-mingle"]
    log = VAR / f"{name}.log"
    log.write_bytes(b"")
    worker = Supervised(name, command, log_path=log)
    _wait_ready(worker, log, count=1)
    return worker, log


def _wait_ready(worker, log: Path, count: int, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while log.read_bytes().count(b"ready.") < count:
        worker.check()
        if time.monotonic() > deadline:
            raise RuntimeError(f"worker not ready in {timeout_s} s: see {log}")
        time.sleep(0.1)


def _wait(job_ids, until, worker=None, timeout_s: float = 120):
    from simulation.models import Job

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        rows = list(Job.objects.filter(pk__in=job_ids))
        if all(until(row) for row in rows):
            return rows
        if worker is not None:
            worker.check()  # the supervisor's loop
        time.sleep(0.05)
    raise RuntimeError(f"jobs not done in {timeout_s} s: {[(r.pk, r.status) for r in rows]}")


def _kill(owner, whole_worker: bool) -> dict:
    from simulation.services import job_enqueue

    worker, log = _worker("whole" if whole_worker else "pool")
    try:
        job = job_enqueue(owner=owner, kind="diagnostics", parameters={"hold_s": HOLD_S})
        running = _wait([job.pk], lambda j: j.status == "running" and j.progress_done >= 1)[0]
        if whole_worker:
            os.killpg(worker.proc.pid, signal.SIGKILL)
        else:
            os.kill(int(re.search(r"\[pid (\d+) on ", running.worker)[1]), signal.SIGKILL)
        killed = time.monotonic()
        done = _wait([job.pk], lambda j: j.is_finished, worker)[0]
        took = time.monotonic() - killed
    finally:
        worker.stop(20)
    return {
        "seconds_kill_to_finished": round(took, 2),
        "status": done.status,
        "attempts": done.attempts,
        "worker_restarts": worker.restarts,
    }


def _outage(owner, worker, log: Path, redis_port: int, redis_proc, down_s: float):
    from simulation.services import job_enqueue
    from tests.redis_server import start_redis, stop_redis

    pid = worker.proc.pid
    jobs = [job_enqueue(owner=owner, kind="diagnostics", parameters={"hold_s": HOLD_S})]
    jobs += [job_enqueue(owner=owner, kind="diagnostics") for _ in range(4)]
    _wait([jobs[0].pk], lambda j: j.status == "running")
    stop_redis(redis_proc)
    jobs.append(job_enqueue(owner=owner, kind="diagnostics"))  # while Redis is down
    end = time.monotonic() + down_s
    while time.monotonic() < end:
        worker.check()
        time.sleep(0.1)
    redis_proc = start_redis(redis_port)
    back = time.monotonic()
    rows = _wait([j.pk for j in jobs], lambda j: j.is_finished, worker)
    took = time.monotonic() - back
    return redis_proc, {
        "seconds_back_to_all_finished": round(took, 2),
        "jobs": len(rows),
        "succeeded": sum(row.status == "succeeded" for row in rows),
        "same_worker_process_alive": worker.proc.pid == pid and worker.proc.poll() is None,
        "unrecoverable_errors": log.read_text().count("Unrecoverable error"),
    }


def main() -> int:
    if shutil.which("redis-server") is None:
        print("bench_recovery: redis-server is not installed; nothing measured")
        return 1
    from tests.redis_server import free_port, start_redis, stop_redis

    shutil.rmtree(VAR, ignore_errors=True)
    VAR.mkdir(parents=True)
    port = free_port()
    _configure(port)
    redis_proc = start_redis(port)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    report: dict = {"load_average_before": [round(x, 2) for x in os.getloadavg()]}
    try:
        call_command("migrate", verbosity=0)
        owner = get_user_model().objects.create_user(username="bench-recovery")
        report["worker_kill"] = _kill(owner, whole_worker=True)
        print("worker kill:", report["worker_kill"], flush=True)
        report["pool_kill"] = _kill(owner, whole_worker=False)
        print("pool process kill:", report["pool_kill"], flush=True)
        worker, log = _worker("outages")  # one worker through every outage, one after another
        try:
            for down_s in OUTAGES_S:
                key = f"redis_outage_{down_s}s"
                redis_proc, report[key] = _outage(owner, worker, log, port, redis_proc, down_s)
                print(f"Redis outage {down_s} s:", report[key], flush=True)
        finally:
            worker.stop(20)
        report["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        stop_redis(redis_proc)
    OUT.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    kills_ok = all(
        report[k]["seconds_kill_to_finished"] <= KILL_TARGET_S
        and report[k]["status"] == "succeeded"
        for k in ("worker_kill", "pool_kill")
    )
    outages_ok = all(
        report[f"redis_outage_{s}s"]["succeeded"] == report[f"redis_outage_{s}s"]["jobs"]
        and report[f"redis_outage_{s}s"]["same_worker_process_alive"]
        for s in OUTAGES_S
    )
    return 0 if kills_ok and outages_ok else 1


if __name__ == "__main__":
    sys.exit(main())
