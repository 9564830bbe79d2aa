"""Quote API, under a design: ``/api/planner/designs/<design>/quotes/`` (routes in
:mod:`planner.quotes.api.urls`; serializers in :mod:`planner.quotes.api.serializers`).

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
(:func:`planner.teams.selectors.user_can_view_prices`): without it they are left out of
every answer, and writing them is 403. The priced answer, the files, sending and re-pricing
need the price right too, otherwise 403 saying so; the diff then shows quantities only.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from inventory.permissions import price_books_for, user_can_read_price_book
from planner.designs import selectors
from planner.quotes import files as quote_files
from planner.quotes import services as quotes
from planner.quotes.api.serializers import (
    QuoteFileQuerySerializer,
    QuoteRepriceSerializer,
    QuoteSendSerializer,
    QuoteSerializer,
    QuoteWriteSerializer,
)
from planner.quotes.coverage import price_book_coverage
from planner.quotes.models import Quote
from planner.teams.selectors import quote_require_prices, user_can_view_prices

NO_PRICES = OpenApiResponse(description="The user may not see prices")


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
