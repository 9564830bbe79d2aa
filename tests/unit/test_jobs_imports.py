"""The jobs modules import one way: tasks -> services -> simulation.jobs, never back.

Checked on the source with ``ast`` (imports inside functions count too), so a lazy import of
``simulation.tasks`` cannot hide a circle.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JOBS = ROOT / "simulation" / "jobs"
#: Services send tasks by name (simulation.jobs.dispatch) on the current Celery app; the
#: project package (which holds the Celery app) is never imported.
FORBIDDEN = (["simulation", "tasks"], ["planner", "project"])
#: Each module of simulation.jobs may import only those listed before it.
ORDER = [
    "errors",
    "config",
    "dispatch",
    "heartbeat",
    "recovery",
    "fanout",
    "monte_carlo",
    "sweep",
    "kinds",
    "lifecycle",
]


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _job_modules() -> list[Path]:
    return sorted(JOBS.glob("*.py")) + [ROOT / "simulation" / "services.py"]


@pytest.mark.parametrize("path", _job_modules(), ids=lambda p: p.name)
def test_services_never_import_tasks(path):
    bad = {n for n in _imports(path) if n.split(".")[:2] in FORBIDDEN}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_every_jobs_module_has_its_rung():
    assert {p.stem for p in JOBS.glob("*.py")} - {"__init__"} == set(ORDER)


@pytest.mark.parametrize("module", ORDER)
def test_jobs_modules_import_only_lower_rungs(module):
    allowed = set(ORDER[: ORDER.index(module)])
    used = {
        name.split(".")[2]
        for name in _imports(JOBS / f"{module}.py")
        if name.startswith("simulation.jobs.")
    }
    assert used <= allowed, f"simulation.jobs.{module} imports {sorted(used - allowed)}"


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
