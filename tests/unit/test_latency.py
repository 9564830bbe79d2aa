"""GPU-to-GPU latency per path class (issue 23 item 1): planner.analyses.latency against
figures worked out here, link by link, from the seed catalog's facts.

One SU of DGX-H100 on QM9700 (multimode optics): same leaf = 2 server-leaf links and one
switch; via spine = 2 server-leaf + 2 leaf-spine links and three switches. QM9700's
port-to-port latency (150 ns, "under 150 nanoseconds") and the multimode fibres' 4.95 ns/m
(group index 1.483 at 850 nm, issue 36.7) are seed figures; the modules have no published
latency, so the figures are lower bounds until a test gives them one.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from inventory.library.facts import latency_facts_of
from inventory.library.rules import check_part
from planner.analyses.latency import latency_report, link_latency_ns, switch_latency_ns
from planner.domain.fabric import ROLE, TIER
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from planner.presentation import latency_rows

SPEC = {
    "name": "1 SU",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 31,
    "servers_per_su": 32,
    "reserved_leaf_ports": 4,
    "switches": {"leaf": "QM9700"},
    "media": {"server-leaf": "MMF", "leaf-spine": "MMF"},
}


@pytest.fixture(scope="module")
def pod(facts):
    return build_fabric(parse_spec(SPEC), facts)


def _by_hand(fabric, facts, module_ns=None):
    """Per link (metres, propagation ns, added ns or None) in a plain loop."""
    rows = []
    for i in range(fabric.link_count):
        cable = float(fabric.link_cable_length_m[i])
        metres = cable if cable > 0 else float(fabric.link_length_m[i])
        fibre = facts.parts[fabric.parts[fabric.link_cable_part[i]]]
        added = 0.0
        for end in (fabric.link_a_part[i], fabric.link_b_part[i]):
            if end >= 0:
                slug = fabric.parts[end]
                value = (module_ns or {}).get(slug, facts.parts[slug].get("latency_ns"))
                added = None if value is None or added is None else added + value
        per_m = fibre.get("propagation_ns_per_m")
        rows.append((metres, metres * per_m if per_m else math.nan, added))
    return rows


def _tier(fabric, tier):
    mask = fabric.link_tier == TIER[tier]
    if tier == "server-leaf":
        mask &= fabric.node_role[fabric.link_a] == ROLE["server"]
    return np.flatnonzero(mask)


def test_same_leaf_and_via_spine_from_the_facts(pod, facts):
    switch = facts.parts["QM9700"]["latency_ns"]
    fibres = {pod.parts[p] for p in pod.link_cable_part[_tier(pod, "leaf-spine")]}
    fibres |= {pod.parts[p] for p in pod.link_cable_part[_tier(pod, "server-leaf")]}
    assert switch == 150
    assert {facts.parts[slug]["propagation_ns_per_m"] for slug in fibres} == {4.95}
    rows = _by_hand(pod, facts)
    sl = [rows[i] for i in _tier(pod, "server-leaf")]
    ls = [rows[i] for i in _tier(pod, "leaf-spine")]
    report = latency_report(pod, facts)
    assert list(report["classes"]) == ["same-leaf", "via-spine"]

    same = report["classes"]["same-leaf"]
    assert same["hops"] == 1 and same["switches"] == ["leaf"]
    assert same["metres"]["min"] == pytest.approx(2 * min(m for m, _, _ in sl))
    assert same["metres"]["max"] == pytest.approx(2 * max(m for m, _, _ in sl))
    assert same["latency_ns"]["min"] == pytest.approx(2 * min(p for _, p, _ in sl) + 150, abs=0.1)
    assert same["latency_ns"]["max"] == pytest.approx(2 * max(p for _, p, _ in sl) + 150, abs=0.1)
    assert same["complete"] is False  # no module has a published latency
    assert any(u.startswith("module latency unknown for MMA4Z00-NS") for u in same["unknown"])

    spine = report["classes"]["via-spine"]
    assert spine["hops"] == 3 and spine["switches"] == ["leaf", "spine", "leaf"]
    typical_m = 2 * float(np.median([m for m, _, _ in sl])) + 2 * float(
        np.median([m for m, _, _ in ls])
    )
    assert spine["metres"]["typical"] == pytest.approx(typical_m)
    assert spine["latency_ns"]["typical"] == pytest.approx(4.95 * typical_m + 3 * 150, abs=0.1)
    assert spine["switch_ns"] == {"min": 450.0, "typical": 450.0, "max": 450.0}


def test_module_latency_makes_the_path_complete(pod, facts):
    known = copy.copy(facts)
    known.parts = {k: dict(v) for k, v in facts.parts.items()}
    used = {pod.parts[p] for p in np.concatenate([pod.link_a_part, pod.link_b_part]) if p >= 0}
    for slug in used:  # a test figure, not a catalog one
        known.parts[slug]["latency_ns"] = 100.0
    rows = _by_hand(pod, known)
    per_link = link_latency_ns(pod, known)
    assert per_link.shape == (pod.link_count,)
    assert per_link == pytest.approx([p + a for _, p, a in rows], nan_ok=True)
    same = latency_report(pod, known)["classes"]["same-leaf"]
    sl = [rows[i] for i in _tier(pod, "server-leaf")]
    assert same["complete"] and same["unknown"] == []
    assert same["latency_ns"]["min"] == pytest.approx(
        2 * min(p for _, p, _ in sl) + 2 * 200 + 150, abs=0.1
    )


def test_unknown_is_never_zero(pod, facts):
    per_link = link_latency_ns(pod, facts)  # the seed's modules have no latency
    assert np.isnan(per_link).all()
    blank = copy.copy(facts)
    blank.parts = {**facts.parts, "QM9700": {**facts.parts["QM9700"], "latency_ns": None}}
    blank.devices = {k: v for k, v in facts.devices.items() if k != "QM9700"}
    assert np.isnan(switch_latency_ns(pod, blank)).all()
    spine = latency_report(pod, blank)["classes"]["via-spine"]
    assert spine["switch_ns"] is None
    assert "switch latency unknown for QM9700 (leaf, spine)" in spine["unknown"]


def test_size_sweep_counts_the_known_propagation_as_the_latency_table_does(pod, facts):
    from planner.analyses.latency import link_latency_terms
    from planner.analyses.size_sweep import catalog_latency

    link_ns, _, notes = catalog_latency(pod, facts)  # modules unknown, fibres known
    propagation = link_latency_terms(pod, facts).propagation_ns
    known = np.isfinite(propagation)
    assert known.sum() > 0.9 * known.size and (propagation[known] > 0).all()
    assert np.allclose(link_ns[known], propagation[known])  # not 0 for the whole link
    assert any("lower bound" in note for note in notes)


def test_switch_latency_per_node(pod, facts):
    values = switch_latency_ns(pod, facts)
    switches = pod.node_role >= ROLE["leaf"]
    assert (values[switches] == 150).all() and np.isnan(values[~switches]).all()


def test_latency_facts_and_checks():
    assert latency_facts_of({"category": "fiber"})["latency_ns"] == 0.0
    assert latency_facts_of({"category": "cable", "cable_type": "aoc"})["latency_ns"] is None
    codes = {v.code for v in check_part("switch", {"latency_ns": 0, "forwarding_mode": "fast"})}
    assert codes == {"not-positive", "unknown-value"}
    assert [v.field for v in check_part("fiber", {"propagation_ns_per_m": -1})] == [
        "propagation_ns_per_m"
    ]


def test_page_rows_carry_units(pod, facts):
    table = latency_rows({"latency": latency_report(pod, facts)})
    same = table["rows"][0]
    assert same["label"] == "Same leaf" and same["hops"] == "1"
    assert same["min"].startswith("≥\u00a0") and same["min"].endswith("\u00a0ns")
    assert table["incomplete"] and not math.isnan(float(same["min"][2:-3].replace(",", "")))
