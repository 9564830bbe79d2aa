"""One import of what a built fabric reports, kept with the revision it was checked against."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from planner.designs.models import DesignRevision


class FieldImportKindChoices(models.TextChoices):
    CABLING = "cabling", "As-built cabling"
    COUNTERS = "counters", "Counter snapshot"


class FieldImportFormatChoices(models.TextChoices):
    LLDP_JSON = "lldp-json", "LLDP neighbours (JSON)"
    LLDP_CSV = "lldp-csv", "LLDP neighbours (CSV)"
    IBNETDISCOVER = "ibnetdiscover", "InfiniBand ibnetdiscover"
    NETBOX_CABLES = "netbox-cables", "NetBox cable export (CSV)"
    COUNTERS_CSV = "counters-csv", "Port counters (CSV)"
    COUNTERS_JSON = "counters-json", "Port counters (JSON)"


class FieldImport(models.Model):
    """A file the built fabric produced, parsed whole and compared with one revision.

    Written once by a service, in one transaction, only when the whole file parsed and every
    device and port it names is resolved; ``summary`` holds the counts a list shows and
    ``report`` the findings (as-built differences or the per-link counter overlay).
    """

    revision = models.ForeignKey(
        DesignRevision, on_delete=models.CASCADE, related_name="field_imports"
    )
    kind = models.CharField(max_length=16, choices=FieldImportKindChoices.choices)
    source_format = models.CharField(max_length=24, choices=FieldImportFormatChoices.choices)
    file_name = models.CharField(max_length=200, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="field_imports",
    )
    summary = models.JSONField(default=dict, blank=True)
    report = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "planner_fieldimport"  # the table as it was under the planner app (kept)
        ordering = ["-created", "-id"]

    def __str__(self):
        return f"{self.get_kind_display()} for revision {self.revision_id}"
