"""The explorer end to end on a small case: 256 GPUs, three switches (issue 39 items 1, 2, 4)."""

import json

import pytest

from planner.analyses.explore.candidates import enumerate_candidates
from planner.analyses.explore.evaluate import evaluate_candidate
from planner.analyses.explore.front import (
    TOLERANCE,
    distance_to_front,
    explore_result,
    pareto_front,
)
from planner.analyses.explore.requirements import parse_requirements
from planner.domain.spec import parse_spec

SMALL = {
    "name": "256 H100",
    "gpus": 256,
    "servers": ["DGX-H100"],
    "switches": ["QM9700", "QFX5240-64OD", "SN5600"],
    "oversubscription": {"min": 1, "max": 2},
    "objectives": ["cost", "collective_time_s", "power_w"],
}


@pytest.fixture(scope="module")
def small(facts, seed_prices):
    table, price_of = seed_prices
    req = parse_requirements(SMALL, facts)
    enumeration = enumerate_candidates(req, facts, price_of=price_of)
    evaluations = {
        c.index: evaluate_candidate(c, req, facts, prices=table, price_of=price_of)
        for c in enumeration.candidates
    }
    return req, enumeration, evaluations


def test_every_candidate_is_a_spec_the_designs_accept(small):
    _, enumeration, _ = small
    assert len(enumeration.candidates) == 18  # 2 topologies x 3 switches x 3 ratios, 2 tiers
    keys = [c.key for c in enumeration.candidates]
    assert len(set(keys)) == len(keys)
    assert keys[0] == "rail-optimized|DGX-H100|QM9700/QM9700/-|400G|1p|2t|1:1|point-to-point"
    for candidate in enumeration.candidates:
        spec = parse_spec(candidate.document)
        assert spec.server == "DGX-H100" and spec.servers == 32
        assert spec.tiers == candidate.axes["tiers"]


def test_three_tiers_are_pruned_with_the_reason(small):
    _, enumeration, _ = small
    three = [p for p in enumeration.pruned if p["axes"].get("tiers") == 3]
    assert sum(p["count"] for p in three) == 18
    assert all("two tiers already hold 256 server ports" in p["reason"] for p in three)


def test_the_same_input_gives_the_same_result(small, facts, seed_prices):
    req, enumeration, evaluations = small
    table, price_of = seed_prices
    again = enumerate_candidates(req, facts, price_of=price_of)
    assert [c.document for c in again.candidates] == [c.document for c in enumeration.candidates]
    first = enumeration.candidates[0]
    twice = evaluate_candidate(first, req, facts, prices=table, price_of=price_of)
    once = dict(evaluations[first.index])
    twice.pop("seconds"), once.pop("seconds")
    assert twice == once


def test_the_result_is_json_and_independent_of_arrival_order(small):
    req, enumeration, evaluations = small
    forward = explore_result(req, enumeration, evaluations)
    backward = explore_result(req, enumeration, dict(reversed(list(evaluations.items()))))
    assert json.dumps(forward, sort_keys=True) == json.dumps(backward, sort_keys=True)
    assert [c["index"] for c in forward["candidates"]] == list(range(18))
    counts = forward["counts"]
    assert counts["enumerated"] == 18
    assert counts["feasible"] + counts["infeasible"] + counts["crashed"] == 18
    assert counts["crashed"] == 0
    assert forward["front"], "some candidate is on the front"


def test_feasible_candidates_carry_every_metric(small):
    _, _, evaluations = small
    feasible = [e for e in evaluations.values() if e["status"] == "feasible"]
    assert feasible
    for e in feasible:
        m = e["metrics"]
        assert m["gpus"] == 256 and m["servers"] == 32
        assert m["cost"] > 0 and m["currency"] == "USD"
        assert m["power_w"] > 0 and m["bisection_gbps"] > 0
        assert m["collective_time_s"] > 0 and m["busbw_gbps"] > 0
        assert m["failures_per_day"] > 0
        assert m["gpus_lost_switch"] >= 1
        assert m["workload"][0]["collective"] == "all-reduce"


def test_dominated_candidates_name_a_dominator_and_by_how_much(small):
    req, enumeration, evaluations = small
    result = explore_result(req, enumeration, evaluations)
    rows = {r["index"]: r for r in result["candidates"]}
    dominated = [r for r in rows.values() if r["status"] == "feasible" and not r["front"]]
    assert dominated
    for row in dominated:
        better = rows[row["dominated_by_index"]]
        assert better["front"] and better["key"] == row["dominated_by"]
        assert row["why"].startswith(f"dominated by #{better['index']}: ")
        for name in result["objectives"]:  # at least as good, within the tolerance
            assert better["metrics"][name] <= row["metrics"][name] * (1 + TOLERANCE)
    for row in rows.values():
        if row["status"] == "infeasible":
            assert row["why"].startswith("infeasible: ") and row["reasons"]


def test_the_front_over_other_axes(small):
    _, _, evaluations = small
    rows = list(evaluations.values())
    by_bisection = pareto_front(rows, ["bisection_gbps"])
    best = max(e["metrics"]["bisection_gbps"] for e in rows if e["status"] == "feasible")
    assert by_bisection["front"]
    assert all(evaluations[i]["metrics"]["bisection_gbps"] == best for i in by_bisection["front"])
    with pytest.raises(ValueError, match="objectives"):
        pareto_front(rows, ["speed"])


def test_a_dominated_design_is_placed_against_the_front(small):
    req, enumeration, evaluations = small
    result = explore_result(req, enumeration, evaluations)
    row = next(r for r in result["candidates"] if r["status"] == "feasible" and not r["front"])
    distance = distance_to_front(evaluations[row["index"]], result)
    assert distance["on_front"] is False
    assert distance["nearest"] == row["dominated_by_index"]
    assert distance["why"].startswith(f"dominated by #{row['dominated_by_index']} (")
    assert set(distance["gaps"]) >= {"cost", "power_w", "collective_time_s"}
    front_row = evaluations[result["front"][0]]
    placed = distance_to_front(front_row, result)
    assert placed["on_front"] and result["front"][0] in placed["same"]
