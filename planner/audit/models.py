"""The audit log's event: who did what, when, to which design or catalog entry.

The audit app (label ``audit``) stands low, right above teams: every app above it writes
events, and the event points at nothing above it. A design is named by its id and name
(``design_ref``, ``design_name``), not by a foreign key, so events outlive the design and the
designs app may sit above the log; who reads a design's events by owning it is told by the
designs app (:func:`planner.audit.log.add_design_readers`).
"""

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

    The design is kept as its id and name (``design_ref``, ``design_name``), so events outlive
    a deleted design; ``team`` is the design's team at the time (owners of that team read them).
    The table is the one the planner app made (``planner_auditevent``), kept in place.
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
    design_ref = models.PositiveIntegerField(
        null=True, blank=True, db_index=True, help_text="The design's id (kept after a delete)."
    )
    design_name = models.CharField(max_length=100, blank=True)
    object_type = models.CharField(max_length=40, blank=True)
    object_ref = models.CharField(max_length=64, blank=True)
    summary = models.CharField(max_length=300)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "planner_auditevent"  # the table as it was under the planner app (kept)
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["team", "-created"], name="planner_audit_team_created")]

    def __str__(self):
        return f"{self.created:%Y-%m-%d %H:%M} {self.actor} {self.action}: {self.summary}"
