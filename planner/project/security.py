"""Request limits, the Content-Security-Policy header, the login lock-out page and a logging
filter that keeps secrets out of logs.

- :class:`RequestSizeLimitMiddleware` refuses a body larger than the limit before anything
  reads it: 413 with the limit named, as JSON for the API and as a page otherwise. Uploads
  (multipart) may be ``REQUEST_MAX_BYTES``; any other body ``DATA_UPLOAD_MAX_MEMORY_SIZE``.
  (Django enforces the latter only for form data it parses itself; DRF reads JSON from the
  stream, so without this a JSON body had no cap.)
- :class:`ContentSecurityPolicyMiddleware` sets ``settings.CONTENT_SECURITY_POLICY``: scripts
  only from this site (no inline script, no ``eval``), styles from this site plus inline
  ``style`` attributes (the pages and Swagger UI use a few), no frames, no plugins.
- :func:`login_locked_out` is django-axes' answer after too many failed logins for one
  username from one address: 429 with ``Retry-After``, a page saying when to try again.
- :class:`RedactSecretsFilter` (on the log handlers) replaces passwords, API tokens, session
  and CSRF cookies and ``Authorization`` headers in log messages with ``[redacted]``.
"""

from __future__ import annotations

import logging
import re

from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render

__all__ = [
    "ContentSecurityPolicyMiddleware",
    "RedactSecretsFilter",
    "RequestSizeLimitMiddleware",
    "login_locked_out",
    "redact",
]


def _wants_json(request) -> bool:
    accept = request.META.get("HTTP_ACCEPT", "")
    return request.path.startswith("/api/") or (
        "application/json" in accept and "text/html" not in accept
    )


def _megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB"


class RequestSizeLimitMiddleware:
    """413 for a request whose ``Content-Length`` is over its limit (see the module)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            size = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            size = 0
        if request.META.get("CONTENT_TYPE", "").startswith("multipart/"):
            limit, name = settings.REQUEST_MAX_BYTES, "REQUEST_MAX_BYTES"
        else:
            limit, name = settings.DATA_UPLOAD_MAX_MEMORY_SIZE, "DATA_UPLOAD_MAX_MEMORY_SIZE"
        if size > limit:
            return self.too_large(request, size=size, limit=limit, name=name)
        return self.get_response(request)

    @staticmethod
    def too_large(request, *, size: int, limit: int, name: str):
        message = (
            f"The request is {size:,} bytes ({_megabytes(size)}); the largest accepted is "
            f"{limit:,} bytes ({_megabytes(limit)}, setting {name})."
        )
        if _wants_json(request):
            body = {"detail": message, "limit_bytes": limit, "setting": name}
            return JsonResponse(body, status=413)
        context = {"message": message, "limit_bytes": limit, "setting": name}
        return render(request, "request_too_large.html", context, status=413)


class ContentSecurityPolicyMiddleware:
    """Set ``Content-Security-Policy`` (``settings.CONTENT_SECURITY_POLICY``) on every
    response that has none yet; an empty setting turns the header off.

    Placed outside the middlewares that may answer early (static files, the size limit), it
    also sets ``X-Frame-Options`` on those answers, which the clickjacking middleware (inner)
    does not see.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.policy = getattr(settings, "CONTENT_SECURITY_POLICY", "")

    def __call__(self, request):
        response = self.get_response(request)
        if self.policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self.policy
        if "X-Frame-Options" not in response and not getattr(
            response, "xframe_options_exempt", False
        ):
            response["X-Frame-Options"] = getattr(settings, "X_FRAME_OPTIONS", "DENY")
        return response


def login_locked_out(request, original_response=None, credentials=None):
    """django-axes' lock-out response: 429 and ``Retry-After`` with a page (or JSON)."""
    from axes.helpers import get_cool_off

    cool_off = get_cool_off(request)
    seconds = int(cool_off.total_seconds()) if cool_off else 0
    minutes = max(1, round(seconds / 60))
    message = (
        f"Too many failed logins for this username from your address: login is locked for "
        f"{minutes} minute{'s' if minutes != 1 else ''} after the last attempt "
        f"({settings.AXES_FAILURE_LIMIT} failures allowed). Try again later, or ask an "
        "administrator to unlock it."
    )
    if _wants_json(request):
        response = JsonResponse({"detail": message, "retry_after_s": seconds}, status=429)
    else:
        response = render(request, "registration/locked_out.html", {"message": message}, status=429)
    if seconds:
        response["Retry-After"] = str(seconds)
    return response


# --- logging --------------------------------------------------------------------------------

REDACTED = "[redacted]"
_PATTERNS = [
    # Authorization: Token <key> / Bearer <key> / Basic <...>
    (re.compile(r"(?i)\b(token|bearer|basic)\s+[A-Za-z0-9+/=._-]{8,}"), r"\1 " + REDACTED),
    # DRF tokens are 40 hex digits, wherever they appear (e.g. in SQL parameters)
    (re.compile(r"\b[0-9a-f]{40}\b"), REDACTED),
    # password=..., "password": "...", 'new_password1': '...', csrf and session values
    (
        re.compile(
            r"(?i)((?:\w*password\w*|passwd|secret|csrfmiddlewaretoken|csrftoken|sessionid|"
            r"api_key|authorization)[\"']?\s*[:=]\s*[\"']?)([^\"'&\s,;)}\]]+)"
        ),
        r"\1" + REDACTED,
    ),
]


def redact(text: str) -> str:
    """``text`` with passwords, tokens, session and CSRF values replaced by ``[redacted]``.

    >>> redact("POST password=hunter2&username=al Authorization: Token 0123456789abcdef0123")
    'POST password=[redacted]&username=al Authorization: [redacted] [redacted]'
    """
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactSecretsFilter(logging.Filter):
    """Rewrite each record's message with :func:`redact` (never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format string is the formatter's to report
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
