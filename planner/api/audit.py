"""Audit API, mounted at ``/api/planner/audit/``: read-only, paginated, newest first."""

from __future__ import annotations

from rest_framework import mixins, serializers, viewsets

from planner.audit import audit_events_for
from planner.audit_views import AuditEventFilterSet
from planner.models import AuditEvent


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(
        source="actor.username", read_only=True, default=None, allow_null=True
    )
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    design = serializers.IntegerField(
        source="design_ref", read_only=True, help_text="Design id (kept after a delete)."
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

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return AuditEvent.objects.none()
        return audit_events_for(self.request.user)
