"""The deliberate exceptions to Schemathesis's ``--checks all``, in one place.

The fuzz gate (``test_schema_fuzz.py``) runs every check Schemathesis registers. An OpenAPI
schema describes the *shape* of a request; it cannot say that a manufacturer slug must name a
manufacturer that exists, that 9 servers of 8 GPUs do not fill a scalable unit, or that a
cabling file must describe the design it is uploaded to. Requests that have the right shape
but break such a rule are answered 400 *naming the field or element at fault*, which is the
right answer and not a defect. So:

1. ``positive_data_acceptance`` (ST202, "schema-valid request rejected") tolerates a 400 whose
   body names what was wrong: a DRF field error keyed only by fields of the operation, or by
   paths into them such as ``nodes.4.name`` (sent, or documented as its parameters or body
   properties, e.g. one of two fields that are each
   optional but not both; ``non_field_errors`` for rules that span fields), or the design
   builder's ``problems`` list, each naming its field. A 400 that names nothing (a parse error
   on well-formed input, a bare ``detail``) or names a field the operation does not have
   still fails.

2. ``positive_data_acceptance`` also tolerates a 422 whose body carries a ``code`` and a
   ``detail``: the request was well formed, but the object it names cannot be processed that
   way (an InfiniBand design asked for the Ethernet-only AVD export, a revision whose stored
   topology cannot be read). The schema documents these 422 answers.

Nothing else is excepted: server errors, undocumented status codes or content types, response
bodies that do not match the schema, schema-violating requests that are accepted, ignored
authentication and the rest fail the gate.
"""

from __future__ import annotations

import json

from schemathesis.checks import CHECKS as CHECK_REGISTRY
from schemathesis.checks import load_all_checks
from schemathesis.specs.openapi.checks import positive_data_acceptance

load_all_checks()


def _properties(raw: dict, schema) -> set[str]:
    schema = _resolve_ref(raw, schema)
    if not isinstance(schema, dict):
        return set()
    names = set(schema.get("properties", {}))
    for key in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(key, []):
            names |= _properties(raw, part)
    return names


def _resolve_ref(raw: dict, schema):
    while isinstance(schema, dict) and "$ref" in schema:
        target = raw
        for key in schema["$ref"].lstrip("#/").split("/"):
            target = target[key]
        schema = target
    return schema


def _operation_names(case) -> set[str]:
    """Names of what the operation takes: sent values, documented parameters and body fields."""
    names: set[str] = set()
    for part in (case.body, case.query, case.path_parameters):
        if isinstance(part, dict):
            names.update(str(key) for key in part)
    raw = case.operation.schema.raw_schema
    operation = raw["paths"][case.operation.path][case.operation.method.lower()]
    names.update(p.get("name", "") for p in operation.get("parameters", []))
    for media in operation.get("requestBody", {}).get("content", {}).values():
        names |= _properties(raw, media.get("schema"))
    return names


def error_names_its_cause(response, case) -> bool:
    """Whether a 400's body names the field(s) or element(s) that were wrong."""
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        return False
    if not isinstance(body, dict) or not body:
        return False
    problems = body.get("problems")
    if isinstance(problems, list) and problems:
        return all(isinstance(p, dict) and p.get("field") and p.get("message") for p in problems)
    keys = set(body) - {"detail"}
    if not keys:
        return False
    # A nested field is named by its path from a field of the operation: "nodes.4.name" or
    # "nodes[4]"; a key the request sent is named as sent, even one such as "[" or "a.b".
    names = _operation_names(case) | {"non_field_errors"}
    return all(_path_starts_at_one_of(str(key), names) for key in keys)


def _path_starts_at_one_of(path: str, names: set[str]) -> bool:
    """Whether ``path`` is one of ``names`` or a path into one ("name.3.x", "name[3]").

    >>> names = {"nodes", "a.b", "[", ""}
    >>> paths = ("nodes.4.name", "nodes[4]", "a.b.1", "[.1", "")
    >>> [_path_starts_at_one_of(p, names) for p in paths]
    [True, True, True, True, True]
    >>> [_path_starts_at_one_of(p, names) for p in ("nodesx", "a", "x.nodes")]
    [False, False, False]
    """
    return any(path == name or path.startswith((f"{name}.", f"{name}[")) for name in names)


def refusal_names_its_reason(response) -> bool:
    """Whether a 422's body is a documented refusal: a ``code`` and a ``detail``."""
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        return False
    return isinstance(body, dict) and bool(body.get("code")) and bool(body.get("detail"))


def positive_data_acceptance_with_domain_rules(ctx, response, case):
    """ST202, except for a 400 that names the field at fault or a 422 that names its reason
    (see the module's text)."""
    if response.status_code == 400 and error_names_its_cause(response, case):
        return None
    if response.status_code == 422 and refusal_names_its_reason(response):
        return None
    return positive_data_acceptance(ctx, response, case)


#: Every registered check, with ``positive_data_acceptance`` replaced as explained above.
CHECKS = [
    positive_data_acceptance_with_domain_rules if check is positive_data_acceptance else check
    for check in CHECK_REGISTRY.get_all()
]
