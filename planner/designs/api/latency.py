"""GPU-to-GPU one-way latency per path class of a revision (issue 23)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.designs import selectors
from planner.designs.latency import revision_latency

_STATS = {
    "min": serializers.FloatField(),
    "typical": serializers.FloatField(),
    "max": serializers.FloatField(),
}


def _stats(name: str):
    return inline_serializer(name=name, fields=_STATS, allow_null=True)


LATENCY_CLASS = inline_serializer(
    name="LatencyPathClass",
    fields={
        "label": serializers.CharField(),
        "description": serializers.CharField(),
        "hops": serializers.IntegerField(help_text="switches crossed"),
        "switches": serializers.ListField(child=serializers.CharField()),
        "links": serializers.ListField(child=serializers.CharField()),
        "metres": _stats("LatencyMetres"),
        "latency_ns": _stats("LatencyTotalNs"),
        "link_ns": _stats("LatencyLinkNs"),
        "switch_ns": _stats("LatencySwitchNs"),
        "complete": serializers.BooleanField(
            help_text="every fact known; otherwise the figures add up the known parts only"
        ),
        "unknown": serializers.ListField(child=serializers.CharField()),
    },
)
LATENCY_RESPONSE = inline_serializer(
    name="RevisionLatency",
    fields={
        "design": serializers.IntegerField(),
        "revision": serializers.IntegerField(),
        "scope": serializers.CharField(),
        "typical": serializers.CharField(),
        "classes": serializers.DictField(child=LATENCY_CLASS),
        "notes": serializers.ListField(child=serializers.CharField()),
    },
)


class RevisionLatencyView(APIView):
    """GPU-to-GPU one-way latency of this revision per path class (same leaf, via spine,
    via core, across buildings): switches crossed, metres and min / typical / max in ns,
    from the catalog's switch, module, cable and fibre latency facts as they are now. A fact
    the catalog lacks is listed under ``unknown`` (never taken as zero) and ``complete`` is
    false: the figures then add up the known parts only."""

    @extend_schema(
        responses={
            200: OpenApiResponse(LATENCY_RESPONSE, description="latency per path class"),
            404: OpenApiResponse(description="no such design or revision"),
        }
    )
    def get(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        return Response(
            {"design": design.pk, "revision": revision.number, **revision_latency(revision)}
        )
