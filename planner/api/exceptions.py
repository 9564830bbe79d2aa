"""One error shape for the whole API.

Django's ``ValidationError`` (raised by ``Model.clean()`` and services) becomes a 400 with
the same field keys as DRF's own validation errors, so forms, API and canvas read one shape.
Domain problems carry ``code``, ``message`` and ``element_ids``. A design spec that cannot be
built (:class:`planner.services.DesignError`) is a 400 ``{"problems": [{field, message}]}``;
an edit based on a stale revision (:class:`planner.services.RevisionConflict`) is a 409.
"""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


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
