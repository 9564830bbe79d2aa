"""Quotes: a priced offer for one revision of a design, numbered per year, with a lifecycle
(draft -> sent -> accepted / declined / expired, or superseded by a new version)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone

from planner.designs.models import Design, DesignRevision
from planner.domain.outputs.bom import CATEGORIES as BOM_CATEGORIES
from planner.domain.outputs.bom import SPARES_CATEGORIES

#: Price offer conditions a quote may be priced from (see ``inventory.models.prices``).
QUOTE_PRICE_CONDITIONS = [("new", "New"), ("msrp", "List price (MSRP)"), ("used", "Used")]


#: Categories a quote's discounts and spares are given per (the bill of materials' categories).
QUOTE_CATEGORIES = BOM_CATEGORIES
#: Categories a quote's spares are given per (racks are never spared).
QUOTE_SPARES_CATEGORIES = SPARES_CATEGORIES


#: Limits of the customer-facing texts (checked by :meth:`Quote.clean`: a ``TextField``'s
#: ``max_length`` is not checked by the model itself).
CUSTOMER_ADDRESS_MAX_CHARS = 1000
CUSTOMER_ADDRESS_MAX_LINES = 12
TERMS_MAX_CHARS = 4000


def address_lines(text: str) -> list[str]:
    """The lines of an address as printed: each without surrounding spaces, blank ones left out.

    >>> address_lines("  1 Main Street\\r\\n\\nSpringfield  ")
    ['1 Main Street', 'Springfield']
    """
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


#: Days a new quote stays valid unless another date is chosen.
QUOTE_VALIDITY_DAYS = 30
#: Longest validity a quote may be given: a year (a price book's offers are dated; a quote
#: valid until 9999-12-31 would promise prices no one holds).
QUOTE_MAX_VALIDITY_DAYS = 366


def quote_default_valid_until():
    return timezone.localdate() + timedelta(days=QUOTE_VALIDITY_DAYS)


class QuoteStatusChoices(models.TextChoices):
    """Stored statuses of a quote. *Expired* is not stored: a sent quote is expired once its
    ``valid_until`` day has passed (:attr:`Quote.lifecycle_status`)."""

    DRAFT = "draft", "Draft"
    SENT = "sent", "Sent"
    ACCEPTED = "accepted", "Accepted"
    DECLINED = "declined", "Declined"
    SUPERSEDED = "superseded", "Superseded"


#: The status a sent quote shows once its validity has passed.
QUOTE_EXPIRED = "expired"
QUOTE_STATUS_LABELS = {**dict(QuoteStatusChoices.choices), QUOTE_EXPIRED: "Expired"}


class Quote(models.Model):
    """A priced offer for one revision of a design, numbered ``Q-<year>-<sequence>``.

    Prices come from ``price_book`` (offers of ``price_condition`` in ``currency``), lowered by
    ``discounts_pct`` per category; the sell price adds ``margin_pct`` as a margin on the sell
    price: ``sell = cost / (1 - margin_pct / 100)``. ``spares_pct`` adds spares per category to
    the bill of materials. The numbers are assigned by :func:`planner.quotes.services.quote_create`.

    A draft is priced from the book each time it is read. Sending it stores ``snapshot``
    (:func:`planner.domain.outputs.quote_versions.freeze`: every priced line, the offers with
    their source and date, the totals, the design's name and the book's) and from then on
    every reader uses that snapshot. Re-pricing a sent quote makes version ``n + 1`` with the
    same number (``previous`` points back) and marks this one superseded.
    """

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="quotes")
    revision = models.ForeignKey(
        DesignRevision,
        on_delete=models.CASCADE,
        related_name="quotes",
        help_text="The revision of the design this quote prices.",
    )
    year = models.PositiveSmallIntegerField(editable=False)
    sequence = models.PositiveIntegerField(editable=False)
    number = models.CharField(max_length=20, db_index=True, editable=False)
    version = models.PositiveSmallIntegerField(default=1, editable=False)
    previous = models.ForeignKey(
        "self",
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        editable=False,
        related_name="next_versions",
        help_text="The version this one was re-priced from.",
    )
    status = models.CharField(
        max_length=12,
        choices=QuoteStatusChoices.choices,
        default=QuoteStatusChoices.DRAFT,
        editable=False,
    )
    snapshot = models.JSONField(
        null=True,
        blank=True,
        editable=False,
        help_text="The quote as sent: priced lines, offers, totals, design and book names.",
    )
    sent_at = models.DateTimeField(null=True, blank=True, editable=False)
    sent_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="quotes_sent",
    )
    answered_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When it was accepted or declined."
    )
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="quotes_approved",
        help_text="The team owner who approved a margin below the team's floor.",
    )
    approved_at = models.DateTimeField(null=True, blank=True, editable=False)
    approved_margin_pct = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        editable=False,
        help_text="The margin approved; a changed margin needs a new approval.",
    )
    customer = models.CharField(
        max_length=200, help_text="The customer's name, on one line (any script)."
    )
    customer_address = models.TextField(
        blank=True,
        max_length=CUSTOMER_ADDRESS_MAX_CHARS,
        help_text="The customer's postal address, one line per line as printed (any script; "
        f"at most {CUSTOMER_ADDRESS_MAX_LINES} lines and {CUSTOMER_ADDRESS_MAX_CHARS:,} "
        "characters). Printed under the name on the customer's copy.",
    )
    terms = models.TextField(
        blank=True,
        max_length=TERMS_MAX_CHARS,
        help_text="Terms for the customer (payment, delivery, warranty), printed on the "
        f"customer's copy under Terms; at most {TERMS_MAX_CHARS:,} characters. Optional.",
    )
    price_book = models.ForeignKey(
        "inventory.PriceBook", on_delete=models.PROTECT, related_name="quotes"
    )
    price_condition = models.CharField(
        max_length=8,
        choices=QUOTE_PRICE_CONDITIONS,
        default="new",
        help_text="Which offers of the price book count (the lowest per part).",
    )
    currency = models.CharField(max_length=3, help_text="ISO 4217 code, e.g. USD.")
    discounts_pct = models.JSONField(
        default=dict, blank=True, help_text="Discount percent per category (missing = 0)."
    )
    margin_pct = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=0,
        help_text="Margin on the sell price: sell = cost / (1 - margin).",
    )
    spares_pct = models.JSONField(
        default=dict, blank=True, help_text="Spares percent per category (missing = 0)."
    )
    valid_until = models.DateField(default=quote_default_valid_until)
    notes = models.TextField(blank=True, max_length=4000)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="quotes",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "planner_quote"  # the table as it was under the planner app (kept in place)
        ordering = ["-year", "-sequence", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["year", "sequence", "version"], name="planner_quote_sequence_version"
            ),
            models.UniqueConstraint(
                fields=["number", "version"], name="planner_quote_number_version"
            ),
            models.CheckConstraint(
                condition=models.Q(version__gte=1), name="planner_quote_version_from_1"
            ),
            models.CheckConstraint(
                condition=models.Q(status=QuoteStatusChoices.DRAFT)
                | models.Q(snapshot__isnull=False),
                name="planner_quote_sent_has_snapshot",
            ),
            models.CheckConstraint(
                condition=models.Q(margin_pct__gte=0) & models.Q(margin_pct__lt=100),
                name="planner_quote_margin_range",
            ),
        ]

    def __str__(self):
        return f"{self.label} {self.customer}"

    def get_absolute_url(self):
        return reverse("planner:quote-detail", args=[self.design_id, self.pk])

    @property
    def label(self) -> str:
        """The number, with the version from the second on: ``Q-2026-0042 v2``."""
        return self.number if self.version == 1 else f"{self.number} v{self.version}"

    @property
    def frozen(self) -> bool:
        """Whether the quote was sent (its prices are the snapshot's, never the book's)."""
        return self.status != QuoteStatusChoices.DRAFT

    @property
    def margin_approved(self) -> bool:
        """Whether a team owner approved this quote's margin as it stands."""
        return self.approved_at is not None and self.approved_margin_pct == self.margin_pct

    @property
    def is_expired(self) -> bool:
        """A sent quote whose last valid day has passed."""
        return (
            self.status == QuoteStatusChoices.SENT
            and self.valid_until is not None
            and self.valid_until < timezone.localdate()
        )

    @property
    def lifecycle_status(self) -> str:
        """The stored status, or ``expired`` for a sent quote past its validity."""
        return QUOTE_EXPIRED if self.is_expired else self.status

    def get_lifecycle_status_display(self) -> str:
        return QUOTE_STATUS_LABELS[self.lifecycle_status]

    def clean(self):
        super().clean()
        errors = {}
        if (
            self.revision_id is not None
            and self.design_id is not None
            and self.revision.design_id != self.design_id
        ):
            errors["revision"] = "Choose a revision of this quote's design."
        if isinstance(self.customer, str) and ("\n" in self.customer or "\r" in self.customer):
            errors["customer"] = (
                "Give the customer's name on one line; the address goes in customer_address."
            )
        problem = _address_problem(self.customer_address)
        if problem:
            errors["customer_address"] = problem
        if isinstance(self.terms, str) and len(self.terms) > TERMS_MAX_CHARS:
            errors["terms"] = (
                f"The terms have {len(self.terms):,} characters; at most {TERMS_MAX_CHARS:,}."
            )
        if not isinstance(self.currency, str) or len(self.currency) != 3:
            errors["currency"] = "Use a three-letter ISO 4217 code, e.g. USD."
        elif not self.currency.isascii() or not self.currency.isupper():
            errors["currency"] = "Use a three-letter ISO 4217 code in capitals, e.g. USD."
        if self.margin_pct is not None and not 0 <= self.margin_pct < 100:
            errors["margin_pct"] = "The margin is a percent of the sell price: 0 up to (not) 100."
        for field in ("discounts_pct", "spares_pct"):
            categories = QUOTE_SPARES_CATEGORIES if field == "spares_pct" else QUOTE_CATEGORIES
            problem = _percent_map_problem(getattr(self, field), categories)
            if problem:
                errors[field] = problem
        if self.valid_until is not None:
            created_on = timezone.localdate(self.created) if self.created else timezone.localdate()
            if self.valid_until <= created_on:
                errors["valid_until"] = (
                    f"The quote must stay valid after the day it is made ({created_on})."
                )
            elif self.valid_until > created_on + timedelta(days=QUOTE_MAX_VALIDITY_DAYS):
                errors["valid_until"] = (
                    f"A quote stays valid at most {QUOTE_MAX_VALIDITY_DAYS} days (until "
                    f"{created_on + timedelta(days=QUOTE_MAX_VALIDITY_DAYS)}); prices move faster."
                )
        if errors:
            raise ValidationError(errors)


class QuoteNumberSequence(models.Model):
    """The last quote number given in a year: numbers count on and are never given twice,
    even after a quote is deleted. Locked (``select_for_update``) while a number is taken."""

    year = models.PositiveSmallIntegerField(unique=True)
    last = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "planner_quotenumbersequence"  # kept in place from the planner app

    def __str__(self):
        return f"{self.year}: {self.last}"


def _address_problem(text) -> str:
    """Why ``text`` is not an address within the limits ("" when it is)."""
    if not isinstance(text, str):
        return "Give the address as text."
    if len(text) > CUSTOMER_ADDRESS_MAX_CHARS:
        return f"The address has {len(text):,} characters; at most {CUSTOMER_ADDRESS_MAX_CHARS:,}."
    lines = len(address_lines(text))
    if lines > CUSTOMER_ADDRESS_MAX_LINES:
        return f"The address has {lines} lines; at most {CUSTOMER_ADDRESS_MAX_LINES}."
    return ""


def _percent_map_problem(values, categories) -> str:
    """Why ``values`` is not a {category: percent 0..100} mapping of ``categories`` ("" when
    it is)."""
    if not isinstance(values, dict):
        return 'Give a mapping of category to percent, e.g. {"switch": 10}.'
    for category, value in values.items():
        if category not in categories:
            return f"Unknown category {category!r}; use one of {', '.join(categories)}."
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            return f"{category}: give a number of percent."
        try:
            number = float(value)
        except ValueError:
            return f"{category}: {value!r} is not a number."
        if not 0 <= number <= 100:
            return f"{category}: {number:g} is outside 0..100 percent."
    return ""
