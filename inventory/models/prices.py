"""Price books: prices kept apart from specs, each with its source and date; exchange rates
between currencies, each with its source and the day it applies from."""

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models

from inventory.library.quantities import range_problem
from inventory.models.parts import CATEGORY_MODELS
from planner.teams.models import Team

__all__ = ["ExchangeRate", "Price", "PriceBook", "PriceQuerySet"]

DATE_PATTERN = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


class PriceBook(models.Model):
    """A named set of prices (a reseller snapshot, a vendor list, a customer's negotiated book).

    A public book (``team`` empty) is read by everyone with the price right and changed by
    catalog editors; a team's book is read by that team's members with the price right and
    changed by its owners with the price right (see :mod:`inventory.permissions`).
    """

    KIND_CHOICES = [
        ("reseller", "Reseller web prices"),
        ("list", "Vendor list prices"),
        ("negotiated", "Negotiated / customer prices"),
    ]

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    currency = models.CharField(
        max_length=3, default="USD", help_text="Default ISO 4217 currency of the book."
    )
    kind = models.CharField(max_length=16, choices=KIND_CHOICES, default="reseller")
    description = models.TextField(blank=True)
    team = models.ForeignKey(
        Team,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="price_books",
        help_text="The team whose owners (with the price right) keep this book; empty = a public "
        "book, kept by catalog editors.",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    def clean(self):
        super().clean()
        if not re.fullmatch(r"[A-Z]{3}", self.currency or ""):
            raise ValidationError({"currency": "Use a three-letter ISO 4217 code, e.g. USD."})


CONDITION_CHOICES = [("new", "New"), ("msrp", "List price (MSRP) as quoted"), ("used", "Used")]


def pricing_offer(path: str = "") -> models.Q:
    """The condition an offer meets to price things (not archived), on a Price or, with
    ``path`` (e.g. ``"prices__"``), on a related one: the one rule of :meth:`for_pricing` and of
    the counts of a book's offers."""
    return models.Q(**{f"{path}archived_at__isnull": True})


class PriceQuerySet(models.QuerySet):
    def for_pricing(self):
        """The offers that price things (quotes, BOM and link-option prices, coverage, the
        media choice): archived offers are kept in their book but price nothing."""
        return self.filter(pricing_offer())

    def archived(self):
        return self.filter(archived_at__isnull=False)


class Price(models.Model):
    """One offer for a part in a book, with where and when it was seen.

    A book may hold several offers for a part (sellers, currencies, lengths, used units);
    quotes pick among them explicitly, never silently. An archived offer (``archived_at``
    set) stays in its book, shown apart, and is left out of every price
    (:meth:`PriceQuerySet.for_pricing`) until it is restored.
    """

    book = models.ForeignKey(PriceBook, on_delete=models.CASCADE, related_name="prices")
    part_category = models.CharField(max_length=16)
    part_slug = models.CharField(max_length=100)
    price = models.DecimalField(max_digits=14, decimal_places=2, validators=[MinValueValidator(0)])
    currency = models.CharField(max_length=3)
    seller = models.CharField(max_length=100, blank=True)
    source_url = models.URLField(max_length=500, blank=True)
    as_of = models.CharField(
        max_length=10, blank=True, help_text="Date the price was seen: YYYY, YYYY-MM or YYYY-MM-DD."
    )
    grade = models.CharField(
        max_length=16,
        default="secondary",
        choices=[
            ("datasheet", "Vendor"),
            ("secondary", "Reseller / third party"),
            ("estimate", "Estimate"),
        ],
    )
    condition = models.CharField(max_length=8, choices=CONDITION_CHOICES, default="new")
    length_m = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
        help_text="For cables and fibers priced per length.",
    )
    note = models.CharField(max_length=300, blank=True)
    archived_at = models.DateTimeField(
        null=True, blank=True, help_text="When the offer was archived; empty = it prices things."
    )
    archived_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="Who archived the offer.",
    )

    objects = PriceQuerySet.as_manager()

    class Meta:
        ordering = ["book", "part_slug", "length_m", "price"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(price__gte=0), name="inventory_price_positive"
            ),
        ]

    #: The fields that describe an offer (everything but its id and book).
    OFFER_FIELDS = (
        "part_category",
        "part_slug",
        "price",
        "currency",
        "seller",
        "source_url",
        "as_of",
        "grade",
        "condition",
        "length_m",
        "note",
    )

    def __str__(self):
        return f"{self.part_slug}: {self.price} {self.currency}"

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    def clean(self):
        super().clean()
        errors = {}
        model = CATEGORY_MODELS.get(self.part_category)
        if model is None:
            errors["part_category"] = f"Unknown category {self.part_category!r}."
        elif not model.objects.filter(slug=self.part_slug).exists():
            errors["part_slug"] = f"No {model._meta.verbose_name} with slug {self.part_slug!r}."
        if not re.fullmatch(r"[A-Z]{3}", self.currency or ""):
            errors["currency"] = "Use a three-letter ISO 4217 code, e.g. USD."
        if self.as_of and not DATE_PATTERN.match(self.as_of):
            errors["as_of"] = "Use YYYY, YYYY-MM or YYYY-MM-DD."
        if problem := range_problem("length_m", self.length_m):
            errors["length_m"] = problem
        if errors:
            raise ValidationError(errors)


class ExchangeRate(models.Model):
    """One unit of ``from_currency`` is worth ``rate`` units of ``to_currency``, from the day
    ``valid_from`` until the pair's next rate; ``source`` says where the figure comes from.

    A quote in one currency priced from offers in another converts them with the rate of
    that pair valid on the quote's date (the latest ``valid_from`` on or before it); the
    rate and its date are stored with the quote when it is sent. Kept by catalog editors
    (:mod:`inventory.permissions`); every signed-in user reads them (a rate is public).
    """

    from_currency = models.CharField(max_length=3, help_text="ISO 4217 code, e.g. USD.")
    to_currency = models.CharField(max_length=3, help_text="ISO 4217 code, e.g. EUR.")
    rate = models.DecimalField(
        max_digits=20,
        decimal_places=10,
        help_text="Units of to_currency for one unit of from_currency (above 0).",
    )
    valid_from = models.DateField(help_text="The day the rate applies from.")
    source = models.CharField(
        max_length=200, help_text="Where the rate comes from, e.g. a central bank's reference rate."
    )
    source_url = models.URLField(max_length=500, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["from_currency", "to_currency", "-valid_from"]
        constraints = [
            models.UniqueConstraint(
                fields=["from_currency", "to_currency", "valid_from"],
                name="inventory_exchange_rate_one_per_day",
            ),
            models.CheckConstraint(
                condition=models.Q(rate__gt=0), name="inventory_exchange_rate_positive"
            ),
            models.CheckConstraint(
                condition=~models.Q(from_currency=models.F("to_currency")),
                name="inventory_exchange_rate_two_currencies",
            ),
        ]

    #: The fields that describe a rate (everything but its id and times).
    RATE_FIELDS = ("from_currency", "to_currency", "rate", "valid_from", "source", "source_url")

    def __str__(self):
        return f"1 {self.from_currency} = {self.rate} {self.to_currency} from {self.valid_from}"

    @property
    def pair(self) -> str:
        return f"{self.from_currency}/{self.to_currency}"

    def clean(self):
        super().clean()
        errors = {}
        for name in ("from_currency", "to_currency"):
            if not re.fullmatch(r"[A-Z]{3}", getattr(self, name) or ""):
                errors[name] = "Use a three-letter ISO 4217 code in capitals, e.g. USD."
        if "to_currency" not in errors and self.from_currency == self.to_currency:
            errors["to_currency"] = "Choose another currency than the one converted from."
        if self.rate is not None and (not self.rate.is_finite() or self.rate <= 0):
            errors["rate"] = "The rate must be above 0."
        if not (self.source or "").strip():
            errors["source"] = "Say where the rate comes from."
        same_day = ExchangeRate.objects.filter(
            from_currency=self.from_currency,
            to_currency=self.to_currency,
            valid_from=self.valid_from,
        ).exclude(pk=self.pk)
        if not errors and self.valid_from is not None and same_day.exists():
            errors["valid_from"] = (
                f"{self.pair} already has a rate from {self.valid_from}: change that one."
            )
        if errors:
            raise ValidationError(errors)
