"""The what-if job's page: the failure's numbers and the collective before and after it."""

from __future__ import annotations

from planner.presentation import bandwidth, count, number
from simulation.presentation import routing_label

TIER_LABELS = {
    "server-leaf": "Server to leaf",
    "leaf-spine": "Leaf to spine",
    "spine-core": "Spine to core",
}


def _ms(seconds) -> str:
    return "—" if not seconds else f"{seconds * 1e3:,.3f} ms"


def _share(value) -> str:
    return "—" if value is None else f"{float(value) * 100:,.1f} %"


def _run_row(label: str, run: dict, traffic: str) -> dict:
    return {
        "label": label,
        "ranks": count(run.get("ranks") or 0, "GPU"),
        "time": _ms(run.get("completion_time_s")),
        "algbw": bandwidth(run.get("algbw_gbps")) if run.get("algbw_gbps") else "—",
        "busbw": bandwidth(run.get("busbw_gbps")) if run.get("busbw_gbps") else "—",
        "error": run.get("error") or "",
    }


def whatif_context(job) -> dict | None:
    """What ``templates/simulation/_whatif.html`` shows; None before a result."""
    result = job.result or {}
    whatif = result.get("whatif")
    if not whatif:
        return None
    gpus = whatif["gpus"]
    bis = whatif["bisection"]
    uplink = whatif.get("leaf_uplink_left") or {}
    blast = whatif["blast_radius"]
    traffic = result.get("traffic", "")
    slowdown = result.get("slowdown")
    return {
        "failed": ", ".join(whatif.get("failed_names") or whatif["failed"]),
        "gpus": [
            ("GPUs", number(gpus["total"])),
            ("Lose all fabric connectivity", number(gpus["lost"])),
            ("Reach only their own leaf", number(gpus["leaf_only"])),
            ("Lose some NIC ports", number(gpus["degraded"])),
            ("Unaffected", number(gpus["unaffected"])),
        ],
        "tiers": [
            {
                "tier": TIER_LABELS.get(tier, tier),
                "capacity": bandwidth(row["capacity_tbps"] * 1000),
                "lost": bandwidth(row["lost_tbps"] * 1000),
                "left": bandwidth(row["left_tbps"] * 1000),
                "share": _share(row["share_lost"]),
            }
            for tier, row in whatif["bandwidth_lost"].items()
        ],
        "bisection_before": bandwidth(bis["before_gbps"]),
        "bisection_after": bandwidth(bis["after_gbps"]),
        "bisection_share": _share(bis["share_left"]),
        "leaf_uplink": (
            f"{number(uplink.get('leaves_degraded'))} of {number(uplink.get('leaves'))} leaves "
            f"lost uplink capacity; the worst keeps {_share(uplink.get('min_share'))}"
            if uplink.get("leaves_degraded")
            else ""
        ),
        "down": (
            f"{count(blast['nodes_down']['count'], 'device')} and "
            f"{count(blast['links_down']['count'], 'link')} down"
        ),
        "traffic": traffic,
        "routing": routing_label(result.get("routing", "")),
        "size": f"{number(result.get('size_bytes'))} bytes",
        "runs": [
            _run_row("Before the failure", result.get("before") or {}, traffic),
            _run_row("After the failure", result.get("after") or {}, traffic),
        ],
        "left_out": number(result.get("left_out") or 0),
        "slowdown": f"{slowdown:,.3f}×" if slowdown else "",
        "faster_after": bool(slowdown) and slowdown < 1 and result.get("routing") == "ecmp",
        "notes": whatif.get("notes") or [],
    }
