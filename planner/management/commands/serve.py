"""Run the web server (gunicorn as deployed: :mod:`planner.project.gunicorn_conf`) and a Celery
worker side by side (what ``make run`` calls).

The worker is supervised: whenever it exits (killed, out of memory, or any crash), its process
group is cleared and it is started again at once, or after a pause that grows from 1 s to 30 s
while it keeps dying young (:class:`Supervised`). Its jobs are not lost meanwhile: the new
worker takes back at once the jobs of a process that died on this machine
(simulation.jobs.recovery).
Ctrl-C (SIGINT) or SIGTERM stops both; if the web server exits, the worker is stopped too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from django.core.management.base import BaseCommand

#: A worker is started again at once when it exits; if it exits again within this time, after a
#: pause that doubles from 1 s up to 30 s (reset by a run this long).
HEALTHY_RUN_S = 60.0
FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 30.0


class Supervised:
    """A child process (its own process group) that is started again whenever it exits.

    Call :meth:`check` periodically: it returns a sentence to log when it restarted the
    process (or scheduled a restart), else None.
    """

    def __init__(self, name: str, command: list[str], *, clock=time.monotonic, log_path=None):
        self.name, self.command, self.clock, self.log_path = name, command, clock, log_path
        self.backoff_s = 0.0
        self.restarts = 0
        self._restart_at = None
        self.proc = self._start()

    def _start(self) -> subprocess.Popen:
        self.started_at = self.clock()
        if self.log_path is None:
            return subprocess.Popen(self.command, start_new_session=True)
        with open(self.log_path, "ab") as log:
            return subprocess.Popen(
                self.command, start_new_session=True, stdout=log, stderr=subprocess.STDOUT
            )

    def check(self) -> str | None:
        now = self.clock()
        if self._restart_at is not None:
            if now < self._restart_at:
                return None
            self._restart_at = None
            self.proc = self._start()
            self.restarts += 1
            return f"{self.name} started again (pid {self.proc.pid})"
        code = self.proc.poll()
        if code is None:
            return None
        # A worker killed alone leaves its pool processes in its group: clear them first.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if now - self.started_at >= HEALTHY_RUN_S:
            self.backoff_s = 0.0
        wait_s = self.backoff_s
        self.backoff_s = min(MAX_BACKOFF_S, max(FIRST_BACKOFF_S, 2 * self.backoff_s))
        self._restart_at = now + wait_s
        return (
            f"{self.name} (pid {self.proc.pid}) exited with code {code}; restarting in {wait_s:g} s"
        )

    def stop(self, timeout_s: float) -> None:
        """SIGTERM to the main process (a Celery worker then shuts its pool down warmly), the
        whole group killed if it has not exited within ``timeout_s``."""
        self._restart_at = None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=max(0.1, timeout_s))
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)


class Command(BaseCommand):
    help = "Serve http://HOST:PORT and start a supervised Celery worker beside it."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")
        parser.add_argument("--concurrency", default="2")

    def handle(self, *args, host, port, concurrency, **options):
        python = sys.executable
        web_command = [
            *(python, "-m", "gunicorn", "planner.project.wsgi:application"),
            *("-c", "python:planner.project.gunicorn_conf", "--bind", f"{host}:{port}"),
        ]
        worker_command = [
            python,
            "-m",
            "celery",
            "-A",
            "planner.project",
            "worker",
            "--loglevel",
            "INFO",
            "--concurrency",
            concurrency,
            "--hostname",
            "local@%h",
            # Jobs need neither (their state is on the row): the worker starts a second sooner.
            "--without-mingle",
            "--without-gossip",
        ]
        web = subprocess.Popen(web_command, start_new_session=True)
        worker = Supervised("worker", worker_command)
        self.stdout.write(
            self.style.SUCCESS(
                f"Fabric Planner on http://{host}:{port}/  (web pid {web.pid}, "
                f"worker pid {worker.proc.pid}, restarted if it exits). Ctrl-C stops both."
            )
        )

        def stop(*_):
            deadline = time.monotonic() + 20
            if web.poll() is None:
                web.send_signal(signal.SIGTERM)
            worker.stop(deadline - time.monotonic())
            try:
                web.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(web.pid, signal.SIGKILL)

        signal.signal(signal.SIGTERM, lambda *_: (stop(), sys.exit(0)))
        try:
            while web.poll() is None:
                news = worker.check()
                if news:
                    self.stderr.write(news)
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            stop()
