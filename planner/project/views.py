"""Project-level pages: health (for load balancers) and the user's API token."""

from __future__ import annotations

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
    """Report database and broker reachability; 200 when both answer, else 503."""
    checks = {"database": check_database(), "broker": check_broker()}
    healthy = all(check["ok"] for check in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "fail", **checks}, status=200 if healthy else 503
    )


def account_token(request):
    """Show the user's API token, creating it on request (POST rotates it)."""
    from rest_framework.authtoken.models import Token

    if request.method == "POST":
        Token.objects.filter(user=request.user).delete()
        Token.objects.create(user=request.user)
    token = Token.objects.filter(user=request.user).first()
    return render(request, "planner/account_token.html", {"token": token})
