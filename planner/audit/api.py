"""Audit API, mounted at ``/api/planner/audit/``: read-only, paginated, newest first.

Without the price right (:func:`planner.designs.selectors.user_can_view_prices`) an event's
``details`` leave out price figures and price terms (:func:`details_without_prices`): a quote's
change of discount, margin or notes is named in the summary, its values are not shown.
"""

from __future__ import annotations

import re

from rest_framework import mixins, serializers, viewsets

from planner.audit.log import audit_events_for
from planner.audit.models import AuditEvent
from planner.audit.views import AuditEventFilterSet
from planner.teams.selectors import user_can_view_prices

#: ``details`` keys (at any depth) that hold a price figure or a quote's price terms.
PRICE_DETAIL_KEYS = re.compile(
    r"^(discounts?(_pct)?|margin(_pct)?|notes)$|price$|prices$|cost|amount|sell|total",
    re.IGNORECASE,
)


def details_without_prices(value):
    """``value`` (audit details) without the keys of :data:`PRICE_DETAIL_KEYS`, at any depth.

    >>> details_without_prices({"fields": {"margin_pct": {"old": "0", "new": "20"}, "a": 1}})
    {'fields': {'a': 1}}
    """
    if isinstance(value, dict):
        return {
            key: details_without_prices(item)
            for key, item in value.items()
            if not PRICE_DETAIL_KEYS.search(str(key))
        }
    if isinstance(value, list):
        return [details_without_prices(item) for item in value]
    return value


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(
        source="actor.username", read_only=True, default=None, allow_null=True
    )
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    design = serializers.IntegerField(
        source="design_ref",
        read_only=True,
        allow_null=True,
        help_text="Design id (kept after a delete); null for events about no design (catalog, "
        "price books, some jobs).",
    )

    class Meta:
        model = AuditEvent
        fields = [
            "id",
            "created",
            "actor",
            "action",
            "team",
            "design",
            "design_name",
            "object_type",
            "object_ref",
            "summary",
            "details",
        ]
        read_only_fields = fields

    def to_representation(self, event):
        data = super().to_representation(event)
        if not self.context.get("may_view_prices", False):
            data["details"] = details_without_prices(data["details"])
        return data


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
