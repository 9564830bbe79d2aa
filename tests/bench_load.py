"""``make bench`` (load): 50 concurrent API users against the app on loopback.

Runs the app as it is deployed (gunicorn, ``BENCH_LOAD_WEB_WORKERS`` workers of 4 threads, and
a Celery worker) on a free 127.0.0.1 port, against a database of its own: PostgreSQL
``<DATABASE_URL's database>_load`` when ``DATABASE_URL`` is set, else SQLite in
``.var/bench/load/``; the broker is Redis database ``BENCH_REDIS_DB`` (13) of ``REDIS_URL``
when set, else the filesystem broker there. The database is seeded with the catalog and, for
each simulated user, an account, an API token and a design of its own (one scalable unit of
DGX H100, 31 servers), so that the per-user job cap is not what fails.

Locust, as a library in this process, then runs ``BENCH_LOAD_USERS`` (50) users for
``BENCH_LOAD_SECONDS`` (45) after they have all started. Each user waits 0.5-1.5 s between
requests and picks, by weight: a design read (5), the canvas data of the design (3) or its
job step (1): submit a validate job of the design, or, while it runs, poll it. A validate job
whose inputs already succeeded is answered from the earlier run (200 ``reused``) instead of
queueing, as the product does; the counts of created and reused jobs are reported. At the end
every created job must have succeeded.

Results: ``.var/bench/load.json`` with p50/p99/max latency, request counts and errors per
request kind (errors: any answer other than 2xx, or a failed job; target 0). The servers are
stopped (their whole process groups) and a PostgreSQL bench database dropped, even when the run
fails. Why Locust rather than wrk: each simulated user keeps its own token and job, the
latency is reported per request kind from one mixed run, and it installs from the lock file
(wrk would need a Debian package and Lua scripts for the same).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"
VAR = OUT / "load"
RESULT = OUT / "load.json"
USERS = int(os.environ.get("BENCH_LOAD_USERS", "50"))
DURATION_S = float(os.environ.get("BENCH_LOAD_SECONDS", "45"))
WEB_WORKERS = int(os.environ.get("BENCH_LOAD_WEB_WORKERS", "2"))
WEB_THREADS = 4
WAIT_S = (0.5, 1.5)
USERNAME = "bench-load-{:03d}"
ONE_SU_SERVERS = 31


# --- the bench database and its seed (a subprocess with Django) --------------------------------


def _bench_env() -> dict:
    """Environment of the seed, web and worker processes."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "planner.project.settings",
        "FABRIC_VAR_DIR": str(VAR),
    }
    for name in ("DEBUG", "PRODUCTION", "JOBS_MAX_CONCURRENT_PER_USER"):
        env.pop(name, None)
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        base, _, name = url.rpartition("/")
        env["DATABASE_URL"] = f"{base}/{name.split('?')[0]}_load"
    else:
        env.pop("DATABASE_URL", None)  # SQLite in FABRIC_VAR_DIR
    redis_url = os.environ.get("REDIS_URL", "")
    if redis_url:
        server = redis_url.rsplit("/", 1)[0] if redis_url.count("/") > 2 else redis_url
        env["REDIS_URL"] = f"{server}/{os.environ.get('BENCH_REDIS_DB', '13')}"
    return env


def _postgres(env: dict):
    """(maintenance URL, bench database name) when the bench runs on PostgreSQL."""
    url = env.get("DATABASE_URL", "")
    if not url:
        return None
    base, _, name = url.rpartition("/")
    return f"{base}/postgres", name


def _reset_stores(env: dict) -> None:
    """A fresh database and broker for this run."""
    shutil.rmtree(VAR, ignore_errors=True)
    VAR.mkdir(parents=True)
    postgres = _postgres(env)
    if postgres:
        import psycopg

        maintenance, name = postgres
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    if env.get("REDIS_URL"):
        import redis

        redis.Redis.from_url(env["REDIS_URL"]).flushdb()


def _drop_stores(env: dict) -> None:
    postgres = _postgres(env)
    if postgres:
        import psycopg

        maintenance, name = postgres
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed() -> dict:
    """Migrate, load the catalog, create the users, their tokens and designs (runs in the
    bench environment, see :func:`_bench_env`). Returns what the simulated users need."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from inventory.services import catalog_load
    from planner.designs.services import design_create
    from planner.domain.presets import EXAMPLES_DIR
    from planner.domain.spec import load_spec_text

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    catalog_load()
    spec = {
        **load_spec_text((EXAMPLES_DIR / "h100-superpod-4su.yaml").read_text()),
        "servers": ONE_SU_SERVERS,
    }
    accounts = []
    for index in range(1, USERS + 1):
        user = get_user_model().objects.create_user(username=USERNAME.format(index))
        design = design_create(owner=user, spec_document={**spec, "name": f"Load {index}"})
        accounts.append(
            {
                "token": Token.objects.create(user=user).key,
                "design": design.pk,
                "revision": design.latest_revision.number,
            }
        )
    summary = design.latest_revision.summary
    return {
        "accounts": accounts,
        "design": {"servers": summary["servers"], "gpus": summary["gpus"]},
        "seed_s": round(time.perf_counter() - started, 1),
    }


# --- the servers -------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(command: list[str], log_path: Path, env: dict) -> subprocess.Popen:
    """Start ``command`` in a process group of its own (stopped as a whole at the end)."""
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM the process group, SIGKILL what is left after 20 s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=20)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def _wait_until(ready, what: str, procs: list[subprocess.Popen], timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.poll() is not None:
                raise RuntimeError(f"{' '.join(proc.args[:4])} exited while waiting for {what}")
        if ready():
            return
        time.sleep(0.5)
    raise RuntimeError(f"{what}: not ready in {timeout_s:.0f} s")


def _healthy(base: str) -> bool:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


# --- the load ----------------------------------------------------------------------------------


def _load(base: str, accounts: list[dict]) -> dict:
    """Run the users; returns Locust's statistics per request kind and the jobs they made."""
    import gevent
    from locust import FastHttpUser, between, task
    from locust.env import Environment

    free = list(accounts)
    created_jobs: list[tuple[str, str]] = []  # (token, job id)
    outcomes = {"created": 0, "reused": 0}

    class ApiUser(FastHttpUser):
        host = base
        wait_time = between(*WAIT_S)

        def on_start(self):
            account = free.pop()
            self.headers = {"Authorization": f"Token {account['token']}"}
            self.token, self.design = account["token"], account["design"]
            self.revision = account["revision"]
            self.job = None  # the id of this user's queued or running job

        @task(5)
        def design_read(self):
            self.client.get(
                f"/api/planner/designs/{self.design}/", headers=self.headers, name="design read"
            )

        @task(3)
        def canvas_data(self):
            self.client.get(
                f"/api/planner/designs/{self.design}/revisions/{self.revision}/canvas/",
                headers=self.headers,
                name="canvas data",
            )

        @task(1)
        def job_step(self):
            if self.job:
                response = self.client.get(
                    f"/api/simulation/jobs/{self.job}/", headers=self.headers, name="job poll"
                )
                if response.status_code != 200 or response.json()["status"] not in {
                    "queued",
                    "running",
                }:
                    self.job = None
                return
            response = self.client.post(
                "/api/simulation/jobs/",
                json={"kind": "validate", "design": self.design},
                headers=self.headers,
                name="job submit",
            )
            if response.status_code == 201:
                self.job = response.json()["id"]
                created_jobs.append((self.token, self.job))
                outcomes["created"] += 1
            elif response.status_code == 200:
                outcomes["reused"] += 1

    env = Environment(user_classes=[ApiUser])
    runner = env.create_local_runner()
    spawn_rate = max(1.0, USERS / 5)
    runner.start(USERS, spawn_rate=spawn_rate)
    gevent.sleep(USERS / spawn_rate + 1)
    env.stats.reset_all()  # latencies with every user running (job counts: the whole run)
    started = time.monotonic()
    gevent.sleep(DURATION_S)
    runner.quit()
    elapsed = time.monotonic() - started
    kinds = {}
    for entry in sorted(env.stats.entries.values(), key=lambda e: e.name):
        kinds[entry.name] = {
            "method": entry.method,
            "requests": entry.num_requests,
            "errors": entry.num_failures,
            "p50_ms": entry.get_response_time_percentile(0.5),
            "p99_ms": entry.get_response_time_percentile(0.99),
            "max_ms": round(entry.max_response_time or 0, 1),
            "mean_ms": round(entry.avg_response_time, 1),
        }
    total = env.stats.total
    return {
        "kinds": kinds,
        "total": {
            "requests": total.num_requests,
            "errors": total.num_failures,
            "p50_ms": total.get_response_time_percentile(0.5),
            "p99_ms": total.get_response_time_percentile(0.99),
            "requests_per_s": round(total.num_requests / elapsed, 1),
        },
        "error_samples": [
            {"request": f"{e.method} {e.name}", "error": str(e.error), "count": e.occurrences}
            for e in list(env.stats.errors.values())[:10]
        ],
        "jobs": {**outcomes, "created_ids": created_jobs},
    }


def _jobs_outcome(base: str, created: list[tuple[str, str]], timeout_s: float = 120) -> dict:
    """Wait for the created jobs to finish; count how they ended."""
    import urllib.request

    statuses: dict[str, str] = {}
    deadline = time.monotonic() + timeout_s
    pending = list(created)
    while pending and time.monotonic() < deadline:
        still = []
        for token, job in pending:
            request = urllib.request.Request(
                f"{base}/api/simulation/jobs/{job}/", headers={"Authorization": f"Token {token}"}
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                status = json.load(response)["status"]
            if status in {"queued", "running"}:
                still.append((token, job))
            else:
                statuses[job] = status
        pending = still
        if pending:
            time.sleep(1)
    counts: dict[str, int] = {}
    for status in [*statuses.values(), *["unfinished"] * len(pending)]:
        counts[status] = counts.get(status, 0) + 1
    return counts


def main() -> int:
    from gevent import monkey

    monkey.patch_all()  # before anything opens a socket: Locust's users are greenlets
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on TERM too
    env = _bench_env()
    OUT.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen] = []
    try:
        _reset_stores(env)
        print(f"load: seeding {USERS} users and designs ...", flush=True)
        seeded = subprocess.run(
            [sys.executable, "-m", "tests.bench_load", "--seed"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if seeded.returncode:
            raise RuntimeError(f"seeding failed:\n{seeded.stdout[-3000:]}{seeded.stderr[-3000:]}")
        world = json.loads(seeded.stdout.strip().splitlines()[-1])
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        procs.append(
            _start(
                [
                    *(sys.executable, "-m", "gunicorn", "planner.project.wsgi:application"),
                    *("--bind", f"127.0.0.1:{port}", "--workers", str(WEB_WORKERS)),
                    *("--worker-class", "gthread", "--threads", str(WEB_THREADS)),
                    *("--timeout", "120", "--graceful-timeout", "10"),
                ],
                VAR / "gunicorn.log",
                env,
            )
        )
        worker_log = VAR / "worker.log"
        procs.append(
            _start(
                [
                    *(sys.executable, "-m", "celery", "-A", "planner.project", "worker"),
                    *("--pool", "prefork", "--concurrency", "2", "--loglevel", "INFO"),
                    *("--hostname", f"bench-load-{os.getpid()}@%h"),
                    *("--without-gossip", "--without-mingle"),
                ],
                worker_log,
                env,
            )
        )
        _wait_until(lambda: _healthy(base), "gunicorn /healthz", procs)
        _wait_until(lambda: b"ready." in worker_log.read_bytes(), "the Celery worker", procs)
        print(
            f"load: {USERS} users for {DURATION_S:g} s on {base} "
            f"({WEB_WORKERS} gunicorn workers x {WEB_THREADS} threads + a Celery worker)",
            flush=True,
        )
        measured = _load(base, world["accounts"])
        created = measured["jobs"].pop("created_ids")
        measured["jobs"]["finished"] = _jobs_outcome(base, created)
        failed_jobs = sum(n for s, n in measured["jobs"]["finished"].items() if s != "succeeded")
        result = {
            "users": USERS,
            "duration_s": DURATION_S,
            "think_time_s": list(WAIT_S),
            "web": f"gunicorn {WEB_WORKERS} workers x {WEB_THREADS} threads (gthread)",
            "database": "postgresql" if _postgres(env) else "sqlite",
            "broker": "redis" if env.get("REDIS_URL") else "filesystem",
            "design": world["design"],
            "seed_s": world["seed_s"],
            **measured,
            "errors": measured["total"]["errors"] + failed_jobs,
            "target_errors": 0,
        }
        RESULT.write_text(json.dumps(result, indent=2) + "\n")
        for name, kind in result["kinds"].items():
            print(
                f"  {name:>12}: {kind['requests']:>6} requests, p50 {kind['p50_ms']} ms, "
                f"p99 {kind['p99_ms']} ms, {kind['errors']} errors",
                flush=True,
            )
        print(
            f"load: {result['total']['requests_per_s']} requests/s; jobs {result['jobs']}; "
            f"errors {result['errors']} (target 0) -> {RESULT.relative_to(ROOT)}",
            flush=True,
        )
        return 0 if result["errors"] == 0 else 1
    finally:
        for proc in reversed(procs):
            _stop(proc)
        _drop_stores(env)


if __name__ == "__main__":
    if sys.argv[1:] == ["--seed"]:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(seed()))
    else:
        sys.exit(main())
