"""Switch breakouts from the vendors' platform files, and the fibre of native 800G DR8 (issue 36.3).

Published row reproduced: NVIDIA DGX SuperPOD B300 (Spectrum-X) reference architecture, Table 3,
1 SU = 64 DGX B300, two 400G planes per ConnectX-8 port: 16 leaves, 8 spines, 512 node-leaf and
512 leaf-spine cables
(https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/dgx-superpod-architecture.html).
The SN5610's modes (1 x 800G, 2 x 400G, 4 x 200G per port) are those of NVIDIA's SONiC platform
file ``device/mellanox/x86_64-nvidia_sn5610n-r0/platform.json`` (sonic-net/sonic-buildimage).
"""

import pytest

from planner.analyses.validate import validate_fabric
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from planner.domain.summary import summarize

TWIN_PLANE = {
    "name": "B300 Spectrum-X twin-plane, 1 SU",
    "topology": "rail-optimized",
    "server": "DGX-B300",
    "servers": 64,
    "planes": 2,
}


@pytest.mark.parametrize("switch", ["SN5600", "SN5610"])
def test_401_spectrum_x_twin_plane_table_3_row(facts, switch):
    """[B300]==2x400G==[SN56x0 leaf]--[SN56x0 spine]: RA Table 3, 1 SU, on either switch."""
    fabric = build_fabric(parse_spec({**TWIN_PLANE, "switches": {"leaf": switch}}), facts)
    summary = summarize(fabric)
    assert summary["switches"]["leaf"] == 16
    assert summary["switches"]["spine"] == 8
    assert summary["physical_ports"] == {"server-leaf": 512, "leaf-spine": 512}


def test_sn5610_breakouts_are_sourced_from_the_vendor_platform_file(facts):
    record = facts.parts["SN5610"]
    group = next(m for m in facts.devices["SN5610"].port_groups)
    assert set(group.breakouts) == {"1x800G", "2x400G", "4x200G"}
    prov = record["provenance"]["cage_groups.0.breakouts"]
    source = record["sources"][prov["source"]]
    assert prov["grade"] == "datasheet"
    assert "x86_64-nvidia_sn5610n-r0/platform.json" in source["url"]


@pytest.mark.parametrize(
    ("switch", "speed", "ports"),
    [("SN5640", 400, 128), ("SN5640", 200, 256), ("SN5640", 800, 0), ("SN6600-LD", 400, 256)],
)
def test_platform_file_modes_give_the_radix(facts, switch, speed, ports):
    """SN5640: 2 x 400G per cage, no 1 x 800G mode; SN6600-LD: 2 x 800G per cage, 4 x 400G."""
    assert facts.devices[switch].radix_at(speed) == ports


def test_402_sn5600_800g_leaf_spine_on_dr8(facts):
    """[B300]==2x400G==[SN5600]==800G DR8 (MPO-16, OS2)==[SN5600]: builds and validates."""
    spec = {
        **TWIN_PLANE,
        "switches": {"leaf": "SN5600"},
        "uplink_speed_gbps": 800,
        "media": {"leaf-spine": {"a": "OSFP-800G-DR8-05", "b": "OSFP-800G-DR8-05"}},
    }
    fabric = build_fabric(parse_spec(spec), facts)
    summary = summarize(fabric)
    assert summary["links"]["leaf-spine"] == 512
    assert summary["transceivers"]["OSFP-800G-DR8-05"] == 2 * 512
    assert summary["cables"]["FIBER-MPO16-APC-OS2-16F"] == 512
    report = validate_fabric(fabric, facts)
    assert "breakout-not-listed" not in report.codes("error")
    assert report.codes("error") == set()


def test_dr8_modules_take_an_mpo16_fibre(facts):
    for slug in ("OSFP-800G-DR8-05", "Trixon-800G-OSFP-DR8", "QDD-DR8-800G", "MMS4X00-NM16"):
        record = facts.parts[slug]
        assert record["connector"] == "mpo16-apc", slug
        assert record["provenance"]["connector"]["grade"] == "inferred", slug


@pytest.mark.parametrize(
    ("form_factor", "speed", "pmd"),
    [
        ("OSFP", 800, "DR8"),
        ("OSFP", 800, "2xDR4"),
        ("OSFP", 800, "2xFR4"),
        ("OSFP224", 1600, "DR8"),
        ("OSFP224", 1600, "2xDR4"),
        ("OSFP224", 1600, "2xFR4"),
        ("QSFP-DD800", 800, "DR8"),
        ("QSFP-DD800", 800, "2xFR4"),
    ],
)
def test_a_fibre_carries_every_single_mode_pmd_on_every_cage_family(facts, form_factor, speed, pmd):
    """Issue 36.3: DR8, 2xDR4 and 2xFR4 at 800G and 1.6T each have a module and a straight
    fibre that plugs into it (media, connector, for_pmd). QSFP-DD800 2 x DR4 and 1.6T
    QSFP-DD800 modules are not in the catalog (none found)."""
    from inventory.library.compat import fiber_fits_optic
    from planner.domain.part_facts import fiber_of, optic_of

    parts = facts.parts.values()
    modules = [
        p
        for p in parts
        if p.get("category") == "transceiver"
        and (p.get("form_factor"), p.get("speed_gbps"), p.get("pmd")) == (form_factor, speed, pmd)
    ]
    fibres = [p for p in parts if p.get("category") == "fiber" and p.get("topology") == "straight"]
    assert modules
    fits = {
        (m["slug"], f["slug"])
        for m in modules
        for f in fibres
        if not fiber_fits_optic(fiber_of(f), optic_of(m)) and pmd in (f.get("for_pmd") or [pmd])
    }
    assert fits, (form_factor, speed, pmd)


def test_403_day0_configs_run_the_800g_uplink_cages_whole(facts):
    """[B300]==2x400G==[SN5600]==800G==[SN5600]: the leaf's server cages break out 2 x 400G,
    its uplink cages stay whole (NVUE swp33, SONiC Ethernet256: Cumulus and SONiC naming as
    planner.domain.names documents), and only the split cages get a breakout (SONiC's
    BREAKOUT_CFG states every cage's mode by its key in SN5600's platform.json)."""
    from planner.domain.outputs.config.intent import fabric_intent, switch_intents
    from planner.domain.outputs.config.nvue import nvue_switch_lines
    from planner.domain.outputs.config.sonic import sonic_config

    spec = {
        **TWIN_PLANE,
        "switches": {"leaf": "SN5600"},
        "uplink_speed_gbps": 800,
        "media": {"leaf-spine": "SMF"},
    }
    fabric = build_fabric(parse_spec(spec), facts)
    header = fabric_intent(fabric, facts, name="t", revision=1)
    leaf = next(s for s in switch_intents(fabric, facts, header.settings) if s.role == "leaf")
    up = [i for i in leaf.interfaces if i.speed_gbps == 800]
    down = [i for i in leaf.interfaces if i.speed_gbps == 400]
    assert len(up) == 32 and len(down) == 64
    assert up[0].names == {"nvue": f"swp{up[0].cage}", "sonic": f"Ethernet{8 * (up[0].cage - 1)}"}
    assert all(leaf.layout_of(i).legs == 1 for i in up)
    assert all(leaf.layout_of(i).legs == 2 for i in down)
    assert leaf.breakouts == sorted({i.cage for i in down})
    breakout = sonic_config(header, leaf)["BREAKOUT_CFG"]
    split = {breakout[f"Ethernet{8 * (c - 1)}"]["brkout_mode"] for c in leaf.breakouts}
    whole = {breakout[f"Ethernet{8 * (i.cage - 1)}"]["brkout_mode"] for i in up}
    assert split == {"2x400G[200G,100G,50G,40G,25G,10G]"}
    assert whole == {"1x800G[400G,200G,100G,50G,40G,25G,10G]"}
    text = "\n".join(nvue_switch_lines(header, leaf))
    assert f"swp{up[0].cage}s0" not in text


@pytest.mark.parametrize(
    ("switch", "speed", "ports"),
    [
        # Arista 7800R4 datasheet p.8 line-card table (via the third-party catalog the seed
        # cites): 36 x 800G, 72 x 400G, 288 x 100G per line card, no 200G count.
        ("7800R4-36PE", 400, 72),
        ("7800R4C-36PE", 100, 288),
        ("7800R4K-36PE", 200, 0),
        # HPE QFX5250 document (via third-party notes): 64 x 1.6T, "breakout to 128 x 800G /
        # 256 x 400G / 512 x 200/100G".
        ("QFX5250", 800, 128),
        ("QFX5250", 400, 256),
        ("QFX5250", 200, 512),
        # AS9817-32D platform.json (the AIS800-32D's SONiC platform): 2x400G[200G] and
        # 4x200G[100G] on each of 32 ports, no 8 x 100G on 8 lanes.
        ("AIS800-32D", 400, 64),
        ("AIS800-32D", 200, 128),
        ("AIS800-32D", 100, 0),
        # Hedgehog's celestica-ds5000 profile: 8x100G on each of 64 OSFP-800G ports.
        ("DS5000", 100, 512),
    ],
)
def test_published_split_counts_give_the_radix(facts, switch, speed, ports):
    """Issue 36.3: the port counts the sources print per speed are the catalog's radix."""
    assert facts.devices[switch].radix_at(speed) == ports


@pytest.mark.parametrize(
    ("switch", "grade", "where"),
    [
        ("AIS800-32D", "datasheet", "x86_64-accton_as9817_32d-r0/platform.json"),
        ("DS5000", "secondary", "githedgehog/fabric"),
        ("7800R4-36PE", "secondary", None),
        ("QFX5250", "secondary", None),
        ("Q3200-RA", "inferred", "800g200gpam4list"),
        ("Q3401-RD", "inferred", "800g200gpam4list"),
        ("QFX5240-64QD", "inferred", "Juniper/jvd"),
    ],
)
def test_new_breakouts_carry_their_source_and_grade(facts, switch, grade, where):
    """Each split list added for issue 36 names where it was read and how strongly: vendor
    platform code is a datasheet, a third-party profile or catalog secondary, a sibling's
    modes inferred (the note says why)."""
    record = facts.parts[switch]
    prov = record["provenance"]["cage_groups.0.breakouts"]
    source = record["sources"][prov["source"]]
    assert prov["grade"] == grade
    if where is None:
        assert source["url"] is None and source.get("title")
    else:
        assert where in source["url"]
    if grade == "inferred":
        assert prov.get("note")
