"""As-built cabling imports of a revision: check a file the built fabric produced against the
revision and keep the report (all or nothing).

:func:`revision_import_cabling` parses the file (:mod:`planner.domain.asbuilt.parsers`),
resolves every device and port and compares the cables with the revision's links
(:func:`planner.domain.asbuilt.cabling.check_cabling`), then stores one
:class:`~planner.asbuilt.models.FieldImport` of kind ``cabling`` and an ``import.applied``
audit event in one transaction. Any problem (a malformed file, an unknown device or port, a
file for another design) raises :class:`CablingRejected` naming the row, field, device and
port, and nothing is written. Counter snapshots are :mod:`planner.asbuilt.counters`.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404

from planner.asbuilt.models import (
    FieldImport,
    FieldImportFormatChoices,
    FieldImportKindChoices,
)
from planner.audit.log import audit_record
from planner.audit.models import AuditActionChoices
from planner.designs.adapters import catalog_facts
from planner.designs.bom import OutputError, revision_fabric_or_error
from planner.designs.models import Design, DesignRevision
from planner.designs.selectors import design_can_write
from planner.domain.asbuilt.cabling import (
    CablingImportError,
    check_cabling,
    report_csv_lines,
)
from planner.domain.asbuilt.names import FabricNames
from planner.domain.asbuilt.network_cables import NetworkLinks
from planner.domain.asbuilt.parsers import FORMATS, ParseError, parse
from planner.domain.outputs.exports import network_elements

#: Largest file text accepted, characters.
MAX_FILE_CHARS = 10 * 1024 * 1024
#: Findings kept per import (a file that shows a fraction of a 100,000-GPU fabric would list
#: every other link as missing); the summary keeps the full counts.
MAX_FINDINGS_STORED = 20_000
#: Formats that describe the whole fabric (an LLDP table shows only its reporters' cables).
WHOLE_FABRIC = {"ibnetdiscover", "netbox-cables"}
CABLING_FORMATS = tuple(FORMATS)


class CablingRejected(ValueError):
    """A file that was not imported: ``problems`` as ``{row, field, code, message, device,
    port}``; ``more`` counts problems past those listed."""

    def __init__(self, problems: list[dict], more: int = 0):
        self.problems = problems
        self.more = more
        first = problems[0]["message"] if problems else "The file was not imported."
        extra = len(problems) - 1 + more
        super().__init__(first + (f" (and {extra:,} more problems)" if extra > 0 else ""))


def _problem(code: str, message: str, *, row: int = 0, field: str = "") -> dict:
    return {"row": row, "field": field, "code": code, "message": message, "device": "", "port": ""}


def _design_names(fabric) -> tuple[FabricNames, NetworkLinks | None]:
    """The compute fabric's names and the other networks' links (None without networks)."""
    facts = catalog_facts()
    return FabricNames(fabric, facts), NetworkLinks.of(network_elements(fabric, facts), fabric)


def revision_import_cabling(
    *,
    user,
    design: Design,
    revision: DesignRevision,
    text: str,
    fmt: str,
    file_name: str = "",
    device: str = "",
) -> FieldImport:
    """Check an as-built cabling file against ``revision`` and store the report.

    ``device`` names the switch whose LLDP table the file is when the file does not say
    (``lldpctl -f json`` of one switch, an NVUE table without a host column).

    Raises
    ------
    PermissionDenied
        ``user`` may not change ``design``.
    CablingRejected
        Anything wrong with the file; nothing is stored.
    """
    if not design_can_write(user, design):
        raise PermissionDenied("You may view this design but not change it.")
    if revision.design_id != design.pk:
        raise Http404("No such revision.")
    if fmt not in FORMATS:
        raise CablingRejected(
            [
                _problem(
                    "format", f"unknown format {fmt!r}: one of {', '.join(FORMATS)}", field="format"
                )
            ]
        )
    if len(text) > MAX_FILE_CHARS:
        raise CablingRejected([_problem("too-large", "The file is over 10 MiB.", field="file")])
    if "\x00" in text:
        raise CablingRejected(
            [_problem("not-text", "The file holds NUL bytes: it is not a text file.", field="file")]
        )
    try:
        rows = parse(fmt, text, device=device.strip())
    except ParseError as exc:
        raise CablingRejected(
            [_problem("malformed", str(exc), row=exc.row, field=exc.field or "file")]
        ) from None
    try:
        fabric = revision_fabric_or_error(revision)
    except OutputError as exc:
        raise CablingRejected([_problem(exc.code, exc.message)]) from None
    names, networks = _design_names(fabric)
    try:
        report = check_cabling(names, rows, whole_fabric=fmt in WHOLE_FABRIC, networks=networks)
    except CablingImportError as exc:
        raise CablingRejected(exc.errors) from None
    findings = report.findings
    summary = {**report.summary, "findings_stored": min(len(findings), MAX_FINDINGS_STORED)}
    with transaction.atomic():
        record = FieldImport.objects.create(
            revision=revision,
            kind=FieldImportKindChoices.CABLING,
            source_format=fmt,
            file_name=(file_name or "")[:200],
            created_by=user if getattr(user, "is_authenticated", False) else None,
            summary=summary,
            report={"findings": findings[:MAX_FINDINGS_STORED]},
        )
        counts = report.summary["counts"]
        audit_record(
            actor=user,
            action=AuditActionChoices.IMPORT_APPLIED,
            design=design,
            summary=f"Checked the as-built cabling of “{design.name}” revision {revision.number} "
            f"({FieldImportFormatChoices(fmt).label}): {report.summary['findings']:,} findings",
            object_type="asbuilt-cabling",
            object_ref=str(record.pk),
            details={"revision": revision.number, "format": fmt, "file": file_name, **counts},
        )
    return record


def revision_cabling_imports(revision: DesignRevision):
    """The cabling imports of ``revision``, newest first (without their reports)."""
    return (
        FieldImport.objects.filter(revision=revision, kind=FieldImportKindChoices.CABLING)
        .select_related("created_by")
        .defer("report")
    )


def cabling_import_get(revision: DesignRevision, pk) -> FieldImport:
    """Cabling import ``pk`` of ``revision`` (404 otherwise)."""
    try:
        return FieldImport.objects.select_related("created_by").get(
            pk=pk, revision=revision, kind=FieldImportKindChoices.CABLING
        )
    except (FieldImport.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404("No such as-built import.") from exc


def cabling_import_dict(record: FieldImport, *, with_report: bool) -> dict:
    """An import as the API and pages show it."""
    user = record.created_by
    out = {
        "id": record.pk,
        "revision": record.revision.number,
        "created": record.created,
        "created_by": (user.get_username() if user is not None else ""),
        "file_name": record.file_name,
        "format": record.source_format,
        "format_label": FieldImportFormatChoices(record.source_format).label,
        "summary": record.summary,
    }
    if with_report:
        out["findings"] = list((record.report or {}).get("findings") or [])
    return out


def cabling_report_csv(record: FieldImport):
    """The findings as the installer's CSV (cells neutralised)."""
    return report_csv_lines((record.report or {}).get("findings") or [])


def revision_asbuilt_overlay(revision: DesignRevision) -> dict:
    """The canvas's "As built" overlay: the newest cabling import's findings per design link
    (``links``: ``{"link:<i>": kind}``, the first finding's kind when several name a link) and
    its findings (for the legend and the list), or ``import`` None when there is none."""
    record = (
        FieldImport.objects.filter(revision=revision, kind=FieldImportKindChoices.CABLING)
        .select_related("created_by")
        .first()
    )
    if record is None:
        return {"revision": revision.number, "import": None, "links": {}, "findings": []}
    data = cabling_import_dict(record, with_report=True)
    links: dict[str, str] = {}
    for finding in data["findings"]:
        for link in finding.get("links") or []:
            links.setdefault(link, finding["kind"])
    findings = data.pop("findings")
    return {"revision": revision.number, "import": data, "links": links, "findings": findings}
