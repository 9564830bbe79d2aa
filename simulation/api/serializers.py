from rest_framework import serializers

from planner.designs.api.serializers import EditProblemSerializer
from simulation.models import Job, JobKindChoices


class JobSerializer(serializers.ModelSerializer):
    """A job as clients see it: state, progress, heartbeat and (in the detail) the result."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    design = serializers.IntegerField(
        source="design_revision.design_id", read_only=True, allow_null=True, default=None
    )
    revision = serializers.IntegerField(
        source="design_revision.number", read_only=True, allow_null=True, default=None
    )
    reused = serializers.SerializerMethodField(
        help_text="True when the POST returned an earlier job with the same inputs."
    )

    class Meta:
        model = Job
        fields = [
            "id",
            "kind",
            "owner",
            "design",
            "revision",
            "parameters",
            "input_hash",
            "status",
            "progress_done",
            "progress_total",
            "progress_message",
            "outcome",
            "result",
            "error",
            "created",
            "started",
            "finished",
            "attempts",
            "worker",
            "heartbeat",
            "reused",
        ]
        read_only_fields = fields

    def get_reused(self, job) -> bool:
        return bool(getattr(job, "reused", False))


class JobListSerializer(JobSerializer):
    """A job in a list: everything but the (possibly large) result."""

    class Meta(JobSerializer.Meta):
        fields = [f for f in JobSerializer.Meta.fields if f != "result"]
        read_only_fields = fields


class JobCreateSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=JobKindChoices.choices)
    design = serializers.IntegerField(
        required=False, allow_null=True, help_text="Design id (validate, power, simulate)."
    )
    revision = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="Revision number of the design (default: the latest).",
    )
    parameters = serializers.DictField(
        required=False,
        default=dict,
        help_text="By kind: each kind's parameters (simulation.jobs.parameters), checked there.",
    )


class OverlayRackSerializer(serializers.Serializer):
    rack = serializers.CharField()
    power_w = serializers.FloatField()
    limit_w = serializers.FloatField(allow_null=True)


class OverlayJobSerializer(serializers.Serializer):
    id = serializers.CharField()
    kind = serializers.CharField()
    finished = serializers.DateTimeField(allow_null=True)


class OverlaysSerializer(serializers.Serializer):
    design = serializers.IntegerField()
    revision = serializers.IntegerField()
    problems = EditProblemSerializer(many=True)
    racks = OverlayRackSerializer(many=True)
    links = serializers.DictField(
        child=serializers.FloatField(), help_text="{link:<i>: utilization 0..1}"
    )
    jobs = OverlayJobSerializer(many=True)
    older = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="per overlay (problems, power, util): the newest earlier revision with one",
    )
    source_revision = serializers.IntegerField(
        required=False, help_text="with ?from=N: whose overlays these are"
    )
    unmatched_links = serializers.IntegerField(
        required=False, help_text="with ?from=N: links of revision N not in this revision"
    )
