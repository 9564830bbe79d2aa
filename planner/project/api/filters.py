"""Filtering shared by every API list."""

from django.db.models import F
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter


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


#: A query value with a character other than white space, and no NUL.
NOT_BLANK_TEXT = r"^[^\x00]*[^\x00\s][^\x00]*$"


class StrictFilterSchema(DjangoFilterExtension):
    """The schema of :class:`StrictFilterBackend`'s filters says what it accepts: a text
    filter holds a character other than white space (an empty one is a 400) and no NUL
    (:class:`planner.project.middleware.RequestTextMiddleware`)."""

    target_class = StrictFilterBackend
    priority = 1  # before drf-spectacular's own extension for every DjangoFilterBackend

    def get_schema_operation_parameters(self, auto_schema, *args, **kwargs):
        parameters = super().get_schema_operation_parameters(auto_schema, *args, **kwargs)
        for parameter in parameters:
            schema = parameter.get("schema", {})
            if schema.get("type") == "string" and "enum" not in schema:
                parameter["schema"] = {"pattern": NOT_BLANK_TEXT, **schema, "minLength": 1}
        return parameters


class NullsLastOrderingFilter(OrderingFilter):
    """``?ordering=`` as DRF reads it, with unknown values (NULL) last in both directions:
    PostgreSQL sorts NULL first when descending, so "fastest first" began with the parts
    whose speed is unknown."""

    def filter_queryset(self, request, queryset, view):
        ordering = self.get_ordering(request, queryset, view)
        if not ordering:
            return queryset
        terms = []
        for term in ordering:
            if not isinstance(term, str):
                terms.append(term)
                continue
            name = term.lstrip("-")
            field = F(name)
            terms.append(
                field.desc(nulls_last=True) if term.startswith("-") else field.asc(nulls_last=True)
            )
        return queryset.order_by(*terms)
