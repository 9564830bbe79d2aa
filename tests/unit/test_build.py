"""A lean, honest build (issue 35 item 4).

- Two locks: ``requirements.lock`` holds exactly what the web server and the Celery worker run
  (pyproject's ``dependencies`` and what they require, nothing else: no test, load or lint
  tool), ``requirements-dev.lock`` that plus the ``dev`` group, at the same versions.
- Every package the code imports is declared: each third-party module the product imports
  (read with ``ast``, so an import inside a function counts) comes from a production
  dependency, each one the tests import from a production or a dev dependency; and each
  declared package is imported, or said here why not.
- The Docker image installs the production lock only, and the quote PDF's font packages.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from planner.analyses.opensm.runner import DEBIAN_PACKAGES
from planner.quotes.fonts import FACES

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("planner", "inventory", "simulation", "manage.py")
FIRST_PARTY = {"planner", "inventory", "simulation", "tests"}

#: Modules imported by scripts that run outside the venv, under the system Python (the
#: operating system's packages, installed by .ci/run), and where.
OUTSIDE_THE_VENV = {
    "simgrid": "Debian's python3-simgrid: planner/analyses/simgrid_oracle.py runs its script "
    "under /usr/bin/python3",
    "sonic_yang": "SONiC's sonic-yang-mgmt over its own libyang build (no wheel on any registry): "
    "tests/data/sonic_yang/validate.py made the recorded fixtures with it, outside the venv",
    "dcim": "NetBox's own app: tests/interop/netbox_driver.py runs inside NetBox's virtualenv "
    "(tests/interop/netbox.lock), started by make interop",
}
#: Declared packages no module imports by name, and why each is there.
USED_WITHOUT_IMPORT = {
    "psycopg": "Django's PostgreSQL driver, chosen by DATABASE_URL",
    "gunicorn": "the web server of the Docker image and `make run`",
    "whitenoise": "static files: named in settings' MIDDLEWARE and INSTALLED_APPS",
    "drf-spectacular-sidecar": "Swagger UI's files: named in settings' INSTALLED_APPS",
    "uharfbuzz": "fpdf2 shapes right-to-left text in the quote PDF with it",
    "ruff": "the linter, run as a command by `make lint`",
    "mkdocs": "builds the documentation site, run as a command by `make docs`",
    "import-linter": "checks the import contracts, run as `lint-imports` by `make lint`",
}
#: Tools that must never be in the production lock nor the image (prefixes of names).
TOOLS = (
    "pytest", "hypothesis", "playwright", "locust", "schemathesis", "ruff", "coverage",
    "pypdf", "gevent", "flask", "pyzmq", "werkzeug", "faker", "mypy", "black", "isort",
    "matplotlib", "noto-cjk-sans-otc", "mkdocs", "import-linter", "grimp",
)  # fmt: skip


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lock(name: str) -> dict[str, str]:
    """Canonical package name -> pinned version, for each line of a lock file."""
    pins = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        package, sep, version = line.partition("==")
        assert sep and version, f"{name}: {line!r} is not pinned with =="
        pins[_canonical(package)] = version
    return pins


@functools.cache
def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _declared(group: str) -> list[Requirement]:
    project = _project()
    items = project["dependencies"] if group == "prod" else project["optional-dependencies"][group]
    return [Requirement(item) for item in items]


def _closure(requirements: list[Requirement]) -> set[str]:
    """Every distribution ``requirements`` need, by the installed packages' own metadata."""
    seen: set[tuple[str, frozenset]] = set()
    names: set[str] = set()
    stack = [(req, frozenset()) for req in requirements]
    while stack:
        req, parent_extras = stack.pop()  # the extras asked of the package that requires it
        if req.marker and not any(
            req.marker.evaluate({"extra": extra}) for extra in parent_extras or {""}
        ):
            continue
        name = _canonical(req.name)
        key = (name, frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        names.add(name)
        for line in importlib.metadata.requires(req.name) or []:
            stack.append((Requirement(line), frozenset(req.extras)))
    return names


def test_the_production_lock_is_what_the_declared_dependencies_need():
    prod = _lock("requirements.lock")
    assert set(prod) == _closure(_declared("prod"))


def test_the_production_lock_holds_no_test_load_or_lint_tool():
    prod = _lock("requirements.lock")
    tools = {name for name in prod if name.startswith(TOOLS)}
    assert tools == set()


def test_the_dev_lock_is_the_production_lock_plus_the_dev_tools_at_the_same_versions():
    prod, dev = _lock("requirements.lock"), _lock("requirements-dev.lock")
    differing = {name: (version, dev.get(name)) for name, version in prod.items()}
    assert {name: pair for name, pair in differing.items() if pair[0] != pair[1]} == {}
    dev_group = {_canonical(req.name) for req in _declared("dev")}
    assert dev_group <= set(dev)
    assert set(dev) == _closure(_declared("prod") + _declared("dev"))


def _python_files(*roots: str) -> list[Path]:
    files = []
    for root in roots:
        path = ROOT / root
        files.extend([path] if path.suffix == ".py" else sorted(path.rglob("*.py")))
    return files


#: The first line of an import statement, at any indentation (inside a function too). Ruff's
#: format and its E701/E702 rules put every statement on a line of its own (`make lint`), so no
#: import hides after a ``;`` or a ``:``.
IMPORT_LINE = re.compile(r"[ \t]*(?:from[ \t]+[\w.]+[ \t]+import\b|import[ \t]+\w)")


def _import_statements(text: str):
    """Each import statement of ``text``, parsed by ``ast``: its first line, and the lines after
    it while a parenthesis is open or a line ends with a backslash. A line found in a string,
    such as a docstring's example, counts too (stricter, never laxer). Parsing only these
    statements rather than whole files keeps the walk of 600 files at a tenth of a second."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if not IMPORT_LINE.match(line):
            continue
        statement, code, last = line.strip(), line.split("#")[0], number
        depth = code.count("(") - code.count(")")
        while (depth > 0 or code.rstrip().endswith("\\")) and last + 1 < len(lines):
            last += 1
            code = lines[last].split("#")[0]
            depth += code.count("(") - code.count(")")
            statement += "\n" + lines[last].strip()
        try:
            yield from ast.parse(statement).body
        except SyntaxError:
            continue  # prose in a docstring that begins like an import ("from ... import")


@functools.cache
def _third_party_imports(*roots: str) -> dict[str, set[str]]:
    """Top-level module -> the files that import it, for every third-party import (module
    level or inside a function) of the files under ``roots``."""
    found: dict[str, set[str]] = {}
    for path in _python_files(*roots):
        for node in _import_statements(path.read_text()):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.partition(".")[0]
                if top not in sys.stdlib_module_names and top not in FIRST_PARTY:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def _undeclared(imports: dict[str, set[str]], declared: set[str]) -> dict[str, str]:
    """Each imported module whose distribution is not declared, with where it is imported."""
    distributions = importlib.metadata.packages_distributions()
    problems = {}
    for module, files in sorted(imports.items()):
        if module in OUTSIDE_THE_VENV:
            continue
        providers = {_canonical(name) for name in distributions.get(module, [])}
        if not providers & declared:
            where = ", ".join(sorted(files)[:3])
            problems[module] = f"from {sorted(providers) or 'no installed package'} in {where}"
    return problems


@pytest.fixture(scope="module")
def product_imports():
    return _third_party_imports(*PRODUCT)


def test_every_package_the_product_imports_is_a_production_dependency(product_imports):
    declared = {_canonical(req.name) for req in _declared("prod")}
    # The walk sees the product, imports inside functions too (jsonschema's and kombu's are).
    assert {"django", "numpy", "fontTools", "jsonschema", "kombu"} <= set(product_imports)
    assert _undeclared(product_imports, declared) == {}


def test_every_package_the_tests_import_is_declared():
    declared = {_canonical(req.name) for req in _declared("prod") + _declared("dev")}
    assert _undeclared(_third_party_imports("tests"), declared) == {}


def test_every_declared_package_is_imported_or_said_why_not(product_imports):
    distributions = importlib.metadata.packages_distributions()
    imported = {
        _canonical(name)
        for module in set(product_imports) | set(_third_party_imports("tests"))
        for name in distributions.get(module, [])
    }
    declared = {_canonical(req.name) for req in _declared("prod") + _declared("dev")}
    unused = declared - imported - set(USED_WITHOUT_IMPORT)
    assert unused == set()
    assert set(USED_WITHOUT_IMPORT) <= declared  # no stale reason


def test_the_import_walk_sees_imports_inside_functions(tmp_path, monkeypatch):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os, numpy as np\n"
        "def f():\n"
        "    import yaml\n"
        "    from matplotlib import pyplot  # (plots\n"
        "    from scipy.sparse import (\n"
        "        csr_matrix,  # a comment)\n"
        "    )\n"
        "    from networkx.algorithms import \\\n"
        "        flow\n"
        "    from . import sibling\n"
        "    from planner.domain import spec\n"
        '"""Read from the catalog import files, then more."""\n'
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    imports = _third_party_imports.__wrapped__("probe.py")
    assert set(imports) == {"numpy", "yaml", "matplotlib", "scipy", "networkx"}
    declared = {"pyyaml", "numpy", "scipy", "networkx"}
    assert set(_undeclared(imports, declared)) == {"matplotlib"}  # not a dependency


def _dockerfile_instructions() -> list[tuple[str, str]]:
    """(instruction, arguments) of docker/Dockerfile, continuation lines joined."""
    text = (ROOT / "docker" / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in joined.splitlines()
        if line.strip()
    ]


def _commands(run: str) -> list[list[str]]:
    """The simple commands of a RUN line (split at ``&&``, ``;`` and ``|``)."""
    return [shlex.split(part) for part in re.split(r"&&|;|\|", run) if part.strip()]


def _stages(instructions: list[tuple[str, str]]) -> dict[str, list[tuple[str, str]]]:
    """The Dockerfile's instructions by stage name (``FROM ... AS name``)."""
    stages: dict[str, list[tuple[str, str]]] = {}
    for kind, args in instructions:
        if kind == "FROM":
            name = args.split()[-1]
            # A stage built FROM another starts with that one's instructions.
            stages[name] = list(stages.get(args.split()[0], []))
        stages[name].append((kind, args))
    return stages


def _pip_installs(instructions) -> list[list[str]]:
    commands = [c for kind, args in instructions if kind == "RUN" for c in _commands(args)]
    pip = (["pip", "install"], ["-m", "pip", "install"])
    return [c for c in commands if c[:2] == pip[0] or c[1:4] == pip[1]]


def test_the_image_installs_only_the_production_lock_the_fonts_and_opensm():
    stages = _stages(_dockerfile_instructions())
    runtime = stages["runtime"]  # the image: the last stage
    assert list(stages)[-1] == "runtime"
    copied = [args for kind, args in runtime if kind == "COPY"]
    assert "requirements.lock ./" in copied
    assert _pip_installs(runtime) == [["pip", "install", "-r", "requirements.lock"]]
    assert not any("requirements-dev.lock" in args or "[dev]" in args for _, args in runtime)
    # From the other stages the image takes only built files: the front end and the docs site.
    taken = [args.split()[0] for kind, args in runtime if kind == "COPY" and "--from=" in args]
    assert sorted(taken) == ["--from=docs", "--from=frontend"]
    commands = [c for kind, args in runtime if kind == "RUN" for c in _commands(args)]
    apt = [c for c in commands if c[:2] == ["apt-get", "install"]]
    packages = {word for c in apt for word in c[2:] if not word.startswith("-")}
    # the quote PDF's fonts, and the tools "routed by OpenSM" runs (planner.analyses.opensm)
    assert packages == {face.debian_package for face in FACES} | set(DEBIAN_PACKAGES)
    # The build fails, naming the package, if a font is not where the PDF looks for it.
    assert ["python", "-m", "planner.quotes.fonts"] in commands


def test_the_docs_stage_installs_mkdocs_at_the_dev_locks_versions():
    """The docs site is built with the development lock's mkdocs, never installed in the image."""
    docs = _stages(_dockerfile_instructions())["docs"]
    dev = _lock("requirements-dev.lock")
    extra = [c for c in _pip_installs(docs) if c != ["pip", "install", "-r", "requirements.lock"]]
    assert len(extra) == 1
    pins = dict(word.split("==") for word in extra[0][2:])
    assert "mkdocs" in pins
    lowered = {name.lower().replace("_", "-"): version for name, version in dev.items()}
    assert {n: v for n, v in pins.items() if lowered.get(n.lower().replace("_", "-")) != v} == {}


def test_the_image_leaves_out_the_tests_and_the_dev_lock():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {"tests", ".ci", "requirements-dev.lock", ".venv"} <= set(ignored)


def test_ci_installs_the_font_packages_it_checks_for():
    ci = (ROOT / ".ci" / "run").read_text()
    checked = [
        (path, package)
        for path, package in re.findall(r"\[ -f (\S+) \] \|\| need\+=\(([\w-]+)\)", ci)
        if path.startswith("/usr/share/fonts/")
    ]
    faces = {f"{face.debian_dir}/{face.file_name}": face.debian_package for face in FACES}
    assert checked and all(faces.get(path) == package for path, package in checked)
    assert {package for _, package in checked} == set(faces.values())


def test_make_setup_installs_the_dev_lock_and_checks_the_fonts():
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install --quiet -r requirements-dev.lock" in makefile
    assert re.search(r"^setup: .*\bfonts\b", makefile, re.M)
    assert "-m planner.quotes.fonts" in makefile
