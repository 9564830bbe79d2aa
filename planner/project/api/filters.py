"""Filtering shared by every API list."""

from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.exceptions import ValidationError


class StrictFilterBackend(DjangoFilterBackend):
    """django-filter's backend, except that a filter given with no value is an error.

    django-filter reads ``?sharing=`` as "no filter", so a client that meant to filter gets
    every row back without a word. Here such a parameter is a 400 naming it; leave a filter
    out to not filter.
    """

    def filter_queryset(self, request, queryset, view):
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None:
            empty = sorted(
                name
                for name in filterset_class.base_filters
                if name in request.query_params
                and all(value.strip() == "" for value in request.query_params.getlist(name))
            )
            if empty:
                raise ValidationError(
                    {name: ["Give a value, or leave the parameter out."] for name in empty}
                )
        return super().filter_queryset(request, queryset, view)
