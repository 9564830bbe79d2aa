"""Parts of the DGX SuperPOD H100 storage, in-band and OOB networks load with sourced facts."""

from pathlib import Path

import pytest

from inventory.library.compat import Cage, Plug, plug_fits_cage
from inventory.library.files import read_catalog_folder
from inventory.library.provenance import provenance_for

SEED = Path(__file__).resolve().parents[2] / "inventory" / "library" / "seed"


@pytest.fixture(scope="module")
def parts():
    return {p.slug: p for p in read_catalog_folder(SEED).parts}


def _grade(part, path):
    return (provenance_for(part.provenance, path) or {}).get("grade")


def test_ufm_appliance(parts):
    ufm = parts["UFM-Enterprise-Appliance-NDR"]
    assert ufm.category == "server" and ufm.spec["kind"] == "appliance"
    assert (ufm.spec["power_max_w"], ufm.spec["rack_units"]) == (689, 1)
    assert _grade(ufm, "power_max_w") == "secondary"
    port = ufm.spec["compute_ports"][0]
    assert (port["count"], port["form_factor"], port["top"]) == (2, "OSFP", "rhs")
    assert _grade(ufm, "compute_ports.0.count") == "inferred"  # port inventory not published


def test_management_node_and_pdus(parts):
    node = parts["SuperPOD-H100-BCM-node"]
    assert node.spec["kind"] == "management" and "rack_units" not in node.spec
    roles = {p["role"]: p for p in node.spec["other_ports"]}
    assert roles["storage"]["port_speed_gbps"] == 200 and roles["inband"]["port_speed_gbps"] == 100
    for slug in ("PX3-5878I2R-P1Q2R1A15D5", "PX3-5747V-V2"):
        pdu = parts[slug]
        assert pdu.spec["kind"] == "pdu" and pdu.identity["manufacturer"] == "raritan"
        assert pdu.spec["other_ports"][0]["role"] == "oob"
        assert "rack_units" not in pdu.spec and "power_max_w" not in pdu.spec  # not sourced


def _names(parts):
    return {a: p for p in parts.values() for a in [p.slug, *(p.identity.get("aliases") or [])]}


@pytest.mark.parametrize(
    "name, category, facts",
    [
        ("980-9I440-00H030", "cable", {"cable_type": "aoc", "max_length_m": 100}),
        ("980-9I13N-00C030", "cable", {"cable_type": "aoc", "speed_gbps": 100, "lengths_m": [30]}),
        ("980-9I54C-00V001", "cable", {"cable_type": "dac", "speed_gbps": 100, "lengths_m": [1]}),
        ("980-9I117-00H030", "cable", {"topology": "1:2", "leg_speed_gbps": 200}),
        ("Cat5e-Cat6-RJ45-patch-cord", "cable", {"speed_gbps": 1, "max_length_m": 100}),
        ("980-9I693-00NS00", "transceiver", {"form_factor": "QSFP112", "speed_gbps": 400}),
        ("980-9I17Q-00CM00", "transceiver", {"pmd": "CWDM4", "speed_gbps": 100, "media": "smf"}),
        ("980-9I71G-00J000", "transceiver", {"form_factor": "QSFP28"}),
        ("980-9I251-00IS00", "transceiver", {"form_factor": "SFP", "reach_m": 100}),
    ],
)
def test_table8_parts(parts, name, category, facts):
    part = _names(parts)[name]
    assert part.category == category
    assert {key: part.spec.get(key) for key in facts} == facts
    assert part.sources and all(s.get("url") or s.get("title") for s in part.sources.values())


def test_cat5e_cord_ends(parts):
    cord = parts["Cat5e-Cat6-RJ45-patch-cord"].spec
    assert cord["end_a_form_factor"] == cord["end_b_form_factor"] == "RJ45"
    assert _grade(parts["Cat5e-Cat6-RJ45-patch-cord"], "max_length_m") == "secondary"


def test_inband_and_oob_switch_ports(parts):
    sn4600c = parts["SN4600C"].spec["cage_groups"]
    data = [g for g in sn4600c if g.get("role", "data") == "data"]
    assert [(g["count"], g["form_factor"], g["port_speed_gbps"]) for g in data] == [
        (64, "QSFP28", 100)
    ]
    sn2201 = [g for g in parts["SN2201"].spec["cage_groups"] if g.get("role") == "data"]
    assert [(g["count"], g["form_factor"], g["port_speed_gbps"]) for g in sn2201] == [
        (48, "RJ45", 1),
        (4, "QSFP28", 100),
    ]
    assert _grade(parts["SN2201"], "cage_groups.0.count") == "datasheet"  # the RA's "48 RJ45 ports"


def test_rj45_ports_take_a_copper_cord_not_a_module():
    port = Cage("switch", "RJ45", port_speed_gbps=1)
    assert plug_fits_cage(Plug("cable", "RJ45", speed_gbps=1), port) == []
    module = Plug("transceiver", "SFP", speed_gbps=1)
    codes = {v.code for v in plug_fits_cage(module, port)}
    assert codes == {"rj45-no-module", "form-factor-mismatch"}
