"""Issue 18: the cabling plan lists the cluster's other networks (storage, in-band, OOB,
converged) after the compute fabric, with a ``network`` and a ``cord_colour`` column; the
re-import leaves their rows alone; the compute fabric's UFM rows name cable and transceiver.

Published figures: NVIDIA DGX SuperPOD H100 RA-11333-001 V11 Table 8 at 4 SU (storage 548
cables, in-band 304, OOB 317 Cat5e + 16 uplinks; 2 UFM -> leaf cables 980-9I557-00N030 and
4 UFM-side transceivers 980-9I51S-00NS00 for the compute fabric's UFM links).
"""

import csv
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from planner.domain.canvas import edit_document
from planner.domain.media import UFM_LEAF_CABLE, UFM_SIDE_TRANSCEIVER, policy_length_m
from planner.domain.networks.elements import cluster_elements
from planner.domain.outputs import CABLING_COLUMNS, cabling_csv_lines, cabling_edit, csv_lines
from planner.domain.outputs.bom import bill_of_materials
from planner.domain.outputs.cabling_ends import CORD_COLOURS
from planner.domain.pipeline import build_fabric
from planner.domain.spec import load_spec_text, parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


def _fabric(name: str, facts):
    return build_fabric(parse_spec(load_spec_text((EXAMPLES / name).read_text())), facts)


@pytest.fixture(scope="module")
def cluster(facts):
    fabric = _fabric("h100-superpod-4su-cluster.yaml", facts)
    rows = list(csv.DictReader(cabling_csv_lines(fabric, facts)))
    return fabric, rows


def _write(rows: list[dict]) -> str:
    return "".join(csv_lines(CABLING_COLUMNS, ([r[c] for c in CABLING_COLUMNS] for r in rows)))


def _cables(rows: list[dict]) -> int:
    """Distinct cables: a splitter's legs once (their assembly), every other row once."""
    return len({row["assembly"] or row["label"] for row in rows})


def test_network_rows_follow_the_compute_rows(cluster):
    fabric, rows = cluster
    networks = [row["network"] for row in rows]
    assert networks[: fabric.link_count] == ["compute"] * fabric.link_count
    assert set(networks[fabric.link_count :]) == {"storage", "inband", "oob"}
    # in build order, each network's rows together
    order = [n for i, n in enumerate(networks) if i == 0 or networks[i - 1] != n]
    assert order == ["compute", "storage", "inband", "oob"]
    by_network = defaultdict(list)
    for row in rows:
        by_network[row["network"]].append(row)
    # RA-11333-001 V11 Table 8 at 4 SU
    assert _cables(by_network["storage"]) == 548
    assert _cables(by_network["inband"]) == 304
    oob = by_network["oob"]
    assert _cables(oob) == 317 + 16
    assert sum(row["cable_type"] == "cat5e" for row in oob) == 317
    assert all(row["connector"] == "RJ45" for row in oob if row["cable_type"] == "cat5e")


def test_labels_are_unique_across_networks(cluster):
    _, rows = cluster
    labels = [row["label"] for row in rows]
    assert len(labels) == len(set(labels))
    storage = next(row for row in rows if row["network"] == "storage")
    # placed devices by location (management rack MGMT-01), compute ones as in their rows
    assert (
        storage["label"].startswith("R001-01.U")
        and ".Pstor1/MGMT-01.U01.P1.1" in (storage["label"])
    )
    unplaced = next(row for row in rows if row["a_device"] == "storage-array-01")
    assert unplaced["label"].startswith("storage-array-01.P1/")  # no rack: the name


def test_every_row_has_its_network_colour(cluster, facts):
    fabric, rows = cluster
    assert {row["network"]: row["cord_colour"] for row in rows} == {
        n: CORD_COLOURS[n] for n in ("compute", "storage", "inband", "oob")
    }
    mine = {"oob": "yellow", "compute": "white"}
    lines = cabling_csv_lines(fabric, facts, cord_colours=mine)
    colours = {row["network"]: row["cord_colour"] for row in csv.DictReader(lines)}
    assert colours["oob"] == "yellow" and colours["compute"] == "white"
    assert colours["storage"] == CORD_COLOURS["storage"]


def test_network_rows_name_parts_and_splitter_legs(cluster, facts):
    _, rows = cluster
    storage = [row for row in rows if row["network"] == "storage"]
    node = [row for row in storage if row["tier"] == "node-leaf"]
    assert {row["a_transceiver"] for row in node} == {"MMA1Z00-NS400"}  # node-side optic
    # the RA's 980-9I570-00N030 is the 30 m one of the MFP7E10 family (its alias): each run
    # gets the family's part number of the length it needs (issue 33)
    assert {row["cable_part"] for row in node} == {"MFP7E10-Nxxx"}
    sold = {i["part_number"]: i["length_m"] for i in facts.parts["MFP7E10-Nxxx"]["length_parts"]}
    for row in node:
        assert sold[row["part_number"]] == float(row["length_m"]) >= float(row["run_length_m"])
    assert {row["cable_type"] for row in node} == {"fiber"}
    legs = defaultdict(list)
    for row in storage:
        if row["assembly"]:
            legs[row["assembly"]].append(row)
    assert len(legs) == 48 + 4 + 2  # storage, management and UFM splitters (Table 8)
    for assembly, members in legs.items():
        assert sorted(row["leg"] for row in members) == ["1", "2"]
        assert assembly.endswith(" 1:2")
        assert len({row["b_device"] for row in members}) == 1
    bmc = next(row for row in rows if row["network"] == "oob" and row["a_port"] == "bmc")
    assert bmc["a_role"] == "server" and bmc["b_device"].startswith("oob-")
    # the run by the layout's rule, ordered by the policy (the Cat5e cord lists no lengths)
    run = float(bmc["run_length_m"])
    assert float(bmc["length_m"]) == float(policy_length_m(run)) >= run
    # a storage-array port is outside the plan: no run; the cable is ordered at the longest
    # length it is sold in, the 30 m one RA-11333-001 Table 8 prints (980-9I117-00H030)
    arrays = [row for row in storage if row["tier"] == "storage-leaf"]
    assert arrays and all(row["run_length_m"] == "" for row in arrays)
    assert {(row["length_m"], row["part_number"]) for row in arrays} == {("30", "980-9I117-00H030")}


def test_the_plan_matches_the_elements(cluster, facts):
    fabric, rows = cluster
    elements = cluster_elements(fabric, facts)
    network_rows = rows[fabric.link_count :]
    assert len(network_rows) == len(elements.links)
    for row, link in zip(network_rows, elements.links, strict=True):
        assert (row["a_device"], row["a_port"], row["b_device"], row["b_port"]) == (
            link.a_device,
            link.a_port,
            link.b_device,
            link.b_port,
        )


def test_plan_cables_per_network_equal_the_bom(cluster, facts):
    """The BOM lists each network as a tier: per network and cable part, its quantity is the
    plan's distinct cables of that part."""
    fabric, rows = cluster
    bom = bill_of_materials(fabric, facts)
    for network in ("storage", "inband", "oob"):
        plan = defaultdict(set)
        for row in rows:
            if row["network"] == network and row["cable_part"]:
                plan[row["cable_part"]].add(row["assembly"] or row["label"])
        listed = Counter()
        for line in bom.lines:
            if line.tier == network and line.part in plan:
                listed[line.part] += line.base_quantity
        assert {part: len(cables) for part, cables in plan.items()} == dict(listed), network
        cable_lines = {
            line.part
            for line in bom.lines
            if line.tier == network and line.category in ("cable", "fiber")
        }
        assert cable_lines <= set(plan), network  # no BOM cable the plan lacks
        mine = [r for r in rows if r["network"] == network]
        assert sum(len(c) for c in plan.values()) == _cables([r for r in mine if r["cable_part"]])
        # a row without a cable part is a link to the customer's core: a module alone (the
        # fibre is the customer's), named as the switch end's transceiver, as the BOM files it
        modules = {line.part for line in bom.lines if line.tier == network}
        for row in mine:
            if not row["cable_part"]:
                assert row["b_role"] == "customer-core", row
                assert row["a_transceiver"] in modules, row


def test_reimport_keeps_network_rows_out_of_the_edit(cluster, facts):
    fabric, rows = cluster
    document = edit_document(fabric)
    edit = cabling_edit(fabric, _write(rows), document, facts)
    assert edit.change_count == 0
    assert len(edit.network_rows) == len(rows) - fabric.link_count
    assert edit.network_rows[0] == fabric.link_count + 2  # header is row 1
    # editing a network row changes nothing; leaving network rows out removes nothing
    edited = [dict(row) for row in rows]
    edited[fabric.link_count]["b_port"] = "9/9"
    edited[fabric.link_count]["a_device"] = "no-such-device"
    assert cabling_edit(fabric, _write(edited), document, facts).change_count == 0
    compute_only = rows[: fabric.link_count]
    assert cabling_edit(fabric, _write(compute_only), document, facts).change_count == 0
    # a compute row's edit still goes through beside the network rows
    edited = [dict(row) for row in rows]
    edited[0]["cable_part"] = ""
    edit = cabling_edit(fabric, _write(edited), document, facts)
    assert edit.changed == [rows[0]["label"]]


def test_ufm_rows_name_cable_and_transceiver(facts):
    """Issue 18 item 4: the 4 SU fabric's 4 UFM links show the UFM -> leaf cable and the
    UFM-side transceiver (RA-11333-001 V11 Table 8: 980-9I557-00N030, 980-9I51S-00NS00), and
    an unchanged plan still reads back as no change."""
    fabric = _fabric("h100-superpod-4su.yaml", facts)
    rows = list(csv.DictReader(cabling_csv_lines(fabric, facts)))
    ufm = [row for row in rows if row["a_role"] == "manager"]
    assert len(ufm) == 4
    record = facts.parts[UFM_SIDE_TRANSCEIVER]
    assert record["category"] == "transceiver" and record["part_number"] == UFM_SIDE_TRANSCEIVER
    for row in ufm:
        assert row["cable_part"] == UFM_LEAF_CABLE
        assert row["a_transceiver"] == record["slug"]
        assert row["b_transceiver"]  # the leaf's module, as before
    assert {row["network"] for row in rows} == {"compute"}  # no networks block
    document = edit_document(fabric)
    assert cabling_edit(fabric, _write(rows), document, facts).change_count == 0
    # a plan written before the network column reads back as before
    legacy = [{k: v for k, v in row.items() if k not in ("network", "cord_colour")} for row in rows]
    columns = [c for c in CABLING_COLUMNS if c not in ("network", "cord_colour")]
    text = "".join(csv_lines(columns, ([r[c] for c in columns] for r in legacy)))
    assert cabling_edit(fabric, text, document, facts).change_count == 0


def test_rack_scale_tray_ports(facts):
    document = load_spec_text((EXAMPLES / "gb200-nvl72-ndr.yaml").read_text())
    document["networks"] = {
        "converged": {"leaf": "SN5600", "speed_gbps": 400},
        "oob": {"leaf": "SN2201"},
    }
    fabric = build_fabric(parse_spec(document), facts)
    rows = [
        row
        for row in csv.DictReader(cabling_csv_lines(fabric, facts))
        if row["network"] == "converged" and row["tier"] == "node-leaf"
    ]
    assert len(rows) == 8 * 18 * 2
    assert {row["a_tray"] for row in rows} == {str(t) for t in range(1, 19)}
    assert all(row["a_port"].startswith(f"tray{int(row['a_tray']):02d}/") for row in rows)
    assert {row["cord_colour"] for row in rows} == {CORD_COLOURS["converged"]}
