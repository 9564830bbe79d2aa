"""Per-part rules, provenance parsing and link-compatibility rules, each failing and passing."""

import pytest

from inventory.library.compat import (
    Cage,
    Fiber,
    Optic,
    Plug,
    fiber_fits_optic,
    optics_interoperate,
    plug_fits_cage,
)
from inventory.library.files import CatalogFileError, part_from_entry
from inventory.library.provenance import ProvenanceError, split_provenance
from inventory.library.rules import check_part


def codes(violations, severity="error"):
    return {v.code for v in violations if v.severity == severity}


# --- per-part rules -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("category", "spec", "code"),
    [
        (
            "cable",
            {"topology": "1:2", "speed_gbps": 800, "leg_speed_gbps": 200},
            "breakout-speed-mismatch",
        ),
        ("cable", {"topology": "1:4", "legs": 2}, "legs-topology-mismatch"),
        ("cable", {"lengths_m": [1, 5], "max_length_m": 3}, "length-above-max"),
        ("cable", {"lengths_m": [0]}, "lengths-invalid"),
        ("switch", {"power_typical_w": 900, "power_max_w": 800}, "power-typical-above-max"),
        ("nic", {"power_typical_w": -1}, "power-invalid"),
        ("transceiver", {"reach_m": 0}, "not-positive"),
        (
            "transceiver",
            {"lanes": 4, "lane_rate_gbps": 100, "speed_gbps": 800},
            "lanes-speed-mismatch",
        ),
        (
            "transceiver",
            {"ports_per_module": 2, "port_speed_gbps": 400, "speed_gbps": 400},
            "ports-speed-mismatch",
        ),
        (
            "transceiver",
            {
                "speed_gbps": 800,
                "port_speed_gbps": 400,
                "ports_per_module": 2,
                "breakouts": ["4x400G"],
            },
            "breakout-speed-mismatch",
        ),
        ("transceiver", {"media": "copper"}, "transceiver-media"),
        ("transceiver", {"power_max_w": 9, "power_reduced_w": 12}, "power-reduced-above-max"),
        (
            "switch",
            {"cage_groups": [{"count": 32, "port_speed_gbps": 400, "breakouts": ["2x400G"]}]},
            "breakout-speed-mismatch",
        ),
        ("switch", {"cage_groups": [{"count": 0}]}, "not-positive"),
        ("switch", {"cage_groups": [{"count": 1, "ports_per_cage": 3}]}, "ports-per-cage"),
        ("switch", {"cage_groups": [{"form_factor": "SFP+"}]}, "unknown-value"),
        ("switch", {"protocols": ["fibre-channel"]}, "unknown-value"),
        (
            "nic",
            {"max_speed_gbps": 400, "ports": [{"count": 1, "max_speed_gbps": 800}]},
            "speed-above-max",
        ),
        ("fiber", {"fiber_type": "mmf", "fiber_grade": "OS2"}, "fiber-grade-type"),
        ("rack", {"power_kw": 0}, "not-positive"),
    ],
)
def test_rule_fails(category, spec, code):
    assert code in codes(check_part(category, spec))


@pytest.mark.parametrize(
    ("category", "spec"),
    [
        (
            "cable",
            {
                "topology": "1:2",
                "legs": 2,
                "speed_gbps": 800,
                "leg_speed_gbps": 400,
                "lanes_per_leg": 4,
                "lane_rate_gbps": 100,
                "lengths_m": [1, 2],
                "max_length_m": 3,
            },
        ),
        (
            "switch",
            {
                "power_typical_w": 747,
                "power_max_w": 1720,
                "cage_groups": [
                    {
                        "count": 32,
                        "ports_per_cage": 2,
                        "port_speed_gbps": 400,
                        "lanes_per_port": 4,
                        "lane_rate_gbps": 100,
                        "breakouts": ["1x400G", "2x200G"],
                        "breakout_scope": "port",
                    }
                ],
            },
        ),
        # A switch port mode may run slower lanes: 4 x 25G on an 800G port is legal.
        (
            "switch",
            {"cage_groups": [{"count": 64, "port_speed_gbps": 800, "breakouts": ["4x25G"]}]},
        ),
        (
            "transceiver",
            {
                "speed_gbps": 800,
                "port_speed_gbps": 400,
                "ports_per_module": 2,
                "lanes": 8,
                "lane_rate_gbps": 100,
                "breakouts": ["2x400G", "4x200G"],
                "reach_m": 50,
                "power_max_w": 15,
            },
        ),
        ("fiber", {"fiber_type": "smf", "fiber_grade": "OS2", "lengths_m": [3, 10]}),
    ],
)
def test_rule_passes(category, spec):
    assert check_part(category, spec) == []


# --- provenance ---------------------------------------------------------------------------------


def test_provenance_records_every_value_and_overrides():
    entry = {
        "slug": "X",
        "sources": {
            "ds": {"url": "https://a", "grade": "datasheet"},
            "blog": {"url": "https://b", "grade": "secondary"},
        },
        "source": "ds",
        "rack_units": 1,
        "power_max_w": {
            "value": 2270,
            "source": "blog",
            "alternatives": [{"value": 2779, "source": "ds"}],
        },
        "cage_groups": [
            {"count": 2, "top": {"value": "ihs", "grade": "inferred", "note": "rule 1"}}
        ],
    }
    values, provenance = split_provenance(entry)
    assert values["power_max_w"] == 2270 and values["cage_groups"][0]["top"] == "ihs"
    assert provenance["rack_units"] == {"source": "ds", "grade": "datasheet"}
    assert provenance["power_max_w"]["alternatives"][0] == {
        "value": 2779,
        "source": "ds",
        "grade": "datasheet",
    }
    assert provenance["cage_groups.0.top"]["grade"] == "inferred"
    assert "cage_groups.0.count" not in provenance  # same as its parent: compacted


@pytest.mark.parametrize(
    "entry",
    [
        {"slug": "X", "sources": {}, "source": "ds", "rack_units": 1},
        {"slug": "X", "sources": {"ds": {"url": "u", "grade": "gossip"}}, "source": "ds"},
        {"slug": "X", "sources": {"ds": {"url": "u", "grade": "datasheet"}}, "rack_units": 1},
        {
            "slug": "X",
            "sources": {"ds": {"url": "u", "grade": "datasheet"}},
            "source": "ds",
            "rack_units": {"value": 1, "source": "missing"},
        },
    ],
)
def test_provenance_errors(entry):
    with pytest.raises(ProvenanceError):
        split_provenance(entry)


def test_unknown_field_is_named():
    entry = {
        "slug": "Y",
        "manufacturer": "x",
        "sources": {"s": {"url": "u", "grade": "datasheet"}},
        "source": "s",
        "warp_speed": 9,
    }
    with pytest.raises(CatalogFileError, match="unknown field.*warp_speed"):
        part_from_entry("switch", entry, "switches.yaml")


# --- link compatibility (rules of catalog-facts.md) ---------------------------------------------

QM9700 = Cage(
    "switch",
    "OSFP",
    "ihs",
    2,
    400,
    4,
    100,
    17,
    frozenset({"infiniband"}),
    breakouts=("1x400G", "2x200G"),
)
SN5600 = Cage(
    "switch",
    "OSFP",
    "ihs",
    1,
    800,
    8,
    100,
    18,
    frozenset({"ethernet"}),
    breakouts=("1x800G", "2x400G", "4x200G"),
)
SN5400 = Cage("switch", "QSFP-DD", "none", 1, 400, 8, 50, 12, frozenset({"ethernet"}))
CX7_OSFP = Cage("host", "OSFP", "rhs", 1, 400, 4, 100, None, frozenset({"infiniband", "ethernet"}))
BF3 = Cage(
    "host",
    "QSFP112",
    "none",
    1,
    400,
    4,
    100,
    None,
    frozenset({"ethernet", "infiniband"}),
    accepts=frozenset({"QSFP112"}),
)
CX8 = Cage(
    "host",
    "OSFP224",
    "rhs",
    1,
    800,
    4,
    200,
    None,
    frozenset({"infiniband", "ethernet"}),
    limits=(
        {
            "code": "no-single-port-speed",
            "protocol": "ethernet",
            "speed_gbps": 800,
            "message": "800GbE is not supported on a single port",
        },
    ),
)
DGX_H100 = Cage("host", "OSFP", "rhs", 2, 400, 4, 100)

TWIN_SR = Plug(
    "transceiver",
    "OSFP",
    "ihs",
    2,
    800,
    8,
    100,
    15,
    frozenset({"infiniband", "ethernet"}),
    "switch",
)
TWIN_SR_ETH = Plug(
    "transceiver", "OSFP", "ihs", 2, 800, 8, 100, 15, frozenset({"ethernet"}), "switch"
)
TWIN_SR_FLAT = Plug(
    "transceiver", "OSFP", "rhs", 2, 800, 8, 100, 15, frozenset({"infiniband", "ethernet"}), "host"
)
NIC_SR4 = Plug(
    "transceiver", "OSFP", "rhs", 1, 400, 4, 100, 9, frozenset({"infiniband", "ethernet"}), "host"
)
QSFP112_SR4 = Plug(
    "transceiver",
    "QSFP112",
    "none",
    1,
    400,
    4,
    100,
    9,
    frozenset({"infiniband", "ethernet"}),
    "host",
)
QSFP56_DAC_LEG = Plug("cable", "QSFP56", "none", 1, 200, 4, 50, 0.1, frozenset({"ethernet"}))
XDR_TWIN = Plug(
    "transceiver", "OSFP224", "ihs", 2, 1600, 8, 200, 33.5, frozenset({"infiniband"}), "switch"
)
HOT_TWIN = Plug("transceiver", "OSFP", "ihs", 2, 800, 8, 100, 17, frozenset({"ethernet"}), "switch")


@pytest.mark.parametrize(
    ("plug", "cage", "code"),
    [
        (TWIN_SR_FLAT, QM9700, "top-mismatch"),  # rule 1/2: flat-top in finned cage
        (TWIN_SR, DGX_H100, "top-mismatch"),  # finned plug in an RHS host cage
        (NIC_SR4, QM9700, "host-part-in-switch"),  # rule 4
        (NIC_SR4, DGX_H100, "port-count-mismatch"),  # single-port in a twin-port cage
        (TWIN_SR, CX7_OSFP, "switch-part-in-host"),
        (NIC_SR4, BF3, "form-factor-mismatch"),  # rule 5: BF-3 takes QSFP112 only
        (QSFP56_DAC_LEG, BF3, "form-factor-mismatch"),  # BF-3 limit overrides downshift
        (QSFP112_SR4, SN5400, "lane-rate-mismatch"),  # rule 22: 100G lanes vs 50G lanes
        (XDR_TWIN, QM9700, "form-factor-mismatch"),  # rule 13/15: XDR in an NDR cage
        (TWIN_SR_ETH, QM9700, "protocol-mismatch"),  # rule 17: -T part on InfiniBand
        (HOT_TWIN, QM9700, "protocol-mismatch"),
        (
            Plug(
                "transceiver", "OSFP", "ihs", 2, 800, 8, 100, 19, frozenset({"ethernet"}), "switch"
            ),
            SN5600,
            "module-power-over-cage",
        ),  # rule 19
        (
            Plug(
                "transceiver", "OSFP224", "rhs", 1, 800, 4, 200, 16, frozenset({"ethernet"}), "host"
            ),
            CX8,
            "nic-limit",
        ),  # rule 18
    ],
)
def test_plug_does_not_fit(plug, cage, code):
    assert code in codes(plug_fits_cage(plug, cage))


@pytest.mark.parametrize(
    ("plug", "cage"),
    [
        (TWIN_SR, QM9700),
        (TWIN_SR_ETH, SN5600),
        (TWIN_SR_FLAT, DGX_H100),
        (NIC_SR4, CX7_OSFP),
        (QSFP112_SR4, BF3),
        (
            Plug("cable", "QSFP56", "none", 1, 200, 4, 50),
            Cage("host", "QSFP112", "none", 1, 400, 4, 100),
        ),
        (
            Plug(
                "transceiver",
                "OSFP224",
                "rhs",
                1,
                800,
                4,
                200,
                16,
                frozenset({"infiniband"}),
                "host",
            ),
            CX8,
        ),
    ],
)
def test_plug_fits(plug, cage):
    assert codes(plug_fits_cage(plug, cage)) == set()


SR_TWIN = Optic("mmf", "2xSR4", 100, 400, ("2x400G", "4x200G"), "mpo12-apc", 850)
SR4 = Optic("mmf", "SR4", 100, 400, (), "mpo12-apc", 850)
DR4 = Optic("smf", "DR4", 100, 400, (), "mpo12-apc", 1310)
FR_TWIN = Optic("smf", "2xFR4", 100, 400, (), "lc-duplex", 1310)
SR8_MPO16 = Optic("mmf", "SR8", 50, 400, (), "mpo16-apc", 850)
HDR = Optic("mmf", "SR4", 50, 200, (), "mpo12-apc", 850)
SR4_UPC = Optic("mmf", "SR4", 100, 400, (), "mpo12-upc", 850)


@pytest.mark.parametrize(
    ("a", "b", "code"),
    [
        (SR_TWIN, DR4, "media-mismatch"),
        (SR_TWIN, DR4, "pmd-mismatch"),
        (DR4, FR_TWIN, "pmd-mismatch"),
        (DR4, FR_TWIN, "connector-mismatch"),
        (SR4, SR8_MPO16, "lane-rate-mismatch"),
        (SR4, SR8_MPO16, "connector-mismatch"),
        (SR_TWIN, HDR, "lane-rate-mismatch"),
        (SR4, SR4_UPC, "connector-mismatch"),
    ],
)
def test_optics_do_not_interoperate(a, b, code):
    assert code in codes(optics_interoperate(a, b))


def test_twin_port_sr_links_to_nic_sr4():
    assert codes(optics_interoperate(SR_TWIN, SR4)) == set()


def test_fiber_rules():
    om4 = Fiber("mmf", "mpo12-apc", "mpo12-apc", "OM4")
    assert codes(fiber_fits_optic(om4, SR4)) == set()
    assert "fiber-media-mismatch" in codes(fiber_fits_optic(om4, DR4))
    assert "connector-mismatch" in codes(fiber_fits_optic(om4, FR_TWIN))
    assert "fiber-grade-mismatch" in codes(
        fiber_fits_optic(
            Fiber("mmf", "mpo12-apc", "mpo12-apc", "OM3"),
            Optic("mmf", "SR4", 100, 400, (), "mpo12-apc", fiber_grades=("OM4",)),
        )
    )


def test_unknown_facts_are_warnings_not_errors():
    problems = plug_fits_cage(Plug("transceiver", None), QM9700)
    assert codes(problems) - {"port-count-mismatch"} == set()
    assert "form-factor-unknown" in codes(problems, "warning")
