"""Exports (planner.domain.outputs.exports): BOM CSV, NetBox, NVIDIA P2P, Arista AVD, JSON."""

import csv
import json
from pathlib import Path

import pytest
import yaml

from planner.domain.fabric import ROLE, Fabric
from planner.domain.outputs import (
    AVD_COLUMNS,
    NETBOX_CABLE_COLUMNS,
    NETBOX_DEVICE_COLUMNS,
    P2P_COLUMNS,
    AvdExportError,
    avd_topology_lines,
    avd_yaml_model_refusal,
    bill_of_materials,
    bom_csv_lines,
    design_json,
    netbox_cable_lines,
    netbox_device_lines,
    p2p_lines,
)
from planner.domain.outputs.exports import netbox_cable_type
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from planner.domain.summary import summarize

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


@pytest.fixture(scope="module")
def spec():
    return yaml.safe_load((EXAMPLES / "h100-superpod-1su.yaml").read_text())


@pytest.fixture(scope="module")
def one_su(facts, spec):
    return build_fabric(parse_spec(spec), facts)


def _read(lines) -> tuple[list[str], list[dict]]:
    reader = csv.DictReader(lines)
    rows = list(reader)
    return reader.fieldnames, rows


def test_bom_csv_has_part_category_and_quantity(one_su, facts):
    bom = bill_of_materials(one_su, facts, spares_pct={"fiber": 10})
    header, rows = _read(bom_csv_lines(bom))
    assert {"part", "category", "quantity"} <= set(header)
    assert len(rows) == len(bom.lines)
    assert sum(int(r["quantity"]) for r in rows) == sum(bom.quantity_by_category().values())
    fibers = [r for r in rows if r["category"] == "fiber"]
    assert fibers and all(int(r["spares"]) >= 1 and r["length_m"] for r in fibers)


def test_netbox_devices_use_netbox_field_names(one_su, facts):
    header, rows = _read(
        netbox_device_lines(one_su, facts, site="hall-1", manufacturer_names={"nvidia": "NVIDIA"})
    )
    assert header == list(NETBOX_DEVICE_COLUMNS)
    assert len(rows) == one_su.node_count
    first = rows[0]
    assert first["name"] == one_su.node_name[0] and first["role"] == "server"
    assert first["manufacturer"] == "NVIDIA" and first["device_type"] == "DGX-H100"
    assert first["site"] == "hall-1" and first["status"] == "planned"
    assert first["rack"] and first["position"].isdigit() and first["face"] == "front"
    roles = {r["role"] for r in rows}
    assert roles == {"server", "leaf", "spine", "fabric-manager"}


def test_netbox_cables_terminate_on_interfaces(one_su, facts):
    header, rows = _read(netbox_cable_lines(one_su, facts))
    assert header == list(NETBOX_CABLE_COLUMNS)
    assert len(rows) == one_su.link_count
    cabled = [r for r in rows if r["type"]]
    assert len(cabled) == int((one_su.link_cable >= 0).sum())
    assert all(r["side_a_type"] == r["side_b_type"] == "dcim.interface" for r in rows)
    assert all(r["type"] == "mmf" and r["length_unit"] == "m" and r["length"] for r in cabled)
    assert len({r["label"] for r in rows}) == len(rows)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"category": "fiber", "fiber_type": "smf", "fiber_grade": "OS2"}, "smf-os2"),
        ({"category": "fiber", "fiber_type": "mmf"}, "mmf"),
        ({"category": "cable", "cable_type": "dac"}, "dac-passive"),
        ({"category": "cable", "cable_type": "acc"}, "dac-active"),
        ({"category": "cable", "cable_type": "aoc"}, "aoc"),
        (None, ""),
    ],
)
def test_netbox_cable_types(record, expected):
    assert netbox_cable_type(record) == expected


def test_p2p_sheet_has_nvidia_columns_and_split_ports(one_su):
    header, rows = _read(p2p_lines(one_su))
    assert header == list(P2P_COLUMNS)
    assert len(rows) == one_su.link_count
    server_rows = [r for r in rows if r["A-Type"] == "Host"]
    assert server_rows and all(r["Z-Type"] == "Switch" for r in server_rows)
    assert all("/" in r["Z-Port"] for r in rows)  # QM9700 twin-port cages: split ports
    assert all(r["A-Rack"] and r["A-U"] for r in server_rows)


@pytest.fixture(scope="module")
def ethernet_clos(facts):
    """The Ethernet Clos example (SN5600 leaves and spines)."""
    return build_fabric(
        parse_spec(yaml.safe_load((EXAMPLES / "clos-3to1.yaml").read_text())), facts
    )


def test_avd_topology_lists_every_link_from_each_switch_end_on_eos_names(facts):
    """The Arista rail preset at eight servers: every server link from its leaf, every
    leaf-spine link from both ends, on EOS names (AVD's text is checked against pyavd's own in
    tests/interop/test_pyavd.py)."""
    spec = yaml.safe_load((EXAMPLES / "arista-7060x6-rail.yaml").read_text())
    fabric = build_fabric(parse_spec({**spec, "servers": 8}), facts)
    header, rows = _read(avd_topology_lines(fabric, facts))
    assert header == list(AVD_COLUMNS)
    switch_a = fabric.node_role[fabric.link_a] >= ROLE["leaf"]
    assert len(rows) == fabric.link_count + int(switch_a.sum())
    assert {r["Node Type"] for r in rows} == {"l3leaf", "spine"}
    assert {r["Peer Type"] for r in rows} == {"l3leaf", "spine", "server"}
    assert all(r["Node Interface"].startswith("Ethernet") for r in rows)
    assert all(r["Serial Number"] == r["Peer Serial Number"] == "" for r in rows)
    assert all(r["Node Interface Enabled"] == "True" for r in rows)
    first = [r for r in rows if r["Node"] == rows[0]["Node"]]
    cages = [int(r["Node Interface"].removeprefix("Ethernet").split("/")[0]) for r in first]
    assert cages == sorted(cages)


def test_avd_topology_neutralises_hostile_names(facts):
    spec = yaml.safe_load((EXAMPLES / "arista-7060x6-rail.yaml").read_text())
    naming = {"server": "@gpu{index:05d}", "leaf": "=evil-su{su:03d}-r{rail}"}
    fabric = build_fabric(parse_spec({**spec, "servers": 8, "naming": naming}), facts)
    cells = [cell for row in csv.reader(avd_topology_lines(fabric, facts)) for cell in row]
    assert any(cell.endswith("gpu00001") for cell in cells)
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]


@pytest.mark.parametrize("preset", ["clos-3to1.yaml", "h100-superpod-1su.yaml"])
def test_avd_refuses_a_design_that_is_not_arista(preset, facts):
    """AVD renders EOS: NVIDIA SN5600 (Ethernet) and QM9700 (InfiniBand) fabrics are refused
    at the call, naming the models."""
    fabric = build_fabric(parse_spec(yaml.safe_load((EXAMPLES / preset).read_text())), facts)
    with pytest.raises(AvdExportError, match="AVD renders Arista EOS") as refused:
        avd_topology_lines(fabric, facts)
    assert ("SN5600" if preset.startswith("clos") else "QM9700") in str(refused.value)
    assert avd_yaml_model_refusal(fabric, facts) == str(refused.value)


def test_design_json_holds_spec_summary_topology_and_bom(one_su, facts, spec):
    bom = bill_of_materials(one_su, facts)
    document = design_json(
        name="one su",
        revision=3,
        spec=spec,
        summary=summarize(one_su),
        fabric=one_su,
        bom=bom,
    )
    text = json.dumps(document)
    back = json.loads(text)
    assert back["revision"] == 3 and back["spec"]["servers"] == spec["servers"]
    assert len(back["bom"]["lines"]) == len(bom.lines)
    assert Fabric.from_dict(back["topology"]).link_count == one_su.link_count
    assert back["summary"]["gpus"] == summarize(one_su)["gpus"]


# --- formula injection (issue 14): hostile names are neutralised in every CSV -----------------

HOSTILE_NAMING = {"leaf": "=evil-su{su:03d}-r{rail}", "server": "@gpu{index:05d}"}


@pytest.fixture(scope="module")
def hostile(facts, spec):
    return build_fabric(parse_spec({**spec, "naming": HOSTILE_NAMING}), facts)


def _cells(lines) -> list[str]:
    return [cell for row in csv.reader(lines) for cell in row]


def _assert_neutralised(cells: list[str]) -> None:
    formulas = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert not formulas, formulas[:5]


def test_bom_csv_neutralises_a_hostile_part_name(one_su, facts):
    from dataclasses import replace

    bom = bill_of_materials(one_su, facts)
    bom = replace(bom, lines=(replace(bom.lines[0], name='=HYPERLINK("http://x","Click")'),))
    cells = _cells(bom_csv_lines(bom))
    assert '\'=HYPERLINK("http://x","Click")' in cells
    _assert_neutralised(cells)


def test_netbox_devices_neutralise_hostile_node_names(hostile, facts):
    cells = _cells(netbox_device_lines(hostile, facts))
    assert "'=evil-su001-r1" in cells and "'@gpu00001" in cells
    _assert_neutralised(cells)


def test_netbox_cables_neutralise_hostile_node_names(hostile, facts):
    cells = _cells(netbox_cable_lines(hostile, facts))
    assert "'=evil-su001-r1" in cells and "'@gpu00001" in cells
    _assert_neutralised(cells)


def test_p2p_neutralises_hostile_node_names(hostile):
    cells = _cells(p2p_lines(hostile))
    assert "'=evil-su001-r1" in cells and "'@gpu00001" in cells
    _assert_neutralised(cells)


def test_design_json_keeps_names_as_they_are(hostile, facts, spec):
    # JSON is not a spreadsheet format: names are data, written unchanged.
    bom = bill_of_materials(hostile, facts)
    document = design_json(name="=x", revision=1, spec=spec, summary={}, fabric=hostile, bom=bom)
    assert "=evil-su001-r1" in json.loads(json.dumps(document))["topology"]["node_name"]
