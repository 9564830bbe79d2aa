"""What if elements or domains of a revision fail: the synchronous graph answer for the canvas
and the API (:func:`planner.analyses.resilience.whatif.what_if` on the revision's stored
fabric). Reads only; the intact fabric's measured bisection and the list of domains are kept in
the cache per revision (revisions never change)."""

from __future__ import annotations

import json
import zlib

from django.core.cache import cache

from planner.analyses.errors import JobInputError
from planner.analyses.resilience import domain_index
from planner.analyses.resilience.domains import KIND_LABELS
from planner.analyses.resilience.whatif import _bisection_gbps, what_if
from planner.designs.models import DesignRevision
from planner.designs.selectors import revision_fabric

CACHE_SECONDS = 24 * 3600
NO_FABRIC = "This revision has no stored fabric."


def _key(revision: DesignRevision, what: str) -> str:
    created = revision.created.timestamp() if revision.created else 0
    return f"planner:whatif:v1:{what}:{revision.pk}:{created}"


def _fabric(revision: DesignRevision):
    try:
        fabric = revision_fabric(revision) if revision.topology else None
    except (zlib.error, json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
        return None
    return fabric if fabric is not None and fabric.node_count else None


def revision_domains(revision: DesignRevision) -> dict:
    """``{"kinds": [{"kind", "label", "ids"}], "unavailable"}``: every failure domain of the
    revision a what-if can name (cached)."""
    key = _key(revision, "domains")
    found = cache.get(key)
    if found is not None:
        return found
    fabric = _fabric(revision)
    if fabric is None:
        result = {"kinds": [], "unavailable": NO_FABRIC}
    else:
        index = domain_index(fabric)
        result = {
            "kinds": [
                {"kind": kind, "label": KIND_LABELS[kind], "ids": list(index.ids[kind])}
                for kind in index.kinds()
            ],
            "unavailable": "",
        }
    cache.set(key, result, CACHE_SECONDS)
    return result


def revision_what_if(revision: DesignRevision, failed: list[str]) -> dict:
    """:meth:`WhatIf.as_dict` of ``failed`` on the revision.

    Raises
    ------
    JobInputError
        No stored fabric, or an id naming nothing in it (``field`` ``failed``, the id in
        ``element_ids``).
    """
    fabric = _fabric(revision)
    if fabric is None:
        raise JobInputError(NO_FABRIC, field="failed")
    key = _key(revision, "bisection")
    before = cache.get(key)
    if before is None:
        before = _bisection_gbps(fabric)
        cache.set(key, before, CACHE_SECONDS)
    return what_if(fabric, failed, bisection_before_gbps=before).as_dict(fabric)
