"""A PATCH naming no field it may change is a 400 (PatchNamesAFieldMixin of
planner.api_base.serializers).

Without a database: the rule on a plain serializer (JSON and form bodies), and every PATCH
route of the API reaching a serializer that has the rule. The routes answering 400 with the
stored object unchanged are in tests/api/test_patch_fields_api.py.
"""

from __future__ import annotations

import pytest
from django.http import QueryDict
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework import serializers

from planner.api_base.serializers import PatchNamesAFieldMixin, patch_problems


class Book(PatchNamesAFieldMixin, serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(required=False)
    tags = serializers.ListField(child=serializers.CharField(), required=False)
    discounts = serializers.DictField(child=serializers.IntegerField(), required=False)


def _form(text: str) -> QueryDict:
    return QueryDict(text)


@pytest.mark.parametrize(
    "data",
    [{}, _form(""), {"colour": "red"}, _form("colour=red"), {"id": 4}, _form("id=4")],
    ids=["json-empty", "form-empty", "json-unknown", "form-unknown", "json-ro", "form-ro"],
)
def test_a_patch_naming_no_writable_field_is_refused(data):
    book = Book(data=data, partial=True)
    assert not book.is_valid()
    assert book.errors["non_field_errors"] == [
        "No field to change: the request names none of name, tags, discounts."
    ]
    if "colour" in data:
        assert book.errors["colour"] == ["Unknown field: it is not one of this object's fields."]
    if "id" in data:
        assert book.errors["id"] == ["Read-only: it cannot be changed."]


@pytest.mark.parametrize(
    "data",
    [
        {"name": "x", "colour": "red"},
        _form("name=x&colour=red"),
        _form("tags=a&tags=b"),
        _form("tags[0]=a"),
        _form("discounts.switch=5"),
        _form("name=x&csrfmiddlewaretoken=t"),
    ],
    ids=["json", "form", "form-list", "form-list-index", "form-dict", "form-csrf"],
)
def test_a_patch_naming_a_writable_field_goes_through(data):
    book = Book(data=data, partial=True)
    assert book.is_valid(), book.errors


def test_the_rule_is_for_partial_updates_only():
    # A full write's missing fields are DRF's own "required" errors; an empty create of a
    # serializer whose fields are all optional stays valid.
    assert Book(data={}).is_valid()
    assert patch_problems(Book().fields, {"csrfmiddlewaretoken": "t"})["non_field_errors"]


def _patch_routes(resolver=None, prefix="") -> dict[str, type]:
    """{route: view class} of every URL answering PATCH."""
    resolver = resolver or get_resolver()
    routes = {}
    for pattern in resolver.url_patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            routes.update(_patch_routes(pattern, route))
            continue
        assert isinstance(pattern, URLPattern)
        view = getattr(pattern.callback, "cls", None)
        actions = getattr(pattern.callback, "actions", None)
        if view is None:
            continue
        if (actions is not None and "patch" in actions) or (
            actions is None and hasattr(view, "patch")
        ):
            routes[route] = view
    return routes


def test_every_patch_route_writes_through_a_serializer_with_the_rule():
    from planner.designs.api.canvas import DesignTopologyView
    from planner.designs.api.serializers import DesignUpdateSerializer, TopologyPatchSerializer
    from planner.quotes.api.serializers import QuoteWriteSerializer
    from planner.quotes.api.views import QuoteDetailView
    from planner.teams.api.serializers import MemberChangeSerializer
    from planner.teams.api.views import MemberDetailView

    # Views that build their PATCH serializer themselves (not ``serializer_class``).
    own = {
        QuoteDetailView: QuoteWriteSerializer,
        MemberDetailView: MemberChangeSerializer,
        DesignTopologyView: TopologyPatchSerializer,
    }
    routes = _patch_routes()
    assert any("inventory/" in route and "manufacturers" in route for route in routes)
    assert QuoteDetailView in routes.values()
    for route, view in routes.items():
        if view.__name__ == "DesignViewSet":
            serializer = DesignUpdateSerializer
        else:
            serializer = own.get(view) or view.serializer_class
        assert issubclass(serializer, PatchNamesAFieldMixin), route


@pytest.mark.parametrize(
    "data",
    [
        {"base_revision": 3},
        {"base_revision": 3, "link_removed": [0]},
        {"base_revision": 3, "message": "moved", "check_stale": True},
    ],
    ids=["nothing", "misspelt", "only-options"],
)
def test_a_topology_patch_naming_no_change_list_is_refused(data):
    from planner.designs.api.serializers import TopologyPatchSerializer

    patch = TopologyPatchSerializer(data=data)
    assert not patch.is_valid()
    assert patch.errors["non_field_errors"][0].startswith(
        "No field to change: the request names none of nodes_removed, nodes_set,"
    )
    if "link_removed" in data:
        assert patch.errors["link_removed"] == [
            "Unknown field: it is not one of this object's fields."
        ]


def test_a_topology_patch_with_an_empty_change_list_goes_through():
    from planner.designs.api.serializers import TopologyPatchSerializer

    # The canvas sends every list, empty ones included; what they hold is checked later.
    patch = TopologyPatchSerializer(data={"base_revision": 3, "links_removed": []})
    assert patch.is_valid(), patch.errors
