"""Project-level pages: health (for load balancers) and the user's API token."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from planner.project.health import check_broker, check_database


@login_not_required
@never_cache
@require_GET
def healthz(request):
    """Whether the database and the broker answer: 200 ``{"status": "ok"}``, else 503
    ``{"status": "fail"}``.

    Only staff, or a request with ``Authorization: Bearer <HEALTHZ_TOKEN>``, also get each
    check's details (database vendor, latencies, the broker's error); to anyone else the
    service's internals are none of their business.
    """
    checks = {"database": check_database(), "broker": check_broker()}
    healthy = all(check["ok"] for check in checks.values())
    body = {"status": "ok" if healthy else "fail"}
    if _may_see_health_details(request):
        body.update(checks)
    return JsonResponse(body, status=200 if healthy else 503)


def _may_see_health_details(request) -> bool:
    """Staff, or the bearer of ``settings.HEALTHZ_TOKEN`` (none set: staff only)."""
    if getattr(request.user, "is_staff", False):
        return True
    token = settings.HEALTHZ_TOKEN
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return bool(token) and scheme.lower() == "bearer" and hmac.compare_digest(given, token)


def account_token(request):
    """Show the user's API token, creating it on request (POST rotates it)."""
    from rest_framework.authtoken.models import Token

    if request.method == "POST":
        Token.objects.filter(user=request.user).delete()
        Token.objects.create(user=request.user)
    token = Token.objects.filter(user=request.user).first()
    return render(request, "planner/account_token.html", {"token": token})
