"""Outputs of a design revision: bill of materials, cabling plan, exports, the day-0 switch
configuration, and the cabling re-import (the Django side of :mod:`planner.domain.outputs`).

Reads (:func:`revision_bom`, :func:`revision_export`) unpack the stored fabric once and hand
back generators, so large CSVs stream; a stored topology that cannot be read raises
:class:`OutputError` before a byte is written. Downloads are recorded in the audit log
(``export.downloaded``). :func:`design_import_cabling` turns an edited cabling CSV into a new
revision through the same path as canvas edits
(:func:`planner.designs.services.design_edit_topology`),
all or nothing, with problems numbered by CSV row.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from django.db import transaction

from inventory.models import Manufacturer
from planner.audit.log import audit_record
from planner.audit.models import AuditActionChoices
from planner.designs import services
from planner.designs.adapters import catalog_facts
from planner.designs.bom import OutputError, revision_bom, revision_fabric_or_error
from planner.designs.cache import cached_text, keep_text, output_key, revision_ref
from planner.designs.models import Design, DesignRevision
from planner.domain.canvas import CanvasError, edit_document
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric
from planner.domain.outputs import (
    CablingEdit,
    CablingImportError,
    avd_topology_lines,
    bill_of_materials,
    bom_csv_lines,
    cabling_csv_lines,
    cabling_edit,
    design_json,
    netbox_cable_lines,
    network_elements,
    p2p_lines,
)
from planner.domain.outputs.avd import AvdExportError, avd_yaml_chunks, avd_yaml_model_refusal
from planner.domain.outputs.config import (
    CONFIG_FORMATS,
    ConfigError,
    config_chunks,
    config_notes,
    config_refusals,
)
from planner.domain.outputs.exports import DEFAULT_SITE
from planner.domain.outputs.ib_topology import ib_topology_lines
from planner.domain.outputs.netbox_bundle import NetboxBundle, netbox_bundle, netbox_bundle_zip
from planner.domain.outputs.telemetry import TelemetryError, telemetry_plan
from planner.domain.outputs.telemetry_files import gnmic_chunks, prometheus_rules_chunks

#: Download formats of the web pages and the API (the CLI's ``netbox`` writes the bundle).
DOWNLOAD_FORMATS = {
    "bom-csv": ("bom", "csv", "Bill of materials (CSV)"),
    "cabling-csv": ("cabling", "csv", "Cabling plan (CSV)"),
    "netbox-bundle": (
        "netbox-bundle",
        "zip",
        "NetBox bundle: every object an empty NetBox needs, in import order (zip)",
    ),
    "netbox-devices": ("netbox-devices", "csv", "NetBox devices (bulk import CSV)"),
    "netbox-cables": ("netbox-cables", "csv", "NetBox cables (bulk import CSV)"),
    "p2p": ("p2p", "csv", "NVIDIA cable validation P2P (CSV)"),
    "avd": ("avd-topology", "csv", "Arista AVD topology (CSV)"),
    "avd-yaml": ("avd-inputs", "yaml", "Arista AVD eos_designs inputs (YAML inventory)"),
    "json": ("design", "json", "Whole design (JSON)"),
    "config-intent-yaml": ("day0-intent", "yaml", "Day-0 configuration intent (YAML)"),
    "config-intent-json": ("day0-intent", "json", "Day-0 configuration intent (JSON)"),
    "config-nvue": ("day0-nvue", "txt", "Day-0 RoCE configuration, NVIDIA Cumulus NVUE"),
    "config-sonic": ("day0-sonic-config-db", "json", "Day-0 RoCE configuration, SONiC config_db"),
    "config-eos": ("day0-eos", "txt", "Day-0 RoCE configuration, Arista EOS"),
    "config-opensm": ("day0-opensm", "conf", "Day-0 InfiniBand subnet manager, opensm.conf"),
    "ib-topology": (
        "ib-topology",
        "txt",
        "InfiniBand topology (ibnetdiscover format, an ibsim net file)",
    ),
    "telemetry-prometheus": (
        "telemetry-alert-rules",
        "yaml",
        "Telemetry: Prometheus alerting rules (YAML)",
    ),
    "telemetry-gnmic": ("telemetry-gnmic", "yaml", "Telemetry: gNMIc subscriptions (YAML)"),
}
#: The telemetry plan's exports (:mod:`planner.domain.outputs.telemetry`).
TELEMETRY_DOWNLOADS = ("telemetry-prometheus", "telemetry-gnmic")
#: The day-0 configuration formats (:mod:`planner.domain.outputs.config`), by download name.
CONFIG_DOWNLOADS = {f"config-{fmt}": fmt for fmt in CONFIG_FORMATS}
#: Downloads for the InfiniBand subnet manager beside its ``opensm.conf``: the fabric as
#: ``ibnetdiscover`` writes it (:mod:`planner.domain.outputs.ib_topology`).
SUBNET_DOWNLOADS = ("ib-topology",)
IB_TOPOLOGY_NOT_INFINIBAND = (
    "This design runs RoCE (Ethernet): there is no InfiniBand topology for a subnet manager. "
    "Download the cabling plan, NetBox or P2P files for its cabling."
)
MAX_CABLING_UPLOAD_BYTES = 20 * 1024 * 1024
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
    "yaml": "application/yaml; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
    "conf": "text/plain; charset=utf-8",
    "zip": "application/zip",
}
#: Formats whose body is bytes (a zip), made whole and not cached as text.
BINARY_DOWNLOADS = ("netbox-bundle",)
EDIT_FIELD_COLUMNS = {
    "a": "a_device",
    "b": "b_device",
    "a_port": "a_port",
    "b_port": "b_port",
    "a_part": "a_transceiver",
    "b_part": "b_transceiver",
    "cable": "cable_part",
    "length_m": "run_length_m",
    "speed_gbps": "speed_gbps",
}
#: How an API client confirms a file that removes every cable (the upload page words it anew).
REMOVE_ALL_HINT = "send allow_remove_all=true"
_LINK_ID = re.compile(r"link:(\d+)")
_FIELD = re.compile(r"links\[(\d+)\]\.(\w+)")


class CablingImportRejected(services.DesignError):
    """An uploaded cabling plan that cannot be applied. ``problems`` are
    ``[{row, column, code, message, field}]`` (``field`` = ``column``; row 0 = the whole file).
    """


@dataclass
class Export:
    """A download: file name, content type and the body as a generator of text chunks."""

    filename: str
    content_type: str
    chunks: Iterator[str] | Iterator[bytes]  # bytes: BINARY_DOWNLOADS


def manufacturer_names() -> dict[str, str]:
    """Catalog manufacturer slug -> name (NetBox matches manufacturers by name)."""
    return dict(Manufacturer.objects.values_list("slug", "name"))


def _json_chunks(document: dict) -> Iterator[str]:
    yield from json.JSONEncoder(indent=None, separators=(",", ":")).iterencode(document)
    yield "\n"


def export_refusals(fabric: Fabric, facts: CatalogFacts, elements=None) -> dict[str, OutputError]:
    """The download formats (:data:`DOWNLOAD_FORMATS`) that cannot describe ``fabric``, each
    with the :class:`OutputError` a download of it raises (``code`` and what to use instead).

    One rule per format, the one its export applies: both AVD downloads need AVD inputs,
    Arista switches EOS names (:func:`planner.domain.outputs.avd_yaml_model_refusal`); each
    day-0 configuration format its transport and switches
    (:func:`planner.domain.outputs.config.config_refusals`); the InfiniBand topology the
    opensm.conf fragment's (an InfiniBand compute fabric). ``elements`` are the design's
    network elements when already built.
    """
    refused: dict[str, OutputError] = {}
    if refusal := avd_yaml_model_refusal(fabric, facts):
        for fmt in ("avd", "avd-yaml"):
            refused[fmt] = OutputError(
                "not-arista", f"{refusal}. Use the cabling plan, NetBox or NVIDIA P2P export."
            )
    for fmt, error in config_refusals(fabric, facts).items():
        refused[f"config-{fmt}"] = OutputError(error.code, error.message)
        if fmt == "opensm" and error.code == "not-infiniband":  # the same rule: no subnet manager
            refused["ib-topology"] = OutputError("not-infiniband", IB_TOPOLOGY_NOT_INFINIBAND)
    return refused


def export_chunks(
    fmt: str,
    *,
    fabric: Fabric,
    facts: CatalogFacts,
    name: str,
    revision: int | None,
    spec: dict,
    summary: dict,
    spares_pct: Mapping[str, float] | None = None,
    site: str = "",
    makers: Mapping[str, str] | None = None,
    elements=None,
    utilization=None,
) -> Iterator[str]:
    """The body of one download format (:data:`DOWNLOAD_FORMATS`) as text chunks.

    The telemetry exports (:data:`TELEMETRY_DOWNLOADS`) take ``utilization``, a flow
    simulation's per-tier load (``{tier: {mean, max}}``), when one is known.

    A design with networks (``fabric.settings.networks``) has them in every export
    (:mod:`planner.domain.outputs.exports`); ``elements``, their devices and links when
    already built (:func:`planner.domain.outputs.network_elements`), saves building them
    again.

    The day-0 configuration formats (:data:`CONFIG_DOWNLOADS`) check the design first.

    Raises
    ------
    KeyError
        Unknown format.
    planner.domain.outputs.BomError
        A bad spares percentage.
    planner.domain.outputs.config.ConfigError
        A configuration format that cannot describe the design.
    planner.domain.outputs.telemetry.TelemetryError
        gNMIc subscriptions of a design without gNMI targets (InfiniBand).
    """
    makers = makers or {}
    if fmt in TELEMETRY_DOWNLOADS:
        plan = telemetry_plan(fabric, facts, name=name, revision=revision, utilization=utilization)
        if fmt == "telemetry-gnmic":
            return gnmic_chunks(plan)
        return prometheus_rules_chunks(plan)
    if fmt in CONFIG_DOWNLOADS:
        return config_chunks(CONFIG_DOWNLOADS[fmt], fabric, facts, name=name, revision=revision)
    builders: dict[str, Callable[[], Iterator[str]]] = {
        "bom-csv": lambda: bom_csv_lines(bill_of_materials(fabric, facts, spares_pct=spares_pct)),
        "cabling-csv": lambda: cabling_csv_lines(fabric, facts, elements=elements),
        "netbox-bundle": lambda: iter(
            [netbox_bundle_zip(_bundle(fabric, facts, site=site, makers=makers, elements=elements))]
        ),
        "netbox-devices": lambda: iter(
            [
                _bundle(fabric, facts, site=site, makers=makers, elements=elements).files[
                    "07-devices.csv"
                ]
            ]
        ),
        "netbox-cables": lambda: netbox_cable_lines(fabric, facts, elements=elements),
        "p2p": lambda: p2p_lines(fabric, facts, elements=elements),
        "ib-topology": lambda: ib_topology_lines(fabric, name=name, revision=revision),
        "avd": lambda: avd_topology_lines(fabric, facts, elements=elements),
        "avd-yaml": lambda: avd_yaml_chunks(fabric, facts, name=name, revision=revision),
        "json": lambda: _json_chunks(
            design_json(
                name=name,
                revision=revision,
                spec=spec,
                summary=summary,
                fabric=fabric,
                bom=bill_of_materials(fabric, facts, spares_pct=spares_pct, elements=elements),
                facts=facts,
                elements=elements,
            )
        ),
    }
    return builders[fmt]()


def _bundle(fabric: Fabric, facts: CatalogFacts, *, site, makers, elements) -> NetboxBundle:
    return netbox_bundle(
        fabric,
        facts,
        site=site or DEFAULT_SITE,
        manufacturer_names=makers or {},
        elements=elements,
    )


def _chunked(lines: Iterator[str], size: int = 64 * 1024) -> Iterator[str]:
    """Join small lines into chunks of about ``size`` characters (fewer writes per response)."""
    buffer: list[str] = []
    length = 0
    for line in lines:
        buffer.append(line)
        length += len(line)
        if length >= size:
            yield "".join(buffer)
            buffer, length = [], 0
    if buffer:
        yield "".join(buffer)


def _export_chunks_checked(
    fmt: str,
    *,
    design: Design,
    revision: DesignRevision,
    spares_pct: Mapping[str, float] | None,
    site: str,
    makers: Mapping[str, str] | None,
    utilization: Mapping[str, Mapping] | None,
) -> Iterator[str]:
    """:func:`export_chunks` of ``revision`` after the checks :func:`revision_export` names
    (its fabric read, the spares and the format's refusals), made before anything is sent."""
    fabric = revision_fabric_or_error(revision)
    facts = catalog_facts()
    if spares_pct:
        bill_of_materials(fabric, facts, spares_pct=spares_pct)  # refuse bad input up front
    own_rows = (
        "bom-csv",
        "cabling-csv",
        "avd-yaml",
        *CONFIG_DOWNLOADS,
        *TELEMETRY_DOWNLOADS,
        *SUBNET_DOWNLOADS,
    )  # no other networks' elements
    elements = network_elements(fabric, facts) if fmt not in own_rows else None
    refusable = fmt in ("avd", "avd-yaml") or fmt in CONFIG_DOWNLOADS or fmt in SUBNET_DOWNLOADS
    if refusable and (refused := export_refusals(fabric, facts, elements).get(fmt)):
        raise refused
    try:
        chunks = export_chunks(
            fmt,
            fabric=fabric,
            facts=facts,
            name=design.name,
            revision=revision.number,
            spec=revision.spec,
            summary=revision.summary,
            spares_pct=spares_pct,
            site=site,
            makers=makers,
            elements=elements,
            utilization=utilization,
        )
    except (ConfigError, TelemetryError, AvdExportError) as exc:
        raise OutputError(exc.code, exc.message) from exc
    return chunks


@transaction.atomic
def revision_export_refusals(revision: DesignRevision) -> dict[str, str]:
    """Download format -> why it cannot apply to ``revision`` (:func:`export_refusals`): what
    the outputs page shows beside a disabled download instead of a link to an error.

    Raises
    ------
    OutputError
        The revision's stored topology cannot be read.
    """
    refused = export_refusals(revision_fabric_or_error(revision), catalog_facts())
    return {fmt: error.message for fmt, error in refused.items()}


def revision_export_notes(revision: DesignRevision) -> dict[str, str]:
    """Download format -> what its file lacks (:func:`planner.domain.outputs.config.
    config_notes`), said beside the download on the outputs page."""
    notes = config_notes(revision_fabric_or_error(revision), catalog_facts())
    return {f"config-{fmt}": note for fmt, note in notes.items()}


def revision_export(
    *,
    user,
    design: Design,
    revision: DesignRevision,
    fmt: str,
    spares_pct: Mapping[str, float] | None = None,
    site: str = "",
    utilization: Mapping[str, Mapping] | None = None,
) -> Export:
    """A download of ``revision`` in ``fmt`` (:data:`DOWNLOAD_FORMATS`), recorded in the audit
    log. The fabric is read and the format checked before anything is returned, so a broken
    revision fails with :class:`OutputError` instead of a half-written file.

    Raises
    ------
    OutputError
        ``unknown-format``, ``topology-unreadable``, ``not-arista`` (AVD's topology or
        inputs of a design whose compute switches EOS cannot name), a day-0 configuration
        format that cannot describe the design (``not-roce``, ``not-infiniband``,
        ``not-supported``, ``no-switch``: :class:`planner.domain.outputs.config.ConfigError`),
        gNMIc subscriptions of an InfiniBand design (``not-ethernet``).
    planner.domain.outputs.BomError
        A bad spares percentage.
    """
    if fmt not in DOWNLOAD_FORMATS:
        raise OutputError(
            "unknown-format", f"Unknown format {fmt!r}; use one of {', '.join(DOWNLOAD_FORMATS)}."
        )
    stem, extension, title = DOWNLOAD_FORMATS[fmt]
    makers = manufacturer_names() if fmt in ("netbox-devices", "netbox-bundle") else None
    key = output_key(
        "export",
        [revision_ref(revision), fmt, design.name, dict(spares_pct or {}), site, utilization]
        + [makers],
    )
    text = cached_text(key) if fmt not in BINARY_DOWNLOADS else None
    if fmt in BINARY_DOWNLOADS:
        chunks = _export_chunks_checked(
            fmt,
            design=design,
            revision=revision,
            spares_pct=spares_pct,
            site=site,
            makers=makers,
            utilization=utilization,
        )
    elif text is not None:  # made before from this revision, catalog and parameters
        chunks = iter([text])
    else:
        chunks = keep_text(
            key,
            _export_chunks_checked(
                fmt,
                design=design,
                revision=revision,
                spares_pct=spares_pct,
                site=site,
                makers=makers,
                utilization=utilization,
            ),
        )
    audit_record(
        actor=user,
        action=AuditActionChoices.EXPORT_DOWNLOADED,
        design=design,
        summary=f"Downloaded {title} of revision {revision.number} of “{design.name}”",
        object_type="revision",
        object_ref=str(revision.number),
        details={"format": fmt, "spares_pct": dict(spares_pct or {})},
    )
    return Export(
        filename=f"design-{design.pk}-r{revision.number}-{stem}.{extension}",
        content_type=CONTENT_TYPES[extension],
        chunks=chunks if fmt in BINARY_DOWNLOADS else _chunked(chunks),
    )


# --- cabling re-import ----------------------------------------------------------------------------


def _read_upload(csv_file) -> str:
    if isinstance(csv_file, str):
        return csv_file
    size = getattr(csv_file, "size", None)
    if size is not None and size > MAX_CABLING_UPLOAD_BYTES:
        raise CablingImportRejected([_file_problem("too-large", _too_big(size))])
    data = csv_file.read(MAX_CABLING_UPLOAD_BYTES + 1)
    if len(data) > MAX_CABLING_UPLOAD_BYTES:
        raise CablingImportRejected([_file_problem("too-large", _too_big(len(data)))])
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CablingImportRejected(
            [_file_problem("not-utf8", "The file is not UTF-8 text; save the CSV as UTF-8.")]
        ) from None


def _too_big(size: int) -> str:
    return (
        f"The file is {size / 1e6:.1f} MB; cabling plans up to "
        f"{MAX_CABLING_UPLOAD_BYTES / 1e6:.0f} MB can be uploaded."
    )


def _file_problem(code: str, message: str) -> dict:
    return {"row": 0, "column": "", "code": code, "message": message, "field": ""}


def _row_problems(edit: CablingEdit, problems: list[dict]) -> list[dict]:
    """Topology problems (``link:<i>`` of the edited document) as CSV-row problems."""
    out = []
    for problem in problems:
        if problem.get("severity", "error") != "error":
            continue
        ids = [int(m) for e in problem.get("element_ids") or [] for m in _LINK_ID.findall(e)]
        rows = sorted({edit.rows[i] for i in ids if i in edit.rows})
        column = ""
        field = _FIELD.match(problem.get("field") or "")
        if field:
            column = EDIT_FIELD_COLUMNS.get(field.group(2), "")
            if int(field.group(1)) in edit.rows and not rows:
                rows = [edit.rows[int(field.group(1))]]

        def name_row(match, rows_by_link=edit.rows):
            index = int(match.group(1))
            return f"row {rows_by_link[index]}" if index in rows_by_link else match.group(0)

        message = _LINK_ID.sub(name_row, problem["message"])
        row = rows[0] if rows else 0
        named = f"row {row}" if len(rows) < 2 else "rows " + ", ".join(str(r) for r in rows)
        where = named + (f", {column}" if column else "") if row else ""
        if where and not message.startswith(f"row {row}"):
            message = f"{where}: {message}"
        out.append(
            {
                "row": row,
                "rows": rows,
                "column": column,
                "code": problem.get("code", ""),
                "message": message,
                "field": column,
            }
        )
    out.sort(key=lambda p: (p["row"] or 10**9, p["column"]))
    return out


def design_import_cabling(
    *,
    design: Design,
    user,
    csv_file,
    base_revision: int,
    message: str = "",
    allow_remove_all: bool = False,
) -> tuple[DesignRevision, CablingEdit]:
    """Apply an edited cabling plan of revision ``base_revision`` as the next revision.

    The file is read against the revision it was downloaded from (labels name its links),
    turned into a canvas edit document and saved with
    :func:`planner.designs.services.design_edit_topology`, which checks it like any topology edit.
    All or nothing: on any problem no revision is written. A stale ``base_revision`` is
    refused before the file is read (so even an unchanged file gets the conflict), and a file
    that removes every cable of the revision (a header-only CSV, say) is refused unless
    ``allow_remove_all``.

    Raises
    ------
    CablingImportRejected
        Problems with the file, each with its CSV row (header = row 1) and column.
    planner.designs.services.RevisionConflict
        ``base_revision`` is not the latest revision (checked first).
    planner.designs.services.DesignError
        ``base_revision`` does not exist.

    Long because: it checks the base revision, reads the plan into an edit (each step with
    its own error; stale first, see its comments), then saves the next revision in one
    transaction.
    """
    base = design.revisions.filter(number=base_revision).first()
    if base is None:
        raise services.DesignError(
            [{"field": "base_revision", "message": f"no revision {base_revision}"}]
        )
    # Stale first: a conflict says more than "no changes" against an old revision.
    # design_edit_topology checks again under the design's lock.
    services._check_base(design, base_revision)
    text = _read_upload(csv_file)
    try:
        fabric = revision_fabric_or_error(base)
    except OutputError as exc:
        raise CablingImportRejected([_file_problem(exc.code, exc.message)]) from exc
    try:
        document = edit_document(fabric)
    except CanvasError as exc:
        raise CablingImportRejected(
            [_file_problem("too-large", f"Cabling import edits the topology, and {exc}")]
        ) from exc
    try:
        edit = cabling_edit(fabric, text, document, catalog_facts())
    except CablingImportError as exc:
        raise CablingImportRejected(
            [{**p.as_dict(), "field": p.column} for p in exc.problems]
        ) from exc
    if not edit.change_count:
        raise CablingImportRejected(
            [_file_problem("no-changes", "The file changes no cable; nothing was saved.")]
        )
    cables = len(document["links"])
    if cables and len(edit.removed) == cables and not allow_remove_all:
        raise CablingImportRejected(
            [
                _file_problem(
                    "removes-all",
                    f"The file removes all {cables:,} cables; {REMOVE_ALL_HINT} to do that "
                    "on purpose.",
                )
            ]
        )
    what = f"{len(edit.changed)} changed, {len(edit.added_rows)} added, {len(edit.removed)} removed"
    with transaction.atomic():
        try:
            revision = services.design_edit_topology(
                design=design,
                user=user,
                document=edit.document,
                base_revision=base_revision,
                message=message or f"Cabling plan imported ({what})",
            )
        except services.TopologyError as exc:
            raise CablingImportRejected(_row_problems(edit, exc.problems)) from exc
        audit_record(
            actor=user,
            action=AuditActionChoices.IMPORT_APPLIED,
            design=design,
            summary=f"Imported a cabling plan into “{design.name}” as revision "
            f"{revision.number}: {what}",
            object_type="revision",
            object_ref=str(revision.number),
            details={
                "base_revision": base_revision,
                "changed": len(edit.changed),
                "added": len(edit.added_rows),
                "removed": len(edit.removed),
            },
        )
    return revision, edit


__all__ = [
    "CONFIG_DOWNLOADS",
    "DOWNLOAD_FORMATS",
    "CablingImportRejected",
    "Export",
    "OutputError",
    "SUBNET_DOWNLOADS",
    "TELEMETRY_DOWNLOADS",
    "design_import_cabling",
    "export_chunks",
    "export_refusals",
    "manufacturer_names",
    "revision_bom",
    "revision_export",
    "revision_export_notes",
    "revision_export_refusals",
    "revision_fabric_or_error",
]
