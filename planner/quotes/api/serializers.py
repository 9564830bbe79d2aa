"""The quote API's serializers: a quote's terms as read (:class:`QuoteSerializer`) and as
written (:class:`QuoteWriteSerializer`), and the bodies and queries of its steps and files."""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from inventory.api.serializers import SlugField
from inventory.models import PriceBook
from inventory.permissions import price_books_pickable_for
from planner.api_base.serializers import NoEmptyValuesMixin, PatchNamesAFieldMixin
from planner.quotes import files as quote_files
from planner.quotes import services as quotes
from planner.quotes.models import (
    CUSTOMER_ADDRESS_MAX_CHARS,
    CUSTOMER_ADDRESS_MAX_LINES,
    QUOTE_PRICE_CONDITIONS,
    QUOTE_STATUS_LABELS,
    TERMS_MAX_CHARS,
    Quote,
)

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


class QuoteFileQuerySerializer(NoEmptyValuesMixin, serializers.Serializer):
    audience = serializers.ChoiceField(
        choices=list(quote_files.AUDIENCES.items()),
        default=quote_files.INTERNAL,
        help_text="customer: the customer's copy (part, description, quantity, unit price, line "
        "total, totals, terms; no cost, discount, margin or offer source); internal (default): "
        "everything.",
    )


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
