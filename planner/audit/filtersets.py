"""Filters of audit events, shared by the page (:mod:`planner.audit.views`) and the API
(:mod:`planner.audit.api.views`)."""

from __future__ import annotations

import re

import django_filters
from django import forms
from django.core.exceptions import ValidationError

from planner.audit.models import AuditActionChoices, AuditEvent

__all__ = ["AuditEventFilterSet", "WholeNumberField", "WholeNumberFilter"]


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
