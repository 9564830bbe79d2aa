"""The bytecode written before the pytest-xdist workers start (tests/bytecode.py) is what
pytest's import hook and CPython's import system read, so the workers compile nothing again."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc

from tests import bytecode

FAILING_TEST = "def test_two():\n    left = 1\n    assert left == 2\n"


def test_a_test_module_is_rewritten_once_as_pytest_reads_it(tmp_path):
    module = tmp_path / "test_sample.py"
    module.write_text(FAILING_TEST)
    assert bytecode._rewrite(str(module)) is True
    code = _read_pyc(module, tmp_path / "__pycache__" / f"test_sample{PYC_TAIL}")
    assert code is not None  # pytest's hook takes it instead of rewriting
    namespace: dict = {}
    exec(code, namespace)
    try:
        namespace["test_two"]()
    except AssertionError as error:
        assert "assert 1 == 2" in str(error)  # pytest's explanation: the asserts are rewritten
    else:
        raise AssertionError("the sample test should fail")
    assert bytecode._rewrite(str(module)) is False  # current: left alone


def test_a_changed_test_module_is_rewritten_again(tmp_path):
    module = tmp_path / "test_sample.py"
    module.write_text(FAILING_TEST)
    bytecode._rewrite(str(module))
    module.write_text(FAILING_TEST.replace("left = 1", "left = 3"))
    assert bytecode._rewrite(str(module)) is True


def test_a_module_is_compiled_once_where_the_import_system_looks(tmp_path):
    module = tmp_path / "helper.py"
    module.write_text("VALUE = 42\n")
    assert bytecode._compile(str(module)) is True
    assert Path(importlib.util.cache_from_source(str(module))).exists()
    assert bytecode._compile(str(module)) is False
    later = module.stat().st_mtime_ns + 2_000_000_000
    os.utime(module, ns=(later, later))
    assert bytecode._compile(str(module)) is True


def test_the_work_is_the_projects_modules_and_the_test_modules_under_the_paths():
    modules, tests = bytecode.work([bytecode.ROOT / "tests" / "unit"])
    here = str(Path(__file__).resolve())
    assert here in tests and here in modules
    assert str(bytecode.ROOT / "planner" / "__init__.py") in modules
    assert str(bytecode.ROOT / "tests" / "unit" / "conftest.py") in tests
    assert not any("/tests/api/" in path for path in tests)
    assert not any("__pycache__" in path for path in modules)
