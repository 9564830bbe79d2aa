"""Wizard helper API, mounted at ``/api/planner/leaf-options/``."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.designs.wizard import leaf_fit


class LeafFitSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField(allow_blank=True)
    fits = serializers.BooleanField(help_text="It can take the server's links.")
    reason = serializers.CharField(allow_blank=True, help_text="Why not (empty when it fits).")


class LeafOptionsSerializer(serializers.Serializer):
    server = serializers.CharField()
    known = serializers.BooleanField(help_text="False: no such server in the catalog.")
    switches = LeafFitSerializer(many=True)


class LeafOptionsView(APIView):
    """Catalog switches and whether each can be the leaf of a server model (the link rules of
    the generator and validator); those that fit come first."""

    @extend_schema(
        parameters=[OpenApiParameter("server", str, required=True, description="Server slug")],
        responses={200: LeafOptionsSerializer},
    )
    def get(self, request):
        server = request.query_params.get("server", "").strip()
        if not server:
            raise serializers.ValidationError({"server": ["Give a server model slug."]})
        return Response(LeafOptionsSerializer(leaf_fit(server)).data)
