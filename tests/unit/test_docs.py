"""The docs a newcomer reads (issue 35 item 3): a short README whose commands and links exist,
small screenshots, and the generated pages of the MkDocs site (docs/docs_render.py)."""

from __future__ import annotations

import doctest
import importlib.util
import json
import re
from pathlib import Path

import pytest
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SCHEMA = ROOT / "planner" / "domain" / "design-spec.schema.json"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def render():
    return _load("docs_render")


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z][\w-]*):", text, re.M))


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def test_readme_is_under_10_kb():
    assert README.stat().st_size < 10 * 1024, f"README.md is {README.stat().st_size} bytes"


def test_readme_keeps_the_quick_start_exactly():
    block = re.search(r"## Quick start\n\n.*?```sh\n(.*?)```", _readme(), re.S).group(1)
    assert [line.split()[:2] for line in block.splitlines() if line.startswith("make")] == [
        ["make", "run"],
        ["make", "test"],
    ]


def test_every_make_target_the_readme_names_exists():
    named = set(re.findall(r"(?:`|^)make (\w[\w-]*)", _readme(), re.M))
    assert {"run", "test", "docs", "bench", "lint"} <= named
    assert named <= _make_targets(), named - _make_targets()


def test_every_command_the_readme_names_exists():
    text = _readme()
    commands = set(re.findall(r"manage\.py (\w+)", text))
    assert "fabric" in commands
    assert commands <= set(get_commands()), commands - set(get_commands())
    for path in re.findall(r"manage\.py \w+ \w+ ([\w/.-]+\.ya?ml)", text):
        assert (ROOT / path).is_file(), path


def test_every_link_and_image_of_the_readme_exists():
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _readme())
    local = [t for t in targets if not re.match(r"https?://", t)]
    assert any(t.startswith("docs/pages/img/") for t in local)
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, missing


def test_screenshots_are_small_pngs_and_each_is_shown():
    images = sorted((DOCS / "pages" / "img").glob("*"))
    assert len(images) >= 6
    pages = _readme() + "".join(p.read_text() for p in DOCS.rglob("*.md"))
    for image in images:
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", image.name
        assert image.stat().st_size < 150 * 1024, f"{image.name}: {image.stat().st_size} bytes"
        assert f"img/{image.name}" in pages, f"{image.name} is shown on no page"


def test_bench_files_are_what_make_bench_runs(render):
    recipe = re.search(r"^bench:.*?\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    modules = re.findall(r"-m (tests\.\w+)", recipe.group(1))
    assert modules == list(render.BENCH_FILES)
    for module, name in render.BENCH_FILES.items():
        source = (ROOT / (module.replace(".", "/") + ".py")).read_text()
        assert name in source, f"{module} does not write {name}"


def test_renderers_doctests(render):
    result = doctest.testmod(render, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5 and result.failed == 0


def _field_paths(node: dict, schema: dict, prefix: str = "") -> list[str]:
    paths = []
    for name, raw in node.get("properties", {}).items():
        child = raw
        if "$ref" in raw:
            child = {**schema["$defs"][raw["$ref"].rsplit("/", 1)[1]], **raw}
        paths.append(prefix + name)
        if child.get("type") == "object":
            paths += _field_paths(child, schema, f"{prefix}{name}.")
    return paths


def test_spec_reference_has_a_row_for_every_field_of_the_schema(render):
    schema = json.loads(SCHEMA.read_text())
    page = render.spec_reference(schema)
    paths = _field_paths(schema, schema)
    assert len(paths) > 100  # the nested blocks too (networks, transport, cabling, campus...)
    missing = [p for p in paths if f"| `{p}`" not in page]
    assert not missing, missing
    assert "| `topology` (required) | one of `rail-optimized`, `clos`, `fat-tree` |" in page


def test_benchmarks_page_shows_results_and_names_the_missing_files(render, tmp_path):
    (tmp_path / "recovery.json").write_text(
        json.dumps({"worker_kill": {"seconds_kill_to_finished": 5.03, "attempts": 2}})
    )
    kinds = {"design page": {"p50_ms": 34}, "summary": {"p50_ms": 12}}
    (tmp_path / "load.json").write_text(json.dumps({"users": 50, "kinds": kinds}))
    page = render.benchmarks_page(tmp_path)
    total = len(render.BENCH_FILES)
    assert f"**Missing here ({total - 2} of {total}):**" in page
    assert "- `scale.json`: run `python -m tests.bench_scale`" in page
    assert "- `load.json`" not in page
    assert "| `worker_kill.seconds_kill_to_finished` | 5.03 |" in page
    assert "| design page | 34 |" in page and "| `users` | 50 |" in page


def test_benchmarks_page_without_results_lists_every_bench(render, tmp_path):
    page = render.benchmarks_page(tmp_path / "absent")
    total = len(render.BENCH_FILES)
    assert f"**Missing here ({total} of {total}):**" in page
    assert page.count("run `python -m tests.bench") == len(render.BENCH_FILES)


def test_api_operations_lists_every_operation(render):
    openapi = {
        "info": {"title": "Fabric Planner API", "version": "1"},
        "paths": {
            "/api/x/": {
                "get": {"tags": ["x"], "description": "List x. More words."},
                "post": {"tags": ["x"], "summary": "Create | an x"},
            },
            "/api/y/{id}/": {"delete": {"tags": ["y"], "description": "Delete a y."}},
        },
    }
    page = render.api_operations(openapi)
    assert "3 operations on 2 paths" in page
    assert "| `/api/x/` | GET | List x. |" in page
    assert "| `/api/x/` | POST | Create \\| an x |" in page  # a pipe cannot break the table
    assert "## y" in page and "| `/api/y/{id}/` | DELETE | Delete a y. |" in page
