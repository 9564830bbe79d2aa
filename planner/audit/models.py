"""The audit log's event: who did what, when, to which design or catalog entry."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from planner.teams.models import Team


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
    TEAM_CHANGED = "team.changed", "Team members changed"


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
        "planner.Design",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit_events",
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
