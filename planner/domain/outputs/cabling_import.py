"""Re-import of an edited cabling plan (:mod:`planner.domain.outputs.cabling` writes it).

:func:`cabling_edit` reads an edited plan back into a canvas edit document
(:func:`planner.domain.canvas.edit_document`), which :func:`planner.domain.canvas.validate_edit`
then checks like any hand edit. Only these columns are read: ``label`` (which link a row is;
empty for a new link), ``a_device``, ``a_port``, ``b_device``, ``b_port``, ``a_transceiver``,
``b_transceiver``, ``cable_part``, ``speed_gbps``, ``length_m`` and ``run_length_m``; the other
columns describe the design and are ignored. A changed ``run_length_m`` (or, when it is
unchanged, a changed ``length_m``) becomes the link's run length. A link whose label is not
in the file is removed. Row numbers count the header as row 1, as a spreadsheet shows them.
A cell the plan wrote with a ``'`` before a leading ``=``, ``+``, ``-``, ``@``, tab or CR (so
that no spreadsheet reads it as a formula) is read without that ``'``. Rows whose ``network``
is another network than ``compute`` are skipped (``CablingEdit.network_rows`` lists them):
those networks follow from the spec's ``networks`` block and are changed there, and leaving
their rows out of a file removes nothing. Segment rows (``segment`` filled in) are not
edits either (``CablingEdit.segment_rows`` lists them): each must still name a link through
panels (``segment_of``), one of ``cord-a``/``trunk``/``cord-b``, and the ``label``, devices and
ports the plan wrote, else the file is refused naming the cell (panels, trunks and cords follow
from the spec's ``cabling`` block and are changed there); leaving them out removes nothing. An
unchanged structured plan therefore re-imports as no change.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass, field

from inventory.library.cells import unescape_cell
from inventory.library.parse_errors import csv_error_text
from inventory.library.quantities import quantity_of, range_problem
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import TIER_NAMES, Fabric
from planner.domain.outputs.cabling import link_labels
from planner.domain.outputs.cabling_ends import FabricEnds, measure_text
from planner.domain.outputs.cabling_segments import (
    SEGMENT_COLUMNS,
    SEGMENTS,
    StructuredSegments,
    structured_plan,
)
from planner.domain.summary import ordered_cable_length_m

#: The columns a re-import reads (with ``label``); the others describe the design.
EDITABLE_COLUMNS = (
    "a_device",
    "a_port",
    "b_device",
    "b_port",
    "a_transceiver",
    "b_transceiver",
    "cable_part",
    "speed_gbps",
    "length_m",
    "run_length_m",
)
REQUIRED_COLUMNS = ("label", "a_device", "a_port", "b_device", "b_port")
MAX_IMPORT_ERRORS = 100


@dataclass(frozen=True)
class CablingProblem:
    """One problem of an uploaded cabling plan: ``row`` (header = 1; 0 = the whole file) and
    ``column`` ("" when not one column)."""

    row: int
    column: str
    code: str
    message: str

    def as_dict(self) -> dict:
        return {"row": self.row, "column": self.column, "code": self.code, "message": self.message}


class CablingImportError(ValueError):
    """An uploaded cabling plan with errors; ``problems`` lists them (row-numbered)."""

    def __init__(self, problems: list[CablingProblem]):
        self.problems = problems
        super().__init__("; ".join(p.message for p in problems[:3]))


@dataclass
class CablingEdit:
    """An uploaded plan as an edit document, with what it changes (by label and row)."""

    document: dict
    changed: list[str] = field(default_factory=list)
    added_rows: list[int] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    #: edited document's link index -> the CSV row it came from
    rows: dict[int, int] = field(default_factory=dict)
    #: CSV rows of the other networks (``network`` not ``compute``): derived from the spec's
    #: networks block, not edited here; kept out of the edit
    network_rows: list[int] = field(default_factory=list)
    #: CSV rows of a structured link's segments (``segment`` filled in): derived from the
    #: spec's cabling block, checked unchanged, kept out of the edit
    segment_rows: list[int] = field(default_factory=list)

    @property
    def change_count(self) -> int:
        return len(self.changed) + len(self.added_rows) + len(self.removed)


#: What a length may be, as the refusal says it ("0 to 200,000 m").
LENGTH_RANGE = f"{quantity_of('length_m').low:,} to {quantity_of('length_m').high:,} m"


def _float_or_none(text: str) -> float | None:
    text = text.strip()
    if not text:
        return None
    value = float(text)
    if range_problem("length_m", value):  # NaN, inf, negative, past any cable (1e308)
        raise ValueError
    return value


def cabling_edit(
    fabric: Fabric,
    text: str | Iterable[str],
    document: dict,
    facts: CatalogFacts,
) -> CablingEdit:
    """Read an edited cabling plan of ``fabric`` into an edit document.

    Parameters
    ----------
    fabric
        The revision the plan was downloaded from.
    text
        The CSV (a string, or lines).
    document
        ``edit_document(fabric)`` (the caller builds it, so that its size limit is reported
        once, where edits of too-large fabrics are refused).
    facts
        The catalog the plan was written with (every row, a fabric-manager row too, reads
        back from the fabric's own columns; kept so that callers need not change).

    Returns
    -------
    CablingEdit
        The edited document (unchanged links kept exactly as ``document`` had them).

    Raises
    ------
    CablingImportError
        Row-numbered problems: missing columns, unknown labels, repeated labels, unknown
        devices, ports not written as the plan writes them, bad numbers. Problems of the
        edited topology itself (tier order, ports in use, parts that do not fit) are found
        afterwards by :func:`planner.domain.canvas.validate_edit`.

    Long because: one pass over the uploaded rows, a check per column each naming its row and
    column, with a nested helper that reads the row's cells; the header and the edited
    document are functions of their own.
    """
    if isinstance(text, str):
        text = text.lstrip("\ufeff").splitlines()
    reader = csv.reader(text)
    problems: list[CablingProblem] = []

    def problem(row: int, column: str, code: str, message: str) -> None:
        where = f"row {row}" + (f", {column}" if column else "") if row else "file"
        problems.append(CablingProblem(row, column, code, f"{where}: {message}"))

    header, position = _read_header(reader)
    ends = FabricEnds(fabric)
    labels = link_labels(fabric, ends)
    label_index = {label: i for i, label in enumerate(labels)}
    node_index = {name: i for i, name in enumerate(fabric.node_name)}
    base_cells = cabling_rows_by_link(fabric, ends)
    segments = None  # the structured plan's segments, built at the first segment row
    seen: dict[str, int] = {}
    links = [dict(link) for link in document["links"]]
    row_of: dict[int, int] = {}  # base link index -> CSV row
    result = CablingEdit(document={})
    new_links: list[tuple[int, dict]] = []
    row_number = 1
    try:
        for cells in reader:
            row_number += 1
            if len(problems) >= MAX_IMPORT_ERRORS:
                break
            if not any(cell.strip() for cell in cells):
                continue
            cells = cells + [""] * (len(header) - len(cells))

            def cell(name: str, cells=cells) -> str | None:
                # the ' that csv_line put before a formula-like cell is not part of the value
                return unescape_cell(cells[position[name]].strip()) if name in position else None

            network = cell("network") or ""
            if network and network != "compute":  # another network's row: not edited here
                result.network_rows.append(row_number)
                continue
            segment = cell("segment") or ""
            if segment:  # a structured link's segment: checked, not edited here
                if segments is None:
                    segments = _import_segments(fabric, ends)
                _check_segment(fabric, segments, label_index, segment, cell, row_number, problem)
                result.segment_rows.append(row_number)
                continue
            label = cell("label") or ""
            if label:
                if label in seen:
                    problem(
                        row_number,
                        "label",
                        "duplicate-label",
                        f"{label} is also on row {seen[label]}; each cable appears once",
                    )
                    continue
                seen[label] = row_number
                index = label_index.get(label)
                if index is None:
                    problem(
                        row_number,
                        "label",
                        "unknown-label",
                        f"no cable labelled {label} in this revision; clear the label to add "
                        "a new cable",
                    )
                    continue
                row_of[index] = row_number
                if _apply_row(
                    links[index], base_cells(index), cell, ends, node_index, row_number, problem
                ):
                    result.changed.append(label)
            else:
                for name in ("a_device", "a_port", "b_device", "b_port"):
                    if not cell(name):
                        problem(row_number, name, "required", f"a new cable needs {name}")
                if problems and problems[-1].row == row_number:
                    continue
                link = {"a_part": None, "b_part": None, "cable": None, "length_m": None}
                blank = dict.fromkeys(EDITABLE_COLUMNS, "")
                _apply_row(link, blank, cell, ends, node_index, row_number, problem)
                new_links.append((row_number, link))
    except csv.Error as exc:
        problem(row_number, "", "malformed", str(exc))
    if problems:
        raise CablingImportError(problems)
    return _edited(result, document, links, labels, row_of, new_links)


def _read_header(reader) -> tuple[list[str], dict[str, int]]:
    """The CSV's header and the position of each column the import reads; a
    :class:`CablingImportError` for an empty or malformed file or a missing column."""
    try:
        header = [name.strip().lstrip("\ufeff") for name in next(reader)]
    except StopIteration:
        raise CablingImportError(
            [CablingProblem(0, "", "empty", "file: the file is empty; upload a cabling plan CSV")]
        ) from None
    except csv.Error as exc:
        raise CablingImportError(
            [CablingProblem(1, "", "malformed", f"row 1: {csv_error_text(exc)}")]
        ) from None
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    if missing:
        raise CablingImportError(
            [
                CablingProblem(
                    1,
                    name,
                    "missing-column",
                    f"row 1, {name}: the header has no {name} column (download the cabling "
                    "plan of this revision and edit that file)",
                )
                for name in missing
            ]
        )
    position = {
        name: header.index(name)
        for name in (*REQUIRED_COLUMNS, *EDITABLE_COLUMNS, "network", *SEGMENT_COLUMNS)
        if name in header
    }
    return header, position


def _edited(result: CablingEdit, document: dict, links, labels, row_of, new_links) -> CablingEdit:
    """``result`` with its edited document: the links of the rows read, in their order, then
    the new cables; every link without a row is removed."""
    kept: list[dict] = []
    for index, link in enumerate(links):
        if index in row_of:
            result.rows[len(kept)] = row_of[index]
            kept.append(link)
        else:
            result.removed.append(labels[index])
    for row, link in new_links:
        result.rows[len(kept)] = row
        kept.append(link)
        result.added_rows.append(row)
    result.document = {"nodes": document["nodes"], "links": kept}
    return result


def _import_segments(fabric: Fabric, ends: FabricEnds) -> StructuredSegments | bool:
    """The segments of ``fabric``'s structured plan (from the parts it kept), else False."""
    plan = structured_plan(fabric)
    return StructuredSegments(fabric, plan, ends) if plan is not None else False


def _check_segment(fabric, segments, label_index, segment, cell, row_number, problem) -> None:
    """A segment row must say what the plan printed: its link (``segment_of``), which
    segment, its label and both ends (module docstring, "Re-import")."""
    if segments is False:
        problem(
            row_number,
            "segment",
            "not-structured",
            "this revision cables no tier through patch panels, so its plan has no segment "
            "rows; clear the segment column or delete the row",
        )
        return
    link_label = cell("segment_of") or ""
    index = label_index.get(link_label)
    if index is None or not segments.plan.structured[index]:
        problem(
            row_number,
            "segment_of",
            "unknown-link",
            f"no cable labelled {link_label!r} runs through patch panels in this revision",
        )
        return
    if segment not in SEGMENTS:
        problem(
            row_number,
            "segment",
            "bad-segment",
            f"{segment!r} is not a segment: write one of {', '.join(SEGMENTS)}",
        )
        return
    expected = segments.located(index)[SEGMENTS.index(segment)]
    tier = TIER_NAMES[int(fabric.link_tier[index])]
    for column, want in zip(
        ("label", "a_device", "a_port", "b_device", "b_port"), expected[1:], strict=True
    ):
        text = cell(column)
        if text is not None and text != want:
            problem(
                row_number,
                column,
                "segment-changed",
                f"{text!r}: the {segment} of {link_label} is {want!r}; panels, trunks and "
                f"cords follow from the spec's cabling block (cabling.{tier}): change them "
                "there, or edit the cable's own row",
            )
            return


def cabling_rows_by_link(fabric: Fabric, ends: FabricEnds):
    """``base(index)``: the editable cells of link ``index`` as the plan prints them."""
    has_media = fabric.link_a_part is not None
    parts = fabric.parts
    ordered = ordered_cable_length_m(fabric)

    def base(i: int) -> dict[str, str]:
        a, b = int(fabric.link_a[i]), int(fabric.link_b[i])
        pa = pb = pc = -1
        if has_media:
            pa, pb, pc = (
                int(fabric.link_a_part[i]),
                int(fabric.link_b_part[i]),
                int(fabric.link_cable_part[i]),
            )
        return {
            **_base_cells(fabric, ends, parts, i, a, b, pa, pb, pc),
            "cable_part": parts[pc] if pc >= 0 else "",
            "length_m": measure_text(ordered[i]) if pc >= 0 and ordered is not None else "",
        }

    return base


def _base_cells(fabric, ends, parts, i, a, b, pa, pb, pc) -> dict[str, str]:
    """The editable cells every row prints the same way (not the cable part or length)."""
    return {
        "a_device": ends.names[a],
        "a_port": ends.port_name(a, int(fabric.link_a_port[i])),
        "b_device": ends.names[b],
        "b_port": ends.port_name(b, int(fabric.link_b_port[i])),
        "a_transceiver": parts[pa] if pa >= 0 and pa != pc else "",
        "b_transceiver": parts[pb] if pb >= 0 and pb != pc else "",
        "speed_gbps": str(int(fabric.link_speed_gbps[i])),
        "run_length_m": measure_text(fabric.link_length_m[i])
        if fabric.link_length_m is not None
        else "",
    }


def _apply_row(link, base, cell, ends, node_index, row_number, problem) -> bool:
    """Copy the cells of one row that differ from ``base`` into ``link``; True if any did."""
    changed = False
    for end in ("a", "b"):
        name = cell(f"{end}_device")
        port_text = cell(f"{end}_port")
        device_changed = name is not None and name != base[f"{end}_device"]
        port_changed = port_text is not None and port_text != base[f"{end}_port"]
        if not (device_changed or port_changed):
            continue
        node_name = name if device_changed else base[f"{end}_device"]
        if not node_name:
            problem(row_number, f"{end}_device", "required", "the device is empty")
            continue
        node = node_index.get(node_name)
        if node is None:
            problem(
                row_number,
                f"{end}_device",
                "unknown-device",
                f"no device {node_name!r} in this design (devices are changed through the "
                "spec or the canvas)",
            )
            continue
        if device_changed:
            link[end] = node_name
            changed = True
        text = port_text if port_text is not None else base[f"{end}_port"]
        try:
            port = ends.parse_port(node, text or "")
        except ValueError as exc:
            problem(row_number, f"{end}_port", "bad-port", str(exc))
            continue
        link[f"{end}_port"] = port + 1
        changed = True
    for column, key in (
        ("a_transceiver", "a_part"),
        ("b_transceiver", "b_part"),
        ("cable_part", "cable"),
    ):
        text = cell(column)
        if text is None or text == base[column]:
            continue
        link[key] = text or None
        changed = True
    speed = cell("speed_gbps")
    if speed is not None and speed != base["speed_gbps"]:
        if not speed:
            link.pop("speed_gbps", None)
            changed = True
        else:
            try:
                value = int(speed)
                if value <= 0:
                    raise ValueError
            except ValueError:
                problem(row_number, "speed_gbps", "bad-number", f"{speed!r} is not a speed in Gb/s")
            else:
                link["speed_gbps"] = value
                changed = True
    for column in ("run_length_m", "length_m"):
        text = cell(column)
        if text is None or text == base[column]:
            continue
        try:
            link["length_m"] = _float_or_none(text)
        except ValueError:
            problem(
                row_number,
                column,
                "bad-number",
                f"{text[:40]!r} is not a length in metres ({LENGTH_RANGE})",
            )
        changed = True
        break
    return changed


__all__ = [
    "CablingEdit",
    "CablingImportError",
    "CablingProblem",
    "cabling_edit",
    "cabling_rows_by_link",
]
