"""Catalog API: CRUD per category, lookups by slug, price books."""

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.response import Response

from inventory.api.serializers import (
    SERIALIZERS,
    ManufacturerSerializer,
    PriceBookSerializer,
    PriceSerializer,
)
from inventory.filtersets import FILTERSETS
from inventory.models import CATEGORY_MODELS, Manufacturer, Price, PriceBook
from inventory.selectors import works_with
from inventory.services import part_delete, part_get, part_save
from planner.selectors import user_can_view_prices


class CanViewPrices(BasePermission):
    """Price books and prices are for staff and members with the price right (403 otherwise)."""

    message = (
        "Prices are shown to staff and to team members with the price right (can_view_prices)."
    )

    def has_permission(self, request, view):
        return user_can_view_prices(request.user)


class ManufacturerViewSet(viewsets.ModelViewSet):
    queryset = Manufacturer.objects.all()
    serializer_class = ManufacturerSerializer
    lookup_field = "slug"
    search_fields = ["name", "slug"]


class CatalogPartViewSet(viewsets.ModelViewSet):
    """Parts of one category. Look up by slug; filter by vendor, speed, form factor, media,
    reach and protocol; ``search`` matches slug, name, part number and aliases."""

    lookup_field = "slug"
    lookup_value_regex = r"[A-Za-z0-9._\-]+"
    search_fields = ["slug", "name", "part_number", "description"]
    ordering_fields = "__all__"
    ordering = ["slug"]
    category = ""

    def get_queryset(self):
        return CATEGORY_MODELS[self.category].objects.select_related("manufacturer")

    def get_object(self):
        """Look up by slug, or by a part number or alias of a part of this category."""
        identifier = self.kwargs[self.lookup_field]
        part = self.get_queryset().filter(slug=identifier).first()
        if part is None:
            found = part_get(identifier)
            if found is not None and self.category == found.CATEGORY:
                part = found
        if part is None:
            raise Http404(f"No {self.category} {identifier!r}.")
        self.check_object_permissions(self.request, part)
        return part

    def perform_create(self, serializer):
        part = CATEGORY_MODELS[self.category](**serializer.validated_data)
        serializer.instance = part_save(part=part)

    def perform_update(self, serializer):
        part = serializer.instance
        for key, value in serializer.validated_data.items():
            setattr(part, key, value)
        serializer.instance = part_save(part=part)

    def perform_destroy(self, instance):
        part_delete(part=instance)

    @extend_schema(responses={200: OpenApiResponse(description="Compatible parts by section")})
    @action(detail=True, methods=["get"], url_path="works-with")
    def works_with(self, request, slug=None, format=None):
        """Cages, modules, cables and peers that fit this part (the link rules' verdict)."""
        return Response(works_with(self.get_object()).as_dict())


def _viewset_for(category):
    return type(
        f"{CATEGORY_MODELS[category].__name__}ViewSet",
        (CatalogPartViewSet,),
        {
            "category": category,
            "serializer_class": SERIALIZERS[category],
            "filterset_class": FILTERSETS[category],
            "queryset": CATEGORY_MODELS[category].objects.none(),
            "__doc__": f"{CATEGORY_MODELS[category].CATEGORY_LABEL} in the catalog. "
            + CatalogPartViewSet.__doc__,
        },
    )


VIEWSETS = {category: _viewset_for(category) for category in CATEGORY_MODELS}


class PriceBookViewSet(viewsets.ModelViewSet):
    queryset = PriceBook.objects.all()
    serializer_class = PriceBookSerializer
    permission_classes = [IsAuthenticated, CanViewPrices]
    lookup_field = "slug"


class PriceViewSet(viewsets.ModelViewSet):
    queryset = Price.objects.select_related("book")
    serializer_class = PriceSerializer
    permission_classes = [IsAuthenticated, CanViewPrices]
    filterset_fields = ["book__slug", "part_category", "part_slug", "currency"]
