"""OpenAPI post-processing: the error answers every operation can give.

drf-spectacular documents the success answers a view declares. Every API operation can also
answer 401 (no or a bad token) and 403 (no permission); an operation with a path parameter,
and any paginated list (a page past the end), can answer 404; an operation that reads a body
or parameters can answer 400 with field-keyed errors (see :mod:`planner.project.api.exceptions`),
one that reads a body 415 (a media type it does not parse), and a delete 409 (still in use).
A 400 may come as a view's own shape (``problems``), DRF's field errors or a ``detail``. This
hook adds those answers wherever a view has not documented its own, so that clients and the
schema fuzzing test (tests/api/test_schema_fuzz.py) see the real contract.
"""

from __future__ import annotations

ERROR_DETAIL = "ErrorDetail"
FIELD_ERRORS = "FieldErrors"
ERROR_LIST = "ErrorList"

ERROR_DETAIL_SCHEMA = {
    "type": "object",
    "description": "An error that is not about one field.",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
FIELD_ERRORS_SCHEMA = {
    "type": "object",
    "description": "Errors keyed by the field (or `non_field_errors`) they are about: a message, "
    "a list of messages, or an object for a nested field.",
    "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "array"}, {"type": "object"}]},
}
ERROR_LIST_SCHEMA = {
    "type": "array",
    "description": "Messages about the request as a whole (e.g. a search term DRF refuses).",
    "items": {"type": "string"},
}


def _ref(component: str) -> dict:
    return {"$ref": f"#/components/schemas/{component}"}


def _media_types(operation: dict) -> list[str]:
    """Errors come as JSON, and also as YAML where the operation answers in YAML (DRF renders
    an error with the renderer the request chose; file downloads fall back to JSON)."""
    types = ["application/json"]
    for code, response in operation.get("responses", {}).items():
        if code.startswith("2"):
            types += [t for t in response.get("content", {}) if "yaml" in t and t not in types]
    return types


def _error_schema(code: str, declared: dict | None) -> dict:
    """An error answer's schema: a view's own 400 shape may also come as DRF's field errors
    (the request serializer), a detail (a body that does not parse) or a list of messages."""
    if code != "400":
        return declared or _ref(ERROR_DETAIL)
    shapes = [declared] if declared else []
    return {"anyOf": [*shapes, _ref(FIELD_ERRORS), _ref(ERROR_DETAIL), _ref(ERROR_LIST)]}


def document_error_responses(result, generator, request, public):
    """Document the error answers of every operation (a POSTPROCESSING hook of
    drf-spectacular): 401 and 403 always, 404 with a path parameter or a page, 400 with a body
    or parameters, 415 with a body, 409 on delete. Errors are JSON (or YAML, see
    :func:`_media_types`)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault(ERROR_DETAIL, ERROR_DETAIL_SCHEMA)
    schemas.setdefault(FIELD_ERRORS, FIELD_ERRORS_SCHEMA)
    schemas.setdefault(ERROR_LIST, ERROR_LIST_SCHEMA)
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            parameters = operation.get("parameters", [])
            locations = {parameter.get("in") for parameter in parameters}
            names = {parameter.get("name") for parameter in parameters}
            answers = {
                "401": "Not authenticated (no session and no valid token)",
                "403": "Not allowed to do this",
            }
            if "path" in locations or "page" in names:
                answers["404"] = "No such object you may see (or no such page)"
            if "requestBody" in operation or locations & {"query", "path"}:
                answers["400"] = "The request is invalid"
            if "requestBody" in operation:
                answers["415"] = "The body is not in a media type the operation reads"
            if method == "delete":
                answers["409"] = "Still in use by other objects"
            responses = operation.setdefault("responses", {})
            media_types = _media_types(operation)
            for code, description in answers.items():
                responses.setdefault(code, {"description": description})
            for code, response in responses.items():
                if not code.startswith(("4", "5")):
                    continue
                declared = response.get("content", {}).get("application/json", {}).get("schema")
                schema = _error_schema(code, declared)
                response["content"] = {media_type: {"schema": schema} for media_type in media_types}
    return result


#: Query text as :class:`planner.project.middleware.RequestTextMiddleware` lets it through.
NO_NUL_TEXT = r"^[^\x00]*$"
FORM_MEDIA_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def document_request_media_types(result, generator, request, public):
    """Request bodies as the server reads them (a POSTPROCESSING hook of drf-spectacular).

    DRF parses JSON, form and multipart bodies alike, but a form field is a string: a body
    with a nested object (a design's ``spec``, a topology's ``nodes``, a quote's
    ``discounts_pct``) or a patch that may leave a field out only as JSON says what it holds.
    Such operations document ``application/json`` alone (unless they upload a file, then
    multipart alone); and a partial update (``PATCH``) has a body that names at least one
    field, as the server requires. Query text holds no NUL (a 400 naming the parameter).
    """
    schemas = result.get("components", {}).get("schemas", {})
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if (
                    parameter.get("in") == "query"
                    and schema.get("type") == "string"
                    and ("enum" not in schema)
                ):
                    schema.setdefault("pattern", NO_NUL_TEXT)  # the middleware refuses NUL
            content = operation.get("requestBody", {}).get("content", {})
            body = _resolved(schemas, content.get("application/json", {}).get("schema"))
            if body is None:
                continue
            if method == "patch" and body.get("type") == "object" and body.get("properties"):
                body.setdefault("minProperties", 1)
                operation["requestBody"]["required"] = True
            if (
                "application/json" in content
                and _nests(schemas, body)
                and not _uploads(schemas, content)
            ):
                for media_type in FORM_MEDIA_TYPES:
                    content.pop(media_type, None)
    return result


def _resolved(schemas: dict, schema):
    while isinstance(schema, dict) and "$ref" in schema:
        schema = schemas.get(schema["$ref"].rsplit("/", 1)[-1])
    return schema if isinstance(schema, dict) else None


def _nests(schemas: dict, body: dict) -> bool:
    """Whether a body has a property a form field cannot carry: an object, any JSON value,
    or a list of anything but plain values."""
    for prop in body.get("properties", {}).values():
        prop = _resolved(schemas, prop) or {}
        if prop.get("readOnly"):
            continue
        if prop.get("type") == "array":
            if not _plain(schemas, prop.get("items")):
                return True
        elif not _plain(schemas, prop):
            return True
    return False


SCALAR_TYPES = {"string", "number", "integer", "boolean"}


def _plain(schemas: dict, schema) -> bool:
    """A value a form field carries as text: a scalar, an enum, or a choice of those."""
    schema = _resolved(schemas, schema) or {}
    if "enum" in schema or schema.get("type") in SCALAR_TYPES:
        return True
    parts = [part for key in ("oneOf", "anyOf", "allOf") for part in schema.get(key, [])]
    return bool(parts) and all(_plain(schemas, part) for part in parts)


def _uploads(schemas: dict, content: dict) -> bool:
    body = _resolved(schemas, content.get("multipart/form-data", {}).get("schema")) or {}
    return any(
        (_resolved(schemas, prop) or {}).get("format") == "binary"
        for prop in body.get("properties", {}).values()
    )
