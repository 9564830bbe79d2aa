"""Run the web server (gunicorn as deployed: :mod:`planner.project.gunicorn_conf`) and a Celery
worker side by side (what ``make run`` calls).

Ctrl-C (SIGINT) or SIGTERM stops both; if either exits, the other is stopped too.
"""

import os
import signal
import subprocess
import sys
import time

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Serve http://HOST:PORT and start a Celery worker beside it."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")
        parser.add_argument("--concurrency", default="2")

    def handle(self, *args, host, port, concurrency, **options):
        python = sys.executable
        web = [
            *(python, "-m", "gunicorn", "planner.project.wsgi:application"),
            *("-c", "python:planner.project.gunicorn_conf", "--bind", f"{host}:{port}"),
        ]
        worker = [
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
        ]
        procs = [subprocess.Popen(cmd, start_new_session=True) for cmd in (web, worker)]
        self.stdout.write(
            self.style.SUCCESS(
                f"Fabric Planner on http://{host}:{port}/  (web pid {procs[0].pid}, "
                f"worker pid {procs[1].pid}). Ctrl-C stops both."
            )
        )

        def stop(*_):
            # SIGTERM to each main process only: the Celery worker then shuts its pool down
            # warmly (finishing or returning tasks); the whole group is killed if it hangs.
            for proc in procs:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 20
            for proc in procs:
                try:
                    proc.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)

        signal.signal(signal.SIGTERM, lambda *_: (stop(), sys.exit(0)))
        try:
            while all(proc.poll() is None for proc in procs):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            stop()
