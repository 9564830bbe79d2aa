"""The job row: the single source of truth for a background run."""

import uuid

from django.conf import settings
from django.db import models


class JobStatusChoices(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class JobKindChoices(models.TextChoices):
    DIAGNOSTICS = "diagnostics", "Worker diagnostics"


class Job(models.Model):
    """A background run on a Celery worker.

    The row is created before the task is sent (on commit, with the row id as task id), and
    the worker writes status, progress, result and error back to it. No Celery result backend
    is used.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=32, choices=JobKindChoices.choices)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="jobs"
    )
    parameters = models.JSONField(default=dict, blank=True)
    input_hash = models.CharField(max_length=64, db_index=True)
    status = models.CharField(
        max_length=16,
        choices=JobStatusChoices.choices,
        default=JobStatusChoices.QUEUED,
        db_index=True,
    )
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    progress_message = models.CharField(max_length=200, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return f"{self.get_kind_display()} {self.id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in {
            JobStatusChoices.SUCCEEDED,
            JobStatusChoices.FAILED,
            JobStatusChoices.CANCELLED,
        }
