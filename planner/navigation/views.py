"""Pages for finding one's way: the home page, the global search and help."""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from planner import presentation
from planner.designs import selectors
from planner.navigation.search import MIN_LENGTH, search

#: Designs on the home page.
RECENT = 8


@require_GET
def home(request):
    """Where to start: new design, the user's and their teams' recent designs, first steps."""
    recent = []
    for design in selectors.design_list_for(request.user).order_by("-updated")[:RECENT]:
        summary = design.latest_summary or {}
        recent.append({"design": design, "gpus": presentation.number(summary.get("gpus"))})
    return render(request, "planner/home.html", {"recent": recent})


@require_GET
def search_page(request):
    """Search results for ``?q=``: designs, parts and quotes the user may see."""
    query = request.GET.get("q", "")
    results = search(user=request.user, query=query)
    context = {"results": results, "query": query.strip(), "min_length": MIN_LENGTH}
    return render(request, "planner/search.html", context)


@require_GET
def help_page(request):
    """A short guide and where the full documentation is."""
    return render(request, "planner/help.html")


class SearchHitSerializer(serializers.Serializer):
    title = serializers.CharField()
    detail = serializers.CharField(allow_blank=True)
    url = serializers.CharField(help_text="The page of the hit.")


class SearchResultSerializer(serializers.Serializer):
    query = serializers.CharField(allow_blank=True)
    designs = SearchHitSerializer(many=True)
    parts = SearchHitSerializer(many=True)
    quotes = SearchHitSerializer(many=True, help_text="Customer only with the price right.")


class SearchView(APIView):
    """Designs by name, catalog parts by slug, part number, name or alias, and quotes by
    number (and by customer, with the price right); only what the user may see. Queries
    shorter than 2 characters find nothing."""

    @extend_schema(
        parameters=[OpenApiParameter("q", str, required=True, description="Text to find")],
        responses={200: SearchResultSerializer},
    )
    def get(self, request):
        if "q" not in request.query_params:
            raise ValidationError({"q": ["Give the text to find: ?q=..."]})
        return Response(search(user=request.user, query=request.query_params["q"]))
