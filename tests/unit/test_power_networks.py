"""The cluster networks in the power budget per rack (planner.analyses.power, issue 18).

The cluster is the 4 SU H100 SuperPOD with storage, in-band and OOB networks (RA-11333-001
V11 Tables 7 and 8). Device figures used as expected values are the published ones of
reference-architectures.md §3 (secondary: the switch and appliance manuals): QM9700 747 W,
SN4600C 466 W, SN2201 98 W typical with passive cables; UFM Enterprise Appliance (NDR) 689 W
max; DGX H100 10.2 kW max.
"""

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from planner.analyses.power import power_budget
from planner.domain.networks.elements import cluster_elements
from planner.domain.pipeline import build_fabric
from planner.domain.spec import load_spec_text, parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner/domain/examples"
PUBLISHED_W = {
    "QM9700": 747.0,
    "SN4600C": 466.0,
    "SN2201": 98.0,
    "UFM-Enterprise-Appliance-NDR": 689.0,
}
DGX_H100_W = 10_200.0
NO_FIGURE = {"PX3-5878I2R-P1Q2R1A15D5", "PX3-5747V-V2", "SuperPOD-H100-BCM-node"}


@pytest.fixture(scope="module")
def cluster(facts):
    document = load_spec_text((EXAMPLES / "h100-superpod-4su-cluster.yaml").read_text())
    fabric = build_fabric(parse_spec(document), facts)
    return fabric, cluster_elements(fabric, facts), power_budget(fabric, facts).as_dict()


def _in_racks(elements) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for device in elements.devices:
        if device.network != "compute" and device.rack:
            out.setdefault(device.rack, Counter())[device.model] += 1
    return out


def test_management_racks_are_listed_with_their_devices_power(cluster):
    fabric, elements, report = cluster
    racks = {r["rack"]: r for r in report["racks"]}
    contents = _in_racks(elements)
    management = [r for r in report["racks"] if r["kind"] == "management"]
    assert [r["rack"] for r in management] == list(elements.racks)  # MGMT-01..06 (RA: 6)
    assert {r["row"] for r in management} == {max(r["row"] for r in fabric.racks) + 1}
    assert set(contents[management[0]["rack"]]) <= set(PUBLISHED_W) | NO_FIGURE
    for name in elements.racks:
        models = contents[name]
        expected = sum(PUBLISHED_W.get(model, 0.0) * n for model, n in models.items())
        assert racks[name]["power_w"] == pytest.approx(expected)
        assert racks[name]["network_w"] == pytest.approx(expected)
        assert racks[name]["network_devices"] == sum(models.values())
        # the RA's PDUs and head nodes have no figure in the catalog: named, rack incomplete
        unknown = {m: n for m, n in models.items() if m in NO_FIGURE}
        assert racks[name]["unknown_devices"] == unknown
        assert racks[name]["incomplete"] == bool(unknown)
    # every storage and in-band switch and every UFM appliance is in some management rack
    placed = sum((contents[name] for name in elements.racks), Counter())
    assert placed["QM9700"] == 16 and placed["SN4600C"] == 8  # RA Table 7
    assert placed["UFM-Enterprise-Appliance-NDR"] == 4


def test_oob_switches_add_to_their_racks_and_can_tip_a_server_rack_over(cluster, facts):
    """The RA layout's OOB switches sit outside its full server racks (no rack over its limit);
    a spec that puts one in every compute rack (switches_per_rack: 1) tips each over: four
    DGX H100 at 10.2 kW max fill the 40.8 kW rack type, an SN2201 on top is an error naming
    the rack."""
    _, elements, report = cluster
    racks = {r["rack"]: r for r in report["racks"]}
    for name in {d.rack for d in elements.devices_of("oob")}:
        contents = _in_racks(elements)[name]
        expected = sum(PUBLISHED_W.get(model, 0.0) * n for model, n in contents.items())
        assert racks[name]["network_w"] == pytest.approx(expected)
        assert contents["SN2201"] >= 1
    assert not [p for p in report["problems"] if p["code"] == "rack-power-over-limit"]

    document = load_spec_text((EXAMPLES / "h100-superpod-4su-cluster.yaml").read_text())
    document["networks"]["oob"] = {
        **(document["networks"].get("oob") or {}),
        "switches_per_rack": 1,
    }
    fabric = build_fabric(parse_spec(document), facts)
    crowded = power_budget(fabric, facts).as_dict()
    by_name = {r["rack"]: r for r in crowded["racks"]}
    full = [
        name
        for name, rack in by_name.items()
        if rack["kind"] == "server" and rack["power_w"] > 4 * DGX_H100_W
    ]
    assert full
    for name in full:
        assert by_name[name]["power_w"] == pytest.approx(
            4 * DGX_H100_W + by_name[name]["network_w"]
        )
    over = {
        i
        for p in crowded["problems"]
        if p["code"] == "rack-power-over-limit"
        for i in p["element_ids"]
    }
    assert {f"rack:{name}" for name in full} <= over
    # a compute rack without an OOB switch still has its PDUs: counted, without a figure
    plain = next(r for r in report["racks"] if r["kind"] == "server" and not r.get("network_w"))
    assert plain["unknown_devices"] == {"PX3-5878I2R-P1Q2R1A15D5": 3}  # RA: 3 per rack


def test_racks_hold_everything_but_the_networks_modules(cluster):
    _, _, report = cluster
    in_racks = sum(r["power_w"] for r in report["racks"])
    modules = sum(n["transceivers_w"] for n in report["by_network"].values())
    assert modules > 0
    assert in_racks == pytest.approx(report["total_w"] - modules, abs=1.0)
    rows = {row["name"]: row for row in report["rows"]}
    management = [r for r in report["racks"] if r["kind"] == "management"]
    assert rows["MGMT"]["racks"] == len(management)
    assert rows["MGMT"]["power_w"] == pytest.approx(sum(r["power_w"] for r in management))


def test_without_networks_the_racks_are_the_compute_ones(cluster, facts):
    fabric, _, report = cluster
    saved = fabric.settings
    fabric.settings = replace(saved, networks=None)
    try:
        compute_only = power_budget(fabric, facts).as_dict()
    finally:
        fabric.settings = saved
    assert len(compute_only["racks"]) == len(fabric.racks)
    assert not any("network_w" in r for r in compute_only["racks"])
    racks = {r["rack"]: r for r in report["racks"]}
    for rack in compute_only["racks"]:
        with_networks = racks[rack["rack"]]
        assert with_networks["power_w"] == pytest.approx(
            rack["power_w"] + with_networks.get("network_w", 0.0)
        )


def test_the_power_page_shows_the_network_share_of_each_rack(cluster):
    from simulation.presentation import power_context

    _, _, report = cluster
    context = power_context(report)
    assert context["has_network_racks"]
    rows = {r["rack"]: r for r in context["racks"]}
    assert rows["MGMT-01"]["network"] and rows["MGMT-01"]["kind"] == "management"
    assert "MGMT-01" in {bar["rack"] for bar in context["strip"]["bars"]}
