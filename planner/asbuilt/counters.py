"""Counter snapshots (telemetry) of a built fabric, imported against a design revision.

:func:`revision_import_counters` reads a snapshot whole (:mod:`planner.domain.asbuilt.counters`),
resolves every device and port to the revision's links, computes the measured overlay
(utilization, errors, Rx power against the optical budget's expectation) and stores it as one
:class:`~planner.asbuilt.models.FieldImport` of kind ``counters`` with an ``import.applied``
audit event, in one transaction: any problem raises :class:`CountersRejected` and nothing is
written. :func:`revision_counters_overlay` is what the canvas's "Measured" overlay reads: the
newest snapshot's links beside the simulated utilization of the newest finished flow
simulation of the same revision.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction

from planner.asbuilt.models import FieldImport, FieldImportKindChoices
from planner.audit.log import audit_record
from planner.audit.models import AuditActionChoices
from planner.designs.adapters import catalog_facts, fabric_unpack
from planner.designs.models import Design, DesignRevision
from planner.designs.selectors import design_can_write
from planner.domain.asbuilt.counter_overlay import (
    counter_overlay,
    fabric_resolver,
    resolve_rows,
    rx_expectation,
)
from planner.domain.asbuilt.counters import FORMATS, CounterProblem, CountersError, parse_counters
from planner.domain.physical.budget import compute_budgets
from simulation.overlays import revision_overlays

#: Largest snapshot text accepted, characters (the API's body limit is lower still).
MAX_SNAPSHOT_CHARS = 10 * 1024 * 1024
#: Uncabled ports listed by name in an import's summary (the rest are counted).
UNCABLED_LISTED = 20


class CountersRejected(ValueError):
    """A snapshot that was not imported: ``problems`` as :meth:`CounterProblem.as_dict`
    (``field`` ``text`` where the file as a whole is wrong)."""

    def __init__(self, problems: list[dict], more: int = 0):
        # a problem of the file as a whole (or a row's shape) is about the request's ``text``
        self.problems = [{**p, "field": p.get("field") or "text"} for p in problems]
        self.more = more
        first = problems[0]["message"] if problems else "The snapshot was not imported."
        extra = len(problems) - 1 + more
        super().__init__(first + (f" (and {extra:,} more problems)" if extra > 0 else ""))


def _rejected(code: str, message: str, field: str = "") -> CountersRejected:
    return CountersRejected([CounterProblem(0, "", "", field, code, message).as_dict()])


def revision_import_counters(
    *,
    user,
    design: Design,
    revision: DesignRevision,
    text: str,
    fmt: str,
    file_name: str = "",
) -> FieldImport:
    """Import a counter snapshot of ``revision`` (all or nothing).

    Raises
    ------
    PermissionDenied
        ``user`` may not change ``design``.
    CountersRejected
        The file, a row, a device or a port is wrong, or the snapshot is of another design
        (its ``design`` name differs, or none of its devices is in this revision).

    Long because: it checks the request (permission, revision, format), parses and resolves
    the snapshot, each step with its own error, then stores it and its audit record in one
    transaction.
    """
    if not design_can_write(user, design):
        raise PermissionDenied("You may read this design but not import into it.")
    if revision.design_id != design.pk:
        raise _rejected("other-design", "That revision belongs to another design.", "revision")
    if fmt not in FORMATS:
        raise _rejected("bad-format", f"format must be one of {', '.join(FORMATS)}.", "format")
    if len(text) > MAX_SNAPSHOT_CHARS:
        raise _rejected(
            "too-large",
            f"The snapshot is {len(text):,} characters; up to {MAX_SNAPSHOT_CHARS:,} are read.",
            "text",
        )
    if not revision.topology:
        raise _rejected("no-topology", f"Revision {revision.number} has no stored fabric.")
    try:
        snapshot = parse_counters(text, fmt)
    except CountersError as exc:
        raise CountersRejected([p.as_dict() for p in exc.problems], exc.more) from exc
    if snapshot.design and snapshot.design.strip().lower() != design.name.strip().lower():
        raise _rejected(
            "other-design",
            f"The snapshot is of design “{snapshot.design}”, not “{design.name}”.",
            "design",
        )
    fabric = fabric_unpack(revision.topology)
    facts = catalog_facts()
    try:
        ends, uncabled = resolve_rows(snapshot.rows, fabric_resolver(fabric, facts))
    except CountersError as exc:
        raise CountersRejected([p.as_dict() for p in exc.problems], exc.more) from exc
    expectation = None
    if fabric.link_a_part is not None and fabric.link_length_m is not None:
        expectation = rx_expectation(fabric, compute_budgets(fabric, facts), facts.parts)
    overlay = counter_overlay(fabric, ends, expectation)
    counts = overlay["counts"]
    utils = [e["util"] for e in overlay["links"].values() if e["util"] is not None]
    summary = {
        "ports": len(snapshot.rows),
        "links": counts["links"],
        "links_in_design": int(fabric.link_count),
        "uncabled_ports": len(uncabled),
        "uncabled": [f"{r.device} port {r.port}" for r in uncabled[:UNCABLED_LISTED]],
        "flagged": len(overlay["flagged"]),
        "rx_below_sensitivity": counts["rx-below-sensitivity"],
        "rx_below_expected": counts["rx-below-expected"],
        "fec_uncorrected": counts["fec-uncorrected"],
        "rx_expected_known": counts["rx_expected_known"],
        "util_max": max(utils) if utils else None,
    }
    with transaction.atomic():
        row = FieldImport.objects.create(
            revision=revision,
            kind=FieldImportKindChoices.COUNTERS,
            source_format=fmt,
            file_name=(file_name or "")[:200],
            created_by=user,
            summary=summary,
            report={"links": overlay["links"], "flagged": overlay["flagged"]},
        )
        audit_record(
            actor=user,
            action=AuditActionChoices.IMPORT_APPLIED,
            design=design,
            summary=f"Imported a counter snapshot of revision {revision.number} of "
            f"“{design.name}”: {summary['ports']:,} ports on {summary['links']:,} links, "
            f"{summary['flagged']:,} flagged",
            object_type="counter-snapshot",
            object_ref=str(row.pk),
            details={
                "revision": revision.number,
                "format": fmt,
                "file_name": row.file_name,
                "ports": summary["ports"],
                "links": summary["links"],
                "flagged": summary["flagged"],
            },
        )
    return row


def revision_counters_overlay(design: Design, revision: DesignRevision) -> dict:
    """The canvas's "Measured" overlay of ``revision`` (read by anyone who may read it).

    Returns ``{"revision", "snapshot": {id, created, created_by, file_name, format, summary}
    or None, "links": {"link:<i>": measured entry + "simulated_util"}, "flagged": [...],
    "simulation": {job, finished} or None}``: the newest counters import of the revision
    and, where a flow simulation of the revision finished, each link's simulated
    utilization beside the measured one.
    """
    row = (
        FieldImport.objects.filter(revision=revision, kind=FieldImportKindChoices.COUNTERS)
        .select_related("created_by")
        .first()
    )
    jobs = revision_overlays(design, revision.number)
    simulated = jobs.get("links") or {}
    job = next((j for j in jobs.get("jobs", []) if j["kind"] == "simulate"), None)
    answer = {
        "revision": revision.number,
        "snapshot": None,
        "links": {},
        "flagged": [],
        "simulation": {"job": job["id"], "finished": job["finished"]} if job else None,
    }
    if row is None:
        return answer
    links = {}
    for key, entry in (row.report.get("links") or {}).items():
        value = simulated.get(key)
        known = isinstance(value, int | float) and not isinstance(value, bool)
        links[key] = {**entry, "simulated_util": round(float(value), 4) if known else None}
    flagged = [
        {**item, "simulated_util": links.get(item["link"], {}).get("simulated_util")}
        for item in row.report.get("flagged") or []
    ]
    author = row.created_by
    answer.update(
        snapshot={
            "id": row.pk,
            "created": row.created.isoformat(),
            "created_by": (author.get_full_name() or author.get_username()) if author else "",
            "file_name": row.file_name,
            "format": row.source_format,
            "summary": row.summary,
        },
        links=links,
        flagged=flagged,
    )
    return answer


__all__ = [
    "MAX_SNAPSHOT_CHARS",
    "CountersRejected",
    "revision_counters_overlay",
    "revision_import_counters",
]
