"""MkDocs hooks (mkdocs.yml ``hooks:``): the pages generated from the project's own files.

At each build, before the pages are read, four pages are added that are not in docs/:

- ``reference/spec.md`` from ``planner/domain/design-spec.schema.json``;
- ``reference/api-operations.md`` from the OpenAPI schema (``FABRIC_OPENAPI``, default
  ``.var/openapi.json``, which ``make docs`` writes first; a build without it says so);
- ``benchmarks.md`` from ``make bench``'s results (``FABRIC_BENCH_DIR``, default ``.var/bench``);
- ``changelog.md``: ``docs/CHANGELOG.md``.

Paths are relative to the repository (the parent of docs/). The rendering is in
``docs_render.py`` beside this file, pure and tested without MkDocs.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent))
import docs_render  # noqa: E402  (beside this file; MkDocs loads hooks by path)

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "planner" / "domain" / "design-spec.schema.json"


def _path(variable: str, default: str) -> Path:
    path = Path(os.environ.get(variable, default))
    return path if path.is_absolute() else ROOT / path


def generated_pages() -> dict[str, str]:
    """Each generated page's path in the site and its Markdown."""
    openapi_path = _path("FABRIC_OPENAPI", ".var/openapi.json")
    openapi = json.loads(openapi_path.read_text()) if openapi_path.is_file() else None
    changelog = (ROOT / "docs" / "CHANGELOG.md").read_text(encoding="utf-8")
    return {
        "reference/spec.md": docs_render.spec_reference(json.loads(SCHEMA.read_text())),
        "reference/api-operations.md": docs_render.api_operations(
            openapi,
            source=str(openapi_path.relative_to(ROOT))
            if openapi_path.is_relative_to(ROOT)
            else str(openapi_path),
        ),
        "benchmarks.md": docs_render.benchmarks_page(_path("FABRIC_BENCH_DIR", ".var/bench")),
        "changelog.md": changelog,
    }


def on_files(files, config):
    for path, content in generated_pages().items():
        files.append(File.generated(config, path, content=content))
    return files
