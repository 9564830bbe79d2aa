"""The sweep chart (simulation.sweep_chart): x positions by axis, a series per combination of
the other swept axes, lines broken at points not done yet, and a round y axis."""

from __future__ import annotations

import pytest

from planner.analyses.sweep import SweepPlan, sweep_result
from simulation.sweep_chart import PLOT_H, PLOT_W, size_text, sweep_chart


def _result(plan: SweepPlan, skip=()) -> dict:
    done = {}
    for run in range(plan.run_count):
        if run in skip:
            continue
        scenario = plan.run_scenario(run)
        busbw = 400.0 - 10 * scenario["fail_links"] - (run % plan.seeds)
        done[run] = {
            "seed": scenario["seed"],
            "completion_time_s": 1 / busbw,
            "busbw_gbps": busbw,
            "algbw_gbps": busbw,
            "bound_busbw_gbps": 400.0,
            "max_link_utilization": 1.0,
            "failed_links": scenario["fail_links"],
        }
    return sweep_result(plan, done)


def test_failed_links_sit_on_a_linear_axis_one_series_per_routing():
    plan = SweepPlan(traffic="all-reduce", fail_links=(0, 2, 8), routing=("ecmp", "rail"), seeds=2)
    chart = sweep_chart(_result(plan))
    assert [t["x"] for t in chart["x_ticks"]] == [0.0, PLOT_W / 4, PLOT_W]
    assert [t["label"] for t in chart["x_ticks"]] == ["0", "2", "8"]
    assert [s["label"] for s in chart["series"]] == ["ecmp", "rail"] and chart["legend"]
    ecmp = chart["series"][0]
    assert len(ecmp["p50"]) == 1 and len(ecmp["p50"][0].split()) == 3  # one unbroken line
    assert chart["y_ticks"][-1]["label"] == "500" and chart["y_ticks"][0]["y"] == PLOT_H
    assert chart["bound_y"] == pytest.approx(PLOT_H * (1 - 400 / 500))
    assert "failed links 2, routing ecmp: busbw p50 379.5 Gb/s" in ecmp["markers"][1]["label"]


def test_a_point_not_done_breaks_its_line_and_sizes_sit_on_a_log_axis():
    plan = SweepPlan(traffic="all-reduce", size_bytes=(1e6, 1e7, 1e8, 1e9), seeds=1)
    chart = sweep_chart(_result(plan, skip={1}))
    assert chart["x_title"] == "Message size"
    assert [t["x"] for t in chart["x_ticks"]] == pytest.approx(
        [0, PLOT_W / 3, 2 * PLOT_W / 3, PLOT_W], abs=0.1
    )
    (series,) = chart["series"]
    assert not chart["legend"]
    assert len(series["markers"]) == 3 and series["p50"] == [series["p50"][0]]
    assert len(series["p50"][0].split()) == 2  # 1e8 to 1e9; 1e6 stands alone until 1e7 is done


def test_placements_are_evenly_spaced_and_an_empty_sweep_says_so():
    plan = SweepPlan(traffic="permutation", placement=("contiguous", "fragmented"))
    chart = sweep_chart(sweep_result(plan, {}))
    assert chart["empty"] and chart["x_title"] == "GPU placement"
    assert [t["x"] for t in chart["x_ticks"]] == [PLOT_W / 4, 3 * PLOT_W / 4]
    assert size_text(1e8) == "100 MB" and size_text(2.5e9) == "2.5 GB" and size_text(512) == "512 B"
