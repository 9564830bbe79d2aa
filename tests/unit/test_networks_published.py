"""Published rows of the cluster networks beyond the H100 SuperPOD, reproduced by the rules with
each server family's defaults (issue 18). Sources, quotes and the rows not reproduced (with the
convention that differs): :mod:`planner.domain.networks.published`; all read 2026-12-02.

The figures asserted here are the published ones.
"""

from pathlib import Path

import pytest

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
    # the OOB switch count is not the figure's 16 (port-driven, published.py says why)
    assert oob["switches"]["leaf"]["SN2201"] == -(-oob["managed_ports_total"] // 48)
    assert sum(1 for rack in fabric.racks if rack["kind"] == "server") == 64  # 2 per rack


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
