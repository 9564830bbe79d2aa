"""The exploration scatter's scales (pure): axes a user may pick, round ranges, tick labels
with the decimals their step needs, and the front of the two plotted metrics."""

from simulation.explore_chart import _decimals, _nice_range, _tick, explore_chart, pick_axes


def test_unknown_or_equal_axes_fall_back_to_cost_against_time():
    assert pick_axes({}) == ("cost", "collective_time_s")
    assert pick_axes({"x": "power_w", "y": "bisection_gbps"}) == ("power_w", "bisection_gbps")
    assert pick_axes({"x": "cost", "y": "cost"}) == ("cost", "collective_time_s")
    assert pick_axes({"x": "evil", "y": "power_w"}) == ("cost", "power_w")


def test_ranges_are_round_and_ticks_carry_the_decimals_of_their_step():
    assert _nice_range(1.33718, 1.33763) == (1.3371, 1.3377000000000001, 0.0001)
    low, high, step = _nice_range(7.29, 7.29)  # one value: padded around it
    assert low < 7.29 < high and step == 0.5
    assert [_decimals(s) for s in (0.0002, 2.5, 0.25, 500)] == [4, 1, 2, 0]
    assert _tick(1.3372, 0.0001) == "1.3372" and _tick(1200, 500) == "1,200"


def _candidate(index, status, cost, time_s, front=False):
    return {
        "index": index,
        "key": f"k{index}",
        "label": f"candidate {index}",
        "status": status,
        "front": front,
        "metrics": {"cost": cost, "collective_time_s": time_s, "currency": "USD"},
    }


def test_the_chart_marks_the_front_of_the_plotted_metrics():
    result = {
        "candidates": [
            _candidate(0, "feasible", 2e6, 0.002),
            _candidate(1, "feasible", 3e6, 0.001),
            _candidate(2, "feasible", 3.5e6, 0.003),  # dominated by both
            _candidate(3, "infeasible", 1e6, 0.001),  # better, but infeasible
            {"index": 4, "status": "crashed", "metrics": {}},
        ]
    }
    chart = explore_chart(result, "cost", "collective_time_s", lambda i: f"/c/{i}")
    by_status = {}
    for point in chart["points"]:
        by_status.setdefault(point["status"], []).append(point["href"])
    assert sorted(by_status["front"]) == ["/c/0", "/c/1"]
    assert by_status["feasible"] == ["/c/2"] and by_status["infeasible"] == ["/c/3"]
    assert chart["unplaced"] == 1 and chart["front_count"] == 2
    assert chart["x_title"] == "Cost (million USD)" and chart["y_title"] == "Collective time (ms)"
    assert len(chart["front_line"].split()) == 2
    assert chart["points"][-1]["status"] == "front"  # drawn last, on top
