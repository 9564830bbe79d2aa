"""The ``JOBS_*`` settings, read on every call (tests and workers may change them)."""

from __future__ import annotations

from django.conf import settings


def _setting(name: str, default: float) -> float:
    return getattr(settings, name, default)


def heartbeat_timeout_s() -> float:
    """A running job whose heartbeat is older than this is lost (``JOBS_HEARTBEAT_TIMEOUT_S``)."""
    return float(_setting("JOBS_HEARTBEAT_TIMEOUT_S", 10))


def max_attempts() -> int:
    """How many times a job is started before a lost worker fails it (``JOBS_MAX_ATTEMPTS``)."""
    return int(_setting("JOBS_MAX_ATTEMPTS", 3))


def max_concurrent() -> int:
    """Jobs a user may have queued or running at once (``JOBS_MAX_CONCURRENT_PER_USER``)."""
    return int(_setting("JOBS_MAX_CONCURRENT_PER_USER", 4))


def max_per_minute() -> int:
    """Jobs a user may start in a minute (``JOBS_MAX_PER_MINUTE_PER_USER``)."""
    return int(_setting("JOBS_MAX_PER_MINUTE_PER_USER", 30))


def heartbeat_interval_s() -> float:
    """How often a running job's heartbeat is written (``JOBS_HEARTBEAT_INTERVAL_S``)."""
    return float(_setting("JOBS_HEARTBEAT_INTERVAL_S", max(0.5, heartbeat_timeout_s() / 6)))


def recovery_interval_s() -> float:
    """How often the stale-job sweep runs (``JOBS_RECOVERY_INTERVAL_S``)."""
    return float(_setting("JOBS_RECOVERY_INTERVAL_S", max(1.0, heartbeat_timeout_s() / 2)))


def queued_resend_s() -> float:
    """A queued job older than this whose task the broker does not hold is sent again
    (``JOBS_QUEUED_RESEND_S``)."""
    return float(_setting("JOBS_QUEUED_RESEND_S", 10))
