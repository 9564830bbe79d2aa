"""Reading NetBox devicetype-library files (pure: no database)."""

from pathlib import Path

import pytest

from inventory.library.netbox import NetboxFileError, parse_devicetype
from inventory.library.netbox_types import map_interface_type
from inventory.library.provenance import provenance_for

DATA = Path(__file__).resolve().parents[1] / "data" / "netbox"
GOOD = DATA / "good"
QM9700 = GOOD / "device-types" / "Nvidia" / "QM9700.yaml"
SN5600 = GOOD / "device-types" / "Nvidia" / "SN5600.yaml"
NIC = GOOD / "module-types" / "Nvidia" / "MCX75310AAS-NEAT.yaml"


def parse(path: Path, **kwargs):
    return parse_devicetype(path.read_text(encoding="utf-8"), str(path), **kwargs)


def switch(interfaces: str, extra: str = "") -> str:
    return (
        "manufacturer: Acme\nmodel: X1\nslug: acme-x1\nu_height: 1\n"
        f"{extra}interfaces:\n{interfaces}"
    )


def test_twin_port_cages_and_the_missing_port_warning():
    result = parse(QM9700)
    record = result.record
    assert record.category == "switch"
    assert record.slug == "QM9700"
    data, mgmt = record.spec["cage_groups"]
    assert data == {
        "role": "data",
        "count": 32,
        "form_factor": "OSFP",
        "top": "ihs",
        "ports_per_cage": 2,
        "port_speed_gbps": 400,
    }
    assert mgmt == {
        "role": "mgmt",
        "count": 1,
        "form_factor": "RJ45",
        "ports_per_cage": 1,
        "port_speed_gbps": 1,
    }
    gap = [w for w in result.warnings if "only one port" in w]
    assert len(gap) == 1 and "P22" in gap[0] and "P23" in gap[0]
    assert "P22.0" in gap[0] and "P23.1" in gap[0]


def test_identity_aliases_and_provenance():
    record = parse(QM9700).record
    assert record.identity["manufacturer"] == "Nvidia"
    assert record.identity["part_number"] == "MQM9700-NS2F"
    assert record.identity["aliases"] == ["nvidia-qm9700"]
    assert record.sources == {
        "netbox": {
            "url": "https://github.com/netbox-community/devicetype-library/blob/master/"
            "device-types/Nvidia/QM9700.yaml",
            "grade": "secondary",
            "title": "NetBox devicetype-library file device-types/Nvidia/QM9700.yaml",
        }
    }
    for path in ("rack_units", "weight_kg", "airflow", "psu_count", "cage_groups.0.count"):
        assert provenance_for(record.provenance, path)["source"] == "netbox", path
        assert provenance_for(record.provenance, path)["grade"] == "secondary", path
    # The top is not in NetBox's type: inferred, and said so.
    top = provenance_for(record.provenance, "cage_groups.0.top")
    assert top["grade"] == "inferred" and "finned" in top["note"]


def test_psu_maximum_draw_is_a_psu_rating_never_system_power():
    result = parse(QM9700)
    spec = result.record.spec
    assert spec["psu_count"] == 2
    assert spec["psu_rating_w"] == 1100
    assert "power_max_w" not in spec and "power_typical_w" not in spec
    note = result.record.provenance["psu_rating_w"]["note"]
    assert "not the switch's power draw" in note
    assert any("not used as system power" in w for w in result.warnings)


def test_800g_osfp_switch_with_mgmt_port_weight_in_pounds():
    result = parse(SN5600)
    spec = result.record.spec
    assert spec["rack_units"] == 2
    assert spec["airflow"] == "front-to-rear"
    assert spec["weight_kg"] == pytest.approx(51.8 * 0.45359237, abs=0.001)
    assert "converted from 51.8 lb" in result.record.provenance["weight_kg"]["note"]
    groups = spec["cage_groups"]
    assert [(g["role"], g["count"], g["form_factor"], g["port_speed_gbps"]) for g in groups] == [
        ("data", 64, "OSFP", 800),
        ("data", 1, "SFP28", 25),
        ("mgmt", 1, "RJ45", 1),
    ]
    assert groups[0]["ports_per_cage"] == 1
    assert "top" not in groups[1]
    assert "psu_count" not in spec  # PSUs are module bays in this file
    assert any("module-bays" in w for w in result.warnings)
    assert any("protocols not stated" in w for w in result.warnings)
    assert "protocols" not in spec


@pytest.mark.parametrize(
    ("unit", "weight", "kg"),
    [("kg", 2, 2), ("g", 1500, 1.5), ("lb", 10, 4.536), ("oz", 16, 0.454)],
)
def test_weight_units_convert_to_kg(unit, weight, kg):
    text = switch(
        "  - {name: swp1, type: 100gbase-x-qsfp28}\n", f"weight: {weight}\nweight_unit: {unit}\n"
    )
    assert parse_devicetype(text, "x.yaml").record.spec["weight_kg"] == pytest.approx(kg)


def test_module_type_is_a_nic_with_flat_top_osfp():
    result = parse(NIC)
    record = result.record
    assert record.category == "nic"
    assert record.slug == "ConnectX-7-MCX75310AAS-NEAT"
    assert record.identity["part_number"] == "MCX75310AAS-NEAT"
    assert record.spec["ports"] == [
        {"count": 1, "form_factor": "OSFP", "top": "rhs", "max_speed_gbps": 400}
    ]
    assert record.spec["max_speed_gbps"] == 400
    assert "protocols" not in record.spec
    assert any("read as a NIC" in w for w in result.warnings)
    assert "module-types/Nvidia/MCX75310AAS-NEAT.yaml" in record.sources["netbox"]["url"]


def test_category_argument_wins_over_the_heuristic():
    text = switch(
        "  - {name: p1, type: 200gbase-x-qsfp56}\n  - {name: p2, type: 200gbase-x-qsfp56}\n"
    )
    record = parse_devicetype(text, "x.yaml", category="nic").record
    assert record.category == "nic"
    assert record.spec["ports"] == [{"count": 2, "form_factor": "QSFP56", "max_speed_gbps": 200}]
    with pytest.raises(NetboxFileError, match="category"):
        parse_devicetype(text, "x.yaml", category="router")


@pytest.mark.parametrize(
    ("netbox_type", "form_factor", "speed", "top"),
    [
        ("400gbase-x-osfp", "OSFP", 400, None),
        ("400gbase-x-osfp-rhs", "OSFP", 400, "rhs"),
        ("800gbase-x-osfp", "OSFP", 800, None),
        ("400gbase-x-qsfpdd", "QSFP-DD", 400, None),
        ("800gbase-x-qsfpdd", "QSFP-DD800", 800, None),
        ("400gbase-x-qsfp112", "QSFP112", 400, None),
        ("200gbase-x-qsfp56", "QSFP56", 200, None),
        ("100gbase-x-qsfp28", "QSFP28", 100, None),
        ("50gbase-x-sfp56", "SFP56", 50, None),
        ("25gbase-x-sfp28", "SFP28", 25, None),
        ("1.6tbase-x-osfp1600", "OSFP224", 1600, None),
    ],
)
def test_interface_type_mapping(netbox_type, form_factor, speed, top):
    cage = map_interface_type(netbox_type)
    assert (cage.form_factor, cage.speed_gbps, cage.top) == (form_factor, speed, top)


def test_rhs_type_keeps_its_stated_top_on_a_switch():
    text = switch("  - {name: swp1, type: 400gbase-x-osfp-rhs}\n")
    record = parse_devicetype(text, "x.yaml").record
    assert record.spec["cage_groups"][0]["top"] == "rhs"
    assert "cage_groups.0.top" not in record.provenance  # stated by the type: secondary


def test_unmapped_data_interface_is_an_error_naming_interface_and_type():
    with pytest.raises(NetboxFileError) as caught:
        parse(DATA / "bad" / "unmapped.yaml")
    message = str(caught.value)
    assert "unmapped.yaml line 16" in message
    assert "interface swp65 type 10gbase-x-sfpp: cannot map to a cage type" in message
    assert "interface bond0 type lag" in message
    fields = [p.field for p in caught.value.problems]
    assert fields == ["interfaces[swp65].type", "interfaces[bond0].type"]
    assert "mgmt0" not in message  # mgmt_only of an unmapped type: a warning only


def test_unmapped_mgmt_interface_is_only_a_warning():
    text = switch(
        "  - {name: swp1, type: 100gbase-x-qsfp28}\n"
        "  - {name: mgmt0, type: 10gbase-x-sfpp, mgmt_only: true}\n"
    )
    result = parse_devicetype(text, "x.yaml")
    assert [g["role"] for g in result.record.spec["cage_groups"]] == ["data"]
    assert any("mgmt0" in w and "10gbase-x-sfpp" in w for w in result.warnings)


def test_malformed_yaml_names_file_and_line():
    with pytest.raises(NetboxFileError) as caught:
        parse(DATA / "bad" / "malformed.yaml")
    assert "malformed.yaml line 8: malformed YAML" in str(caught.value)
    assert caught.value.problems[0].line == 8


def test_wrong_types_name_field_and_line():
    with pytest.raises(NetboxFileError) as caught:
        parse(DATA / "bad" / "wrong-types.yaml")
    problems = {p.field: p for p in caught.value.problems}
    assert set(problems) == {"u_height", "weight", "interfaces[swp1].mgmt_only"}
    assert "got 'tall'" in problems["u_height"].message
    assert problems["u_height"].line == 6
    assert "wrong-types.yaml line 6: u_height" in str(caught.value)


def test_missing_manufacturer_and_model():
    with pytest.raises(NetboxFileError) as caught:
        parse_devicetype("u_height: 1\n", "x.yaml")
    assert {p.field for p in caught.value.problems} == {"manufacturer", "model"}


def test_other_airflow_is_left_empty_with_a_warning():
    text = switch("  - {name: swp1, type: 100gbase-x-qsfp28}\n", "airflow: left-to-right\n")
    result = parse_devicetype(text, "x.yaml")
    assert "airflow" not in result.record.spec
    assert any("left-to-right" in w for w in result.warnings)


def test_single_port_names_with_dots_are_not_twin_port():
    text = switch(
        "".join(f"  - {{name: Ethernet{n}/1, type: 400gbase-x-qsfpdd}}\n" for n in (1, 2, 3))
    )
    group = parse_devicetype(text, "x.yaml").record.spec["cage_groups"][0]
    assert (group["count"], group["ports_per_cage"]) == (3, 1)


def test_unequal_maximum_draw_leaves_psu_rating_unknown():
    text = switch(
        "  - {name: swp1, type: 100gbase-x-qsfp28}\n",
        "power-ports:\n  - {name: ps1, maximum_draw: 800}\n  - {name: ps2, maximum_draw: 1200}\n",
    )
    spec = parse_devicetype(text, "x.yaml").record.spec
    assert spec["psu_count"] == 2 and "psu_rating_w" not in spec


def test_ignored_keys_are_listed_in_warnings():
    result = parse(QM9700)
    assert any("console-ports" in w and "is_full_depth" in w for w in result.warnings)
