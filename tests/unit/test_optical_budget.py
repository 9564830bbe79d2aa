"""Optical loss budget (issue 19 items 3, 6, 7): planner.domain.physical.budget and the
validator's loss rule, against published figures.

Anchors:
- Fluke Networks, "Cable Testing 101: But the Standard Says 0.75 dB!" (2024-11-26), read via
  https://googmn.com/?p=11501 (next-wave.md §1.3): 40GBASE-SR4 allows 1.5 dB over 150 m of
  OM4; the fibre takes 0.45 dB at 3.0 dB/km, leaving 1.05 dB for connectors; at 0.75 dB per
  connector only one mated pair fits.
- TIA FOTC IEEE 802.3 application pages (next-wave.md §1.1): channel insertion-loss limits.
- A run that passes reach but fails loss: 100 m of OM4 (400GBASE-SR4's IEEE reach) through
  four mated MPO pairs, worst case (TIA 0.75 dB per pair, 3.5 dB/km).
"""

import math
import re
from dataclasses import replace

import numpy as np
import pytest

from planner.analyses.validate import validate_fabric
from planner.domain.fabric import TIER
from planner.domain.physical import budget as budget_module
from planner.domain.physical.budget import (
    compute_budgets,
    in_scope,
    link_loss_db,
    link_terms,
)
from planner.domain.physical.channels import Channels, point_to_point_channels
from planner.domain.physical.optics_tables import channel_limits, phy_of, tables_for
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

MMF_POD = {
    "name": "mmf-pod",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 31,
    "servers_per_su": 32,
    "switches": {"leaf": "QM9700"},
    "reserved_leaf_ports": 4,
    "media": {"server-leaf": "MMF", "leaf-spine": "MMF"},
}
IEEE_SR4 = {  # a generic IEEE 802.3db 400GBASE-SR4 module (100 m on OM4)
    "slug": "ieee-400g-sr4",
    "category": "transceiver",
    "pmd": "SR4",
    "speed_gbps": 400,
    "lane_rate_gbps": 100,
    "media": "mmf",
    "fiber_grades": ["OM4"],
    "connector": "mpo12-apc",
    "reach_m": 100,
}
OM4_TRUNK = {"slug": "om4-mpo", "category": "fiber", "fiber_type": "mmf", "fiber_grade": "OM4"}


@pytest.fixture(scope="module")
def pod(facts):
    return build_fabric(parse_spec(MMF_POD), facts)


def _channels(fabric, *, mated=0, mpo=0, splices=0, fiber_m=None) -> Channels:
    count = fabric.link_count
    base = point_to_point_channels(fabric)
    return Channels(
        fiber_m=base.fiber_m if fiber_m is None else np.asarray(fiber_m, dtype=np.float32),
        mated_pairs=np.full(count, mated, dtype=np.int16),
        mpo_pairs=np.full(count, mpo, dtype=np.int16),
        splices=np.full(count, splices, dtype=np.int16),
        kind="test",
    )


def test_fluke_worked_example_150_m_of_om4():
    tables = tables_for(None)
    terms = replace(link_terms(IEEE_SR4, IEEE_SR4, OM4_TRUNK, tables), limit_db=1.5)
    fibre = link_loss_db(terms, 150.0, 0, 0, 0, "typical")
    assert fibre == pytest.approx(0.45)  # 150 m x 3.0 dB/km
    assert terms.limit_db - fibre == pytest.approx(1.05)  # left for connectors
    # At 0.75 dB per mated pair (TIA's worst case) one pair fits and two do not.
    assert terms.mpo_pair_db[1] == 0.75
    one = terms.limit_db - (fibre + terms.fixed_loss_db(1, 0, 0, "worst"))
    two = terms.limit_db - (fibre + terms.fixed_loss_db(2, 0, 0, "worst"))
    assert one == pytest.approx(0.30) and two == pytest.approx(-0.45)


def test_ieee_channel_limits_of_the_optics_table():
    # TIA FOTC pages (next-wave.md §1.1), primary; the seed's optics.yaml is the only table.
    limits = tables_for(None).phy_limits
    dbs = {phy: {grade: limit.db for grade, limit in row.items()} for phy, row in limits.items()}
    assert dbs["800GBASE-DR8"]["OS2"] == 3.0
    assert dbs["400GBASE-SR8"] == {"OM3": 1.8, "OM4": 1.9, "OM5": 1.9}
    assert dbs["400GBASE-SR4.2"] == {"OM3": 1.7, "OM4": 1.8, "OM5": 2.0}
    assert dbs["400GBASE-LR8"]["OS2"] == 6.3
    assert dbs["400GBASE-DR4"]["OS2"] == 3.0
    assert phy_of(IEEE_SR4) == "400GBASE-SR4"
    sr4 = channel_limits(IEEE_SR4)["OM4"]
    assert (sr4.db, sr4.grade) == (1.9, "secondary")
    assert (
        sr4.source
        == "https://www.china-tscom.com/introduction-of-the-fiber-loss-budget-standard.html"
    )
    assert limits["400GBASE-SR8"]["OM3"].source.startswith("https://www.tiafotc.org/")
    assert limits["400GBASE-SR8"]["OM3"].grade == "datasheet"


def test_passes_reach_fails_loss_100_m_om4_four_mpo_pairs():
    terms = link_terms(IEEE_SR4, IEEE_SR4, OM4_TRUNK)
    assert (terms.phy, terms.grade, terms.limit_db) == ("400GBASE-SR4", "OM4", 1.9)
    assert IEEE_SR4["reach_m"] >= 100  # within reach
    worst = link_loss_db(terms, 100.0, 4, 0, 0, "worst")
    typical = link_loss_db(terms, 100.0, 4, 0, 0, "typical")
    assert worst == pytest.approx(0.35 + 3.0)  # 0.1 km x 3.5 + 4 x 0.75
    assert typical == pytest.approx(0.30 + 2.0)  # 0.1 km x 3.0 + 4 x 0.5
    assert terms.limit_db - worst == pytest.approx(-1.45)
    # The same run point to point (no mated pair between the MDIs) closes easily.
    assert terms.limit_db - link_loss_db(terms, 100.0, 0, 0, 0, "worst") > 1.5


def test_vectorized_equals_scalar_reference_on_random_channels(pod, facts):
    rng = np.random.default_rng(19)
    count = pod.link_count
    mpo = rng.integers(0, 5, count).astype(np.int16)
    channels = Channels(
        fiber_m=rng.uniform(0.5, 400.0, count).astype(np.float32),
        mated_pairs=(mpo + rng.integers(0, 3, count)).astype(np.int16),
        mpo_pairs=mpo,
        splices=rng.integers(0, 3, count).astype(np.int16),
    )
    budgets = compute_budgets(pod, facts, channels)
    assert budgets.links.size == in_scope(pod, facts).size > 100
    for position in rng.choice(budgets.links.size, 300, replace=False):
        link = int(budgets.links[position])
        terms = budgets.terms[int(budgets.kind[position])]
        args = (
            float(channels.fiber_m[link]),
            int(channels.mpo_pairs[link]),
            int(channels.mated_pairs[link] - channels.mpo_pairs[link]),
            int(channels.splices[link]),
        )
        for case, column in (
            ("typical", budgets.loss_typical_db),
            ("worst", budgets.loss_worst_db),
        ):
            assert float(column[position]) == pytest.approx(
                link_loss_db(terms, *args, case), rel=1e-5, abs=1e-5
            )
        if math.isfinite(terms.limit_db):
            expected = terms.limit_db - link_loss_db(terms, *args, "worst")
            assert float(budgets.margin_db[position]) == pytest.approx(expected, abs=1e-4)


def test_point_to_point_mmf_pod_closes_with_margin(pod, facts):
    budgets = compute_budgets(pod, facts)
    assert budgets.links.size and budgets.known.all()
    # NVIDIA 2xSR4 + SR4 over MFP7E10 (grade not stated: OM4 assumed), 400GBASE-SR4 1.9 dB.
    assert {t.limit_db for t in budgets.terms} == {1.9}
    assert all(t.grade == "OM4" and t.grade_assumed for t in budgets.terms)
    longest = float(point_to_point_channels(pod).fiber_m[budgets.links].max())
    assert float(budgets.margin_db.min()) == pytest.approx(1.9 - longest / 1000 * 3.5, abs=1e-4)
    assert sum(row["count"] for row in budgets.histogram()) == budgets.links.size


def test_validation_reports_the_link_that_fails_loss_within_reach(pod, facts, monkeypatch):
    # Four mated MPO pairs on every link (e.g. two panels and two cassettes): within the 50 m
    # NVIDIA reach, over the 1.9 dB channel limit (4 x 0.75 = 3.0 dB of connections alone).
    monkeypatch.setattr(budget_module, "channels_for", lambda f, **_: _channels(f, mated=4, mpo=4))
    report = validate_fabric(pod, facts)
    over = report.by_code("optical-loss-exceeded")
    assert over and all(p.severity == "error" for p in over)
    assert "reach-exceeded" not in report.codes()
    ids = {i for p in over for i in p.element_ids}
    scoped = {f"link:{i}" for i in in_scope(pod, facts)}
    assert ids == scoped
    message = over[0].message
    assert "1.9 dB channel limit of 400GBASE-SR4 on OM4 (assumed)" in message
    assert "4 mated MPO pair(s) x 0.75 dB" in message and "segments: fibre" in message
    # the worst link by its ends' names (planner.domain.names), never its element id
    assert "link:" not in message and re.search(r"worst link \S+ \d+/\d+ → \S+ \d+/\d+", message)


def test_margin_threshold_is_the_designs(pod, facts):
    assert "optical-margin-low" not in validate_fabric(pod, facts).codes()
    strict = parse_spec({**MMF_POD, "optical_margin_min_db": 1.88})
    fabric = build_fabric(strict, facts)
    assert fabric.info["optical_margin_min_db"] == 1.88
    low = validate_fabric(fabric, facts).by_code("optical-margin-low")
    budgets = compute_budgets(fabric, facts)
    expected = int((budgets.margin_db < 1.88).sum())
    assert expected and sum(p.count for p in low) == expected
    assert all(p.severity == "warning" and "under 1.88 dB" in p.message for p in low)


def test_unknown_limit_is_info_and_catalog_facts_win(facts):
    cwdm4 = {"slug": "x", "pmd": "CWDM4", "speed_gbps": 100, "media": "smf"}
    os2 = {"slug": "f", "fiber_type": "smf", "fiber_grade": "OS2"}
    terms = link_terms(cwdm4, cwdm4, os2)
    assert not terms.known and "channel limit unknown" in terms.why_unknown
    stated = link_terms({**IEEE_SR4, "channel_il_max_db": {"OM4": 1.5}}, IEEE_SR4, OM4_TRUNK)
    assert stated.limit_db == 1.5 and stated.limit_grade == "catalog"


def test_cable_assemblies_are_out_of_scope(facts):
    # Media auto on a GB200 NVL72 pod: 1:2 DACs between the QM9700 and the trays (no optics).
    spec = {
        "name": "gb200",
        "topology": "clos",
        "server": "GB200-NVL72",
        "servers": 4,
        "rails": 4,
        "switches": {"leaf": "QM9700"},
        "layout": {"rack_units": 10, "tray_height_m": 0, "slack_m": 0, "servers_per_rack": 1},
    }
    fabric = build_fabric(parse_spec(spec), facts)
    category = np.array([facts.parts[slug]["category"] for slug in fabric.parts] + ["none"])
    assemblies = np.flatnonzero(category[fabric.link_cable_part] == "cable")
    assert assemblies.size
    budgets = compute_budgets(fabric, facts)
    assert not np.isin(assemblies, budgets.links).any()
    assert budgets.out_of_scope >= assemblies.size


def _media_of(fabric, facts, tier: str) -> set[str]:
    links = fabric.link_tier == TIER[tier]
    used = np.unique(np.concatenate([fabric.link_a_part[links], fabric.link_b_part[links]]))
    return {facts.parts[fabric.parts[i]].get("media") for i in used if i >= 0} - {None}


def test_media_auto_closes_the_budget_not_just_the_reach(facts, monkeypatch):
    from planner.domain.fabric import FabricError
    from planner.domain.media.budget import BudgetCheck

    auto = {**MMF_POD, "media": {"server-leaf": "MMF"}}
    assert _media_of(build_fabric(parse_spec(auto), facts), facts, "leaf-spine") == {"mmf"}

    # Three mated MPO pairs on every leaf-spine run (2.25 dB worst case before any fibre, over
    # 400GBASE-SR4's 1.9 dB; single-mode DR4's 3.0 dB still closes), none elsewhere.
    def three_pairs(self, tier, cand):
        return (3, 0, 0) if tier == "leaf-spine" else (0, 0, 0)

    monkeypatch.setattr(BudgetCheck, "connections", three_pairs)
    fabric = build_fabric(parse_spec(auto), facts)
    assert _media_of(fabric, facts, "leaf-spine") == {"smf"}
    assert _media_of(fabric, facts, "server-leaf") == {"mmf"}
    pairs = np.where(fabric.link_tier == TIER["leaf-spine"], 3, 0).astype(np.int16)
    base = point_to_point_channels(fabric)
    channels = Channels(base.fiber_m, pairs, pairs.copy(), np.zeros_like(pairs))
    budgets = compute_budgets(fabric, facts, channels)
    assert budgets.links.size and float(np.nanmin(budgets.margin_db)) >= 0
    with pytest.raises(FabricError) as refused:
        build_fabric(parse_spec(MMF_POD), facts)  # MMF asked for: nothing closes
    text = str(refused.value)
    assert "leaf-spine link" in text and "rejected for the optical budget" in text
    assert "3 mated MPO pair(s) alone (2.25 dB) exceeds the 1.9 dB channel limit" in text
