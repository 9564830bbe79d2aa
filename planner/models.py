"""Designs: teams that share them, and each design's immutable revisions.

A :class:`Design` is a named fabric owned by a user and optionally shared with a team. Each
change of its spec is a new :class:`DesignRevision` holding the spec, the generated topology
(zlib-compressed JSON of ``Fabric.to_dict()``) and its summary; revisions are never updated,
so a restore is a new revision too. Writes go through :mod:`planner.services`.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils import timezone

from planner.domain.outputs.bom import CATEGORIES as BOM_CATEGORIES

__all__ = [
    "AuditActionChoices",
    "AuditEvent",
    "Design",
    "DesignRevision",
    "DesignRevisionKindChoices",
    "DesignSharingChoices",
    "Quote",
    "QuoteNumberSequence",
    "RevisionImmutableError",
    "Team",
    "TeamMembership",
    "TeamRoleChoices",
]


class TeamRoleChoices(models.TextChoices):
    VIEWER = "viewer", "Viewer"
    EDITOR = "editor", "Editor"
    OWNER = "owner", "Owner"


#: Roles that may change designs shared with the team as ``team-edit``.
WRITE_ROLES = (TeamRoleChoices.EDITOR, TeamRoleChoices.OWNER)


class DesignSharingChoices(models.TextChoices):
    PRIVATE = "private", "Private (owner only)"
    TEAM_READ = "team-read", "Team can view"
    TEAM_EDIT = "team-edit", "Team editors can change"


class DesignRevisionKindChoices(models.TextChoices):
    GENERATED = "generated", "Generated"
    EDITED = "edited", "Edited"
    RESTORED = "restored", "Restored"


class RevisionImmutableError(Exception):
    """A stored revision was about to be changed; make a new revision instead."""


class Team(models.Model):
    """A group of users who share designs; each member has a role."""

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=60, unique=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class TeamMembership(models.Model):
    """A user's role in a team: viewers read shared designs, editors and owners change them."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="team_memberships"
    )
    role = models.CharField(
        max_length=8, choices=TeamRoleChoices.choices, default=TeamRoleChoices.VIEWER
    )
    can_view_prices = models.BooleanField(
        default=False,
        help_text="Sees catalog prices, price books and priced quotes (sales role).",
    )

    class Meta:
        ordering = ["team", "user"]
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="planner_membership_unique"),
        ]

    def __str__(self):
        return f"{self.user} in {self.team} ({self.role})"

    @property
    def can_write(self) -> bool:
        return self.role in WRITE_ROLES


class Design(models.Model):
    """A fabric design: name, owner, sharing, and its revisions (latest = current)."""

    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, max_length=2000)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="designs"
    )
    team = models.ForeignKey(
        Team,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="designs",
        help_text="Team the design is shared with (see sharing).",
    )
    sharing = models.CharField(
        max_length=10, choices=DesignSharingChoices.choices, default=DesignSharingChoices.PRIVATE
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(sharing="private") | models.Q(team__isnull=False),
                name="planner_design_shared_needs_team",
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("planner:design-detail", args=[self.pk])

    def clean(self):
        super().clean()
        errors = {}
        if self.sharing != DesignSharingChoices.PRIVATE and self.team_id is None:
            errors["team"] = "Choose the team to share with, or make the design private."
        if (
            self.team_id is not None
            and self.owner_id is not None
            and not TeamMembership.objects.filter(
                team_id=self.team_id, user_id=self.owner_id
            ).exists()
        ):
            errors["team"] = "The design's owner must be a member of that team."
        if errors:
            raise ValidationError(errors)

    @property
    def latest_revision(self) -> DesignRevision | None:
        return self.revisions.order_by("-number").first()


class DesignRevision(models.Model):
    """One immutable state of a design: spec, generated topology and summary.

    ``kind`` edited covers spec edits and topology edits (the canvas); a topology edit keeps
    its base revision's spec, and a design drawn from scratch has the empty spec ``{}``.

    ``number`` counts from 1 per design; ``parent`` is the number it was made from (the base
    of an edit, or the revision a restore copies). Saving a stored revision raises
    :class:`RevisionImmutableError`.
    """

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    spec = models.JSONField(
        blank=True,
        help_text="The design spec, with defaults filled in ({} for a design drawn on the canvas).",
    )
    topology = models.BinaryField(help_text="zlib-compressed JSON of Fabric.to_dict().")
    summary = models.JSONField(default=dict)
    kind = models.CharField(
        max_length=10,
        choices=DesignRevisionKindChoices.choices,
        default=DesignRevisionKindChoices.GENERATED,
    )
    message = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="design_revisions",
    )
    created = models.DateTimeField(auto_now_add=True)
    parent = models.PositiveIntegerField(
        null=True, blank=True, help_text="Number of the revision this one was made from."
    )

    class Meta:
        ordering = ["design", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["design", "number"], name="planner_revision_unique"),
            models.CheckConstraint(
                condition=models.Q(number__gte=1), name="planner_revision_number_positive"
            ),
        ]

    def __str__(self):
        return f"{self.design} r{self.number}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise RevisionImmutableError(
                f"revision {self.number} of design {self.design_id} is stored and cannot change; "
                "create a new revision"
            )
        super().save(*args, **kwargs)

    def clean(self):
        super().clean()
        errors = {}
        if not isinstance(self.spec, dict):
            errors["spec"] = "The spec must be a mapping of keys (name, topology, ...)."
        elif not self.spec and self.kind == DesignRevisionKindChoices.GENERATED:
            # A drawn (hand-edited from scratch) design has no spec: {} in edited revisions.
            errors["spec"] = "A generated revision stores the spec it was generated from."
        if not isinstance(self.summary, dict):
            errors["summary"] = "The summary must be a mapping."
        if not self.topology:
            errors["topology"] = "A revision stores its generated topology."
        if self.parent is not None and self.number is not None and self.parent >= self.number:
            errors["parent"] = "The parent must be an earlier revision."
        if self.kind == DesignRevisionKindChoices.RESTORED and self.parent is None:
            errors["parent"] = "A restored revision names the revision it restores."
        if errors:
            raise ValidationError(errors)


class AuditActionChoices(models.TextChoices):
    DESIGN_CREATED = "design.created", "Design created"
    DESIGN_CHANGED = "design.changed", "Design changed"
    DESIGN_REVISED = "design.revised", "Revision saved"
    DESIGN_RESTORED = "design.restored", "Revision restored"
    DESIGN_DELETED = "design.deleted", "Design deleted"
    JOB_SUBMITTED = "job.submitted", "Job submitted"
    JOB_CANCELLED = "job.cancelled", "Job cancelled"
    EXPORT_DOWNLOADED = "export.downloaded", "Export downloaded"
    QUOTE_CHANGED = "quote.changed", "Quote changed"
    IMPORT_APPLIED = "import.applied", "Import applied"
    CATALOG_CHANGED = "catalog.changed", "Catalog changed"
    CATALOG_DELETED = "catalog.deleted", "Catalog entry deleted"
    CATALOG_ARCHIVED = "catalog.archived", "Catalog part archived"
    PRICE_CHANGED = "price.changed", "Prices changed"


class AuditEvent(models.Model):
    """Who did what, when, to which design: written by services, never updated.

    ``design`` is kept as a plain id and name as well as a foreign key, so events outlive a
    deleted design; ``team`` is the design's team at the time (owners of that team read them).
    """

    created = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit_events",
    )
    action = models.CharField(max_length=32, choices=AuditActionChoices.choices)
    team = models.ForeignKey(
        Team, on_delete=models.SET_NULL, null=True, blank=True, related_name="audit_events"
    )
    design = models.ForeignKey(
        Design, on_delete=models.SET_NULL, null=True, blank=True, related_name="audit_events"
    )
    design_ref = models.PositiveIntegerField(null=True, blank=True)
    design_name = models.CharField(max_length=100, blank=True)
    object_type = models.CharField(max_length=40, blank=True)
    object_ref = models.CharField(max_length=64, blank=True)
    summary = models.CharField(max_length=300)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["team", "-created"], name="planner_audit_team_created")]

    def __str__(self):
        return f"{self.created:%Y-%m-%d %H:%M} {self.actor} {self.action}: {self.summary}"


#: Price offer conditions a quote may be priced from (see ``inventory.models.prices``).
QUOTE_PRICE_CONDITIONS = [("new", "New"), ("msrp", "List price (MSRP)"), ("used", "Used")]

#: Categories a quote's discounts and spares are given per (the bill of materials' categories).
QUOTE_CATEGORIES = BOM_CATEGORIES

#: Days a new quote stays valid unless another date is chosen.
QUOTE_VALIDITY_DAYS = 30


def quote_default_valid_until():
    return timezone.localdate() + timedelta(days=QUOTE_VALIDITY_DAYS)


class Quote(models.Model):
    """A priced offer for one revision of a design, numbered ``Q-<year>-<sequence>``.

    Prices come from ``price_book`` (offers of ``price_condition`` in ``currency``), lowered by
    ``discounts_pct`` per category; the sell price adds ``margin_pct`` as a margin on the sell
    price: ``sell = cost / (1 - margin_pct / 100)``. ``spares_pct`` adds spares per category to
    the bill of materials. The numbers are assigned by :func:`planner.quotes.quote_create`.
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
    number = models.CharField(max_length=20, unique=True, editable=False)
    customer = models.CharField(max_length=200)
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
        ordering = ["-year", "-sequence"]
        constraints = [
            models.UniqueConstraint(fields=["year", "sequence"], name="planner_quote_sequence"),
            models.CheckConstraint(
                condition=models.Q(margin_pct__gte=0) & models.Q(margin_pct__lt=100),
                name="planner_quote_margin_range",
            ),
        ]

    def __str__(self):
        return f"{self.number} {self.customer}"

    def get_absolute_url(self):
        return reverse("planner:quote-detail", args=[self.design_id, self.pk])

    def clean(self):
        super().clean()
        errors = {}
        if (
            self.revision_id is not None
            and self.design_id is not None
            and self.revision.design_id != self.design_id
        ):
            errors["revision"] = "Choose a revision of this quote's design."
        if not isinstance(self.currency, str) or len(self.currency) != 3:
            errors["currency"] = "Use a three-letter ISO 4217 code, e.g. USD."
        elif not self.currency.isascii() or not self.currency.isupper():
            errors["currency"] = "Use a three-letter ISO 4217 code in capitals, e.g. USD."
        if self.margin_pct is not None and not 0 <= self.margin_pct < 100:
            errors["margin_pct"] = "The margin is a percent of the sell price: 0 up to (not) 100."
        for field in ("discounts_pct", "spares_pct"):
            problem = _percent_map_problem(getattr(self, field))
            if problem:
                errors[field] = problem
        if self.valid_until is not None:
            created_on = timezone.localdate(self.created) if self.created else timezone.localdate()
            if self.valid_until <= created_on:
                errors["valid_until"] = (
                    f"The quote must stay valid after the day it is made ({created_on})."
                )
        if errors:
            raise ValidationError(errors)


class QuoteNumberSequence(models.Model):
    """The last quote number given in a year: numbers count on and are never given twice,
    even after a quote is deleted. Locked (``select_for_update``) while a number is taken."""

    year = models.PositiveSmallIntegerField(unique=True)
    last = models.PositiveIntegerField(default=0)

    def __str__(self):
        return f"{self.year}: {self.last}"


def _percent_map_problem(values) -> str:
    """Why ``values`` is not a {category: percent 0..100} mapping ("" when it is)."""
    if not isinstance(values, dict):
        return 'Give a mapping of category to percent, e.g. {"switch": 10}.'
    for category, value in values.items():
        if category not in QUOTE_CATEGORIES:
            return f"Unknown category {category!r}; use one of {', '.join(QUOTE_CATEGORIES)}."
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            return f"{category}: give a number of percent."
        try:
            number = float(value)
        except ValueError:
            return f"{category}: {value!r} is not a number."
        if not 0 <= number <= 100:
            return f"{category}: {number:g} is outside 0..100 percent."
    return ""
