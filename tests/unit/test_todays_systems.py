"""Issue 17: rack-scale systems, multi-plane fabrics, spines / min_spines / grow_to, and
counts that never wait on a missing fact, checked against published tables.

Published rows (primary, NVIDIA's own pages):

- DGX SuperPOD B300 XDR, Table 3:
  https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html
  (the 18 SU row prints 9216 GPUs for 1,296 nodes; 1,296 x 8 = 10,368, as its cable counts).
- DGX SuperPOD B300 on Spectrum-X, twin-plane ("Each GPU has 2x 400GbE connectivity through
  two different planes"), Table 3:
  https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/dgx-superpod-architecture.html
"""

from dataclasses import replace
from pathlib import Path

import pytest

from planner.domain.catalog import PortGroup
from planner.domain.fabric import ROLE, FabricError
from planner.domain.generators import generate_topology
from planner.domain.spec import SpecError, load_spec_text, parse_spec
from planner.domain.summary import summarize

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"

B300_XDR_TABLE_3 = [  # SU, nodes, leaf, spine, node-leaf, leaf-spine
    (1, 72, 8, 4, 576, 576),
    (2, 144, 16, 8, 1152, 1152),
    (4, 288, 32, 18, 2304, 2304),
    (8, 576, 64, 36, 4608, 4608),
    (18, 1296, 144, 72, 10368, 10368),
]
B300_TWIN_PLANE_TABLE_3 = [  # SU, nodes, GPUs, leaf, spine, node-leaf, leaf-spine cables
    (1, 64, 512, 16, 8, 512, 512),
    (2, 128, 1024, 32, 16, 1024, 1024),
    (4, 256, 2048, 64, 32, 2048, 2048),
    (8, 512, 4096, 128, 64, 4096, 4096),
    (16, 1024, 8192, 256, 128, 8192, 8192),
]


@pytest.fixture(scope="module")
def twin_facts(facts):
    """The seed catalog with the ConnectX-8 port's 2 x 400GbE split listed (the CX-8
    firmware notes: "800Gb/s or XDR IB or 2 x 400GbE"), whatever the seed says today."""
    model = facts.devices["DGX-B300"]
    groups = tuple(
        replace(g, breakouts=tuple(sorted({*g.breakouts, "2x400G"}))) for g in model.port_groups
    )
    return replace(facts, devices={**facts.devices, "DGX-B300": replace(model, port_groups=groups)})


def build(facts, **document):
    return generate_topology(parse_spec({"name": "t", **document}), facts)


@pytest.mark.parametrize(
    ("sus", "nodes", "leaf", "spine", "node_leaf", "leaf_spine"), B300_XDR_TABLE_3
)
def test_b300_xdr_table_3(facts, sus, nodes, leaf, spine, node_leaf, leaf_spine):
    summary = summarize(
        build(
            facts,
            topology="rail-optimized",
            server="DGX-B300",
            servers=nodes,
            switches={"leaf": "Q3400-RA"},
        )
    )
    assert summary["scalable_units"] == sus
    assert summary["switches"] == {"leaf": leaf, "spine": spine, "core": 0}
    assert summary["links"] == {"server-leaf": node_leaf, "leaf-spine": leaf_spine, "spine-core": 0}


@pytest.mark.parametrize(
    ("sus", "nodes", "gpus", "leaf", "spine", "node_leaf", "leaf_spine"), B300_TWIN_PLANE_TABLE_3
)
def test_b300_twin_plane_table_3(twin_facts, sus, nodes, gpus, leaf, spine, node_leaf, leaf_spine):
    summary = summarize(
        build(
            twin_facts,
            topology="rail-optimized",
            server="DGX-B300",
            servers=nodes,
            planes=2,
            switches={"leaf": "SN5600"},
        )
    )
    assert (summary["gpus"], summary["scalable_units"], summary["tiers"]) == (gpus, sus, 2)
    assert summary["switches"] == {"leaf": leaf, "spine": spine, "core": 0}
    # NVIDIA counts a cable per physical port: one per CX-8 port (both planes), one per leaf
    # uplink port; the links are one per plane.
    assert summary["physical_ports"]["server-leaf"] == node_leaf
    assert summary["physical_ports"]["leaf-spine"] == leaf_spine
    assert summary["links_per_plane"]["server-leaf"] == {"1": gpus, "2": gpus}
    assert summary["links"]["server-leaf"] == 2 * gpus
    assert summary["speed_gbps"] == 400


def test_twin_plane_uplinks_at_the_plane_speed_or_as_asked(twin_facts):
    spec = dict(topology="rail-optimized", server="DGX-B300", planes=2, switches={"leaf": "SN5600"})
    one_su = build(twin_facts, **spec, servers=64)
    assert one_su.info["uplink_speed_gbps"] == 400
    assert one_su.info["leaf_down"] == 64 and one_su.info["leaf_up"] == 64
    # 800G uplinks, asked for: half as many leaf-spine links, the same cables and switches.
    fast = build(twin_facts, **spec, servers=64, uplink_speed_gbps=800)
    assert fast.info["leaf_down"] == 64 and fast.info["leaf_up"] == 32
    slow_summary, fast_summary = summarize(one_su), summarize(fast)
    assert fast_summary["links"]["leaf-spine"] == slow_summary["links"]["leaf-spine"] // 2
    assert fast_summary["physical_ports"] == slow_summary["physical_ports"]
    assert fast_summary["switches"] == slow_summary["switches"]
    # 16 SUs at 800G: 128 leaves a plane cannot all reach 64-port spines; a third tier.
    assert build(twin_facts, **spec, servers=1024, uplink_speed_gbps=800).info["tiers"] == 3
    with pytest.raises(FabricError) as caught:
        build(twin_facts, **spec, servers=64, uplink_speed_gbps=600)
    assert caught.value.field == "uplink_speed_gbps"


def test_planes_on_a_port_that_cannot_split_is_refused_up_front(facts):
    with pytest.raises(FabricError) as caught:
        build(
            facts,
            topology="rail-optimized",
            server="DGX-H100",
            servers=32,
            planes=2,
            switches={"leaf": "QM9700"},
        )
    assert caught.value.field == "planes"
    assert "cannot split into 2 x 200G" in str(caught.value)


@pytest.mark.parametrize(
    ("server", "leaf", "leaves", "spines"),
    [("GB200-NVL72", "QM9700", 32, 9), ("GB300-NVL72", "Q3400-RA", 8, 4)],
)
def test_nvl72_rails_follow_the_trays_nics(facts, server, leaf, leaves, spines):
    """Rail r is NIC r of every compute tray: a rack puts its 18 trays on each of 4 rails, so
    8 racks (576 GPUs) need 576 leaf downlinks, not 72 rails of leaves."""
    fabric = build(
        facts,
        topology="rail-optimized",
        server=server,
        racks=8,
        servers_per_su=8,
        switches={"leaf": leaf},
    )
    summary = summarize(fabric)
    assert summary["gpus"] == 576 and summary["servers"] == 8
    assert summary["links"]["server-leaf"] == 576
    assert summary["switches"]["leaf"] == leaves and summary["switches"]["spine"] == spines
    assert summary["rack_system"]["compute_trays"] == 18
    assert summary["rack_system"]["nics_per_tray"] == 4
    # Every leaf takes one rail only, from whole racks.
    trays, rails = 18, 4
    for leaf_node in fabric.nodes_with_role("leaf"):
        mask = fabric.link_b == leaf_node
        ports = fabric.link_a_port[mask]
        assert len({int(p) % rails for p in ports}) == 1
        assert (ports // rails < trays).all()
    # Racks or GPUs: the same build.
    by_gpus = summarize(
        build(
            facts,
            topology="rail-optimized",
            server=server,
            gpus=576,
            servers_per_su=8,
            switches={"leaf": leaf},
        )
    )
    assert by_gpus["switches"] == summary["switches"]


def test_racks_on_a_server_is_refused_naming_racks(facts):
    with pytest.raises(FabricError) as caught:
        build(
            facts,
            topology="rail-optimized",
            server="DGX-H100",
            racks=4,
            switches={"leaf": "QM9700"},
        )
    assert caught.value.field == "racks"


def test_one_of_servers_racks_gpus(facts):
    with pytest.raises(SpecError) as caught:
        parse_spec(
            {
                "name": "t",
                "topology": "clos",
                "server": "DGX-H100",
                "servers": 4,
                "gpus": 32,
                "switches": {"leaf": "QM9700"},
            }
        )
    assert caught.value.problems[0][0] == "gpus"


def test_gpus_count_connected_gpus_and_report_the_rest(facts):
    summary = summarize(
        build(
            facts,
            topology="clos",
            server="DGX-H100",
            servers=16,
            rails=4,
            switches={"leaf": "QM9700"},
        )
    )
    assert summary["gpus"] == 16 * 4
    assert summary["gpus_unconnected"] == 16 * 4


def test_min_spines_keeps_every_leaf_off_a_single_spine(facts):
    # Two DGX H100 on one QM9700 leaf pair: one spine would do by ports; two by default.
    default = summarize(
        build(facts, topology="clos", server="DGX-H100", servers=8, switches={"leaf": "QM9700"})
    )
    assert default["switches"]["spine"] >= 2
    single = summarize(
        build(
            facts,
            topology="clos",
            server="DGX-H100",
            servers=8,
            min_spines=1,
            switches={"leaf": "QM9700"},
        )
    )
    assert single["switches"]["spine"] == 1


def test_exact_spines_and_its_limits(facts):
    spec = dict(
        topology="rail-optimized", server="DGX-H100", servers=128, switches={"leaf": "QM9700"}
    )
    assert summarize(build(facts, **spec, spines=32))["switches"]["spine"] == 32
    with pytest.raises(FabricError) as caught:
        build(facts, **spec, spines=12)  # does not divide a leaf's 32 uplinks
    assert caught.value.field == "spines" and "divide" in str(caught.value)
    with pytest.raises(FabricError) as caught:
        build(facts, **spec, spines=8)  # 32 leaves x 32 uplinks need 16 spines' ports
    assert caught.value.field == "spines" and "too few" in str(caught.value)


def test_grow_to_sizes_spines_and_cores_for_the_final_build(facts):
    document = load_spec_text((EXAMPLES / "h100-superpod-grow-to-16su.yaml").read_text())
    fabric = generate_topology(parse_spec(document), facts)
    summary = summarize(fabric)
    growth = summary["growth"]
    # Final: RA-11333-001 Table 3's 16 SU row (128 leaves, 128 spines, 64 cores).
    assert growth["final"] == {
        "servers": 512,
        "gpus": 4096,
        "leaves": 128,
        "spines": 128,
        "cores": 64,
    }
    assert growth["today"]["leaves"] == 32 == summary["switches"]["leaf"]
    assert summary["switches"]["core"] == 64  # every core bought now
    # Each SU adds 32 nodes, 8 leaves and 256 uplinks; every fourth opens a pod with its 32
    # spines and their 1,024 core links.
    plain = {
        "servers": 32,
        "gpus": 256,
        "leaves": 8,
        "server_leaf_links": 256,
        "leaf_spine_links": 256,
    }
    pod = {**plain, "spines": 32, "spine_core_links": 1024}
    assert [(s["count"], s["adds"]) for s in growth["steps"]] == [
        (1, pod),
        (3, {**plain, "spines": 0, "spine_core_links": 0}),
    ] * 3
    # The cores keep ports free for the pods still to come.
    cores = fabric.nodes_with_role("core")
    used = [int(((fabric.link_a == c) | (fabric.link_b == c)).sum()) for c in cores]
    assert max(used) < 64
    # Two tiers: today's 16 leaves spread over the 32 spines the 8 SU build needs.
    two = summarize(
        build(
            facts,
            topology="rail-optimized",
            server="DGX-H100",
            servers=64,
            grow_to={"servers": 256},
            switches={"leaf": "QM9700"},
        )
    )
    assert two["switches"]["spine"] == 32 and two["switches"]["leaf"] == 16


def test_grow_to_smaller_than_today_names_the_field(facts):
    with pytest.raises(FabricError) as caught:
        build(
            facts,
            topology="rail-optimized",
            server="DGX-H100",
            servers=64,
            grow_to={"gpus": 256},
            switches={"leaf": "QM9700"},
        )
    assert caught.value.field == "grow_to.gpus"


def test_examples_build(facts, twin_facts):
    for name in (
        "b300-spectrum-x-twin-plane.yaml",
        "gb300-nvl72-xdr.yaml",
        "h100-superpod-grow-to-16su.yaml",
    ):
        document = load_spec_text((EXAMPLES / name).read_text())
        fabric = generate_topology(parse_spec(document), twin_facts)
        assert fabric.link_count > 0, name


def test_a_leaf_split_with_faster_uplinks():
    from planner.domain.generator_plans import leaf_split

    assert leaf_split(128, 1, stride=2) == (64, 32)
    assert leaf_split(128, 3, stride=2) == (96, 16)
    assert PortGroup(64, 1, 800, breakouts=("2x400G",)).split_at(400) == 2


def test_every_worked_example_builds_through_media(facts):
    """Every preset (examples/*.yaml) builds topology, layout and media from the seed, and
    every link end that needs a part has one."""
    from planner.domain.pipeline import build_fabric
    from planner.domain.presets import load_presets

    for preset in load_presets():
        fabric = build_fabric(parse_spec(preset.spec), facts)
        catalog_links = fabric.node_role[fabric.link_a] != ROLE["manager"]  # UFM: no part
        assert (fabric.link_cable_part[catalog_links] >= 0).all(), preset.slug
        assert summarize(fabric)["gpus"] > 0, preset.slug


def test_every_worked_example_validates_without_errors(facts):
    """Media and the validator agree on every preset: what media picked (a ConnectX-8 port
    split 2 x 400G on 100G lanes, NVL72 trays on rails) the validator does not call an error."""
    from planner.analyses.reports import fabric_validate
    from planner.domain.pipeline import build_fabric
    from planner.domain.presets import load_presets

    for preset in load_presets():
        fabric = build_fabric(parse_spec(preset.spec), facts)
        report = fabric_validate(fabric=fabric, facts=facts)
        errors = [p for p in report["problems"] if p["severity"] == "error"]
        assert not errors, (preset.slug, errors[:3])


def test_juniper_jvd_two_stripes_of_eight_leaves_and_four_spines(facts):
    """Juniper's AI DC JVD: 2 stripes x 8 QFX5240-64OD leaves, 4 spines, 400GE everywhere."""
    document = load_spec_text((EXAMPLES / "juniper-jvd-qfx5240.yaml").read_text())
    summary = summarize(generate_topology(parse_spec(document), facts))
    assert summary["scalable_units"] == 2
    assert summary["switches"] == {"leaf": 16, "spine": 4, "core": 0}
    assert summary["speed_gbps"] == 400 and summary["uplink_speed_gbps"] == 400


def test_cabling_plan_names_the_compute_tray_of_every_nvl72_port(facts):
    from collections import Counter

    from planner.domain.outputs import CABLING_COLUMNS
    from planner.domain.outputs.cabling import cabling_rows
    from planner.domain.pipeline import build_fabric
    from planner.domain.presets import preset_get

    fabric = build_fabric(parse_spec(preset_get("gb300-nvl72-xdr").spec), facts)
    rows = [dict(zip(CABLING_COLUMNS, row, strict=True)) for row in cabling_rows(fabric, facts)]
    server_rows = [r for r in rows if r["a_role"] == "server"]
    assert len(server_rows) == 576
    # Every rack: trays 1..18, each with its 4 NICs (ports 4t+1 .. 4t+4), one per rail.
    per_rack_tray = Counter((r["a_device"], r["a_tray"]) for r in server_rows)
    assert set(per_rack_tray.values()) == {4}
    assert {tray for _, tray in per_rack_tray} == {str(t) for t in range(1, 19)}
    # A rack's port is named by its tray and NIC (planner.domain.names), the NIC on its rail.
    for row in server_rows:
        assert row["a_port"] == f"tray {row['a_tray']} NIC {row['rail']}"
    assert all(r["a_tray"] == "" for r in rows if r["a_role"] != "server")


def test_growth_beyond_ten_million_gpus_is_refused_in_the_domain(facts):
    with pytest.raises(FabricError) as caught:
        build(
            facts,
            topology="clos",
            server="DGX-H100",
            servers=8,
            grow_to={"gpus": 10**8},
            switches={"leaf": "QM9700"},
        )
    assert caught.value.field == "grow_to.gpus"


def test_a_pdu_or_appliance_is_not_a_design_server(facts):
    for slug, model in facts.devices.items():
        if model.category == "server" and model.kind in ("pdu", "appliance", "management"):
            with pytest.raises(FabricError) as caught:
                build(facts, topology="clos", server=slug, servers=2, switches={"leaf": "QM9700"})
            assert caught.value.field == "server" and "not a GPU server" in str(caught.value)
            break
    else:
        pytest.fail("the seed has no management part to try")
