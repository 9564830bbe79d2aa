"""How a parameter sweep reads on the pages: busbw p50/p90 against the first swept axis as an
inline SVG chart (one colour per combination of the other swept axes), and a table by point.

Drawn from the points done so far while the sweep runs (``result["sweep"]``, the runs' summaries
on the job row), from ``result["points"]`` once it has finished. Pure formatting: templates only
place what is built here.
"""

from __future__ import annotations

import math

from planner.analyses.sweep import SweepPlan, sweep_result
from planner.presentation import count as count_of
from planner.presentation import number
from simulation.presentation import gbps, percent, routing_label, seconds

#: Plot area (chart units, y down) and the margins around it for the axes' labels.
PLOT_W, PLOT_H = 560, 220
MARGIN_LEFT, MARGIN_TOP, MARGIN_RIGHT, MARGIN_BOTTOM = 64, 14, 20, 48
#: Series colours: the app's accent, bad, ok and warn colours, then four more.
COLOURS = (
    "#1f5fbf",
    "#b3261e",
    "#1b7f3b",
    "#a35b00",
    "#6a3fb5",
    "#0f7c86",
    "#c2185b",
    "#5b6475",
)
#: At most this many x labels; with more values every n-th is labelled.
MAX_X_LABELS = 12
AXIS_TITLES = {
    "fail_links": "Failed links",
    "size_bytes": "Message size",
    "placement": "GPU placement",
    "routing": "Routing",
}
#: The same inside a sentence.
AXIS_WORDS = {
    "fail_links": "failed links",
    "size_bytes": "message size",
    "placement": "GPU placement",
    "routing": "routing",
}


def size_text(value) -> str:
    """``1e8`` -> ``"100 MB"`` (10^3 steps, as message sizes are quoted)."""
    value = float(value)
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if value >= scale:
            return f"{value / scale:,.4g} {unit}"
    return f"{value:,.0f} B"


def value_text(axis: str, value) -> str:
    if axis == "fail_links":
        return number(value)
    if axis == "size_bytes":
        return size_text(value)
    return str(value)


def _nice_top(value: float) -> tuple[float, float]:
    """A round top of the y axis at or above ``value`` and its tick step (about 5 ticks)."""
    if value <= 0:
        return 1.0, 0.25
    raw = value / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    return step * math.ceil(value / step - 1e-9), step


def _x_positions(axis: str, values: list) -> dict:
    """Where each value of the x axis sits (0..PLOT_W): failed links on a linear scale,
    message sizes on a log scale, placements and routings evenly spaced."""
    if axis in ("fail_links", "size_bytes") and len(values) > 1:
        scale = (lambda v: math.log10(v)) if axis == "size_bytes" else float
        low, high = scale(min(values)), scale(max(values))
        if high > low:
            return {v: round(PLOT_W * (scale(v) - low) / (high - low), 1) for v in values}
    n = len(values)
    return {v: round(PLOT_W * (i + 0.5) / n, 1) for i, v in enumerate(values)}


def _points_of(job) -> tuple[dict | None, bool]:
    """The sweep result to draw (final, or built from the runs done so far) and whether it is
    final."""
    result = job.result if isinstance(job.result, dict) else {}
    if job.status == "succeeded" and "points" in result:
        return result, True
    try:
        plan = SweepPlan.from_parameters(job.parameters or {})
    except (TypeError, ValueError):
        return None, False
    done = (result.get("sweep") or {}).get("done") or {}
    return sweep_result(plan, done), False


def _series_label(point: dict, axes: list[str]) -> str:
    return ", ".join(value_text(axis, point[axis]) for axis in axes) or "busbw"


def _y(value: float, top: float) -> float:
    return round(PLOT_H * (1 - value / top), 1)


def sweep_chart(data: dict) -> dict:
    """The chart of a sweep result (final or partial): axes, ticks, series (p50 and p90 lines
    and markers) and the bound line.

    Long because: one SVG chart: axes, ticks, two series and the bound line, computed together from
    the same scales.
    """
    varying = list(data.get("varying") or [])
    axes = data.get("axes") or {}
    x_axis = varying[0] if varying else "fail_links"
    others = [axis for axis in varying if axis != x_axis]
    x_values = list(axes.get(x_axis) or [])
    positions = _x_positions(x_axis, x_values)
    points = data.get("points") or []
    done = [p for p in points if "busbw_gbps" in p]
    bounds = {p.get("bound_busbw_gbps") for p in done if p.get("bound_busbw_gbps")}
    highest = max([p["busbw_gbps"]["max"] for p in done] + list(bounds) + [0.0])
    top, step = _nice_top(highest * 1.05)
    y_ticks = [
        {"y": _y(step * i, top), "label": f"{step * i:,.4g}"}
        for i in range(int(round(top / step)) + 1)
    ]
    every = max(1, math.ceil(len(x_values) / MAX_X_LABELS))
    x_ticks = [
        {
            "x": positions[v],
            "label": value_text(x_axis, v) if i % every == 0 or i == len(x_values) - 1 else "",
        }
        for i, v in enumerate(x_values)
    ]
    series = {}
    for point in points:
        key = tuple(point[axis] for axis in others)
        series.setdefault(key, []).append(point)
    drawn = []
    for index, members in enumerate(series.values()):
        colour = COLOURS[index % len(COLOURS)]
        members.sort(key=lambda p: positions.get(p[x_axis], 0))
        p50_lines, p90_lines, current50, current90, markers = [], [], [], [], []
        for point in members:
            if "busbw_gbps" not in point:  # pending: the line breaks here
                p50_lines.append(current50)
                p90_lines.append(current90)
                current50, current90 = [], []
                continue
            x = positions[point[x_axis]]
            busbw = point["busbw_gbps"]
            y50, y90 = _y(busbw["p50"], top), _y(busbw["p90"], top)
            current50.append(f"{x},{y50}")
            current90.append(f"{x},{y90}")
            where = ", ".join(
                f"{AXIS_WORDS[a]} {value_text(a, point[a])}" for a in [x_axis, *others]
            )
            markers.append(
                {
                    "x": x,
                    "y50": y50,
                    "y90": y90,
                    "label": f"{where}: busbw p50 {gbps(busbw['p50'])}, p90 "
                    f"{gbps(busbw['p90'])} ({count_of(len(point.get('runs') or []), 'seed')})",
                }
            )
        p50_lines.append(current50)
        p90_lines.append(current90)
        drawn.append(
            {
                "label": _series_label(members[0], others),
                "colour": colour,
                "p50": [" ".join(line) for line in p50_lines if len(line) > 1],
                "p90": [" ".join(line) for line in p90_lines if len(line) > 1],
                "markers": markers,
            }
        )
    bound = next(iter(bounds)) if len(bounds) == 1 else None
    return {
        "w": PLOT_W,
        "h": PLOT_H,
        "view": f"{-MARGIN_LEFT} {-MARGIN_TOP} {PLOT_W + MARGIN_LEFT + MARGIN_RIGHT} "
        f"{PLOT_H + MARGIN_TOP + MARGIN_BOTTOM}",
        "width": PLOT_W + MARGIN_LEFT + MARGIN_RIGHT,
        "height": PLOT_H + MARGIN_TOP + MARGIN_BOTTOM,
        "x_title": AXIS_TITLES[x_axis],
        "x_words": AXIS_WORDS[x_axis],
        "x_title_x": PLOT_W // 2,
        "x_title_y": PLOT_H + 38,
        "y_title_x": -PLOT_H // 2,
        "mid_y": PLOT_H // 2,
        "x_ticks": x_ticks,
        "y_ticks": y_ticks,
        "tick_label_y": PLOT_H + 16,
        "series": drawn,
        "legend": len(drawn) > 1,
        "bound_y": _y(bound, top) if bound else None,
        "bound_label": f"non-blocking bound {gbps(bound)}" if bound else "",
        "empty": not done,
    }


def _table(data: dict) -> dict:
    varying = list(data.get("varying") or []) or ["fail_links"]
    seeds = data.get("seeds") or 1
    rows = []
    for point in data.get("points") or []:
        values = [value_text(axis, point[axis]) for axis in varying]
        if "busbw_gbps" not in point:
            state = f"{point.get('runs_done', 0)} of {count_of(seeds, 'run')} done"
            rows.append({"values": values, "pending": state})
            continue
        busbw, time_s = point["busbw_gbps"], point["completion_time_s"]
        rows.append(
            {
                "values": values,
                "figures": [
                    gbps(busbw["p50"]),
                    gbps(busbw["p90"]),
                    gbps(busbw["min"]),
                    seconds(time_s["p50"]),
                    seconds(time_s["p90"]),
                    percent(point["max_link_utilization"]["p50"]),
                    percent(point.get("efficiency_p50")),
                    number(point.get("failed_links")),
                ],
            }
        )
    return {"axes": [AXIS_TITLES[a] for a in varying], "rows": rows}


def sweep_context(job) -> dict | None:
    """What a page shows of a sweep job: the chart, the table by point, and how far it got."""
    data, final = _points_of(job)
    if data is None:
        return None
    axes = data.get("axes") or {}
    fixed = [
        f"{AXIS_WORDS[axis]} {value_text(axis, values[0])}"
        for axis, values in axes.items()
        if len(values) == 1
    ]
    routings = axes.get("routing") or []
    return {
        "job": job,
        "final": final,
        "chart": sweep_chart(data),
        "table": _table(data),
        "traffic": data.get("traffic"),
        "seeds": count_of(data.get("seeds") or 1, "seed"),
        "first_seed": data.get("seed") or 0,
        "fixed": ", ".join(fixed),
        "routing_labels": [(r, routing_label(r)) for r in routings],
        "points_text": (
            f"{number(data.get('points_done'))} of {count_of(data.get('points_total'), 'point')} "
            f"done ({number(data.get('runs_done'))} of {count_of(data.get('runs_total'), 'run')})"
        ),
    }
