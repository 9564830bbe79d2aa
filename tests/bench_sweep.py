"""``make bench`` (sweep): one parameter sweep on 1, 2 and 4 Celery worker processes.

The sweep (issue 21 item 4): one DGX H100 SuperPOD scalable unit (31 servers, 248 GPUs) from the
seed catalog, all-to-all of 100 MB with per-flow ECMP hashing, 0, 4, 8 and 12 failed links, 4
seeds per point (16 runs of 61,256 flows). It runs as a ``sweep`` job the way the product runs
it: this process submits it (``job_enqueue``: the row, then the task on commit) and polls the
job row; the work is done by ``N`` single-process Celery workers (``celery worker --concurrency
1``, each its own host name, like ``N`` machines) on this machine's loopback, against a database
of its own (PostgreSQL ``<DATABASE_URL's database>_sweep`` when ``DATABASE_URL`` is set, else
SQLite in ``.var/bench/sweep/``) and Redis database ``BENCH_REDIS_DB`` (13) of ``REDIS_URL``
(else the filesystem broker there). Each count of workers starts fresh (workers started, and
ready, before the clock starts; stopped after).

Reported in ``.var/bench/sweep.json`` (and printed): the wall time from submission to the
finished row for each count, the speed-up over one process, how many runs each process's
subtasks did (their logs; the runner's own runs are the rest), the same runs timed one after
the other in this process without Celery (the work itself, for the overhead), and whether the
three results are identical (they must be: the exit status is 1 otherwise). The machine has 2
cores, shared with whatever else runs: 4 processes cannot beat 2 by much, and the load average
is recorded with the figures.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import time
from pathlib import Path

from tests.bench_workers import OUT, WorkerBench, stop_workers, wait_for

RESULT = OUT / "sweep.json"
WORKER_COUNTS = (1, 2, 4)
SWEEP = {
    "traffic": "all-to-all",
    "routing": "ecmp",
    "fail_links": [0, 4, 8, 12],
    "size_bytes": 1e8,
    "seeds": 4,
}
SPEC_FILE = "h100-superpod-1su.yaml"


def _runs_by_process(logs: list[Path], job_id) -> dict[str, int]:
    pattern = re.compile(rf"sweep job {job_id}: run \d+ done by")
    return {path.stem: len(pattern.findall(path.read_text())) for path in logs}


def _sequential(revision) -> float:
    """The sweep's runs one after the other in this process (no Celery, no row claims)."""
    from planner.analyses.reports import fabric_simulate
    from planner.analyses.sweep import SweepPlan
    from simulation.jobs.kinds import KINDS
    from simulation.jobs.sweep import revision_fabric

    plan = SweepPlan.from_parameters(KINDS["sweep"].clean(dict(SWEEP)))
    fabric = revision_fabric(revision.pk)
    started = time.perf_counter()
    for run in range(plan.run_count):
        fabric_simulate(fabric=fabric, summary_only=True, **plan.run_scenario(run))
    return time.perf_counter() - started


def main() -> int:
    bench = WorkerBench("sweep")
    bench.reset_stores()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from inventory.services import catalog_load
    from planner.designs.services import design_create
    from planner.domain.presets import EXAMPLES_DIR
    from planner.domain.spec import load_spec_text
    from simulation.models import Job
    from simulation.services import job_enqueue

    report: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_before": [round(x, 2) for x in os.getloadavg()],
        },
        "database": bench.database,
        "broker": bench.broker,
        "sweep": {"design": SPEC_FILE, **SWEEP},
        "workers": {},
    }
    try:
        call_command("migrate", verbosity=0)
        catalog_load()
        users = get_user_model().objects
        owner = users.create_user(username="bench-sweep")
        spec = load_spec_text((EXAMPLES_DIR / SPEC_FILE).read_text(), name="bench sweep")
        revision = design_create(owner=owner, spec_document=spec).latest_revision
        report["sweep"]["gpus"] = revision.summary.get("gpus")
        report["sequential_s"] = round(_sequential(revision), 2)
        results = {}
        for count in WORKER_COUNTS:
            bench.flush_broker()
            procs, logs = bench.start_workers(count)
            try:
                user = users.create_user(username=f"bench-sweep-{count}")  # no reuse
                started = time.perf_counter()
                job = job_enqueue(
                    owner=user, kind="sweep", design_revision=revision, parameters=dict(SWEEP)
                )
                job = wait_for(Job, job.pk)
                took = time.perf_counter() - started
            finally:
                stop_workers(procs)
            if job.status != "succeeded":
                raise RuntimeError(f"{count} workers: the sweep {job.status}: {job.error}")
            results[count] = job.result
            by_process = _runs_by_process(logs, job.pk)
            runs = job.result["runs_total"]
            report["workers"][str(count)] = {
                "seconds": round(took, 2),
                "runs_per_s": round(runs / took, 2),
                "subtask_runs_by_process": by_process,
                "runner_runs": runs - sum(by_process.values()),
            }
            print(f"sweep: {count} worker process(es): {took:.2f} s, {by_process}", flush=True)
        one = report["workers"]["1"]["seconds"]
        for entry in report["workers"].values():
            entry["speedup"] = round(one / entry["seconds"], 2)
        report["runs"] = results[1]["runs_total"]
        report["points"] = results[1]["points_total"]
        report["overhead_one_process_s"] = round(one - report["sequential_s"], 2)
        report["identical_results"] = all(r == results[1] for r in results.values())
        report["machine"]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        bench.drop_stores()
    OUT.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0 if report.get("identical_results") else 1


if __name__ == "__main__":
    sys.exit(main())
