"""Health checks: can we reach the database and the Celery broker?"""

from __future__ import annotations

import time

from django.db import connection

from planner.project.celery import app


def check_database() -> dict:
    """Run ``SELECT 1`` and report ``{"ok": bool, "latency_ms": float, "error": str}``."""
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any failure means "not healthy"
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {
        "ok": True,
        "vendor": connection.vendor,
        "latency_ms": round((time.perf_counter() - started) * 1000, 2),
    }


def check_broker(timeout_s: float = 2.0) -> dict:
    """Open a connection to the Celery broker and report the same shape as the database check."""
    started = time.perf_counter()
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=timeout_s)
            transport = conn.transport_cls
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {
        "ok": True,
        "transport": str(transport),
        "latency_ms": round((time.perf_counter() - started) * 1000, 2),
    }
