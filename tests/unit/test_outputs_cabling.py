"""Cabling plan (planner.domain.outputs.cabling): rows, labels, breakouts, streaming CSV and
re-import of an edited plan into an edit document."""

import csv
import inspect
import io
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from planner.domain.canvas import edit_document, fabric_from_edit, validate_edit
from planner.domain.fabric import ROLE, Fabric
from planner.domain.media import UFM_LEAF_CABLE, order_length_m
from planner.domain.outputs import (
    CABLING_COLUMNS,
    CablingImportError,
    cabling_csv_lines,
    cabling_edit,
    csv_lines,
    link_labels,
)
from planner.domain.outputs.cabling import csv_line
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from tests.unit.test_outputs_bom import GB200_DAC

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


@pytest.fixture(scope="module")
def one_su(facts):
    spec = yaml.safe_load((EXAMPLES / "h100-superpod-1su.yaml").read_text())
    return build_fabric(parse_spec(spec), facts)


@pytest.fixture(scope="module")
def four_su(facts):
    spec = yaml.safe_load((EXAMPLES / "h100-superpod-4su.yaml").read_text())
    return build_fabric(parse_spec(spec), facts)


@pytest.fixture(scope="module")
def gb200(facts):
    return build_fabric(parse_spec(GB200_DAC), facts)


def _rows(fabric, facts) -> list[dict]:
    return list(csv.DictReader(cabling_csv_lines(fabric, facts)))


def _write(rows: list[dict]) -> str:
    return "".join(csv_lines(CABLING_COLUMNS, ([r[c] for c in CABLING_COLUMNS] for r in rows)))


def test_one_row_per_link_with_every_column(one_su, facts):
    lines = cabling_csv_lines(one_su, facts)
    assert inspect.isgenerator(lines)  # streamed, not built in memory
    rows = list(csv.DictReader(lines))
    assert len(rows) == one_su.link_count
    assert list(rows[0]) == list(CABLING_COLUMNS)
    with_cable = [r for r in rows if r["cable_part"]]  # fabric-manager rows too (issue 33)
    assert len(with_cable) == int((one_su.link_cable >= 0).sum())
    first = rows[0]
    assert first["a_role"] == "server" and first["b_role"] == "leaf"
    assert first["a_rack"] and first["a_ru"] and first["b_rack"] and first["b_ru"]
    assert first["a_transceiver"] and first["b_transceiver"]
    assert first["media"] == "mmf" and first["connector"] == "mpo12-apc"
    assert float(first["length_m"]) >= float(first["run_length_m"])
    assert first["tier"] == "server-leaf" and first["plane"] == "1" and first["rail"]


def test_labels_name_both_ends_by_location_and_are_unique(one_su, facts):
    rows = _rows(one_su, facts)
    labels = [row["label"] for row in rows]
    assert len(set(labels)) == len(labels)
    row = rows[0]
    a_end = f"{row['a_rack']}.U{int(row['a_ru']):02d}.P{row['a_port'].replace('/', '.')}"
    b_end = f"{row['b_rack']}.U{int(row['b_ru']):02d}.P{row['b_port'].replace('/', '.')}"
    assert row["label"] == f"{a_end}/{b_end}"


def test_labels_do_not_depend_on_row_order(one_su):
    order = np.random.default_rng(7).permutation(one_su.link_count)
    shuffled = Fabric.from_dict(one_su.to_dict())
    for name in Fabric.LINK_COLUMNS:
        column = getattr(shuffled, name)
        if column is not None:
            setattr(shuffled, name, column[order])
    before = link_labels(one_su)
    after = link_labels(shuffled)
    assert after == [before[i] for i in order]


def test_breakout_legs_share_an_assembly_and_are_numbered(gb200, facts):
    rows = [r for r in _rows(gb200, facts) if r["tier"] == "server-leaf"]
    assert rows and all(r["cable_type"] == "dac" and r["media"] == "copper" for r in rows)
    by_assembly: dict[str, list[dict]] = {}
    for row in rows:
        by_assembly.setdefault(row["assembly"], []).append(row)
    assert len(by_assembly) == len(rows) // 2
    for assembly, legs in by_assembly.items():
        assert assembly.endswith(" 1:2")
        assert sorted(leg["leg"] for leg in legs) == ["1", "2"]
        assert len({leg["b_device"] for leg in legs}) == 1  # the head in one switch cage
        assert len({leg["label"] for leg in legs}) == 2
        assert len({leg["cable_part"] for leg in legs}) == 1


def test_csv_line_quotes_what_needs_quoting():
    values = ["plain", "a,b", 'say "x"', "two\nlines", "", 3]
    parsed = next(csv.reader([csv_line(values)]))
    assert parsed == ["plain", "a,b", 'say "x"', "two\nlines", "", "3"]


# --- re-import ------------------------------------------------------------------------------------


def test_an_unchanged_plan_changes_nothing(one_su, facts):
    document = edit_document(one_su)
    edit = cabling_edit(one_su, _write(_rows(one_su, facts)), document, facts)
    assert edit.change_count == 0
    assert edit.document["links"] == document["links"]


def test_an_edited_run_length_reaches_the_fabric(one_su, facts):
    rows = _rows(one_su, facts)
    document = edit_document(one_su)
    rows[0]["run_length_m"] = "11.5"
    edit = cabling_edit(one_su, _write(rows), document, facts)
    assert edit.changed == [rows[0]["label"]]
    assert edit.document["links"][0]["length_m"] == 11.5
    fabric = fabric_from_edit(edit.document, facts)
    assert float(fabric.link_length_m[0]) == pytest.approx(11.5)
    assert edit.rows[5] == 7  # document link 5 came from row 7 (the header is row 1)


def test_edited_parts_reach_the_edit_document(one_su, facts):
    rows = _rows(one_su, facts)
    rows[2]["b_transceiver"] = "MMA4Z00-NS-T"
    rows[2]["cable_part"] = ""
    edit = cabling_edit(one_su, _write(rows), edit_document(one_su), facts)
    link = edit.document["links"][2]
    assert (link["b_part"], link["cable"]) == ("MMA4Z00-NS-T", None)
    assert edit.changed == [rows[2]["label"]]


def test_swapping_two_ports_changes_both_links(one_su, facts):
    rows = _rows(one_su, facts)
    document = edit_document(one_su)
    leaf = rows[0]["b_device"]
    other = next(i for i, r in enumerate(rows) if i and r["b_device"] == leaf)
    rows[0]["b_port"], rows[other]["b_port"] = rows[other]["b_port"], rows[0]["b_port"]
    edit = cabling_edit(one_su, _write(rows), document, facts)
    assert sorted(edit.changed) == sorted([rows[0]["label"], rows[other]["label"]])
    links = edit.document["links"]
    before = document["links"]
    assert (links[0]["b_port"], links[other]["b_port"]) == (
        before[other]["b_port"],
        before[0]["b_port"],
    )
    assert not [p for p in validate_edit(edit.document, facts) if p.severity == "error"]


def test_rows_can_be_added_and_removed(one_su, facts):
    rows = _rows(one_su, facts)
    document = edit_document(one_su)
    removed = rows.pop(3)
    added = dict(removed, label="", assembly="", leg="")
    rows.append(added)
    edit = cabling_edit(one_su, _write(rows), document, facts)
    assert edit.removed == [removed["label"]]
    assert edit.added_rows == [len(rows) + 1]
    assert len(edit.document["links"]) == len(document["links"])
    new = edit.document["links"][-1]
    assert (new["a"], new["b"]) == (removed["a_device"], removed["b_device"])
    assert edit.rows[len(edit.document["links"]) - 1] == len(rows) + 1
    assert not [p for p in validate_edit(edit.document, facts) if p.severity == "error"]


def test_a_rack_scale_plan_names_tray_nics_and_reads_them_back(gb200, facts):
    rows = _rows(gb200, facts)
    document = edit_document(gb200)
    assert cabling_edit(gb200, _write(rows), document, facts).change_count == 0
    server = [i for i, r in enumerate(rows) if r["a_role"] == "server"]
    first, other = (
        server[0],
        next(i for i in server if rows[i]["a_tray"] != rows[server[0]]["a_tray"]),
    )
    assert re.fullmatch(rf"tray {rows[first]['a_tray']} NIC \d+", rows[first]["a_port"])
    # moving a cable to another tray's NIC, written by its tray/NIC name, is read back
    rows[first]["a_port"], rows[other]["a_port"] = rows[other]["a_port"], rows[first]["a_port"]
    rows[first]["a_device"] = rows[other]["a_device"]
    rows[other]["a_device"] = _rows(gb200, facts)[first]["a_device"]
    edit = cabling_edit(gb200, _write(rows), document, facts)
    links, before = edit.document["links"], document["links"]
    assert (links[first]["a"], links[first]["a_port"]) == (
        before[other]["a"],
        before[other]["a_port"],
    )
    assert (links[other]["a"], links[other]["a_port"]) == (
        before[first]["a"],
        before[first]["a_port"],
    )
    rows[first]["a_port"] = "tray 99 NIC 1"
    with pytest.raises(CablingImportError) as caught:
        cabling_edit(gb200, _write(rows), document, facts)
    assert [p.code for p in caught.value.problems] == ["bad-port"]


@pytest.mark.parametrize(
    ("column", "value", "code"),
    [
        ("a_port", "seven", "bad-port"),
        ("b_port", "99/9", "bad-port"),
        ("a_device", "no-such-host", "unknown-device"),
        ("run_length_m", "-3", "bad-number"),
        ("run_length_m", "1e308", "bad-number"),  # issue 34: inside a cable's physical range
        ("length_m", "NaN", "bad-number"),
        ("label", "R9.U01.P1/R9.U02.P1", "unknown-label"),
    ],
)
def test_bad_cells_are_reported_by_row_and_column(one_su, facts, column, value, code):
    rows = _rows(one_su, facts)
    rows[4][column] = value
    with pytest.raises(CablingImportError) as caught:
        cabling_edit(one_su, _write(rows), edit_document(one_su), facts)
    problems = caught.value.problems
    assert [(p.row, p.column, p.code) for p in problems] == [(6, column, code)]
    assert problems[0].message.startswith(f"row 6, {column}: ")


def test_a_repeated_label_and_a_missing_column_are_refused(one_su, facts):
    rows = _rows(one_su, facts)
    rows.append(dict(rows[0]))
    with pytest.raises(CablingImportError) as caught:
        cabling_edit(one_su, _write(rows), edit_document(one_su), facts)
    assert [(p.row, p.code) for p in caught.value.problems] == [(len(rows) + 1, "duplicate-label")]
    lines = _write(rows).splitlines()
    header = lines[0].replace("a_port,", "")
    with pytest.raises(CablingImportError) as caught:
        cabling_edit(one_su, "\n".join([header, *lines[1:3]]), edit_document(one_su), facts)
    assert [(p.row, p.column, p.code) for p in caught.value.problems] == [
        (1, "a_port", "missing-column")
    ]


def test_an_empty_file_is_refused(one_su, facts):
    with pytest.raises(CablingImportError) as caught:
        cabling_edit(one_su, "", edit_document(one_su), facts)
    assert caught.value.problems[0].code == "empty"


# --- formula injection (issue 14) ---------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile(facts):
    spec = yaml.safe_load((EXAMPLES / "h100-superpod-1su.yaml").read_text())
    naming = {"leaf": "=evil-su{su:03d}-r{rail}", "server": "-gpu{index:05d}"}
    return build_fabric(parse_spec({**spec, "naming": naming}), facts)


def test_csv_line_neutralises_formula_text_but_not_numbers():
    values = ["=1+2", "+x", "-foo", "@SUM(A1)", "\tx", "\rx", "'=x", "plain", -1, -1.5]
    parsed = next(csv.reader([csv_line(values)]))
    assert parsed == ["'=1+2", "'+x", "'-foo", "'@SUM(A1)", "'\tx", "'\rx", "''=x", "plain"] + [
        "-1",
        "-1.5",
    ]


def test_a_hostile_node_name_is_neutralised_and_reads_back_unchanged(hostile, facts):
    text = "".join(cabling_csv_lines(hostile, facts))
    rows = list(csv.DictReader(text.splitlines()))
    assert "'=evil-su001-r1" in {r["b_device"] for r in rows}
    assert "'-gpu00001" in {r["a_device"] for r in rows}
    assert not [c for r in rows for c in r.values() if c[:1] in ("=", "+", "-", "@")]
    document = edit_document(hostile)
    assert cabling_edit(hostile, text, document, facts).change_count == 0
    # an edit that moves a cable to another hostile-named device reads the name without its '
    target = next(r for r in rows if r["a_device"] != "'-gpu00001")["a_device"]
    rows[0]["a_device"] = target
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    edit = cabling_edit(hostile, out.getvalue(), document, facts)
    assert edit.changed == [rows[0]["label"]]
    assert edit.document["links"][0]["a"] == target[1:]


def test_rows_carry_the_exact_run_and_the_ordered_length(one_su, facts):
    """Issue 15 item 8: the plan keeps the exact run next to the length ordered for it."""
    rows = [row for row in _rows(one_su, facts) if row["cable_part"]]
    ordered = {float(row["length_m"]) for row in rows}
    assert len(ordered) <= 6  # a handful of orderable lengths
    runs = [float(row["run_length_m"]) for row in rows]
    assert len(set(runs)) > len(ordered)  # runs stay exact (0.1 m)
    for row in rows:
        assert float(row["length_m"]) >= float(row["run_length_m"])
    assert any(float(row["length_m"]) > float(row["run_length_m"]) for row in rows)


# --- fabric-manager (UFM) rows (issue 15, "Also") ----------------------------------------------


def test_no_row_of_the_4su_plan_has_an_empty_cable(four_su, facts):
    rows = _rows(four_su, facts)
    for column in ("cable_part", "cable_type", "media", "connector", "length_m", "run_length_m"):
        assert all(row[column] for row in rows), column
    managers = [row for row in rows if row["a_role"] == "manager"]
    assert len(managers) == 4
    for row in managers:
        # the cable NVIDIA's BOM lists apart (RA-11333-001 Table 8), media of the leaf's module
        assert row["cable_part"] == UFM_LEAF_CABLE
        assert (row["cable_type"], row["media"], row["connector"]) == ("fiber", "mmf", "mpo12-apc")
        assert row["b_role"] == "leaf" and row["b_transceiver"] == "MMA4Z00-NS"
        run = float(row["run_length_m"])
        # issue 33: at the length the cable is sold in (its one length, 30 m), with its number
        assert float(row["length_m"]) == order_length_m(facts.parts[UFM_LEAF_CABLE], run) >= run
        assert row["part_number"] == UFM_LEAF_CABLE


def test_manager_links_carry_their_fibre_and_ufm_module(four_su, facts):
    """Issue 33 item 5: the fabric's own media carry the UFM links: per link the UFM -> leaf
    fibre and the UFM-side module RA-11333-001 Table 8 prints (980-9I557-00N030,
    980-9I51S-00NS00), at the leaf's port speed on a leaf port of its own (QM97x0 manual: the
    UFM side runs "1 port in 400 Gb/s"), the leaf end being the module of its cage."""
    managers = np.flatnonzero(four_su.node_role[four_su.link_a] == ROLE["manager"])
    assert managers.size == 4
    cable_of = four_su.link_cable[managers]
    assert np.unique(cable_of).size == 4 and (cable_of >= 0).all()
    assert {four_su.parts[int(p)] for p in four_su.link_cable_part[managers]} == {UFM_LEAF_CABLE}
    modules = four_su.link_a_module[managers]
    assert np.unique(modules).size == 4 and (modules >= 0).all()
    side = {four_su.parts[int(p)] for p in four_su.link_a_part[managers]}
    assert {facts.parts[slug]["part_number"] for slug in side} == {"980-9I51S-00NS00"}
    nodes = four_su.node_role[four_su.link_a] == ROLE["server"]
    assert set(four_su.link_speed_gbps[managers].tolist()) == set(
        four_su.link_speed_gbps[nodes].tolist()
    )
    leaves = {int(four_su.link_b[link]) for link in managers.tolist()}
    assert len(leaves) == 4  # each on a leaf of its own


def test_an_unchanged_4su_plan_changes_nothing(four_su, facts):
    rows = _rows(four_su, facts)
    document = edit_document(four_su)
    edit = cabling_edit(four_su, _write(rows), document, facts)
    assert edit.change_count == 0
    assert edit.document["links"] == document["links"]


def test_editing_around_the_manager_rows_still_works(four_su, facts):
    rows = _rows(four_su, facts)
    document = edit_document(four_su)
    manager = next(i for i, row in enumerate(rows) if row["a_role"] == "manager")
    rows[0]["run_length_m"] = "11.5"
    rows[manager]["run_length_m"] = "3.5"
    edit = cabling_edit(four_su, _write(rows), document, facts)
    assert edit.changed == [rows[0]["label"], rows[manager]["label"]]
    assert edit.document["links"][0]["length_m"] == 11.5
    assert edit.document["links"][manager]["length_m"] == 3.5
    assert edit.document["links"][manager]["cable"] == document["links"][manager]["cable"]
    assert not [p for p in validate_edit(edit.document, facts) if p.severity == "error"]
