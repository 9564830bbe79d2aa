"""The canvas overlays of a revision (the jobs' findings), under the design API's URLs."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.designs import selectors
from simulation import overlays as overlay_selectors
from simulation.api.serializers import OverlaysSerializer


class RevisionOverlaysView(APIView):
    """Problems, rack power and link utilization found by jobs run on this revision (the
    newest succeeded ones; see :func:`simulation.overlays.revision_overlays`). ``older`` names,
    per overlay, the newest earlier revision that has one; ``?from=N`` answers revision N's
    overlays drawn on this revision's elements (links matched by device ports)."""

    @extend_schema(
        parameters=[OpenApiParameter("from", int, description="an earlier revision's overlays")],
        responses={200: OverlaysSerializer},
    )
    def get(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        source = request.query_params.get("from")
        if source not in (None, ""):
            if not source.isdigit():
                raise serializers.ValidationError({"from": "a revision number, e.g. 1"})
            overlays = overlay_selectors.revision_overlays_from(
                design, revision.number, int(source)
            )
        else:
            overlays = overlay_selectors.revision_overlays(design, revision.number)
        older = overlay_selectors.revision_overlays_older(design, revision.number)
        return Response(
            {"design": design.pk, "revision": revision.number, **overlays, "older": older}
        )
