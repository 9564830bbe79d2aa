"""The optical loss budget of a stored revision, for the canvas's margin overlay and the API.

Reads the revision's fabric and the catalog and calls the pure
:func:`planner.domain.physical.budget.compute_budgets` (nothing stored; a 100k-GPU fabric
unpacks in a few tenths of a second and its budget takes milliseconds, structured channels
under a second).
"""

from __future__ import annotations

import numpy as np

from planner.designs.adapters import catalog_facts, fabric_unpack
from planner.designs.models import DesignRevision
from planner.domain.physical.budget import DEFAULT_MARGIN_MIN_DB, budget_report, compute_budgets


def revision_optical_budget(revision: DesignRevision) -> dict:
    """``{"threshold_db", "summary" (as budget_report), "links": {"link:<i>": margin dB}}``
    for ``revision`` (links with a known margin only, rounded to 0.01 dB); empty ``links``
    and ``summary`` None for a revision without media or lengths."""
    if not revision.topology:
        return {"threshold_db": DEFAULT_MARGIN_MIN_DB, "summary": None, "links": {}}
    fabric = fabric_unpack(revision.topology)
    threshold = fabric.settings.optical_margin_min_db
    if fabric.link_a_part is None or fabric.link_length_m is None:
        return {"threshold_db": threshold, "summary": None, "links": {}}
    budgets = compute_budgets(fabric, catalog_facts())
    known = budgets.known
    links = budgets.links[known].tolist()
    margins = np.round(budgets.margin_db[known].astype(np.float64), 2).tolist()
    return {
        "threshold_db": threshold,
        "summary": budget_report(fabric, budgets, margin_min_db=threshold),
        "links": {f"link:{link}": margin for link, margin in zip(links, margins, strict=True)},
    }
