"""Celery workers for the benchmarks that spread one job over worker processes (``bench_sweep``,
``bench_explore``): a database and broker of the bench's own, ``N`` single-process workers
started and ready before the clock starts, and stopped after.

:class:`WorkerBench` points this process (and the workers it starts) at PostgreSQL
``<DATABASE_URL's database>_<name>`` when ``DATABASE_URL`` is set (else SQLite in
``.var/bench/<name>/``) and at Redis database ``BENCH_REDIS_DB`` (13) of ``REDIS_URL`` (else
the filesystem broker there). Each worker is ``celery worker --concurrency 1`` with a host name
of its own, like ``N`` machines.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"


class WorkerBench:
    """The stores and workers of one benchmark called ``name``."""

    def __init__(self, name: str):
        self.name = name
        self.var = OUT / name
        self.env = self._configure()

    def _configure(self) -> dict:
        """Point this process (and the workers it starts) at the bench's own database and
        broker; returns the workers' environment."""
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "planner.project.settings",
            "FABRIC_VAR_DIR": str(self.var),
        }
        for name in ("DEBUG", "PRODUCTION", "JOBS_MAX_CONCURRENT_PER_USER"):
            env.pop(name, None)
        url = os.environ.get("DATABASE_URL", "")
        if url.startswith(("postgres://", "postgresql://")):
            base, _, name = url.rpartition("/")
            env["DATABASE_URL"] = f"{base}/{name.split('?')[0]}_{self.name}"
        else:
            env.pop("DATABASE_URL", None)  # SQLite in FABRIC_VAR_DIR
        redis_url = os.environ.get("REDIS_URL", "")
        if redis_url:
            server = redis_url.rsplit("/", 1)[0] if redis_url.count("/") > 2 else redis_url
            env["REDIS_URL"] = f"{server}/{os.environ.get('BENCH_REDIS_DB', '13')}"
        else:
            env.pop("REDIS_URL", None)  # the filesystem broker in FABRIC_VAR_DIR
        for name in set(os.environ) - set(env):
            del os.environ[name]
        os.environ.update(env)
        return env

    @property
    def database(self) -> str:
        return "postgresql" if self._postgres() else "sqlite"

    @property
    def broker(self) -> str:
        return "redis" if self.env.get("REDIS_URL") else "filesystem"

    def _postgres(self):
        url = self.env.get("DATABASE_URL", "")
        if not url:
            return None
        base, _, name = url.rpartition("/")
        return f"{base}/postgres", name

    def reset_stores(self) -> None:
        """An empty folder and database (migrate before use)."""
        shutil.rmtree(self.var, ignore_errors=True)
        self.var.mkdir(parents=True)
        postgres = self._postgres()
        if postgres:
            import psycopg

            maintenance, name = postgres
            with psycopg.connect(maintenance, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                conn.execute(f'CREATE DATABASE "{name}"')

    def flush_broker(self) -> None:
        if self.env.get("REDIS_URL"):
            import redis

            redis.Redis.from_url(self.env["REDIS_URL"]).flushdb()
        else:
            for sub in ("queue", "processed", "control"):
                folder = self.var / "broker" / sub
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir(parents=True)

    def drop_stores(self) -> None:
        postgres = self._postgres()
        if postgres:
            import psycopg
            from django.db import connections

            connections.close_all()
            maintenance, name = postgres
            with psycopg.connect(maintenance, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def start_workers(self, count: int) -> tuple[list[subprocess.Popen], list[Path]]:
        """``count`` single-process workers, each with a log; returns once all are ready."""
        procs, logs = [], []
        for index in range(1, count + 1):
            log_path = self.var / f"worker-{count}-{index}.log"
            with open(log_path, "wb") as log:
                procs.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "celery",
                            "-A",
                            "planner.project",
                            "worker",
                            "--pool",
                            "prefork",
                            "--concurrency",
                            "1",
                            "--hostname",
                            f"bench-{self.name}-{count}-{index}@%h",
                            "--loglevel",
                            "INFO",
                            "--without-gossip",
                            "--without-mingle",
                        ],
                        cwd=ROOT,
                        env=self.env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
            logs.append(log_path)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if any(proc.poll() is not None for proc in procs):
                stop_workers(procs)
                raise RuntimeError(f"a worker exited while starting: see {self.var}")
            if all(b"ready." in path.read_bytes() for path in logs):
                return procs, logs
            time.sleep(0.2)
        stop_workers(procs)
        raise RuntimeError(f"workers not ready in 90 s: see {self.var}")


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=20)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def wait_for(job_model, job_id, *, poll_s: float = 0.02):
    """The job row once it is finished."""
    while True:
        job = job_model.objects.get(pk=job_id)
        if job.is_finished:
            return job
        time.sleep(poll_s)
