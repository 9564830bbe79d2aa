"""One error shape for the whole API.

Django's ``ValidationError`` (raised by ``Model.clean()`` and services) becomes a 400 with
the same field keys as DRF's own validation errors, so forms, API and canvas read one shape.
Domain problems carry ``code``, ``message`` and ``element_ids``. A design spec that cannot be
built (:class:`planner.designs.services.DesignError`) is a 400 ``{"problems": [{field, message}]}``;
an edit based on a stale revision (:class:`planner.designs.services.RevisionConflict`) is a 409,
and so
is deleting an object that others still use (a manufacturer with parts). A database error
never reaches the client with its text or SQL: a value the database refuses (``DataError``)
is a 400, a constraint it enforces (``IntegrityError``) a 409, anything else (connection lost,
timeout) a 503 with ``Retry-After``; the full error goes to the log.
"""

import logging

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError, DataError, IntegrityError
from django.db.models import ProtectedError, RestrictedError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from planner.designs.services import DesignError, RevisionConflict

logger = logging.getLogger(__name__)


def exception_handler(exc, context):
    """Translate Django validation errors to DRF's before the default handler runs."""
    if isinstance(exc, DesignError):
        # A problem with the document as a whole (not one of its keys) is about the request's
        # ``spec`` field, so every problem names a field.
        problems = [{**p, "field": p.get("field") or "spec"} for p in exc.problems]
        return Response({"problems": problems}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, RevisionConflict):
        return Response(
            {"detail": str(exc), "latest_revision": exc.latest, "changes": exc.changes},
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, ProtectedError | RestrictedError):
        blocking = getattr(exc, "protected_objects", None) or getattr(exc, "restricted_objects", ())
        users = sorted({str(obj) for obj in blocking})
        shown = ", ".join(users[:10]) + (f" and {len(users) - 10} more" if len(users) > 10 else "")
        return Response(
            {"detail": f"Still in use, so it cannot be deleted: {shown}."},
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, DatabaseError):
        return database_error_response(exc)
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            detail = {
                field: [e.message % (e.params or {}) for e in errors]
                for field, errors in exc.error_dict.items()
            }
        else:
            detail = {"non_field_errors": exc.messages}
        exc = exceptions.ValidationError(detail=detail)
    return drf_exception_handler(exc, context)


DATABASE_ERRORS = {
    # class: (status, message); the first match in this order wins
    DataError: (
        status.HTTP_400_BAD_REQUEST,
        "A value in the request cannot be stored (too long, out of range or not valid text).",
    ),
    IntegrityError: (
        status.HTTP_409_CONFLICT,
        "The request conflicts with data already stored (a duplicate or a missing reference).",
    ),
    DatabaseError: (
        status.HTTP_503_SERVICE_UNAVAILABLE,
        "The database is unavailable at the moment; try again shortly.",
    ),
}


def database_error_status(exc: DatabaseError) -> tuple[int, str]:
    """The status and the client's message for a database error (never its text or SQL)."""
    for kind, answer in DATABASE_ERRORS.items():
        if isinstance(exc, kind):
            return answer
    return DATABASE_ERRORS[DatabaseError]


def database_error_response(exc: DatabaseError) -> Response:
    code, message = database_error_status(exc)
    logger.warning("database error answered %s: %s", code, exc, exc_info=exc)
    response = Response({"detail": message}, status=code)
    if code == status.HTTP_503_SERVICE_UNAVAILABLE:
        response["Retry-After"] = "5"
    return response


def not_found(request, exception=None):
    """Django's 404 for a URL no route matches (``handler404``): JSON under ``/api/``, as
    the API's own 404s are (e.g. ``/api/planner/designs/-1/``), the usual page elsewhere."""
    from django.http import JsonResponse
    from django.views.defaults import page_not_found

    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)
    return page_not_found(request, exception)
