"""Provenance of catalog values: which document says so, and how firmly.

In a catalog file a value is either plain (it inherits the entry's default ``source``) or a
wrapper ``{value, source?, grade?, note?, alternatives?}``. :func:`split_provenance` separates
the plain data from a flat provenance map keyed by dotted paths (``cage_groups.0.top``), which
is what the database stores beside the values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inventory.library.vocab import GRADES, values

WRAPPER_KEYS = {"value", "source", "grade", "note", "alternatives"}
ENTRY_KEYS = {"sources", "source"}
VALID_GRADES = values(GRADES)


class ProvenanceError(ValueError):
    """A catalog entry names a source it does not define, or an unknown grade."""

    def __init__(self, message: str, *, field: str):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Provenance:
    """Where one value comes from."""

    source: str | None
    grade: str
    note: str = ""
    alternatives: tuple = ()


def is_wrapper(value: Any) -> bool:
    """True for a provenance wrapper ``{value: ..., ...}``.

    Examples
    --------
    >>> is_wrapper({"value": 3, "grade": "inferred"})
    True
    >>> is_wrapper({"count": 3})
    False
    """
    return isinstance(value, dict) and "value" in value and set(value) <= WRAPPER_KEYS


def split_provenance(entry: dict) -> tuple[dict, dict[str, dict]]:
    """Split a catalog entry into plain values and a provenance map.

    Parameters
    ----------
    entry : dict
        One part as written in a catalog file, with ``sources`` (key -> {url, grade, ...})
        and a default ``source`` key.

    Returns
    -------
    values : dict
        The entry with every wrapper replaced by its value (``sources`` kept, ``source``
        dropped).
    provenance : dict
        ``{dotted.path: {"source", "grade", "note"?, "alternatives"?}}`` for every spec value.

    Raises
    ------
    ProvenanceError
        A wrapper names a source missing from ``sources``, or a grade outside the vocabulary.

    Examples
    --------
    >>> entry = {"slug": "X", "sources": {"ds": {"url": "https://x", "grade": "datasheet"}},
    ...          "source": "ds", "rack_units": 1,
    ...          "power_max_w": {"value": 900, "grade": "estimate", "note": "guess"}}
    >>> plain, prov = split_provenance(entry)
    >>> plain["power_max_w"], prov["rack_units"]["grade"], prov["power_max_w"]["grade"]
    (900, 'datasheet', 'estimate')

    Long because: its three nested helpers walk one entry's nested values and share the path and
    provenance map they fill.
    """
    sources = entry.get("sources") or {}
    if not isinstance(sources, dict):
        raise ProvenanceError("sources must map source keys to {url, grade}", field="sources")
    for key, source in sources.items():
        if not isinstance(source, dict) or not _is_grade(source.get("grade")):
            raise ProvenanceError(
                f"source {key!r} needs a grade out of {sorted(VALID_GRADES)}",
                field=f"sources.{key}",
            )
    default = entry.get("source")
    if default is not None and not _is_source(default, sources):
        raise ProvenanceError(
            f"default source {default!r} is not defined in sources", field="source"
        )
    provenance: dict[str, dict] = {}

    def describe(path: str, source_key, grade, note="", alternatives=None) -> dict:
        if source_key is not None and not _is_source(source_key, sources):
            raise ProvenanceError(
                f"{path}: source {source_key!r} is not defined in sources", field=path
            )
        if grade is None:
            grade = sources[source_key]["grade"] if source_key else None
        if grade is None:
            raise ProvenanceError(f"{path}: no source and no grade", field=path)
        if not _is_grade(grade):
            raise ProvenanceError(f"{path}: unknown grade {grade!r}", field=path)
        record = {"source": source_key, "grade": grade}
        if note:
            record["note"] = str(note)
        if alternatives:
            if not isinstance(alternatives, list) or not all(
                isinstance(alt, dict)
                and (alt.get("source") is None or _is_source(alt["source"], sources))
                for alt in alternatives
            ):
                raise ProvenanceError(
                    f"{path}: alternatives are a list of {{value, source?}} (defined sources)",
                    field=path,
                )
            record["alternatives"] = [
                {
                    **alt,
                    "grade": alt.get("grade") or sources.get(alt.get("source"), {}).get("grade"),
                }
                for alt in alternatives
            ]
        return record

    def walk(value, path: str, inherited_source):
        if is_wrapper(value):
            source_key = value.get("source", inherited_source)
            provenance[path] = describe(
                path,
                source_key,
                value.get("grade"),
                value.get("note", ""),
                value.get("alternatives"),
            )
            return walk_plain(value["value"], path, source_key, recorded=True)
        return walk_plain(value, path, inherited_source, recorded=False)

    def walk_plain(value, path, source_key, recorded):
        if isinstance(value, dict):
            local_source = value.get("source", source_key)
            if not recorded and (local_source or value.get("grade")):
                provenance[path] = describe(path, local_source, value.get("grade"))
            out = {}
            for key, item in value.items():
                if key in {"source", "grade"} and not is_wrapper(item):
                    continue  # an item's own provenance keys, handled below
                out[key] = walk(item, f"{path}.{key}", local_source)
            return out
        if isinstance(value, list):
            if not recorded and source_key:
                provenance[path] = describe(path, source_key, None)
            return [walk(item, f"{path}.{index}", source_key) for index, item in enumerate(value)]
        if not recorded and value is not None:
            if source_key is None:
                raise ProvenanceError(
                    f"{path}: value has no source (set a default 'source')", field=path
                )
            provenance[path] = describe(path, source_key, None)
        return value

    plain: dict = {}
    for key, value in entry.items():
        if key in ENTRY_KEYS:
            continue
        if key in IDENTITY_KEYS:
            plain[key] = value
            continue
        plain[key] = walk(value, key, default)
    plain["sources"] = sources
    return plain, _compact(provenance)


def _is_grade(grade) -> bool:
    return isinstance(grade, str) and grade in VALID_GRADES


def _is_source(key, sources: dict) -> bool:
    """Whether ``key`` names a source of ``sources`` (a key from a file may be any value)."""
    return isinstance(key, str) and key in sources


IDENTITY_KEYS = {
    "slug",
    "name",
    "manufacturer",
    "part_number",
    "aliases",
    "lifecycle",
    "description",
    "notes",
}


def _compact(provenance: dict[str, dict]) -> dict[str, dict]:
    """Drop per-item records that merely repeat their parent's provenance."""
    compact = {}
    for path, record in sorted(provenance.items()):
        parent = path.rsplit(".", 1)[0] if "." in path else None
        while parent is not None and parent not in compact:
            parent = parent.rsplit(".", 1)[0] if "." in parent else None
        if parent is not None and compact[parent] == record:
            continue
        compact[path] = record
    return compact


def provenance_for(provenance: dict[str, dict], path: str) -> dict | None:
    """The record that applies to ``path``: its own, or the nearest parent's.

    Examples
    --------
    >>> provenance_for({"cage_groups": {"grade": "secondary"}}, "cage_groups.0.top")
    {'grade': 'secondary'}
    """
    while True:
        if path in provenance:
            return provenance[path]
        if "." not in path:
            return None
        path = path.rsplit(".", 1)[0]
