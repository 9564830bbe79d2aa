"""Parameter sweeps (planner.analyses.sweep): the points and runs of a plan, and a result that
depends on the runs' summaries only, not on the order they came in."""

from __future__ import annotations

import random

import pytest

from planner.analyses.sweep import SweepPlan, progress_text, run_summary, sweep_result

PLAN = SweepPlan(
    traffic="permutation",
    fail_links=(0, 4),
    placement=("contiguous", "fragmented"),
    routing=("ecmp", "flowlet"),
    seeds=3,
    seed=10,
    flowlets=4,
)


def _summary(run: int) -> dict:
    return {
        "seed": PLAN.run_scenario(run)["seed"],
        "completion_time_s": 0.01 + 0.001 * ((run * 7) % 5),
        "busbw_gbps": 400.0 - 13.7 * ((run * 3) % 4),
        "algbw_gbps": 1.0,
        "bound_busbw_gbps": 400.0,
        "max_link_utilization": 0.5 + 0.1 * (run % 3),
        "failed_links": PLAN.run_scenario(run)["fail_links"],
    }


def test_points_cross_the_axes_and_runs_number_them_point_by_point():
    assert PLAN.point_count == 8 and PLAN.run_count == 24
    assert PLAN.varying == ("fail_links", "placement", "routing")
    points = PLAN.points()
    assert points[0] == {
        "fail_links": 0,
        "size_bytes": 1e9,
        "placement": "contiguous",
        "routing": "ecmp",
    }
    assert points[-1]["fail_links"] == 4 and points[-1]["routing"] == "flowlet"
    # run 3k..3k+2 are point k, seeds 10, 11, 12
    assert [PLAN.run_scenario(r)["seed"] for r in range(6)] == [10, 11, 12, 10, 11, 12]
    assert PLAN.run_point(5) == 1 and PLAN.run_scenario(5)["routing"] == "flowlet"
    assert PLAN.run_scenario(5)["flowlets"] == 4  # flowlet routing's points only
    assert "flowlets" not in PLAN.run_scenario(0)
    with pytest.raises(ValueError, match="not one of the sweep's 24 runs"):
        PLAN.run_scenario(24)


def test_a_plan_reads_the_jobs_parameters():
    plan = SweepPlan.from_parameters(
        {"traffic": "all-reduce", "fail_links": [0, 2], "routing": ["ecmp"], "seeds": 2}
    )
    assert plan.fail_links == (0, 2) and plan.routing == ("ecmp",) and plan.seeds == 2
    assert plan.size_bytes == (1e9,) and plan.placement == ("contiguous",)


def test_the_result_does_not_depend_on_the_order_runs_were_done():
    summaries = [(str(run), _summary(run)) for run in range(PLAN.run_count)]
    first = sweep_result(PLAN, dict(summaries))
    for shuffle_seed in range(5):
        shuffled = summaries[:]
        random.Random(shuffle_seed).shuffle(shuffled)
        assert sweep_result(PLAN, dict(shuffled)) == first
    assert first["points_done"] == 8 and first["runs_done"] == 24
    point = first["points"][0]
    busbw = sorted(_summary(r)["busbw_gbps"] for r in range(3))
    assert point["busbw_gbps"]["min"] == busbw[0] and point["busbw_gbps"]["max"] == busbw[-1]
    assert point["busbw_gbps"]["p50"] == busbw[1]
    assert point["busbw_gbps"]["p50"] <= point["busbw_gbps"]["p90"] <= point["busbw_gbps"]["max"]
    assert [run["seed"] for run in point["runs"]] == [10, 11, 12]
    assert first["points"][7]["failed_links"] == 4


def test_a_partial_result_has_statistics_only_for_points_whose_runs_are_all_done():
    done = {run: run_summary(_summary(run)) for run in (0, 1, 2, 3, 23)}
    partial = sweep_result(PLAN, done)
    assert partial["points_done"] == 1 and partial["runs_done"] == 5
    assert "busbw_gbps" in partial["points"][0]
    assert partial["points"][1]["runs_done"] == 1 and "busbw_gbps" not in partial["points"][1]
    assert progress_text(PLAN, done) == "Sweep: 1 of 8 points done (5 of 24 runs)"
