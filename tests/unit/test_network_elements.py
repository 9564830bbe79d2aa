"""Issue 18: the cluster networks as concrete devices and links
(:mod:`planner.domain.networks.elements`).

The counts they must expand to are the generators' (tests/unit/test_networks.py reproduces the
NVIDIA DGX SuperPOD H100 RA-11333-001 V11 Tables 7 and 8 at 4 SU: storage 16 QM9700 and 548
cables, 369 switch transceivers; in-band 8 SN4600C and 304 cables; OOB 8 SN2201, 317 Cat5e +
16 uplinks). Here every link group must become exactly that many links and cables, every
switch group that many named switches, and the ports must follow the generators' rules.
"""

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from planner.domain.fabric import Fabric
from planner.domain.networks.element_parts import port_name
from planner.domain.networks.elements import cluster_elements
from planner.domain.pipeline import build_fabric
from planner.domain.spec import load_spec_text, parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"
SWITCH_ROLES = ("leaf", "storage-leaf", "spine", "core")


def example(name: str, networks: dict | None = None) -> dict:
    document = load_spec_text((EXAMPLES / name).read_text())
    if networks is not None:
        document["networks"] = networks
    return document


@pytest.fixture(scope="module")
def cluster(facts):
    fabric = build_fabric(parse_spec(example("h100-superpod-4su-cluster.yaml")), facts)
    return fabric, cluster_elements(fabric, facts)


@pytest.fixture(scope="module")
def converged(facts):
    document = {
        "name": "converged",
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": 64,
        "switches": {"leaf": "Q3400-RA"},
        "networks": {
            "converged": {
                "leaf": "SN5600",
                "speed_gbps": 400,
                "uplinks": 4,
                "storage_ports": 16,
                "storage_port_speed_gbps": 200,
            },
            "oob": {"leaf": "SN2201"},
            "management_nodes": 3,
            "management_racks": 2,
        },
    }
    fabric = build_fabric(parse_spec(document), facts)
    return fabric, cluster_elements(fabric, facts)


@pytest.fixture(scope="module")
def rack_scale(facts):
    networks = {
        "converged": {"leaf": "SN5600", "speed_gbps": 400},
        "oob": {"leaf": "SN2201"},
        "ufm_appliances": 2,
    }
    fabric = build_fabric(parse_spec(example("gb200-nvl72-ndr.yaml", networks)), facts)
    return fabric, cluster_elements(fabric, facts)


def check_counts(fabric: Fabric, elements) -> None:
    """The invariants of the interface: links and cables per link group, switches per
    role and model, unique names, every link end a device."""
    networks = fabric.settings.networks
    for name, network in networks.items():
        links = elements.links_of(name)
        by_group = defaultdict(list)
        for link in links:
            by_group[link.group].append(link)
        for group in network["link_groups"]:
            mine = by_group.pop(group["name"], [])
            assert len(mine) == group["links"], (name, group["name"])
            assert len({link.cable_id for link in mine}) == group["cables"], (name, group["name"])
            assert {link.speed_gbps for link in mine} <= {group["speed_gbps"]}
        assert not by_group, (name, list(by_group))
        expected = Counter()
        for group in network["switch_groups"]:
            expected[(group["role"], group["model"])] += group["count"]
        found = Counter(
            (d.role, d.model) for d in elements.devices_of(name) if d.role in SWITCH_ROLES
        )
        assert found == expected, name
    names = [d.name for d in elements.devices]
    assert len(names) == len(set(names))
    compute = {d.name for d in elements.devices if d.network == "compute"}
    assert compute <= set(fabric.node_name)
    assert not (set(names) - compute) & set(fabric.node_name)
    known = set(names)
    for link in elements.links:
        assert link.a_device in known and link.b_device in known, link
        assert link.a_device != link.b_device, link


def test_the_4_su_cluster_expands_to_its_counts(cluster):
    fabric, elements = cluster
    check_counts(fabric, elements)
    assert elements.networks() == ("storage", "inband", "oob", "management")
    # RA-11333-001 V11 Table 8: 548 storage cables, 304 in-band, 317 Cat5e + 16 OOB uplinks
    cables = {n: len({link.cable_id for link in elements.links_of(n)}) for n in elements.networks()}
    assert cables == {"storage": 548, "inband": 304, "oob": 317 + 16, "management": 0}
    # Table 7: 16 QM9700, 8 SN4600C, 8 SN2201
    assert len(elements.devices_of("storage")) - 1 == 16  # + the storage-array endpoint
    assert Counter(d.model for d in elements.devices_of("inband"))["SN4600C"] == 8
    assert Counter(d.model for d in elements.devices_of("oob"))["SN2201"] == 8


def test_every_port_is_used_once_and_switch_ports_match_the_counts(cluster):
    fabric, elements = cluster
    ends = Counter()
    for link in elements.links:
        ends[(link.a_device, link.a_port)] += 1
        ends[(link.b_device, link.b_port)] += 1
    assert max(ends.values()) == 1  # no port patched twice (every cage here has 2 ports)
    data = Counter()  # data ports per device, every network's links (not OOB management)
    for link in elements.links:
        for device, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            if port != "mgmt":
                data[device] += 1
    for name, network in fabric.settings.networks.items():
        for group in network["switch_groups"]:
            devices = [
                d.name
                for d in elements.devices_of(name)
                if d.role == group["role"] and d.model == group["model"]
            ]
            if name == "oob":  # its count is the managed RJ45 ports: uplinks apart, and the
                # UFM back-to-back cables join the appliances directly
                rj45 = [link for link in elements.links_of("oob") if link.b_device in devices]
                assert (
                    len(rj45) + network["managed_ports"]["UFM back-to-back"] == group["ports_used"]
                )
                continue
            assert sum(data[d] for d in devices) == group["ports_used"], (name, group["role"])
            for device in devices:
                assert data[device] <= group["ports_each"]


def test_switch_ports_stay_within_the_switch(cluster, facts):
    _, elements = cluster
    radix = {"QM9700": (64, 2), "SN4600C": (64, 1), "SN2201": (48 + 4, 1)}
    for link in elements.links:
        for device, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            model = elements.device(device).model
            if elements.device(device).network == "compute" or model not in radix:
                continue
            if port == "mgmt":  # its OOB management port
                continue
            ports, per_cage = radix[model]
            cage, _, logical = port.partition("/")
            assert 1 <= int(cage) <= ports // per_cage, (device, port)
            assert int(logical or 1) <= per_cage


def test_storage_transceivers_match_table_8(cluster):
    """RA Table 8: 369 switch-side twin-port transceivers (one per used cage with a fibre),
    254 node-side and 4 UFM-side."""
    fabric, elements = cluster
    storage = fabric.settings.networks["storage"]
    switch_part = storage["transceivers_by_side"]["switch"]
    (switch_optic,) = switch_part
    cages = set()
    node_side = ufm_side = 0
    for link in elements.links_of("storage"):
        for device, port, part in (
            (link.a_device, link.a_port, link.a_transceiver),
            (link.b_device, link.b_port, link.b_transceiver),
        ):
            if part == switch_optic:
                cages.add((device, port.split("/")[0]))
        node_side += bool(link.a_transceiver) and link.group == "node-leaf"
        ufm_side += bool(link.a_transceiver) and link.group == "ufm-leaf"
    assert len(cages) == 369 == switch_part[switch_optic]
    assert node_side == 254 and ufm_side == 4


def test_dual_homed_nodes_land_on_two_leaves(cluster):
    fabric, elements = cluster
    for network in ("storage", "inband"):
        leaves_of = defaultdict(set)
        for link in elements.links_of(network):
            if link.group == "node-leaf":
                leaves_of[link.a_device].add(link.b_device)
        assert len(leaves_of) == 127
        assert all(len(leaves) == 2 for leaves in leaves_of.values()), network


def test_inband_leaf_pairs_are_distinct_switches_joined_by_their_isl(cluster):
    _, elements = cluster
    inband = elements.links_of("inband")
    isl = Counter(
        frozenset((link.a_device, link.b_device)) for link in inband if link.group == "leaf-isl"
    )
    assert len(isl) == 3 and set(isl.values()) == {2}  # RA: 3 pairs x 2 ISL
    assert all(len(pair) == 2 for pair in isl)
    pairs = set(isl)
    node_pairs = defaultdict(set)
    for link in inband:
        if link.group == "node-leaf":
            node_pairs[link.a_device].add(link.b_device)
    assert {frozenset(p) for p in node_pairs.values()} == pairs  # each node on one MLAG pair


def test_leaf_uplinks_spread_evenly_over_spines_and_cores(cluster):
    _, elements = cluster
    for network, group, tops in (("storage", "leaf-spine", 4), ("inband", "leaf-core", 2)):
        per_leaf = defaultdict(Counter)
        for link in elements.links_of(network):
            if link.group == group:
                per_leaf[link.a_device][link.b_device] += 1
        for leaf, counts in per_leaf.items():
            assert len(counts) == tops, (network, leaf)
            assert max(counts.values()) - min(counts.values()) <= 1


def test_splitters_are_assemblies_of_one_cage(cluster):
    _, elements = cluster
    assemblies = defaultdict(list)
    for link in elements.links:
        if link.assembly:
            assemblies[link.assembly].append(link)
    assert len(assemblies) == 48 + 4 + 2  # storage, management, UFM (RA Table 8)
    for links in assemblies.values():
        assert sorted(link.leg for link in links) == list(range(1, len(links) + 1))
        assert len({(link.b_device, link.b_port.split("/")[0]) for link in links}) == 1
        assert len({link.b_port for link in links}) == len(links)


def test_placement(cluster):
    fabric, elements = cluster
    racks = {r["name"]: r for r in fabric.racks}
    assert elements.racks == tuple(f"MGMT-{k:02d}" for k in range(1, 7))  # RA: 6
    for device in elements.devices:
        if device.network in ("storage", "inband") and device.role in SWITCH_ROLES:
            assert device.rack in elements.racks and device.ru
        if device.role in ("ufm", "management-node"):
            assert device.rack in elements.racks and device.ru
    slots = Counter()
    for device in elements.devices_of("oob"):
        assert device.rack and device.ru >= 47  # the top 2 U of a 48 U rack
        slots[(device.rack, device.ru)] += 1
    assert max(slots.values()) == 1
    pdus = Counter(d.rack for d in elements.devices if d.role == "pdu")
    compute = [name for name, r in racks.items() if r["kind"] == "server"]
    assert all(pdus[name] == 3 for name in compute) and len(compute) == 32
    assert all(pdus[name] == 2 for name in elements.racks)
    # compute devices keep their fabric rack
    node = fabric.node_name.index("gpu00001")
    assert elements.device("gpu00001").rack == fabric.racks[int(fabric.node_rack[node])]["name"]
    # runs are measured where both ends have a rack; endpoints outside the plan keep None
    outside = {d.name for d in elements.devices if not d.rack}
    for link in elements.links:
        unplaced = link.a_device in outside or link.b_device in outside
        assert (link.run_length_m is None) == unplaced, link


def test_oob_switches_sit_in_network_or_management_racks_near_their_ports(cluster, facts):
    """No OOB switch in a server rack of the RA layout (its four DGX H100 fill the rack's
    40.8 kW), so the RA example validates without a rack over its power limit; each sits in
    the network rack nearest the racks it serves, or a management rack."""
    from planner.analyses.power import power_budget

    fabric, elements = cluster
    kinds = {str(r["name"]): r.get("kind") for r in fabric.racks}
    for switch in elements.devices_of("oob"):
        assert switch.rack and kinds.get(switch.rack) != "server", switch
    over = [
        p
        for p in power_budget(fabric, facts).as_dict()["problems"]
        if p["code"] == "rack-power-over-limit"
    ]
    assert over == []


def test_deterministic(cluster, facts):
    fabric, elements = cluster
    again = build_fabric(parse_spec(example("h100-superpod-4su-cluster.yaml")), facts)
    assert cluster_elements(again, facts) == elements
    assert cluster_elements(fabric, facts) == elements


def test_no_networks_no_elements(facts):
    fabric = build_fabric(parse_spec(example("h100-superpod-1su.yaml")), facts)
    elements = cluster_elements(fabric, facts)
    assert elements.devices == () and elements.links == () and elements.networks() == ()


def test_converged_network(converged):
    fabric, elements = converged
    check_counts(fabric, elements)
    assert elements.networks() == ("converged", "oob", "management")
    leaves_of = defaultdict(set)
    for link in elements.links_of("converged"):
        if link.group == "node-leaf":
            leaves_of[link.a_device].add(link.b_device)
    assert len(leaves_of) == 64 and all(len(v) == 2 for v in leaves_of.values())
    customer = [link for link in elements.links_of("converged") if link.group == "spine-customer"]
    assert {elements.device(link.a_device).role for link in customer} == {"spine"}
    # no in-band cores: the OOB uplinks land on the converged spines
    uplinks = [link for link in elements.links_of("oob") if link.group == "uplinks"]
    assert {elements.device(link.b_device).role for link in uplinks} == {"spine"}
    ends = Counter((link.b_device, link.b_port) for link in elements.links)
    assert max(ends.values()) == 1


def test_rack_scale_trays_have_their_own_ports(rack_scale):
    fabric, elements = rack_scale
    check_counts(fabric, elements)
    systems = [d for d in elements.devices if d.network == "compute" and d.role == "server"]
    assert len(systems) == 8
    bmc = [link for link in elements.links_of("oob") if link.group == "node BMCs"]
    assert len(bmc) == 8 * 18  # 18 compute trays per GB200 NVL72 rack, one BMC each
    assert len({(link.a_device, link.a_port) for link in bmc}) == len(bmc)
    assert {link.a_port.split("/")[0] for link in bmc} == {f"tray{t:02d}" for t in range(1, 19)}
    trays = [link for link in elements.links_of("oob") if link.group == "NVLink switch trays"]
    assert {link.a_port.split("/")[0] for link in trays} == {f"nvsw{t:02d}" for t in range(1, 10)}
    leaves_of = defaultdict(set)
    for link in elements.links_of("converged"):
        if link.group == "node-leaf":
            leaves_of[(link.a_device, link.a_port.split("/")[0])].add(link.b_device)
    assert len(leaves_of) == 8 * 18 and all(len(v) == 2 for v in leaves_of.values())


def test_port_name():
    assert [port_name(i, 2) for i in range(4)] == ["1/1", "1/2", "2/1", "2/2"]
    assert port_name(47, 1) == "48"


def _oob_ports_by_switch(elements) -> dict[str, list]:
    out = defaultdict(list)
    for link in elements.links_of("oob"):
        if link.group != "uplinks" and elements.device(link.b_device).network == "oob":
            out[link.b_device].append(link)
    return out


@pytest.fixture(scope="module")
def b200(facts):
    fabric = build_fabric(parse_spec(example("b200-superpod-4su-cluster.yaml")), facts)
    return fabric, cluster_elements(fabric, facts)


def test_oob_rack_groups_of_4_racks(b200):
    """DGX B200 SuperPOD 4 SU (RA-11334-001 Figure 3.2: 16 SN2201): one OOB switch per 4
    compute racks, in layout order, serving those racks' BMCs and PDUs and sitting in one of
    them; the other managed ports fill spare ports; no switch past its 48 RJ45 ports."""
    fabric, elements = b200
    check_counts(fabric, elements)
    compute = [str(r["name"]) for r in fabric.racks if r["kind"] == "server"]
    groups = [tuple(compute[k : k + 4]) for k in range(0, len(compute), 4)]
    switches = [d for d in elements.devices_of("oob") if d.role == "leaf"]
    assert len(switches) == len(groups) == 16
    ports = _oob_ports_by_switch(elements)
    for switch, group in zip(switches, groups, strict=True):
        assert switch.rack in group and switch.ru >= 47
        mine = ports[switch.name]
        assert len(mine) <= 48
        assert sorted(int(link.b_port) for link in mine) == list(range(1, len(mine) + 1))
        in_racks = [link for link in mine if elements.device(link.a_device).rack in compute]
        assert {elements.device(link.a_device).rack for link in in_racks} == set(group)
        rack_ports = sum(
            1
            for link in elements.links_of("oob")
            if link.group in ("node BMCs", "PDUs") and elements.device(link.a_device).rack in group
        )
        assert len(in_racks) == rack_ports  # every port of its racks, and only those
    rest = [
        link
        for links in ports.values()
        for link in links
        if link.group == "compute fabric switches"
    ]
    assert len(rest) == fabric.settings.networks["oob"]["managed_ports"]["compute fabric switches"]


def test_oob_two_switches_in_every_nvl72_rack(facts):
    """GB300 NVL72 (nvl72-components: "2 SN2201 OOB switches" per rack): each rack's two
    switches sit in its top 2 U and share its 18 tray BMCs and 9 NVLink switch trays."""
    networks = {"converged": {}, "oob": {}}
    fabric = build_fabric(parse_spec(example("gb300-nvl72-xdr.yaml", networks)), facts)
    elements = cluster_elements(fabric, facts)
    check_counts(fabric, elements)
    compute = [str(r["name"]) for r in fabric.racks if r["kind"] == "server"]
    by_rack = defaultdict(list)
    for switch in elements.devices_of("oob"):
        by_rack[switch.rack].append(switch)
    assert set(by_rack) == set(compute)
    ports = _oob_ports_by_switch(elements)
    for rack, switches in by_rack.items():
        assert sorted(s.ru for s in switches) == [47, 48]
        own = [
            link
            for s in switches
            for link in ports[s.name]
            if link.group in ("node BMCs", "NVLink switch trays")
        ]
        assert len(own) == 18 + 9
        assert {elements.device(link.a_device).rack for link in own} == {rack}
        assert sorted(len([x for x in ports[s.name] if x in own]) for s in switches) == [13, 14]


def test_oob_extra_switches_take_what_the_groups_cannot(facts):
    """One switch per 24 racks on the B200 4 SU without rack PDUs (tests/unit/
    test_networks_published.py: 3 + 2 switches): the two extra switches serve only ports
    outside the compute racks, and every port is patched once."""
    document = example("b200-superpod-4su-cluster.yaml")
    document["networks"]["oob"] = {"switches_per_rack": 1 / 24, "pdus_per_rack": 0}
    fabric = build_fabric(parse_spec(document), facts)
    elements = cluster_elements(fabric, facts)
    check_counts(fabric, elements)
    compute = {str(r["name"]) for r in fabric.racks if r["kind"] == "server"}
    switches = [d.name for d in elements.devices_of("oob") if d.role == "leaf"]
    ports = _oob_ports_by_switch(elements)
    assert [len(ports[s]) for s in switches[:3]] == [48, 48, 48]
    for extra in switches[3:]:
        assert ports[extra]
        assert all(elements.device(link.a_device).rack not in compute for link in ports[extra])
    assert not elements.notes
