"""Markdown pages generated from the project's own files, for the MkDocs site (docs/hooks.py).

Pure functions of their inputs (standard library only), so tests call them without MkDocs:

- ``spec_reference(schema)``: the design spec's fields from its JSON Schema
  (``planner/domain/design-spec.schema.json``, itself generated from ``planner/domain/spec.py``).
- ``api_operations(openapi)``: every operation of the OpenAPI schema (``manage.py spectacular``).
- ``benchmarks_page(bench_dir)``: the newest ``make bench`` results in ``.var/bench/*.json``,
  naming the bench files that are missing and the command that writes each.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

#: What ``make bench`` runs and the file each writes into ``.var/bench/`` (the Makefile's
#: ``bench`` target lists the same modules; tests/unit/test_docs.py checks that they agree).
BENCH_FILES: dict[str, str] = {
    "tests.bench": "results.json",
    "tests.bench_domain": "domain.json",
    "tests.bench_canvas": "canvas.json",
    "tests.bench_load": "load.json",
    "tests.bench_outputs": "outputs.json",
    "tests.bench_flow": "flow.json",
    "tests.bench_sweep": "sweep.json",
    "tests.bench_explore": "explore.json",
    "tests.bench_recovery": "recovery.json",
    "tests.bench_security": "security.json",
    "tests.bench_cluster": "cluster.json",
    "tests.bench_optics": "optics.json",
    "tests.bench_scale": "scale.json",
    "tests.bench_matrix": "generator-matrix.json",
}
#: Rows shown per bench file; a longer result is cut, saying how many rows were left out.
MAX_ROWS = 150
#: Items of a list of numbers shown in one cell.
MAX_LIST = 12

_KEYWORDS_SHOWN = ("minimum", "maximum", "exclusiveMinimum", "minLength", "maxLength", "pattern")


def _cell(text: object) -> str:
    """``text`` safe inside a Markdown table cell (no pipe, no line break)."""
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def _resolve(schema: dict, node: dict) -> dict:
    """``node`` with a local ``$ref`` merged in (the node's own keys win)."""
    ref = node.get("$ref")
    if not ref or not ref.startswith("#/"):
        return node
    target = schema
    for part in ref[2:].split("/"):
        target = target[part]
    merged = dict(_resolve(schema, target))
    merged.update({k: v for k, v in node.items() if k != "$ref"})
    return merged


def _type_text(schema: dict, node: dict) -> str:
    """A short type: ``integer``, ``one of: a, b``, ``object``, ``list of string``..."""
    node = _resolve(schema, node)
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    if "oneOf" in node:
        return " or ".join(_type_text(schema, option) for option in node["oneOf"])
    kind = node.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array" and isinstance(node.get("items"), dict):
        return f"list of {_type_text(schema, node['items'])}"
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        return f"map of {_type_text(schema, node['additionalProperties'])}"
    return kind


def _limits_text(node: dict) -> str:
    parts = []
    for key in _KEYWORDS_SHOWN:
        if key in node:
            parts.append(f"{key} {json.dumps(node[key])}")
    for key in ("minItems", "maxItems", "minProperties", "maxProperties", "multipleOf"):
        if key in node:
            parts.append(f"{key} {node[key]}")
    return ", ".join(parts)


def _rows(schema: dict, properties: dict, required: set, prefix: str, out: list) -> list:
    """Table rows of ``properties`` (dotted names for nested objects), depth first."""
    nested = []
    for name, raw in properties.items():
        node = _resolve(schema, raw)
        path = f"{prefix}{name}"
        default = f"`{json.dumps(node['default'])}`" if "default" in node else ""
        title = node.get("title", "")
        text = node.get("description", "")
        if title and title.lower() != name.replace("_", " ").lower():
            text = f"*{title}.* {text}" if text else f"*{title}.*"
        kind = "; ".join(
            part
            for part in (
                _type_text(schema, node),
                default and f"default {default}",
                _limits_text(node),
            )
            if part
        )
        required_text = " (required)" if name in required else ""
        out.append(f"| `{path}`{required_text} | {_cell(kind)} | {_cell(text)} |")
        if node.get("type") == "object" and node.get("properties"):
            nested.append((path, node))
    for path, node in nested:
        _rows(schema, node["properties"], set(node.get("required", [])), f"{path}.", out)
    return out


def spec_reference(schema: dict) -> str:
    """The design spec's reference page: one row per field, nested blocks under dotted names.

    >>> page = spec_reference({"title": "T", "description": "D", "required": ["a"],
    ...     "properties": {"a": {"type": "integer", "minimum": 1, "description": "Count."},
    ...                    "b": {"type": "object", "properties": {"c": {"enum": ["x", "y"]}}}}})
    >>> "| `a` (required) | integer; minimum 1 | Count. |" in page
    True
    >>> "| `b.c` | one of `x`, `y` |" in page
    True
    """
    header = [
        f"# Spec reference: {schema.get('title', 'design spec')}",
        "",
        "*Generated from `planner/domain/design-spec.schema.json` when this site is built "
        "(`make spec-schema` writes that file from `planner/domain/spec.py`); do not edit.*",
        "",
        schema.get("description", ""),
        "",
        "Fields of nested blocks are named with dots (`networks.storage.leaf` is `leaf` inside "
        "`storage` inside `networks`). See [Designs as code](specs.md) for worked examples.",
        "",
        "| Field | Type; default; limits | Description |",
        "|---|---|---|",
    ]
    rows = _rows(schema, schema.get("properties", {}), set(schema.get("required", [])), "", [])
    return "\n".join(header + rows) + "\n"


def _first_sentence(text: str, limit: int = 160) -> str:
    """The first sentence of ``text`` on one line, cut at ``limit`` characters.

    >>> _first_sentence("Cables in the catalog. Parts of one\\ncategory.")
    'Cables in the catalog.'
    """
    text = " ".join(text.split())
    end = text.find(". ")
    sentence = text if end < 0 else text[: end + 1]
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


def api_operations(openapi: dict | None, *, source: str = ".var/openapi.json") -> str:
    """Every operation of the OpenAPI schema, by path and method, with its summary.

    >>> page = api_operations({"info": {"title": "X", "version": "1"}, "paths": {
    ...     "/api/a/": {"get": {"operationId": "a_list", "summary": "List a", "tags": ["a"]}}}})
    >>> "| `/api/a/` | GET | List a |" in page
    True
    >>> "not generated" in api_operations(None)
    True
    """
    lines = [
        "# API operations",
        "",
        "*Generated from the OpenAPI schema when this site is built; the running app serves the "
        "same schema at `/api/schema/` and Swagger UI at `/api/docs/`.*",
        "",
    ]
    if openapi is None:
        lines += [
            f"The OpenAPI schema was not generated before this build (`{source}` is missing). "
            "`make docs` writes it with `python manage.py spectacular --format openapi-json "
            f"--file {source}`; the running app serves it at `/api/schema/`.",
            "",
        ]
        return "\n".join(lines)
    info = openapi.get("info", {})
    methods = ("get", "post", "put", "patch", "delete")
    by_tag: dict[str, list[str]] = {}
    count = 0
    for path, item in sorted(openapi.get("paths", {}).items()):
        for method in methods:
            operation = item.get(method)
            if operation is None:
                continue
            count += 1
            tag = (operation.get("tags") or ["other"])[0]
            summary = _first_sentence(operation.get("summary") or operation.get("description", ""))
            by_tag.setdefault(tag, []).append(
                f"| `{_cell(path)}` | {method.upper()} | {_cell(summary)} |"
            )
    lines += [
        f"{info.get('title', 'API')}, version {info.get('version', '?')}: {count} operations "
        f"on {len(openapi.get('paths', {}))} paths.",
        "",
    ]
    for tag in sorted(by_tag):
        lines += [f"## {tag}", "", "| Path | Method | Summary |", "|---|---|---|"]
        lines += by_tag[tag] + [""]
    return "\n".join(lines)


def _flatten(value: object, prefix: str, out: list[tuple[str, str]]) -> None:
    """``(dotted key, value)`` rows of a JSON value; short lists of scalars stay in one cell."""
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        shown = ", ".join(json.dumps(v) for v in value[:MAX_LIST])
        more = f", … ({len(value)} in all)" if len(value) > MAX_LIST else ""
        out.append((prefix, f"[{shown}{more}]"))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _flatten(item, f"{prefix}[{index}]", out)
    else:
        out.append((prefix, json.dumps(value)))


def _records(value: object) -> list[str] | None:
    """The columns of ``value`` when it is a table: a dict (2 or more entries) of dicts whose
    values are all scalars, such as ``{"design page": {"p50_ms": 34, ...}, ...}``; else None."""
    if not isinstance(value, dict) or len(value) < 2:
        return None
    columns: list[str] = []
    for record in value.values():
        if not isinstance(record, dict) or not record:
            return None
        if any(isinstance(v, dict | list) for v in record.values()):
            return None
        columns += [c for c in record if c not in columns]
    return columns


def bench_section(name: str, data: object, *, measured: str) -> str:
    """One bench file: its values (keys carry their units: ``_s``, ``_ms``...) as a table, and
    each group of like records (per request kind, per size...) as a table of its own.

    >>> print(bench_section("x.json", {"a_s": 1.5, "k": {"p": {"n": 1}, "q": {"n": 2}}},
    ...                     measured="2026-12-07"))
    ## x.json
    <BLANKLINE>
    Written 2026-12-07.
    <BLANKLINE>
    | Value | Result |
    |---|---|
    | `a_s` | 1.5 |
    <BLANKLINE>
    ### k
    <BLANKLINE>
    | k | `n` |
    |---|---|
    | p | 1 |
    | q | 2 |
    <BLANKLINE>
    """
    rows: list[tuple[str, str]] = []
    tables: list[tuple[str, dict, list[str]]] = []
    items = data.items() if isinstance(data, dict) else [("value", data)]
    for key, value in items:
        columns = _records(value)
        if columns is not None:
            tables.append((str(key), value, columns))
        else:
            _flatten(value, str(key), rows)
    lines = [f"## {name}", "", f"Written {measured}.", ""]
    if rows:
        lines += ["| Value | Result |", "|---|---|"]
        lines += [f"| `{_cell(key)}` | {_cell(text)} |" for key, text in rows[:MAX_ROWS]]
        if len(rows) > MAX_ROWS:
            lines += ["", f"*{len(rows) - MAX_ROWS} more values in the file.*"]
        lines.append("")
    for key, value, columns in tables:
        lines += [f"### {_cell(key)}", ""]
        lines.append(f"| {_cell(key)} | " + " | ".join(f"`{_cell(c)}`" for c in columns) + " |")
        lines.append("|---" * (len(columns) + 1) + "|")
        for label, record in list(value.items())[:MAX_ROWS]:
            cells = [_cell(json.dumps(record[c])) if c in record else "" for c in columns]
            lines.append(f"| {_cell(label)} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def benchmarks_page(bench_dir: Path) -> str:
    """The Benchmarks page: each ``make bench`` result present, and which are missing."""
    bench_dir = Path(bench_dir)
    found = sorted(bench_dir.glob("*.json")) if bench_dir.is_dir() else []
    missing = [
        (module, name)
        for module, name in BENCH_FILES.items()
        if name not in {p.name for p in found}
    ]
    lines = [
        "# Benchmarks",
        "",
        f"*Generated from the `make bench` results in `{bench_dir.name}/` of the machine that "
        "built this site; the dated measurements and what changed them are in the "
        "[benchmark history](benchmarks-history.md).*",
        "",
        "`make bench` runs each bench below in turn and writes its results into `.var/bench/`; "
        "`python -m MODULE` runs one. Timings depend on the machine and its load: each file "
        "records what it measured on (load averages, database, cores) where the bench knows.",
        "",
    ]
    if missing:
        lines += [
            f"**Missing here ({len(missing)} of {len(BENCH_FILES)}):** no result file yet for",
            "",
            *(f"- `{name}`: run `python -m {module}`" for module, name in missing),
            "",
        ]
    else:
        lines += [f"All {len(BENCH_FILES)} bench results are present.", ""]
    for path in found:
        measured = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).strftime(
            "%Y-%m-%d %H:%M UTC"
        )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            lines += [f"## {path.name}", "", f"Not readable as JSON ({error}).", ""]
            continue
        lines.append(bench_section(path.name, data, measured=measured))
    return "\n".join(lines)
