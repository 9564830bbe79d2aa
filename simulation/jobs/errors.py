"""Why a job cannot start (:class:`JobError` and kin), or why its runner stops."""

from __future__ import annotations


class JobError(Exception):
    """A job cannot be started; the message says why and what to do."""


class JobLimitError(JobError):
    """The user already has ``JOBS_MAX_CONCURRENT_PER_USER`` jobs queued or running, or
    started ``JOBS_MAX_PER_MINUTE_PER_USER`` in the last minute (``retry_after_s`` says when
    to try again; 0 = when a job finishes)."""

    def __init__(self, message: str, *, retry_after_s: int = 0):
        super().__init__(message)
        self.retry_after_s = retry_after_s


class JobCancelled(Exception):
    """Raised inside a runner when its row is no longer this run's (cancelled or taken over)."""
