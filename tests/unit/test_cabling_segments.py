"""The cabling plan per segment (issue 19 item 4): a structured design's links list cord A,
trunk and cord B rows with TIA-606 style panel-port and trunk-position labels, agree with the
structured plan, the channels and the BOM, and re-import as no change; point-to-point plans
keep today's columns and rows."""

import csv
import io
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

from planner.domain.canvas import edit_document
from planner.domain.fabric import TIER
from planner.domain.outputs.bom import bill_of_materials
from planner.domain.outputs.cabling import CABLING_COLUMNS, cabling_csv_lines, csv_lines
from planner.domain.outputs.cabling_import import CablingImportError, cabling_edit
from planner.domain.outputs.cabling_segments import SEGMENT_COLUMNS, SEGMENTS
from planner.domain.physical.structured import plan_structured, structured_channels
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

EXAMPLE = Path(__file__).resolve().parents[2] / "planner/domain/examples/h100-superpod-1su.yaml"
CABLING = {
    "server-leaf": {"type": "patch-panel", "panels": "in-rack"},
    "leaf-spine": {"type": "patch-panel", "panels": "end-of-row"},
}
PANEL_PORT = re.compile(r"^(R\d{3}-(?:\d{2}|PP))\.U(\d{2})\.P(\d+)$")
TRUNK_POSITION = re.compile(r"^T(\d+)\.F(\d+)-(\d+)$")


def _fabric(facts, cabling=None):
    doc = yaml.safe_load(EXAMPLE.read_text())
    if cabling is not None:
        doc["cabling"] = cabling
    return build_fabric(parse_spec(doc), facts)


@pytest.fixture(scope="module")
def one_su(facts):
    return _fabric(facts, CABLING)


@pytest.fixture(scope="module")
def text(one_su, facts):
    return "".join(cabling_csv_lines(one_su, facts))


def _rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_each_link_through_panels_lists_its_segments(one_su, facts, text):
    plan = plan_structured(one_su, one_su.settings.cabling, facts)
    rows = _rows(text)
    assert next(csv.reader(io.StringIO(text))) == [*CABLING_COLUMNS, *SEGMENT_COLUMNS]
    links = [r for r in rows if not r["segment"]]
    assert len(links) == one_su.link_count == 508
    # 248 node-leaf + 256 leaf-spine fibers go through panels; the 4 UFM links do not
    assert len(rows) - len(links) == 3 * int(plan.structured.sum()) == 3 * 504
    index = 0
    for link, row in enumerate(links):
        assert rows[index] is row
        index += 1
        if not plan.structured[link]:
            continue
        cord_a, trunk, cord_b = rows[index : index + 3]
        index += 3
        assert (cord_a["segment"], trunk["segment"], cord_b["segment"]) == SEGMENTS
        assert {r["segment_of"] for r in (cord_a, trunk, cord_b)} == {row["label"]}
        # port -> cord -> panel/port -> trunk -> panel/port -> cord -> port
        for end in ("row", "rack", "ru", "device", "role", "port"):
            assert cord_a[f"a_{end}"] == row[f"a_{end}"]
            assert cord_a[f"b_{end}"] == trunk[f"a_{end}"]
            assert trunk[f"b_{end}"] == cord_b[f"a_{end}"]
            assert cord_b[f"b_{end}"] == row[f"b_{end}"]
        a_label, b_label = row["label"].split("/")
        assert cord_a["label"].split("/")[0] == a_label
        assert cord_b["label"].split("/")[1] == b_label
        panel_a = cord_a["label"].split("/")[1]
        panel_b = cord_b["label"].split("/")[0]
        for label, segment_row, side in ((panel_a, trunk, "a"), (panel_b, trunk, "b")):
            rack, ru, port = PANEL_PORT.match(label).groups()
            panel = plan.panels[getattr(plan, f"panel_{side}")[link]]
            assert (rack, int(ru), int(port)) == (
                panel["rack"],
                panel["ru"],
                getattr(plan, f"port_{side}")[link],
            )
            assert segment_row[f"{side}_role"] == "patch-panel"
            assert segment_row[f"{side}_device"] == f"{rack}.U{ru}"
        number, first, last = map(int, TRUNK_POSITION.match(trunk["label"]).groups())
        assert number == plan.trunk[link] + 1
        assert last - first + 1 == 12  # one MPO-12 position per 400G twin-port cage port
        assert first == 12 * (plan.trunk_leg[link] - 1) + 1
        assert last <= plan.trunks[plan.trunk[link]]["fibers"]
        tier = int(one_su.link_tier[link])
        if tier == TIER["server-leaf"]:  # in-rack: the panel is in the server's rack
            assert trunk["a_rack"] == row["a_rack"] and trunk["b_rack"] == row["b_rack"]
        else:  # end-of-row: the panel rack of each row
            assert trunk["a_rack"] == f"R{int(row['a_row']):03d}-PP"
            assert trunk["b_rack"] == f"R{int(row['b_row']):03d}-PP"
    assert index == len(rows)


def test_segment_labels_and_lengths_agree_with_the_channels_and_the_bom(one_su, facts, text):
    rows = _rows(text)
    segments = [r for r in rows if r["segment"]]
    cords = [r for r in segments if r["segment"] != "trunk"]
    trunks = [r for r in segments if r["segment"] == "trunk"]
    # every panel port is cabled once per side, every trunk fibre carries one link
    ends = Counter((r["b_device"], r["b_port"]) for r in cords if r["segment"] == "cord-a")
    ends.update((r["a_device"], r["a_port"]) for r in cords if r["segment"] == "cord-b")
    assert max(ends.values()) == 1
    assert len({r["label"] for r in trunks}) == len(trunks)
    # the three runs add up to the channel's fibre (0.1 m: the plan writes what it ordered)
    channels = structured_channels(one_su, one_su.settings.cabling, facts)
    labels = {r["label"]: i for i, r in enumerate(r for r in rows if not r["segment"])}
    runs: dict[str, float] = {}
    for r in segments:
        runs[r["segment_of"]] = runs.get(r["segment_of"], 0.0) + float(r["run_length_m"])
    for label, total in runs.items():
        assert total == pytest.approx(float(channels.fiber_m[labels[label]]), abs=0.15)
    # the cords are the BOM's cords (part and ordered length), the trunks its trunks
    bom = bill_of_materials(one_su, facts)
    fibers = [line for line in bom.lines if line.category == "fiber"]
    cord_lines = Counter()
    for line in fibers:
        if line.part == "MFP7E10-Nxxx":
            cord_lines[float(line.length_m)] += line.quantity
    assert Counter(float(r["length_m"]) for r in cords) == cord_lines
    trunk_lines = {
        (line.part, float(line.length_m)): line.quantity
        for line in fibers
        if line.part.startswith("TRUNK-")
    }
    plan = plan_structured(one_su, one_su.settings.cabling, facts)
    by_trunk = {r["label"].split(".")[0]: (r["cable_part"], float(r["length_m"])) for r in trunks}
    assert len(by_trunk) == len(plan.trunks)
    assert Counter(by_trunk.values()) == trunk_lines


def test_an_unchanged_structured_plan_reimports_as_no_change(one_su, text, facts):
    edit = cabling_edit(one_su, text, edit_document(one_su), facts)
    assert edit.change_count == 0
    assert len(edit.segment_rows) == 3 * 504
    # leaving the segment rows out removes nothing
    rows = [r for r in _rows(text) if not r["segment"]]
    body = "".join(csv_lines(CABLING_COLUMNS, ([r[c] for c in CABLING_COLUMNS] for r in rows)))
    assert cabling_edit(one_su, body, edit_document(one_su), facts).change_count == 0
    # a changed link row is still an edit
    rows[0]["run_length_m"] = "42"
    body = "".join(csv_lines(CABLING_COLUMNS, ([r[c] for c in CABLING_COLUMNS] for r in rows)))
    assert cabling_edit(one_su, body, edit_document(one_su), facts).changed == [rows[0]["label"]]


@pytest.mark.parametrize(
    ("column", "value", "code"),
    [
        ("b_port", "24", "segment-changed"),
        ("label", "T1.F1-12", "segment-changed"),
        ("segment_of", "nowhere/else", "unknown-link"),
        ("segment", "splice", "bad-segment"),
    ],
)
def test_an_edited_segment_row_is_refused_naming_the_cell(one_su, text, column, value, code, facts):
    rows = _rows(text)
    where = next(
        i for i, r in enumerate(rows) if r["segment"] == "cord-a" and r["tier"] == "leaf-spine"
    )
    rows[where][column] = value
    columns = [*CABLING_COLUMNS, *SEGMENT_COLUMNS]
    body = "".join(csv_lines(columns, ([r[c] for c in columns] for r in rows)))
    with pytest.raises(CablingImportError) as caught:
        cabling_edit(one_su, body, edit_document(one_su), facts)
    (problem,) = caught.value.problems
    assert (problem.row, problem.column, problem.code) == (where + 2, column, code)
    if code == "segment-changed":
        assert "cabling.leaf-spine" in problem.message


def test_point_to_point_keeps_todays_plan(facts, text):
    plain = _fabric(facts)
    plain_text = "".join(cabling_csv_lines(plain, facts))
    assert next(csv.reader(io.StringIO(plain_text))) == list(CABLING_COLUMNS)
    # the structured plan's link rows are the point-to-point plan's rows, cell for cell
    rows = [r for r in _rows(text) if not r["segment"]]
    body = "".join(csv_lines(CABLING_COLUMNS, ([r[c] for c in CABLING_COLUMNS] for r in rows)))
    assert body == plain_text
    # a segment row in a point-to-point design's file is refused
    segment = next(r for r in _rows(text) if r["segment"])
    columns = [*CABLING_COLUMNS, *SEGMENT_COLUMNS]
    lines = [{**r, "segment": "", "segment_of": ""} for r in _rows(plain_text)] + [segment]
    body = "".join(csv_lines(columns, ([r[c] for c in columns] for r in lines)))
    with pytest.raises(CablingImportError) as caught:
        cabling_edit(plain, body, edit_document(plain), facts)
    assert [p.code for p in caught.value.problems] == ["not-structured"]
    assert np.all(plan_structured(plain, None, facts).structured == False)  # noqa: E712
