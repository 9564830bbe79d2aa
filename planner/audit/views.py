"""The audit log page (``/audit/``) and the filters it shares with the API.

Who reads which events is decided by :func:`planner.audit.log.audit_events_for`.
"""

from __future__ import annotations

import re

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from planner.audit.log import audit_events_for, audit_teams_for
from planner.audit.models import AuditActionChoices, AuditEvent

PAGE_SIZE = 50


class WholeNumberField(forms.IntegerField):
    """A whole number as typed: Django's IntegerField also takes ``1.0`` and ``1.``.

    >>> WholeNumberField().clean("12")
    12
    >>> WholeNumberField().clean("1.0")
    Traceback (most recent call last):
    ...
    django.core.exceptions.ValidationError: ['Enter a whole number.']
    """

    def to_python(self, value):
        if value not in self.empty_values and not re.fullmatch(r"\s*[-+]?\d+\s*", str(value)):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class WholeNumberFilter(django_filters.NumberFilter):
    field_class = WholeNumberField


class AuditEventFilterSet(django_filters.FilterSet):
    """Filter events by design (name part or id), action, team (name part or slug) and actor
    username. The API takes every one; the page shows the name boxes
    (:class:`AuditPageFilterSet`)."""

    design_name = django_filters.CharFilter(
        field_name="design_name", lookup_expr="icontains", label="Design name"
    )
    design = WholeNumberFilter(field_name="design_ref", label="Design id")
    action = django_filters.ChoiceFilter(choices=AuditActionChoices.choices)
    team_name = django_filters.CharFilter(
        field_name="team__name", lookup_expr="icontains", label="Team name"
    )
    team = django_filters.CharFilter(field_name="team__slug", label="Team (slug)")
    actor = django_filters.CharFilter(field_name="actor__username", label="User")

    class Meta:
        model = AuditEvent
        fields = ["design_name", "design", "action", "team_name", "team", "actor"]


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
    return render(request, "planner/audit_list.html", context)
