from rest_framework import serializers

from simulation.models import Job, JobKindChoices


class JobSerializer(serializers.ModelSerializer):
    """A job as clients see it: state, progress and result."""

    owner = serializers.CharField(source="owner.username", read_only=True)

    class Meta:
        model = Job
        fields = [
            "id",
            "kind",
            "owner",
            "parameters",
            "input_hash",
            "status",
            "progress_done",
            "progress_total",
            "progress_message",
            "result",
            "error",
            "created",
            "started",
            "finished",
        ]
        read_only_fields = [f for f in fields if f not in {"kind", "parameters"}]


class JobCreateSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=JobKindChoices.choices)
    parameters = serializers.JSONField(required=False, default=dict)
