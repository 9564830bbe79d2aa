"""Issue 18: the cluster's other networks (storage, in-band, OOB, converged), reproducing the
NVIDIA DGX SuperPOD H100 reference architecture (RA-11333-001 V11, 2023-09-22), 4 SU = 127
DGX H100, Table 7 (switches) and Table 8 (cables and transceivers):

- storage: 16 QM9700; 494 x 400G cables (254 DGX + 240 leaf-spine), 48 storage splitters,
  2 UFM cables, 4 management splitters (548 cables); 369 switch transceivers, 254 DGX
  QSFP112 transceivers, 4 UFM transceivers;
- in-band: 8 SN4600C; 304 cables = 254 DGX + 8 management + 4 core uplinks + 6 ISL + 8 NFS +
  24 leaf-core;
- OOB: 8 SN2201; 317 Cat5e = 127 DGX + 64 InfiniBand switches + 8 management/UFM nodes + 8
  in-band switches + 2 UFM back-to-back + 108 PDUs; 16 x 100G uplinks into in-band.
"""

import json
from pathlib import Path

import pytest

from planner.domain.fabric import FabricError
from planner.domain.networks import cluster_networks
from planner.domain.outputs.bom import bill_of_materials
from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, load_spec_text, parse_spec
from planner.domain.summary import summarize

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"
NETWORKS = {"compute": {}, "storage": {}, "inband": {}, "oob": {}}


def four_su(**networks):
    document = load_spec_text((EXAMPLES / "h100-superpod-4su.yaml").read_text())
    if networks:
        document["networks"] = networks
    return document


@pytest.fixture(scope="module")
def cluster(facts):
    fabric = build_fabric(parse_spec(four_su(**NETWORKS)), facts)
    return fabric, summarize(fabric)["networks"]


def test_storage_reproduces_table_8(cluster):
    storage = cluster[1]["storage"]
    assert storage["switches"] == {
        "leaf": {"QM9700": 8},
        "storage-leaf": {"QM9700": 4},
        "spine": {"QM9700": 4},
    }
    assert storage["switches_total"] == 16
    groups = {g["name"]: g for g in storage["link_groups"]}
    assert groups["node-leaf"]["cables"] + groups["leaf-spine"]["cables"] == 494
    assert (groups["node-leaf"]["cables"], groups["leaf-spine"]["cables"]) == (254, 240)
    assert groups["storage-leaf"]["cables"] == 48 and groups["storage-leaf"]["links"] == 96
    assert groups["ufm-leaf"]["cables"] == 2
    assert groups["management-leaf"]["cables"] == 4
    assert storage["cables_total"] == 548
    sides = storage["transceivers_by_side"]
    assert sum(sides["switch"].values()) == 369
    assert sum(sides["node"].values()) == 254
    assert sum(sides["ufm"].values()) == 4
    assert storage["endpoints"]["storage-array ports"] == 96
    assert any("per used cage" in text for text in storage["conventions"])


def test_inband_reproduces_table_8(cluster):
    inband = cluster[1]["inband"]
    assert inband["switches"] == {"leaf": {"SN4600C": 6}, "core": {"SN4600C": 2}}
    assert inband["links"] == {
        "node-leaf": 254,
        "management-core": 8,
        "core-customer": 4,
        "leaf-isl": 6,
        "nfs-core": 8,
        "leaf-core": 24,
    }
    assert inband["cables_total"] == 304


def test_oob_reproduces_table_8(cluster):
    fabric, networks = cluster
    oob = networks["oob"]
    assert oob["switches"] == {"leaf": {"SN2201": 8}}
    ports = oob["managed_ports"]
    assert ports["node BMCs"] == 127
    assert ports["compute fabric switches"] + ports["storage switches"] == 64
    assert ports["management and UFM nodes"] == 8
    assert ports["in-band switches"] == 8
    assert ports["UFM back-to-back"] == 2
    assert ports["PDUs"] == 108  # 32 compute racks x 3 + 6 management racks x 2
    assert sum(1 for rack in fabric.racks if rack["kind"] == "server") == 32
    assert oob["managed_ports_total"] == 317
    assert oob["cables_by_kind"] == {"Cat5e": 317, "AOC": 16}
    assert oob["links"]["uplinks"] == 16
    # the uplinks land on the in-band cores: 24 leaf + 8 mgmt + 8 NFS + 4 customer + 16 OOB
    cores = [g for g in networks["inband"]["switch_groups"] if g["role"] == "core"][0]
    assert cores["ports_used"] == 60


def test_info_is_json_and_the_example_builds_the_same(cluster, facts):
    fabric, networks = cluster
    assert json.loads(json.dumps(fabric.settings.networks)) == networks
    document = load_spec_text((EXAMPLES / "h100-superpod-4su-cluster.yaml").read_text())
    example = summarize(build_fabric(parse_spec(document), facts))["networks"]
    assert {n: v["cables_total"] for n, v in example.items()} == {
        "storage": 548,
        "inband": 304,
        "oob": 333,
        "management": 0,  # systems, not cables
    }


def test_bom_lists_each_network_as_its_own_tier(cluster, facts):
    fabric, _ = cluster
    bom = bill_of_materials(fabric, facts)
    by_tier: dict[str, dict[str, int]] = {}
    for line in bom.lines:
        tier = by_tier.setdefault(line.tier, {})
        tier[line.category] = tier.get(line.category, 0) + line.base_quantity
        if line.tier in ("storage", "inband", "oob"):
            assert line.counted_per and line.part
    assert by_tier["storage"]["switch"] == 16
    assert by_tier["storage"]["transceiver"] == 369 + 254 + 4
    assert by_tier["storage"].get("cable", 0) + by_tier["storage"].get("fiber", 0) == 548
    assert by_tier["inband"]["switch"] == 8
    inband_cables = sum(by_tier["inband"].get(c, 0) for c in ("cable", "fiber", "transceiver"))
    assert inband_cables == 304  # the 4 CWDM4 modules are the RA's customer-uplink "cables"
    assert by_tier["oob"]["switch"] == 8
    assert by_tier["oob"]["cable"] == 317 + 16


def test_without_networks_summary_and_bom_are_unchanged(cluster, facts):
    """The compute lines and summary keys of a spec with networks equal those without; a spec
    without networks has no ``networks`` in its info, summary or BOM."""
    plain = build_fabric(parse_spec(four_su()), facts)
    assert plain.settings.networks is None
    plain_summary = summarize(plain)
    assert "networks" not in plain_summary
    with_networks = summarize(cluster[0])
    del with_networks["networks"]
    # the networks' management racks are racks of the design (issue 33 item 4: the summary
    # counts them as the BOM, NetBox and the plan do); every other key is unchanged
    management = with_networks["racks_by_kind"]["management"]
    assert management > 0 and plain_summary["racks_by_kind"]["management"] == 0
    assert with_networks["racks"] == plain_summary["racks"] + management
    for summary in (with_networks, plain_summary):
        del summary["racks"], summary["racks_by_kind"]["management"]
    assert json.dumps(with_networks, sort_keys=True) == json.dumps(plain_summary, sort_keys=True)
    plain_bom = bill_of_materials(plain, facts).to_dict()
    full_bom = bill_of_materials(cluster[0], facts).to_dict()
    compute_lines = [
        line
        for line in full_bom["lines"]
        if line["tier"] not in ("storage", "inband", "oob", "management")
    ]
    assert json.dumps(compute_lines) == json.dumps(plain_bom["lines"])
    assert not any(line["tier"] in ("storage", "inband", "oob") for line in plain_bom["lines"])


def test_spec_round_trips_networks():
    spec = parse_spec(four_su(**NETWORKS, management_nodes=5))
    assert spec.networks["management_nodes"] == 5
    assert parse_spec(spec.as_dict()) == spec
    assert "networks" not in parse_spec(four_su()).as_dict()


@pytest.mark.parametrize(
    ("networks", "field"),
    [
        ({"oob": {"leaf": "SN2201", "pdus_per_rack": 2.5}}, "networks.oob.pdus_per_rack"),
        ({"storage": {"storage_ports": "many"}}, "networks.storage.storage_ports"),
        ({"inband": {"spine": "SN4600C"}}, "networks.inband"),
        ({"converged": {}}, "networks.converged.leaf"),
        ({"converged": {"leaf": "SN5600"}, "inband": {}}, "networks.converged"),
        ({"storage": {"oversubscription": "1:2"}}, "networks.storage.oversubscription"),
        ({"storage": {"oversubscription": 0.5}}, "networks.storage.oversubscription"),
    ],
)
def test_bad_network_blocks_are_refused_naming_the_field(networks, field):
    with pytest.raises(SpecError) as caught:
        parse_spec(four_su(**networks))
    assert field in [f for f, _ in caught.value.problems], caught.value.problems


def test_a_server_without_reference_defaults_names_the_switch_field():
    document = {
        "name": "x",
        "topology": "clos",
        "server": "XE9680",
        "servers": 16,
        "switches": {"leaf": "QM9700"},
        "networks": {"inband": {}},
    }
    with pytest.raises(SpecError) as caught:
        parse_spec(document)
    assert caught.value.problems[0][0] == "networks.inband.leaf"


def test_refusals_at_build_name_the_field(facts):
    cases = [
        ({"oob": {"uplinks": 5}}, "networks.oob.uplinks"),  # the SN2201 has 4 x 100G
        # an OOB design larger than the in-band cores' free ports allow
        (
            {"inband": {"cores": 2}, "oob": {"uplinks": 4}, "management_racks": 400},
            "networks.oob.uplinks",
        ),
        ({"inband": {"nfs_links": 90, "cores": 2}, "oob": {}}, "networks.oob.uplinks"),
        ({"inband": {"nfs_links": 110, "cores": 2}}, "networks.inband.core"),
        ({"storage": {"leaf": "DGX-H100"}}, "networks.storage.leaf"),
        ({"storage": {"leaf": "SN2201"}}, "networks.storage.leaf"),
        ({"storage": {"storage_leaves": 1}}, "networks.storage.storage_leaves"),
    ]
    base = parse_spec(four_su())
    fabric = build_fabric(base, facts)
    for networks, field in cases:
        spec = parse_spec(four_su(**networks))
        with pytest.raises(FabricError) as caught:
            cluster_networks(spec, fabric, facts)
        assert caught.value.field == field, (networks, caught.value)


def test_other_servers_use_the_same_rules_with_their_switches(facts):
    document = {
        "name": "x",
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": 64,
        "switches": {"leaf": "Q3400-RA"},
        "networks": {
            "converged": {"leaf": "SN5600", "speed_gbps": 400, "uplinks": 4},
            "oob": {"leaf": "SN2201"},
        },
    }
    fabric = build_fabric(parse_spec(document), facts)
    networks = summarize(fabric)["networks"]
    converged = networks["converged"]
    assert converged["links"]["node-leaf"] == 128
    assert converged["switches_total"] >= 4
    assert any("not chosen" in text for text in converged["conventions"])
    oob = networks["oob"]
    assert oob["managed_ports"]["node BMCs"] == 64
    assert oob["managed_ports"]["converged switches"] == converged["switches_total"]


def test_a_missing_part_is_reported_not_refused(facts):
    from dataclasses import replace

    spare = replace(facts, parts={k: v for k, v in facts.parts.items() if "980-9I693" not in k})
    spare.parts.pop("MMA1Z00-NS400", None)
    fabric = build_fabric(parse_spec(four_su(storage={})), spare)
    storage = summarize(fabric)["networks"]["storage"]
    assert "980-9I693-00NS00" in storage["parts_not_in_catalog"]
    assert storage["transceivers"]["980-9I693-00NS00"] == 254
    bom = bill_of_materials(fabric, spare)
    line = next(line for line in bom.lines if line.part == "980-9I693-00NS00")
    assert line.tier == "storage" and line.quantity == 254 and line.name
    assert any("980-9I693-00NS00" in note and "not in catalog" in note for note in bom.notes)


def test_management_systems_are_parts_of_the_bom(cluster, facts):
    """RA-11333-001 V11 Table 7: 4 UFM appliances, 4 Base Command Manager nodes (the PDF's
    count, which the cable rows need), 96 + 12 Raritan PDUs for 32 compute and 6 management
    racks."""
    fabric, networks = cluster
    bom = bill_of_materials(fabric, facts)
    lines = {
        line.part: line.base_quantity
        for line in bom.lines
        if line.tier == "management" and line.category not in ("rack", "psu")
    }
    # PDUs and the management systems are groups of their own, never servers (issue 33)
    assert {line.category for line in bom.lines if line.part in lines} == {"management", "pdu"}
    assert lines == {
        "UFM-Enterprise-Appliance-NDR": 4,
        "SuperPOD-H100-BCM-node": 4,
        "PX3-5878I2R-P1Q2R1A15D5": 96,
        "PX3-5747V-V2": 12,
    }
    assert networks["management"]["parts_not_in_catalog"] == []
    # The OOB network manages exactly these systems' ports.
    managed = networks["oob"]["managed_ports"]
    assert managed["PDUs"] == 96 + 12 and managed["management and UFM nodes"] == 4 + 4


def test_power_budget_adds_every_network(cluster, facts):
    """Each network's switches (typical W), modules (max W) and management systems (max W)
    are in the budget, per network and in the totals; the compute fabric's figures stay."""
    from planner.analyses.power import power_budget

    fabric, _ = cluster
    report = power_budget(fabric, facts).as_dict()
    plain = power_budget(build_fabric(parse_spec(four_su()), facts), facts).as_dict()
    networks = report["by_network"]
    assert set(networks) == {"storage", "inband", "oob", "management"}
    sn2201 = facts.parts["SN2201"].get("power_typical_w") or 0
    assert networks["oob"]["switches_w"] == pytest.approx(8 * sn2201)
    ufm = facts.parts["UFM-Enterprise-Appliance-NDR"]["power_max_w"]
    assert networks["management"]["systems_w"] >= 4 * ufm
    added = sum(n["total_w"] for n in networks.values())
    assert report["total_w"] == pytest.approx(plain["total_w"] + added, abs=0.5)
    assert report["by_role"] == plain["by_role"]  # compute fabric devices unchanged
