"""Link rules (catalog-facts compatibility rules 1-26) and fabric checks of the validator.

Every rule has a failing and a passing case. Fabrics are built from the seed catalog
(``parse_spec`` + ``build_fabric``) and then tweaked, or assembled with ``FabricBuilder``;
parts the seed lacks are synthetic entries added to a copy of the facts (never to the seed).
"""

import copy
from pathlib import Path

import numpy as np
import pytest

from planner.analyses.rules_catalog import RULES, codes_for_rule
from planner.analyses.validate import MAX_IDS, validate_fabric
from planner.domain.catalog import CatalogFacts, device_from_spec
from planner.domain.fabric import ROLE, TIER, Fabric, FabricBuilder
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"
SUPERPOD = {
    "name": "superpod-4su",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 127,
    "servers_per_su": 32,
    "switches": {"leaf": "QM9700"},
    "reserved_leaf_ports": 4,
    "media": {"server-leaf": "MMF", "leaf-spine": "MMF"},
}
COMPACT = {"rack_units": 10, "tray_height_m": 0, "slack_m": 0, "servers_per_rack": 1}
GB200 = {
    "name": "gb200",
    "topology": "clos",
    "server": "GB200-NVL72",
    "servers": 4,
    "rails": 4,
    "switches": {"leaf": "QM9700"},
    "layout": COMPACT,
}
CLOS = {
    "name": "clos",
    "topology": "clos",
    "server": "XE9680",
    "servers": 24,
    "oversubscription": 3,
    "switches": {"leaf": "SN5600"},
}
B300 = {
    "name": "b300",
    "topology": "rail-optimized",
    "server": "DGX-B300",
    "servers": 72,
    "switches": {"leaf": "Q3400-RA"},
    "layout": {"servers_per_rack": 4},
}


# --- fixtures and helpers ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(facts):
    cache = {}

    def get(document, **kwargs):
        if document["name"] not in cache:
            cache[document["name"]] = build_fabric(parse_spec(document), facts, **kwargs)
        return copy.deepcopy(cache[document["name"]])

    return get


@pytest.fixture
def superpod(built):
    return built(SUPERPOD)


def with_parts(facts: CatalogFacts, *entries: dict) -> CatalogFacts:
    """A copy of ``facts`` with extra (synthetic) catalog entries."""
    out = CatalogFacts(devices=dict(facts.devices), parts=dict(facts.parts))
    for entry in entries:
        out.parts[entry["slug"]] = entry
        if entry["category"] in ("switch", "server"):
            out.devices[entry["slug"]] = device_from_spec(entry["slug"], entry["category"], entry)
    return out


def variant(facts: CatalogFacts, slug: str, new_slug: str, **changes) -> dict:
    entry = {**facts.parts[slug], "slug": new_slug, **changes}
    return {k: v for k, v in entry.items() if v is not None}


def part_index(fabric: Fabric, slug: str) -> int:
    if slug not in fabric.parts:
        fabric.parts.append(slug)
    return fabric.parts.index(slug)


def put(fabric: Fabric, column: str, links, slug: str | None) -> None:
    getattr(fabric, column)[links] = -1 if slug is None else part_index(fabric, slug)


def server_links(fabric: Fabric) -> np.ndarray:
    return np.flatnonzero(fabric.node_role[fabric.link_a] == ROLE["server"])


def ufm_cage_ids(fabric: Fabric) -> set[str]:
    """``link:<i>`` of every link through a leaf cage that holds a fabric-manager (UFM) link:
    the UFM link and the node link beside it, on different fibre parts of one construction
    (RA-11333-001 Table 8 orders 980-9I557-00N030 for UFM -> leaf and 980-9I570-00N030 for
    node -> leaf)."""
    managers = fabric.node_role[fabric.link_a] == ROLE["manager"]
    shared = np.isin(fabric.link_b_module, fabric.link_b_module[managers])
    return {f"link:{i}" for i in np.flatnonzero(shared).tolist()}


def uplinks(fabric: Fabric) -> np.ndarray:
    return np.flatnonzero(fabric.link_tier == TIER["leaf-spine"])


def drop_links(fabric: Fabric, links) -> None:
    keep = np.ones(fabric.link_count, dtype=bool)
    keep[links] = False
    for name in Fabric.LINK_COLUMNS:
        value = getattr(fabric, name)
        if value is not None:
            setattr(fabric, name, value[keep])


def set_media(fabric: Fabric, a: str | None, b: str | None, cable: str | None, length=5.0):
    """Give every link the same parts; modules one per cage, one fiber or cable per link
    (a 1:N part joins N consecutive links of one b-end cage)."""
    count = fabric.link_count
    fabric.parts = []
    fabric.link_a_part = np.full(count, -1, dtype=np.int16)
    fabric.link_b_part = np.full(count, -1, dtype=np.int16)
    fabric.link_cable_part = np.full(count, -1, dtype=np.int16)
    for column, slug in (("link_a_part", a), ("link_b_part", b), ("link_cable_part", cable)):
        if slug:
            put(fabric, column, slice(None), slug)
    fabric.link_length_m = np.full(count, length, dtype=np.float32)
    fabric.link_cable_length_m = fabric.link_length_m.copy()

    def modules(nodes, ports):
        ppc = fabric.node_ports_per_cage[nodes].astype(np.int64)
        keys = nodes.astype(np.int64) * 100_000 + ports // ppc
        return np.unique(keys, return_inverse=True)[1].astype(np.int32)

    a_mod = modules(fabric.link_a, fabric.link_a_port)
    b_mod = modules(fabric.link_b, fabric.link_b_port) + a_mod.max() + 1
    assembly = cable is not None and a == cable
    fabric.link_a_module = np.full(count, -1, np.int32) if assembly else a_mod
    fabric.link_b_module = np.full(count, -1, np.int32) if assembly else b_mod
    fabric.link_cable = np.arange(count, dtype=np.int32)


def mini(
    facts,
    server: str,
    leaf: str,
    *,
    speed: int,
    links: int = 2,
    server_ppc: int = 1,
    leaf_ppc: int = 1,
    media=None,
    length: float = 5.0,
) -> Fabric:
    """One server with ``links`` ports on one leaf (ports 0..links-1 at both ends)."""
    builder = FabricBuilder()
    s = builder.add_nodes(
        ["srv-1"], role="server", model=server, su=0, ports=links, ports_per_cage=server_ppc
    )
    leaf_model = facts.devices[leaf]
    node = builder.add_nodes(
        ["leaf-1"],
        role="leaf",
        model=leaf,
        plane=0,
        su=0,
        group=0,
        ports=max(links, leaf_model.radix_at(speed) or links),
        ports_per_cage=leaf_ppc,
    )
    ports = np.arange(links)
    builder.add_links(
        np.repeat(s, links),
        ports,
        np.repeat(node, links),
        ports,
        tier="server-leaf",
        plane=0,
        speed_gbps=speed,
    )
    fabric = builder.build({"topology": "clos", "planes": 1})
    if media is not None:
        set_media(fabric, *media, length=length)
    return fabric


def two_switches(facts, leaf: str, spine: str, *, speed: int, ppc: int, media, links=2):
    """One leaf and one spine joined by ``links`` links."""
    builder = FabricBuilder()
    a = builder.add_nodes(
        ["leaf-1"], role="leaf", model=leaf, plane=0, group=0, ports=64, ports_per_cage=ppc
    )
    b = builder.add_nodes(
        ["spine-1"], role="spine", model=spine, plane=0, ports=64, ports_per_cage=ppc
    )
    ports = np.arange(links)
    builder.add_links(
        np.repeat(a, links),
        ports,
        np.repeat(b, links),
        ports,
        tier="leaf-spine",
        plane=0,
        speed_gbps=speed,
    )
    fabric = builder.build({"topology": "clos", "planes": 1})
    set_media(fabric, *media)
    return fabric


def rule_problems(report, rule: str, severity: str | None = "error"):
    return [p for p in report.problems if p.rule == rule and severity in (None, p.severity)]


def codes(report, severity: str | None = None) -> set[str]:
    return report.codes(severity)


# --- baseline ------------------------------------------------------------------------------


def test_every_rule_has_codes():
    for rule in range(1, 27):
        assert codes_for_rule(str(rule)), rule
    assert all(info.severity in ("error", "warning", "info") for info in RULES.values())


def test_superpod_passes_every_link_rule(superpod, facts):
    report = validate_fabric(superpod, facts)
    assert report.ok, [p.message for p in report.problems if p.severity == "error"]
    # Nothing about fit, media, reach, lanes, protocol or power budgets.
    for rule in [str(r) for r in range(1, 20)] + ["21", "22", "23", "24", "25"]:
        assert not rule_problems(report, rule, None), rule
    assert not rule_problems(report, "8", None)


# --- rules 1-5: cages, tops, form factors --------------------------------------------------


def test_rule_1_finned_module_on_a_flat_top_server_end(superpod, facts):
    links = server_links(superpod)
    put(superpod, "link_a_part", links[:2], "MMA4Z00-NS")
    report = validate_fabric(superpod, facts)
    [problem] = [p for p in rule_problems(report, "1") if p.code == "finned-plug-in-flat-cage"]
    assert problem.element_ids == [f"link:{links[0]}", f"link:{links[1]}"]
    assert "MMA4Z00-NS" in problem.message and "DGX-H100" in problem.message
    assert "MMA4Z00-NS-FLT" in problem.suggestion and "980-9I51A-00NS00" in problem.suggestion
    assert "flat-top twin-port" in problem.suggestion


def test_rule_1_passes_with_the_flat_top_server_module(superpod, facts):
    put(superpod, "link_a_part", server_links(superpod), "980-9I51A-00NS00")
    assert not rule_problems(validate_fabric(superpod, facts), "1", None)


def test_rule_2_flat_top_module_in_a_finned_switch_cage(superpod, facts):
    put(superpod, "link_b_part", server_links(superpod)[:4], "980-9I51A-00NS00")
    report = validate_fabric(superpod, facts)
    assert "flat-plug-in-finned-cage" in {p.code for p in rule_problems(report, "2")}
    assert not rule_problems(report, "3")  # the server end is right: not a swap


def test_rule_2_passes(superpod, facts):
    assert not rule_problems(validate_fabric(superpod, facts), "2", None)


def test_rule_3_swapped_modules(superpod, facts):
    links = server_links(superpod)[:2]
    put(superpod, "link_a_part", links, "MMA4Z00-NS")
    put(superpod, "link_b_part", links, "980-9I51A-00NS00")
    report = validate_fabric(superpod, facts)
    [problem] = rule_problems(report, "3")
    assert problem.code == "modules-swapped" and "swap them" in problem.suggestion
    assert not rule_problems(report, "1") and not rule_problems(report, "2")


def test_rule_3_ihs_and_rhs_versions_interoperate(superpod, facts):
    # Finned MMA4Z00-NS at the switch, flat-top 980-9I51A-00NS00 at the server: no problem.
    links = server_links(superpod)
    tops = {facts.parts[superpod.parts[i]]["top"] for i in superpod.link_a_part[links]}
    tops |= {facts.parts[superpod.parts[i]]["top"] for i in superpod.link_b_part[links]}
    assert tops == {"ihs", "rhs"}
    report = validate_fabric(superpod, facts)
    assert not [p for p in report.problems if p.rule in ("1", "2", "3")]


def test_rule_4_single_port_module_in_a_twin_port_switch_cage(superpod, facts):
    put(superpod, "link_b_part", server_links(superpod)[:2], "MMA4Z00-NS400")
    found = {p.code for p in rule_problems(validate_fabric(superpod, facts), "4")}
    assert found == {"single-port-module-in-twin-cage", "host-module-in-switch"}


def test_rule_4_passes(superpod, facts):
    assert not rule_problems(validate_fabric(superpod, facts), "4", None)


def test_rule_5_osfp_module_in_a_qsfp112_host(built, facts):
    fabric = built(CLOS)
    links = server_links(fabric)
    assert fabric.parts[fabric.link_a_part[links[0]]] == "MMA1Z00-NS400"
    put(fabric, "link_a_part", links, "MMA4Z00-NS400")
    report = validate_fabric(fabric, facts)
    [problem] = [p for p in rule_problems(report, "5") if p.code == "form-factor-mismatch"]
    assert "XE9680" in problem.message and "MMA1Z00-NS400" in problem.suggestion


def test_rule_5_passes_with_a_qsfp112_module(built, facts):
    assert not rule_problems(validate_fabric(built(CLOS), facts), "5", None)


# --- rules 6-8: twin-port pairing, splitters, both ports alike -------------------------------


def smf_gb200(built):
    def price_of(slug):
        return 1.0 if slug.startswith(("MMS4X00-NS", "MFP7E30")) else 100.0

    fabric = built({**GB200, "name": "gb200-smf"}, price_of=price_of)
    down = server_links(fabric)
    assert fabric.parts[fabric.link_a_part[down[0]]] == "MMS4X00-NS400"
    return fabric


def test_rule_6_twin_port_port_fed_to_an_8_lane_module(built, facts):
    fabric = smf_gb200(built)
    dr8 = {
        "slug": "TEST-OSFP-800G-DR8-RHS",
        "category": "transceiver",
        "form_factor": "OSFP",
        "top": "rhs",
        "ports_per_module": 1,
        "speed_gbps": 800,
        "lanes": 8,
        "lane_rate_gbps": 100,
        "pmd": "DR8",
        "media": "smf",
        "connector": "mpo16-apc",
        "connector_count": 1,
        "reach_m": 500,
        "power_max_w": 16,
        "side": "host",
    }
    put(fabric, "link_a_part", server_links(fabric), dr8["slug"])
    report = validate_fabric(fabric, with_parts(facts, dr8))
    [problem] = rule_problems(report, "6")
    assert problem.code == "twin-port-pairing" and "MMS4X00-NS400" in problem.suggestion
    assert "twin-port-vs-single-phy" in codes(report)  # rule 23 as well


def test_rule_6_twin_port_to_two_dr4_modules_passes(built, facts):
    fabric = smf_gb200(built)
    report = validate_fabric(fabric, facts)
    assert not rule_problems(report, "6", None) and report.ok


def test_rule_7_splitter_fiber_on_400g_links(superpod, facts):
    put(superpod, "link_cable_part", server_links(superpod), "MFP7E20-Nxxx")
    report = validate_fabric(superpod, facts)
    [problem] = rule_problems(report, "7")
    assert problem.code == "splitter-leg-speed" and "MFP7E10-Nxxx" in problem.suggestion


def test_rule_7_splitter_gives_4_x_200g(facts):
    # QM9700 cage at 4 x 200G (NDR200), 1:2 MMF splitters to single-port flat-top modules.
    fabric = mini(
        facts,
        "GB200-NVL72",
        "QM9700",
        speed=200,
        links=4,
        leaf_ppc=4,
        media=("MMA4Z00-NS400", "MMA4Z00-NS", "MFP7E20-Nxxx"),
    )
    fabric.link_cable = np.array([0, 0, 1, 1], dtype=np.int32)
    report = validate_fabric(fabric, facts)
    assert not rule_problems(report, "7", None)
    assert not rule_problems(report, "8", None) and not rule_problems(report, "21")


def test_rule_8_twin_port_module_with_two_fiber_types(superpod, facts):
    links = server_links(superpod)
    module = superpod.link_a_module[links[0]]
    pair = links[superpod.link_a_module[links] == module]
    assert pair.size == 2
    put(superpod, "link_cable_part", pair[:1], "MFP7E20-Nxxx")
    report = validate_fabric(superpod, facts)
    [problem] = rule_problems(report, "8")
    assert problem.code == "twin-port-mixed-fibers"
    assert set(problem.element_ids) >= {f"link:{pair[0]}", f"link:{pair[1]}"}


def test_rule_8_other_fiber_part_and_unequal_lengths_warn(superpod, facts):
    links = server_links(superpod)
    pair = links[superpod.link_a_module[links] == superpod.link_a_module[links[0]]]
    put(superpod, "link_cable_part", pair[:1], "FS-MTP12-MTP12-OM4")
    superpod.link_length_m[pair[1]] = 25.0
    superpod.link_cable_length_m[pair[1]] = 25.0
    found = {p.code for p in rule_problems(validate_fabric(superpod, facts), "8", "warning")}
    assert found == {"twin-port-fiber-parts-differ", "twin-port-length-skew"}


def test_rule_8_passes(superpod, facts):
    """Nothing, not even on the UFM cages, where two part numbers of one construction (both
    multimode straight fibres) sit side by side (issue 33 item 5: the UFM -> leaf fibre is the
    fabric's own)."""
    report = validate_fabric(superpod, facts)
    assert ufm_cage_ids(superpod)
    cages = {superpod.link_cable_part[int(i.split(":")[1])] for i in ufm_cage_ids(superpod)}
    assert len(cages) == 2  # two part numbers in those cages
    assert not rule_problems(report, "8", None)


# --- rules 9-12: media, connectors, reach ---------------------------------------------------


def test_rule_9_smf_module_against_mmf(superpod, facts):
    put(superpod, "link_b_part", server_links(superpod), "MMS4X00-NS")
    found = {p.code for p in rule_problems(validate_fabric(superpod, facts), "9")}
    assert {"media-mismatch", "pmd-mismatch", "fiber-media-mismatch"} <= found


def test_rule_9_wavelength(superpod, facts):
    odd = variant(facts, "980-9I51A-00NS00", "TEST-2xSR4-910NM", wavelength_nm=910)
    put(superpod, "link_a_part", server_links(superpod), odd["slug"])
    report = validate_fabric(superpod, with_parts(facts, odd))
    assert {p.code for p in rule_problems(report, "9")} == {"wavelength-mismatch"}


def test_rule_9_passes(superpod, facts):
    assert not rule_problems(validate_fabric(superpod, facts), "9", None)


def test_rule_10_apc_against_upc(superpod, facts):
    upc = variant(facts, "980-9I51A-00NS00", "TEST-2xSR4-UPC", connector="mpo12-upc")
    put(superpod, "link_a_part", server_links(superpod), upc["slug"])
    report = validate_fabric(superpod, with_parts(facts, upc))
    assert {p.code for p in rule_problems(report, "10")} == {"polish-mismatch"}
    assert not rule_problems(report, "24")


def test_rule_10_passes(superpod, facts):
    assert not rule_problems(validate_fabric(superpod, facts), "10", None)


def test_rule_11_mmf_link_longer_than_50_m(superpod, facts):
    link = int(server_links(superpod)[5])
    superpod.link_length_m[link] = 62.0
    superpod.link_cable_length_m[link] = 62.0
    report = validate_fabric(superpod, facts)
    [problem] = rule_problems(report, "11")
    assert problem.code == "reach-exceeded" and problem.element_ids == [f"link:{link}"]
    assert "50 m" in problem.message and "62 m" in problem.example
    assert problem.suggestion  # SMF optics that reach


def test_rule_11_smf_splitter_capped_at_50_m(facts):
    fabric = mini(
        facts,
        "GB200-NVL72",
        "QM9700",
        speed=200,
        links=4,
        leaf_ppc=4,
        media=("MMS4X00-NS400", "MMS4X00-NS", "MFP7E40-Nxxx"),
        length=60.0,
    )
    fabric.link_cable = np.array([0, 0, 1, 1], dtype=np.int32)
    [problem] = rule_problems(validate_fabric(fabric, facts), "11")
    assert "50 m" in problem.message and "splitter" in problem.message


def test_rule_11_passes(superpod, facts):
    assert not rule_problems(validate_fabric(superpod, facts), "11", None)


VR8 = {
    "slug": "TEST-800G-VR8",
    "category": "transceiver",
    "form_factor": "OSFP",
    "top": "ihs",
    "ports_per_module": 1,
    "speed_gbps": 800,
    "port_speed_gbps": 800,
    "lanes": 8,
    "lane_rate_gbps": 100,
    "pmd": "VR8",
    "protocols": ["ethernet"],
    "media": "mmf",
    "connector": "mpo16-apc",
    "connector_count": 1,
    "power_max_w": 14,
    "side": "switch",
}
MPO16_FIBER = {
    "slug": "TEST-MPO16-OM4",
    "category": "fiber",
    "fiber_type": "mmf",
    "topology": "straight",
    "connector_a": "mpo16-apc",
    "connector_b": "mpo16-apc",
}


@pytest.mark.parametrize(("length", "fails"), [(60.0, True), (40.0, False)])
def test_rule_12_ieee_reach_class(facts, length, fails):
    fabric = two_switches(
        facts, "SN5600", "SN5600", speed=800, ppc=1, media=(VR8["slug"], VR8["slug"], None)
    )
    put(fabric, "link_cable_part", slice(None), MPO16_FIBER["slug"])
    fabric.link_length_m[:] = length
    fabric.link_cable_length_m[:] = length
    report = validate_fabric(fabric, with_parts(facts, VR8, MPO16_FIBER))
    found = rule_problems(report, "12")
    assert bool(found) == fails
    if fails:
        assert "IEEE VR8" in found[0].message and found[0].code == "ieee-reach-exceeded"
    assert report.ok != fails


# --- rules 13-16: lanes, host cages, XDR, copper -----------------------------------------------


def test_rules_13_and_22_qsfp112_module_in_a_50g_lane_sn5400_cage(facts):
    fabric = mini(
        facts,
        "XE9680",
        "SN5400",
        speed=400,
        media=("MMA1Z00-NS400", "MMA1Z00-NS400", "MFP7E10-Nxxx"),
    )
    report = validate_fabric(fabric, facts)
    assert "lane-rate-mismatch" in {p.code for p in rule_problems(report, "13")}
    assert "lane-structure-mismatch" in {p.code for p in rule_problems(report, "22")}
    assert "host-module-in-switch" in codes(report)


def test_rule_13_passes(superpod, facts):
    assert not rule_problems(validate_fabric(superpod, facts), "13", None)


def test_rule_14_qsfp_dd_module_in_a_qsfp112_host(built, facts):
    fabric = built(CLOS)
    put(fabric, "link_a_part", server_links(fabric), "FS-400G-QSFP-DD-DR4-Cisco")
    found = {p.code for p in rule_problems(validate_fabric(fabric, facts), "14")}
    assert found == {"qsfp-dd-in-qsfp-cage"}


def test_rule_14_qsfp112_host_cage_downshifts_to_qsfp56(built, facts):
    fabric = built(CLOS)
    qsfp56 = {
        "slug": "TEST-QSFP56-200G-SR4",
        "category": "transceiver",
        "form_factor": "QSFP56",
        "top": "none",
        "ports_per_module": 1,
        "speed_gbps": 200,
        "lanes": 4,
        "lane_rate_gbps": 50,
        "pmd": "SR4",
        "media": "mmf",
        "connector": "mpo12-apc",
        "power_max_w": 5,
        "side": "host",
    }
    put(fabric, "link_a_part", server_links(fabric), qsfp56["slug"])
    report = validate_fabric(fabric, with_parts(facts, qsfp56))
    assert not rule_problems(report, "14", None)
    assert rule_problems(report, "13")  # the peer still runs 100G lanes


def test_rule_15_multimode_on_an_xdr_link(built, facts):
    fabric = built(B300)
    put(fabric, "link_cable_part", server_links(fabric), "MFP7E10-Nxxx")
    report = validate_fabric(fabric, facts)
    [problem] = rule_problems(report, "15")
    assert problem.code == "xdr-multimode" and "MFP7E10-Nxxx" in problem.message


def test_rule_15_xdr_reuses_smf_fibers(built, facts):
    fabric = built(B300)
    assert {fabric.parts[i] for i in fabric.link_cable_part} == {"MFP7E30-Nxxx"}
    report = validate_fabric(fabric, facts)
    assert report.ok and not rule_problems(report, "15", None)


def test_rule_16_passive_dac_longer_than_its_reach(built, facts):
    fabric = built(GB200)
    links = server_links(fabric)
    assert facts.parts[fabric.parts[fabric.link_cable_part[links[0]]]]["cable_type"] == "dac"
    fabric.link_length_m[links[:3]] = 4.0
    report = validate_fabric(fabric, facts)
    [problem] = rule_problems(report, "16")
    assert problem.code == "copper-reach-exceeded" and problem.count == 3


def test_rule_16_passes(built, facts):
    report = validate_fabric(built(GB200), facts)
    assert report.ok and not rule_problems(report, "16", None)


# --- rules 17-20: protocol, NIC limits, power ----------------------------------------------


def test_rule_17_ethernet_only_optic_on_an_infiniband_switch(superpod, facts):
    put(superpod, "link_b_part", server_links(superpod), "MMA4Z00-NS-T")
    found = {p.code for p in rule_problems(validate_fabric(superpod, facts), "17")}
    assert found == {"protocol-mismatch", "optics-protocol-mismatch"}


def test_rule_17_ethernet_switch_above_infiniband_leaves(facts):
    fabric = two_switches(facts, "QM9700", "SN5600", speed=400, ppc=2, media=(None, None, None))
    found = {p.code for p in rule_problems(validate_fabric(fabric, facts), "17")}
    assert "device-protocol-mismatch" in found


def test_rule_17_passes(superpod, facts):
    assert not rule_problems(validate_fabric(superpod, facts), "17")


CX8_HOST = {
    "slug": "TEST-CX8-HOST",
    "category": "server",
    "gpus": 8,
    "compute_nic": "C8180",
    "compute_ports": [
        {
            "count": 8,
            "form_factor": "OSFP224",
            "top": "rhs",
            "ports_per_cage": 1,
            "port_speed_gbps": 800,
            "lanes_per_port": 4,
            "lane_rate_gbps": 200,
        }
    ],
}
ETH_XDR_SWITCH = {
    "slug": "TEST-ETH-800G",
    "category": "switch",
    "protocols": ["ethernet"],
    "cage_groups": [
        {
            "count": 64,
            "form_factor": "OSFP224",
            "top": "ihs",
            "ports_per_cage": 2,
            "port_speed_gbps": 800,
            "lanes_per_port": 4,
            "lane_rate_gbps": 200,
        }
    ],
}


@pytest.mark.parametrize(("leaf", "fails"), [("TEST-ETH-800G", True), ("Q3400-RA", False)])
def test_rule_18_connectx8_cannot_run_800gbe_on_one_port(facts, leaf, fails):
    facts = with_parts(facts, CX8_HOST, ETH_XDR_SWITCH)
    fabric = mini(facts, "TEST-CX8-HOST", leaf, speed=800, leaf_ppc=2)
    report = validate_fabric(fabric, facts)
    found = rule_problems(report, "18")
    assert bool(found) == fails
    if fails:
        assert "C8180" in found[0].message and "800GbE" in found[0].message
    assert "media-not-assigned" in codes(report, "info")


SN5600_19W = {
    "slug": "TEST-2xSR4-19W",
    "category": "transceiver",
    "form_factor": "OSFP",
    "top": "ihs",
    "ports_per_module": 2,
    "speed_gbps": 800,
    "port_speed_gbps": 400,
    "lanes": 8,
    "lane_rate_gbps": 100,
    "pmd": "2xSR4",
    "protocols": ["ethernet"],
    "media": "mmf",
    "connector": "mpo12-apc",
    "connector_count": 2,
    "reach_m": 50,
    "power_max_w": 19,
    "side": "switch",
    "breakouts": ["2x400G", "4x200G"],
}


@pytest.mark.parametrize(("module", "fails"), [("TEST-2xSR4-19W", True), ("MMA4Z00-NS-T", False)])
def test_rule_19_module_power_against_the_sn5600_18_w_cage(facts, module, fails):
    fabric = two_switches(
        facts, "SN5600", "SN5600", speed=400, ppc=2, media=(module, module, "MFP7E10-Nxxx")
    )
    report = validate_fabric(fabric, with_parts(facts, SN5600_19W))
    found = rule_problems(report, "19")
    assert bool(found) == fails
    if fails:
        assert found[0].code == "module-power-over-cage" and "18 W" in found[0].message
    assert report.ok != fails


def test_rule_19_unknown_power_in_a_budgeted_cage_warns(superpod, facts):
    nameless = variant(facts, "MMA4Z00-NS", "TEST-2xSR4-NOPOWER", power_max_w=None)
    put(superpod, "link_b_part", uplinks(superpod), nameless["slug"])
    report = validate_fabric(superpod, with_parts(facts, nameless))
    assert {p.code for p in rule_problems(report, "19", "warning")} == {"module-power-unknown"}


def test_rule_20_power_unknown_is_info(superpod, facts):
    report = validate_fabric(superpod, facts)
    [problem] = rule_problems(report, "20", None)
    assert problem.severity == "info" and "980-9I51A-00NS00" in problem.message
    assert report.power["unknown_modules"] == 508 and report.power["modules_w"] > 0


def test_rule_20_passes_with_known_power(built, facts):
    report = validate_fabric(built(CLOS), facts)
    assert not rule_problems(report, "20", None) and report.power["unknown_modules"] == 0


# --- rules 21-24: breakouts, lane structure, single PHY, connectors ---------------------------


def test_rule_21_breakout_not_listed_by_the_switch(facts):
    fabric = mini(facts, "DGX-B300", "QM9700", speed=800, leaf_ppc=2)
    [problem] = rule_problems(validate_fabric(fabric, facts), "21")
    assert problem.code == "breakout-not-listed" and "2x200G" in problem.message


def test_rule_21_listed_breakout_passes(facts):
    fabric = mini(facts, "GB200-NVL72", "QM9700", speed=200, links=4, leaf_ppc=4)
    assert not rule_problems(validate_fabric(fabric, facts), "21", None)


def test_rule_21_module_that_does_not_run_the_link_speed(superpod, facts):
    put(superpod, "link_b_part", uplinks(superpod), "MMS4X00-NM")
    put(superpod, "link_a_part", uplinks(superpod), "MMS4X00-NM")
    put(superpod, "link_cable_part", uplinks(superpod), "MFP7E30-Nxxx")
    superpod.link_speed_gbps[uplinks(superpod)] = 200
    report = validate_fabric(superpod, facts)
    assert "module-speed-unsupported" in {p.code for p in rule_problems(report, "21")}


def test_rule_21_straight_fiber_carries_the_two_200g_links_of_one_mpo(facts):
    # QM9700 to QM9700 at 200G (4 x 200G per twin-port cage): the twin-port SR8 module has two
    # MPO-12s of 4 lanes, so one straight fiber carries ports 0-1 and one ports 2-3 (NVIDIA
    # MMA4Z00-NS: 2 x 400G SR4 engines, 4 x 100G-PAM4 lanes per MPO), as the picker wires it.
    media = ("MMA4Z00-NS", "MMA4Z00-NS", "MFP7E10-Nxxx")
    fabric = two_switches(facts, "QM9700", "QM9700", speed=200, ppc=4, media=media, links=4)
    fabric.link_cable = np.array([0, 0, 1, 1], dtype=np.int32)
    assert "fiber-legs-exceeded" not in validate_fabric(fabric, facts).codes()
    # ports 1 and 2 sit on the two MPOs of the module: one fiber cannot carry both
    fabric.link_cable = np.array([0, 1, 1, 2], dtype=np.int32)
    [problem] = validate_fabric(fabric, facts).by_code("fiber-legs-exceeded")
    assert "MFP7E10-Nxxx" in problem.message
    # at 400G one MPO carries one link (two 400G links exceed its 400G)
    fabric = two_switches(facts, "QM9700", "QM9700", speed=400, ppc=2, media=media, links=2)
    fabric.link_cable = np.array([0, 0], dtype=np.int32)
    assert "fiber-legs-exceeded" in validate_fabric(fabric, facts).codes()


def test_rule_21_straight_fiber_to_two_servers(facts):
    # two servers' 200G links from one MPO of the leaf's module need a 1:2 splitter fiber
    fabric = mini(facts, "GB200-NVL72", "QM9700", speed=200, links=2, leaf_ppc=4)
    set_media(fabric, "MMA4Z00-NS400", "MMA4Z00-NS", "MFP7E10-Nxxx")
    fabric.link_a = np.array([0, 0], dtype=fabric.link_a.dtype)
    fabric.link_a_module = np.array([0, 1], dtype=np.int32)  # two server modules
    fabric.link_cable = np.array([0, 0], dtype=np.int32)
    assert "fiber-legs-exceeded" in validate_fabric(fabric, facts).codes()


def test_rule_22_host_lanes_against_switch_lanes(facts):
    host = {
        "slug": "TEST-QSFP112-HOST",
        "category": "server",
        "compute_ports": [
            {
                "count": 2,
                "form_factor": "QSFP112",
                "top": "none",
                "ports_per_cage": 1,
                "port_speed_gbps": 400,
                "lanes_per_port": 4,
                "lane_rate_gbps": 100,
            }
        ],
    }
    facts = with_parts(facts, host)
    report = validate_fabric(mini(facts, host["slug"], "SN5400", speed=400), facts)
    [problem] = rule_problems(report, "22")
    assert "8 x 50G" in problem.message and "4 x 100G" in problem.message
    passing = validate_fabric(mini(facts, host["slug"], "QFX5140", speed=400), facts)
    assert not rule_problems(passing, "22", None)


def test_rule_22_passes(superpod, facts):
    assert not rule_problems(validate_fabric(superpod, facts), "22", None)


DR8_MPO16 = {
    "slug": "TEST-800G-DR8-MPO16",
    "category": "transceiver",
    "form_factor": "OSFP",
    "top": "ihs",
    "ports_per_module": 1,
    "speed_gbps": 800,
    "lanes": 8,
    "lane_rate_gbps": 100,
    "pmd": "DR8",
    "protocols": ["infiniband", "ethernet"],
    "media": "smf",
    "connector": "mpo16-apc",
    "connector_count": 1,
    "reach_m": 500,
    "power_max_w": 16,
    "side": "switch",
}


@pytest.mark.parametrize(
    ("peer", "expected"),
    [
        ("TEST-800G-DR8-MPO16", "twin-port-vs-single-phy"),
        # its MPO-16 is inferred from IEEE 800GBASE-DR8 (issue 36): a known mismatch
        ("OSFP-800G-DR8-05", "twin-port-vs-single-phy"),
        ("TEST-800G-DR8-NO-CONNECTOR", "single-phy-unverified"),
        ("Fiberwdm-OSFP-800G-DR8-SM-MPO12-IB", None),
    ],
)
def test_rule_23_twin_port_against_a_single_800g_phy(facts, peer, expected):
    fabric = two_switches(
        facts, "QM9700", "QM9700", speed=400, ppc=2, media=("MMS4X00-NS", peer, "MFP7E30-Nxxx")
    )
    unstated = variant(
        facts,
        "OSFP-800G-DR8-05",
        "TEST-800G-DR8-NO-CONNECTOR",
        connector=None,
        connector_count=None,
    )
    report = validate_fabric(fabric, with_parts(facts, DR8_MPO16, unstated))
    found = {p.code for p in rule_problems(report, "23", None)}
    assert found == ({expected} if expected else set())


def test_rule_24_mpo_against_lc(superpod, facts):
    lc = variant(facts, "980-9I51A-00NS00", "TEST-2xSR4-LC", connector="lc-duplex")
    put(superpod, "link_a_part", server_links(superpod), lc["slug"])
    report = validate_fabric(superpod, with_parts(facts, lc))
    assert {p.code for p in rule_problems(report, "24")} == {"connector-mismatch"}
    assert not rule_problems(report, "10")


def test_rule_24_passes(superpod, facts):
    assert not rule_problems(validate_fabric(superpod, facts), "24", None)


# --- rules 25-26: LPO host, host FEC -----------------------------------------------------------


def lpo_fabric(facts):
    media = ("FS-800G-OSFP-DR8-LPO", "FS-800G-OSFP-DR8-LPO", "FS-OS2-MTP12-trunk-8F")
    return two_switches(facts, "SN5600", "SN5600", speed=800, ppc=1, media=media, links=1)


@pytest.mark.parametrize(
    ("stated", "expected"),
    [(None, ("lpo-host-unverified", "warning")), (False, ("lpo-host-unsupported", "error"))],
)
def test_rule_25_lpo_needs_a_validated_host(facts, stated, expected):
    sn5600 = dict(facts.parts["SN5600"])
    if stated is not None:
        sn5600["lpo_validated"] = stated
    facts = with_parts(facts, sn5600)
    found = {
        (p.code, p.severity)
        for p in rule_problems(validate_fabric(lpo_fabric(facts), facts), "25", None)
    }
    assert found == {expected}


def test_rule_25_validated_lpo_host_passes(facts):
    facts = with_parts(facts, {**facts.parts["SN5600"], "lpo_validated": True})
    assert not rule_problems(validate_fabric(lpo_fabric(facts), facts), "25", None)


def test_rule_26_host_fec_unstated_is_info(superpod, facts):
    found = rule_problems(validate_fabric(superpod, facts), "26", None)
    assert found and {p.severity for p in found} == {"info"}


@pytest.mark.parametrize(
    ("server_fec", "expected"),
    [(["RS(528,514)"], "error"), (None, "warning"), (["RS(544,514)"], None)],
)
def test_rule_26_host_fec_modes(superpod, facts, server_fec, expected):
    qm = {**facts.parts["QM9700"], "fec_modes": ["RS(544,514)"]}
    dgx = {**facts.parts["DGX-H100"]}
    if server_fec:
        dgx["fec_modes"] = server_fec
    report = validate_fabric(superpod, with_parts(facts, qm, dgx))
    severities = {p.severity for p in rule_problems(report, "26", None)}
    assert severities == ({expected} if expected else set())


# --- fabric checks -------------------------------------------------------------------------------


def small_clos(facts, leaf_spine, *, servers=2, leaves=2, spines=2):
    """Servers s (1 port each) on leaf s % leaves; leaf-spine links as (leaf, spine) pairs."""
    builder = FabricBuilder()
    s = builder.add_nodes(
        [f"srv-{i + 1}" for i in range(servers)],
        role="server",
        model="GB200-NVL72",
        ports=1,
        ports_per_cage=1,
    )
    lv = builder.add_nodes(
        [f"leaf-{i + 1}" for i in range(leaves)],
        role="leaf",
        model="QM9700",
        plane=0,
        group=0,
        ports=64,
        ports_per_cage=2,
    )
    sp = builder.add_nodes(
        [f"spine-{i + 1}" for i in range(spines)],
        role="spine",
        model="QM9700",
        plane=0,
        ports=64,
        ports_per_cage=2,
    )
    idx = np.arange(servers)
    builder.add_links(
        s,
        np.zeros(servers, int),
        lv[idx % leaves],
        idx // leaves,
        tier="server-leaf",
        plane=0,
        speed_gbps=400,
    )
    pairs = np.asarray(leaf_spine)
    used_a = np.zeros(leaves, int)
    used_b = np.zeros(spines, int)
    a_port, b_port = [], []
    for leaf, spine in pairs:
        a_port.append(32 + used_a[leaf])
        b_port.append(used_b[spine])
        used_a[leaf] += 1
        used_b[spine] += 1
    builder.add_links(
        lv[pairs[:, 0]],
        a_port,
        sp[pairs[:, 1]],
        b_port,
        tier="leaf-spine",
        plane=0,
        speed_gbps=400,
    )
    return builder.build({"topology": "clos", "planes": 1, "tiers": 2})


def fabric_codes(fabric, facts, severity=None):
    return {
        p.code
        for p in validate_fabric(fabric, facts).problems
        if p.rule == "fabric" and severity in (None, p.severity)
    }


FULL_MESH = [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_small_full_mesh_is_clean(facts):
    found = fabric_codes(small_clos(facts, FULL_MESH), facts)
    assert found == {"media-not-assigned"}


def test_rail_mismatch(superpod, facts):
    links = server_links(superpod)
    first, second = int(links[0]), int(links[1])  # rail 1 and rail 2 of one server
    superpod.link_b[[first, second]] = superpod.link_b[[second, first]]
    superpod.link_b_port[[first, second]] = superpod.link_b_port[[second, first]]
    report = validate_fabric(superpod, facts)
    [problem] = report.by_code("rail-mismatch")
    assert problem.severity == "error"
    assert {f"link:{first}", f"link:{second}", "node:gpu00001"} <= set(problem.element_ids)
    assert "leaf-su001-r1" in problem.suggestion


def test_rail_alignment_passes(superpod, facts):
    assert not validate_fabric(superpod, facts).by_code("rail-mismatch")


def test_oversubscription_above_design_and_no_uplinks(superpod, facts):
    up = uplinks(superpod)
    leaf = superpod.link_a[up[0]]
    drop_links(superpod, up[:1])
    report = validate_fabric(superpod, facts)
    [problem] = report.by_code("oversubscription-above-design")
    assert problem.element_ids == [f"node:{superpod.node_name[leaf]}"] and "1.03" in problem.message
    drop_links(
        superpod,
        np.flatnonzero(superpod.link_a == leaf)[
            superpod.link_tier[superpod.link_a == leaf] == TIER["leaf-spine"]
        ],
    )
    assert validate_fabric(superpod, facts).by_code("leaf-no-uplinks")


def test_oversubscription_matches_design(superpod, facts, built):
    assert not fabric_codes(superpod, facts) & {"oversubscription-above-design", "leaf-no-uplinks"}
    clos = built(CLOS)
    assert clos.info["oversubscription"]["leaf"] == 3
    assert "oversubscription-above-design" not in fabric_codes(clos, facts)


def test_ecmp_unbalanced_and_incomplete(superpod, facts):
    up = uplinks(superpod)
    leaves = superpod.link_a[up]
    first, second = np.unique(leaves)[:2]
    to_a = up[(leaves == first)]
    to_b = up[(leaves == second)]
    x = superpod.link_b[to_a[0]]
    y = next(s for s in superpod.link_b[to_b] if s != x)
    mine = to_a[superpod.link_b[to_a] == x]  # both links of leaf 1 to spine x
    theirs = to_b[superpod.link_b[to_b] == y]  # both links of leaf 2 to spine y
    for i, j in zip(mine, theirs, strict=True):
        superpod.link_b[[i, j]] = superpod.link_b[[j, i]]
        superpod.link_b_port[[i, j]] = superpod.link_b_port[[j, i]]
    found = fabric_codes(superpod, facts)
    assert {"ecmp-unbalanced", "ecmp-incomplete"} <= found
    assert "port-used-twice" not in found


def test_ecmp_balance_passes(superpod, facts):
    assert not fabric_codes(superpod, facts) & {"ecmp-unbalanced", "ecmp-incomplete"}


def test_port_used_twice_out_of_range_and_too_many(superpod, facts):
    up = uplinks(superpod)
    superpod.link_b[up[1]] = superpod.link_b[up[0]]
    superpod.link_b_port[up[1]] = superpod.link_b_port[up[0]]
    superpod.link_b_port[up[5]] = 999
    report = validate_fabric(superpod, facts)
    [twice] = report.by_code("port-used-twice")
    assert {f"link:{up[0]}", f"link:{up[1]}"} <= set(twice.element_ids)
    [beyond] = report.by_code("port-out-of-range")
    assert f"link:{up[5]}" in beyond.element_ids
    leaf = superpod.link_a[up[0]]
    superpod.node_ports[leaf] = 10
    assert "too-many-links" in fabric_codes(superpod, facts)


def test_ports_exceed_the_model(superpod, facts):
    leaf = superpod.nodes_with_role("leaf")[0]
    superpod.node_ports[leaf] = 100
    [problem] = validate_fabric(superpod, facts).by_code("ports-exceed-model")
    assert "QM9700 has 64 ports at 400G" in problem.message


def test_port_checks_pass(superpod, facts):
    found = fabric_codes(superpod, facts)
    assert not found & {
        "port-used-twice",
        "port-out-of-range",
        "too-many-links",
        "ports-exceed-model",
        "dangling-link",
        "link-roles-mismatch",
    }


def test_dangling_link_and_roles(superpod, facts):
    up = uplinks(superpod)
    superpod.link_b[up[0]] = superpod.node_count + 5
    superpod.link_tier[up[1]] = TIER["server-leaf"]
    found = fabric_codes(superpod, facts)
    assert {"dangling-link", "link-roles-mismatch"} <= found


def test_isolated_node(facts):
    fabric = small_clos(facts, FULL_MESH, spines=3)
    assert "isolated-node" in fabric_codes(fabric, facts, "warning")


def test_single_points_of_failure(facts):
    fabric = small_clos(facts, [(0, 0), (0, 0), (1, 0), (1, 0)], spines=1)
    found = fabric_codes(fabric, facts, "warning")
    assert {"spof-single-uplink", "spof-single-spine"} <= found
    server_on_one_leaf = mini(facts, "GB200-NVL72", "QM9700", speed=400, leaf_ppc=2)
    assert "spof-server-single-leaf" in fabric_codes(server_on_one_leaf, facts, "warning")


def test_no_single_points_of_failure(superpod, facts):
    # the layout spreads the 16 spines over two network racks (spof-plane-rack)
    codes = {c for c in fabric_codes(superpod, facts) if c.startswith("spof")}
    assert codes == set()


def test_gpus_disconnected_and_unconnected_ports(facts):
    fabric = small_clos(facts, [(0, 0), (0, 0), (1, 1), (1, 1)])
    report = validate_fabric(fabric, facts)
    [problem] = report.by_code("gpus-disconnected")
    assert problem.element_ids == ["node:srv-2"]
    fabric.node_ports[0] = 2
    assert "server-ports-unconnected" in fabric_codes(fabric, facts, "error")


def test_all_gpus_reachable(superpod, facts):
    assert not fabric_codes(superpod, facts) & {"gpus-disconnected", "server-ports-unconnected"}


MEDIA_CHECKS = {
    "cable-shorter-than-run",
    "fiber-legs-exceeded",
    "module-part-conflict",
    "media-missing",
    "part-not-in-catalog",
}


def test_media_bookkeeping_checks(superpod, facts):
    links = server_links(superpod)
    superpod.link_cable_length_m[links[0]] = 1.0
    superpod.link_cable[links[3]] = superpod.link_cable[links[2]]
    put(superpod, "link_a_part", links[4:5], "MMA4Z00-NS-FLT")  # one port of a module
    superpod.link_a_part[links[6]] = superpod.link_b_part[links[6]] = -1
    superpod.link_cable_part[links[6]] = -1
    put(superpod, "link_b_part", links[8:10], "NOT-A-PART")
    assert validate_fabric(superpod, facts).codes() >= MEDIA_CHECKS


def test_media_bookkeeping_passes(superpod, facts):
    assert not validate_fabric(superpod, facts).codes() & MEDIA_CHECKS


def test_problems_are_grouped_and_capped(built, facts):
    fabric = built(
        {
            **SUPERPOD,
            "name": "16su",
            "servers": 512,
            "tiers": 3,
            "switches": {"leaf": "QM9700", "spine": "QM9700", "core": "QM9700"},
            "reserved_leaf_ports": 0,
        }
    )
    put(fabric, "link_b_part", server_links(fabric), "MMA4Z00-NS-T")
    report = validate_fabric(fabric, facts)
    [problem] = report.by_code("protocol-mismatch")
    assert problem.count == 4096 and len(problem.element_ids) == MAX_IDS
    data = report.as_dict()
    assert data["summary"]["counts_by_code"]["protocol-mismatch"] == 4096
    errors = [p for p in report.problems if p.severity == "error"]
    assert data["summary"]["counts_by_severity"]["error"] == len(errors)
    assert "protocol-mismatch" in data["summary"]["rules_run"]
