"""GPU-to-GPU latency of a stored revision, for the API.

Reads the revision's fabric and the catalog as it is now and calls the pure
:func:`planner.analyses.latency.latency_report` (nothing stored; the revision's summary keeps
the report made when it was built).
"""

from __future__ import annotations

from planner.analyses.latency import SCOPE, TYPICAL, latency_report
from planner.designs.adapters import catalog_facts, fabric_unpack
from planner.designs.models import DesignRevision


def revision_latency(revision: DesignRevision) -> dict:
    """``latency_report`` of ``revision``'s fabric against today's catalog (no classes for a
    revision without a stored topology)."""
    if not revision.topology:
        return {"scope": SCOPE, "typical": TYPICAL, "classes": {}, "notes": []}
    return latency_report(fabric_unpack(revision.topology), catalog_facts())
