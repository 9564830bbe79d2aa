"""The jobs modules import one way: tasks -> services -> simulation.jobs, never back.

The rule itself is two import-linter contracts in ``pyproject.toml`` (``jobs-send-tasks-by-name``
and ``jobs-ladder``, checked by ``lint-imports`` in ``make lint``; imports inside functions count
too, so a lazy import of ``simulation.tasks`` cannot hide a circle). What stays here: the task
names the services send are the names the tasks register.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_dispatch_sends_the_task_names_the_tasks_register():
    from simulation.jobs import dispatch

    tree = ast.parse((ROOT / "simulation" / "tasks.py").read_text())
    registered = {
        keyword.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for keyword in node.keywords
        if keyword.arg == "name" and isinstance(keyword.value, ast.Constant)
    }
    assert {dispatch.RUN_JOB, dispatch.SIMULATE_SEED, dispatch.SWEEP_RUN} <= registered
