"""The audit event as the API gives it; price figures left out of ``details`` for users
without the price right (:func:`details_without_prices`)."""

from __future__ import annotations

import re

from rest_framework import serializers

from planner.audit.models import AuditEvent

__all__ = ["PRICE_DETAIL_KEYS", "AuditEventSerializer", "details_without_prices"]

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
