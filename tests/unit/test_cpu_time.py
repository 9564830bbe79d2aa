"""``make test``'s CPU time (tests/cpu_time.py): user + sys of the command and every process it
starts, orphans included, written as JSON with the command's exit status."""

from __future__ import annotations

import json
import subprocess
import sys

from tests import cpu_time

#: Burns about 0.3 s of CPU in a grandchild that its parent does not wait for (an orphan).
ORPHAN_BURNS = (
    "import subprocess, sys\n"
    "subprocess.Popen([sys.executable, '-c', "
    "'import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.3: pass'])\n"
    "sys.exit(3)\n"
)


def test_an_orphans_cpu_time_is_counted_and_the_exit_status_kept(tmp_path, capsys):
    out = tmp_path / "times.json"
    # In a process of its own: the wrapper makes itself the reaper of orphans, and reaps any
    # child, which must not happen to the pytest process.
    command = [sys.executable, "-m", "tests.cpu_time", "--out", str(out), "--label", "probe"]
    status = subprocess.run(
        [*command, "--", sys.executable, "-c", ORPHAN_BURNS], cwd=cpu_time.ROOT
    ).returncode
    figures = json.loads(out.read_text())
    assert status == 3 == figures["exit_status"]
    assert figures["orphans_counted"] and figures["descendants_still_running"] == 0
    assert figures["cpu_s"] >= 0.3, figures  # the orphan's 0.3 s, plus two interpreters
    assert abs(figures["cpu_s"] - figures["user_s"] - figures["sys_s"]) < 0.11
    assert figures["label"] == "probe" and len(figures["load_avg_start"]) == 3
    assert cpu_time.main(["--out", str(out), "--summary"]) == 0  # as make test, at the end
    assert capsys.readouterr().out == cpu_time.summary_line(figures) + "\n"


def test_the_summary_line_names_cpu_wall_and_load():
    line = cpu_time.summary_line(
        {
            "cpu_s": 480.5,
            "user_s": 430.2,
            "sys_s": 50.3,
            "wall_s": 301.0,
            "cpus": 2,
            "load_avg_start": [0.1, 0.2, 0.3],
            "load_avg_end": [1.9, 1.0, 0.5],
        }
    )
    assert line == (
        "CPU time 480.5 s (user 430.2 s + sys 50.3 s), wall 5 min 01 s; load average "
        "0.10 0.20 0.30 at start, 1.90 1.00 0.50 at end (2 CPUs)"
    )
