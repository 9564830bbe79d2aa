"""One error shape for the whole API.

Django's ``ValidationError`` (raised by ``Model.clean()`` and services) becomes a 400 with
the same field keys as DRF's own validation errors, so forms, API and canvas read one shape.
Domain problems carry ``code``, ``message`` and ``element_ids``. A design spec that cannot be
built (:class:`planner.services.DesignError`) is a 400 ``{"problems": [{field, message}]}``;
an edit based on a stale revision (:class:`planner.services.RevisionConflict`) is a 409, and so
is deleting an object that others still use (a manufacturer with parts). A value the
database refuses (``DataError``: a NUL character on PostgreSQL) is a 400.
"""

import logging

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError
from django.db.models import ProtectedError, RestrictedError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)


def exception_handler(exc, context):
    """Translate Django validation errors to DRF's before the default handler runs."""
    from planner.services import DesignError, RevisionConflict

    if isinstance(exc, DesignError):
        return Response({"problems": exc.problems}, status=status.HTTP_400_BAD_REQUEST)
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
    if isinstance(exc, DataError):
        # The database refused a value that came with the request and that no validation
        # caught, e.g. a NUL character in a slug looked up on PostgreSQL: the request's fault.
        logger.warning("database refused a request value: %s", exc, exc_info=True)
        return Response(
            {"detail": f"A value in the request cannot be used: {str(exc).strip()}"},
            status=status.HTTP_400_BAD_REQUEST,
        )
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


def not_found(request, exception=None):
    """Django's 404 for a URL no route matches (``handler404``): JSON under ``/api/``, as
    the API's own 404s are (e.g. ``/api/planner/designs/-1/``), the usual page elsewhere."""
    from django.http import JsonResponse
    from django.views.defaults import page_not_found

    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)
    return page_not_found(request, exception)
