"""A revision's transport: its settings and the InfiniBand vs RoCEv2 comparison."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.designs import selectors
from planner.designs.transport import revision_transport_for


class RevisionTransportComparisonView(APIView):
    """The revision's transport settings (``settings``: InfiniBand or RoCE, each value with its
    source; ``settings_origin`` ``design``, ``defaults`` for a revision saved before them, or
    ``profile`` for a design with none of its own, e.g. drawn on the canvas)
    and ``comparison``: the spec built with InfiniBand and with RoCEv2 switches at the same
    link speeds (which switch replaces which, and why), parts, power in W, the same all-reduce
    simulated under each transport's routing (bus bandwidth in Gb/s), the features with their
    sources and the reasons of each difference. Designs above ``max_gpus`` GPUs are not built
    (``capped``). ``cost`` is both bills of materials at ``price_book`` (needs the price right;
    amounts as strings with two decimals), else null."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "price_book",
                str,
                description="Slug of a price book: adds each side's cost (needs the price right)",
            )
        ],
        responses={
            200: OpenApiResponse(
                description="settings, settings_origin, comparison, unavailable, "
                "edited_topology, cost"
            )
        },
    )
    def get(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        body = revision_transport_for(
            request.user, revision, price_book_slug=request.query_params.get("price_book")
        )
        return Response({"design": design.pk, "revision": revision.number, **body})
