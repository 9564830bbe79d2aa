"""Compile the project's modules once, before pytest-xdist starts its workers:
``python -m tests.bytecode PATH ...``.

Every worker imports every test module to collect it, and with no bytecode yet (a fresh clone)
each one compiles the product for itself and parses and rewrites the asserts of every test
module for itself, all under the coverage tracer, which multiplies what pytest's rewriter (pure
Python) costs by about 2.5. Measured from a fresh clone on two cores, three workers with
coverage: 21 s of CPU each to collect without bytecode, 9 s with it; here, in two processes
without the tracer, the same work costs 6 s once for all of them, and a hash check per file
(0.4 s) when the bytecode is current.

What is written is what the workers would write: CPython's own ``.pyc`` for every module
(:mod:`compileall`, timestamp-checked as the import system checks them), and for every test
module and ``conftest.py`` the rewritten ``.pyc`` pytest's import hook looks for first
(:mod:`_pytest.assertion.rewrite`: the same name, the same hash-checked format, the same
rewrite). Those are pytest's internals: if they change, the rewrite is left to the workers as
before (nothing is written, the run goes on). The paths are the run's arguments, so a run of
one folder warms that folder.
"""

from __future__ import annotations

import compileall
import fnmatch
import importlib.util
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

try:
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc
except ImportError:  # pytest's internals changed: the workers rewrite as before
    PYC_TAIL = None

ROOT = Path(__file__).resolve().parent.parent
#: The packages whose modules the tests import: the product and the tests' own helpers.
PACKAGES = ("planner", "inventory", "simulation", "tests")
#: pytest's default ``python_files`` (pyproject.toml keeps it), and the conftests it rewrites.
TEST_FILES = ("test_*.py", "*_test.py", "conftest.py")


class _Quiet:
    """The assertion state's tracer, as pytest calls it, saying nothing."""

    def trace(self, *_message) -> None:
        return None


def _rewrite(path: str) -> bool:
    """Write ``path``'s assert-rewritten bytecode where pytest looks for it, unless it is there
    and current; returns whether it wrote."""
    source = Path(path)
    cache = source.parent / "__pycache__"
    pyc = cache / (source.name[:-3] + PYC_TAIL)
    if _read_pyc(source, pyc) is not None:
        return False
    source_hash, code = _rewrite_test(source, None)  # None: pytest's defaults, as ours
    cache.mkdir(exist_ok=True)
    return _write_pyc(_Quiet(), code, source_hash, pyc)


def _compile(path: str) -> bool:
    """CPython's own bytecode of ``path``, unless current (:func:`compileall.compile_file`);
    returns whether it compiled."""
    pyc = Path(importlib.util.cache_from_source(path))
    stale = not pyc.exists() or pyc.stat().st_mtime_ns < Path(path).stat().st_mtime_ns
    return bool(compileall.compile_file(path, quiet=2)) and stale


def _is_test_file(path: Path) -> bool:
    return any(fnmatch.fnmatch(path.name, pattern) for pattern in TEST_FILES)


def work(paths: list[Path]) -> tuple[list[str], list[str]]:
    """The modules to compile and the test modules to rewrite under ``paths`` (folders or
    files), in the project's packages; nothing under ``__pycache__`` or outside the project."""
    modules: set[Path] = set()
    for package in PACKAGES:
        modules.update((ROOT / package).rglob("*.py"))
    wanted = [p.resolve() for p in paths] or [ROOT]
    tests = sorted(
        str(module)
        for module in modules
        if _is_test_file(module) and any(module == p or p in module.parents for p in wanted)
    )
    return sorted(str(module) for module in modules), tests


def warm(paths: list[Path], processes: int | None = None) -> tuple[int, int]:
    """Compile and rewrite what :func:`work` lists, on ``processes`` processes (one per
    core by default); returns how many modules it compiled and test modules it rewrote (none
    of those whose bytecode was current)."""
    modules, tests = work(paths)
    if PYC_TAIL is None:
        tests = []
    processes = processes or os.cpu_count() or 1
    with ProcessPoolExecutor(max_workers=processes) as pool:
        compiled = sum(pool.map(_compile, modules, chunksize=32))
        rewritten = sum(pool.map(_rewrite, tests, chunksize=8))
    return compiled, rewritten


def main(argv: list[str]) -> int:
    paths = [Path(arg.split("::", 1)[0]) for arg in argv if not arg.startswith("-")]
    compiled, rewritten = warm([p for p in paths if p.exists()])
    print(f"bytecode: {compiled} modules compiled, {rewritten} test modules rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
