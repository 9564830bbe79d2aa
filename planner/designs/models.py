"""Designs and their immutable revisions.

A :class:`Design` is a named fabric owned by a user and optionally shared with a team. Each
change of its spec is a new :class:`DesignRevision` holding the spec, the generated topology
(zlib-compressed JSON of ``Fabric.to_dict()``) and its summary; revisions are never updated,
so a restore is a new revision too. Writes go through :mod:`planner.designs.services`.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.urls import reverse

from planner.teams.models import Team, TeamMembership


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
        db_table = "planner_design"  # the table as it was under the planner app (kept in place)
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
        db_table = "planner_designrevision"  # kept in place from the planner app
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
