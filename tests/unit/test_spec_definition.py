"""The spec's one definition (issue 33): the dataclass fields of :mod:`planner.domain.spec`
generate the JSON Schema that validates a document, the stored schema file is that schema,
and the parser takes its defaults from the same declarations."""

import dataclasses
import typing

import pytest
from jsonschema import Draft202012Validator

from planner.domain.spec import SCHEMA_PATH, SpecError, parse_spec, schema_text, spec_schema
from planner.domain.spec_model import DesignSpec, Layout, Naming
from planner.domain.specfields import object_rule, rule_at, spec_field, spec_rule

pytestmark = pytest.mark.unit

MINIMAL = {"name": "x", "topology": "clos", "server": "S", "servers": 4, "switches": {"leaf": "L"}}
#: Nested dataclasses read from a mapping of the document, by its key.
NESTED = {"layout": Layout, "naming": Naming}
JSON_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean"}


def definition_fields() -> list[tuple[str, dataclasses.Field, object]]:
    """Every field of the definition as (document path, field, annotation)."""
    out = []
    for cls, prefix in [(DesignSpec, ""), *((cls, key + ".") for key, cls in NESTED.items())]:
        hints = typing.get_type_hints(cls)
        for item in dataclasses.fields(cls):
            group = spec_rule(item).group
            path = f"{prefix}{group}.{item.name}" if group else prefix + item.name
            out.append((path, item, hints[item.name]))
    return out


def test_the_stored_schema_file_is_the_generated_schema():
    assert SCHEMA_PATH.read_text() == schema_text(), "run: make spec-schema"


def _param_id(value) -> str | None:
    """A test id the same in every pytest-xdist worker: a path or a plain value; objects
    (dataclass fields, types) get pytest's positional id, never a repr with an address."""
    return str(value) if isinstance(value, str | int | float | bool | None) else None


@pytest.mark.parametrize(("path", "item", "hint"), definition_fields(), ids=_param_id)
def test_every_field_is_in_the_schema_with_its_type_and_a_default_it_accepts(path, item, hint):
    rule = rule_at(spec_schema(), path)
    assert rule, f"{path} is not in the schema"
    kinds = [arg for arg in typing.get_args(hint) if arg is not type(None)] or [hint]
    if len(kinds) == 1 and kinds[0] in JSON_TYPES and "type" in rule:
        assert rule["type"] == JSON_TYPES[kinds[0]], path
    if item.default is not dataclasses.MISSING and item.default is not None:
        assert rule["default"] == item.default, path
        branch = {**rule, "$defs": spec_schema()["$defs"]}
        assert Draft202012Validator(branch).is_valid(item.default), path


def test_parse_takes_every_default_from_the_definition():
    spec = parse_spec(MINIMAL)
    for path, item, _ in definition_fields():
        head, _, key = path.partition(".")
        if item.default is dataclasses.MISSING or head in MINIMAL:
            continue
        value = getattr(getattr(spec, head), key) if key else getattr(spec, head)
        assert value == rule_at(spec_schema(), path).get("default", item.default), path


def out_of_range() -> list[tuple[str, object]]:
    """Per field with a range, a value just outside it."""
    cases = []
    for path, _, _ in definition_fields():
        rule = rule_at(spec_schema(), path)
        step = 1 if rule.get("type") == "integer" else 0.5
        if "minimum" in rule:
            cases.append((path, rule["minimum"] - step))
        if "exclusiveMinimum" in rule:
            cases.append((path, rule["exclusiveMinimum"]))
        if "maximum" in rule:
            cases.append((path, rule["maximum"] + step))
    return cases


@pytest.mark.parametrize(("path", "value"), out_of_range(), ids=_param_id)
def test_a_value_outside_a_declared_range_is_refused_naming_its_field(path, value):
    document = {**MINIMAL, "switches": dict(MINIMAL["switches"])}
    head, _, key = path.partition(".")
    if key:
        document[head] = {**document.get(head, {}), key: value}
    else:
        document[head] = value
    with pytest.raises(SpecError) as caught:
        parse_spec(document)
    assert path in [field for field, _ in caught.value.problems]


def test_a_field_without_a_definition_is_refused():
    @dataclasses.dataclass
    class Half:
        given: int = spec_field(1, minimum=0)
        plain: int = 2

    with pytest.raises(TypeError, match="plain"):
        object_rule(Half)
