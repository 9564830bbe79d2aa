"""The cabling plan: one row per cable, per breakout leg and per segment of a link through
patch panels, streamed as CSV, and read back.

Rows
----
One row per link of the fabric, in link order: a whole cable, or one leg of a breakout
(a 1:N cable or a 1:2 splitter fiber). Links without a cable part (a hand-drawn link without
media) still get a row, with the cable columns empty.

Fabric-manager (UFM) links are rows like any other: their UFM-to-leaf fiber and UFM-side
transceiver are the fabric's own media (:mod:`planner.domain.media.assign`), so the plan, the
summary and the BOM count the same cables and modules.

Networks
--------
A design whose spec has a ``networks`` block (storage, converged, in-band, out-of-band) gets
one more row per link of those networks after the compute fabric's rows, network by network
in build order (:func:`planner.domain.networks.elements.cluster_elements`, whose docstring
states how ports are assigned and devices placed). ``network`` names the row's network
(``compute`` for the compute fabric's rows); ``tier`` is the network's link group
(``node-leaf``, ``leaf-spine``, ``node BMCs``, ...); ``plane`` and ``rail`` are empty. Ends
are the networks' own devices (``stor-leaf-01``, ``oob-03``, ``mgmt-01``, ``pdu-R001-01-1``
...) or compute devices on their non-fabric ports (``gpu00001`` port ``stor1``, ``bmc``; a
rack-scale system's tray ports ``tray03/stor1``, with ``a_tray`` 3). Labels use the same
scheme, a device without a rack and RU (or sharing them) being named; they are unique across
networks. A splitter's legs share an ``assembly`` named by its switch cage. ``run_length_m``
is the run by the layout's rule (:mod:`planner.domain.networks.lengths`: the management racks
``MGMT-01``... in a row of their own after the layout's rows, their ``*_row`` written like the
layout's) and ``length_m`` the length ordered (:func:`network_ordered_lengths_m`: a splitter
at its longest leg, the shortest length the part is sold in that covers it, else the ordering
policy). ``run_length_m`` is empty for a link to an endpoint outside the plan (storage arrays,
NFS storage, the customer's core); its ``length_m`` is then the longest length the part is
sold in (empty when the catalog lists none). ``cord_colour`` is the patch-cord / jacket colour
of the row's network (:data:`CORD_COLOURS`, a configurable default: no published convention
was found).

Columns (:data:`CABLING_COLUMNS`): ``label``, ``network``, ``assembly``, ``leg``, ``tier``,
``plane``, ``rail``, ``speed_gbps``; for the A end (the lower tier) and the B end:
``*_row``, ``*_rack``, ``*_ru``, ``*_device``, ``*_role``, ``*_port``, ``*_transceiver``;
then ``cable_part``, ``part_number`` (the orderable part number of that part at ``length_m``:
the one the catalog lists for the length sold, :func:`planner.domain.media.part_number_at`;
empty when the catalog lists none, e.g. a generic cord or a trunk made to length),
``cable_type`` (dac, acc, aec, aoc, fiber; cat5e on an OOB row), ``media`` (copper, optical,
mmf, smf), ``connector``, ``fiber_type``, ``length_m`` (the length ordered), ``run_length_m``
and ``cord_colour``.
``a_tray`` is the compute tray (1-based) of a rack-scale system's port (a GB200-NVL72 rack's
port ``(tray * rails + rail) * planes + plane``), empty for any other device.
On a campus (:mod:`planner.domain.campus`) a compute link between two buildings has tier
``campus``; its racks are named ``B<building>-R<row>-<position>``.

Labels (TIA-606 style)
----------------------
A label names both ends by location, so the same text is printed at both ends and does not
depend on row order: ``<A end>/<B end>``, each end ``<rack>.U<ru>.P<port>`` (``R001-01.U09.P3``;
``P12.2`` is logical port 2 of cage 12). A device without a rack and RU, or sharing both with
another device, is named instead (``gpu00001.P3``). ``assembly`` names a breakout by its
shared end and leg count (``R003-14.U40.P12 1:2``; a splitter fiber from one port of a
twin-port module by that port's first logical port, ``R003-14.U40.P12.3 1:2``, as a cage then
holds two of them) and ``leg`` numbers its legs (1..N, in A-end order); both are empty for a
one-link cable.

Ports are written as :mod:`planner.domain.names` names them: ``<cage>`` for single-port cages,
``<cage>/<logical port>`` otherwise (1-based, as NVIDIA's cabling sheets write split ports:
``1/2``), ``tray <t> NIC <n>`` on a rack-scale system (its label keeps the port number).

Structured cabling
------------------
A design whose spec cables a tier through patch panels (its ``cabling`` block,
:mod:`planner.domain.physical.structured`) lists each end-to-end link's segments. Its header
adds :data:`SEGMENT_COLUMNS` after the columns above: ``segment`` and ``segment_of``, empty on
every link row (and on the other networks' rows). Each link that goes through panels keeps its
row as above (the link as designed: its modules, the link's fiber part, its run) and is
followed by three segment rows, ``segment`` ``cord-a``, ``trunk``, ``cord-b`` in that order,
``segment_of`` the link's label; so a link reads port -> patch cord -> panel/port -> trunk
fibres -> panel/port -> patch cord -> port:

- ``cord-a``: the A end (as on the link row) to the A-side panel port; ``cord-b``: the B-side
  panel port to the B end. ``cable_part`` is the link's fiber part (the cords are that part),
  ``length_m`` the cord as ordered (the shortest listed length of the part that covers the
  cord's run, else the ordering policy: as the BOM counts it), ``run_length_m`` the cord's run
  by the layout's rule.
- ``trunk``: A-side panel port to B-side panel port; ``cable_part`` the trunk as the BOM
  names it (:func:`trunk_part`, ``TRUNK-MPO12-APC-OM4-144F``), ``connector`` its MPO and polish,
  ``fiber_type`` its grade, ``length_m`` made to length by the ordering policy and
  ``run_length_m`` the trunk's run (its longest link's).
- A panel is an end of these rows: ``*_device`` ``<rack>.U<ru>`` (an end-of-row panel rack is
  ``R<row>-PP``), ``*_role`` ``patch-panel``, ``*_port`` its front port (1..24),
  ``*_row``/``*_rack``/``*_ru`` where it is. Transceiver, tray, assembly and leg cells are
  empty on segment rows.
- Labels (TIA-606 style, as above): a panel port is ``<rack>.U<ru>.P<port>``
  (``R001-01.U46.P5``), so a cord is ``R001-01.U01.P1.1/R001-01.U46.P1``; a trunk position is
  ``<trunk>.F<first>-<last>``: the trunk (``T1``, ``T2``... in the plan's order, as validation
  messages name them) and the fibres of it the link uses, numbered at the A-side panel: an MPO
  optic its MPO position(s) (``T1.F13-24``: the 2nd MPO-12 position), a duplex-LC link through a
  cassette or harness its pair of the position's 12 fibres in link order (``T3.F3-4``: the 2nd
  link of the 1st position; inferred, the usual 1-2, 3-4... pairing).

Links of a structured tier that stay point to point (DAC, AOC, both ends at one panel place)
have their link row only. A design without patch-panel tiers has neither the columns nor the
rows: its plan is the same, byte for byte, as before structured cabling.

Re-import
---------
An edited plan is read back by :mod:`planner.domain.outputs.cabling_import`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from inventory.library.cells import line_may_be_unsafe, safe_cell
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import REPORT_TIER_NAMES, TIER_NAMES, Fabric
from planner.domain.media import part_number_at
from planner.domain.summary import ordered_cable_length_m

from .cabling_ends import (
    _BUILT_COLUMNS,
    CORD_COLOURS,
    FabricEnds,
    _fill_cable_text,
    _PartText,
    measure_text,
)
from .cabling_ends import COPPER_TYPES as COPPER_TYPES
from .cabling_networks import network_ordered_lengths_m as network_ordered_lengths_m
from .cabling_networks import network_rows
from .cabling_segments import (
    _COLUMN,
    _NO_SEGMENT,
    SEGMENT_COLUMNS,
    StructuredSegments,
    structured_plan,
)

_PART_NUMBER_AT = _BUILT_COLUMNS.index("cable_part") + 1
CABLING_COLUMNS = (
    *_BUILT_COLUMNS[:_PART_NUMBER_AT],
    "part_number",
    *_BUILT_COLUMNS[_PART_NUMBER_AT:],
)


_SPECIAL = frozenset(',"\r\n')


def _quoted(text: str) -> str:
    if _SPECIAL.isdisjoint(text):
        return text
    return '"' + text.replace('"', '""') + '"'


def csv_line(values: Sequence) -> str:
    """One CSV line (RFC 4180 quoting, ``\\r\\n`` ending) of ``values``.

    Text that a spreadsheet would read as a formula is neutralised
    (:func:`inventory.library.cells.safe_cell`); numbers are written as they are.
    The common case (no value holds a comma, quote or line break, none begins with a formula
    character) is one join and two checks.

    Examples
    --------
    >>> csv_line(["a", "b,c", 3]) == 'a,"b,c",3\\r\\n'
    True
    >>> csv_line(["=1+2", "-x", -1]) == "'=1+2,'-x,-1\\r\\n"
    True
    """
    try:
        line = ",".join(values)
        texts = values
    except TypeError:  # not all strings
        texts = [v if isinstance(v, str) else ("" if v is None else str(v)) for v in values]
        line = ",".join(texts)
    if line_may_be_unsafe(line):  # some text may begin with = + - @ tab CR: neutralise it
        pairs = zip(values, texts, strict=True)
        texts = [safe_cell(v) if isinstance(v, str) else t for v, t in pairs]
    elif (
        line.count(",") == len(texts) - 1
        and '"' not in line
        and "\n" not in line
        and "\r" not in line
    ):
        return line + "\r\n"
    return ",".join(_quoted(text) for text in texts) + "\r\n"


def csv_lines(columns: Sequence[str], rows: Iterable[Sequence]) -> Iterator[str]:
    """A streaming CSV writer: the header line, then one line per row (flat memory)."""
    yield csv_line(columns)
    for row in rows:
        yield csv_line(row)


# --- ends ---------------------------------------------------------------------------------------


def link_labels(fabric: Fabric, ends: FabricEnds | None = None) -> list[str]:
    """The label of every link (see the module docstring), in link order."""
    return list(iter_link_labels(fabric, ends))


def _legs(fabric: Fabric) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The links of cables with more than one leg (ascending), with per such link: the
    cable's leg count, its leg number (1.., in A-end order) and whether the legs share the
    B end (else the A end). Fabrics without breakouts give empty arrays."""
    empty = np.zeros(0, dtype=np.int64)
    nothing = (empty, empty, empty, np.zeros(0, dtype=bool))
    cable = fabric.link_cable
    if cable is None or not fabric.link_count:
        return nothing
    has = cable >= 0
    if not has.any():
        return nothing
    counts = np.bincount(cable[has])
    if counts.max() < 2:
        return nothing
    links = np.flatnonzero(has & (counts[np.where(has, cable, 0)] > 1))
    ids = cable[links].astype(np.int64)
    legs = counts[ids]
    order = np.lexsort((fabric.link_a_port[links], fabric.link_a[links], ids))
    sorted_ids = ids[order]
    starts = np.searchsorted(sorted_ids, sorted_ids, side="left")
    leg = np.empty(links.size, dtype=np.int64)
    leg[order] = np.arange(order.size) - starts + 1
    b_nodes = fabric.link_b[links]
    cage = fabric.link_b_port[links] // np.maximum(fabric.node_ports_per_cage[b_nodes], 1)
    b_key = b_nodes.astype(np.int64) * (1 << 20) + cage
    unique, inverse = np.unique(ids, return_inverse=True)
    low = np.full(unique.size, np.iinfo(np.int64).max)
    high = np.full(unique.size, np.iinfo(np.int64).min)
    np.minimum.at(low, inverse, b_key)
    np.maximum.at(high, inverse, b_key)
    return links, legs, leg, (low == high)[inverse]


def _part_texts(fabric: Fabric, facts: CatalogFacts) -> list[_PartText]:
    texts = []
    for slug in fabric.parts:
        record = facts.parts.get(slug) or {}
        category = record.get("category")
        text = _PartText(slug=slug)
        if category in ("fiber", "cable"):
            _fill_cable_text(text, record)
        elif category == "transceiver":
            text.connector = str(record.get("connector") or "")
            text.media = str(record.get("media") or "")
        texts.append(text)
    return texts


BLOCK_LINKS = 4096  # links converted to Python values at a time


def link_blocks(count: int, block: int = BLOCK_LINKS) -> Iterator[slice]:
    """Consecutive slices of ``block`` links: per-link values are made block by block, so a
    stream's memory does not grow with the number of links."""
    for start in range(0, count, block):
        yield slice(start, min(start + block, count))


def _ports_per_tray(fabric: Fabric) -> int:
    """Ports of one compute tray of the fabric's rack-scale system (0: not one)."""
    if not (fabric.settings.rack_system or {}).get("compute_trays"):
        return 0
    return int(fabric.info.get("rails") or 0) * fabric.settings.planes


def cabling_rows(
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    elements=None,
    cord_colours: dict[str, str] | None = None,
    plan=False,
) -> Iterator[tuple]:
    """The rows of the cabling plan: those of :func:`_built_rows` with ``part_number``, the
    orderable part number of the row's cable part at its ordered length
    (:func:`planner.domain.media.part_number_at`), after ``cable_part``."""
    slug_at, length_at = _COLUMN["cable_part"], _COLUMN["length_m"]
    numbers: dict[tuple[str, str], str] = {}
    built = _built_rows(fabric, facts, elements=elements, cord_colours=cord_colours, plan=plan)
    for row in built:
        key = (row[slug_at], row[length_at])
        number = numbers.get(key)
        if number is None:
            number = numbers[key] = _part_number(facts, *key)
        yield row[:_PART_NUMBER_AT] + (number,) + row[_PART_NUMBER_AT:]


def _part_number(facts: CatalogFacts, slug: str, length_text: str) -> str:
    """The orderable part number of catalog part ``slug`` at the length a row prints."""
    record = facts.parts.get(slug) if slug else None
    if not record:
        return ""
    return part_number_at(record, float(length_text) if length_text else None)


def _built_rows(
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    elements=None,
    cord_colours: dict[str, str] | None = None,
    plan=False,
) -> Iterator[tuple]:
    """The rows of the cabling plan (tuples in ``_BUILT_COLUMNS`` order), link by link:
    the compute fabric's, then every other network's (module docstring, "Networks").
    A structured design's rows add :data:`SEGMENT_COLUMNS`, and each link through patch
    panels is followed by its segment rows (module docstring, "Structured cabling");
    :func:`cabling_columns` is the header that goes with them.

    Per-node and per-part strings are computed once; link columns are read block by block
    (:func:`link_blocks`) and rows produced one at a time, so memory stays flat however many
    cables the fabric has.

    Parameters
    ----------
    elements : ClusterElements, optional
        The networks' devices and links to list instead of the fabric's stored ones (those
        by default: :func:`planner.domain.networks.elements.network_elements`).
    cord_colours : dict, optional
        ``{network: colour}`` over :data:`CORD_COLOURS`.
    plan : StructuredPlan or None, optional
        The fabric's :func:`structured_plan` when already computed (None: point to point).

    Long because: it reads every link's columns block by block into rows in one pass that
    shares the per-fabric texts (a multi-leg assembly's row is :func:`_leg_row`), and its
    docstring documents the streaming and three parameters.
    """
    if plan is False:
        plan = structured_plan(fabric, facts)
    colours = {**CORD_COLOURS, **(cord_colours or {})}
    compute_colour = colours.get("compute", "")
    ends = FabricEnds(fabric)
    parts = _part_texts(fabric, facts)
    multi_links, multi_legs, multi_leg, multi_shared = _legs(fabric)
    module_ports = [
        int((facts.parts.get(s) or {}).get("ports_per_module") or 1) for s in fabric.parts
    ]
    rail = fabric.node_rail.tolist()
    ports_per_tray = _ports_per_tray(fabric)
    has_media = fabric.link_a_part is not None
    ordered_all = ordered_cable_length_m(fabric)
    run_all = fabric.link_length_m if fabric.link_length_m is not None else ordered_all
    segments = StructuredSegments(fabric, plan, ends, facts) if plan is not None else None
    shown_tiers = fabric.report_tiers()  # links between buildings: the campus tier
    texts = _Texts()
    for block in link_blocks(fabric.link_count):
        size = block.stop - block.start
        a_col, a_port = fabric.link_a[block].tolist(), fabric.link_a_port[block].tolist()
        b_col, b_port = fabric.link_b[block].tolist(), fabric.link_b_port[block].tolist()
        tier = fabric.link_tier[block].tolist()
        shown = shown_tiers[block].tolist()
        plane = fabric.link_plane[block].tolist()
        speed = fabric.link_speed_gbps[block].tolist()
        none = [-1] * size
        a_part = fabric.link_a_part[block].tolist() if has_media else none
        b_part = fabric.link_b_part[block].tolist() if has_media else none
        cable_part = fabric.link_cable_part[block].tolist() if has_media else none
        unknown = [math.nan] * size
        ordered = ordered_all[block].tolist() if ordered_all is not None else unknown
        run = run_all[block].tolist() if run_all is not None else unknown
        through = plan.structured[block].tolist() if plan is not None else None
        lo, hi = np.searchsorted(multi_links, [block.start, block.stop])
        multi = {
            link - block.start: (legs, leg, shared)
            for link, legs, leg, shared in zip(
                multi_links[lo:hi].tolist(),
                multi_legs[lo:hi].tolist(),
                multi_leg[lo:hi].tolist(),
                multi_shared[lo:hi].tolist(),
                strict=True,
            )
        }
        fast = _plain_rows(
            ends,
            parts,
            (a_col, a_port, b_col, b_port, a_part, b_part, cable_part),
            (tier, shown, plane, speed, ordered, run),
            (rail, ports_per_tray, compute_colour, texts),
        )
        for i in range(size):
            a, b = a_col[i], b_col[i]
            pa, pb, pc = a_part[i], b_part[i], cable_part[i]
            if i not in multi:
                row = fast[i]  # the common case, built column by column
                if segments is None:
                    yield row
                    continue
                yield row + _NO_SEGMENT
                if through[i]:
                    yield from segments.rows(block.start + i, row)
                continue
            row = _leg_row(
                ends,
                parts,
                (module_ports, rail, ports_per_tray, compute_colour),
                (a, a_port[i], b, b_port[i], pa, pb, pc),
                (tier[i], shown[i], plane[i], speed[i], ordered[i], run[i]),
                multi[i],
            )
            if segments is None:
                yield row
                continue
            yield row + _NO_SEGMENT
            if through[i]:
                yield from segments.rows(block.start + i, row)
    rows = network_rows(fabric, facts, ends, elements=elements, colours=colours)
    if segments is None:
        yield from rows
    else:
        for row in rows:
            yield row + _NO_SEGMENT


def _leg_row(ends: FabricEnds, parts, per_fabric, ends_of, columns, multi) -> tuple:
    """The plan's row of one leg of a multi-leg assembly (a breakout cable or splitter), in
    ``_BUILT_COLUMNS`` order; its assembly is named by the shared end's cage (or module port).

    ``per_fabric``: ``(module_ports, rail, ports_per_tray, compute_colour)``; ``ends_of``: the
    link's ``(a, a_port, b, b_port, a_part, b_part, cable_part)``; ``columns``: its ``(tier,
    shown tier, plane, speed, ordered length, run length)``; ``multi``: ``(legs, leg, shared)``.
    """
    module_ports, rail, ports_per_tray, compute_colour = per_fabric
    a, a_port, b, b_port, pa, pb, pc = ends_of
    tier, shown, plane, speed, ordered, run = columns
    cable = parts[pc] if pc >= 0 else _PartText()
    length = measure_text(ordered) if pc >= 0 else ""
    a_module = parts[pa].slug if pa >= 0 and pa != pc else ""
    legs, leg, shared = multi
    node, port = (b, b_port) if shared else (a, a_port)
    head = ends.cage_name(node, port)
    per_cage = ends.per_cage[node]
    per_module = module_ports[pb] if shared and pb >= 0 else 1
    if cable.cable_type == "fiber" and per_module > 1 and per_cage % per_module == 0:
        # a splitter fiber's head is one port of a multi-port module: name it
        per_head = per_cage // per_module
        head = ends.schemes[node].label(port // per_head * per_head)
    assembly = f"{ends.location[node]}.P{head} 1:{legs}"
    leg_number = str(leg)
    topology_tier = TIER_NAMES[tier]
    tier_name = REPORT_TIER_NAMES[shown]
    leaf = b if topology_tier == "server-leaf" else a
    rail_text = str(rail[leaf] + 1) if rail[leaf] >= 0 and topology_tier != "spine-core" else ""
    connector = cable.connector
    if cable.cable_type == "fiber" and not connector and pa >= 0:
        connector = parts[pa].connector
    a_port_name = ends.port_name(a, a_port)
    b_port_name = ends.port_name(b, b_port)
    row = (
        f"{ends.end_label(a, a_port)}/{ends.end_label(b, b_port)}",
        "compute",
        assembly,
        leg_number,
        tier_name,
        str(plane + 1) if plane >= 0 else "",
        rail_text,
        str(speed),
        ends.row[a],
        ends.rack[a],
        ends.ru[a],
        ends.names[a],
        ends.roles[a],
        a_port_name,
        str(a_port // ports_per_tray + 1) if ports_per_tray and ends.roles[a] == "server" else "",
        a_module,
        ends.row[b],
        ends.rack[b],
        ends.ru[b],
        ends.names[b],
        ends.roles[b],
        b_port_name,
        parts[pb].slug if pb >= 0 and pb != pc else "",
        cable.slug,
        cable.cable_type,
        cable.media,
        connector,
        cable.fiber_type,
        length,
        measure_text(run),
        compute_colour,
    )
    return row


class _Texts:
    """Memoised texts of a cabling plan's common values: port names (``17``, ``3/2``,
    ``tray 2 NIC 1``) and their label form (``3.2``) per (naming scheme, port), and lengths
    (:func:`measure_text`)."""

    def __init__(self):
        self.ports: dict[tuple, tuple[str, str]] = {}
        self.numbers: dict[float, str] = {}

    def port(self, scheme, port: int) -> tuple[str, str]:
        key = (scheme, port)
        found = self.ports.get(key)
        if found is None:
            found = self.ports[key] = (scheme.name(port), scheme.label(port))
        return found

    def number(self, value: float) -> str:
        found = self.numbers.get(value)
        if found is None:
            found = measure_text(value)
            if len(self.numbers) < 100_000:  # lengths repeat; cap the memo all the same
                self.numbers[value] = found
        return found


def _plain_rows(ends: FabricEnds, parts, links, columns, context) -> list[tuple]:
    """The rows of a block of compute links, built column by column (list comprehensions and
    one ``zip``): right for every link that is neither a breakout leg nor a fabric-manager
    link without a cable part, which :func:`cabling_rows` writes one at a time instead."""
    a_col, a_port, b_col, b_port, a_part, b_part, cable_part = links
    tier, shown, plane, speed, ordered, run = columns
    rail, ports_per_tray, compute_colour, texts = context
    schemes, location = ends.schemes, ends.location
    a_names = [texts.port(schemes[a], p) for a, p in zip(a_col, a_port, strict=True)]
    b_names = [texts.port(schemes[b], p) for b, p in zip(b_col, b_port, strict=True)]
    labels = [
        f"{location[a]}.P{an[1]}/{location[b]}.P{bn[1]}"
        for a, b, an, bn in zip(a_col, b_col, a_names, b_names, strict=True)
    ]
    server_leaf, spine_core = TIER_NAMES.index("server-leaf"), TIER_NAMES.index("spine-core")
    rails = []
    for a, b, t in zip(a_col, b_col, tier, strict=True):
        leaf_rail = rail[b if t == server_leaf else a]
        rails.append(str(leaf_rail + 1) if leaf_rail >= 0 and t != spine_core else "")
    empty = _PartText()
    cables = [parts[pc] if pc >= 0 else empty for pc in cable_part]
    connectors = [
        parts[pa].connector
        if cable.cable_type == "fiber" and not cable.connector and pa >= 0
        else cable.connector
        for cable, pa in zip(cables, a_part, strict=True)
    ]
    roles = ends.roles
    trays = (
        [
            str(p // ports_per_tray + 1) if roles[a] == "server" else ""
            for a, p in zip(a_col, a_port, strict=True)
        ]
        if ports_per_tray
        else [""] * len(a_col)
    )
    number = texts.number
    return list(
        zip(
            labels,
            ["compute"] * len(a_col),
            [""] * len(a_col),
            [""] * len(a_col),
            [REPORT_TIER_NAMES[t] for t in shown],
            [str(p + 1) if p >= 0 else "" for p in plane],
            rails,
            [str(v) for v in speed],
            [ends.row[a] for a in a_col],
            [ends.rack[a] for a in a_col],
            [ends.ru[a] for a in a_col],
            [ends.names[a] for a in a_col],
            [roles[a] for a in a_col],
            [n[0] for n in a_names],
            trays,
            [
                parts[pa].slug if pa >= 0 and pa != pc else ""
                for pa, pc in zip(a_part, cable_part, strict=True)
            ],
            [ends.row[b] for b in b_col],
            [ends.rack[b] for b in b_col],
            [ends.ru[b] for b in b_col],
            [ends.names[b] for b in b_col],
            [roles[b] for b in b_col],
            [n[0] for n in b_names],
            [
                parts[pb].slug if pb >= 0 and pb != pc else ""
                for pb, pc in zip(b_part, cable_part, strict=True)
            ],
            [c.slug for c in cables],
            [c.cable_type for c in cables],
            [c.media for c in cables],
            connectors,
            [c.fiber_type for c in cables],
            [number(v) if pc >= 0 else "" for v, pc in zip(ordered, cable_part, strict=True)],
            [number(v) for v in run],
            [compute_colour] * len(a_col),
            strict=True,
        )
    )


# --- structured cabling: a link's segments ------------------------------------------------------


# --- the cluster's other networks ---------------------------------------------------------------


def iter_link_labels(fabric: Fabric, ends: FabricEnds | None = None) -> Iterator[str]:
    """The label of every link, in link order, produced block by block."""
    ends = ends or FabricEnds(fabric)
    for block in link_blocks(fabric.link_count):
        a, a_port = fabric.link_a[block].tolist(), fabric.link_a_port[block].tolist()
        b, b_port = fabric.link_b[block].tolist(), fabric.link_b_port[block].tolist()
        for i in range(len(a)):
            yield f"{ends.end_label(a[i], a_port[i])}/{ends.end_label(b[i], b_port[i])}"


def cabling_csv_lines(
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    elements=None,
    cord_colours: dict[str, str] | None = None,
) -> Iterator[str]:
    """The cabling plan as CSV text, one line at a time (header first)."""
    plan = structured_plan(fabric, facts)
    rows = cabling_rows(fabric, facts, elements=elements, cord_colours=cord_colours, plan=plan)
    return csv_lines(cabling_columns(plan), rows)


def cabling_columns(plan) -> tuple[str, ...]:
    """The plan's header: :data:`CABLING_COLUMNS`, and :data:`SEGMENT_COLUMNS` when ``plan``
    (a :func:`structured_plan`) is not None."""
    return CABLING_COLUMNS if plan is None else CABLING_COLUMNS + SEGMENT_COLUMNS


__all__ = [
    "CABLING_COLUMNS",
    "cabling_columns",
    "cabling_csv_lines",
    "cabling_rows",
    "csv_line",
    "csv_lines",
    "iter_link_labels",
    "link_blocks",
    "link_labels",
]
