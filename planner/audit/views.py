"""The audit log page (``/audit/``); its filters are the API's (:mod:`planner.audit.filtersets`).

Who reads which events is decided by :func:`planner.audit.log.audit_events_for`.
"""

from __future__ import annotations

from django import forms
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from planner.audit.filtersets import AuditEventFilterSet
from planner.audit.log import audit_events_for, audit_teams_for

PAGE_SIZE = 50


class AuditPageFilterSet(AuditEventFilterSet):
    """The page's filters: names typed in text boxes; the id and slug filters (the links in
    the table) ride along as hidden fields."""

    HIDDEN = ("design", "team")

    @property
    def form(self):
        form = super().form
        for name in self.HIDDEN:
            form.fields[name].widget = forms.HiddenInput()
        return form


@require_GET
def audit_list(request):
    """Audit events the user may read (their teams' if they own one), newest first."""
    events = audit_events_for(request.user)
    filters = AuditPageFilterSet(request.GET, queryset=events)
    rows = filters.qs if filters.is_valid() else events.none()
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "filters": filters,
        "filtered": any(request.GET.get(name) for name in filters.filters),
        "owned_teams": list(audit_teams_for(request.user)),
    }
    return render(request, "audit/audit_list.html", context)
