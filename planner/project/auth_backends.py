"""Authentication backends: django-axes' lock-out check in front of the model backend."""

from axes.backends import AxesStandaloneBackend


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' check before the model backend, for logins that come with a request.

    ``authenticate()`` without a request (the test client's ``login()``, scripts) is no web
    login and has no address to count by: it passes on to the next backend instead of failing.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
