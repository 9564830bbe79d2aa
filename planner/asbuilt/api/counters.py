"""Counter snapshots of a revision: import one (all or nothing) and read the canvas's
"Measured" overlay (measured utilization, errors and Rx power margin beside the simulated
utilization)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.asbuilt.counters import (
    CountersRejected,
    revision_counters_overlay,
    revision_import_counters,
)
from planner.designs import selectors
from planner.domain.asbuilt.counters import FORMATS


class CountersImportSerializer(serializers.Serializer):
    format = serializers.ChoiceField(
        choices=FORMATS,
        help_text="counters-csv (a header row, one row per port) or counters-json (a list of "
        "port objects, or {device: {port: {...}}}, optionally under 'ports' / 'devices' with "
        "'design'); the fields are listed in planner/domain/asbuilt/counters.py",
    )
    text = serializers.CharField(
        trim_whitespace=False, max_length=10 * 1024 * 1024, help_text="The snapshot file's text"
    )
    file_name = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")


class CounterProblemSerializer(serializers.Serializer):
    row = serializers.IntegerField(help_text="CSV row (header = 1) or JSON entry; 0 = the file")
    device = serializers.CharField(allow_blank=True)
    port = serializers.CharField(allow_blank=True)
    field = serializers.CharField(allow_blank=True)
    code = serializers.CharField()
    message = serializers.CharField()


class CounterProblemsSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = CounterProblemSerializer(many=True)
    more = serializers.IntegerField(help_text="Problems past those listed")


class SnapshotSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    created = serializers.DateTimeField()
    created_by = serializers.CharField(allow_blank=True)
    file_name = serializers.CharField(allow_blank=True)
    format = serializers.CharField()
    summary = serializers.DictField()


class CountersOverlaySerializer(serializers.Serializer):
    design = serializers.IntegerField()
    revision = serializers.IntegerField()
    snapshot = SnapshotSerializer(allow_null=True)
    links = serializers.DictField(help_text='Per "link:<i>": measured figures per end')
    flagged = serializers.ListField(child=serializers.DictField())
    simulation = serializers.DictField(allow_null=True)


class RevisionCountersView(APIView):
    """GET: the newest counter snapshot of this revision as the canvas's "Measured" overlay:
    per link the measured utilization (bytes over the interval, or the reported percent, of
    the link speed), error counts (FEC corrected / uncorrected, discards, PFC pause, ECN
    marked), per end the weakest lane's Rx power, the Rx the optical budget expects (far
    end's minimum launch power minus the worst-case channel loss), their difference and the
    receiver's sensitivity, and the simulated utilization where a flow simulation of this
    revision finished; ``flagged`` lists links below the sensitivity, below the expectation
    or with uncorrectable FEC. POST: import a snapshot (design editors); all or nothing."""

    @extend_schema(responses={200: CountersOverlaySerializer})
    def get(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        return Response({"design": design.pk, **revision_counters_overlay(design, revision)})

    @extend_schema(
        request=CountersImportSerializer,
        responses={
            201: CountersOverlaySerializer,
            400: OpenApiResponse(
                CounterProblemsSerializer, description="Problems naming row, device, port, field"
            ),
        },
    )
    def post(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk, write=True)
        revision = selectors.revision_get(design, number)
        params = CountersImportSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        try:
            revision_import_counters(
                user=request.user,
                design=design,
                revision=revision,
                text=data["text"],
                fmt=data["format"],
                file_name=data["file_name"],
            )
        except CountersRejected as exc:
            return Response(
                {"detail": str(exc), "problems": exc.problems, "more": exc.more},
                status=status.HTTP_400_BAD_REQUEST,
            )
        return Response(
            {"design": design.pk, **revision_counters_overlay(design, revision)},
            status=status.HTTP_201_CREATED,
        )
