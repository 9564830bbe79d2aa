"""The audit log page (``/audit/``) and the filters it shares with the API.

Who reads which events is decided by :func:`planner.audit.audit_events_for`.
"""

from __future__ import annotations

import django_filters
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from planner.audit import audit_events_for, audit_teams_for
from planner.models import AuditActionChoices, AuditEvent

PAGE_SIZE = 50


class AuditEventFilterSet(django_filters.FilterSet):
    """Filter events by design id, action, team slug and actor username."""

    design = django_filters.NumberFilter(field_name="design_ref", label="Design id")
    action = django_filters.ChoiceFilter(choices=AuditActionChoices.choices)
    team = django_filters.CharFilter(field_name="team__slug", label="Team (slug)")
    actor = django_filters.CharFilter(field_name="actor__username", label="User")

    class Meta:
        model = AuditEvent
        fields = ["design", "action", "team", "actor"]


@require_GET
def audit_list(request):
    """Audit events the user may read (their teams' if they own one), newest first."""
    events = audit_events_for(request.user)
    filters = AuditEventFilterSet(request.GET, queryset=events)
    rows = filters.qs if filters.is_valid() else events.none()
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "filters": filters,
        "filtered": any(request.GET.get(name) for name in filters.filters),
        "owned_teams": list(audit_teams_for(request.user)),
    }
    return render(request, "planner/audit_list.html", context)
