"""Expected failures, job interruptions and spares of a revision (issue 24)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.designs import selectors
from planner.designs.failures import FailureParamError, parse_params, revision_failures

PARAMETERS = [
    OpenApiParameter(
        "job_gpus", OpenApiTypes.INT, description="GPUs the job spans (default: every GPU)"
    ),
    OpenApiParameter(
        "lead_time_days",
        OpenApiTypes.NUMBER,
        description="replenishment lead time for spares, days (default 30, at most 365)",
    ),
    OpenApiParameter(
        "level",
        OpenApiTypes.NUMBER,
        description="service level for spares, percent (default 99; above 0, below 100)",
    ),
    OpenApiParameter(
        "fallback",
        OpenApiTypes.STR,
        enum=["llama3", "none"],
        description="parts without a catalog MTBF: the Llama 3 field rate (default) or none",
    ),
]


class RevisionFailuresView(APIView):
    """Expected failures of this revision: per group and category of parts (servers, NICs,
    switches, optics, cables) the failures a day from the catalog's MTBF, or, for a group
    without any, the Llama 3 field rate scaled by GPUs (``basis`` says which; ``unknown``
    names the parts without a figure); ``job``: interruptions a day and mean time between
    them (hours) for a job spanning ``job_gpus`` GPUs with what it depends on; ``spares``:
    per category the spares that keep ``level`` over ``lead_time_days`` (Poisson) and
    ``bom_pct``, the percentages to give the BOM's ``spares_<category>`` parameters.
    A bad parameter is a 400 naming it."""

    @extend_schema(
        parameters=PARAMETERS,
        responses={
            200: OpenApiResponse(
                description="design, revision, gpus, groups, categories, total_per_day, job, "
                "spares, sources, notes (see the text); unavailable for a revision without "
                "a fabric"
            ),
            400: OpenApiResponse(description="{field: [message]} for a bad parameter"),
            404: OpenApiResponse(description="no such design or revision"),
        },
    )
    def get(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        try:
            params = parse_params(request.query_params, blank_is_default=False)
            data = revision_failures(revision, params)
        except FailureParamError as exc:
            return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"design": design.pk, "revision": revision.number, **data})
