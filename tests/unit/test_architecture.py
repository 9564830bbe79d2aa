"""The pure packages never load Django, DRF or Celery, not even through a third-party package.

The import contracts (``pyproject.toml``, ``lint-imports``) see every import the project's own
modules write, but not what a third-party package loads in turn (a pure module that imported a
Django add-on would pass them). This test sees that: the pure packages run in a fresh
interpreter that imports every module of the pure packages and then
lists what ``sys.modules`` holds: not one ``django``, ``rest_framework`` or ``celery`` module may
be there. Nothing is blocked or swallowed on the way, so the check sees exactly what a
caller of the domain code would load.
"""

import pkgutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PURE_PACKAGES = ["inventory.library", "planner.domain", "planner.analyses"]
FRAMEWORKS = ("django", "rest_framework", "celery")


def _modules(package: str) -> list[str]:
    path = ROOT.joinpath(*package.split("."))
    names = [package]
    for info in pkgutil.walk_packages([str(path)], prefix=f"{package}."):
        names.append(info.name)
    return names


def _loaded_frameworks(modules: list[str]) -> subprocess.CompletedProcess:
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})\n"
        "print('\\n'.join(loaded))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_all_pure_packages_together_load_no_framework():
    modules = [name for package in PURE_PACKAGES for name in _modules(package)]
    assert all(len(_modules(package)) > 1 for package in PURE_PACKAGES)
    result = _loaded_frameworks(modules)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_the_check_sees_a_framework():
    """The same check reports Django when a module does load it (the test can fail)."""
    result = _loaded_frameworks(["planner.project.celery"])
    assert "celery" in result.stdout.split() and "django" in result.stdout.split()
