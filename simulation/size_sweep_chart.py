"""How a message-size sweep reads on the pages: busbw (GB/s, as nccl-tests prints it) against
message size on a log axis as an inline SVG chart, the table by size, the latency it assumed
and the published nccl-tests figures it is compared with. Pure formatting, like
:mod:`simulation.sweep_chart` (whose axes and scales it reuses)."""

from __future__ import annotations

import math

from simulation.presentation import routing_label, seconds
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
    """``49.99`` -> ``"49.99 GB/s"``; below 0.01 two significant digits written out
    (``"0.00016 GB/s"``, ``"0.000045 GB/s"``, never ``"4.5e-05"``).

    >>> gbytes(4.5e-05), gbytes(0.00016), gbytes(49.994)
    ('0.000045 GB/s', '0.00016 GB/s', '49.99 GB/s')
    """
    if value is None:
        return "—"
    if 0 < value < 0.01:
        decimals = 1 - math.floor(math.log10(value))  # two significant digits
        return f"{round(value, decimals):.{decimals}f} GB/s"
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
        "bound_label": (
            f"{result.get('ring_count') or 1} NICs' line rate {gbytes(bound)}"
            if (result.get("ring_count") or 1) > 1
            else f"NIC line rate {gbytes(bound)}"
        )
        if bound
        else "",
    }


def _gb_range(values) -> str:
    """``[368, 384]`` -> ``"368.00–384.00 GB/s"``; one value as :func:`gbytes`."""
    low, high = values
    return gbytes(low) if low == high else f"{low:,.2f}–{high:,.2f} GB/s"


def _comparisons(published: list[dict]) -> list[dict]:
    """Per published figure (its system, test, source): its rows, theirs and ours at the same
    size side by side (``span`` rows for the figure's cells that span them)."""
    entries = []
    for entry in published:
        rows = []
        for item in entry.get("comparisons") or []:
            row = {"size": size_label(item["size_bytes"]), "theirs_per_nic": "", "ours_per_nic": ""}
            if item["what"] == "busbw":
                row["theirs"] = f"busbw {_gb_range(item['theirs_gbytes_s'])}"
                row["ours"] = f"busbw {gbytes(item['ours_gbytes_s'])}"
                if "theirs_per_nic_gbytes_s" in item:
                    row["theirs_per_nic"] = _gb_range(item["theirs_per_nic_gbytes_s"])
                    row["ours_per_nic"] = gbytes(item["ours_per_nic_gbytes_s"])
            else:
                row["theirs"] = f"time {item['theirs_us']:,.2f} µs"
                row["ours"] = f"time {item['ours_us']:,.2f} µs"
            rows.append(row)
        if not rows:  # a size this sweep did not run: the figure as published
            rows.append({"size": "", "theirs": entry.get("figure", ""), "ours": "—"})
        entries.append(
            {
                "system": entry.get("system", ""),
                "test": entry.get("test", ""),
                "note": entry.get("note", ""),
                "source": entry.get("source", ""),
                "grade": entry.get("grade", ""),
                "rows": rows,
                "span": len(rows),
            }
        )
    return entries


def _alpha_text(alpha: dict) -> str:
    """The path latency a ring step pays: ``"0.150 µs"`` when every step pays the same,
    ``"0.150–0.720 µs, mean 0.300 µs"`` otherwise."""
    low, high = alpha.get("min", 0), alpha.get("max", 0)
    if f"{low:,.3f}" == f"{high:,.3f}":
        return f"{low:,.3f} µs"
    return f"{low:,.3f}–{high:,.3f} µs, mean {alpha.get('mean', 0):,.3f} µs"


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
        "rings": result.get("rings") or "flat",
        "ring_count": f"{result.get('ring_count') or 1:,}",
        "gpus_per_server": f"{result.get('gpus_per_server') or 0:,}",
        "nic": gbytes((result.get("nic_gbps") or 0) / 8),
        "bound": gbytes(result.get("bound_busbw_gbytes_s")),
        "scale_up_binds": gbytes(result.get("scale_up_binds_below_gbytes_s"))
        if result.get("scale_up_binds_below_gbytes_s")
        else None,
        "other_rings": f"{max((result.get('ring_count') or 1) - 1, 0):,}",
        "comparisons": _comparisons(result.get("published") or []),
        "not_modelled": result.get("not_modelled") or [],
        "routing": routing_label(result.get("routing")),
        "gpus": f"{result.get('gpus') or 0:,}",
        "servers": f"{result.get('servers') or 0:,}",
        "steps": f"{result.get('steps') or 0:,}",
        "alpha": _alpha_text(alpha),
        "overhead": (
            f"plus {latency['overhead_us']:,.2f} µs per step"
            if latency.get("overhead_us")
            else "with no per-step overhead"
        ),
        "latency_bound": seconds(latency.get("latency_bound_s")),
        "smallest": size_label(result["points"][0]["size_bytes"]),
        "notes": latency.get("notes") or [],
    }
