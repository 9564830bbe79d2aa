"""Power and thermal budget (planner.analyses.power): pure, from the seed catalog files.

The 4 SU DGX H100 SuperPOD (RA-11333-001) is counted by hand from catalog figures:

- 127 DGX H100 × 10,200 W (power_max_w, secondary: DGX H100 user guide);
- 48 QM9700 × 747 W (power_typical_w "with passive cables", i.e. without optics; secondary);
- 1,536 MMA4Z00-NS × 15 W (power_max_w, datasheet);
- 4 MMA4Z00-NS400 × 9 W (power_max_w at 400G, datasheet): the UFM-side modules of the 4 UFM
  links (RA-11333-001 Table 8, "UFM System Transceivers");
- 508 980-9I51A-00NS00: no power figure in the catalog -> unknown (0 W in the total; stand-in
  15 W each, the highest maximum of the other 800G twin-port OSFP MMF modules);
- 2,040 MFP7E10 and 4 UFM -> leaf fibers: passive, 0 W; the fabric-manager (UFM) node: not
  in the catalog.
"""

from __future__ import annotations

import copy
import dataclasses

import pytest

from planner.analyses.power import BTU_PER_W, power_budget
from planner.domain.catalog import DeviceModel
from planner.domain.pipeline import build_fabric
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text, parse_spec

FOUR_SU = EXAMPLES_DIR / "h100-superpod-4su.yaml"

SERVERS_W = 127 * 10_200  # 1,295,400
SWITCHES_W = 48 * 747  # 35,856
UFM_OPTICS_W = 4 * 9  # 36
OPTICS_W = 1_536 * 15 + UFM_OPTICS_W  # 23,076
TOTAL_W = SERVERS_W + SWITCHES_W + OPTICS_W  # 1,354,332
UNKNOWN_STAND_IN_W = 508 * 15  # 7,620


def _spec(**changes):
    document = load_spec_text(FOUR_SU.read_text())
    document.update(changes)
    return parse_spec(document)


@pytest.fixture(scope="module")
def superpod(facts):
    return build_fabric(_spec(), facts)


@pytest.fixture(scope="module")
def report(superpod, facts):
    return power_budget(superpod, facts).as_dict()


def test_the_catalog_figures_used_are_the_published_ones(facts):
    assert facts.devices["DGX-H100"].power_max_w == 10_200
    assert facts.devices["QM9700"].power_typical_w == 747
    assert facts.parts["MMA4Z00-NS"]["power_max_w"] == 15
    assert facts.parts["MMA4Z00-NS400"]["power_max_w"] == 9
    assert facts.parts["980-9I51A-00NS00"].get("power_max_w") is None
    # provenance travels with the facts so that every figure can be graded
    assert facts.parts["MMA4Z00-NS"]["provenance"]["power_max_w"]["grade"] == "datasheet"
    assert facts.parts["QM9700"]["provenance"]["power_typical_w"]["grade"] == "secondary"
    assert "nv-mma4z00ns" in facts.parts["MMA4Z00-NS"]["sources"]


def test_superpod_total_equals_the_hand_count(report):
    assert report["total_w"] == TOTAL_W == 1_354_332
    assert report["by_category"] == {
        "servers": SERVERS_W,
        "switches": SWITCHES_W,
        "transceivers": OPTICS_W,
        "cables": 0,
    }
    assert report["btu_h"] == pytest.approx(TOTAL_W * BTU_PER_W, abs=0.1)
    assert report["by_role"]["server"] == {"count": 127, "power_w": SERVERS_W, "unknown": 0}
    assert report["by_role"]["leaf"]["power_w"] == 32 * 747
    assert report["by_role"]["spine"]["power_w"] == 16 * 747
    assert report["by_role"]["manager"] == {"count": 1, "power_w": 0, "unknown": 1}


def test_superpod_optics_by_tier_count_every_cage(report):
    # Leaves: 16 down + 16 up cages each; spines: 32 cages, all leaf-spine.
    assert report["by_tier"]["server-leaf"]["transceivers_w"] == 32 * 16 * 15 + UFM_OPTICS_W
    assert report["by_tier"]["leaf-spine"]["transceivers_w"] == (32 * 16 + 16 * 32) * 15
    assert report["by_tier"]["leaf-spine"]["links"] == 1024
    assert "spine-core" not in report["by_tier"]


def test_superpod_network_figures(report):
    network = SWITCHES_W + OPTICS_W  # 58,932 W
    assert report["network_w"] == network
    assert report["gpus"] == 1016
    assert report["network_w_per_gpu"] == pytest.approx(network / 1016, abs=0.01)  # 58.00
    assert report["bisection_gbps"] == 203_200
    assert report["network_w_per_tbps"] == pytest.approx(network / 203.2, abs=0.01)
    assert report["optics_share"] == pytest.approx(OPTICS_W / network, abs=1e-4)  # 39.2 %


def test_superpod_unknown_figures_are_listed_not_counted(report):
    unknown = report["unknown"]
    assert unknown["transceivers"] == {"980-9I51A-00NS00": 508}
    assert unknown["devices"] == {"fabric-manager": 1}
    assert unknown["estimate_w"] == UNKNOWN_STAND_IN_W
    assert any("980-9I51A-00NS00" in note for note in unknown["notes"])


def test_superpod_confidence_shares(report):
    whole = TOTAL_W + UNKNOWN_STAND_IN_W
    confidence = report["confidence"]
    assert confidence["datasheet"] == pytest.approx(OPTICS_W / whole, abs=1e-4)
    assert confidence["secondary"] == pytest.approx((SERVERS_W + SWITCHES_W) / whole, abs=1e-4)
    assert confidence["unknown"] == pytest.approx(UNKNOWN_STAND_IN_W / whole, abs=1e-4)
    assert confidence["inferred"] == confidence["estimate"] == 0
    assert sum(confidence.values()) == pytest.approx(1, abs=1e-3)


def test_superpod_racks_and_rows_add_up(report):
    racks = report["racks"]
    server_racks = [r for r in racks if r["kind"] == "server"]
    assert len(server_racks) == 32  # 127 DGX, 4 per 40.8 kW SuperPOD rack
    assert sum(r["power_w"] for r in racks) == pytest.approx(TOTAL_W)
    assert sum(r["power_w"] for r in report["rows"]) == pytest.approx(TOTAL_W)
    # The example names the 40.8 kW rack: 4 DGX (10.2 kW each) fill it; DGX modules unknown.
    assert server_racks[0]["power_w"] == 4 * 10_200
    assert server_racks[0]["limit_w"] == 40_800 and server_racks[0]["incomplete"]
    assert {r["rack"] for r in racks} >= {"R001-01", "R003-16"}
    assert all(r["airflow_mixed"] is False for r in racks)  # QM9700 racks: all rear-to-front
    assert report["problems"] == []
    assert report["pue"] is None and report["facility_w"] is None


def test_pue_gives_facility_power(superpod, facts):
    report = power_budget(superpod, facts, pue=1.3).as_dict()
    assert report["pue"] == 1.3
    assert report["facility_w"] == pytest.approx(TOTAL_W * 1.3, abs=0.1)
    with pytest.raises(ValueError, match="pue"):
        power_budget(superpod, facts, pue=0.9)


def test_rack_type_limit_applies_and_over_limit_racks_are_errors(facts):
    fabric = build_fabric(_spec(layout={"rack": "DGX-H100-SuperPOD-rack"}), facts)
    report = power_budget(fabric, facts).as_dict()
    server_racks = [r for r in report["racks"] if r["kind"] == "server"]
    # The 40.8 kW rack holds 4 DGX H100: exactly at the limit, not over.
    assert {r["limit_w"] for r in report["racks"]} == {40_800}
    assert max(r["power_w"] for r in server_racks) == 40_800
    assert not [p for p in report["problems"] if p["code"] == "rack-power-over-limit"]
    # A rack's own limit wins over the rack type's.
    fabric.racks[0]["limit_w"] = 30_000
    report = power_budget(fabric, facts).as_dict()
    over = [p for p in report["problems"] if p["code"] == "rack-power-over-limit"]
    name = fabric.racks[0]["name"]
    assert [p["element_ids"] for p in over] == [[f"rack:{name}"]]
    assert over[0]["severity"] == "error" and over[0]["rule"] == "power.rack-limit"
    assert "40.80 kW" in over[0]["message"] and "30.00 kW" in over[0]["message"]
    assert report["racks"][0]["utilization"] == pytest.approx(40_800 / 30_000, abs=1e-4)


def test_mixed_airflow_in_a_rack_is_a_problem_naming_the_odd_devices(superpod, facts):
    facts = copy.copy(facts)
    facts.devices = {
        **facts.devices,
        "fabric-manager": DeviceModel(
            slug="fabric-manager", category="server", power_max_w=689, airflow="front-to-rear"
        ),
    }
    facts.parts = {
        **facts.parts,
        "fabric-manager": {
            "category": "server",
            "slug": "fabric-manager",
            "power_max_w": 689,
            "provenance": {"power_max_w": {"grade": "secondary"}},
        },
    }
    report = power_budget(superpod, facts).as_dict()
    assert report["total_w"] == TOTAL_W + 689  # UFM appliance, 0.689 kW max (secondary)
    mixed = [r for r in report["racks"] if r["airflow_mixed"]]
    assert len(mixed) == 1
    assert mixed[0]["airflow"] == {"rear-to-front": 8, "front-to-rear": 1}  # one SU's leaves
    (problem,) = [p for p in report["problems"] if p["code"] == "rack-airflow-mixed"]
    manager = superpod.node_name[int(superpod.nodes_with_role("manager")[0])]
    assert problem["element_ids"] == [f"rack:{mixed[0]['rack']}", f"node:{manager}"]
    assert problem["severity"] == "warning" and problem["suggestion"]


def test_cable_ends_count_head_once_and_each_leg(facts):
    # GB200 NVL72 trays on QM9700 through 1:2 passive DACs (0.1 W per end, datasheet family).
    spec = parse_spec(
        {
            "name": "gb200",
            "topology": "clos",
            "server": "GB200-NVL72",
            "servers": 4,
            "rails": 4,
            "switches": {"leaf": "QM9700"},
            "layout": {"rack_units": 10, "tray_height_m": 0, "slack_m": 0, "servers_per_rack": 1},
        }
    )
    report = power_budget(build_fabric(spec, facts), facts).as_dict()
    # 4 racks x 18 trays x 4 NICs = 288 server-leaf links in 144 1:2 DACs: 144 heads + 288
    # legs, 0.1 W each.
    assert report["by_category"]["cables"] == pytest.approx((144 + 288) * 0.1)
    assert report["by_tier"]["server-leaf"]["cables_w"] == pytest.approx(43.2)


def test_a_fabric_without_media_or_layout_counts_devices_only(facts):
    from planner.domain.generators import generate_topology

    fabric = generate_topology(_spec(), facts)
    report = power_budget(fabric, facts).as_dict()
    assert report["total_w"] == SERVERS_W + SWITCHES_W
    assert report["racks"] == [] and report["rows"] == []
    assert any("media not assigned" in note for note in report["unknown"]["notes"])


def test_a_switch_without_a_typical_figure_is_unknown_not_its_maximum(superpod, facts):
    facts = copy.copy(facts)
    facts.devices = {
        **facts.devices,
        "QM9700": dataclasses.replace(facts.devices["QM9700"], power_typical_w=None),
    }
    report = power_budget(superpod, facts).as_dict()
    assert report["by_category"]["switches"] == 0  # never the 1.72 kW max (it includes optics)
    assert report["unknown"]["devices"]["QM9700"] == 48


def test_progress_is_reported(superpod, facts):
    seen = []
    power_budget(superpod, facts, on_progress=lambda done, total, message: seen.append(done))
    assert seen == sorted(seen) and seen[-1] == 5
