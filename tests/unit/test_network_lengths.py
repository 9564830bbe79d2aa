"""Run lengths of the cluster networks' links (planner.domain.networks.lengths, issue 18).

The cluster is the 4 SU H100 SuperPOD with storage, in-band and OOB networks (RA-11333-001
V11 Tables 7 and 8). Expected runs are recomputed here from the layout rule as the layout
module's docstring states it (tray Manhattan + drops + slack; in-rack RU difference + 0.5 m),
not read back from the code under test.
"""

import math
from dataclasses import replace
from pathlib import Path

import pytest

from planner.domain.layout_distances import RU_M, layout_distances
from planner.domain.networks.elements import cluster_elements
from planner.domain.networks.lengths import management_rack_places, with_run_lengths
from planner.domain.pipeline import build_fabric
from planner.domain.spec import load_spec_text, parse_spec
from planner.domain.spec_model import Layout

EXAMPLE = (
    Path(__file__).resolve().parents[2] / "planner/domain/examples/h100-superpod-4su-cluster.yaml"
)
#: 1000BASE-T: a 100 m channel of Category 5e (IEEE 802.3ab over ANSI/TIA-568).
BASE_T_M = 100.0


def cluster_spec(**layout) -> dict:
    document = load_spec_text(EXAMPLE.read_text())
    document["layout"] = {**(document.get("layout") or {}), **layout}
    return document


@pytest.fixture(scope="module")
def cluster(facts):
    fabric = build_fabric(parse_spec(cluster_spec()), facts)
    return fabric, cluster_elements(fabric, facts)


def _places(fabric, elements) -> dict[str, tuple[int, int, int]]:
    out = {r["name"]: (r["row"], r["position"], r["rack_units"]) for r in fabric.racks}
    out.update({p.name: (p.row, p.position, p.rack_units) for p in elements.rack_places})
    return out


def expected_run(fabric, elements, link, layout: Layout) -> float:
    """The layout docstring's rule, written out independently."""
    devices = {d.name: d for d in elements.devices}
    a, b = devices[link.a_device], devices[link.b_device]
    places = _places(fabric, elements)
    ru_a, ru_b = a.ru or 1, b.ru or 1  # a 0 U PDU at U1 (inferred, documented)
    if a.rack == b.rack:
        run = abs(ru_a - ru_b) * 0.04445 + 0.5
    else:
        (row_a, pos_a, units_a), (row_b, pos_b, units_b) = places[a.rack], places[b.rack]
        run = (
            abs(pos_a - pos_b) * layout.rack_width_m
            + abs(row_a - row_b) * layout.row_pitch_m
            + (units_a * 0.04445 - ru_a * 0.04445 + layout.tray_height_m)
            + (units_b * 0.04445 - ru_b * 0.04445 + layout.tray_height_m)
            + layout.slack_m
        )
    return math.ceil(round(run * 10, 6)) / 10


def test_management_racks_take_a_centred_row_after_the_compute_rows(cluster):
    fabric, elements = cluster
    last_row = max(r["row"] for r in fabric.racks)
    per_row = fabric.settings.layout["racks_per_row"]
    places = elements.rack_places
    assert [p.name for p in places] == list(elements.racks) and len(places) == 6  # RA: 6
    assert {p.row for p in places} == {last_row + 1}
    positions = [p.position for p in places]
    assert positions == list(range(positions[0], positions[0] + 6))
    # centred: as many free positions on either side (within one)
    assert abs(positions[0] - (per_row - 1 - positions[-1])) <= 1
    taken = {(r["row"], r["position"]) for r in fabric.racks}
    assert not taken & {(p.row, p.position) for p in places}


def test_more_management_racks_than_a_row_wrap_centred():
    racks = [{"row": 2, "position": p} for p in range(4)]
    places = management_rack_places(
        {"racks_per_row": 4, "rack_units": 42}, racks, [f"M{k}" for k in range(6)]
    )
    assert [(p.row, p.position) for p in places] == [
        (3, 0),
        (3, 1),
        (3, 2),
        (3, 3),
        (4, 1),
        (4, 2),
    ]
    assert {p.rack_units for p in places} == {42}


def test_in_rack_oob_cat5e_runs_are_short(cluster):
    fabric, elements = cluster
    devices = {d.name: d for d in elements.devices}
    in_rack = [
        link
        for link in elements.links
        if link.network == "oob"
        and link.cable_kind == "Cat5e"
        and devices[link.a_device].rack == devices[link.b_device].rack
    ]
    assert len(in_rack) > 20
    rack_units = fabric.settings.layout["rack_units"]
    for link in in_rack:
        a, b = devices[link.a_device], devices[link.b_device]
        ru_a, ru_b = a.ru or 1, b.ru or 1
        assert link.run_length_m == pytest.approx(
            math.ceil(round((abs(ru_a - ru_b) * RU_M + 0.5) * 10, 6)) / 10
        )
        # no tray, no slack: never more than the rack's height plus 0.5 m
        assert link.run_length_m <= rack_units * RU_M + 0.5 + 0.1


def test_management_rack_runs_follow_the_layout_rule(cluster):
    fabric, elements = cluster
    layout = Layout()  # the example sets no distances: the spec defaults
    management = set(elements.racks)
    devices = {d.name: d for d in elements.devices}
    checked = 0
    for link in elements.links:
        if link.run_length_m is None:
            continue
        ends = {devices[link.a_device].rack, devices[link.b_device].rack}
        assert link.run_length_m == pytest.approx(expected_run(fabric, elements, link, layout))
        checked += bool(ends & management)
    assert checked > 500  # storage and in-band node links, OOB ports in MGMT racks


def test_runs_are_symmetric(cluster):
    fabric, elements = cluster
    devices = {d.name: d for d in elements.devices}
    swapped = [
        replace(
            link,
            a_device=link.b_device,
            a_port=link.b_port,
            b_device=link.a_device,
            b_port=link.a_port,
            run_length_m=None,
        )
        for link in elements.links
    ]
    again = with_run_lengths(fabric, devices, swapped, elements.rack_places)
    assert [link.run_length_m for link in again] == [link.run_length_m for link in elements.links]


def test_endpoints_outside_the_plan_keep_no_length(cluster):
    _, elements = cluster
    outside = {d.name for d in elements.devices if not d.rack}
    assert {d.role for d in elements.devices if d.name in outside} == {
        "storage-array",
        "nfs-storage",
        "customer-core",
    }
    unknown = [link for link in elements.links if link.run_length_m is None]
    assert unknown and all(link.a_device in outside or link.b_device in outside for link in unknown)


def test_every_cat5e_run_of_the_4_su_cluster_is_within_100_m(cluster):
    _, elements = cluster
    cat5e = [link for link in elements.links if link.cable_kind == "Cat5e"]
    assert len(cat5e) == 317  # RA-11333-001 V11 Table 8
    assert all(link.run_length_m is not None for link in cat5e)
    assert max(link.run_length_m for link in cat5e) <= BASE_T_M


def test_layout_distances_are_kept_and_old_designs_read_defaults(facts):
    spec = cluster_spec(slack_m=5.0, row_pitch_m=3.5)
    fabric = build_fabric(parse_spec(spec), facts)
    kept = fabric.settings.layout
    assert (kept["slack_m"], kept["row_pitch_m"]) == (5.0, 3.5)
    assert layout_distances(kept) == Layout(slack_m=5.0, row_pitch_m=3.5)
    elements = cluster_elements(fabric, facts)
    link = next(
        link for link in elements.links if link.group == "node-leaf" and link.network == "storage"
    )
    assert link.run_length_m == pytest.approx(
        expected_run(fabric, elements, link, Layout(slack_m=5.0, row_pitch_m=3.5))
    )
    # a design stored before the distances were kept: the Layout defaults
    for name in ("rack_width_m", "row_pitch_m", "tray_height_m", "slack_m"):
        del fabric.settings.layout[name]  # the layout block is the design's own dict
    old = cluster_elements(fabric, facts)
    old_link = old.links[elements.links.index(link)]
    assert old_link.run_length_m == pytest.approx(expected_run(fabric, old, old_link, Layout()))
    assert old_link.run_length_m < link.run_length_m  # 3 m less slack, shorter row pitch


def test_a_stretched_hall_flags_the_cat5e_runs_over_100_m(facts):
    pytest.importorskip("planner.analyses.validate.networks")
    from planner.analyses.validate import validate_fabric

    spec = cluster_spec(row_pitch_m=40.0)
    spec["media"] = {"server-leaf": "auto", "leaf-spine": "auto"}  # MMF stops at 50 m
    fabric = build_fabric(parse_spec(spec), facts)
    elements = cluster_elements(fabric, facts)
    over = {
        f"netlink:{i}"
        for i, link in enumerate(elements.links)
        if link.cable_kind == "Cat5e" and link.run_length_m > BASE_T_M
    }
    assert over  # MGMT row 3 rows (120 m) from the first compute row
    report = validate_fabric(fabric, facts)
    flagged = {i for p in report.by_code("network-copper-reach-exceeded") for i in p.element_ids}
    assert flagged == over
    assert {p.severity for p in report.by_code("network-copper-reach-exceeded")} == {"error"}
    # the default hall: none
    fabric = build_fabric(parse_spec(cluster_spec()), facts)
    assert not validate_fabric(fabric, facts).by_code("network-copper-reach-exceeded")
