"""Untrusted YAML and JSON documents: size, depth and text limits, checked in one place.

Every parser of text a user sends (design specs, catalog files, NetBox device types, the API's
JSON bodies) reads it through :func:`load_json` or :func:`load_yaml`, or checks parsed data
with :func:`check_document`, so that no input can exhaust the parser's recursion or memory, and
no string that a database cannot store (a NUL character, a lone UTF-16 surrogate) gets past
parsing. Problems are :class:`DocumentError` naming the limit and where in the document it was
hit (``servers.0.name``). Pure: no Django, so the spec parser, the catalog reader and the API
parser share it.
"""

from __future__ import annotations

import json
import re

import yaml

#: Deepest nesting of lists and mappings accepted (a spec is ~4 levels deep, a canvas edit ~3).
MAX_DEPTH = 64
#: Largest YAML/JSON text read (the request size limit stops larger bodies before this).
MAX_TEXT_CHARS = 8 * 1024 * 1024
#: Most values a YAML document may expand to through anchors and aliases ("billion laughs").
MAX_YAML_NODES = 2_000_000
#: Longest number literal read (Python refuses integers over 4,300 digits with a ValueError; no
#: quantity the product stores needs more than 20 digits: a 64-bit counter has 20).
MAX_NUMBER_CHARS = 100


class DocumentError(ValueError):
    """A document over a limit or holding text a database cannot store.

    ``code`` is ``too-large``, ``too-deep``, ``too-many-nodes``, ``long-number``,
    ``nul-character`` or ``invalid-unicode``; ``path`` is the dotted path of the element at
    fault ("" = the whole).
    """

    def __init__(self, code: str, message: str, path: str = ""):
        self.code = code
        self.path = path
        super().__init__(message)


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored as text (NUL, lone surrogate), or None.

    Examples
    --------
    >>> text_problem("leaf01"), text_problem("a\\x00b")
    (None, 'contains a NUL character (\\\\u0000)')
    >>> text_problem("\\ud800")
    'is not valid Unicode (a lone surrogate \\\\ud800)'
    """
    if "\x00" in text:
        return "contains a NUL character (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"is not valid Unicode (a lone surrogate \\u{ord(text[exc.start]):04x})"
    return None


def _escaped(text: str) -> str:
    """``text`` with NUL and lone surrogates written as escapes (``\\ud800``): sendable."""
    return text.replace("\x00", "\\u0000").encode("utf-8", "backslashreplace").decode("utf-8")


def _join(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)


def check_document(value, *, max_depth: int = MAX_DEPTH, strings: bool = True) -> None:
    """Check parsed data: nesting at most ``max_depth`` levels, and (``strings``) every key and
    string value storable text. Iterative, so any depth is safe to check.

    Raises
    ------
    DocumentError
        ``too-deep``, ``nul-character`` or ``invalid-unicode``, with the path.

    Examples
    --------
    >>> check_document({"servers": [{"name": "gpu1"}]})
    >>> check_document({"a": [[[]]]}, max_depth=3)
    Traceback (most recent call last):
    ...
    inventory.library.documents.DocumentError: a.0.0: nested deeper than 3 levels
    >>> check_document({"name": "x\\x00"})
    Traceback (most recent call last):
    ...
    inventory.library.documents.DocumentError: name: contains a NUL character (\\u0000)
    """
    if not strings and not _deeper_than(value, max_depth):
        return  # nothing to report: the walk below only names where a limit is passed
    stack = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            if strings and (problem := text_problem(item)):
                code = "nul-character" if "\x00" in item else "invalid-unicode"
                raise DocumentError(code, f"{path or 'value'}: {problem}", path)
            continue
        if isinstance(item, dict):
            children = item.items()
        elif isinstance(item, list | tuple):
            children = enumerate(item)
        else:
            continue
        if depth >= max_depth:
            raise DocumentError(
                "too-deep", f"{path or 'value'}: nested deeper than {max_depth} levels", path
            )
        for key, child in children:
            child_path = _join(path, key)
            if strings and isinstance(key, str) and (problem := text_problem(key)):
                shown = _join(path, _escaped(key))  # the key itself cannot be sent back
                raise DocumentError("invalid-unicode", f"{shown}: key {problem}", path)
            if isinstance(child, str | dict | list | tuple):
                stack.append((child, child_path, depth + 1))


_CONTAINERS = (dict, list, tuple)


def _deeper_than(value, max_depth: int) -> bool:
    """Whether ``value`` has a list or mapping ``max_depth`` levels down (what
    :func:`check_document` refuses), found level by level without building paths: a canvas
    edit of 5,000 elements (~10,000 mappings) in ~10 ms instead of ~100 ms.

    >>> _deeper_than({"a": [[[]]]}, 3), _deeper_than({"a": [[[]]]}, 4), _deeper_than("x", 0)
    (True, False, False)
    """
    level = [value] if isinstance(value, _CONTAINERS) else []
    for _ in range(max_depth):
        if not level:
            return False
        below = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            below.extend([child for child in children if isinstance(child, _CONTAINERS)])
        level = below
    return bool(level)


def _check_size(text: str, max_chars: int) -> None:
    if len(text) > max_chars:
        raise DocumentError(
            "too-large", f"the document is {len(text):,} characters; the limit is {max_chars:,}"
        )


def _long_number(literal: str, where: str = "") -> DocumentError:
    return DocumentError(
        "long-number",
        f"{where + ': ' if where else ''}a number of {len(literal):,} characters "
        f"({literal[:12]}...); the limit is {MAX_NUMBER_CHARS} characters",
    )


def _json_int(literal: str) -> int:
    if len(literal) > MAX_NUMBER_CHARS:
        raise _long_number(literal)
    return int(literal)


def _json_float(literal: str) -> float:
    if len(literal) > MAX_NUMBER_CHARS:
        raise _long_number(literal)
    return float(literal)


#: A JSON escape that can give a string a database cannot store: NUL (``\\u0000``) or a
#: surrogate (``\\ud800``-``\\udfff``). Parsed JSON text can hold neither otherwise (a raw
#: control character is not JSON, a raw surrogate is not UTF-8), so a document whose text has
#: no such escape skips the walk over its strings (a large canvas edit: ~60,000 strings).
_RISKY_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")
_RISKY_ESCAPE_BYTES = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")


def load_json(
    text: str | bytes,
    *,
    max_depth: int = MAX_DEPTH,
    max_chars: int = MAX_TEXT_CHARS,
    parse_constant=None,
):
    """Parse JSON within the limits (size, depth, storable text); ``parse_constant`` as for
    :func:`json.loads` (e.g. to refuse ``NaN``).

    Raises
    ------
    DocumentError
        Over a limit, or a string a database cannot store.
    ValueError
        Not JSON (``json.JSONDecodeError``).

    Examples
    --------
    >>> load_json('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> load_json("[" + "9" * 5000 + "]")
    Traceback (most recent call last):
    ...
    inventory.library.documents.DocumentError: a number of 5,000 characters (999999999999...); \
the limit is 100 characters
    >>> load_json("[" * 100_000 + "]" * 100_000)
    Traceback (most recent call last):
    ...
    inventory.library.documents.DocumentError: the document is nested deeper than 64 levels
    """
    _check_size(text, max_chars)
    try:
        value = json.loads(
            text, parse_constant=parse_constant, parse_int=_json_int, parse_float=_json_float
        )
    except RecursionError:
        raise DocumentError(
            "too-deep", f"the document is nested deeper than {max_depth} levels"
        ) from None
    risky = (_RISKY_ESCAPE_BYTES if isinstance(text, bytes | bytearray) else _RISKY_ESCAPE).search
    check_document(value, max_depth=max_depth, strings=risky(text) is not None)
    return value


#: What a plain YAML scalar read as a number looks like (YAML 1.1 ints and floats, loosely).
_YAML_NUMBER = re.compile(
    r"^[-+]?(0x[0-9a-fA-F_]+|0b[01_]+|[0-9][0-9_:]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?)$"
)


def _scan_yaml(text: str, loader, max_depth: int, max_nodes: int) -> None:
    """Walk the YAML event stream (no recursion, nothing built) and refuse documents nested
    deeper than ``max_depth`` or expanding through aliases to more than ``max_nodes`` values."""
    total = 0
    open_: list[list] = [[0, 0, None]]  # per open collection: [values inside, depth inside, anchor]
    anchors: dict[str, tuple[int, int]] = {}  # anchor -> (values, depth) of what it names
    for event in yaml.parse(text, Loader=loader):
        kind = type(event)
        if kind is yaml.ScalarEvent:
            plain = not event.style  # None (PyYAML) or "" (libyaml)
            if plain and len(event.value) > MAX_NUMBER_CHARS and _YAML_NUMBER.match(event.value):
                line = event.start_mark.line + 1 if event.start_mark else "?"
                raise _long_number(event.value, f"line {line}")
            total += 1
            open_[-1][0] += 1
            continue
        if kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            if len(open_) > max_depth:
                line = event.start_mark.line + 1 if event.start_mark else "?"
                raise DocumentError(
                    "too-deep", f"line {line}: nested deeper than {max_depth} levels"
                )
            total += 1
            open_.append([1, 0, event.anchor])
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            values, depth, anchor = open_.pop()
            if anchor is not None:
                anchors[anchor] = (values, depth + 1)
            open_[-1][0] += values
            open_[-1][1] = max(open_[-1][1], depth + 1)
        elif kind is yaml.AliasEvent:
            values, depth = anchors.get(event.anchor, (1, 0))
            total += values
            open_[-1][0] += values
            open_[-1][1] = max(open_[-1][1], depth)
            if len(open_) - 1 + depth > max_depth:
                raise DocumentError(
                    "too-deep", f"an alias makes the document deeper than {max_depth} levels"
                )
        if total > max_nodes:
            raise DocumentError(
                "too-many-nodes",
                f"the document expands to more than {max_nodes:,} values (anchors and aliases)",
            )


def load_yaml(
    text: str,
    *,
    loader=None,
    max_depth: int = MAX_DEPTH,
    max_chars: int = MAX_TEXT_CHARS,
    max_nodes: int = MAX_YAML_NODES,
):
    """Parse YAML with a safe loader (libyaml's when present) within the limits.

    Raises
    ------
    DocumentError
        Over a limit (a number literal over :data:`MAX_NUMBER_CHARS` included), or a string a
        database cannot store.
    yaml.YAMLError
        Not YAML.

    Examples
    --------
    >>> load_yaml("a: [1, {b: c}]")
    {'a': [1, {'b': 'c'}]}
    >>> load_yaml("[" * 200 + "]" * 200)
    Traceback (most recent call last):
    ...
    inventory.library.documents.DocumentError: line 1: nested deeper than 64 levels
    """
    loader = loader or getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    _check_size(text, max_chars)
    _scan_yaml(text, loader, max_depth, max_nodes)
    try:
        value = yaml.load(text, Loader=loader)  # noqa: S506 (a safe loader)
    except ValueError as exc:  # a value the scan let through that Python cannot convert
        raise DocumentError("long-number", f"a value cannot be read: {exc}"[:200]) from None
    check_document(value, max_depth=max_depth)
    return value


def load_json_or_yaml(text: str):
    """Parse a document written in JSON or YAML, within the limits.

    JSON is YAML, but not quite: YAML reads JSON's ``\\ud83d\\ude00`` escapes as two lone
    surrogates, so text that parses as JSON is read as JSON, anything else as YAML with the
    pure-Python safe loader (its error marks give the line and column).

    Raises
    ------
    DocumentError
        Over a limit, or a string a database cannot store.
    yaml.YAMLError
        Neither JSON nor YAML.

    Examples
    --------
    >>> load_json_or_yaml('{"a": 1}'), load_json_or_yaml("a: 1")
    ({'a': 1}, {'a': 1})
    """
    try:
        return load_json(text)
    except DocumentError:
        raise
    except ValueError:
        return load_yaml(text, loader=yaml.SafeLoader)


__all__ = [
    "MAX_DEPTH",
    "MAX_NUMBER_CHARS",
    "MAX_TEXT_CHARS",
    "MAX_YAML_NODES",
    "DocumentError",
    "check_document",
    "load_json",
    "load_json_or_yaml",
    "load_yaml",
    "text_problem",
]
