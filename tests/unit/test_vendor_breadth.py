"""Today's systems build end to end (topology, layout, media) from the seed catalog (issue 17).

Each spec is built through :func:`planner.domain.pipeline.build_fabric`; every link must end
with a part at both ends: a module in each cage and a fiber between them, or one cable
assembly.
"""

import pytest

from planner.domain.fabric import ROLE
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from planner.domain.summary import summarize


def _build(facts, **document):
    return build_fabric(parse_spec({"name": "t", **document}), facts)


def assert_media_complete(facts, fabric):
    """Every link has a cable; a fiber has a module at both ends."""
    assert fabric.link_count > 0
    assert (fabric.link_cable_part >= 0).all()
    for link in range(fabric.link_count):
        cable = facts.parts[fabric.parts[int(fabric.link_cable_part[link])]]
        if cable["category"] == "fiber":
            assert fabric.link_a_part[link] >= 0 and fabric.link_b_part[link] >= 0, link


def _server_links(fabric):
    return int((fabric.node_role[fabric.link_a] == ROLE["server"]).sum())


def test_juniper_jvd_qfx5240_at_400g(facts):
    """Juniper's AI backend JVD: QFX5240-64OD leaves split 2 x 400G towards H100 servers."""
    fabric = _build(
        facts,
        topology="rail-optimized",
        server="DGX-H100",
        servers=32,
        servers_per_su=16,
        switches={"leaf": "QFX5240-64OD"},
    )
    summary = summarize(fabric)
    assert summary["switches"]["leaf"] == 16  # 2 stripes x 8 rail leaves
    assert summary["switches"]["spine"] >= 2
    assert _server_links(fabric) == 32 * 8
    assert set(fabric.link_speed_gbps.tolist()) == {400}
    assert_media_complete(facts, fabric)


def test_juniper_validated_optic_can_be_named(facts):
    fabric = _build(
        facts,
        topology="rail-optimized",
        server="DGX-H100",
        servers=32,
        servers_per_su=16,
        switches={"leaf": "QFX5240-64OD"},
        media={
            "leaf-spine": {
                "a": "OSFP-800G-DR8-2-P",
                "b": "OSFP-800G-DR8-2-P",
                "cable": "MFP7E30-Nxxx",
            }
        },
    )
    switch = summarize(fabric)["transceivers_by_side"]["switch"]
    assert switch.get("OSFP-800G-DR8-2-P", 0) > 0
    assert_media_complete(facts, fabric)


@pytest.mark.parametrize("leaf", ["7060X6-64PE", "N9364E-SG2-O"])
@pytest.mark.parametrize(
    ("topology", "server"), [("clos", "XE9680"), ("rail-optimized", "DGX-H100")]
)
def test_51t_ethernet_leaves_with_400g_servers(facts, leaf, topology, server):
    fabric = _build(facts, topology=topology, server=server, servers=32, switches={"leaf": leaf})
    assert _server_links(fabric) == 32 * 8
    # 64 x 800G cages split 2 x 400G: 128 ports per leaf, half of them down
    leaves = summarize(fabric)["switches"]["leaf"]
    assert leaves == (4 if topology == "clos" else 8)
    assert_media_complete(facts, fabric)


@pytest.mark.parametrize("leaf", ["7060X6-64PE", "N9364E-SG2-O", "SN5600"])
def test_b300_two_planes_of_400g(facts, leaf):
    fabric = _build(
        facts,
        topology="rail-optimized",
        server="DGX-B300",
        servers=32,
        planes=2,
        switches={"leaf": leaf},
        layout={"servers_per_rack": 4},
    )
    assert _server_links(fabric) == 32 * 8 * 2
    assert set(fabric.link_speed_gbps.tolist()) == {400}
    assert_media_complete(facts, fabric)


def test_dgx_b300_spectrum_x_twin_plane_su(facts):
    """NVIDIA's B300 Spectrum-X RA, Table 3, 1 SU: 64 nodes, 16 leaves, 8 spines."""
    fabric = _build(
        facts,
        topology="rail-optimized",
        server="DGX-B300",
        servers=64,
        planes=2,
        switches={"leaf": "SN5600"},
        layout={"servers_per_rack": 4},
    )
    summary = summarize(fabric)
    assert summary["switches"]["leaf"] == 16
    assert summary["switches"]["spine"] == 8
    assert _server_links(fabric) == 64 * 8 * 2
    # one twin-port flat-top module per ConnectX-8 port carries both planes
    assert sum(summary["transceivers_by_side"]["server"].values()) == 64 * 8
    assert_media_complete(facts, fabric)


def test_cx8_ports_record_the_2x400g_split(facts):
    for slug in ("DGX-B300", "GB300-NVL72", "XA-NB3I-E12", "SYS-822GS-NB3RT"):
        (group,) = facts.devices[slug].port_groups
        assert group.ports_at(400) == 2 * group.ports, slug


def _gpu_servers(facts):
    return sorted(
        slug
        for slug, part in facts.parts.items()
        if part["category"] == "server" and part["slug"] == slug and part.get("kind") == "server"
    )


def test_every_gpu_server_has_typed_compute_ports(facts):
    for slug in _gpu_servers(facts):
        groups = facts.parts[slug].get("compute_ports") or []
        assert groups, slug
        for group in groups:
            assert group.get("form_factor") and group.get("port_speed_gbps"), slug
            if group["form_factor"].startswith("OSFP"):
                assert group.get("top") in ("ihs", "rhs"), slug


SEED_SERVERS = [
    "DGX-H100",
    "DGX-H200",
    "DGX-B200",
    "DGX-B300",
    "XE9680",
    "XE9780",
    "XE9785",
    "SYS-A22GA-NBRT",
    "SYS-822GS-NB3RT",
    "SYS-821GE-TNHR",
    "SR680a-V3",
    "SR680a-V4",
    "XA-NB3I-E12",
]


def test_the_parametrized_list_is_the_whole_seed(facts):
    assert sorted(SEED_SERVERS) == _gpu_servers(facts)


@pytest.mark.parametrize("server", SEED_SERVERS)
def test_every_gpu_server_builds_a_rail_fabric(facts, server):
    """400G servers on SN5600 leaves; ConnectX-8 (800G) servers as two 400G planes."""
    speed = facts.devices[server].port_speed_gbps
    planes = 2 if speed == 800 else 1
    fabric = _build(
        facts,
        topology="rail-optimized",
        server=server,
        servers=16,
        planes=planes,
        switches={"leaf": "SN5600"},
        layout={"servers_per_rack": 2},
    )
    ports = facts.devices[server].ports
    assert _server_links(fabric) == 16 * ports * planes
    assert_media_complete(facts, fabric)


@pytest.mark.parametrize(
    ("slug", "nic", "speed"),
    [("GB200-NVL72", "ConnectX-7", 400), ("GB300-NVL72", "ConnectX-8", 800)],
)
def test_rack_systems_carry_per_tray_facts(facts, slug, nic, speed):
    trays = facts.parts[slug]["trays"]
    assert trays["compute"] == 18 and trays["switch"] == 9
    assert trays["compute_ru"] == 1 and trays["switch_ru"] == 1
    assert trays["gpus_per_tray"] == 4 and trays["nics_per_tray"] == 4
    assert (trays["nic"], trays["nic_speed_gbps"]) == (nic, speed)
    assert (trays["nic_form_factor"], trays["nic_top"]) == ("OSFP", "rhs")
    assert facts.parts[slug]["cooling"] in ("liquid", "hybrid")
    assert facts.parts[slug]["power_max_w"]


def test_host_module_speaks_the_switch_protocol(facts):
    """Rule 17: an Ethernet leaf's server modules must speak Ethernet."""
    fabric = _build(
        facts, topology="clos", server="XE9680", servers=8, switches={"leaf": "7060X6-64PE"}
    )
    servers = fabric.node_role[fabric.link_a] == ROLE["server"]
    for index in set(fabric.link_a_part[servers].tolist()):
        assert "ethernet" in facts.parts[fabric.parts[index]]["protocols"]
