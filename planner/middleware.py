"""Request middleware shared by every app."""

from django.contrib.auth import middleware as auth_middleware
from rest_framework.views import APIView


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
