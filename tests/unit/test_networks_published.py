"""Published rows of the cluster networks beyond the H100 SuperPOD, reproduced by the rules with
each server family's defaults (issue 18). Sources, quotes and the rows not reproduced (with the
convention that differs): :mod:`planner.domain.networks.published`; all read 2026-12-02.

The figures asserted here are the published ones.
"""

from pathlib import Path

import pytest

from planner.domain.fabric import FabricError
from planner.domain.networks import check_networks
from planner.domain.networks.common import family_defaults, resolve_settings
from planner.domain.networks.storage import leaf_spine_network
from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, load_spec_text, parse_spec
from planner.domain.summary import summarize

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


def b200_cluster():
    return load_spec_text((EXAMPLES / "b200-superpod-4su-cluster.yaml").read_text())


@pytest.fixture(scope="module")
def b200(facts):
    fabric = build_fabric(parse_spec(b200_cluster()), facts)
    return fabric, summarize(fabric)


# RA-11334-001 V08 "Table 4. Compute fabric component count" (b200-table-4, primary):
# SU, nodes, GPUs, leaf, spine, compute and UFM cables, spine-leaf cables.
B200_TABLE_4 = [
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize(
    ("sus", "nodes", "gpus", "leaf", "spine", "node_leaf", "spine_leaf"), B200_TABLE_4
)
def test_b200_compute_fabric_table_4(facts, sus, nodes, gpus, leaf, spine, node_leaf, spine_leaf):
    """DGX B200 SuperPOD RA-11334-001 V08, Table 4 (b200-table-4, primary): the compute fabric
    of each SU count, on the example's settings (32-node SUs, 4 leaf ports kept for UFM)."""
    document = {**b200_cluster(), "servers": nodes}
    del document["networks"]
    summary = summarize(build_fabric(parse_spec(document), facts))
    assert (summary["servers"], summary["gpus"]) == (nodes, gpus)
    assert (summary["switches"]["leaf"], summary["switches"]["spine"]) == (leaf, spine)
    assert summary["links"]["server-leaf"] == node_leaf
    assert summary["links"]["leaf-spine"] == spine_leaf


def test_b200_storage_fabric_figure_3_2(b200):
    """RA-11334-001 V08 Figure 3.2, 4 SU (b200-figure-3-2, secondary): "8 x QM9700 storage
    leaves, 4 x QM9700 storage spines". The 8 leaves are derived (254 storage ports, at most
    36 per leaf at 4:3); the 4 spines are the printed value, the default of ``spines``."""
    storage = b200[1]["networks"]["storage"]
    assert storage["switches"] == {"leaf": {"QM9700": 8}, "spine": {"QM9700": 4}}
    assert storage["links"]["node-leaf"] == 127 * 2
    assert storage["links"]["ufm-leaf"] == 2 * 2  # "2 x storage UFMs", two ports each


def test_b200_storage_spines_are_the_printed_value_not_the_rule(facts):
    """The convention that differs (published.py): without the printed 4, the fewest-spines
    rule builds ceil(8 leaves x 24 uplinks / 64) = 3."""
    settings, _ = resolve_settings({"storage": {}}, "DGX-B200")
    assert settings["storage"]["spines"] == 4
    values = {key: value for key, value in settings["storage"].items() if key != "spines"}
    plan = leaf_spine_network("storage", values, settings["shared"], 127, "DGX-B200", facts)
    assert {g.role: g.count for g in plan.switches} == {"leaf": 8, "spine": 3}


def test_b200_inband_figure_3_2(b200):
    """RA-11334-001 V08 Figure 3.2 (b200-figure-3-2, secondary): "2 x SN5600 in-band spines,
    2 x SN5600 in-band leaves", derived from 127 x 2 bonded 200G ports ("operate at 200 Gbps
    and are bonded") on 256 x 200G SN5600 leaves. The figure's "2 x SN2201 in-band leaves" are
    not reproduced (one leaf model per in-band network)."""
    inband = b200[1]["networks"]["inband"]
    assert inband["switches"] == {"leaf": {"SN5600": 2}, "core": {"SN5600": 2}}
    assert inband["links"]["node-leaf"] == 254
    assert inband["links"]["management-core"] == 7 * 2  # "7 x management nodes"


def test_b200_management_systems_figure_3_2(b200, facts):
    """RA-11334-001 V08 Figure 3.2 (b200-figure-3-2, secondary): "7 x management nodes",
    "2 x compute UFMs" and "2 x storage UFMs", counted once for the cluster."""
    fabric, summary = b200
    oob = summary["networks"]["oob"]
    assert oob["managed_ports"]["management and UFM nodes"] == 7 + 2 + 2
    assert oob["managed_ports"]["node BMCs"] == 127
    assert sum(1 for rack in fabric.racks if rack["kind"] == "server") == 64  # 2 per rack


def test_b200_oob_figure_3_2_one_switch_per_4_racks(b200, facts):
    """RA-11334-001 V08 Figure 3.2 (b200-figure-3-2, secondary): "16 x SN2201 out-of-band
    leaves" at 4 SU. The layout holds 127 DGX B200 two per rack ("two DGX B200 per rack",
    section 2.5.1) in 64 compute racks; the default ``switches_per_rack`` 0.25 (one per 4
    racks, inferred from 64 / 16) builds the 16. By port count the rule builds 9."""
    fabric, summary = b200
    oob = summary["networks"]["oob"]
    assert sum(1 for rack in fabric.racks if rack["kind"] == "server") == 64
    assert oob["settings"]["switches_per_rack"] == 0.25
    assert oob["switches"] == {"leaf": {"SN2201": 16}}
    assert oob["cables_by_kind"]["Cat5e"] == oob["managed_ports_total"]
    assert oob["links"]["uplinks"] == 16 * 2
    assert any("1 per 4 compute racks" in text for text in oob["conventions"])
    document = b200_cluster()
    document["networks"]["oob"] = {"switches_per_rack": None}  # back to the port count
    by_ports = summarize(build_fabric(parse_spec(document), facts))["networks"]["oob"]
    assert by_ports["switches"]["leaf"]["SN2201"] == -(-by_ports["managed_ports_total"] // 48)
    assert by_ports["switches"]["leaf"]["SN2201"] != 16


def test_basepod_oob_one_switch_per_2_racks(facts):
    """DGX BasePOD RA-11127-001 V5, Table 4.2 (basepod-table-4-2, secondary): "SN2201, 48
    RJ45 | 1 | 2" at 4 and 8 nodes. Explained by one switch per 2 racks of two DGX B200
    (inferred: the table gives no rack count; two per rack as in the B200 SuperPOD RA), where
    the port count gives 1 and 1."""
    for nodes, published in ((4, 1), (8, 2)):
        document = {
            "name": f"BasePOD {nodes}",
            "topology": "clos",
            "server": "DGX-B200",
            "servers": nodes,
            "switches": {"leaf": "QM9700"},
            "layout": {"servers_per_rack": 2},
            "networks": {"oob": {"switches_per_rack": 0.5}, "management_nodes": 5},
        }
        oob = summarize(build_fabric(parse_spec(document), facts))["networks"]["oob"]
        assert oob["switches"]["leaf"]["SN2201"] == published
        assert oob["managed_ports_total"] <= 48  # one switch would hold every port


def test_basepod_links_table_4_2(facts):
    """DGX BasePOD RA-11127-001 V5, Table 4.2 (basepod-table-4-2, secondary), 4 and 8 nodes:
    "100GbE AOC 30 m, DGX to in-band | 8 | 16", "100GbE AOC 10 m, management servers to
    in-band | 10 | 10", "100G QSFP passive, in-band ISL | 2 | 2". Its switch counts (one
    SN4600C pair, no core) are not reproduced: the in-band rule adds a core."""
    for nodes, dgx_links in ((4, 8), (8, 16)):
        document = {
            "name": f"BasePOD {nodes}",
            "topology": "clos",
            "server": "DGX-B200",
            "servers": nodes,
            "switches": {"leaf": "QM9700"},
            "networks": {
                "inband": {"leaf": "SN4600C", "speed_gbps": 100, "cores": 1},
                "management_nodes": 5,  # "BCM management servers | varies | 5 | 5"
            },
        }
        inband = summarize(build_fabric(parse_spec(document), facts))["networks"]["inband"]
        assert inband["links"]["node-leaf"] == dgx_links
        assert inband["links"]["management-core"] == 10
        assert inband["links"]["leaf-isl"] == 2
        assert inband["switches"]["leaf"] == {"SN4600C": 2}


@pytest.mark.parametrize("server", ["GB200-NVL72", "GB300-NVL72"])
def test_nvl72_converged_fabric_defaults(facts, server):
    """GB200 SuperPOD RA "Storage and In-band Ethernet Fabric" (gb200-fabrics), SN5600
    "(INBAND)" and SN2201 "(OOB)" (mission-control-ns), "two 400 Gb/s ports to two separate
    switches" per node (nvl72-enterprise-ra): every compute tray's two 400G ports on SN5600
    leaves, and one OOB port per compute tray and NVLink switch tray ("18 compute trays and 9
    NVLink switch trays" per rack)."""
    document = {
        "name": "x",
        "topology": "rail-optimized",
        "server": server,
        "racks": 2,
        "servers_per_su": 2,
        "switches": {"leaf": "QM9700" if server == "GB200-NVL72" else "Q3400-RA"},
        "networks": {"converged": {}, "oob": {}},
    }
    networks = summarize(build_fabric(parse_spec(document), facts))["networks"]
    converged = networks["converged"]
    assert converged["links"]["node-leaf"] == 2 * 18 * 2
    assert set(converged["switches"]["leaf"]) == {"SN5600"}
    assert converged["settings"]["speed_gbps"] == 400
    oob = networks["oob"]
    assert oob["managed_ports"]["node BMCs"] == 2 * 18
    assert oob["managed_ports"]["NVLink switch trays"] == 2 * 9
    assert "PDUs" not in oob["managed_ports"]  # power shelves, not rack PDUs


@pytest.mark.parametrize(
    ("example", "server"),
    [("gb200-nvl72-ndr.yaml", "GB200-NVL72"), ("gb300-nvl72-xdr.yaml", "GB300-NVL72")],
)
def test_nvl72_oob_two_switches_per_rack(facts, example, server):
    """GB300 NVL72 Enterprise RA components page (nvl72-components, primary): "2 SN2201 OOB
    switches for integrated management access of rack components"; Mission Control
    (mission-control-ns): "IPMI Covers GB200 (2x per GB200 rack) SN2201s". The default
    ``switches_per_rack`` 2 on the 8-rack examples: 16 SN2201, where the port count gives
    fewer."""
    document = load_spec_text((EXAMPLES / example).read_text())
    assert document["server"] == server
    document["networks"] = {"converged": {}, "oob": {}}
    fabric = build_fabric(parse_spec(document), facts)
    oob = summarize(fabric)["networks"]["oob"]
    racks = sum(1 for rack in fabric.racks if rack["kind"] == "server")
    assert racks == 8
    assert oob["switches"] == {"leaf": {"SN2201": 2 * racks}}
    assert -(-oob["managed_ports_total"] // 48) < 2 * racks


def test_oob_rack_group_needing_more_ports_is_refused(facts):
    """One SN2201 per two NVL72 racks would need 2 x (18 tray BMCs + 9 NVLink switch trays)
    = 54 RJ45 ports, more than its 48: refused naming the field."""
    document = load_spec_text((EXAMPLES / "gb300-nvl72-xdr.yaml").read_text())
    document["networks"] = {"converged": {}, "oob": {"switches_per_rack": 0.5}}
    with pytest.raises(FabricError) as caught:
        build_fabric(parse_spec(document), facts)
    assert caught.value.field == "networks.oob.switches_per_rack"
    assert "54" in str(caught.value)


def test_oob_rack_groups_add_switches_for_what_does_not_fit(facts):
    """The network and management racks' ports take the groups' spare ports; what does not
    fit gets more switches. B200 4 SU without rack PDUs, one switch per 24 racks: groups of
    24, 24 and 16 racks hold 48, 48 and 31 BMCs (17 spare); the other 87 ports (48 compute +
    12 storage + 4 in-band switches, 11 management and UFM nodes, 2 UFM back-to-back, 5 x 2
    management-rack PDUs) need ceil((87 - 17) / 48) = 2 more."""
    document = b200_cluster()
    document["networks"]["oob"] = {"switches_per_rack": 1 / 24, "pdus_per_rack": 0}
    oob = summarize(build_fabric(parse_spec(document), facts))["networks"]["oob"]
    assert oob["managed_ports_total"] == 127 + 87
    assert oob["switches"]["leaf"]["SN2201"] == 3 + 2


@pytest.mark.parametrize("value", [0.4, 1.5, 0, -2, "2"])
def test_oob_switches_per_rack_must_be_whole_or_one_per_racks(value):
    """A whole number of switches per rack or one per whole number of racks; else the spec
    is refused naming the field."""
    document = {**b200_cluster(), "networks": {"oob": {"switches_per_rack": value}}}
    with pytest.raises(SpecError) as caught:
        parse_spec(document)
    assert caught.value.problems[0][0] == "networks.oob.switches_per_rack"
    if isinstance(value, float):
        assert check_networks({"oob": {"switches_per_rack": value}}, "DGX-B200")


def test_b300_has_no_published_defaults():
    """No storage, in-band or OOB figures were found for DGX B300 (b300-fabrics): its switch
    fields stay required, refused naming the field."""
    assert family_defaults("DGX-B300") == {}
    document = {
        "name": "x",
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": 64,
        "switches": {"leaf": "Q3400-RA"},
        "networks": {"storage": {}},
    }
    with pytest.raises(SpecError) as caught:
        parse_spec(document)
    assert caught.value.problems[0][0] == "networks.storage.leaf"
