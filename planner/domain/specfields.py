"""The design spec's one definition: dataclass fields that carry their JSON Schema rule.

A field of :class:`planner.domain.spec.DesignSpec` (and of its nested dataclasses) is declared
with :func:`spec_field`: its default, and what the document may hold there (a title that the
forms use as the field's label, units in it; a description, the forms' help text; ranges,
enums, lengths as JSON Schema keywords). :func:`object_rule` turns a dataclass into the JSON
Schema of its mapping: the type from the annotation (``int | None`` -> ``integer``, a nested
dataclass -> its own object), the default from the dataclass, the required keys from the
fields without one. So the spec's types, its validation (the schema) and its form fields
(:mod:`planner.designs.forms`) come from the same declarations.

A block kept as written (``transport``, ``networks``, ``power``, ``campus``) gives its whole
rule in ``rule``; :mod:`planner.domain.spec_blocks` holds those rules.
Nothing here imports Django.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable
from dataclasses import MISSING
from typing import Any

#: The metadata key of a field's definition.
SPEC = "spec"
#: Rule keywords that already say what a value is: no type is added from the annotation.
_SHAPED = frozenset({"type", "enum", "const", "oneOf", "anyOf", "$ref"})
_SCALARS = {int: "integer", float: "number", str: "string", bool: "boolean"}


@dataclasses.dataclass(frozen=True)
class SpecRule:
    """What one dataclass field is in the document.

    Attributes
    ----------
    title : str
        Short name with its unit ("Uplink speed (Gb/s)"): the form field's label.
    description : str
        What the value means and what its absence means: the schema's description, the form
        field's help text.
    rule : dict
        JSON Schema keywords (``minimum``, ``enum``, ``maxLength``, or a whole ``oneOf``).
    group : str or None
        The mapping the key sits in, in the document (``switches`` for ``leaf``), or None:
        at the level of its dataclass.
    """

    title: str = ""
    description: str = ""
    rule: dict = dataclasses.field(default_factory=dict)
    group: str | None = None


def spec_field(
    default: Any = MISSING,
    *,
    default_factory: Any = MISSING,
    title: str = "",
    description: str = "",
    group: str | None = None,
    rule: dict | None = None,
    **keywords: Any,
) -> Any:
    """A dataclass field with its definition in the spec (see :class:`SpecRule`).

    JSON Schema keywords are given by their own names (``minimum=1``, ``exclusiveMinimum=0``,
    ``enum=TOPOLOGIES``); a whole rule (a ``oneOf``) as ``rule``.

    >>> @dataclasses.dataclass
    ... class Box:
    ...     depth_m: float = spec_field(0.5, title="Depth (m)", exclusiveMinimum=0)
    >>> object_rule(Box)["properties"]["depth_m"]
    {'title': 'Depth (m)', 'type': 'number', 'exclusiveMinimum': 0, 'default': 0.5}
    """
    keywords = {
        key: list(value) if isinstance(value, tuple) else value for key, value in keywords.items()
    }
    meta = SpecRule(title, description, {**(rule or {}), **keywords}, group)
    return dataclasses.field(
        default=default, default_factory=default_factory, metadata={SPEC: meta}
    )


def spec_rule(item: dataclasses.Field) -> SpecRule:
    """The definition of a dataclass field declared with :func:`spec_field`."""
    meta = item.metadata.get(SPEC)
    if meta is None:
        raise TypeError(f"{item.name}: a spec field is declared with spec_field()")
    return meta


def type_rule(hint: Any) -> dict:
    """The JSON Schema of a Python annotation: ``int | None`` -> ``{"type": "integer"}``.

    >>> type_rule(int | None), type_rule(float), type_rule(dict[str, int])
    ({'type': 'integer'}, {'type': 'number'}, {'type': 'object'})
    """
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        kinds = [arg for arg in args if arg is not type(None)]
        if len(kinds) != 1:
            raise TypeError(f"{hint}: several types need a rule of their own (oneOf)")
        return type_rule(kinds[0])
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    if dataclasses.is_dataclass(hint):
        return object_rule(hint)
    origin = typing.get_origin(hint) or hint
    if origin is dict:
        return {"type": "object"}
    if origin in (list, tuple):
        return {"type": "array"}
    raise TypeError(f"{hint}: no JSON Schema type")


def _rule_of(item: dataclasses.Field, hint: Any) -> dict:
    meta = spec_rule(item)
    rule: dict = {"title": meta.title} if meta.title else {}
    if not _SHAPED & set(meta.rule):
        rule.update(type_rule(hint))
    rule.update(meta.rule)
    default = item.default  # MISSING: none, or made by a factory
    if default is not MISSING and default is not None and "default" not in rule:
        rule["default"] = default
    if meta.description:
        rule["description"] = meta.description
    return rule


def object_rule(
    cls: type,
    *,
    exclude: Iterable[str] = (),
    groups: dict[str, dict] | None = None,
    required: Iterable[str] | None = None,
    **keywords: Any,
) -> dict:
    """The JSON Schema of the mapping that ``cls`` (a dataclass of spec fields) is read from.

    Parameters
    ----------
    cls : type
        A dataclass whose fields are declared with :func:`spec_field`.
    exclude : iterable of str
        Fields the mapping does not hold (a media choice's ``kind``, said by its shape).
    groups : dict, optional
        Per group (:attr:`SpecRule.group`), the keywords of its own mapping (``required``,
        ``description``); its members are its properties.
    required : iterable of str, optional
        The keys a mapping must give. Default: the fields without a default.
    **keywords
        More keywords of the mapping (``minProperties``, ``description``).
    """
    hints = typing.get_type_hints(cls)
    properties: dict[str, dict] = {}
    members: dict[str, dict[str, dict]] = {}
    for item in dataclasses.fields(cls):
        if item.name in exclude:
            continue
        rule = _rule_of(item, hints[item.name])
        group = spec_rule(item).group
        if group is None:
            properties[item.name] = rule
            continue
        if group not in members:
            members[group] = {}
            properties[group] = {}  # holds its place among the keys
        members[group][item.name] = rule
    for group, inner in members.items():
        properties[group] = {
            "type": "object",
            "additionalProperties": False,
            "properties": inner,
            **(groups or {}).get(group, {}),
        }
    if required is None:
        required = [
            item.name
            for item in dataclasses.fields(cls)
            if item.name not in exclude
            and item.default is MISSING
            and item.default_factory is MISSING
        ]
    out: dict = {"type": "object", "additionalProperties": False}
    if list(required):
        out["required"] = list(required)
    out.update(keywords)
    out["properties"] = properties
    return out


def word_or_mapping(cls: type, word: str, *, in_mapping: bool, **keywords: Any) -> dict:
    """The rule of a value written as one word or as a mapping of ``cls``'s fields (a tier's
    media, ``auto`` or ``{a, b, cable}``; its cabling, ``patch-panel`` or ``{type, ...}``).

    The words are the ``enum`` of field ``word``; ``in_mapping`` says whether the mapping
    holds that field too (and must give it), else it is left out.
    """
    item = next(item for item in dataclasses.fields(cls) if item.name == word)
    words = {"enum": spec_rule(item).rule["enum"]}
    if in_mapping:
        mapping = object_rule(cls, required=[word], **keywords)
    else:
        mapping = object_rule(cls, exclude=[word], **keywords)
    return {"oneOf": [words, mapping]}


def rule_at(schema: dict, path: str) -> dict:
    """The rule of the dotted document ``path`` in ``schema``, or ``{}``: ``$ref`` followed,
    a block written as a word or a mapping (``transport``) read as its mapping, and a key
    of a mapping with free keys (``transport.nics.<NIC>``) read from ``additionalProperties``.

    >>> schema = {"properties": {"media": {"properties": {"x": {"$ref": "#/$defs/m"}}},
    ...     "t": {"oneOf": [{"enum": ["a"]}, {"type": "object", "additionalProperties": {
    ...         "properties": {"p": {"minimum": 0}}}}]}},
    ...     "$defs": {"m": {"enum": ["auto"]}}}
    >>> rule_at(schema, "media.x"), rule_at(schema, "t.any.p"), rule_at(schema, "no.where")
    ({'enum': ['auto']}, {'minimum': 0}, {})
    """
    node = schema
    for key in path.split("."):
        mappings = [branch for branch in node.get("oneOf", ()) if branch.get("type") == "object"]
        holder = mappings[0] if "properties" not in node and mappings else node
        free = holder.get("additionalProperties")
        node = holder.get("properties", {}).get(key) or (free if isinstance(free, dict) else {})
        while "$ref" in node:
            target = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
            node = target | {k: v for k, v in node.items() if k != "$ref"}
    return node
