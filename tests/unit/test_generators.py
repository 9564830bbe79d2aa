"""Generators: invariants over every topology, the published reference rows, bad specs.

Topologies are numbered by family, NetBox style:
  1xx rail-optimized, 2xx Clos, 3xx fat-tree, 4xx multi-plane.
"""

from collections import Counter
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from inventory.library.files import read_catalog_folder
from planner.domain.catalog import CatalogFacts, CatalogLookupError, DeviceModel, PortGroup
from planner.domain.fabric import ROLE, TIER, Fabric, FabricError
from planner.domain.generator_plans import leaf_split
from planner.domain.generators import generate_topology
from planner.domain.spec import SpecError, parse_spec
from planner.domain.summary import diff_summaries, summarize

SEED = Path(__file__).resolve().parents[2] / "inventory" / "library" / "seed"


@pytest.fixture(scope="module")
def seed_facts():
    from planner.domain.catalog import facts_from_records

    return facts_from_records(read_catalog_folder(SEED).parts)


def small_facts() -> CatalogFacts:
    """Toy parts with small radices, so that 3-tier builds stay tiny."""
    facts = CatalogFacts()
    for ports in (4, 8, 16):
        slug = f"SW{ports}"
        facts.devices[slug] = DeviceModel(slug, "switch", (PortGroup(ports // 2, 2, 400),))
    facts.devices["SW8x800"] = DeviceModel(
        "SW8x800", "switch", (PortGroup(8, 1, 800, breakouts=("2x400G",)),)
    )
    facts.devices["SRV4"] = DeviceModel("SRV4", "server", (PortGroup(2, 2, 400),), gpus=4)
    facts.devices["SRV2x800"] = DeviceModel(
        "SRV2x800", "server", (PortGroup(2, 1, 800, breakouts=("2x400G", "4x200G")),), gpus=2
    )
    return facts


def build(facts, **spec):
    return generate_topology(parse_spec({"name": "t", **spec}), facts)


CASES = {
    "101_rail_2tier": dict(
        topology="rail-optimized", server="SRV4", servers=6, switches={"leaf": "SW8"}
    ),
    "102_rail_2tier_reserved": dict(
        topology="rail-optimized",
        server="SRV4",
        servers=7,
        servers_per_su=4,
        switches={"leaf": "SW8"},
        reserved_leaf_ports=3,
    ),
    "103_rail_3tier_partial_pod": dict(
        topology="rail-optimized",
        server="SRV4",
        servers=22,
        switches={"leaf": "SW4", "spine": "SW8", "core": "SW16"},
    ),
    "104_rail_3tier_full": dict(
        topology="rail-optimized", server="SRV4", servers=32, tiers=3, switches={"leaf": "SW8"}
    ),
    "201_clos_1to1": dict(topology="clos", server="SRV4", servers=6, switches={"leaf": "SW16"}),
    "202_clos_3to1": dict(
        topology="clos", server="SRV4", servers=9, oversubscription=3, switches={"leaf": "SW16"}
    ),
    "203_clos_3tier": dict(
        topology="clos", server="SRV4", servers=20, tiers=3, switches={"leaf": "SW8"}
    ),
    "204_clos_3tier_odd_partial_pod": dict(
        topology="clos", server="SRV4", servers=7, tiers=3, switches={"leaf": "SW8"}
    ),
    "301_fat_tree_k4": dict(topology="fat-tree", server="SRV4", k=4, switches={"leaf": "SW4"}),
    "302_fat_tree_k8_partial": dict(
        topology="fat-tree", server="SRV4", servers=20, k=8, switches={"leaf": "SW8"}
    ),
    "401_multi_plane": dict(
        topology="rail-optimized",
        server="SRV2x800",
        servers=8,
        planes=2,
        switches={"leaf": "SW8x800"},
    ),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    facts = small_facts()
    return request.param, build(facts, **CASES[request.param])


def _pairs(fabric: Fabric, tier: str) -> Counter:
    mask = fabric.link_tier == TIER[tier]
    return Counter(zip(fabric.link_a[mask].tolist(), fabric.link_b[mask].tolist(), strict=True))


def test_no_port_used_twice_or_out_of_range(case):
    _, fabric = case
    ends = np.concatenate(
        [
            np.stack([fabric.link_a, fabric.link_a_port], axis=1),
            np.stack([fabric.link_b, fabric.link_b_port], axis=1),
        ]
    )
    assert len(np.unique(ends, axis=0)) == len(ends), "a port carries two links"
    assert (ends[:, 1] >= 0).all()
    assert (ends[:, 1] < fabric.node_ports[ends[:, 0]]).all(), "port beyond the device's ports"


def test_links_climb_one_tier(case):
    _, fabric = case
    lower = {
        "server-leaf": ("server", "manager"),
        "leaf-spine": ("leaf",),
        "spine-core": ("spine",),
    }
    upper = {"server-leaf": "leaf", "leaf-spine": "spine", "spine-core": "core"}
    for tier, code in TIER.items():
        mask = fabric.link_tier == code
        assert set(fabric.node_role[fabric.link_a[mask]].tolist()) <= {ROLE[r] for r in lower[tier]}
        assert set(fabric.node_role[fabric.link_b[mask]].tolist()) <= {ROLE[upper[tier]]}


def test_balanced_wiring(case):
    """Every leaf has the same number of links to every spine of its pod (and plane); every
    spine the same number to every core of its group."""
    _, fabric = case
    for tier in ("leaf-spine", "spine-core"):
        pairs = _pairs(fabric, tier)
        if not pairs:
            continue
        per_lower: dict[int, Counter] = {}
        for (a, b), count in pairs.items():
            per_lower.setdefault(a, Counter())[b] = count
        for a, uppers in per_lower.items():
            assert len(set(uppers.values())) == 1, f"{fabric.node_name[a]} unbalanced: {uppers}"
            if tier == "leaf-spine" and fabric.info["tiers"] == 3:
                pod = fabric.node_group[a]
                expected = np.flatnonzero(
                    (fabric.node_role == ROLE["spine"])
                    & (fabric.node_su == pod)
                    & (fabric.node_plane == fabric.node_plane[a])
                )
                assert set(uppers) == set(expected.tolist())
            if tier == "spine-core":
                group = fabric.node_group[a]
                expected = np.flatnonzero(
                    (fabric.node_role == ROLE["core"])
                    & (fabric.node_group == group)
                    & (fabric.node_plane == fabric.node_plane[a])
                )
                assert set(uppers) == set(expected.tolist())
        if tier == "leaf-spine" and fabric.info["tiers"] == 2:
            spines_per_plane = Counter(
                fabric.node_plane[fabric.node_role == ROLE["spine"]].tolist()
            )
            for a, uppers in per_lower.items():
                assert len(uppers) == spines_per_plane[int(fabric.node_plane[a])]


def test_every_gpu_reaches_every_other(case):
    _, fabric = case
    graph = nx.Graph()
    graph.add_nodes_from(range(fabric.node_count))
    graph.add_edges_from(zip(fabric.link_a.tolist(), fabric.link_b.tolist(), strict=True))
    servers = fabric.nodes_with_role("server")
    for plane in range(fabric.settings.planes):
        mask = fabric.link_plane == plane
        sub = nx.Graph()
        sub.add_edges_from(
            zip(fabric.link_a[mask].tolist(), fabric.link_b[mask].tolist(), strict=True)
        )
        component = nx.node_connected_component(sub, int(servers[0]))
        assert set(servers.tolist()) <= component, f"plane {plane} is split"
    # Each server uses every rail in every plane.
    server_links = Counter(fabric.link_a[fabric.link_tier == TIER["server-leaf"]].tolist())
    per_server = fabric.info["rails"] * fabric.settings.planes
    assert all(server_links[int(s)] == per_server for s in servers)


def test_summary_matches_links(case):
    _, fabric = case
    summary = summarize(fabric)
    for tier, code in TIER.items():
        assert summary["links"][tier] == int((fabric.link_tier == code).sum())
    for role in ("leaf", "spine", "core"):
        assert summary["switches"][role] == int((fabric.node_role == ROLE[role]).sum())
    assert (
        summary["servers"] * small_facts().devices[CASES[case[0]]["server"]].gpus == summary["gpus"]
    )


def test_round_trip_through_plain_data(case):
    _, fabric = case
    again = Fabric.from_dict(fabric.to_dict())
    assert summarize(again) == summarize(fabric)
    assert (again.link_b_port == fabric.link_b_port).all()


def test_fat_tree_k4_shape():
    fabric = build(small_facts(), **CASES["301_fat_tree_k4"])
    summary = summarize(fabric)
    # k = 4: k^3/4 = 16 host ports, 5k^2/4 = 20 switches, k^3/4 links per tier.
    assert summary["servers"] * 4 == 16
    assert summary["switches_total"] == 20
    assert summary["links"] == {"server-leaf": 16, "leaf-spine": 16, "spine-core": 16}


# --- published reference designs (reference-architectures.md) ----------------------------------

TABLE_4 = [  # SU, nodes, GPUs, leaf, spine, node+UFM->leaf, leaf-spine
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (4, 127, 1016, 32, 16, 1020, 1024),
]
TABLE_3 = [  # SU, nodes, GPUs, leaf, spine, core, node-leaf, leaf-spine, spine-core
    (4, 128, 1024, 32, 16, 0, 1024, 1024, 0),
    (8, 256, 2048, 64, 32, 0, 2048, 2048, 0),
    (16, 512, 4096, 128, 128, 64, 4096, 4096, 4096),
]


@pytest.mark.parametrize(
    ("sus", "nodes", "gpus", "leaf", "spine", "node_leaf", "leaf_spine"), TABLE_4
)
def test_superpod_table_4(seed_facts, sus, nodes, gpus, leaf, spine, node_leaf, leaf_spine):
    summary = summarize(
        build(
            seed_facts,
            topology="rail-optimized",
            server="DGX-H100",
            servers=nodes,
            servers_per_su=32,
            reserved_leaf_ports=4,
            switches={"leaf": "QM9700"},
        )
    )
    assert summary["scalable_units"] == sus
    assert (summary["gpus"], summary["switches"]["leaf"], summary["switches"]["spine"]) == (
        gpus,
        leaf,
        spine,
    )
    assert summary["links"] == {"server-leaf": node_leaf, "leaf-spine": leaf_spine, "spine-core": 0}


@pytest.mark.parametrize(
    ("sus", "nodes", "gpus", "leaf", "spine", "core", "node_leaf", "leaf_spine", "spine_core"),
    TABLE_3,
)
def test_superpod_table_3(
    seed_facts, sus, nodes, gpus, leaf, spine, core, node_leaf, leaf_spine, spine_core
):
    summary = summarize(
        build(
            seed_facts,
            topology="rail-optimized",
            server="DGX-H100",
            servers=nodes,
            switches={"leaf": "QM9700"},
        )
    )
    assert summary["scalable_units"] == sus
    assert summary["gpus"] == gpus
    assert summary["switches"] == {"leaf": leaf, "spine": spine, "core": core}
    assert summary["links"] == {
        "server-leaf": node_leaf,
        "leaf-spine": leaf_spine,
        "spine-core": spine_core,
    }


def test_fat_tree_k48_published_counts(seed_facts):
    summary = summarize(
        build(seed_facts, topology="fat-tree", server="DGX-H100", k=48, switches={"leaf": "QM9700"})
    )
    assert summary["servers"] * 8 == 27_648
    assert summary["switches_total"] == 2_880
    assert set(summary["links"].values()) == {27_648}


def test_three_tier_partial_build_formula(seed_facts):
    """Full-bisection partial build: leaves = E/(R/2), spines = E/(R/2), cores = E/R."""
    summary = summarize(
        build(
            seed_facts,
            topology="clos",
            server="DGX-H100",
            servers=1024,
            switches={"leaf": "QM9700"},
        )
    )
    endpoints, radix = 8192, 64
    assert summary["switches"] == {
        "leaf": endpoints // (radix // 2),
        "spine": endpoints // (radix // 2),
        "core": endpoints // radix,
    }


def test_partial_pod_spines_get_uplinks_divisible_by_cores(seed_facts):
    """500 DGX-H100 in a Clos: the last pod has 29 leaves; its spines' 29 downlinks round up
    to 30 uplinks so that they split evenly over 2 cores (balanced and non-blocking)."""
    fabric = build(
        seed_facts, topology="clos", server="DGX-H100", servers=500, switches={"leaf": "QM9700"}
    )
    assert fabric.info["cores_per_group"] == 2
    assert fabric.info["spine_down"][-1] == 29 and fabric.info["spine_up"][-1] == 30
    assert all(
        u >= d for u, d in zip(fabric.info["spine_up"], fabric.info["spine_down"], strict=True)
    )


def test_oversubscription_split():
    assert leaf_split(64, 3) == (48, 16)
    fabric = build(small_facts(), **CASES["202_clos_3to1"])
    assert fabric.info["oversubscription"]["leaf"] == 3


# --- bad specs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "field", "text"),
    [
        (
            dict(
                topology="rail-optimized",
                server="DGX-H100",
                servers=512,
                tiers=2,
                switches={"leaf": "QM9700"},
            ),
            "tiers",
            "4,096 GPUs at radix 64 need 3 tiers: 2 tiers stop at 2,048",
        ),
        (
            dict(
                topology="rail-optimized",
                server="DGX-H100",
                servers=128,
                servers_per_su=32,
                reserved_leaf_ports=4,
                switches={"leaf": "QM9700"},
            ),
            "reserved_leaf_ports",
            "127",
        ),
        (
            dict(
                topology="rail-optimized",
                server="DGX-H100",
                servers=8,
                servers_per_su=40,
                switches={"leaf": "QM9700"},
            ),
            "servers_per_su",
            "32",
        ),
        (
            dict(
                topology="rail-optimized",
                server="DGX-H100",
                servers=8,
                rails=9,
                switches={"leaf": "QM9700"},
            ),
            "rails",
            "8 compute ports",
        ),
        (
            dict(
                topology="rail-optimized",
                server="DGX-H100",
                servers=8,
                planes=3,
                switches={"leaf": "QM9700"},
            ),
            "planes",
            "3 planes",
        ),
        (
            dict(topology="fat-tree", server="DGX-H100", k=80, switches={"leaf": "QM9700"}),
            "k",
            "64",
        ),
        (
            dict(
                topology="rail-optimized",
                server="DGX-H100",
                servers=100_000,
                switches={"leaf": "QM9700"},
            ),
            "tiers",
            "3 tiers stop at",
        ),
        (
            dict(
                topology="rail-optimized", server="DGX-B300", servers=8, switches={"leaf": "QM9700"}
            ),
            "switches.leaf",
            "cannot run 800G",
        ),
        (
            dict(
                topology="rail-optimized",
                server="SRV4",
                servers=64,
                tiers=3,
                switches={"leaf": "SW8"},
            ),
            "tiers",
            "3 tiers stop at 128",
        ),
    ],
)
def test_infeasible_specs_name_field_and_way_out(seed_facts, spec, field, text):
    facts = small_facts() if spec["server"].startswith("SRV") else seed_facts
    with pytest.raises(FabricError) as caught:
        build(facts, **spec)
    assert caught.value.field == field
    assert text in str(caught.value)


def test_connectx8_800g_ethernet_on_one_port_is_refused_naming_the_nic_and_its_source(seed_facts):
    # ConnectX-8 firmware release notes: "800GbE link speed is not supported on a single port"
    # (800G only as XDR InfiniBand); the DGX-B300 runs Spectrum-X in two 400G planes.
    doc = dict(topology="rail-optimized", server="DGX-B300", servers=8)
    with pytest.raises(FabricError) as caught:
        build(seed_facts, **doc, switches={"leaf": "SN5600"})
    assert caught.value.field == "planes"
    message = str(caught.value)
    assert "ConnectX-8-on-board" in message and "800G Ethernet" in message
    assert "connectx8firmware" in message and "2 planes of 400G" in message
    assert build(seed_facts, **doc, planes=2, switches={"leaf": "SN5600"}).link_count
    # an InfiniBand leaf runs 800G XDR on the one port
    assert build(seed_facts, **doc, switches={"leaf": "Q3400-RA"}).link_count


def test_unknown_part(seed_facts):
    with pytest.raises(CatalogLookupError, match="switches.leaf"):
        build(seed_facts, topology="clos", server="DGX-H100", servers=4, switches={"leaf": "NOPE"})
    with pytest.raises(CatalogLookupError, match="server"):
        build(seed_facts, topology="clos", server="QM9700", servers=4, switches={"leaf": "QM9700"})


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"topology": "clos", "server": "X"}, ""),  # no name
        ({"name": "a", "topology": "star", "server": "X"}, "topology"),
        ({"name": "a", "topology": "clos", "server": "X", "servers": -1}, "servers"),
        ({"name": "a", "topology": "clos", "server": "X", "servers": "many"}, "servers"),
        ({"name": "a", "topology": "clos", "server": "X", "servers": 2, "tiers": 4}, "tiers"),
        ({"name": "a", "topology": "clos", "server": "X", "servers": 2, "colour": "red"}, ""),
        (
            {
                "name": "a",
                "topology": "clos",
                "server": "X",
                "servers": 2,
                "switches": {"leaf": "Y"},
                "media": {"leaf-spine": "copper"},
            },
            "media.leaf-spine",
        ),
        ({"name": "a", "topology": "fat-tree", "server": "X", "switches": {"leaf": "Y"}}, "k"),
        ({"name": "a", "topology": "clos", "server": "X", "switches": {"leaf": "Y"}}, "servers"),
        ({"name": "a", "topology": "clos", "server": "X", "servers": 2}, "switches.leaf"),
        (
            {
                "name": "a",
                "topology": "clos",
                "server": "X",
                "servers": 2,
                "switches": {"leaf": "Y"},
                "layout": {"rack_units": 2},
            },
            "layout.rack_units",
        ),
    ],
)
def test_malformed_specs(document, field):
    with pytest.raises(SpecError) as caught:
        parse_spec(document)
    assert any(f == field for f, _ in caught.value.problems), caught.value.problems


def test_malformed_yaml_names_line():
    with pytest.raises(SpecError, match="line 3: malformed"):
        parse_spec("name: a\ntopology: clos\n  server: [X\n")


def test_spec_round_trip_and_diff(seed_facts):
    spec = parse_spec(
        {
            "name": "a",
            "topology": "rail-optimized",
            "server": "DGX-H100",
            "servers": 31,
            "switches": {"leaf": "QM9700"},
            "media": {"leaf-spine": {"a": "MMA4Z00-NS"}},
        }
    )
    assert parse_spec(spec.as_dict()) == spec
    one = summarize(build(seed_facts, **{k: v for k, v in spec.as_dict().items() if k != "name"}))
    two = summarize(
        build(
            seed_facts,
            topology="rail-optimized",
            server="DGX-H100",
            servers=63,
            switches={"leaf": "QM9700"},
        )
    )
    changes = diff_summaries(one, two)
    assert changes["servers"] == {"old": 31, "new": 63, "delta": 32}
    assert changes["switches.leaf"]["delta"] == 8
