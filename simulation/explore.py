"""A finished exploration read by people and programs: its front as rows (JSON or CSV), and a
candidate opened as a new design.

The API, the pages and the CLI (``fabric explore``) share these. The candidate's design-spec
document is not stored in the job's result (it would double its size): it is enumerated again
from the job's requirements (:func:`simulation.jobs.explore.job_plan`, deterministic) and
checked against the key the result holds, so that a catalog changed since the job ran cannot
open another candidate than the one the user picked.
"""

from __future__ import annotations

import csv
import io

from inventory.library.cells import safe_cell
from planner.analyses.explore.requirements import RequirementsError
from planner.designs.services import design_create
from simulation.jobs.explore import job_plan
from simulation.models import Job, JobKindChoices, JobStatusChoices

#: The columns of a front as CSV (and the keys of each row as JSON), in order.
AXIS_COLUMNS = (
    "topology",
    "server",
    "leaf",
    "spine",
    "core",
    "transport",
    "speed_gbps",
    "planes",
    "tiers",
    "oversubscription",
    "cabling",
    "uplink_gbps",
)
METRIC_COLUMNS = (
    "gpus",
    "servers",
    "switches",
    "links",
    "racks",
    "cost",
    "currency",
    "cost_complete",
    "fabric_cost",
    "power_w",
    "bisection_gbps",
    "collective_time_s",
    "busbw_gbps",
    "failures_per_day",
    "gpus_lost_switch",
    "gpus_lost_rack",
    "optical_margin_min_db",
)
COLUMNS = ("index", "key", "label", "status", "front", *AXIS_COLUMNS, *METRIC_COLUMNS, "why")


class ExploreError(Exception):
    """A candidate cannot be opened (or the job has no front yet); the message says why and
    ``field`` what it is about."""

    def __init__(self, message: str, *, field: str = "candidate"):
        super().__init__(message)
        self.message, self.field = message, field


def candidate_row(candidate: dict) -> dict:
    """One candidate of a result as a flat row (:data:`COLUMNS`)."""
    axes, metrics = candidate.get("axes") or {}, candidate.get("metrics") or {}
    row = {
        "index": candidate.get("index"),
        "key": candidate.get("key"),
        "label": candidate.get("label"),
        "status": candidate.get("status"),
        "front": bool(candidate.get("front")),
    }
    row.update({name: axes.get(name) for name in AXIS_COLUMNS})
    row.update({name: metrics.get(name) for name in METRIC_COLUMNS})
    row["why"] = candidate.get("why") or "; ".join(candidate.get("reasons") or [])
    return row


def front_rows(result: dict, *, every: bool = False) -> list[dict]:
    """The front's candidates (every candidate with ``every``) as rows, by index."""
    candidates = (result or {}).get("candidates") or []
    return [candidate_row(c) for c in candidates if every or c.get("front")]


def rows_csv(rows: list[dict]) -> str:
    """Rows as CSV (:data:`COLUMNS`; text cells cannot become formulas)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else safe_cell(row.get(c)) for c in COLUMNS])
    return out.getvalue()


def finished_result(job: Job) -> dict:
    """The result of a succeeded explore job; :class:`ExploreError` otherwise."""
    if job.kind != JobKindChoices.EXPLORE:
        raise ExploreError("not an exploration", field="job")
    if job.status != JobStatusChoices.SUCCEEDED or not isinstance(job.result, dict):
        raise ExploreError(
            f"the exploration is {job.get_status_display().lower()}: its front is ready when "
            "it has succeeded",
            field="job",
        )
    return job.result


def result_candidate(job: Job, index) -> dict:
    """Candidate ``index`` of a succeeded exploration's result; :class:`ExploreError` if it
    has none of that number."""
    result = finished_result(job)
    candidates = result.get("candidates") or []
    try:
        number = int(index)
    except (TypeError, ValueError):
        number = -1
    found = next((c for c in candidates if c.get("index") == number), None)
    if found is None:
        raise ExploreError(
            f"no candidate {str(index)[:20]}: the exploration has {len(candidates):,} "
            f"(0 to {len(candidates) - 1:,})"
        )
    return found


def candidate_document(job: Job, index) -> dict:
    """The design-spec document of candidate ``index`` of a succeeded exploration, enumerated
    again and matched by key; :class:`ExploreError` if the catalog no longer gives it."""
    candidate = result_candidate(job, index)
    gone = ExploreError(
        f"candidate {candidate['index']:,} ({candidate.get('label') or candidate.get('key')}) "
        "is no longer in the catalog's choices (parts changed or archived since the "
        "exploration ran): run it again"
    )
    try:
        enumerated = job_plan(job).enumeration.candidates
    except RequirementsError:
        raise gone from None
    by_index = enumerated[candidate["index"]] if candidate["index"] < len(enumerated) else None
    if by_index is not None and by_index.key == candidate.get("key"):
        return by_index.document
    same = next((c for c in enumerated if c.key == candidate.get("key")), None)
    if same is None:
        raise gone
    return same.document


def explore_open_design(*, job: Job, index, owner):
    """A new design of ``owner`` from candidate ``index`` of ``job`` (through
    :func:`planner.designs.services.design_create`, audited as any create; its first
    revision's message names the exploration and the candidate). Raises
    :class:`ExploreError` or ``DesignError``."""
    document = candidate_document(job, index)
    candidate = result_candidate(job, index)
    return design_create(
        owner=owner,
        spec_document=document,
        message=f"From the exploration “{(job.parameters or {}).get('name') or 'exploration'}”, "
        f"candidate {candidate['index']}: {candidate.get('key')}"[:300],
    )
