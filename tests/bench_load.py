"""``make bench`` (load): 50 concurrent users on the pages and downloads of issue 34's mix.

Runs the web app as it is deployed (gunicorn with the production settings of
:mod:`planner.project.gunicorn_conf`: ``gthread`` workers, one per core plus one, of 4
threads; ``BENCH_LOAD_WEB_WORKERS`` overrides the count) on a free 127.0.0.1 port, against a
database of its own: PostgreSQL ``<DATABASE_URL's database>_load`` when ``DATABASE_URL`` is
set, else SQLite in ``.var/bench/load/``. The database is seeded with the catalog and, for each
simulated user, an account, a signed-in session, an API token and a design of its own: the
H100 SuperPOD 4 SU preset (127 DGX H100); every other user has the price right (a sales team's
member), so prices are shown and computed for half of them.

Locust, as a library in this process, then runs ``BENCH_LOAD_USERS`` (50) users. Each user
waits 0.5-1.5 s between requests and picks, with equal weights: the design list page
(``/designs/``), its design's page, the live summary of the 4 SU spec
(``POST /api/planner/summary/``) and the revision's cabling plan CSV. After every user has
started, ``BENCH_LOAD_WARMUP_S`` (60) seconds fill the cache (a revision's outputs are
computed once and kept: :mod:`planner.outputs.cache`; in a ``redis-server`` the bench starts
on a free port, as deployed, when one is installed: the first look at each of the 50 new
designs costs about 0.5 s of CPU, 25 s in all, which a server meets once per revision), then
the statistics are reset and the users run ``BENCH_LOAD_SECONDS`` (60) more, which are
measured (p99 also per 10 s window: bursts of other work on the cores show there).

Results: ``.var/bench/load.json`` with p50/p99/max latency, request counts and errors per
request kind and in total (errors: any answer other than 2xx; target 0, and p99 at most
500 ms), and the machine's load averages before and after (other work on the cores shows in
the figures). The server is stopped (its whole process group) and a PostgreSQL bench database
dropped, even when the run fails. Why Locust rather than wrk: each simulated user keeps its
own session, token and design, the latency is reported per request kind from one mixed run,
and it installs from the lock file.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
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
DURATION_S = float(os.environ.get("BENCH_LOAD_SECONDS", "60"))
WARMUP_S = float(os.environ.get("BENCH_LOAD_WARMUP_S", "60"))
WEB_WORKERS = os.environ.get("BENCH_LOAD_WEB_WORKERS", "")  # empty: gunicorn_conf's count
WAIT_S = (0.5, 1.5)
USERNAME = "bench-load-{:03d}"
PRESET = "h100-superpod-4su.yaml"
TARGET_P99_MS = 500


# --- the bench database and its seed (a subprocess with Django) --------------------------------


def _bench_env() -> dict:
    """Environment of the seed and web processes."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "planner.project.settings",
        "FABRIC_VAR_DIR": str(VAR),
    }
    for name in ("DEBUG", "PRODUCTION", "REDIS_URL"):
        env.pop(name, None)  # the mix starts no job; the web's cache gets a Redis of its own
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        base, _, name = url.rpartition("/")
        env["DATABASE_URL"] = f"{base}/{name.split('?')[0]}_load"
    else:
        env.pop("DATABASE_URL", None)  # SQLite in FABRIC_VAR_DIR
    return env


def _postgres(env: dict):
    """(maintenance URL, bench database name) when the bench runs on PostgreSQL."""
    url = env.get("DATABASE_URL", "")
    if not url:
        return None
    base, _, name = url.rpartition("/")
    return f"{base}/postgres", name


def _reset_stores(env: dict) -> None:
    """A fresh database for this run."""
    shutil.rmtree(VAR, ignore_errors=True)
    VAR.mkdir(parents=True)
    postgres = _postgres(env)
    if postgres:
        import psycopg

        maintenance, name = postgres
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')


def _drop_stores(env: dict) -> None:
    postgres = _postgres(env)
    if postgres:
        import psycopg

        maintenance, name = postgres
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed() -> dict:
    """Migrate, load the catalog, create the users, their sessions, tokens and designs (runs in
    the bench environment, see :func:`_bench_env`). Returns what the simulated users need."""
    from importlib import import_module

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from inventory.services import catalog_load
    from planner.designs.models import Design, DesignRevision
    from planner.designs.services import design_create
    from planner.domain.presets import EXAMPLES_DIR
    from planner.domain.spec import load_spec_text
    from planner.teams.models import Team, TeamMembership

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    catalog_load()
    spec = load_spec_text((EXAMPLES_DIR / PRESET).read_text())
    sales = Team.objects.create(name="Bench sales", slug="bench-sales")
    store = import_module(settings.SESSION_ENGINE).SessionStore
    accounts = []
    first = None
    for index in range(1, USERS + 1):
        user = get_user_model().objects.create_user(username=USERNAME.format(index))
        if index % 2:
            TeamMembership.objects.create(team=sales, user=user, can_view_prices=True)
        name = f"Load {index}"
        if first is None:
            design = first = design_create(owner=user, spec_document={**spec, "name": name})
            built = first.latest_revision
        else:  # the same build, stored again (building the 4 SU fabric 50 times takes minutes)
            design = Design.objects.create(name=name, owner=user)
            DesignRevision.objects.create(
                design=design,
                number=1,
                spec={**built.spec, "name": name},
                topology=built.topology,
                summary={**built.summary, "name": name},
                kind=built.kind,
                created_by=user,
            )
        session = store()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        accounts.append(
            {
                "token": Token.objects.create(user=user).key,
                "cookie": f"{settings.SESSION_COOKIE_NAME}={session.session_key}",
                "design": design.pk,
                "revision": design.latest_revision.number,
                "price_right": bool(index % 2),
            }
        )
    summary = design.latest_revision.summary
    return {
        "accounts": accounts,
        "spec": spec,
        "design": {"preset": PRESET, "servers": summary["servers"], "gpus": summary["gpus"]},
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


def _redis_up(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as sock:
        sock.sendall(b"PING\r\n")
        return sock.recv(16).startswith(b"+PONG")
    return False


def _healthy(base: str) -> bool:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


# --- the load ----------------------------------------------------------------------------------


def _load(base: str, accounts: list[dict], spec: dict) -> dict:
    """Run the users; returns Locust's statistics per request kind and in total."""
    import gevent
    from locust import FastHttpUser, between, task
    from locust.env import Environment

    free = list(accounts)

    class MixUser(FastHttpUser):
        host = base
        wait_time = between(*WAIT_S)

        def on_start(self):
            account = free.pop()
            self.page_headers = {"Cookie": account["cookie"]}
            self.api_headers = {"Authorization": f"Token {account['token']}"}
            self.design, self.revision = account["design"], account["revision"]

        @task
        def design_list(self):
            self.client.get("/designs/", headers=self.page_headers, name="design list")

        @task
        def design_page(self):
            self.client.get(
                f"/designs/{self.design}/", headers=self.page_headers, name="design page"
            )

        @task
        def summary(self):
            self.client.post(
                "/api/planner/summary/",
                json={"spec": spec},
                headers=self.api_headers,
                name="summary API",
            )

        @task
        def cabling_csv(self):
            self.client.get(
                f"/api/planner/designs/{self.design}/revisions/{self.revision}/cabling/",
                headers=self.api_headers,
                name="cabling CSV",
            )

    env = Environment(user_classes=[MixUser])
    samples: list[tuple[float, float]] = []  # (seconds since the measurement began, ms)
    measuring = {"since": None}

    def on_request(response_time, **_):
        if measuring["since"] is not None:
            samples.append((time.monotonic() - measuring["since"], response_time))

    env.events.request.add_listener(on_request)
    runner = env.create_local_runner()
    spawn_rate = max(1.0, USERS / 5)
    runner.start(USERS, spawn_rate=spawn_rate)
    gevent.sleep(USERS / spawn_rate + WARMUP_S)
    warmup = env.stats.total
    warmup_counts = {"requests": warmup.num_requests, "errors": warmup.num_failures}
    env.stats.reset_all()  # latencies with every user running and the caches filled
    started = measuring["since"] = time.monotonic()
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
            "p90_ms": total.get_response_time_percentile(0.9),
            "p99_ms": total.get_response_time_percentile(0.99),
            "max_ms": round(total.max_response_time or 0, 1),
            "requests_per_s": round(total.num_requests / elapsed, 1),
        },
        "warmup": warmup_counts,
        "p99_ms_by_10_s": _p99_by_window(samples, 10),
        "error_samples": [
            {"request": f"{e.method} {e.name}", "error": str(e.error), "count": e.occurrences}
            for e in list(env.stats.errors.values())[:10]
        ],
    }


def _p99_by_window(samples: list[tuple[float, float]], window_s: float) -> list[float]:
    """The p99 latency (ms) of each ``window_s`` of the measurement: whether slow answers
    come in bursts (another process taking the cores) or all along."""
    windows: dict[int, list[float]] = {}
    for at_s, ms in samples:
        windows.setdefault(int(at_s // window_s), []).append(ms)
    return [
        round(sorted(values)[min(len(values) - 1, int(len(values) * 0.99))], 1)
        for _, values in sorted(windows.items())
    ]


def _load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages."""
    return [round(x, 2) for x in os.getloadavg()]


def main() -> int:
    from gevent import monkey

    monkey.patch_all()  # before anything opens a socket: Locust's users are greenlets
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server on TERM too
    env = _bench_env()
    OUT.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen] = []
    try:
        _reset_stores(env)
        print(f"load: seeding {USERS} users and 4 SU designs ...", flush=True)
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
        web_env = {**env, "WEB_BIND": f"127.0.0.1:{port}", "WEB_ACCESS_LOG": ""}
        redis_server = shutil.which("redis-server")
        if redis_server:  # the cache as deployed, on a Redis of the bench's own
            redis_port = _free_port()
            procs.append(
                _start(
                    [redis_server, "--port", str(redis_port), "--bind", "127.0.0.1"]
                    + ["--save", "", "--appendonly", "no"],
                    VAR / "redis.log",
                    env,
                )
            )
            web_env["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
            _wait_until(lambda: _redis_up(redis_port), "redis-server", procs)
        if WEB_WORKERS:
            web_env["WEB_WORKERS"] = WEB_WORKERS
        procs.append(
            _start(
                [
                    *(sys.executable, "-m", "gunicorn", "planner.project.wsgi:application"),
                    *("-c", "python:planner.project.gunicorn_conf"),
                ],
                VAR / "gunicorn.log",
                web_env,
            )
        )
        _wait_until(lambda: _healthy(base), "gunicorn /healthz", procs)
        conf = runpy.run_path(str(ROOT / "planner" / "project" / "gunicorn_conf.py"))
        web = {
            "worker_class": conf["worker_class"],
            "workers": int(WEB_WORKERS or conf["workers"]),
            "threads": conf["threads"],
            "cores": os.cpu_count(),
        }
        print(
            f"load: {USERS} users for {DURATION_S:g} s (after {WARMUP_S:g} s of warm-up) on "
            f"{base} (gunicorn {web['workers']} {web['worker_class']} workers x "
            f"{web['threads']} threads)",
            flush=True,
        )
        load_before = _load_average()
        measured = _load(base, world["accounts"], world["spec"])
        total = measured["total"]
        result = {
            "users": USERS,
            "duration_s": DURATION_S,
            "warmup_s": WARMUP_S,
            "think_time_s": list(WAIT_S),
            "web": web,
            "database": "postgresql" if _postgres(env) else "sqlite",
            "cache": "redis" if redis_server else "per process (no redis-server found)",
            "design": world["design"],
            "seed_s": world["seed_s"],
            "load_average_before": load_before,
            "load_average_after": _load_average(),
            **measured,
            "errors": total["errors"],
            "target_errors": 0,
            "target_p99_ms": TARGET_P99_MS,
            "met": total["errors"] == 0 and total["p99_ms"] <= TARGET_P99_MS,
        }
        RESULT.write_text(json.dumps(result, indent=2) + "\n")
        for name, kind in result["kinds"].items():
            print(
                f"  {name:>12}: {kind['requests']:>6} requests, p50 {kind['p50_ms']} ms, "
                f"p99 {kind['p99_ms']} ms, {kind['errors']} errors",
                flush=True,
            )
        print(
            f"load: {total['requests_per_s']} requests/s, p50 {total['p50_ms']} ms, p99 "
            f"{total['p99_ms']} ms (target {TARGET_P99_MS}), errors {result['errors']} "
            f"(target 0); load average {load_before} -> {result['load_average_after']} "
            f"-> {RESULT.relative_to(ROOT)}",
            flush=True,
        )
        return 0 if result["met"] else 1
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
