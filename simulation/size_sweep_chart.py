"""How a message-size sweep reads on the pages: busbw (GB/s, as nccl-tests prints it) against
message size on a log axis as an inline SVG chart, the table by size, the latency it assumed
and the published nccl-tests figures it is compared with. Pure formatting, like
:mod:`simulation.sweep_chart` (whose axes and scales it reuses)."""

from __future__ import annotations

from simulation.presentation import seconds
from simulation.sweep_chart import (
    MARGIN_BOTTOM,
    MARGIN_LEFT,
    MARGIN_RIGHT,
    MARGIN_TOP,
    PLOT_H,
    PLOT_W,
    _nice_top,
    _x_positions,
    _y,
)


def size_label(value) -> str:
    """``8`` -> ``"8 B"``, ``2**30`` -> ``"1 GiB"`` (nccl-tests' powers of 1,024)."""
    value = int(value)
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= scale:
            return f"{value / scale:,.4g} {unit}"
    return f"{value:,} B"


def gbytes(value) -> str:
    """``49.99`` -> ``"49.99 GB/s"``; below 0.01 two significant digits (``"0.00016 GB/s"``)."""
    if value is None:
        return "—"
    if 0 < value < 0.01:
        return f"{value:.2g} GB/s"
    return f"{value:,.2f} GB/s"


def _chart(result: dict) -> dict:
    points = result.get("points") or []
    sizes = [p["size_bytes"] for p in points]
    positions = _x_positions("size_bytes", sizes)
    bound = result.get("bound_busbw_gbytes_s")
    highest = max([p["busbw_gbytes_s"] for p in points] + [bound or 0.0])
    top, step = _nice_top(highest * 1.05)
    y_ticks = [
        {"y": _y(step * i, top), "label": f"{step * i:,.4g}"}
        for i in range(int(round(top / step)) + 1)
    ]
    x_ticks = [
        {"x": positions[s], "label": size_label(s) if i % 3 == 0 else ""}
        for i, s in enumerate(sizes)
    ]
    markers = [
        {
            "x": positions[p["size_bytes"]],
            "y": _y(p["busbw_gbytes_s"], top),
            "label": f"{size_label(p['size_bytes'])}: busbw {gbytes(p['busbw_gbytes_s'])}, "
            f"time {seconds(p['time_s'])}",
        }
        for p in points
    ]
    return {
        "w": PLOT_W,
        "h": PLOT_H,
        "view": f"{-MARGIN_LEFT} {-MARGIN_TOP} {PLOT_W + MARGIN_LEFT + MARGIN_RIGHT} "
        f"{PLOT_H + MARGIN_TOP + MARGIN_BOTTOM}",
        "width": PLOT_W + MARGIN_LEFT + MARGIN_RIGHT,
        "height": PLOT_H + MARGIN_TOP + MARGIN_BOTTOM,
        "x_title_x": PLOT_W // 2,
        "x_title_y": PLOT_H + 38,
        "y_title_x": -PLOT_H // 2,
        "tick_label_y": PLOT_H + 16,
        "x_ticks": x_ticks,
        "y_ticks": y_ticks,
        "line": " ".join(f"{m['x']},{m['y']}" for m in markers),
        "markers": markers,
        "bound_y": _y(bound, top) if bound else None,
        "bound_label": f"NIC line rate {gbytes(bound)}" if bound else "",
    }


def size_sweep_context(job) -> dict | None:
    """What a page shows of a finished size sweep; None while it runs or when it failed."""
    result = job.result if isinstance(job.result, dict) else {}
    if job.status != "succeeded" or not result.get("points"):
        return None
    latency = result.get("latency") or {}
    alpha = latency.get("alpha_us") or {}
    return {
        "job": job,
        "chart": _chart(result),
        "rows": [
            {
                "size": size_label(p["size_bytes"]),
                "bytes": f"{p['size_bytes']:,}",
                "time": seconds(p["time_s"]),
                "algbw": gbytes(p["algbw_gbytes_s"]),
                "busbw": gbytes(p["busbw_gbytes_s"]),
            }
            for p in result["points"]
        ],
        "traffic": result.get("traffic"),
        "routing": result.get("routing"),
        "gpus": f"{result.get('gpus') or 0:,}",
        "servers": f"{result.get('servers') or 0:,}",
        "steps": f"{result.get('steps') or 0:,}",
        "alpha": (
            f"{alpha.get('min', 0):,.3f}–{alpha.get('max', 0):,.3f} µs (mean "
            f"{alpha.get('mean', 0):,.3f} µs)"
        ),
        "overhead": f"{latency.get('overhead_us') or 0:,.2f} µs",
        "latency_bound": seconds(latency.get("latency_bound_s")),
        "notes": latency.get("notes") or [],
        "published": result.get("published") or [],
    }
