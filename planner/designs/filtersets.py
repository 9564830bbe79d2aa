"""Filters of the designs list, shared by the page and ``/api/planner/designs/``."""

import django_filters
from django import forms
from django.db.models import Q

from planner.designs.models import Design, DesignSharingChoices

#: Sort keys of the designs list -> the annotation of ``selectors.design_list_for`` they order by.
DESIGN_SORTS = {"name": "name", "updated": "updated", "gpus": "gpus", "owner": "owner_name"}


class DesignFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(
        method="filter_q",
        widget=forms.TextInput(attrs={"placeholder": "name, owner or team", "type": "search"}),
        label="Search",
        help_text="Words in the design's name, its owner's username or its team's name.",
    )
    owner = django_filters.CharFilter(
        field_name="owner__username", lookup_expr="iexact", label="Owner", help_text="Username."
    )
    team = django_filters.CharFilter(
        method="filter_team",
        label="Team",
        help_text="Team name or slug.",
        widget=forms.TextInput(attrs={"list": "design-teams"}),
    )
    sharing = django_filters.ChoiceFilter(
        choices=DesignSharingChoices.choices, label="Shared", empty_label="Any"
    )

    class Meta:
        model = Design
        fields = ["q", "owner", "team", "sharing"]

    def filter_q(self, queryset, name, value):
        for word in value.split():
            queryset = queryset.filter(
                Q(name__icontains=word)
                | Q(owner__username__icontains=word)
                | Q(team__name__icontains=word)
            )
        return queryset

    def filter_team(self, queryset, name, value):
        value = value.strip()
        return queryset.filter(Q(team__name__iexact=value) | Q(team__slug__iexact=value))
