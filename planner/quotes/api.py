"""Quote API, under a design: ``/api/planner/designs/<design>/quotes/``.

- ``GET`` list, ``POST`` create (needs write access to the design);
- ``GET``/``PATCH``/``DELETE`` ``<id>/``: one quote's terms (change and delete need write):
  the customer's name (one line), ``customer_address`` (lines) and ``terms`` (payment,
  delivery, warranty) print on the customer's copy; a sent quote changes none of them (409);
- ``GET <id>/priced/``: the priced bill of materials as JSON (lines, category subtotals,
  totals, unpriced parts; amounts as strings with two decimals); a sent quote's as sent;
- ``GET <id>/pdf/``, ``<id>/xlsx/`` and ``<id>/csv/``: the quote as a file (downloads are
  audited), ``?audience=customer`` for the customer's copy (part, description, quantity, unit
  price, line total, totals and terms: no cost, discount, margin or source) or
  ``?audience=internal`` (the default: everything);
- ``POST <id>/send/``, ``<id>/accept/``, ``<id>/decline/``: the lifecycle (design writers;
  sending needs the price right); a step the status does not allow (sending a sent quote,
  accepting an expired one, changing or deleting a sent one, sending a quote below its team's
  margin floor without an owner's approval) is 409 with ``detail`` saying why and ``status``
  naming the status (and ``field``: ``margin_pct`` for the floor); sending a quote with
  unpriced lines needs ``confirm_unpriced`` (400 naming it otherwise), which is recorded;
- ``POST <id>/approve/``: an owner of the team whose margin floor the draft is below approves
  its margin (audited); the ``approval`` field says whether one is needed and who gave it;
- ``POST <id>/reprice/``: a sent quote's next version from current prices (201, the new
  version); ``GET <id>/diff/``: a version line by line against the one it was re-priced from.

Who reads a design reads its quotes' terms, but the price terms (discounts, margin), the
internal notes and the ``reprice`` field only with the price right
(:func:`planner.designs.selectors.user_can_view_prices`): without it they are left out of
every answer, and writing them is 403. The priced answer, the files, sending and re-pricing
need the price right too, otherwise 403 saying so; the diff then shows quantities only.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.core.validators import RegexValidator
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from inventory.api.serializers import NoEmptyValuesMixin, PatchNamesAFieldMixin, SlugField
from inventory.models import PriceBook
from inventory.permissions import (
    price_books_for,
    price_books_pickable_for,
    user_can_read_price_book,
)
from planner.designs import selectors
from planner.quotes import files as quote_files
from planner.quotes import services as quotes
from planner.quotes.coverage import price_book_coverage
from planner.quotes.models import (
    CUSTOMER_ADDRESS_MAX_CHARS,
    CUSTOMER_ADDRESS_MAX_LINES,
    QUOTE_PRICE_CONDITIONS,
    QUOTE_STATUS_LABELS,
    TERMS_MAX_CHARS,
    Quote,
)
from planner.teams.selectors import quote_require_prices, user_can_view_prices

NO_PRICES = OpenApiResponse(description="The user may not see prices")


PRICE_TERMS_ONLY = " Only for users with the price right: absent otherwise."


@extend_schema_field(OpenApiTypes.OBJECT)
class RepriceField(serializers.Field):
    """A sent quote's :func:`planner.quotes.services.quote_reprice_check` (output only): asked
    for by the context (``reprice``), with the price right only; ``None`` otherwise (and then
    left out of the answer)."""

    def to_representation(self, quote):
        context = self.parent.context
        if not (context.get("reprice") and context.get("may_view_prices")):
            return None
        check = quotes.quote_reprice_check(quote)
        return None if check is None else check.as_dict()

    def to_internal_value(self, data):
        raise serializers.ValidationError("Read only.")


class QuoteSerializer(serializers.ModelSerializer):
    """A quote's terms (no prices: see the ``priced`` link). The price terms
    (:data:`planner.quotes.services.PRICE_TERMS`) are left out unless the context says
    ``may_view_prices``."""

    # Output only (QuoteWriteSerializer takes the input); not read-only so that the schema
    # lists them as optional, since users without the price right do not get them.
    discounts_pct = serializers.DictField(
        child=serializers.DecimalField(max_digits=6, decimal_places=2),
        required=False,
        help_text="Discount percent per category (missing = 0), as exact decimal strings."
        + PRICE_TERMS_ONLY,
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
    status = serializers.ChoiceField(
        source="lifecycle_status",
        choices=list(QUOTE_STATUS_LABELS.items()),
        read_only=True,
        help_text="draft, sent, accepted, declined, superseded, or expired (a sent quote past "
        "its valid_until day).",
    )
    label = serializers.CharField(read_only=True, help_text="The number with its version.")
    previous_version = serializers.IntegerField(
        source="previous.version",
        read_only=True,
        default=None,
        allow_null=True,
        help_text="The version this one was re-priced from.",
    )
    sent_by = serializers.CharField(source="sent_by.username", read_only=True, default="")
    approval = serializers.SerializerMethodField(
        help_text="The margin floor that applies (``team``, ``floor_pct``; null: none), "
        "whether the quote is below it (``needed``), and the approval (``approved``, "
        "``approved_by``, ``approved_at``)." + PRICE_TERMS_ONLY
    )
    reprice = RepriceField(
        source="*",
        required=False,
        help_text="A sent quote's answers only (not in lists): whether re-pricing would change "
        "it (``available``, ``reasons``, ``price_changes`` with the book price sent and today, "
        "``newer_revision``)." + PRICE_TERMS_ONLY,
    )
    links = serializers.SerializerMethodField()

    class Meta:
        model = Quote
        fields = [
            "id",
            "number",
            "version",
            "label",
            "status",
            "previous_version",
            "design",
            *quotes.EDITABLE_FIELDS,
            "created_by",
            "created",
            "updated",
            "sent_at",
            "sent_by",
            "answered_at",
            "approval",
            "reprice",
            "links",
        ]
        # Not read-only: the schema lists them as optional (see ``discounts_pct``).
        read_only_fields = [name for name in fields if name not in (*quotes.PRICE_TERMS, "reprice")]

    def get_approval(self, quote) -> dict | None:
        if not self.context.get("may_view_prices", False):
            return None
        floor = quotes.quote_margin_floor(quote)
        return {
            "team": None if floor is None else floor.team.slug,
            "floor_pct": None if floor is None else str(floor.floor_pct),
            "needed": floor is not None and floor.below(quote.margin_pct),
            "approved": quote.margin_approved,
            "approved_by": quote.approved_by.get_username() if quote.margin_approved else None,
            "approved_at": quote.approved_at.isoformat() if quote.margin_approved else None,
        }

    def to_representation(self, quote):
        data = super().to_representation(quote)
        if not self.context.get("may_view_prices", False):
            for name in (*quotes.PRICE_TERMS, "approval", "reprice"):
                data.pop(name, None)
        elif not self.context.get("reprice", False) or data.get("reprice") is None:
            data.pop("reprice", None)
        return data

    def get_links(self, quote) -> dict[str, str]:
        args = [quote.design_id, quote.pk]
        pdf = reverse("design-quote-pdf", args=args)
        xlsx = reverse("design-quote-xlsx", args=args)
        customer = f"?audience={quote_files.CUSTOMER}"
        return {
            "priced": reverse("design-quote-priced", args=args),
            "pdf": pdf,
            "xlsx": xlsx,
            "pdf_customer": pdf + customer,
            "xlsx_customer": xlsx + customer,
            "csv": reverse("design-quote-csv", args=args),
            "diff": reverse("design-quote-diff", args=args),
            "page": quote.get_absolute_url(),
        }


#: A text of one line (the schema documents it as ``pattern``).
ONE_LINE = RegexValidator(
    r"^[^\r\n]*$",
    message="Give the customer's name on one line; the address goes in customer_address.",
)


class QuoteWriteSerializer(PatchNamesAFieldMixin, serializers.Serializer):
    """Terms of a new or changed quote; the service validates the values."""

    revision = serializers.IntegerField(
        required=False, help_text="Revision number to price (default: the latest)."
    )
    customer = serializers.CharField(
        max_length=200,
        validators=[ONE_LINE],
        help_text="The customer's name, on one line (any script); the address goes in "
        "customer_address.",
    )
    customer_address = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=CUSTOMER_ADDRESS_MAX_CHARS,
        help_text="The customer's postal address, lines separated by newlines, as printed under "
        f"the name on the customer's copy (any script; at most {CUSTOMER_ADDRESS_MAX_LINES} "
        "lines). Empty: none.",
    )
    terms = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=TERMS_MAX_CHARS,
        help_text="Terms for the customer (payment, delivery, warranty), printed under Terms on "
        "the customer's copy after the standard lines. Empty: none.",
    )
    price_book = SlugField(queryset=PriceBook.objects.all())

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
    return terms


QUOTE_STATUS_CONFLICT = OpenApiResponse(
    description="The quote's status does not allow this (``detail`` says why, ``status`` is "
    "the status it is in): e.g. only a draft is sent or changed, an expired quote is not "
    "accepted."
)


class _QuoteAPIView(APIView):
    def handle_exception(self, exc):
        """A step the quote's status does not allow: 409 naming the status (and the field,
        e.g. ``margin_pct`` below the team's floor)."""
        if isinstance(exc, quotes.QuoteStatusError):
            body = {"detail": exc.detail, "status": exc.quote_status}
            field = next(iter(exc.message_dict))
            if field != "status":
                body["field"] = field
                body[field] = [exc.detail]
            return Response(body, status=status.HTTP_409_CONFLICT)
        return super().handle_exception(exc)

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

    def _show(self, quote_or_quotes, *, reprice: bool = False, **kwargs):
        if reprice:  # one quote: its own book decides
            may_view_prices = self._may_view_prices(quote_or_quotes)
        else:
            may_view_prices = self._may_view_prices()
        context = {"may_view_prices": may_view_prices, "reprice": reprice}
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
        return Response(self._show(self._quote(), reprice=True))

    @extend_schema(
        request=QuoteWriteSerializer, responses={200: QuoteSerializer, 409: QUOTE_STATUS_CONFLICT}
    )
    def patch(self, request, design_pk: int, pk: int):
        quote = self._quote(write=True)
        params = QuoteWriteSerializer(data=request.data, partial=True, context={"request": request})
        params.is_valid(raise_exception=True)
        changed = quotes.quote_update(
            quote=quote, actor=request.user, **self._terms(params.validated_data, quote.design)
        )
        return Response(self._show(changed))

    @extend_schema(responses={204: None, 409: QUOTE_STATUS_CONFLICT})
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
        data = quotes.quote_price(quote).as_dict()
        check = quotes.quote_reprice_check(quote)
        if check is not None:
            data["reprice"] = check.as_dict()
        return Response(data)


class QuoteFileQuerySerializer(NoEmptyValuesMixin, serializers.Serializer):
    audience = serializers.ChoiceField(
        choices=list(quote_files.AUDIENCES.items()),
        default=quote_files.INTERNAL,
        help_text="customer: the customer's copy (part, description, quantity, unit price, line "
        "total, totals, terms; no cost, discount, margin or offer source); internal (default): "
        "everything.",
    )


class QuoteFileView(_QuoteAPIView):
    """The quote as a PDF, XLSX or CSV download, the customer's or the internal copy (needs the
    price right; audited)."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "audience",
                str,
                enum=list(quote_files.AUDIENCES),
                description=QuoteFileQuerySerializer().fields["audience"].help_text,
            )
        ],
        responses={
            (200, "application/pdf"): OpenApiTypes.BINARY,
            (200, quotes.EXPORT_FORMATS["xlsx"]): OpenApiTypes.BINARY,
            (200, "text/csv"): OpenApiTypes.BINARY,
            400: OpenApiResponse(description="An unknown audience (``audience`` says why)"),
            403: NO_PRICES,
        },
    )
    def get(self, request, design_pk: int, pk: int, fmt: str):
        quote = self._quote()
        may_view_prices = self._may_view_prices(quote)
        audience = quote_files.INTERNAL
        if may_view_prices:  # without the price right: 403 whatever the query says
            query = QuoteFileQuerySerializer(data=request.query_params)
            query.is_valid(raise_exception=True)
            audience = query.validated_data["audience"]
        export = quotes.quote_export(
            quote=quote,
            actor=request.user,
            fmt=fmt,
            may_view_prices=may_view_prices,
            audience=audience,
        )
        return quote_file_response(export)


class QuoteRepriceSerializer(serializers.Serializer):
    revision = serializers.IntegerField(
        required=False, help_text="Revision number to price (default: the design's latest)."
    )


class QuoteSendSerializer(serializers.Serializer):
    confirm_unpriced = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Send a quote with unpriced lines (its total is then partial); recorded with "
        "who sent it, when and how many lines, and printed on the internal copy.",
    )


UNPRICED_NOT_CONFIRMED = OpenApiResponse(
    description="The quote has unpriced lines and ``confirm_unpriced`` was not given "
    "(``confirm_unpriced`` says how many lines); nothing was written."
)


class QuoteTransitionView(_QuoteAPIView):
    """A step of the quote's lifecycle (``step``, set by the URL): ``send`` (draft -> sent,
    freezes its prices; needs the price right), ``accept`` (sent, not expired -> accepted),
    ``decline`` (sent or expired -> declined), ``approve`` (a team owner approves a draft's
    margin below the team's floor; 403 for anyone else). A step the status does not allow is
    409 with ``status`` naming it."""

    step = ""

    @extend_schema(
        request=QuoteSendSerializer,
        responses={
            200: QuoteSerializer,
            400: UNPRICED_NOT_CONFIRMED,
            403: NO_PRICES,
            409: QUOTE_STATUS_CONFLICT,
        },
    )
    def post(self, request, design_pk: int, pk: int):
        quote = self._quote(write=True)
        if self.step == "send":
            params = QuoteSendSerializer(data=request.data)
            params.is_valid(raise_exception=True)
            done = quotes.quote_send(
                quote=quote,
                actor=request.user,
                may_view_prices=self._may_view_prices(quote),
                confirm_unpriced=params.validated_data["confirm_unpriced"],
            )
        elif self.step == "approve":
            done = quotes.quote_approve(
                quote=quote, actor=request.user, may_view_prices=self._may_view_prices(quote)
            )
        elif self.step == "accept":
            done = quotes.quote_accept(quote=quote, actor=request.user)
        else:
            done = quotes.quote_decline(quote=quote, actor=request.user)
        return Response(self._show(done, reprice=True))


class QuoteRepriceView(_QuoteAPIView):
    """Re-price a sent (or expired) quote: its next version, a draft from current prices for
    the design's latest revision (or ``revision``); the sent one becomes superseded. The new
    version's ``diff`` link compares the two line by line."""

    @extend_schema(
        request=QuoteRepriceSerializer,
        responses={201: QuoteSerializer, 403: NO_PRICES, 409: QUOTE_STATUS_CONFLICT},
    )
    def post(self, request, design_pk: int, pk: int):
        quote = self._quote(write=True)
        params = QuoteRepriceSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        revision = None
        if "revision" in params.validated_data:
            revision = selectors.revision_get(quote.design, params.validated_data["revision"])
        new = quotes.quote_reprice(
            quote=quote,
            actor=request.user,
            may_view_prices=self._may_view_prices(quote),
            revision=revision,
        )
        return Response(self._show(new, reprice=True), status=status.HTTP_201_CREATED)


class QuoteDiffView(_QuoteAPIView):
    """A version of the quote line by line against the version it was re-priced from: lines
    added, removed and changed (quantity, unit price, offer), lines unchanged, and the totals
    with their delta. Without the price right: quantities only (no prices, no totals). A first
    version has nothing to compare (``from`` is null)."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, design_pk: int, pk: int):
        quote = self._quote()
        may_view_prices = self._may_view_prices(quote)
        compared = quotes.quote_version_diff(quote)
        if compared is None:
            return Response(
                {
                    "from": None,
                    "to": {"label": quote.label, "version": quote.version},
                    "detail": f"{quote.label} is the first version: there is no earlier "
                    "version to compare.",
                }
            )
        return Response(compared.as_dict(with_prices=may_view_prices))


def quote_file_response(export: quotes.ExportFile) -> HttpResponse:
    """An attachment response for an exported quote file."""
    response = HttpResponse(export.content, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    response["Content-Length"] = str(len(export.content))
    return response


class PriceBookCoverageView(APIView):
    """How completely a price book prices every preset (the page's figures as JSON)."""

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT},
        description="Per preset: its lines by grade (`counts`: list, reseller, estimate, "
        "unpriced), `priced_pct`, and each unpriced line's reason and each estimated line's "
        "basis. Needs the price right; a book the user may not read is 404.",
    )
    def get(self, request, slug: str):
        quote_require_prices(user_can_view_prices(request.user))
        book = price_books_for(request.user).filter(slug=slug).first()
        if book is None:
            raise Http404("No such price book.")
        rows = price_book_coverage(book, day=timezone.localdate())
        return Response(
            {
                "price_book": book.slug,
                "currency": book.currency,
                "presets": [row.as_dict() for row in rows],
            }
        )
