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
import threading

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
        load_schema_extensions()
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


_extensions_lock = threading.Lock()
_extensions_loaded = False


def load_schema_extensions() -> None:
    """Resolve every drf-spectacular extension's target class once, in one thread.

    drf-spectacular imports an extension's target (``"dj_rest_auth.views.LoginView"``) the first
    time a schema asks, and sets it to ``None`` when the package is absent. Two threads of a
    threaded server asking at once race on that: one reads the name after the other has set it
    to ``None`` and the request fails with an ``AttributeError`` (a 500 seen on the first API
    requests of a fresh browser test). Called before the first schema work of a process (the
    query-parameter check, the schema view), not at start-up: it costs ~0.4 s of CPU that
    Celery workers and commands need not pay.
    """
    global _extensions_loaded
    if _extensions_loaded:
        return
    with _extensions_lock:
        if _extensions_loaded:
            return
        import drf_spectacular.openapi  # noqa: F401  (registers the contrib extensions)
        from drf_spectacular.plumbing import OpenApiGeneratorExtension

        pending = [OpenApiGeneratorExtension]
        while pending:
            extension = pending.pop()
            pending.extend(extension.__subclasses__())
            if isinstance(extension.__dict__.get("target_class"), str):
                extension._load_class()
        _extensions_loaded = True
