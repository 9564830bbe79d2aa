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
    VALIDATE = "validate", "Validation"
    POWER = "power", "Power budget"
    SIMULATE = "simulate", "Flow simulation"
    SWEEP = "sweep", "Parameter sweep"
    SIZE_SWEEP = "size_sweep", "Message-size sweep"
    WHATIF = "whatif", "What-if failure"
    EXPLORE = "explore", "Design-space exploration"


#: Statuses after which a job never changes.
FINISHED_STATUSES = (
    JobStatusChoices.SUCCEEDED,
    JobStatusChoices.FAILED,
    JobStatusChoices.CANCELLED,
)
#: Statuses that count against a user's concurrent-job limit.
ACTIVE_STATUSES = (JobStatusChoices.QUEUED, JobStatusChoices.RUNNING)


class Job(models.Model):
    """A background run on a Celery worker.

    The row is created before the task is sent (on commit, with the row id as task id), and
    the worker writes status, progress, heartbeat, result and error back to it. No Celery
    result backend is used. ``attempts`` counts the runs a worker started; a run whose worker
    stops sending heartbeats is run again (or failed after ``JOBS_MAX_ATTEMPTS``) by
    :func:`simulation.jobs.recovery.job_recover_stale`.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=32, choices=JobKindChoices.choices)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="jobs"
    )
    design_revision = models.ForeignKey(
        "designs.DesignRevision",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="jobs",
        help_text="The design revision the job works on (validate, power).",
    )
    parameters = models.JSONField(default=dict, blank=True)
    input_hash = models.CharField(
        max_length=64,
        db_index=True,
        help_text="Kind, revision, parameters and catalog fingerprint: equal hashes, equal "
        "results.",
    )
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
    outcome = models.CharField(
        max_length=200, blank=True, help_text="One line about the result, for lists."
    )
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0, help_text="Runs started by a worker.")
    worker = models.CharField(max_length=200, blank=True, help_text="Host name of the worker.")
    heartbeat = models.DateTimeField(
        null=True, blank=True, help_text="Last sign of life of the running worker."
    )

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["status", "heartbeat"], name="simulation_job_stale_idx"),
            models.Index(fields=["owner", "status"], name="simulation_job_owner_idx"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} {self.id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED_STATUSES

    @property
    def progress_percent(self) -> int:
        if self.status == JobStatusChoices.SUCCEEDED:
            return 100
        if not self.progress_total:
            return 0
        return min(100, round(100 * self.progress_done / self.progress_total))


class JobSweep(models.Model):
    """The lease of the self-rescheduling recovery task: one chain per broker holds it.

    Each worker start sends a ``simulation.recover_stale`` chain; the chain whose ``token``
    holds the lease (or takes an expired one) sweeps and reschedules itself, the others stop.
    """

    name = models.CharField(max_length=100, unique=True)
    token = models.CharField(max_length=64)
    last_run = models.DateTimeField()

    def __str__(self):
        return f"{self.name} ({self.last_run:%Y-%m-%d %H:%M:%S})"
