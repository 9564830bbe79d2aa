"""Run a command (the test suite) as a child and report the CPU time it and all its
descendants used: ``python -m tests.cpu_time [--out FILE] [--label NAME] -- COMMAND ...``.

CPU time is user + sys of every process the command starts, however deep: pytest, its
pytest-xdist workers, and the Chromium, Playwright driver, live servers, Celery workers and
``manage.py`` processes the tests start. A process's own rusage counts its children only once
it has waited for them; the ones nobody waits for (a killed Celery worker's pool processes, a
daemon) are re-parented to this process (Linux ``PR_SET_CHILD_SUBREAPER``) and counted when it
reaps them. Wall time and the machine's load averages (at start and end) are reported beside,
since both cores are shared. The figures are printed and written as JSON (``--out``, default
``.var/test-times.json``); the exit status is the command's. ``--summary`` prints the last
run's line again (``make test`` does, after the coverage table).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime as dt
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / ".var" / "test-times.json"
PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>


def _become_subreaper() -> bool:
    """Orphaned descendants come to this process (so their CPU time is counted)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _reap_orphans(wait_s: float) -> int:
    """Reap re-parented descendants that have exited, waiting up to ``wait_s`` for the last
    ones; returns how many are still running (left alone)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if pid:
            continue
        if time.monotonic() >= deadline:
            return len(_children())
        time.sleep(0.05)


def _children() -> list[int]:
    """Process ids whose parent is this process (from /proc)."""
    me = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            found.append(int(entry.name))
    return found


def run(command: list[str]) -> dict:
    """Run ``command`` and measure it; returns the figures (and ``exit_status``)."""
    subreaper = _become_subreaper()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_start = os.getloadavg()
    started_at = dt.datetime.now(dt.UTC)
    started = time.monotonic()
    proc = subprocess.Popen(command)
    try:
        status = proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        status = proc.wait()
    wall_s = time.monotonic() - started
    still_running = _reap_orphans(5.0) if subreaper else 0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user_s = after.ru_utime - before.ru_utime
    sys_s = after.ru_stime - before.ru_stime
    return {
        "command": command,
        "started": started_at.isoformat(timespec="seconds"),
        "wall_s": round(wall_s, 1),
        "user_s": round(user_s, 1),
        "sys_s": round(sys_s, 1),
        "cpu_s": round(user_s + sys_s, 1),
        "cpus": os.cpu_count(),
        "load_avg_start": [round(x, 2) for x in load_start],
        "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "orphans_counted": subreaper,
        "descendants_still_running": still_running,
        "exit_status": status,
    }


def _minutes(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def summary_line(figures: dict) -> str:
    load = lambda values: " ".join(f"{x:.2f}" for x in values)  # noqa: E731
    return (
        f"CPU time {figures['cpu_s']:.1f} s (user {figures['user_s']:.1f} s + "
        f"sys {figures['sys_s']:.1f} s), wall {_minutes(figures['wall_s'])}; "
        f"load average {load(figures['load_avg_start'])} at start, "
        f"{load(figures['load_avg_end'])} at end ({figures['cpus']} CPUs)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file to write")
    parser.add_argument("--label", default="", help="a name kept with the figures")
    parser.add_argument(
        "--summary", action="store_true", help="print the line of the last run (--out) again"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary_line(json.loads(args.out.read_text())))
        return 0
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (put it after --)")
    figures = run(command)
    if args.label:
        figures["label"] = args.label
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=2) + "\n")
    shown = args.out.resolve()
    shown = shown.relative_to(ROOT) if shown.is_relative_to(ROOT) else shown
    print(f"\n{summary_line(figures)} [{shown}]", file=sys.stderr)
    return figures["exit_status"]


if __name__ == "__main__":
    sys.exit(main())
