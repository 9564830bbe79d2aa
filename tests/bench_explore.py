"""``make bench`` (explore): a design-space exploration on 1, 2 and 4 Celery worker processes,
1,000 candidates of 8,192 GPUs on two, and (``--huge``) the search of a 100,000-GPU requirement.

Issue 39 item 3 and 6. Each exploration runs as an ``explore`` job the way the product runs it:
this process submits it (``job_enqueue``: the row, then the task on commit) and polls the row;
``N`` single-process Celery workers (:class:`tests.bench_workers.WorkerBench`, like ``N``
machines) take the candidates as ``simulation.explore_candidate`` subtasks, the runner the
rest. Workers are started, and ready, before the clock starts.

- **Scaling**: :data:`SCALING` (8,192 GPUs, two servers, every catalog switch, 1:1 to 2:1,
  :data:`SCALING_CANDIDATES` candidates) on 1, 2 and 4 processes: wall time from submission to
  the finished row, candidates per minute, speed-up over one process, how many candidates each
  process's subtasks evaluated (their logs), and whether the three results are identical once
  each evaluation's own timing (``seconds``) is set aside (they must be: exit status 1
  otherwise).
- **1,000 candidates** (item 6: ≤ 10 min on two processes, memory flat): :data:`LARGE`, every
  catalog server and switch at 8,192 GPUs, capped at 1,000 candidates, on two processes; the
  resident memory of the worker processes (pool children included) sampled as the job goes, so
  growth shows as the last sample against the first.
- **100,000 GPUs** (``--huge``; item 6: a front in ≤ 30 min): :data:`HUGE` on two processes.

Results in ``.var/bench/explore.json`` (and printed), with the machine's load average before
and after: the machine has 2 cores shared with whatever else runs, so 4 processes cannot beat 2
by much.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import time
from pathlib import Path

from tests.bench_workers import OUT, WorkerBench, stop_workers

RESULT = OUT / "explore.json"
WORKER_COUNTS = (1, 2, 4)
SCALING_CANDIDATES = 48
SCALING = {
    "name": "bench scaling",
    "gpus": 8192,
    "servers": ["DGX-H100", "DGX-B200"],
    "switches": "any",
    "planes": [1],
    "oversubscription": {"min": 1, "max": 2},
    "cabling": ["point-to-point"],
    "max_candidates": SCALING_CANDIDATES,
}
LARGE = {
    "name": "bench 1,000 candidates",
    "gpus": 8192,
    "servers": "any",
    "switches": "any",
    "planes": [1, 2],
    "tiers": [2, 3],
    "oversubscription": {"min": 1, "max": 3},
    "cabling": ["point-to-point", "patch-panel"],
    "max_candidates": 1000,
}
HUGE = {
    "name": "bench 100,000 GPUs",
    "gpus": 100_000,
    "servers": "any",
    "switches": "any",
    "oversubscription": {"min": 1, "max": 2},
    "cabling": ["point-to-point"],
}


def _descendants(pids: list[int]) -> list[int]:
    """``pids`` and every process under them (a prefork worker's pool children)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _without_timings(value):
    """The result without each evaluation's own ``seconds`` (timing differs run to run)."""
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def _by_process(logs: list[Path], job_id) -> dict[str, int]:
    pattern = re.compile(rf"explore job {job_id}: candidate \d+ done by")
    return {path.stem: len(pattern.findall(path.read_text())) for path in logs}


def _explore(bench: WorkerBench, owner, requirements: dict, count: int, *, timeout_s: float):
    """One exploration on ``count`` fresh workers: (job, seconds, logs, memory samples)."""
    from simulation.models import FINISHED_STATUSES, Job
    from simulation.services import job_enqueue

    bench.flush_broker()
    procs, logs = bench.start_workers(count)
    memory: list[dict] = []
    try:
        started = time.perf_counter()
        job = job_enqueue(owner=owner, kind="explore", parameters=dict(requirements))
        next_sample = started
        rows = Job.objects.filter(pk=job.pk)
        while True:
            # status and progress only: the running job's result (every evaluation so far) is
            # large, and reading it 20 times a second would take a core from the workers
            status, done = rows.values_list("status", "progress_done")[0]
            if status in FINISHED_STATUSES:
                break
            now = time.perf_counter()
            if now >= next_sample:
                pids = _descendants([p.pid for p in procs])
                memory.append(
                    {
                        "s": round(now - started, 1),
                        "done": done,
                        "rss_mb": round(sum(_rss_mb(pid) for pid in pids), 1),
                    }
                )
                next_sample = now + 5
            if now - started > timeout_s:
                raise RuntimeError(f"{requirements['name']}: not finished in {timeout_s:.0f} s")
            time.sleep(0.05 if now - started < 30 else 0.5)
        took = time.perf_counter() - started
        job = Job.objects.get(pk=job.pk)
    finally:
        stop_workers(procs)
    if job.status != "succeeded":
        raise RuntimeError(f"{requirements['name']}: the exploration {job.status}: {job.error}")
    return job, took, logs, memory


def _figures(job, took: float, logs, memory) -> dict:
    counts = job.result["counts"]
    evaluated = counts["feasible"] + counts["infeasible"] + counts["crashed"]
    by_process = _by_process(logs, job.pk)
    figures = {
        "seconds": round(took, 1),
        "candidates": evaluated,
        "candidates_per_min": round(60 * evaluated / took, 1),
        "counts": counts,
        "front": len(job.result["front"]),
        "subtask_candidates_by_process": by_process,
        "runner_candidates": evaluated - sum(by_process.values()),
    }
    if memory:
        peak = max(s["rss_mb"] for s in memory)
        first = next((s for s in memory if s["done"]), memory[0])
        figures["memory"] = {
            "samples": memory,
            "first_rss_mb": first["rss_mb"],
            "last_rss_mb": memory[-1]["rss_mb"],
            "peak_rss_mb": peak,
        }
    return figures


def main(argv: list[str]) -> int:
    """``--huge`` adds the 100,000-GPU search; ``--large-only`` runs the 1,000 candidates alone
    (into ``explore-large.json``), ``--huge-only`` the 100,000-GPU search alone
    (``explore-huge.json``)."""
    huge_only = "--huge-only" in argv
    huge = "--huge" in argv or huge_only
    large_only = "--large-only" in argv
    bench = WorkerBench("explore")
    bench.reset_stores()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from inventory.services import catalog_load

    report: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_before": [round(x, 2) for x in os.getloadavg()],
        },
        "database": bench.database,
        "broker": bench.broker,
        "scaling": {"requirements": SCALING, "workers": {}},
    }
    try:
        call_command("migrate", verbosity=0)
        catalog_load()
        users = get_user_model().objects
        results = {}
        for count in () if large_only or huge_only else WORKER_COUNTS:
            owner = users.create_user(username=f"bench-explore-{count}")  # no reuse
            job, took, logs, memory = _explore(bench, owner, SCALING, count, timeout_s=1800)
            results[count] = _without_timings(job.result)
            report["scaling"]["workers"][str(count)] = _figures(job, took, logs, memory)
            print(f"explore: {count} worker process(es): {took:.1f} s", flush=True)
        if results:
            one = report["scaling"]["workers"]["1"]["seconds"]
            for entry in report["scaling"]["workers"].values():
                entry["speedup"] = round(one / entry["seconds"], 2)
            report["scaling"]["identical_results"] = all(r == results[1] for r in results.values())
        if not huge_only:
            owner = users.create_user(username="bench-explore-large")
            job, took, logs, memory = _explore(bench, owner, LARGE, 2, timeout_s=3600)
            figures = _figures(job, took, logs, memory)
            report["large"] = {"requirements": LARGE, "workers": 2, **figures}
            print(f"explore: 1,000 candidates on 2 processes: {took:.1f} s", flush=True)
        if huge:
            owner = users.create_user(username="bench-explore-huge")
            job, took, logs, memory = _explore(bench, owner, HUGE, 2, timeout_s=3600)
            figures = _figures(job, took, logs, memory)
            report["huge"] = {"requirements": HUGE, "workers": 2, **figures}
            print(f"explore: 100,000 GPUs on 2 processes: {took:.1f} s", flush=True)
        report["machine"]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        bench.drop_stores()
    OUT.mkdir(parents=True, exist_ok=True)
    result = RESULT
    if large_only or huge_only:
        result = RESULT.with_name("explore-large.json" if large_only else "explore-huge.json")
    result.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "large"}, indent=2)[:4000])
    return 0 if large_only or huge_only or report["scaling"].get("identical_results") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
