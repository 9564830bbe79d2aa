"""Imports run one way, down a ladder of rooms, and no import closes a circle.

The ladder and the pure core's walls are import-linter contracts in ``pyproject.toml``
(``[tool.importlinter]``), checked by ``lint-imports`` in ``make lint`` and ``make test``. grimp
reads every ``import`` of every product module, inside functions as much as at the top, so a
lazy import breaks a contract as surely as one at the top of a file. The tests here prove that
the contracts can fail (a probe module breaks them), that every room has its rung, and what the
contracts do not check: that no two modules import each other, directly or round a circle.
"""

from __future__ import annotations

import ast
import functools
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("inventory", "planner", "simulation")
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
PURE_CORE = ("planner.domain", "planner.analyses", "inventory.library")

PROBE = (
    "def f():\n"
    "    from django.db import transaction\n"
    "    from inventory.models import CatalogPart\n"
)


def _contract(contract_id: str) -> dict:
    return next(c for c in CONTRACTS["contracts"] if c["id"] == contract_id)


def _copy_sources(target: Path) -> None:
    """The three product packages' Python files and pyproject.toml, nothing else."""

    def not_python(folder: str, names: list[str]) -> list[str]:
        return [
            n
            for n in names
            if n == "__pycache__" or (not n.endswith(".py") and not Path(folder, n).is_dir())
        ]

    for package in PACKAGES:
        shutil.copytree(ROOT / package, target / package, ignore=not_python)
    shutil.copy(ROOT / "pyproject.toml", target / "pyproject.toml")


def test_the_probe_module_breaks_the_contracts(tmp_path):
    """The issue's probe (lazy imports of Django and of the catalog app inside a function of
    ``planner.domain``) breaks both the framework wall and the ladder, in a copy of the tree."""
    _copy_sources(tmp_path)
    (tmp_path / "planner" / "domain" / "probe.py").write_text(PROBE)
    result = subprocess.run(
        [Path(sys.executable).with_name("lint-imports"), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        timeout=60,
    )
    out = " ".join(result.stdout.split())  # rich wraps long lines
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{_contract('pure-core-no-framework')['name']} BROKEN" in out
    assert f"{_contract('ladder')['name']} BROKEN" in out
    kept = len(CONTRACTS["contracts"]) - 2
    assert f"Contracts: {kept} kept, 2 broken." in out  # the probe's, nothing else
    assert "planner.domain.probe -> django (l.2)" in out
    assert "planner.domain.probe -> inventory.models (l.3)" in out


def _children(package: str) -> list[str]:
    return sorted(
        f"{package}.{p.stem if p.is_file() else p.name}"
        for p in (ROOT / package.replace(".", "/")).iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()
    )


def test_every_room_has_a_rung():
    """Each module or package directly under a product package sits on the ladder (whole, or as
    part of its package's rung), or is in the pure core, whose rungs are the ladder's bottom."""
    rungs = [
        m.strip()
        for layer in _contract("ladder")["layers"]
        for m in layer.replace("|", ":").split(":")
    ]
    placed = [*rungs, *PURE_CORE]
    homeless = [
        child
        for package in PACKAGES
        for child in _children(package)
        if not any(child == r or child.startswith(f"{r}.") for r in placed)
        and not _all_children_placed(child, placed)
    ]
    assert not homeless, homeless


def _all_children_placed(package: str, placed: list[str]) -> bool:
    """Whether ``package`` stands in several rungs, each of its children in one."""
    if not (ROOT / package.replace(".", "/")).is_dir():
        return False
    children = [c for c in _children(package) if not c.endswith(".__init__")]
    return bool(children) and all(
        any(c == r or c.startswith(f"{r}.") for r in placed) for c in children
    )


def test_the_pure_core_is_the_ladders_bottom():
    rungs = _contract("ladder")["layers"]
    assert rungs[-2:] == ["planner.analyses", "planner.domain"]
    assert _contract("pure-core-no-framework")["source_modules"] == list(PURE_CORE)
    assert _contract("catalog-app-on-library")["layers"][-1] == "library"


def product_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            modules[name.removesuffix(".__init__")] = path
    return modules


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from ... import`` names, at any depth of the file."""
    return set(_imported_in(path.read_text()))


@functools.cache
def _imported_in(source: str) -> frozenset[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(name for name in names if name.split(".")[0] in PACKAGES)


def import_graph(modules: dict[str, Path]):
    """Module -> module edges (a name imported from a module counts as that module)."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for module, path in modules.items():
        for name in imported_modules(path):
            parts = name.split(".")
            for end in range(len(parts), 0, -1):
                target = ".".join(parts[:end])
                if target in modules:
                    if target != module:
                        graph.add_edge(module, target)
                    break
    return graph


def circles(modules: dict[str, Path]) -> list[list[str]]:
    import networkx as nx

    return [
        sorted(group)
        for group in nx.strongly_connected_components(import_graph(modules))
        if len(group) > 1
    ]


def test_no_import_closes_a_circle():
    """Layers do not look inside a rung: two modules of one room may not import each other."""
    found = circles(product_modules())
    assert not found, found


def test_a_circle_is_caught(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from planner.b import x\n")
    b.write_text("def f():\n    from planner.a import y\n")
    assert circles({"planner.a": a, "planner.b": b}) == [["planner.a", "planner.b"]]


@pytest.mark.parametrize("package", PACKAGES)
def test_packages_exist(package):
    assert (ROOT / package / "__init__.py").exists()
