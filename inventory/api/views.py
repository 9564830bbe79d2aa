"""Catalog API: CRUD per category, lookups by slug, archive, history, price books, exchange
rates.

Reading is for everyone signed in; writes need the catalog-editor permission, and price books
and offers are read and changed per book (:mod:`inventory.permissions`). Every write goes
through an audited service of :mod:`inventory.services`. ``POST price-books/<slug>/upload/``
replaces a book's offers with a CSV: ``dry_run`` first says what it adds, changes and removes;
removing more than 5 offers or 10 % of the book needs ``confirm_removals`` (400 naming it).
"""

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, PermissionDenied
from rest_framework.response import Response
from rest_framework.settings import api_settings

from inventory import services
from inventory.api.serializers import (
    SERIALIZERS,
    ExchangeRateSerializer,
    ManufacturerSerializer,
    PartHistoryEventSerializer,
    PriceBookSerializer,
    PriceBookUploadSerializer,
    PriceSerializer,
)
from inventory.filtersets import FILTERSETS
from inventory.hooks import catalog_hooks
from inventory.models import CATEGORY_MODELS, ExchangeRate, Manufacturer, Price, PriceBook
from inventory.permissions import (
    PRICE_BOOK_EDITOR_NEEDED,
    CanEditCatalog,
    CanEditPriceBooks,
    CanViewPrices,
    price_books_for,
    user_can_edit_price_book,
)
from inventory.selectors import works_with

IN_USE = OpenApiResponse(description="Still in use: nothing was deleted (archive it instead)")


class Conflict(APIException):
    """409: the change is refused because something still uses the entry."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "Still in use."
    default_code = "conflict"

    def __init__(self, detail: dict):
        super().__init__()
        self.detail = detail  # as is: counts stay numbers


def _conflict(exc: services.CatalogConflict) -> Conflict:
    detail = {"detail": exc.message, "in_use": exc.count}
    if exc.field:
        detail[exc.field] = [exc.message]
    return Conflict(detail)


class ManufacturerViewSet(viewsets.ModelViewSet):
    """Manufacturers of catalog parts. Writes need the catalog-editor permission."""

    queryset = Manufacturer.objects.all()
    serializer_class = ManufacturerSerializer
    permission_classes = [*api_settings.DEFAULT_PERMISSION_CLASSES, CanEditCatalog]
    lookup_field = "slug"
    search_fields = ["name", "slug"]

    def perform_create(self, serializer):
        manufacturer = Manufacturer(**serializer.validated_data)
        serializer.instance = services.manufacturer_save(
            manufacturer=manufacturer, actor=self.request.user
        )

    def perform_update(self, serializer):
        manufacturer = serializer.instance
        for key, value in serializer.validated_data.items():
            setattr(manufacturer, key, value)
        serializer.instance = services.manufacturer_save(
            manufacturer=manufacturer, actor=self.request.user
        )

    @extend_schema(responses={204: None, 409: IN_USE})
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        try:
            services.manufacturer_delete(manufacturer=instance, actor=self.request.user)
        except services.CatalogConflict as exc:
            raise _conflict(exc) from exc


class CatalogPartViewSet(viewsets.ModelViewSet):
    """Parts of one category. Look up by slug; filter by vendor, speed, form factor, media,
    reach and protocol; ``search`` matches slug, name, part number and aliases. Lists leave
    archived parts out unless ``include_archived=true``; a part's own URL always answers.
    Creating, changing, archiving and deleting need the catalog-editor permission; a part that
    a design revision uses cannot be deleted (409: archive it)."""

    permission_classes = [*api_settings.DEFAULT_PERMISSION_CLASSES, CanEditCatalog]
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
            part = services.part_by_number_or_alias(identifier, category=self.category)
        if part is None:
            raise Http404(f"No {self.category} {identifier!r}.")
        self.check_object_permissions(self.request, part)
        return part

    def perform_create(self, serializer):
        part = CATEGORY_MODELS[self.category](**serializer.validated_data)
        serializer.instance = services.part_save(part=part, actor=self.request.user)

    def perform_update(self, serializer):
        part = serializer.instance
        for key, value in serializer.validated_data.items():
            setattr(part, key, value)
        serializer.instance = services.part_save(part=part, actor=self.request.user)

    @extend_schema(responses={204: None, 409: IN_USE})
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        try:
            services.part_delete(part=instance, actor=self.request.user)
        except services.CatalogConflict as exc:
            raise _conflict(exc) from exc

    def _archive(self, archived: bool):
        part = services.part_archive(
            part=self.get_object(), actor=self.request.user, archived=archived
        )
        return Response(self.get_serializer(part).data)

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def archive(self, request, slug=None, format=None):
        """Archive the part: hidden from pickers and refused in new designs, while the
        revisions that use it still read, export, price and validate."""
        return self._archive(True)

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def unarchive(self, request, slug=None, format=None):
        """Make an archived part available to new designs again."""
        return self._archive(False)

    @extend_schema(responses={200: PartHistoryEventSerializer(many=True)})
    @action(detail=True, methods=["get"], filterset_class=None, pagination_class=None)
    def history(self, request, slug=None, format=None):
        """The part's audit events, newest first: who changed what, when (old -> new)."""
        events = catalog_hooks().part_history(request.user, self.get_object())
        return Response(PartHistoryEventSerializer(events, many=True).data)

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
    """Price books the user may read (public ones, and their teams' with the price right).

    A public book (no ``team``) is created and changed by catalog editors; a team's book also
    by that team's owners with the price right. A book quotes are priced from cannot be
    deleted (409)."""

    queryset = PriceBook.objects.none()  # for the schema; get_queryset() scopes to the user
    serializer_class = PriceBookSerializer
    permission_classes = [
        *api_settings.DEFAULT_PERMISSION_CLASSES,
        CanViewPrices,
        CanEditPriceBooks,
    ]
    lookup_field = "slug"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return PriceBook.objects.none()
        return price_books_for(self.request.user)

    def _check_edit(self, book: PriceBook) -> None:
        if not user_can_edit_price_book(self.request.user, book):
            raise PermissionDenied(PRICE_BOOK_EDITOR_NEEDED)

    def perform_create(self, serializer):
        book = PriceBook(**serializer.validated_data)
        self._check_edit(book)
        serializer.instance = services.price_book_save(book=book, actor=self.request.user)

    def perform_update(self, serializer):
        book = serializer.instance
        self._check_edit(book)
        for key, value in serializer.validated_data.items():
            setattr(book, key, value)
        self._check_edit(book)
        serializer.instance = services.price_book_save(book=book, actor=self.request.user)

    @extend_schema(
        request=PriceBookUploadSerializer,
        responses={
            200: OpenApiResponse(
                description="dry_run: what the file adds, changes and removes (nothing written)"
            ),
            201: OpenApiResponse(description="Applied: the counts, as in the preview"),
            400: OpenApiResponse(
                description="The file cannot be read (``text``, each problem by row and field) "
                "or it removes more than 5 offers or 10 % of the book without "
                "``confirm_removals`` (with the preview)"
            ),
        },
    )
    @action(detail=True, methods=["post"])
    def upload(self, request, slug=None):
        """Replace the book's offers with the rows of a CSV (``text``): first with
        ``dry_run`` to see what it adds, changes and removes; a file removing more than 5
        offers or 10 % of the book also needs ``confirm_removals``."""
        book = self.get_object()
        self._check_edit(book)
        upload = PriceBookUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        data = upload.validated_data
        try:
            if data["dry_run"]:
                preview = services.price_book_import_preview(
                    book=book, text=data["text"], origin=data["name"]
                )
                return Response(preview.as_dict())
            services.price_book_import_csv(
                book=book,
                text=data["text"],
                origin=data["name"],
                actor=request.user,
                confirm_removals=data["confirm_removals"],
            )
        except services.RemovalsNotConfirmed as exc:
            return Response(
                {exc.field: [exc.preview.removals_text()], "preview": exc.preview.as_dict()},
                status=status.HTTP_400_BAD_REQUEST,
            )
        except services.CatalogImportError as exc:
            return Response(
                {"text": [str(problem) for problem in exc.problems]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        return Response(
            {"offers": book.prices.count(), "file": data["name"]}, status=status.HTTP_201_CREATED
        )

    @extend_schema(responses={204: None, 409: IN_USE})
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        self._check_edit(instance)
        try:
            services.price_book_delete(book=instance, actor=self.request.user)
        except services.CatalogConflict as exc:
            raise _conflict(exc) from exc


class PriceViewSet(viewsets.ModelViewSet):
    """Offers of the price books the user may read; changed by those who may change the
    offer's book (see :class:`PriceBookViewSet`)."""

    queryset = Price.objects.none()  # for the schema; get_queryset() scopes to the user
    serializer_class = PriceSerializer
    permission_classes = [
        *api_settings.DEFAULT_PERMISSION_CLASSES,
        CanViewPrices,
        CanEditPriceBooks,
    ]
    filterset_fields = ["book__slug", "part_category", "part_slug", "currency"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Price.objects.none()
        # archived offers are listed too (``archived`` says so); pricing never reads them
        books = price_books_for(self.request.user)
        return Price.objects.select_related("book", "archived_by").filter(book__in=books)

    def _check_edit(self, book: PriceBook) -> None:
        if not user_can_edit_price_book(self.request.user, book):
            raise PermissionDenied(PRICE_BOOK_EDITOR_NEEDED)

    def _set_archived(self, price: Price, archived: bool | None) -> Price:
        if archived is None:
            return price
        change = services.price_archive if archived else services.price_restore
        return change(price=price, actor=self.request.user)

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        archived = data.pop("is_archived", None)
        price = Price(**data)
        self._check_edit(price.book)
        price = services.price_save(price=price, actor=self.request.user)
        serializer.instance = self._set_archived(price, archived)

    def perform_update(self, serializer):
        """Change an offer's fields and/or archive (``"archived": true``) or restore it
        (``false``); each is audited old -> new."""
        price = serializer.instance
        self._check_edit(price.book)
        data = dict(serializer.validated_data)
        archived = data.pop("is_archived", None)
        for key, value in data.items():
            setattr(price, key, value)
        self._check_edit(price.book)
        if data:
            price = services.price_save(price=price, actor=self.request.user)
        serializer.instance = self._set_archived(price, archived)

    def perform_destroy(self, instance):
        self._check_edit(instance.book)
        services.price_delete(price=instance, actor=self.request.user)


class ExchangeRateViewSet(viewsets.ModelViewSet):
    """Exchange rates between currencies, each from a day and with its source: a quote in one
    currency converts offers in another with the pair's rate valid on the quote's date.
    Everyone signed in reads them; catalog editors add, change and delete them (403
    otherwise). Filter by ``from_currency`` and ``to_currency``."""

    queryset = ExchangeRate.objects.all()
    serializer_class = ExchangeRateSerializer
    permission_classes = [*api_settings.DEFAULT_PERMISSION_CLASSES, CanEditCatalog]
    filterset_fields = ["from_currency", "to_currency"]

    def perform_create(self, serializer):
        rate = ExchangeRate(**serializer.validated_data)
        serializer.instance = services.exchange_rate_save(rate=rate, actor=self.request.user)

    def perform_update(self, serializer):
        rate = serializer.instance
        for key, value in serializer.validated_data.items():
            setattr(rate, key, value)
        serializer.instance = services.exchange_rate_save(rate=rate, actor=self.request.user)

    def perform_destroy(self, instance):
        services.exchange_rate_delete(rate=instance, actor=self.request.user)
