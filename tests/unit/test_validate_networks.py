"""Validation of the cluster networks' links (planner.analyses.validate.networks, issue 18).

The cluster is the 4 SU H100 SuperPOD with storage, in-band and OOB networks (RA-11333-001
V11 Tables 7 and 8). Faults are made by changing its elements (run lengths, ends, speeds)
and handing them to the validator in place of the built ones.
"""

from dataclasses import replace

import pytest

from planner.analyses.rules_catalog import RULES
from planner.analyses.validate import validate_fabric
from planner.analyses.validate.networks import BASE_T_CHANNEL_M
from planner.domain.networks.elements import cluster_elements
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from simulation.presentation import ElementNames, validation_context
from tests.unit.test_networks import NETWORKS, four_su

NETWORK_CODES = {code for code, info in RULES.items() if info.scope == "network"}


@pytest.fixture(scope="module")
def cluster(facts):
    return build_fabric(parse_spec(four_su(**NETWORKS)), facts)


@pytest.fixture(scope="module")
def built(cluster, facts):
    return cluster_elements(cluster, facts)


def _validate(cluster, facts, elements):
    """The fabric validated with ``elements`` stored as its networks' devices and links."""
    return validate_fabric(replace(cluster, networks=elements), facts)


def _with(elements, change):
    """``elements`` with ``change(index, link)`` (a link or None to keep it) applied."""
    links = []
    for i, link in enumerate(elements.links):
        new = change(i, link)
        links.append(link if new is None else new)
    return replace(elements, links=tuple(links))


def _ids(report, code) -> set[str]:
    return {i for p in report.by_code(code) for i in p.element_ids}


def _first(elements, network, group):
    return next(
        (i, link)
        for i, link in enumerate(elements.links)
        if link.network == network and link.group == group
    )


def test_the_reference_cluster_has_no_network_errors(cluster, facts, built):
    report = validate_fabric(cluster, facts)
    network = [p for p in report.problems if p.code in NETWORK_CODES]
    assert not [p for p in network if p.severity == "error"], network
    assert set(report.rules_run) >= NETWORK_CODES
    # runs of unknown length (endpoints outside the plan): one note per network, no guess
    unknown = report.by_code("network-length-unknown")
    missing = [(i, link) for i, link in enumerate(built.links) if link.run_length_m is None]
    assert {p.message.split(":")[0] for p in unknown} == {link.network for _, link in missing}
    assert _ids(report, "network-length-unknown") == {f"netlink:{i}" for i, _ in missing}
    # the RA's 200G QSFP56 AOC on the SN4600C's 100G QSFP28 ports: a mode the catalog does
    # not state is a warning, not an error (RA-11333-001 Table 8 prints the part)
    unverified = report.by_code("network-plug-cage-unverified")
    assert any("MFS1S00-HxxxV" in p.message and "SN4600C" in p.message for p in unverified)


def test_a_design_without_networks_runs_no_network_rule(facts):
    fabric = build_fabric(parse_spec(four_su()), facts)
    report = validate_fabric(fabric, facts)
    assert not NETWORK_CODES & set(report.rules_run)
    assert not NETWORK_CODES & report.codes()


@pytest.mark.parametrize(("run_m", "over"), [(BASE_T_CHANNEL_M - 5, False), (120.0, True)])
def test_copper_rj45_runs_over_100_m_are_errors(cluster, facts, built, run_m, over):
    """1000BASE-T: at most 100 m of Category 5e/6 channel (IEEE 802.3ab over ANSI/TIA-568)."""
    bmc = {i for i, link in enumerate(built.links) if link.group == "node BMCs"}
    elements = _with(built, lambda i, link: replace(link, run_length_m=run_m) if i in bmc else None)
    report = _validate(cluster, facts, elements)
    ids = _ids(report, "network-copper-reach-exceeded")
    if over:
        assert ids == {f"netlink:{i}" for i in bmc}
        (problem,) = report.by_code("network-copper-reach-exceeded")
        assert problem.severity == "error" and "100 m" in problem.message
        assert problem.count == len(bmc) == 127  # one BMC per DGX (RA Table 8)
    else:
        assert not ids


def test_aoc_dac_and_fibre_reach_come_from_the_catalog(cluster, facts, built):
    node_aoc, _ = _first(built, "inband", "node-leaf")  # MFS1S00-HxxxV, max 100 m
    isl, _ = _first(built, "inband", "leaf-isl")  # 980-9I54C-00V001, sold as 1 m
    fibre, fibre_link = _first(built, "storage", "node-leaf")  # MMF, modules' reach
    lengths = {node_aoc: 150.0, isl: 3.0, fibre: 80.0}
    elements = _with(
        built,
        lambda i, link: replace(link, run_length_m=lengths[i]) if i in lengths else None,
    )
    report = _validate(cluster, facts, elements)
    over = {p.example.split(" →")[0]: p for p in report.by_code("network-reach-exceeded")}
    assert _ids(report, "network-reach-exceeded") == {f"netlink:{i}" for i in lengths}
    messages = " ".join(p.message for p in over.values())
    assert "100 m reach of MFS1S00-HxxxV" in messages
    assert "1 m reach of 980-9I54C-00V001 longest listed length" in messages
    module_reach = min(
        facts.parts[slug]["reach_m"]
        for slug in (fibre_link.a_transceiver, fibre_link.b_transceiver)
    )
    assert module_reach < 80 and f"{module_reach:g} m reach" in messages


def test_a_leaf_pair_is_two_switches(cluster, facts, built):
    isl, link = _first(built, "inband", "leaf-isl")
    third = next(
        d.name for d in built.devices_of("inband") if d.role == "leaf" and d.name > link.b_device
    )
    elements = _with(built, lambda i, old: replace(old, b_device=third) if i == isl else None)
    report = _validate(cluster, facts, elements)
    problems = {p.example: p for p in report.by_code("network-leaf-pair")}
    # the moved ISL gives both its new ends a second peer: each pair is now three switches
    assert set(problems) == {link.a_device, third}
    problem = problems[link.a_device]
    assert problem.severity == "error"
    assert f"{link.a_device} has ISLs to 2 leaves ({link.b_device}, {third})" in problem.message
    assert f"node:{link.a_device}" in problem.element_ids
    assert f"netlink:{isl}" in problem.element_ids


def test_an_isl_to_itself_is_a_dangling_link(cluster, facts, built):
    isl, link = _first(built, "inband", "leaf-isl")
    elements = _with(
        built, lambda i, old: replace(old, b_device=old.a_device) if i == isl else None
    )
    report = _validate(cluster, facts, elements)
    assert _ids(report, "network-dangling-link") == {f"netlink:{isl}"}


def _node_links(built, node):
    return [
        (i, link)
        for i, link in enumerate(built.links)
        if link.network == "inband" and link.group == "node-leaf" and link.a_device == node
    ]


def test_a_dual_homed_node_on_one_leaf_is_an_error(cluster, facts, built):
    (first, one), (second, _) = _node_links(built, cluster.node_name[0])
    elements = _with(
        built,
        lambda i, old: replace(old, b_device=one.b_device, b_port="40") if i == second else None,
    )
    report = _validate(cluster, facts, elements)
    ids = _ids(report, "network-dual-homing-single-leaf")
    assert ids == {f"node:{cluster.node_name[0]}", f"netlink:{first}", f"netlink:{second}"}
    assert not report.by_code("network-dual-homing-unpaired")


def test_a_dual_homed_node_on_two_unpaired_leaves_is_an_error(cluster, facts, built):
    (_, one), (second, two) = _node_links(built, cluster.node_name[0])
    pair = {one.b_device, two.b_device}
    other = next(
        d.name for d in built.devices_of("inband") if d.role == "leaf" and d.name not in pair
    )
    elements = _with(
        built, lambda i, old: replace(old, b_device=other, b_port="40") if i == second else None
    )
    report = _validate(cluster, facts, elements)
    assert f"netlink:{second}" in _ids(report, "network-dual-homing-unpaired")
    assert not report.by_code("network-dual-homing-single-leaf")


def test_a_port_used_twice(cluster, facts, built):
    (first, one), (second, _) = _node_links(built, cluster.node_name[0])
    elements = _with(built, lambda i, old: replace(old, a_port=one.a_port) if i == second else None)
    report = _validate(cluster, facts, elements)
    ids = _ids(report, "network-port-used-twice")
    assert {f"netlink:{first}", f"netlink:{second}", f"node:{one.a_device}"} <= ids


def test_speeds_and_cages_where_the_parts_are_known(cluster, facts, built):
    uplink, link = _first(built, "oob", "uplinks")  # SN2201 port 49 (QSFP28, 100G)
    leaf_core, _ = _first(built, "inband", "leaf-core")  # SN4600C: 100G ports only
    cord = "Cat5e-Cat6-RJ45-patch-cord"

    def change(i, old):
        if i == uplink:  # a 1G RJ45 cord on a 100G QSFP28 uplink
            return replace(old, cable_part=cord, cable_kind="Cat5e")
        if i == leaf_core:  # a 200G link on a switch without 200G ports
            return replace(old, speed_gbps=200.0)
        return None

    report = _validate(cluster, facts, _with(built, change))
    assert f"netlink:{uplink}" in _ids(report, "network-cable-speed")
    mismatch = report.by_code("network-plug-cage-mismatch")
    assert any("RJ45" in p.message and "QSFP28" in p.message for p in mismatch)
    assert f"netlink:{uplink}" in _ids(report, "network-plug-cage-mismatch")
    (speed,) = report.by_code("network-port-speed")
    assert "SN4600C has no 200G port" in speed.message
    assert f"netlink:{leaf_core}" in speed.element_ids


def test_network_problems_read_as_device_ports_on_the_page(cluster, facts, built):
    bmc = {i for i, link in enumerate(built.links) if link.group == "node BMCs"}
    elements = _with(built, lambda i, link: replace(link, run_length_m=150.0) if i in bmc else None)
    report = _validate(cluster, facts, elements).as_dict()
    page = validation_context(report, ElementNames(cluster, elements=lambda fabric: elements))
    problem = next(
        p
        for group in page["groups"]
        for p in group["problems"]
        if p["code"] == "network-copper-reach-exceeded"
    )
    link = built.links[min(bmc)]
    assert problem["elements"][0] == (
        f"{link.a_device} bmc → {link.b_device} port {link.b_port} (oob)"
    )
    assert problem["more_elements"] == f"+{len(bmc) - 30} network links more"
    assert ElementNames(cluster)("netlink:3") == "network link 4"
