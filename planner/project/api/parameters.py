"""Unknown query parameters are a 400 naming them, on every API operation.

A client that misspells a filter (``?book=team-a-book`` where the filter is ``book__slug``)
would otherwise get every row back without a word. What an operation accepts is what the
OpenAPI schema documents for it (its filterset, search, ordering and paging parameters and
the ``extend_schema`` parameters of views that read their own): drf-spectacular computes the
operation once per process and view, exactly as ``/api/schema/`` publishes it, so the
schema and the server cannot disagree and no view keeps a list of its own.

The check is a permission class in ``DEFAULT_PERMISSION_CLASSES`` (after ``IsAuthenticated``:
an anonymous request is still a 401), so it runs in every API view before the view's code;
views with their own ``permission_classes`` add theirs to the defaults
(``[*api_settings.DEFAULT_PERMISSION_CLASSES, CanEditCatalog]``).
"""

from __future__ import annotations

import functools

from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.settings import api_settings

#: Parameters DRF itself reads on every view (``?format=json`` picks the renderer).
ALWAYS_ACCEPTED = frozenset({api_settings.URL_FORMAT_OVERRIDE} - {None})


class KnownQueryParameters(BasePermission):
    """Refuse a request whose query string names a parameter its operation does not document:
    400 ``{name: ["Unknown parameter; this operation accepts a, b."]}`` for each."""

    def has_permission(self, request, view) -> bool:
        if not request.query_params:
            return True
        match = getattr(request._request, "resolver_match", None)
        if match is None:
            return True
        accepted = accepted_query_parameters(match.func, request.method)
        if accepted is None:  # not in the schema (the schema views themselves)
            return True
        unknown = sorted(set(request.query_params) - accepted - ALWAYS_ACCEPTED)
        if unknown:
            known = ", ".join(sorted(accepted)) or "none"
            message = f"Unknown parameter; this operation accepts: {known}."
            raise ValidationError({name: [message] for name in unknown})
        return True


@functools.cache
def accepted_query_parameters(callback, method: str) -> frozenset[str] | None:
    """The query parameters the OpenAPI schema documents for ``callback`` (a URL pattern's
    view function) and ``method``; None when the operation is not in the schema."""
    endpoint = _endpoints().get((callback, method.upper()))
    if endpoint is None:
        return None
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.settings import spectacular_settings

    path, path_regex = endpoint
    generator = SchemaGenerator()
    view = generator.create_view(callback, method.upper())
    view.request = spectacular_settings.GET_MOCK_REQUEST(method.upper(), path, view, None)
    operation = view.schema.get_operation(
        generator.coerce_path(path, method, view), path_regex, "^/api/", method, generator.registry
    )
    if not operation:
        return None
    return frozenset(
        parameter["name"]
        for parameter in operation.get("parameters", [])
        if parameter.get("in") == "query"
    )


@functools.cache
def _endpoints() -> dict:
    """``(callback, METHOD) -> (path, path_regex)`` for every API operation, as the schema
    generator enumerates them."""
    from drf_spectacular.generators import EndpointEnumerator

    return {
        (callback, method.upper()): (path, path_regex)
        for path, path_regex, method, callback in EndpointEnumerator().get_api_endpoints()
    }
