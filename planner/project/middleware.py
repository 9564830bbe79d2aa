"""Request middleware shared by every app."""

import logging

from django.contrib.auth import middleware as auth_middleware
from rest_framework.views import APIView

from inventory.library.documents import text_problem
from planner.project.api.exceptions import database_error_status

logger = logging.getLogger(__name__)


class LoginRequiredMiddleware(auth_middleware.LoginRequiredMiddleware):
    """Django's login-required default, leaving REST API views to DRF.

    Every page needs a logged-in session unless its view is marked ``@login_not_required``.
    API views authenticate in DRF (session *or* token), where ``IsAuthenticated`` is the
    default permission and an anonymous request gets 401/403 instead of a login redirect.
    """

    def process_view(self, request, view_func, view_args, view_kwargs):
        view_class = getattr(view_func, "cls", None) or getattr(view_func, "view_class", None)
        if isinstance(view_class, type) and issubclass(view_class, APIView):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)


class RequestTextMiddleware:
    """400 for a query parameter a database cannot store (NUL, lone surrogate), naming it; and
    a plain error page for a database error in a page view, never its text or SQL.

    Query parameters reach filters and searches (``?search=``) before any form could check
    them. Bodies are checked where they are parsed: API JSON by
    :class:`planner.project.api.parsers.LimitedJSONParser`, HTML forms by Django's form fields
    (which
    refuse NUL). API views answer database errors in :mod:`planner.project.api.exceptions`.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        for key, values in request.GET.lists():
            for text in (key, *values):
                if problem := text_problem(text):
                    return self._refuse(request, 400, f"Query parameter {key!r} {problem}.", key)
        return self.get_response(request)

    def process_exception(self, request, exception):
        from django.db import DatabaseError

        if not isinstance(exception, DatabaseError):
            return None
        code, message = database_error_status(exception)
        logger.warning("database error answered %s: %s", code, exception, exc_info=exception)
        response = self._refuse(request, code, message)
        if code == 503:
            response["Retry-After"] = "5"
        return response

    @staticmethod
    def _refuse(request, code: int, message: str, field: str | None = None):
        from django.http import HttpResponse, JsonResponse
        from django.utils.html import escape

        if request.path.startswith("/api/"):
            return JsonResponse({field: [message]} if field else {"detail": message}, status=code)
        page = (
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>Request refused ({code})</title></head><body><h1>Request refused</h1>"
            f"<p>{escape(message)}</p><p><a href='/'>Back to Fabric Planner</a></p></body></html>"
        )
        return HttpResponse(page, status=code, content_type="text/html; charset=utf-8")
