"""Price books: prices kept apart from specs, each with its source and date."""

import re

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models

__all__ = ["Price", "PriceBook"]

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
        "planner.Team",
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


class Price(models.Model):
    """One offer for a part in a book, with where and when it was seen.

    A book may hold several offers for a part (sellers, currencies, lengths, used units);
    quotes pick among them explicitly, never silently.
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

    def clean(self):
        from inventory.models.parts import CATEGORY_MODELS

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
        if errors:
            raise ValidationError(errors)
