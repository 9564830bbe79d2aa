"""A design across buildings (issue 21): the spec's campus block, placement of units and the
top tier in halls, run lengths between buildings, the reach class the media step picks, and
the campus tier in the summary, power budget, BOM and cabling plan. Small designs only."""

import numpy as np
import pytest

from planner.analyses.power import power_budget
from planner.domain.campus import parse_campus
from planner.domain.fabric import Fabric, FabricError
from planner.domain.layout_distances import entrance_runs_m
from planner.domain.media import LinkGroup, MediaCatalog, optic_candidates, rank_candidates
from planner.domain.media.choice import choose_candidates
from planner.domain.media.groups import LinkEnd
from planner.domain.outputs.bom import bill_of_materials
from planner.domain.outputs.cabling import CABLING_COLUMNS, cabling_rows
from planner.domain.part_facts import end_cage
from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, parse_spec
from planner.domain.spec_model import MediaChoice
from planner.domain.summary import summarize

# Two SUs of DGX-B300 on SN5600, two 400G planes, leaf-spine at 400G: SU 1 in building 1
# with the spines, SU 2 in building 2, so SU 2's leaf-spine links cross 1.2 km.
TWO_HALLS = {
    "name": "two halls",
    "topology": "rail-optimized",
    "server": "DGX-B300",
    "servers": 128,
    "planes": 2,
    "uplink_speed_gbps": 400,
    "switches": {"leaf": "SN5600"},
    "campus": {"buildings": 2, "distance_m": 1200, "entrance_m": 15},
}


@pytest.fixture(scope="module")
def campus_fabric(facts):
    spec = parse_spec(TWO_HALLS)
    return spec, build_fabric(spec, facts)


def test_campus_block_is_parsed_and_checked():
    spec = parse_spec(TWO_HALLS)
    assert spec.campus.buildings == 2 and spec.campus.distance_m(0, 1) == 1200.0
    assert spec.as_dict()["campus"] == TWO_HALLS["campus"]  # round trip
    assert parse_spec(spec.as_dict()).campus == spec.campus
    problems = []
    assert parse_campus({"buildings": 3, "distances_m": [[0, 1], [1, 0]]}, problems) is None
    assert problems[-1] == ("campus.distances_m", "needs 3 rows of 3 distances (one per building)")
    parse_campus({"buildings": 2, "distances_m": [[0, 5], [6, 0]]}, problems)
    assert problems[-1][0] == "campus.distances_m.0.1" and "6 m" in problems[-1][1]
    with pytest.raises(SpecError) as exc:
        parse_spec({**TWO_HALLS, "campus": {"buildings": 2, "distance_m": 9, "core_building": 3}})
    assert exc.value.problems == [("campus.core_building", "building 3 of 2: use 1 to 2")]
    with pytest.raises(SpecError) as exc:
        parse_spec({**TWO_HALLS, "campus": {"buildings": 2, "distance": 9}})
    assert exc.value.problems[0][0] == "campus"


def test_units_are_shared_out_and_the_top_tier_stands_in_the_core_building(campus_fabric):
    _, fabric = campus_fabric
    building = np.array([r.get("building", 0) for r in fabric.racks])
    node_building = building[fabric.node_rack]
    servers = fabric.nodes_with_role("server")
    assert np.bincount(node_building[servers]).tolist() == [64, 64]
    su_building = {
        int(su): set(node_building[servers][fabric.node_su[servers] == su]) for su in (0, 1)
    }
    assert su_building == {0: {0}, 1: {1}}  # an SU never straddles two buildings
    assert set(node_building[fabric.nodes_with_role("spine")]) == {0}  # core_building 1
    assert all(r["name"].startswith(f"B{r['building'] + 1}-R") for r in fabric.racks)
    info = fabric.settings.campus
    assert info["servers_per_building"] == [64, 64] and info["crossing_tier"] == "leaf-spine"


def test_runs_between_buildings_take_the_distance(campus_fabric):
    spec, fabric = campus_fabric
    campus = fabric.link_campus()
    assert campus.sum() == 1024  # SU 2's 16 leaves x 64 uplinks
    assert (fabric.link_tier[campus] == 1).all()  # all leaf-spine
    assert fabric.link_length_m[~campus].max() < 50
    link = int(np.flatnonzero(campus)[0])
    ends = []
    for node in (fabric.link_a[link], fabric.link_b[link]):
        rack = fabric.racks[fabric.node_rack[node]]
        x = fabric.settings.campus["entrance_x_m"]
        ends.append(
            float(
                entrance_runs_m(
                    spec.layout, rack["row"], rack["position"], 48, fabric.node_ru[node], x
                )
            )
        )
    expected = np.ceil((sum(ends) + 2 * 15 + 1200) * 10 - 1e-6) / 10
    assert fabric.link_length_m[link] == pytest.approx(expected, abs=1e-3)


def test_links_between_buildings_get_the_2_km_single_mode_class(campus_fabric):
    _, fabric = campus_fabric
    campus = fabric.link_campus()
    assert {fabric.parts[p] for p in fabric.link_a_part[campus]} == {"MMS4X50-NM"}
    assert {fabric.parts[p] for p in fabric.link_cable_part[campus]} == {"FIBER-LC-UPC-OS2-DUPLEX"}


def _choose(facts, switch, length_m):
    model, _, cage = end_cage(facts, switch, 400)
    end = LinkEnd(model, cage, 2)
    ends = {"a": (np.array([0, 0]), np.array([0, 1])), "b": (np.array([1, 1]), np.array([0, 1]))}
    group = LinkGroup.from_ends("campus", 400, end, end, ends, lambda i, m: f"link {i}")
    catalog = MediaCatalog(facts, None)
    found, _ = optic_candidates(group, catalog, MediaChoice("auto"), {})
    ranked = rank_candidates(found, group, catalog)
    chosen = choose_candidates(group, ranked, np.array([length_m, length_m]), "media")
    return ranked[int(chosen[0])]


def test_the_reach_class_covers_the_run(facts):
    # OSFP 800G cages: 2xFR4 (2 km) past the 500 m of DR; nothing reaches 5 km (no OSFP LR
    # part with a source), and the refusal names the longest.
    assert _choose(facts, "SN5600", 300).reach_m >= 300
    assert _choose(facts, "SN5600", 1500).a == "MMS4X50-NM"
    with pytest.raises(FabricError, match="longest is 2000 m"):
        _choose(facts, "SN5600", 5000)
    # QSFP-DD800 cages: LR4 (10 km) parts, not capped at rule 11's 2 km (that is 2xFR4's).
    chosen = _choose(facts, "AIS800-64D", 5000)
    assert chosen.reach_m == 10000 and facts.parts[chosen.a]["pmd"] in ("LR4", "2xLR4")


def test_the_campus_tier_in_summary_power_bom_and_cabling(campus_fabric, facts):
    _, fabric = campus_fabric
    summary = summarize(fabric, name="x")
    assert summary["links"]["campus"] == 1024 and summary["links"]["leaf-spine"] == 1024
    assert summary["capacity_gbps"]["campus"] == summary["capacity_gbps"]["leaf-spine"] == 409_600
    assert sum(summary["links"].values()) == fabric.link_count
    assert summary["campus"]["transceivers"] == {"MMS4X50-NM": 1024}  # twin-port: per cage
    assert summary["campus"]["run_m"]["min"] > 1200
    stored = Fabric.from_dict(fabric.to_dict())  # a saved revision keeps its buildings
    assert np.array_equal(stored.report_tiers(), fabric.report_tiers())
    assert power_budget(fabric, facts).by_tier["campus"]["links"] == 1024
    lines = [line for line in bill_of_materials(fabric, facts).lines if line.tier == "campus"]
    assert {(line.category, line.part) for line in lines} == {
        ("transceiver", "MMS4X50-NM"),
        ("fiber", "FIBER-LC-UPC-OS2-DUPLEX"),
    }
    assert sum(line.quantity for line in lines if line.category == "fiber") == 1024
    tier = CABLING_COLUMNS.index("tier")
    rows = [row for row in cabling_rows(fabric, facts) if row[tier] == "campus"]
    assert len(rows) == 1024 and all(row[0].startswith("B2-") for row in rows)


def test_scale_examples_parse_and_stay_under_the_design_limit(facts):
    """The published 100k+ shapes (examples/scale) parse and name their source; they are
    built, validated and timed by ``make bench`` (tests/bench_scale.py), not here."""
    from planner.domain.generators import requested_servers
    from planner.domain.presets import load_presets, load_scale_examples

    examples = {p.slug: p for p in load_scale_examples()}
    gpus = {}
    for slug, preset in examples.items():
        spec = parse_spec(preset.spec)
        servers, _ = requested_servers(spec, facts.devices[spec.server].gpus)
        gpus[slug] = servers * facts.devices[spec.server].gpus
        assert "https://" in preset.note, slug  # every shape cites its source
    assert gpus == {
        "gigawatt-campus-1m": 1_048_576,
        "oci-supercluster-131k": 131_072,
        "xai-colossus-100k": 100_000,
        "zettascale-campus-524k": 524_288,
    }
    assert max(gpus.values()) <= 2_000_000  # DESIGN_MAX_GPUS' default
    assert parse_spec(examples["gigawatt-campus-1m"].spec).campus.buildings == 4
    assert not set(examples) & {p.slug for p in load_presets()}  # not in the wizard


def test_unique_sorts_instead_of_hashing():
    from planner.domain.arrays import unique

    values = np.random.default_rng(7).integers(0, 2**40, 10_000)
    assert np.array_equal(unique(values), np.unique(values))
    assert unique(np.array([5], dtype=np.int16)).dtype == np.int16


def test_by_plane_puts_each_planes_top_tier_in_its_own_building(facts):
    document = {**TWO_HALLS, "campus": {**TWO_HALLS["campus"], "core_building": "by-plane"}}
    fabric = build_fabric(parse_spec(document), facts)
    building = np.array([r.get("building", 0) for r in fabric.racks])
    spines = fabric.nodes_with_role("spine")
    assert np.array_equal(building[fabric.node_rack[spines]], fabric.node_plane[spines])
    assert fabric.settings.campus["top_tier_buildings"] == [1, 2]
    # each SU crosses to the other building in one plane only: half the leaf-spine links
    assert fabric.link_campus().sum() == 1024 and (fabric.link_tier == 1).sum() == 2048


def test_links_between_buildings_cross_the_entrance_panels_in_their_loss_budget(
    campus_fabric, facts
):
    from planner.domain.physical.budget import compute_budgets
    from planner.domain.physical.cabling import channels_for

    _, fabric = campus_fabric
    campus = fabric.link_campus()
    channels = channels_for(fabric, facts=facts)
    assert set(channels.mated_pairs[campus].tolist()) == {2}  # one LC pair per building
    assert set(channels.mated_pairs[~campus].tolist()) == {0}
    budgets = compute_budgets(fabric, facts)
    inside = np.isin(budgets.links, np.flatnonzero(campus))
    assert inside.any() and np.isfinite(budgets.margin_db[inside]).all()


def test_a_building_ends_only_where_no_lower_tier_link_crosses(facts):
    """A three-tier Clos across three buildings: a leaf's servers (and a pod's leaves) may
    straddle two server blocks, so a building ends only where no server-leaf or leaf-spine
    link crosses; only spine-core links run between buildings (here two pods: the third
    building stays empty, and says so)."""
    document = {
        "name": "clos",
        "topology": "clos",
        "server": "DGX-B300",
        "servers": 2048,
        "tiers": 3,
        "switches": {"leaf": "Q3400-RA"},
        "campus": {"buildings": 3, "distances_m": [[0, 500, 900], [500, 0, 700], [900, 700, 0]]},
    }
    fabric = build_fabric(parse_spec(document), facts)
    campus = fabric.link_campus()
    assert campus.any() and set(fabric.link_tier[campus].tolist()) == {2}  # spine-core only
    info = fabric.settings.campus
    assert info["servers_per_building"] == [1296, 752, 0] and info["core_building"] == 2
    assert any("building(s) 3 hold no servers" in n for n in fabric.info["layout_notes"])
    assert fabric.link_length_m[~campus].max() < 100


@pytest.mark.parametrize(
    "cabling",
    [
        None,  # point to point
        {"leaf-spine": "patch-panel"},  # in-rack panels, cassettes
        {
            "leaf-spine": {
                "type": "patch-panel",
                "panels": "end-of-row",
                "lc_termination": "harness",
            }
        },
    ],
    ids=["point-to-point", "patch-panel-in-rack", "patch-panel-end-of-row"],
)
def test_the_budget_runs_the_whole_route_between_buildings_for_every_cabling(facts, cabling):
    """[SU 2 leaf]--B2 hall--entrance==1,200 m==entrance--B1 hall--[spine]: a structured tier
    crossing buildings keeps the campus route in its trunk (issue 36.6: the patch-panel
    channel counted only the in-hall metres, 15-17 m of a 1,245 m run)."""
    from planner.domain.physical.budget import compute_budgets
    from planner.domain.physical.cabling import channels_for

    document = {**TWO_HALLS, "servers": 64, "servers_per_su": 32}
    if cabling:
        document["cabling"] = cabling
    fabric = build_fabric(parse_spec(document), facts)
    campus = fabric.link_campus()
    assert campus.any()
    run = fabric.link_length_m[campus]
    assert run.min() > 1200 + 2 * 15
    channels = channels_for(fabric, facts=facts)
    assert (channels.fiber_m[campus] >= run - 0.1).all()
    budgets = compute_budgets(fabric, facts)
    inside = np.isin(budgets.links, np.flatnonzero(campus))
    assert inside.any()
    smf_worst = facts.optics.attenuation_db_per_km("OS2")
    assert (budgets.loss_worst_db[inside] >= smf_worst * 1.2).all()
