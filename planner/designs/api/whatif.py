"""What if elements or domains of a revision fail (issue 24): the synchronous graph answer."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.analyses.errors import JobInputError
from planner.designs import selectors
from planner.designs.whatif import revision_domains, revision_what_if

MAX_FAILED = 1_000

WHATIF_REQUEST = inline_serializer(
    name="WhatIfRequest",
    fields={
        "failed": serializers.ListField(
            child=serializers.CharField(max_length=200),
            min_length=1,
            max_length=MAX_FAILED,
            help_text="ids of what fails: node:<name>, link:<i>, cable:<i>, rack:<name>, "
            "row:<name>, hall:<name>, feed:<name>, pdu:<rack>/<feed>, plane:<n>, su:<n>, "
            "pod:<n>, tier:<leaf|spine|core>",
        )
    },
)


class WhatIfSerializer(serializers.Serializer):
    failed = serializers.ListField(
        child=serializers.CharField(max_length=200), min_length=1, max_length=MAX_FAILED
    )


class RevisionWhatIfView(APIView):
    """What if elements or domains of this revision fail.

    GET lists the failure domains a what-if can name (per kind: ``kind``, ``label``, ``ids``).
    POST ``{"failed": [ids]}`` answers at once: ``gpus`` (``lost``: no fabric connectivity;
    ``leaf_only``: reach only their own leaf; ``degraded``: some NIC ports down;
    ``unaffected``), ``bandwidth_lost`` per tier (``capacity_tbps``, ``lost_tbps``,
    ``left_tbps``, ``share_lost``), ``leaf_uplink_left`` (share of uplink capacity left per
    leaf still up: ``min_share``, ``mean_share``), ``bisection`` (measured by max-flow
    ``before_gbps`` and ``after_gbps``, ``formula_after_gbps``, ``share_left``) and
    ``blast_radius`` (element ids of the nodes and links down, the servers with GPUs lost,
    leaf-only or degraded, the leaves that lost uplinks; each with its ``count``, at most
    ``listed_at_most`` ids listed). An id that names nothing in the revision is a 400 whose
    ``failed`` message names it. The collective before and after is a job (kind
    ``whatif``)."""

    @extend_schema(
        responses={200: OpenApiResponse(description="design, revision, kinds, unavailable")}
    )
    def get(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        return Response(
            {"design": design.pk, "revision": revision.number, **revision_domains(revision)}
        )

    @extend_schema(
        request=WHATIF_REQUEST,
        responses={
            200: OpenApiResponse(description="the what-if answer (see the text)"),
            400: OpenApiResponse(description="failed: the field or the id at fault"),
        },
    )
    def post(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        data = WhatIfSerializer(data=request.data if isinstance(request.data, dict) else {})
        data.is_valid(raise_exception=True)
        try:
            answer = revision_what_if(revision, data.validated_data["failed"])
        except JobInputError as exc:
            return Response({exc.field or "failed": [exc.message]}, status=400)
        return Response({"design": design.pk, "revision": revision.number, **answer})
