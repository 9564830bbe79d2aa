"""``manage.py serve`` supervises its Celery worker: a worker that exits, however it dies, is
started again (issue 34: a worker that stopped on a Redis outage stayed down until someone
restarted it), at once after a long run, with a growing pause while it keeps dying young."""

from __future__ import annotations

import os
import signal
import sys
import time

from planner.management.commands.serve import HEALTHY_RUN_S, Supervised

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def _wait_for(check, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        news = check()
        if news:
            return news
        time.sleep(0.05)
    raise AssertionError("nothing happened")


def test_a_killed_child_is_started_again_at_once():
    child = Supervised("worker", SLEEPER)
    try:
        first = child.proc.pid
        assert child.check() is None  # alive: nothing to do
        os.kill(first, signal.SIGKILL)
        killed_at = time.monotonic()
        news = _wait_for(child.check)
        assert news == f"worker (pid {first}) exited with code -9; restarting in 0 s"
        news = _wait_for(child.check)
        assert news == f"worker started again (pid {child.proc.pid})"
        assert child.proc.pid != first and child.proc.poll() is None and child.restarts == 1
        assert time.monotonic() - killed_at < 2
    finally:
        child.stop(5)
    assert child.proc.poll() is not None  # stopped, and not started again


def test_the_pause_grows_while_the_child_dies_young_and_resets_after_a_long_run():
    now = [0.0]
    child = Supervised("worker", [sys.executable, "-c", "pass"], clock=lambda: now[0])
    try:
        for pause_s in (0, 1, 2, 4):  # it keeps dying young
            child.proc.wait()
            assert child.check().endswith(f"restarting in {pause_s} s")
            now[0] += pause_s
            assert child.check().startswith("worker started again")
        child.proc.wait()
        now[0] += HEALTHY_RUN_S  # this run counts as healthy
        assert child.check().endswith("restarting in 0 s")
    finally:
        child.stop(5)
