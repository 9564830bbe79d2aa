"""The pure domain packages never import Django (directly or through another module)."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE_PACKAGES = ["planner.domain", "inventory.library", "simulation.engine"]


def _modules(package: str) -> list[str]:
    path = ROOT.joinpath(*package.split("."))
    names = [package]
    for info in pkgutil.walk_packages([str(path)], prefix=f"{package}."):
        names.append(info.name)
    return names


@pytest.mark.parametrize("package", PURE_PACKAGES)
def test_pure_package_imports_without_django(package):
    modules = _modules(package)
    assert modules, package
    # A fresh interpreter in which importing django raises: any path to it fails the test.
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in {'django', 'rest_framework'}:\n"
        "            raise ImportError(f'pure package imported {name}')\n"
        "sys.meta_path.insert(0, Block())\n"
        f"import importlib\nfor m in {modules!r}: importlib.import_module(m)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr


def test_block_really_blocks():
    """The guard above would catch a Django import (the test can fail)."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'django':\n"
        "            raise ImportError('blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import django\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0 and "blocked" in result.stderr
