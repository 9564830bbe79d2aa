"""Rack-scale power per SU and propagation per medium as their sources print them (issue 36.7).

- NVIDIA DGX SuperPOD GB200 RA, "DGX SuperPOD Architecture": "Each SU requires a Thermal Design
  Power (TDP) of 1.2 Megawatts (MW)", a single SU being 8 DGX GB200 rack systems
  (https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/dgx-superpod-architecture.html).
- Glass: single-mode G.652.D effective group index 1.466 at 1310 nm (HNK fibre datasheet,
  hnkoptic.com/indexbda3.html), multimode OM4 1.483 at 850 nm (OPTOKON OM4 datasheet,
  https://www.optokon.com/tr/product/252-multimode-fiber-om4): 4.89 and 4.95 ns/m.
- Copper twinax: NVIDIA MCP4Y10 DAC, 4.5 ns/m as published
  (https://docs.nvidia.com/networking/display/mcp4y10nxxx2x400pub).
"""

from pathlib import Path

import pytest
import yaml

from planner.analyses.power import power_budget
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

C_M_PER_NS = 0.299792458
EXAMPLES = Path(__file__).resolve().parents[2] / "planner/domain/examples"


def test_gb200_nvl72_su_power_is_the_ra_tdp(facts):
    """[8 x GB200 NVL72]--[QM9700 rail leaves]--[spines]: the RA's SU of 8 racks, 1.2 MW TDP."""
    spec = parse_spec(yaml.safe_load((EXAMPLES / "gb200-nvl72-ndr.yaml").read_text()))
    fabric = build_fabric(spec, facts)
    budget = power_budget(fabric, facts)
    assert budget.by_category["servers"] == pytest.approx(1.2e6)
    # the SU's compute-fabric switches and optics on top: within 5 % of the RA's TDP
    assert 1.2e6 < budget.total_w < 1.26e6
    record = facts.parts["GB200-NVL72"]
    prov = record["provenance"]["power_max_w"]
    assert prov["grade"] == "inferred" and "1.2 Megawatts" in prov["note"]
    assert record["sources"][prov["source"]]["url"].startswith("https://docs.nvidia.com/")


@pytest.mark.parametrize(
    ("kind", "group_index", "per_m"),
    [("smf", 1.466, 4.89), ("mmf", 1.483, 4.95)],
)
def test_glass_propagation_is_its_group_index(facts, kind, group_index, per_m):
    assert round(group_index / C_M_PER_NS, 2) == per_m
    fibres = [
        p
        for p in facts.parts.values()
        if p.get("category") == "fiber" and p.get("fiber_type") == kind and p.get("fiber_count")
    ]
    assert fibres
    for part in fibres:
        assert part["propagation_ns_per_m"] == per_m, part["slug"]
        prov = part["provenance"]["propagation_ns_per_m"]
        assert prov["grade"] == "inferred" and str(group_index) in prov["note"], part["slug"]
        # NVIDIA's 4.5 ns/m stays beside it, as the alternative it is
        assert [a["value"] for a in prov["alternatives"]] == [4.5], part["slug"]


@pytest.mark.parametrize(("cable_types", "per_m"), [(("dac", "acc", "aec"), 4.5), (("aoc",), 4.95)])
def test_cable_assemblies_by_medium(facts, cable_types, per_m):
    """Copper twinax (DAC, linear and retimed active copper): NVIDIA's 4.5 ns/m; an active
    optical cable: multimode glass, 4.95 ns/m. A twisted-pair RJ45 cord has none."""
    cables = [p for p in facts.parts.values() if p.get("cable_type") in cable_types]
    given = {p["propagation_ns_per_m"] for p in cables if "propagation_ns_per_m" in p}
    assert given == {per_m}
    missing = {p["slug"] for p in cables if "propagation_ns_per_m" not in p}
    assert missing <= {"Cat5e-Cat6-RJ45-patch-cord"}


def test_b300_networks_size_from_its_catalog_ports(facts):
    """DGX SuperPOD B300 RA, network fabrics: "Each pair of in-band management and storage ports
    provide parallel pathways into the DGX B300 system ... The BMC port is used for BMC access"
    (https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/network-fabrics.html).
    Their speed is not published: 400G as the DGX B200's BlueField-3 ports, named as inferred."""
    from planner.domain.networks import cluster_networks

    document = {
        "name": "b300 networks",
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": 64,
        "switches": {"leaf": "Q3400-RA"},
        "networks": {"storage": {"leaf": "SN5600"}, "inband": {"leaf": "SN5600"}},
    }
    spec = parse_spec(document)
    plans = {p.name: p for p in cluster_networks(spec, build_fabric(spec, facts), facts).networks}
    storage, inband = plans["storage"], plans["inband"]
    assert storage.settings["speed_gbps"] == 400  # not the SN5600's 800G
    node_links = next(g for g in storage.link_groups if g.name == "node-leaf")
    assert node_links.links == 64 * 2 and node_links.speed_gbps == 400
    for plan, role in ((storage, "storage"), (inband, "inband")):
        (note,) = [c for c in plan.conventions if "from the catalog" in c]
        assert note.startswith(f"DGX-B300 {role} ports from the catalog: 2 per node, 400G")
        assert "(inferred: assumed as the DGX B200's BlueField-3" in note


def test_b300_xdr_rack_power_is_near_the_ra_figure(facts):
    """DGX SuperPOD B300 XDR RA: "four DGX B300 fit within a single rack. The rack-level power
    consumption per rack is ~56kW"
    (https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html).
    Ours: 4 x 14.5 kW (DGX B300 user guide, secondary) plus the rack's NIC-side optics."""
    spec = parse_spec(yaml.safe_load((EXAMPLES / "b300-xdr-rail.yaml").read_text()))
    budget = power_budget(build_fabric(spec, facts), facts)
    racks = [r for r in budget.racks if r["kind"] == "server"]
    assert racks and all(abs(r["power_w"] / 56_000 - 1) < 0.05 for r in racks)


@pytest.mark.parametrize(
    ("server", "leaf"), [("GB200-NVL72", "QM9700"), ("GB300-NVL72", "Q3400-RA")]
)
def test_nvl72_converged_ports_are_the_ras(facts, server, leaf):
    """NVL72 Enterprise RA: "The CPU Converged (North/South) network connects the nodes using two
    400 Gb/s ports to two separate switches" (network-logical-architecture.html); DGX GB200 user
    guide: the tray's "Storage/management network: 2x NVIDIA BlueField-3" (QSFP112). The GB300
    tray's card is not named: its links keep no part and the conventions say why."""
    document = {
        "name": "nvl72",
        "topology": "rail-optimized",
        "server": server,
        "racks": 8,
        "switches": {"leaf": leaf},
        "networks": {"converged": {"uplinks": 4}, "oob": {}, "management_racks": 1},
    }
    fabric = build_fabric(parse_spec(document), facts)
    converged = fabric.settings.networks["converged"]
    node = next(g for g in converged["link_groups"] if g["name"] == "node-leaf")
    assert node["links"] == 8 * 18 * 2
    if server == "GB200-NVL72":
        assert node["cable"] is not None
    else:
        assert node["cable"] is None
        assert any("unknown cage" in c for c in converged["conventions"])
