"""The optical loss budget of a revision (the canvas's margin overlay)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.designs import selectors
from planner.designs.optical import revision_optical_budget


class RevisionOpticalBudgetView(APIView):
    """Per optical link of this revision its worst-case margin in dB (channel insertion-loss
    limit minus computed loss: fibre, mated MPO/LC pairs, splices), the design's warning
    threshold and the page summary (margin histogram, worst links). Cable assemblies (DAC,
    ACC, AEC, AOC) have no budget and are left out; so are links whose limit is unknown."""

    @extend_schema(responses={200: OpenApiResponse(description="threshold_db, summary, links")})
    def get(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        return Response(
            {"design": design.pk, "revision": revision.number, **revision_optical_budget(revision)}
        )
