"""Quote API, under a design: ``/api/planner/designs/<design>/quotes/``.

- ``GET`` list, ``POST`` create (needs write access to the design);
- ``GET``/``PATCH``/``DELETE`` ``<id>/``: one quote's terms (change and delete need write);
- ``GET <id>/priced/``: the priced bill of materials as JSON (lines, category subtotals,
  totals, unpriced parts; amounts as strings with two decimals);
- ``GET <id>/pdf/`` and ``<id>/xlsx/``: the quote as a file (downloads are audited).

Who reads a design reads its quotes' terms, but the price terms (discounts, margin) and the
internal notes only with the price right (:func:`planner.designs.selectors.user_can_view_prices`):
without it they are left out of every answer, and writing them is 403. The priced answer and
the files need the price right too, otherwise 403 saying so.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from inventory.api.serializers import PatchNamesAFieldMixin
from inventory.models import PriceBook
from inventory.permissions import price_books_pickable_for, user_can_read_price_book
from planner.designs import selectors
from planner.quotes import services as quotes
from planner.quotes.models import QUOTE_PRICE_CONDITIONS, Quote
from planner.teams.selectors import quote_require_prices, user_can_view_prices

NO_PRICES = OpenApiResponse(description="The user may not see prices")


PRICE_TERMS_ONLY = " Only for users with the price right: absent otherwise."


class QuoteSerializer(serializers.ModelSerializer):
    """A quote's terms (no prices: see the ``priced`` link). The price terms
    (:data:`planner.quotes.services.PRICE_TERMS`) are left out unless the context says
    ``may_view_prices``."""

    # Output only (QuoteWriteSerializer takes the input); not read-only so that the schema
    # lists them as optional, since users without the price right do not get them.
    discounts_pct = serializers.DictField(
        child=serializers.FloatField(),
        required=False,
        help_text="Discount percent per category (missing = 0)." + PRICE_TERMS_ONLY,
    )
    margin_pct = serializers.DecimalField(
        max_digits=5,
        decimal_places=2,
        required=False,
        help_text="Margin on the sell price: sell = cost / (1 - margin)." + PRICE_TERMS_ONLY,
    )
    notes = serializers.CharField(required=False, help_text="Internal notes." + PRICE_TERMS_ONLY)
    revision = serializers.IntegerField(source="revision.number", read_only=True)
    price_book = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, default="")
    links = serializers.SerializerMethodField()

    class Meta:
        model = Quote
        fields = [
            "id",
            "number",
            "design",
            *quotes.EDITABLE_FIELDS,
            "created_by",
            "created",
            "updated",
            "links",
        ]
        read_only_fields = [name for name in fields if name not in quotes.PRICE_TERMS]

    def to_representation(self, quote):
        data = super().to_representation(quote)
        if not self.context.get("may_view_prices", False):
            for name in quotes.PRICE_TERMS:
                data.pop(name, None)
        return data

    def get_links(self, quote) -> dict[str, str]:
        args = [quote.design_id, quote.pk]
        return {
            "priced": reverse("design-quote-priced", args=args),
            "pdf": reverse("design-quote-pdf", args=args),
            "xlsx": reverse("design-quote-xlsx", args=args),
            "page": quote.get_absolute_url(),
        }


class QuoteWriteSerializer(PatchNamesAFieldMixin, serializers.Serializer):
    """Terms of a new or changed quote; the service validates the values."""

    revision = serializers.IntegerField(
        required=False, help_text="Revision number to price (default: the latest)."
    )
    customer = serializers.CharField(max_length=200)
    price_book = serializers.SlugRelatedField(slug_field="slug", queryset=PriceBook.objects.all())

    def validate_price_book(self, book: PriceBook) -> PriceBook:
        """A team's book only for those who may read it (public books for everyone)."""
        request = self.context.get("request")
        user = getattr(request, "user", None)
        if not price_books_pickable_for(user).filter(pk=book.pk).exists():
            raise serializers.ValidationError(f"Object with slug={book.slug} does not exist.")
        return book

    price_condition = serializers.ChoiceField(choices=QUOTE_PRICE_CONDITIONS, required=False)
    currency = serializers.CharField(
        max_length=3, required=False, help_text="Default: the price book's currency."
    )
    discounts_pct = serializers.DictField(
        child=serializers.DecimalField(max_digits=6, decimal_places=2),
        required=False,
        help_text='Percent off the book price per category, e.g. {"switch": 12.5}.',
    )
    margin_pct = serializers.DecimalField(
        max_digits=5,
        decimal_places=2,
        required=False,
        help_text="Margin on the sell price: sell = cost / (1 - margin/100); below 100.",
    )
    spares_pct = serializers.DictField(
        child=serializers.DecimalField(max_digits=6, decimal_places=2),
        required=False,
        help_text='Spares percent per category, e.g. {"transceiver": 2}.',
    )
    valid_until = serializers.DateField(required=False, help_text="Default: 30 days from today.")
    notes = serializers.CharField(required=False, allow_blank=True, max_length=4000)


def _terms(data: dict, design, *, may_view_prices: bool) -> dict:
    """Validated serializer data as service keyword arguments.

    Raises
    ------
    PermissionDenied
        Price terms were sent by a user without the price right.
    """
    terms = dict(data)
    if not may_view_prices and set(terms) & set(quotes.PRICE_TERMS):
        raise PermissionDenied(quotes.PRICE_TERMS_HIDDEN)
    if "revision" in terms:
        terms["revision"] = selectors.revision_get(design, terms["revision"])
    for name in ("discounts_pct", "spares_pct"):
        if name in terms:
            terms[name] = {key: float(value) for key, value in terms[name].items()}
    return terms


class _QuoteAPIView(APIView):
    def _design(self, *, write: bool = False):
        return selectors.design_get_for(self.request.user, self.kwargs["design_pk"], write=write)

    def _quote(self, *, write: bool = False) -> Quote:
        return quotes.quote_get(self._design(write=write), self.kwargs["pk"])

    def _may_view_prices(self, quote: Quote | None = None) -> bool:
        """Whether the user has the price right, and, for ``quote``, may read its price book
        (a team's book is read by that team's members with the price right)."""
        if quote is not None:
            return user_can_read_price_book(self.request.user, quote.price_book)
        return user_can_view_prices(self.request.user)

    def _show(self, quote_or_quotes, **kwargs):
        context = {"may_view_prices": self._may_view_prices()}
        return QuoteSerializer(quote_or_quotes, context=context, **kwargs).data

    def _terms(self, data: dict, design) -> dict:
        return _terms(data, design, may_view_prices=self._may_view_prices())


class QuoteListView(_QuoteAPIView):
    """Quotes of a design, newest first; POST creates one with the next number."""

    @extend_schema(responses={200: QuoteSerializer(many=True)})
    def get(self, request, design_pk: int):
        return Response(self._show(quotes.quote_list(self._design()), many=True))

    @extend_schema(request=QuoteWriteSerializer, responses={201: QuoteSerializer})
    def post(self, request, design_pk: int):
        design = self._design(write=True)
        params = QuoteWriteSerializer(data=request.data, context={"request": request})
        params.is_valid(raise_exception=True)
        quote = quotes.quote_create(
            design=design, actor=request.user, **self._terms(params.validated_data, design)
        )
        return Response(self._show(quote), status=status.HTTP_201_CREATED)


class QuoteDetailView(_QuoteAPIView):
    """One quote's terms; PATCH changes them, DELETE removes the quote."""

    @extend_schema(responses={200: QuoteSerializer})
    def get(self, request, design_pk: int, pk: int):
        return Response(self._show(self._quote()))

    @extend_schema(request=QuoteWriteSerializer, responses={200: QuoteSerializer})
    def patch(self, request, design_pk: int, pk: int):
        quote = self._quote(write=True)
        params = QuoteWriteSerializer(data=request.data, partial=True, context={"request": request})
        params.is_valid(raise_exception=True)
        changed = quotes.quote_update(
            quote=quote, actor=request.user, **self._terms(params.validated_data, quote.design)
        )
        return Response(self._show(changed))

    @extend_schema(responses={204: None})
    def delete(self, request, design_pk: int, pk: int):
        quotes.quote_delete(quote=self._quote(write=True), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class QuotePricedView(_QuoteAPIView):
    """The priced quote: lines with unit cost, unit sell and extended prices, category
    subtotals, totals, and unpriced parts (listed, never counted as zero)."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 403: NO_PRICES})
    def get(self, request, design_pk: int, pk: int):
        quote = self._quote()
        quote_require_prices(self._may_view_prices(quote))
        return Response(quotes.quote_price(quote).as_dict())


class QuoteFileView(_QuoteAPIView):
    """The quote as a PDF or XLSX download (needs the price right; audited)."""

    @extend_schema(
        responses={
            (200, "application/pdf"): OpenApiTypes.BINARY,
            (200, quotes.EXPORT_FORMATS["xlsx"]): OpenApiTypes.BINARY,
            403: NO_PRICES,
        }
    )
    def get(self, request, design_pk: int, pk: int, fmt: str):
        quote = self._quote()
        export = quotes.quote_export(
            quote=quote,
            actor=request.user,
            fmt=fmt,
            may_view_prices=self._may_view_prices(quote),
        )
        return quote_file_response(export)


def quote_file_response(export: quotes.ExportFile) -> HttpResponse:
    """An attachment response for an exported quote file."""
    response = HttpResponse(export.content, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    response["Content-Length"] = str(len(export.content))
    return response
