"""Signs of life of a running job: the heartbeat thread, and which process runs an attempt.

A running job's worker writes ``heartbeat`` from a background thread every
``JOBS_HEARTBEAT_INTERVAL_S`` (and with each progress report). A claim records the claiming
process in ``Job.worker`` (``"<node> [pid N on <machine>, t<start>]"``): on the same machine a
redelivered task sees at once whether it still lives (:func:`claimant_alive`); from another
machine it watches the heartbeat for two beats instead (:func:`heartbeat_moves`).
"""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
import time

from django.db import connection
from django.utils import timezone

from simulation.jobs.config import heartbeat_interval_s
from simulation.models import Job, JobStatusChoices

logger = logging.getLogger(__name__)

#: ``[pid N on <machine>, t<start>]`` at the end of ``Job.worker`` (see :func:`process_identity`).
PROCESS_RE = re.compile(r"\[pid (\d+) on (\S+), t(\d*)\]$")


class Heartbeat:
    """A daemon thread that refreshes the row's heartbeat while the runner computes."""

    def __init__(self, job_id, attempt: int, interval: float):
        self.job_id, self.attempt, self.interval = job_id, attempt, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{job_id}", daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                try:
                    alive = Job.objects.filter(
                        pk=self.job_id, status=JobStatusChoices.RUNNING, attempts=self.attempt
                    ).update(heartbeat=timezone.now())
                except Exception:  # noqa: BLE001 - a missed beat is retried at the next tick
                    logger.warning("heartbeat of job %s not written", self.job_id, exc_info=True)
                    continue
                if not alive:
                    return
        finally:
            connection.close()  # this thread's own connection


def _process_stat(pid: int) -> tuple[str, str] | None:
    """``(state, start time in clock ticks since boot)`` of process ``pid`` from Linux's
    ``/proc``; None when there is no such process (or no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except OSError:
        return None
    fields = text[text.rfind(b")") + 2 :].split()  # after the command name, from field 3 on
    return fields[0].decode(), fields[19].decode()


def process_identity() -> str:
    """This process, as recorded in a claim: pid, machine, and start time (with the pid, it
    tells this process from a later one that reuses the pid)."""
    pid = os.getpid()
    stat = _process_stat(pid)
    return f"pid {pid} on {socket.gethostname()}, t{stat[1] if stat else ''}"


def claimant_alive(worker: str) -> bool | None:
    """Whether the process recorded in ``worker`` still runs; None when this process cannot
    tell (no process recorded, or it ran on another machine)."""
    match = PROCESS_RE.search(worker or "")
    if match is None or match[2] != socket.gethostname():
        return None
    pid, start = int(match[1]), match[3]
    if pid == os.getpid():
        return True
    stat = _process_stat(pid)
    if stat is not None:
        state, started = stat
        return state not in {"Z", "X"} and (not start or started == start)
    if os.path.isdir("/proc/self"):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def heartbeat_moves(job_id, seen: tuple) -> bool:
    """Whether the run ``seen`` (status, attempts, heartbeat) shows a sign of life (or changes)
    within two heartbeat intervals."""
    deadline = time.monotonic() + 2 * heartbeat_interval_s() + 1
    while time.monotonic() < deadline:
        time.sleep(min(0.5, heartbeat_interval_s() / 2))
        now = Job.objects.filter(pk=job_id).values_list("status", "attempts", "heartbeat").first()
        if now != seen:
            return True
    return False
