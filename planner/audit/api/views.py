"""Audit API, mounted at ``/api/planner/audit/`` (routes in :mod:`planner.audit.api.urls`):
read-only, paginated, newest first.

Without the price right (:func:`planner.teams.selectors.user_can_view_prices`) an event's
``details`` leave out price figures and price terms
(:func:`planner.audit.api.serializers.details_without_prices`): a quote's change of discount,
margin or notes is named in the summary, its values are not shown.
"""

from __future__ import annotations

from rest_framework import mixins, viewsets

from planner.audit.api.serializers import AuditEventSerializer
from planner.audit.filtersets import AuditEventFilterSet
from planner.audit.log import audit_events_for
from planner.audit.models import AuditEvent
from planner.teams.selectors import user_can_view_prices


class AuditEventViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Who did what, when: design changes, job runs, exports, imports and quote changes.

    Owners of a team read its designs' events; a design's owner reads that design's; everyone
    reads the events they caused; others' events are invisible (404).
    """

    queryset = AuditEvent.objects.none()  # for the schema; get_queryset() scopes to the user
    serializer_class = AuditEventSerializer
    filterset_class = AuditEventFilterSet
    search_fields = ["summary", "design_name"]
    ordering_fields = ["created"]

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context["may_view_prices"] = user_can_view_prices(self.request.user)
        return context

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return AuditEvent.objects.none()
        return audit_events_for(self.request.user)
