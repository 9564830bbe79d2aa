"""Expected failures at scale and the single-point-of-failure checks (issue 24 items 4 and 5)."""

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from inventory.library.files import read_catalog_folder
from inventory.library.rules import check_part
from planner.analyses.resilience.failures import (
    LLAMA3,
    expected_failures,
    job_interruptions,
    llama3_counts,
    poisson_spares,
    spares_pct_for,
)
from planner.analyses.validate import validate_fabric
from planner.domain.fabric import ROLE
from planner.domain.outputs.bom import bill_of_materials, spares_for
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "planner" / "domain" / "examples"
GPU_DAYS = 16_384 * 54  # the Llama 3 snapshot


@pytest.fixture(scope="module")
def facts():
    from planner.domain.catalog import facts_from_records

    return facts_from_records(read_catalog_folder(ROOT / "inventory" / "library" / "seed").parts)


def _example(name: str, **extra) -> dict:
    return {**yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text()), **extra}


@pytest.fixture(scope="module")
def su1(facts):  # 31 DGX H100 (248 GPUs), 8 rail leaves, 4 spines, one UFM
    return build_fabric(parse_spec(_example("h100-superpod-1su")), facts)


def _with_mtbf(facts, **hours):
    """A copy of ``facts`` whose parts have the MTBFs given (slug=hours)."""
    parts = dict(facts.parts)
    for slug, value in hours.items():
        slug = slug.replace("_", "-")
        parts[slug] = {**parts[slug], "mtbf_hours": value}
    return dataclasses.replace(facts, parts=parts)


def test_llama3_table_adds_up_to_419():
    assert sum(count for _, count, _ in LLAMA3["rows"]) == 419
    assert llama3_counts() == {"server": 282, "network": 35, "nic": 7}


def test_poisson_spares_against_the_cumulative_sum():
    for mean, level in ((0.5, 0.99), (3.2, 0.9), (12.0, 0.999)):
        s = poisson_spares(mean, level)
        cdf = [
            sum(math.exp(-mean) * mean**k / math.factorial(k) for k in range(n + 1))
            for n in (s - 1, s)
        ]
        assert cdf[1] >= level and (s == 0 or cdf[0] < level)
    assert poisson_spares(5000.0, 0.99) > 5000  # past exp(-mean) underflow


def test_spares_pct_gives_the_spares_through_the_bom_rounding():
    for spares, installed in ((3, 1536), (1, 48), (18, 127), (2, 7), (5, 2044)):
        assert spares_for(installed, spares_pct_for(spares, installed)) == spares


def test_failures_per_day_from_catalog_mtbf_computed_independently(su1, facts):
    hours = {
        "QM9700": 200_000.0,
        "DGX-H100": 50_000.0,
        "MMA4Z00-NS": 1_000_000.0,
        "980-9I51A-00NS00": 2_000_000.0,
        "MMA4Z00-NS400": 1_500_000.0,  # the UFM-side modules (issue 33 item 5)
    }
    known = _with_mtbf(facts, **{k.replace("-", "_"): v for k, v in hours.items()})
    report = expected_failures(su1, known, job_gpus=8, lead_time_days=30, level=0.99)
    servers = int((su1.node_role == ROLE["server"]).sum())
    switches = int((su1.node_role >= ROLE["leaf"]).sum())
    modules = {}
    for part_col, module_col in (
        (su1.link_a_part, su1.link_a_module),
        (su1.link_b_part, su1.link_b_module),
    ):
        for part, _module in set(zip(part_col.tolist(), module_col.tolist(), strict=True)):
            if part >= 0:
                modules[su1.parts[part]] = modules.get(su1.parts[part], 0) + 1
    expected = {
        "server": servers * 24 / hours["DGX-H100"],
        "switch": switches * 24 / hours["QM9700"],
        "transceiver": sum(n * 24 / hours[slug] for slug, n in modules.items()),
    }
    rows = {row["category"]: row for row in report["categories"]}
    for category, per_day in expected.items():
        assert rows[category]["per_day"] == pytest.approx(per_day)
        assert rows[category]["basis"] == "parts"
    assert report["total_per_day"] == pytest.approx(sum(expected.values()))
    # spares: Poisson over the lead time, percentage round-trips through the BOM
    spares = {row["category"]: row for row in report["spares"]["rows"]}
    mean = expected["switch"] * 30
    assert spares["switch"]["spares"] == poisson_spares(mean, 0.99)
    assert spares_for(switches, report["spares"]["bom_pct"]["switch"]) == spares["switch"]["spares"]
    # a job on one server: that server, its 8 links' modules and the 8 rail leaves
    job = report["job"]
    assert job["servers"] == 1 and job["switches"] == 8 and job["links"] == 8
    links = np.flatnonzero(su1.link_a == 0)
    job_modules = sum(
        24 / hours[su1.parts[p]]
        for col_p, col_m in (
            (su1.link_a_part, su1.link_a_module),
            (su1.link_b_part, su1.link_b_module),
        )
        for p, _ in set(zip(col_p[links].tolist(), col_m[links].tolist(), strict=True))
    )
    per_day = 24 / hours["DGX-H100"] + 8 * 24 / hours["QM9700"] + job_modules
    assert job["per_day"] == pytest.approx(per_day)
    assert job["mtbi_hours"] == pytest.approx(24 / per_day)


def test_llama3_rates_where_the_catalog_has_no_mtbf(su1, facts):
    report = expected_failures(su1, facts)
    gpus = su1.info["gpus"]
    groups = {g["group"]: g for g in report["groups"]}
    assert {g["basis"] for g in groups.values()} == {"llama3"}
    assert groups["server"]["per_day"] == pytest.approx(282 * gpus / GPU_DAYS)
    assert groups["network"]["per_day"] == pytest.approx(35 * gpus / GPU_DAYS)
    assert groups["nic"]["per_day"] == pytest.approx(7 * gpus / GPU_DAYS)  # on board
    assert "QM9700" in groups["network"]["unknown"]
    # a job on every GPU: the Llama 3 hardware rate, 324 interruptions per 16,384 x 54 GPU-days
    job = job_interruptions(su1, facts, gpus)
    assert job["per_day"] == pytest.approx(324 * gpus / GPU_DAYS)
    # the network group is not split by part: no per-part spares percentage
    assert set(report["spares"]["bom_pct"]) == {"server"}
    assert report["spares"]["network"]["spares"] == poisson_spares(35 * gpus / GPU_DAYS * 30, 0.99)
    without = expected_failures(su1, facts, fallback=False)
    assert without["total_per_day"] is None and without["job"]["per_day"] is None


def _spares_bom(fabric, facts):
    """The failure estimate's spares rows and the BOM it opens ("Open the BOM with spares")."""
    report = expected_failures(fabric, facts)
    rows = {row["category"]: row for row in report["spares"]["rows"]}
    return rows, bill_of_materials(fabric, facts, spares_pct=report["spares"]["bom_pct"])


def test_a_rack_scale_design_spares_compute_trays_not_racks(facts):
    """Issue 33: GB300 NVL72 spares were 12 whole racks for 8 installed (150 %). The server
    group's Llama 3 failures are now spared as compute trays, of which there are 18 per rack."""
    fabric = build_fabric(parse_spec(_example("gb300-nvl72-xdr")), facts)
    systems = int((fabric.node_role == ROLE["server"]).sum())
    trays = systems * facts.parts["GB300-NVL72"]["trays"]["compute"]
    rows, bom = _spares_bom(fabric, facts)
    server = rows["server"]
    expected = poisson_spares(282 * fabric.info["gpus"] / GPU_DAYS * 30, 0.99)
    assert server["installed"] == trays and server["spares"] == expected
    assert 0 < server["spares"] <= server["installed"]
    by_part = {line.part: line for line in bom.lines}
    assert by_part["GB300-NVL72"].quantity == systems  # no whole rack-scale system spared
    assert by_part["GB300-NVL72 compute tray"].spares == server["spares"]
    assert all(line.spares == 0 for line in bom.lines if line.category == "rack")


def test_pdus_and_management_systems_are_not_servers(facts):
    """Issue 33: on the H100 4 SU cluster the servers' row counted 108 PDUs, 4 UFM appliances
    and 4 management nodes as servers (243). Each is now a group of its own, with no Llama 3
    rate (the table has no row for them): their spares are the user's percentage."""
    fabric = build_fabric(parse_spec(_example("h100-superpod-4su-cluster")), facts)
    rows, bom = _spares_bom(fabric, facts)
    report = expected_failures(fabric, facts)
    assert rows["server"]["installed"] == int((fabric.node_role == ROLE["server"]).sum())
    management = fabric.settings.networks["management"]["settings"]
    assert rows["pdu"]["installed"] == (
        management["compute_racks"] * management["pdus_per_rack"]
        + management["management_racks"] * management["pdus_per_management_rack"]
    )
    assert rows["management"]["installed"] == (
        management["ufm_appliances"] + management["management_nodes"]
    )
    for group in ("pdu", "management"):
        assert rows[group]["basis"] == "unknown" and rows[group]["spares"] is None
    assert any("Rack PDUs" in note and "own percentage" in note for note in report["notes"])
    spared = [line for line in bom.lines if line.spares]
    assert spared and {line.category for line in spared} == {"server"}
    assert all(line.spares <= line.installed for line in bom.lines)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"job_gpus": 0}, "job_gpus"),
        ({"job_gpus": 10**6}, "job_gpus"),
        ({"lead_time_days": 0}, "lead_time_days"),
        ({"level": 1.0}, "level"),
    ],
)
def test_bad_parameters_are_named(su1, facts, kwargs, name):
    with pytest.raises(ValueError, match=name):
        expected_failures(su1, facts, **kwargs)


def test_mtbf_must_be_positive():
    assert [v.field for v in check_part("switch", {"mtbf_hours": 0})] == ["mtbf_hours"]
    assert not check_part("cable", {"mtbf_hours": 2.5e6})


# --- single points of failure by domain --------------------------------------------------------


def _spof(fabric, facts):
    return {p.code: p for p in validate_fabric(fabric, facts).problems if p.code.startswith("spof")}


def test_spof_plane_rack_fires_when_every_spine_shares_a_rack(su1, facts):
    spines = np.flatnonzero(su1.node_role == ROLE["spine"])
    assert np.unique(su1.node_rack[spines]).size >= 2  # the layout spreads them
    assert "spof-plane-rack" not in _spof(su1, facts)
    packed = dataclasses.replace(su1, node_rack=su1.node_rack.copy())
    packed.node_rack[spines] = su1.node_rack[spines[0]]  # every spine in one rack
    problem = _spof(packed, facts)["spof-plane-rack"]
    assert problem.element_ids == [f"node:{su1.node_name[s]}" for s in spines]
    assert "rack" in problem.suggestion


def test_spof_dual_homed_fires_when_both_uplinks_reach_one_switch(su1, facts):
    assert "spof-dual-homed" not in _spof(su1, facts)  # the UFM reaches 4 leaves
    ufm = int(np.flatnonzero(su1.node_role == ROLE["manager"])[0])
    bent = dataclasses.replace(su1, link_b=su1.link_b.copy())
    mine = np.flatnonzero(bent.link_a == ufm)
    bent.link_b[mine] = bent.link_b[mine[0]]
    problem = _spof(bent, facts)["spof-dual-homed"]
    assert f"node:{su1.node_name[ufm]}" in problem.element_ids
    assert {f"link:{i}" for i in mine} <= set(problem.element_ids)


@pytest.mark.parametrize(("feeds", "fires"), [(["A"], True), (["A", "B"], False)])
def test_spof_feed_fires_for_a_leaf_pair_on_one_feed(facts, feeds, fires):
    spec = _example("h100-superpod-4su-cluster", power={"feeds": feeds})
    found = _spof(build_fabric(parse_spec(spec), facts), facts)
    assert ("spof-feed" in found) is fires
    if fires:
        fabric = build_fabric(parse_spec(spec), facts)
        pairs = [p for p in validate_fabric(fabric, facts).problems if p.code == "spof-feed"]
        assert ["node:inb-leaf-01", "node:inb-leaf-02"] in [p.element_ids for p in pairs]
        assert all("power.feeds" in p.suggestion for p in pairs)
