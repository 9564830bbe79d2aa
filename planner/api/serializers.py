"""Design API serializers: they parse and shape data; services do the writes."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from planner.models import Design, DesignRevision, DesignSharingChoices, Team


@extend_schema_field(
    {
        "oneOf": [
            {"type": "object", "additionalProperties": True},
            {"type": "string", "description": "YAML or JSON text"},
        ],
        "description": "A design spec: a mapping (see design-spec.schema.json) or its "
        "YAML/JSON text.",
    }
)
class SpecField(serializers.JSONField):
    """A spec as a mapping or as YAML/JSON text (parsed and checked by the service)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not isinstance(value, dict | str):
            raise serializers.ValidationError("Give the spec as a mapping or as YAML/JSON text.")
        return value


class TeamSlugField(serializers.SlugRelatedField):
    def __init__(self, **kwargs):
        super().__init__(slug_field="slug", queryset=Team.objects.all(), **kwargs)


class ProblemSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="Spec field at fault, e.g. switches.leaf ('' = whole)")
    message = serializers.CharField()


class ProblemsSerializer(serializers.Serializer):
    problems = ProblemSerializer(many=True)


class ConflictSerializer(serializers.Serializer):
    detail = serializers.CharField()
    latest_revision = serializers.IntegerField()
    changes = serializers.DictField(
        help_text="{summary: {path: {old, new, delta?}}, spec: {path: {old, new}}} from the "
        "edit's base revision to the latest."
    )


class DesignSerializer(serializers.ModelSerializer):
    """A design with its latest revision's number and summary."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    latest_revision = serializers.SerializerMethodField()
    summary = serializers.SerializerMethodField()

    class Meta:
        model = Design
        fields = [
            "id",
            "name",
            "description",
            "owner",
            "team",
            "sharing",
            "latest_revision",
            "summary",
            "created",
            "updated",
        ]
        read_only_fields = fields

    def get_latest_revision(self, obj) -> int | None:
        if hasattr(obj, "latest_number"):
            return obj.latest_number
        latest = obj.latest_revision
        return latest.number if latest else None

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_summary(self, obj):
        if hasattr(obj, "latest_summary"):
            return obj.latest_summary
        latest = obj.latest_revision
        return latest.summary if latest else None


class DesignCreateSerializer(serializers.Serializer):
    spec = SpecField()
    team = TeamSlugField(required=False, allow_null=True, default=None)
    sharing = serializers.ChoiceField(
        choices=DesignSharingChoices.choices, default=DesignSharingChoices.PRIVATE
    )
    message = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")


class DesignUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, max_length=100)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    team = TeamSlugField(required=False, allow_null=True)
    sharing = serializers.ChoiceField(choices=DesignSharingChoices.choices, required=False)


class RevisionListSerializer(serializers.ModelSerializer):
    """A revision without its spec and summary (see the detail)."""

    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)

    class Meta:
        model = DesignRevision
        fields = ["number", "kind", "message", "created_by", "created", "parent"]
        read_only_fields = fields


class RevisionSerializer(RevisionListSerializer):
    class Meta(RevisionListSerializer.Meta):
        fields = [*RevisionListSerializer.Meta.fields, "spec", "summary"]
        read_only_fields = fields


class RevisionCreateSerializer(serializers.Serializer):
    spec = SpecField()
    base_revision = serializers.IntegerField(
        min_value=1, help_text="The revision this edit started from (must be the latest)."
    )
    message = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")


class SummaryRequestSerializer(serializers.Serializer):
    spec = SpecField()


class PresetSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    note = serializers.CharField(help_text="Which published architecture it reproduces.")
    spec = serializers.DictField()
