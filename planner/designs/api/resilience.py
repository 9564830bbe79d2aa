"""Failure domains and graph measurements of a revision."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.designs import selectors
from planner.designs.resilience import revision_resilience


class RevisionResilienceView(APIView):
    """The revision's switch-level graph measurements and failure domains.

    ``graph``: ``bisection`` (``measured_gbps`` by max-flow between two halves of the GPUs,
    ``formula_gbps`` as the summary's ``bisection_gbps``, ``nonblocking_gbps``, ``agrees``,
    ``halves``), ``edge_connectivity`` (minimum over leaf pairs of a plane), per plane its
    ``path_classes`` (hops, switches, edge-disjoint paths), ``diameter``, ``max_hops``.
    ``domains``: per kind (hall, row, rack, feed, pdu, plane, su, pod, tier) the number of
    domains, the largest GPUs, links and bisection share one failure takes, and the worst
    domains; ``feeds_stated`` false when the spec names no power feeds. ``graph`` and
    ``domains`` are null, with ``unavailable`` saying why, for a revision without a fabric."""

    @extend_schema(
        responses={
            200: OpenApiResponse(
                description="design, revision, graph, domains, unavailable (see the text)"
            )
        }
    )
    def get(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        return Response(
            {"design": design.pk, "revision": revision.number, **revision_resilience(revision)}
        )
