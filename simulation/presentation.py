"""How job results read on the pages: validation problems by rule, power tables, rack strip.

Pure formatting of the result dicts the runners store; templates only loop over what is built
here.
"""

from __future__ import annotations

from collections import Counter

from planner.presentation import TIER_LABELS, number

MAX_ELEMENTS_SHOWN = 30
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
GRADE_LABELS = {
    "datasheet": "Datasheet (vendor document)",
    "secondary": "Secondary (reseller, blog, mirror)",
    "inferred": "Inferred (our arithmetic)",
    "estimate": "Estimate",
    "unknown": "Unknown (stand-in; not in the total)",
}
CATEGORY_LABELS = {
    "servers": "Servers",
    "switches": "Switches",
    "transceivers": "Transceivers",
    "cables": "Cables",
}
ROLE_LABELS = {
    "server": "Servers",
    "manager": "Fabric managers",
    "leaf": "Leaf switches",
    "spine": "Spine switches",
    "core": "Core switches",
}


def kw(watts) -> str:
    """``1354296`` -> ``"1,354.3 kW"``; ``None`` -> ``"—"``."""
    if watts is None:
        return "—"
    return f"{watts / 1000:,.1f} kW" if abs(watts) >= 1000 else f"{watts:,.1f} W"


def percent(share) -> str:
    """``0.3912`` -> ``"39.1 %"``."""
    return "—" if share is None else f"{share * 100:.1f} %"


def validation_context(result: dict | None) -> dict:
    """Problems grouped by rule (errors first), with counts and element lists."""
    problems = (result or {}).get("problems") or []
    groups: dict[str, dict] = {}
    for problem in problems:
        rule = problem.get("rule") or problem.get("code") or "other"
        group = groups.setdefault(
            rule, {"rule": rule, "count": 0, "severities": Counter(), "problems": []}
        )
        group["count"] += 1
        group["severities"][problem.get("severity") or "info"] += 1
        elements = list(problem.get("element_ids") or [])
        group["problems"].append(
            {
                **problem,
                "elements": elements[:MAX_ELEMENTS_SHOWN],
                "more_elements": max(0, len(elements) - MAX_ELEMENTS_SHOWN),
            }
        )
    rows = []
    for group in groups.values():
        worst = min(group["severities"], key=lambda s: SEVERITY_ORDER.get(s, 9))
        group["worst"] = worst
        group["severity_text"] = ", ".join(
            f"{count} {severity}"
            for severity, count in sorted(
                group["severities"].items(), key=lambda kv: SEVERITY_ORDER.get(kv[0], 9)
            )
        )
        rows.append(group)
    rows.sort(key=lambda g: (SEVERITY_ORDER.get(g["worst"], 9), -g["count"], g["rule"]))
    severities = Counter(p.get("severity") or "info" for p in problems)
    return {
        "groups": rows,
        "total": len(problems),
        "errors": severities.get("error", 0),
        "warnings": severities.get("warning", 0),
        "summary": (result or {}).get("summary") or {},
    }


def _strip(racks: list[dict]) -> dict:
    """Bars of the rack power strip: heights in % of the largest power or limit."""
    scale = max(
        [r.get("power_w") or 0 for r in racks] + [r.get("limit_w") or 0 for r in racks] + [1]
    )
    bars = []
    for rack in racks:
        power, limit = rack.get("power_w") or 0, rack.get("limit_w")
        over = bool(limit and power > limit)
        label = f"{rack['rack']}: {kw(power)}"
        if limit:
            label += f" of {kw(limit)} ({percent(power / limit)})"
        if rack.get("airflow_mixed"):
            label += ", mixed airflow"
        if rack.get("incomplete"):
            label += ", some figures unknown"
        bars.append(
            {
                "rack": rack["rack"],
                "height": round(100 * power / scale, 1),
                "limit": round(100 * limit / scale, 1) if limit else None,
                "over": over,
                "mixed": bool(rack.get("airflow_mixed")),
                "incomplete": bool(rack.get("incomplete")),
                "label": label,
                "kind": rack.get("kind") or "",
            }
        )
    return {"bars": bars, "scale": kw(scale)}


def power_context(result: dict | None) -> dict:
    """Headline figures and the rows of the power tables."""
    result = result or {}
    total = result.get("total_w") or 0
    by_category = result.get("by_category") or {}
    network = result.get("network_w") or 0
    confidence = result.get("confidence") or {}
    unknown = result.get("unknown") or {}
    figures = [
        ("Total", kw(total)),
        ("Heat", f"{number(round(result.get('btu_h') or 0))} BTU/h"),
        ("Network", kw(network)),
        ("Network per GPU", f"{number(result.get('network_w_per_gpu'))} W"),
        ("Network per Tb/s of bisection", f"{number(result.get('network_w_per_tbps'))} W"),
        ("Optics share of network", percent(result.get("optics_share"))),
    ]
    if result.get("pue") is not None:
        figures.append((f"Facility (PUE {result['pue']:g})", kw(result.get("facility_w"))))
    unknown_share = (confidence.get("unknown") or 0) + (confidence.get("estimate") or 0)
    figures.append(("Unknown / estimated share", percent(unknown_share)))
    categories = [
        (CATEGORY_LABELS.get(key, key), kw(watts), percent(watts / total if total else None))
        for key, watts in by_category.items()
    ]
    tiers = [
        (
            TIER_LABELS.get(tier, tier),
            number(row.get("links")),
            kw(row.get("transceivers_w")),
            kw(row.get("cables_w")),
            kw(row.get("total_w")),
        )
        for tier, row in (result.get("by_tier") or {}).items()
    ]
    roles = [
        (
            ROLE_LABELS.get(role, role),
            number(row.get("count")),
            kw(row.get("power_w")),
            number(row.get("unknown")) if row.get("unknown") else "",
        )
        for role, row in (result.get("by_role") or {}).items()
    ]
    grades = [
        (grade, GRADE_LABELS.get(grade, grade), percent(share))
        for grade, share in confidence.items()
        if share
    ]
    unknown_rows = [
        (kind, slug, number(count))
        for kind in ("devices", "transceivers", "cables")
        for slug, count in (unknown.get(kind) or {}).items()
    ]
    racks = result.get("racks") or []
    return {
        "figures": figures,
        "categories": categories,
        "tiers": tiers,
        "roles": roles,
        "grades": grades,
        "unknown_rows": unknown_rows,
        "unknown_estimate": kw(unknown.get("estimate_w")) if unknown.get("estimate_w") else "",
        "notes": unknown.get("notes") or [],
        "rows": [
            {**row, "power": kw(row.get("power_w")), "limit": kw(row.get("limit_w"))}
            for row in result.get("rows") or []
        ],
        "racks": [
            {
                **rack,
                "power": kw(rack.get("power_w")),
                "limit": kw(rack.get("limit_w")),
                "use": percent(rack.get("utilization")),
            }
            for rack in racks
        ],
        "strip": _strip(racks),
        "problems": validation_context({"problems": result.get("problems") or []}),
        "figures_used": result.get("figures") or {},
    }


CHART_W, CHART_H = 360, 140


def seconds(value) -> str:
    """``0.0123`` -> ``"12.300 ms"``."""
    if value is None:
        return "—"
    if value >= 1:
        return f"{value:,.3f} s"
    if value >= 1e-3:
        return f"{value * 1e3:,.3f} ms"
    return f"{value * 1e6:,.1f} µs"


def gbps(value) -> str:
    return "—" if value is None else f"{value:,.1f} Gb/s"


def _bars(histogram: dict) -> list[dict]:
    """Bars of an inline SVG histogram (chart units, y down)."""
    counts = histogram.get("counts") or []
    edges = histogram.get("edges") or []
    top = max(counts + [1])
    width = CHART_W / max(1, len(counts))
    bars = []
    for i, count in enumerate(counts):
        height = round(CHART_H * count / top, 1)
        low, high = (edges[i], edges[i + 1]) if i + 1 < len(edges) else (0, 0)
        bars.append(
            {
                "x": round(i * width, 1),
                "y": round(CHART_H - height, 1),
                "w": round(max(1.0, width - 1), 1),
                "h": height,
                "label": f"{percent(low)}–{percent(high)}: {count:,} links",
            }
        )
    return bars


def _cdf(histogram: dict) -> str:
    """Points of the FCT CDF polyline (cumulative counts of the histogram)."""
    counts = histogram.get("counts") or []
    total = sum(counts) or 1
    width = CHART_W / max(1, len(counts))
    points, running = [f"0,{CHART_H}"], 0
    for i, count in enumerate(counts):
        running += count
        points.append(f"{round((i + 1) * width, 1)},{round(CHART_H * (1 - running / total), 1)}")
    return " ".join(points)


def simulation_context(result: dict | None) -> dict:
    """Figures, the utilization histogram and FCT CDF (inline SVG), tiers, hot spots."""
    result = result or {}
    figures = [
        ("Completion time", seconds(result.get("completion_time_s"))),
        ("Algorithm bandwidth", gbps(result.get("algbw_gbps"))),
        ("Bus bandwidth", gbps(result.get("busbw_gbps"))),
        ("Bound (non-blocking)", gbps(result.get("bound_busbw_gbps"))),
        ("Efficiency", percent(result.get("efficiency"))),
        ("Max link utilization", percent(result.get("max_link_utilization"))),
        ("Flows", number(result.get("flows"))),
        ("Failed links", number(result.get("failed_links"))),
    ]
    fct = result.get("fct") or {}
    fct_rows = [(key, seconds(fct.get(key))) for key in ("p50", "p90", "p99", "max")]
    histogram = fct.get("histogram") or {}
    edges = histogram.get("edges") or [0, 0]
    tiers = [
        (
            TIER_LABELS.get(tier, tier),
            number(row.get("links")),
            number(row.get("busy_links")),
            percent(row.get("mean_utilization")),
            percent(row.get("max_utilization")),
        )
        for tier, row in (result.get("per_tier_load") or {}).items()
    ]
    hot = [
        {
            **spot,
            "use": percent(spot.get("utilization")),
            "peak_use": percent(spot.get("peak")),
            "tier_label": TIER_LABELS.get(spot.get("tier"), spot.get("tier")),
        }
        for spot in result.get("hot_spots") or []
    ]
    mc = result.get("monte_carlo")
    monte_carlo = None
    if mc:
        monte_carlo = {
            "seeds": mc.get("seeds"),
            "rows": [
                (
                    label,
                    fmt(mc[key].get("p50")),
                    fmt(mc[key].get("p90")),
                    fmt(mc[key].get("max")),
                )
                for label, key, fmt in (
                    ("Completion time", "completion_time_s", seconds),
                    ("Bus bandwidth", "busbw_gbps", gbps),
                )
                if key in mc
            ],
        }
    return {
        "figures": figures,
        "chart": {"w": CHART_W, "h": CHART_H},
        "util_bars": _bars(result.get("utilization_histogram") or {}),
        "fct_rows": fct_rows,
        "fct_cdf": _cdf(histogram),
        "fct_range": (seconds(edges[0]), seconds(edges[-1])),
        "tiers": tiers,
        "hot_spots": hot,
        "monte_carlo": monte_carlo,
        "links_reported": number(result.get("links_reported")),
        "parameters": {
            k: result.get(k) for k in ("traffic", "routing", "seed", "size_bytes", "ranks")
        },
    }


def job_context(job) -> dict:
    """What the job page shows under the job, by kind."""
    if job.kind == "simulate":
        return {"simulation": simulation_context(job.result)}
    if job.kind == "validate":
        return {"validation": validation_context(job.result)}
    if job.kind == "power":
        return {"power": power_context(job.result)}
    return {}
