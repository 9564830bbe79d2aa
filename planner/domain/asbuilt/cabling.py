"""The as-built cabling check: the cables a built fabric reports against a design revision.

:func:`check_cabling` resolves every neighbour row (:mod:`.parsers`) through
:class:`~planner.domain.asbuilt.names.FabricNames`, then compares the cables found with the
design's links. All or nothing: any row naming an unknown port, or naming no device of the
design at either end, makes :class:`CablingImportError` with every such row (up to
:data:`MAX_ERRORS`), and nothing is reported.

Findings
--------
Each cable found is a pair of ends; each design link too. A found cable whose two ends are a
design link's is in place (``wrong-speed`` when the file gives a speed other than the link's).
Every other cable found is, in this order:

- ``swapped-ports``: it joins the two devices of a design link that is not in place, on
  another port at one end or both (two cables crossed on one switch are two such findings);
- ``wrong-plane``: one of its ports should reach a device of another plane (the design link
  on that port goes to a switch whose plane differs from the one found);
- ``wrong-rail``: ...to a leaf of another rail (same plane);
- ``unexpected``: anything else, including a cable to a device the design does not have
  (its end shown as the file names it).

Design links not in place and not explained by one of those findings are ``missing``. The
design links a finding explains are listed with it (``expected``), so the installer sees
where the cable should go.

Scope: an LLDP table only shows the cables of the devices that reported (``reporter``); a
design link is checked only when one of its ends reported. ``ibnetdiscover`` and NetBox
exports describe the whole fabric: every link is checked.

A file for another design: when no row's cable is a design link (in scope) while more than
:data:`FOREIGN_FRACTION` of the rows name devices the design lacks, or no row resolves to the
design at all, the file is refused (``another-design``).

Each finding: ``kind``, ``label`` (the design label of the link concerned, else the one its
ends would get), ``a`` and ``b`` (device, port, role, label, rack, RU: the found cable's ends,
or the missing link's), ``expected`` and ``found`` in words, ``action`` for the installer,
``rows`` (file rows) and ``links`` (design link indexes it concerns, for the canvas).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from planner.domain.asbuilt.names import AsBuiltNameError, End, FabricNames
from planner.domain.asbuilt.network_cables import NetworkLinks
from planner.domain.asbuilt.parsers import Neighbour
from planner.domain.names import ARROW, end_text
from planner.domain.outputs.cabling import csv_lines, link_labels

__all__ = [
    "FINDING_KINDS",
    "REPORT_COLUMNS",
    "CablingImportError",
    "CablingReport",
    "check_cabling",
    "report_csv_lines",
]

FINDING_KINDS = (
    "missing",
    "unexpected",
    "swapped-ports",
    "wrong-rail",
    "wrong-plane",
    "wrong-speed",
)
MAX_ERRORS = 100
FOREIGN_FRACTION = 0.5
#: Speeds closer than this are the same (``ibnetdiscover``'s FDR lanes are 14.0625 Gb/s).
SPEED_TOLERANCE_GBPS = 0.5


class CablingImportError(ValueError):
    """Rows the design cannot read: ``errors`` is a list of ``{row, field, code, message,
    device, port}``."""

    def __init__(self, errors: list[dict]):
        super().__init__("; ".join(e["message"] for e in errors[:3]))
        self.errors = errors


@dataclass
class CablingReport:
    findings: list[dict] = field(default_factory=list)
    summary: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"findings": self.findings, "summary": self.summary}


@dataclass
class _Found:
    a: tuple[int, int]  # (node, port)
    b: tuple[int, int] | None  # None: a device the design lacks
    foreign: tuple[str, str] = ("", "")  # as written, when b is None
    speed: float | None = None
    rows: list[int] = field(default_factory=list)


def _end_key(a: tuple[int, int], b: tuple[int, int]) -> tuple:
    return (a, b) if a <= b else (b, a)


def _speed_text(gbps) -> str:
    if gbps is None:
        return "speed unknown"
    value = float(gbps)
    return f"{value:,.0f} Gb/s" if value == int(value) else f"{value:,.1f} Gb/s"


def _resolve(names: FabricNames, rows: Sequence[Neighbour]):
    """Each reported cable's two ends resolved to the design's devices and ports, with the errors.

    Long because: its nested helpers share the error list and the caches of names already resolved
    (each device and port text once).
    """
    errors: list[dict] = []
    found: dict[tuple, _Found] = {}
    foreign_rows = 0
    reporters: set[int] = set()

    def error(row, field_, code, message, device="", port=""):
        if len(errors) < MAX_ERRORS:
            errors.append(
                {
                    "row": row,
                    "field": field_,
                    "code": code,
                    "message": message,
                    "device": device,
                    "port": port,
                }
            )

    # Files repeat names: each distinct device and port text is resolved once.
    nodes: dict[str, int | None] = {}
    ports: dict[tuple[int, str], int | AsBuiltNameError] = {}

    def node_of(text: str) -> int | None:
        if text not in nodes:
            nodes[text] = names.device(text)
        return nodes[text]

    def port_of(node: int, text: str) -> int:
        key = (node, text)
        if key not in ports:
            try:
                ports[key] = names.port(node, text)
            except AsBuiltNameError as problem:
                ports[key] = problem
        found = ports[key]
        if isinstance(found, AsBuiltNameError):
            raise found
        return found

    for nb in rows:
        a_node, b_node = node_of(nb.a_device), node_of(nb.b_device)
        if nb.reporter:
            rep = node_of(nb.reporter)
            if rep is not None:
                reporters.add(rep)
        if a_node is None and b_node is None:
            foreign_rows += 1
            error(
                nb.row,
                "device",
                "unknown-device",
                f"row {nb.row}: neither {nb.a_device!r} nor {nb.b_device!r} is a device of this "
                "design",
                device=nb.a_device,
            )
            continue
        if a_node is None and nb.reporter:  # the reporting switch itself is unknown
            foreign_rows += 1
            error(
                nb.row,
                "device",
                "unknown-device",
                f"row {nb.row}: device {nb.a_device!r} is not in this design",
                device=nb.a_device,
            )
            continue
        ends = []
        bad = False
        for node, device, port, field_ in (
            (a_node, nb.a_device, nb.a_port, "local_port" if nb.reporter else "a_port"),
            (b_node, nb.b_device, nb.b_port, "remote_port" if nb.reporter else "b_port"),
        ):
            if node is None:
                ends.append(None)
                continue
            try:
                ends.append((node, port_of(node, port)))
            except AsBuiltNameError as problem:
                bad = True
                error(nb.row, field_, problem.code, f"row {nb.row}: {problem}", device, port)
        if bad:
            continue
        a, b = ends
        if a is None:  # keep the known end first
            a, b = b, None
            foreign = (nb.a_device, nb.a_port)
        else:
            foreign = (nb.b_device, nb.b_port) if b is None else ("", "")
        key = (a, ("~", foreign[0].lower(), foreign[1].lower())) if b is None else _end_key(a, b)
        cable = found.get(key)
        if cable is None:  # each row costs O(1): a file of one row repeated stays linear
            cable = found[key] = _Found(
                a=a if b is None else key[0], b=None if b is None else key[1], foreign=foreign
            )
        if nb.speed_gbps is not None:
            cable.speed = nb.speed_gbps
        cable.rows.append(nb.row)
    return errors, list(found.values()), foreign_rows, reporters


def check_cabling(
    names: FabricNames,
    rows: Sequence[Neighbour],
    *,
    whole_fabric: bool,
    labels: Sequence[str] | None = None,
    networks: NetworkLinks | None = None,
) -> CablingReport:
    """Compare the cables ``rows`` report with ``names.fabric`` (see the module docstring).

    ``whole_fabric``: the file describes every cable (ibnetdiscover, NetBox); otherwise only
    the links of the devices that reported are checked. ``networks`` (the design's other
    networks, :class:`~planner.domain.asbuilt.network_cables.NetworkLinks`): the rows on
    their ports are checked against their links, each network on its own (its findings
    carry ``network``; ``summary["networks"]`` counts each), the others against the compute
    fabric.

    Raises
    ------
    CablingImportError
        Unknown devices or ports, an empty file, or a file for another design.

    Long because: it goes from reported rows to the report in one pass (resolve, match,
    classify the rest, list the missing links, count) over the same link columns; resolving,
    matching and classifying are functions of their own.
    """
    fabric = names.fabric
    if not rows:
        raise CablingImportError([_file_error("empty", "the file lists no cables")])
    network_rows: list[Neighbour] = []
    if networks is not None:
        network_rows = [row for row in rows if networks.claims(names, row)]
        claimed = {id(row) for row in network_rows}
        rows = [row for row in rows if id(row) not in claimed]
    errors, found, foreign_rows, reporters = _resolve(names, rows)
    if foreign_rows > FOREIGN_FRACTION * len(rows):
        errors.insert(
            0,
            _file_error(
                "another-design",
                f"{foreign_rows:,} of the {len(rows):,} rows name devices this design does not "
                "have: is the file for another design?",
            ),
        )
    if errors:
        raise CablingImportError(errors[:MAX_ERRORS])
    labels = list(labels) if labels is not None else link_labels(fabric, names.ends)
    a_nodes, a_ports = fabric.link_a.tolist(), fabric.link_a_port.tolist()
    b_nodes, b_ports = fabric.link_b.tolist(), fabric.link_b_port.tolist()
    speeds = fabric.link_speed_gbps.tolist()
    design = {
        _end_key((a_nodes[i], a_ports[i]), (b_nodes[i], b_ports[i])): i
        for i in range(fabric.link_count)
    }
    if whole_fabric:
        in_scope = set(range(fabric.link_count))
    else:
        in_scope = {
            i
            for i in range(fabric.link_count)
            if a_nodes[i] in reporters or b_nodes[i] in reporters
        }
    matched, leftovers, findings = _match(names, labels, found, design, speeds)
    if found and not matched and in_scope and not network_rows:
        raise CablingImportError(
            [
                _file_error(
                    "another-design",
                    "no cable in the file is a link of this design: is the file for another "
                    "design or another revision?",
                )
            ]
        )
    explained: set[int] = set()
    for cable in leftovers:
        findings.append(_classify(names, labels, cable, matched, explained))
    for link in sorted(in_scope - matched - explained):
        a = names.end(a_nodes[link], a_ports[link])
        b = names.end(b_nodes[link], b_ports[link])
        findings.append(
            _finding(
                names,
                labels,
                "missing",
                a,
                b,
                expected=f"{_ends_text(a, b)} ({_speed_text(speeds[link])})",
                found="no cable reported",
                action=f"pull a cable {a.label} to {b.label}",
                rows=(),
                links=[link],
                label=labels[link],
            )
        )
    per_network: dict = {}
    if networks is not None:
        more, per_network = networks.check(names, network_rows, whole_fabric=whole_fabric)
        findings += more
    order = {kind: i for i, kind in enumerate(FINDING_KINDS)}
    findings.sort(key=lambda f: (order[f["kind"]], f["label"]))
    counts = Counter(f["kind"] for f in findings)
    summary = {
        "rows": len(rows) + len(network_rows),
        "cables_found": len(found),
        "links_checked": len(in_scope),
        "links_in_design": fabric.link_count,
        "links_in_place": len(matched & in_scope) - counts.get("wrong-speed", 0),
        "devices_reported": len(reporters) if not whole_fabric else None,
        "findings": len(findings),
        "counts": {kind: counts.get(kind, 0) for kind in FINDING_KINDS},
    }
    if networks is not None:
        summary["networks"] = per_network
    return CablingReport(findings=findings, summary=summary)


def _file_error(code: str, message: str) -> dict:
    """An error about the whole file (row 0, field ``file``), as :func:`_resolve` writes them."""
    return {"row": 0, "field": "file", "code": code, "message": message, "device": "", "port": ""}


def _match(names: FabricNames, labels, found, design: dict, speeds) -> tuple:
    """The reported cables that are links of the design: ``(matched links, the other cables,
    findings)``, a matched cable at another speed than its link's being a finding."""
    matched: set[int] = set()
    leftovers: list[_Found] = []
    findings: list[dict] = []
    for cable in found:
        link = design.get(_end_key(cable.a, cable.b)) if cable.b is not None else None
        if link is None:
            leftovers.append(cable)
            continue
        matched.add(link)
        if cable.speed is not None and abs(cable.speed - speeds[link]) > SPEED_TOLERANCE_GBPS:
            findings.append(
                _finding(
                    names,
                    labels,
                    "wrong-speed",
                    names.end(*cable.a),
                    names.end(*cable.b),
                    expected=f"{_speed_text(speeds[link])}",
                    found=f"{_speed_text(cable.speed)}",
                    action="check the modules, cable and port speed setting at both ends",
                    rows=cable.rows,
                    links=[link],
                    label=labels[link],
                )
            )
    return matched, leftovers, findings


def _ends_text(a: End, b: End) -> str:
    return f"{end_text(a.device, a.port_name)} {ARROW} {end_text(b.device, b.port_name)}"


def _finding(names, labels, kind, a: End, b, *, expected, found, action, rows, links, label):
    b_dict = b.as_dict() if isinstance(b, End) else b
    return {
        "kind": kind,
        "label": label,
        "a": a.as_dict(),
        "b": b_dict,
        "expected": expected,
        "found": found,
        "action": action,
        "rows": list(rows),
        "links": [f"link:{i}" for i in links],
    }


def _other_end(names: FabricNames, link: int, node: int, port: int) -> tuple[int, int]:
    fabric = names.fabric
    a = (int(fabric.link_a[link]), int(fabric.link_a_port[link]))
    b = (int(fabric.link_b[link]), int(fabric.link_b_port[link]))
    return b if a == (node, port) else a


def _classify(names: FabricNames, labels, cable: _Found, matched: set[int], explained: set[int]):
    """Why a reported cable matches no design link: swapped, moved, foreign or extra.

    Long because: one case per kind of mismatch, each building its row; the cases read the same
    ends.
    """
    fabric = names.fabric
    a_end = names.end(*cable.a)
    speeds = fabric.link_speed_gbps
    if cable.b is None:
        link = names.link_at(*cable.a)
        links = [link] if link is not None and link not in matched else []
        explained.update(links)
        device, port = cable.foreign
        b_dict = {"device": device, "port": port, "end": end_text(device, str(port))}
        b_dict.update(role="", label="", rack="", ru="")
        expected = (
            "; ".join(
                f"{_ends_text(a_end, names.end(*_other_end(names, i, *cable.a)))}" for i in links
            )
            or f"nothing on {end_text(a_end.device, a_end.port_name)}"
        )
        return _finding(
            names,
            labels,
            "unexpected",
            a_end,
            b_dict,
            expected=expected,
            found=f"{end_text(a_end.device, a_end.port_name)} {ARROW} {device} {port} "
            "(not in this design)",
            action=f"unplug {device} from {a_end.label}"
            + (", then cable it as designed" if links else ""),
            rows=cable.rows,
            links=links,
            label=labels[links[0]] if links else f"{a_end.label}/{device}",
        )
    b_end = names.end(*cable.b)
    on_ports = []
    for here, there in ((cable.a, cable.b), (cable.b, cable.a)):
        link = names.link_at(*here)
        if link is not None and link not in matched:
            on_ports.append((here, there, link, _other_end(names, link, *here)))
    kind = "unexpected"
    chosen = []
    # swapped ports: a design link between the same two devices, on other ports
    for here, there, link, other in on_ports:
        if other[0] == there[0]:
            kind, chosen = "swapped-ports", [(here, there, link, other)]
            break
    if kind == "unexpected":
        for here, there, link, other in on_ports:
            want, got = other[0], there[0]
            if fabric.node_role[want] != fabric.node_role[got]:
                continue
            plane_w, plane_g = int(fabric.node_plane[want]), int(fabric.node_plane[got])
            rail_w, rail_g = int(fabric.node_rail[want]), int(fabric.node_rail[got])
            if plane_w >= 0 and plane_g >= 0 and plane_w != plane_g:
                kind, chosen = "wrong-plane", [(here, there, link, other)]
                break
            if rail_w >= 0 and rail_g >= 0 and rail_w != rail_g:
                kind, chosen = "wrong-rail", [(here, there, link, other)]
                break
    if kind == "unexpected":
        chosen = on_ports
    links = [c[2] for c in chosen]
    explained.update(links)
    expected_parts = []
    for here, _there, link, other in chosen:
        h, o = names.end(*here), names.end(*other)
        extra = ""
        if kind == "wrong-rail":
            extra = f", rail {int(fabric.node_rail[other[0]]) + 1}"
        elif kind == "wrong-plane":
            extra = f", plane {int(fabric.node_plane[other[0]]) + 1}"
        expected_parts.append(f"{_ends_text(h, o)} ({_speed_text(speeds[link])}{extra})")
    found_extra = ""
    if kind == "wrong-rail":
        found_extra = f" (rail {int(fabric.node_rail[chosen[0][1][0]]) + 1})"
    elif kind == "wrong-plane":
        found_extra = f" (plane {int(fabric.node_plane[chosen[0][1][0]]) + 1})"
    if chosen:
        here, _there, _link, other = chosen[0]
        wrong = names.end(*(cable.b if here == cable.a else cable.a))
        action = f"move the cable at {wrong.label} to {names.end(*other).label}"
    else:
        action = f"remove the cable {a_end.label} to {b_end.label}: the design has no link there"
    label = labels[links[0]] if links else f"{a_end.label}/{b_end.label}"
    return _finding(
        names,
        labels,
        kind,
        a_end,
        b_end,
        expected="; ".join(expected_parts) or "no link between these ports",
        found=_ends_text(a_end, b_end) + found_extra,
        action=action,
        rows=cable.rows,
        links=links,
        label=label,
    )


# --- CSV for the installer ------------------------------------------------------------------

REPORT_COLUMNS = (
    "kind",
    "label",
    "a_device",
    "a_port",
    "a_rack",
    "a_ru",
    "b_device",
    "b_port",
    "b_rack",
    "b_ru",
    "expected",
    "found",
    "action",
    "file_rows",
)


def report_csv_lines(findings: Iterable[dict]) -> Iterable[str]:
    """The findings as CSV for the installer (cells neutralised: ``csv_lines``)."""

    def rows():
        for f in findings:
            a, b = f.get("a") or {}, f.get("b") or {}
            yield (
                f["kind"],
                f.get("label", ""),
                a.get("device", ""),
                a.get("port", ""),
                a.get("rack", ""),
                a.get("ru", ""),
                b.get("device", ""),
                b.get("port", ""),
                b.get("rack", ""),
                b.get("ru", ""),
                f.get("expected", ""),
                f.get("found", ""),
                f.get("action", ""),
                " ".join(str(r) for r in f.get("rows") or []),
            )

    return csv_lines(REPORT_COLUMNS, rows())
