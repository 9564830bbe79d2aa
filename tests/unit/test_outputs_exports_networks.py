"""Exports of a cluster with its other networks (issue 18): NetBox, NVIDIA P2P, Arista AVD and
JSON list every network's devices and links, and a design without networks exports as before.

The cluster is the 4 SU H100 SuperPOD with storage, in-band and OOB networks (the spec of
tests/unit/test_networks.py), whose counts reproduce RA-11333-001 V11 Tables 7 and 8.
"""

import csv
import json
from collections import Counter
from dataclasses import replace

import pytest

from planner.domain.networks.elements import cluster_elements
from planner.domain.outputs import (
    NETBOX_CABLE_COLUMNS,
    NETBOX_DEVICE_COLUMNS,
    P2P_COLUMNS,
    AvdExportError,
    avd_topology_lines,
    bill_of_materials,
    design_json,
    netbox_cable_lines,
    netbox_device_lines,
    p2p_lines,
)
from planner.domain.outputs.exports import (
    network_cable_type,
    network_elements,
)
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from tests.unit.test_networks import NETWORKS, four_su

SWITCH_ROLES = {"leaf", "storage-leaf", "spine", "core"}


@pytest.fixture(scope="module")
def cluster(facts):
    return build_fabric(parse_spec(four_su(**NETWORKS)), facts)


@pytest.fixture(scope="module")
def compute_only(facts):
    return build_fabric(parse_spec(four_su()), facts)


@pytest.fixture(scope="module")
def elements(cluster, facts):
    return cluster_elements(cluster, facts)


def _rows(lines) -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(lines))
    return rows[0], rows[1:]


def _dicts(lines) -> list[dict]:
    return list(csv.DictReader(lines))


# --- a design without networks is unchanged ----------------------------------------------------


def test_a_design_without_networks_has_no_network_elements(compute_only, facts):
    assert network_elements(compute_only, facts) is None
    assert _rows(netbox_device_lines(compute_only, facts))[0] == list(NETBOX_DEVICE_COLUMNS)
    assert _rows(netbox_cable_lines(compute_only, facts))[0] == list(NETBOX_CABLE_COLUMNS)
    assert _rows(p2p_lines(compute_only, facts))[0] == list(P2P_COLUMNS)
    bom = bill_of_materials(compute_only, facts)
    document = design_json(
        name="x", revision=1, spec={}, summary={}, fabric=compute_only, bom=bom, facts=facts
    )
    assert "network_elements" not in document


@pytest.mark.parametrize(
    "export",
    [
        lambda fabric, facts: netbox_device_lines(fabric, facts),
        lambda fabric, facts: netbox_cable_lines(fabric, facts),
        lambda fabric, facts: p2p_lines(fabric, facts),
    ],
    ids=["netbox-devices", "netbox-cables", "p2p"],
)
def test_the_compute_rows_are_the_compute_only_export_byte_for_byte(
    export, cluster, compute_only, facts
):
    """The networks add rows after the compute fabric's and one last column; with that column
    removed, the cluster's first lines are the compute-only design's lines, byte for byte."""
    plain = list(export(compute_only, facts))
    with_networks = list(export(cluster, facts))
    assert len(with_networks) > len(plain)
    stripped = [line.rstrip("\r\n").rsplit(",", 1)[0] + "\r\n" for line in with_networks]
    assert stripped[: len(plain)] == plain
    assert {line.rstrip("\r\n").rsplit(",", 1)[1] for line in with_networks[1 : len(plain)]} == {
        "compute"
    }


# --- NetBox ------------------------------------------------------------------------------------


def test_netbox_devices_list_every_network_device_with_its_network(cluster, facts, elements):
    header, _ = _rows(netbox_device_lines(cluster, facts))
    assert header == [*NETBOX_DEVICE_COLUMNS, "tags"]
    rows = _dicts(netbox_device_lines(cluster, facts, manufacturer_names={"nvidia": "NVIDIA"}))
    assert len({r["name"] for r in rows}) == len(rows)  # each device once
    own = [d for d in elements.devices if d.network != "compute"]
    network_rows = [r for r in rows if r["tags"] != "compute"]
    assert [r["name"] for r in network_rows] == [d.name for d in own]
    # RA-11333-001 V11 Table 7: 16 QM9700 storage, 8 SN4600C in-band, 8 SN2201 OOB switches
    switches = Counter(
        (r["tags"], r["device_type"])
        for r in network_rows
        if r["role"] in SWITCH_ROLES or r["tags"] == "oob"
    )
    assert switches == {("storage", "QM9700"): 16, ("inband", "SN4600C"): 8, ("oob", "SN2201"): 8}
    # Table 7: 4 UFM appliances and 4 Base Command Manager nodes, 96 + 12 PDUs
    management = Counter(r["role"] for r in network_rows if r["tags"] == "management")
    assert management == {"fabric-manager": 4, "management-node": 4, "pdu": 108}
    leaf = next(r for r in network_rows if r["name"] == "stor-leaf-01")
    assert leaf["manufacturer"] == "NVIDIA" and leaf["status"] == "planned"
    placed = [d for d in own if d.rack and d.ru]
    assert placed, "the management racks hold the network switches"
    by_name = {r["name"]: r for r in network_rows}
    for device in placed:
        row = by_name[device.name]
        assert (row["rack"], row["position"], row["face"]) == (
            device.rack,
            str(device.ru),
            "front",
        )


def test_netbox_cables_of_every_network_with_netbox_types(cluster, facts, elements):
    rows = _dicts(netbox_cable_lines(cluster, facts))
    network_rows = [r for r in rows if r["tags"] != "compute"]
    assert len(network_rows) == len(elements.links)
    plans = cluster.settings.networks
    for network in ("storage", "inband", "oob"):
        expected = sum(group["links"] for group in plans[network]["link_groups"])
        assert sum(r["tags"] == network for r in network_rows) == expected
    by_type = Counter((r["tags"], r["type"]) for r in network_rows)
    # RA-11333-001 V11 Table 8: 317 Cat5e OOB cables and 16 x 100G AOC uplinks
    assert by_type[("oob", "cat5e")] == 317
    assert by_type[("oob", "aoc")] == 16
    # the storage fibres are MMF, the storage-array legs AOC splitters (NetBox: one cable a leg)
    assert by_type[("storage", "mmf")] == 254 + 240 + 4  # node, leaf-spine, UFM legs
    assert by_type[("storage", "aoc")] == 96 + 8  # storage-array and management legs
    assert all(r["side_a_type"] == r["side_b_type"] == "dcim.interface" for r in network_rows)
    assert len({r["label"] for r in network_rows}) == len(network_rows)
    # a length where the run is known (both ends in racks); where an end is outside the plan,
    # the longest length the cable is sold in (as ordered, issue 33), none when none is listed
    for row, link in zip(network_rows, elements.links, strict=True):
        if link.run_length_m is not None:
            assert float(row["length"]) >= link.run_length_m and row["length_unit"] == "m"
            continue
        lengths = (facts.parts.get(link.cable_part) or {}).get("lengths_m") or []
        if lengths:
            assert (float(row["length"]), row["length_unit"]) == (max(lengths), "m")
        else:
            assert row["length"] == row["length_unit"] == ""
    assert sum(r["length"] == "" for r in network_rows) == 4  # the in-band CWDM4 uplinks'


def test_netbox_cable_lengths_are_ordered_lengths_when_runs_are_known(cluster, facts, elements):
    """A run of 12.3 m on a cable sold in listed lengths orders the shortest that covers it."""
    links = tuple(replace(link, run_length_m=12.3) for link in elements.links)
    known = replace(elements, links=links)
    rows = _dicts(netbox_cable_lines(cluster, facts, elements=known))
    inband_nodes = [
        r for r, link in zip(rows[-len(links) :], links, strict=True) if link.group == "node-leaf"
    ]
    listed = sorted(facts.parts["MFS1S00-HxxxV"]["lengths_m"])
    expected = min(v for v in listed if v >= 12.3)
    assert {r["length"] for r in inband_nodes if r["tags"] == "inband"} == {f"{expected:g}"}
    cat5e = [r for r in rows if r["type"] == "cat5e"]
    # the Cat5e cord lists no lengths: the ordering policy rounds 12.3 m up to 15 m
    assert {r["length"] for r in cat5e} == {"15"} and {r["length_unit"] for r in cat5e} == {"m"}


@pytest.mark.parametrize(
    ("kind", "part", "expected"),
    [
        ("Cat5e", "Cat5e-Cat6-RJ45-patch-cord", "cat5e"),
        ("Cat6", "", "cat6"),
        ("AOC", "980-9I13N-00C030", "aoc"),
        ("DAC", "980-9I54C-00V001", "dac-passive"),
        ("MMF", "980-9I570-00N030", "mmf"),
        ("AOC splitter 1:2", "not-in-the-catalog", "aoc"),
        ("RJ45", "Cat5e-Cat6-RJ45-patch-cord", ""),  # twisted pair of no stated category
    ],
)
def test_network_cable_types(facts, kind, part, expected):
    class Link:
        cable_kind = kind
        cable_part = part

    assert network_cable_type(Link, facts) == expected


# --- P2P ---------------------------------------------------------------------------------------


def test_p2p_adds_every_network_link_with_a_network_column(cluster, facts, elements):
    header, _ = _rows(p2p_lines(cluster, facts))
    assert header == [*P2P_COLUMNS, "Network"]
    rows = _dicts(p2p_lines(cluster, facts))
    network_rows = [r for r in rows if r["Network"] != "compute"]
    assert len(network_rows) == len(elements.links)
    assert {r["Network"] for r in network_rows} == {"storage", "inband", "oob"}
    bmc = [
        r for r in network_rows if r["A-Port"] == "bmc" and r["A-Node Name"] in cluster.node_name
    ]
    assert len(bmc) == 127  # one BMC per DGX (RA Table 8: 127 DGX Cat5e)
    assert all(r["A-Type"] == "Host" and r["Z-Type"] == "Switch" for r in bmc)
    assert all(r["A-Rack"] and r["A-U"] for r in bmc)  # the DGX's own rack and RU
    spine = [r for r in network_rows if r["Z-Node Name"].startswith("stor-spine")]
    assert spine and all(r["A-Type"] == r["Z-Type"] == "Switch" for r in spine)


# --- AVD ---------------------------------------------------------------------------------------


def test_avd_refuses_a_cluster_whose_compute_fabric_is_not_arista(cluster, facts, elements):
    """AVD's topology is what AVD builds from the design's inputs: none for a QM9700 cluster,
    even with an Ethernet in-band network (the cabling plan, NetBox and P2P list it)."""
    with pytest.raises(AvdExportError, match="QM9700"):
        avd_topology_lines(cluster, facts, elements=elements)


# --- JSON --------------------------------------------------------------------------------------


def test_design_json_holds_the_networks_plan_and_elements(cluster, facts, elements):
    bom = bill_of_materials(cluster, facts)
    document = json.loads(
        json.dumps(
            design_json(
                name="cluster",
                revision=1,
                spec={},
                summary={},
                fabric=cluster,
                bom=bom,
                facts=facts,
            )
        )
    )
    assert document["topology"]["settings"]["networks"].keys() == cluster.settings.networks.keys()
    assert len(document["network_elements"]["devices"]) == len(elements.devices)
    assert len(document["network_elements"]["links"]) == len(elements.links)
    first = document["network_elements"]["links"][0]
    assert (first["a_device"], first["a_port"]) == (
        elements.links[0].a_device,
        elements.links[0].a_port,
    )


# --- formula injection: compute names reach the networks' rows too ----------------------------


@pytest.fixture(scope="module")
def hostile_cluster(facts):
    spec = four_su(**NETWORKS)
    spec["naming"] = {"server": "@gpu{index:05d}", "leaf": "=evil-su{su:03d}-r{rail}"}
    return build_fabric(parse_spec(spec), facts)


@pytest.mark.parametrize(
    "export",
    [netbox_device_lines, netbox_cable_lines, p2p_lines],
    ids=["netbox-devices", "netbox-cables", "p2p"],
)
def test_network_rows_neutralise_hostile_compute_names(hostile_cluster, facts, export):
    lines = list(export(hostile_cluster, facts))
    cells = [cell for row in csv.reader(lines) for cell in row]
    assert "'@gpu00001" in cells
    formulas = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert not formulas, formulas[:5]
