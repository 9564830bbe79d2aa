"""An exploration's scatter: each candidate at (x, y) for two metrics the user picks (cost and
collective time unless they pick others), the Pareto front of those two marked and joined.

Pure formatting from the job's result (:func:`planner.analyses.explore.front.explore_result`);
the template only places what is built here. The front drawn is the one of the plotted
metrics (:func:`~planner.analyses.explore.front.pareto_front`), which is the job's own front
when the plotted metrics are its objectives.
"""

from __future__ import annotations

import math

from planner.analyses.explore.front import pareto_front

#: Plot area (chart units, y down) and the margins around it for the axes' labels.
PLOT_W, PLOT_H = 600, 320
MARGIN_LEFT, MARGIN_TOP, MARGIN_RIGHT, MARGIN_BOTTOM = 72, 14, 24, 48
#: The metrics a user may put on an axis: title, how a value is scaled for the axis, its unit,
#: and whether more is better.
AXES = {
    "cost": ("Cost", None, "", False),
    "fabric_cost": ("Fabric cost", None, "", False),
    "collective_time_s": ("Collective time", 1e-3, "ms", False),
    "power_w": ("Power", 1e3, "kW", False),
    "bisection_gbps": ("Bisection bandwidth", 1e3, "Tb/s", True),
    "failures_per_day": ("Expected failures", 1, "per day", False),
}
DEFAULT_X, DEFAULT_Y = "cost", "collective_time_s"


def pick_axes(query) -> tuple[str, str]:
    """The x and y metrics of ``?x=&y=`` (unknown or equal ones fall back to the defaults)."""
    x = query.get("x") if query.get("x") in AXES else DEFAULT_X
    y = query.get("y") if query.get("y") in AXES else DEFAULT_Y
    return (DEFAULT_X, DEFAULT_Y) if x == y else (x, y)


def _cost_scale(values: list[float]) -> tuple[float, str]:
    top = max((abs(v) for v in values), default=0)
    for scale, word in ((1e9, "billion"), (1e6, "million"), (1e3, "thousand")):
        if top >= scale:
            return scale, word
    return 1.0, ""


def _nice_range(low: float, high: float) -> tuple[float, float, float]:
    """Round bounds around ``low..high`` and their tick step (about 5 ticks)."""
    if high <= low:
        pad = abs(high) * 0.1 or 1.0
        low, high = low - pad, high + pad
    raw = (high - low) / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    return step * math.floor(low / step + 1e-9), step * math.ceil(high / step - 1e-9), step


def _decimals(step: float) -> int:
    """The decimals a tick step needs: ``0.0002`` -> 4, ``2.5`` -> 1, ``500`` -> 0."""
    return next((d for d in range(12) if abs(round(step, d) - step) <= step * 1e-6), 12)


def _tick(value: float, step: float | None = None) -> str:
    """A tick's label with as many decimals as its step needs (``1.3372``, ``7.5``, ``1,200``);
    without a step, four significant digits."""
    if step is None:
        return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return f"{value:,.{_decimals(step)}f}"


def axis_title(metric: str, currency: str, values: list[float]) -> tuple[str, float]:
    """``("Cost (million USD)", 1e6)``: the axis title with its unit, and the scale."""
    title, scale, unit, _ = AXES[metric]
    if metric in ("cost", "fabric_cost"):
        scale, word = _cost_scale(values)
        unit = f"{word} {currency}".strip()
    return (f"{title} ({unit})" if unit else title), scale


def _value(candidate: dict, metric: str):
    value = (candidate.get("metrics") or {}).get(metric)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def front_of(candidates: list[dict], x: str, y: str) -> list[int]:
    """The indices on the Pareto front of metrics ``x`` and ``y`` (feasible candidates)."""
    front = pareto_front([c for c in candidates if c.get("status") == "feasible"], [x, y])
    indices = front.get("front") if isinstance(front, dict) else front
    return [int(i) for i in indices or []]


def explore_chart(result: dict, x: str, y: str, link) -> dict:
    """The scatter of ``result``'s candidates for metrics ``x`` and ``y``; ``link(index)`` is
    each point's address (the candidate's page).

    Long because: one SVG chart: both scales, their ticks, the points by status and the front
    line, computed together.
    """
    candidates = result.get("candidates") or []
    currency = next(
        (
            c["metrics"].get("currency")
            for c in candidates
            if (c.get("metrics") or {}).get("currency")
        ),
        "",
    )
    placed = [c for c in candidates if _value(c, x) is not None and _value(c, y) is not None]
    x_title, x_scale = axis_title(x, currency, [_value(c, x) for c in placed])
    y_title, y_scale = axis_title(y, currency, [_value(c, y) for c in placed])
    xs = [_value(c, x) / x_scale for c in placed] or [0.0, 1.0]
    ys = [_value(c, y) / y_scale for c in placed] or [0.0, 1.0]
    x_low, x_high, x_step = _nice_range(min(xs), max(xs))
    y_low, y_high, y_step = _nice_range(min(ys), max(ys))

    def sx(value: float) -> float:
        return round(PLOT_W * (value / x_scale - x_low) / (x_high - x_low), 1)

    def sy(value: float) -> float:
        return round(PLOT_H * (1 - (value / y_scale - y_low) / (y_high - y_low)), 1)

    front = set(front_of(candidates, x, y))
    points, line = [], []
    for candidate in placed:
        px, py = sx(_value(candidate, x)), sy(_value(candidate, y))
        on_front = candidate.get("index") in front
        status = "front" if on_front else candidate.get("status") or "crashed"
        points.append(
            {
                "x": px,
                "y": py,
                "status": status,
                "href": link(candidate["index"]),
                "label": f"{candidate.get('label') or candidate.get('key')} "
                f"({status}): {_tick(_value(candidate, x) / x_scale)} on x, "
                f"{_tick(_value(candidate, y) / y_scale)} on y",
            }
        )
        if on_front:
            line.append((px, py))
    points.sort(key=lambda p: p["status"] == "front")  # the front is drawn on top
    line.sort()

    def ticks(low, high, step):
        n = int(round((high - low) / step))
        return [low + step * i for i in range(n + 1)]

    return {
        "w": PLOT_W,
        "h": PLOT_H,
        "view": f"{-MARGIN_LEFT} {-MARGIN_TOP} {PLOT_W + MARGIN_LEFT + MARGIN_RIGHT} "
        f"{PLOT_H + MARGIN_TOP + MARGIN_BOTTOM}",
        "width": PLOT_W + MARGIN_LEFT + MARGIN_RIGHT,
        "height": PLOT_H + MARGIN_TOP + MARGIN_BOTTOM,
        "x_title": x_title,
        "y_title": y_title,
        "x_title_x": PLOT_W // 2,
        "x_title_y": PLOT_H + 38,
        "y_title_x": -PLOT_H // 2,
        "mid_y": PLOT_H // 2,
        "tick_label_y": PLOT_H + 16,
        "x_ticks": [
            {"x": sx(v * x_scale), "label": _tick(v)} for v in ticks(x_low, x_high, x_step)
        ],
        "y_ticks": [
            {"y": sy(v * y_scale), "label": _tick(v)} for v in ticks(y_low, y_high, y_step)
        ],
        "points": points,
        "front_line": " ".join(f"{px},{py}" for px, py in line) if len(line) > 1 else "",
        "front_count": len(front),
        "unplaced": len(candidates) - len(placed),
        "empty": not placed,
    }
