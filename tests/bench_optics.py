"""``make bench``: the optical loss budget of every link of a 100,000-GPU structured design
(issue 19 item 7).

The benchmark fabric of ``tests/bench_domain.py`` (12,500 DGX-B300 on Q3400-RA, media auto,
300,448 links) with every tier cabled through patch panels (``cabling``: server-leaf in-rack,
leaf-spine and spine-core end-of-row). Timed: the build, the structured channels, the budget
of every link (:func:`planner.domain.physical.budget.compute_budgets`, NumPy, no loop per
link) and the whole-fabric validation that now includes it, against today's validation
target (20 s) and the budget's own (1 s). Results go to ``.var/bench/optics.json``; the exit
status is 1 when a check fails or a target is missed.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"
SEED = ROOT / "inventory" / "library" / "seed"
STRUCTURED_100K = {
    "name": "b300-12500-structured",
    "topology": "rail-optimized",
    "server": "DGX-B300",
    "servers": 12500,
    "switches": {"leaf": "Q3400-RA"},
    "layout": {"servers_per_rack": 4},
    "cabling": {
        "server-leaf": {"type": "patch-panel", "panels": "in-rack"},
        "leaf-spine": {"type": "patch-panel", "panels": "end-of-row"},
        "spine-core": {"type": "patch-panel", "panels": "end-of-row"},
    },
}
TARGETS = {"budget_s": 1.0, "validate_s": 20.0}


def _timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, round(time.perf_counter() - started, 3)


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from inventory.library.files import read_catalog_folder
    from planner.analyses.validate import validate_fabric
    from planner.domain.catalog import facts_from_records
    from planner.domain.physical.budget import compute_budgets
    from planner.domain.physical.cabling import channels_for
    from planner.domain.pipeline import build_fabric
    from planner.domain.spec import parse_spec

    facts = facts_from_records(read_catalog_folder(SEED).parts)
    spec = parse_spec(STRUCTURED_100K)
    failures: list[str] = []
    fabric, build_s = _timed(lambda: build_fabric(spec, facts))
    channels, channels_s = _timed(lambda: channels_for(fabric, facts=facts))
    budgets, budget_s = _timed(lambda: compute_budgets(fabric, facts, channels))
    report, validate_s = _timed(lambda: validate_fabric(fabric, facts))

    structured = int((channels.mated_pairs > 0).sum())
    if fabric.link_count <= 300_000:
        failures.append("over 300,000 links")
    if structured < fabric.link_count // 2:
        failures.append("most links through patch panels")
    if budgets.links.size + budgets.out_of_scope != fabric.link_count:
        failures.append("every link in or out of scope")
    if report.links_checked != fabric.link_count:
        failures.append("every link validated")
    margin = budgets.margin_db[budgets.known]
    codes = {p.code: p.count for p in report.problems if p.code.startswith("optical-")}
    measured = {"budget_s": budget_s, "validate_s": validate_s}
    results = {
        "design": STRUCTURED_100K,
        "links": int(fabric.link_count),
        "links_through_panels": structured,
        "links_budgeted": int(budgets.links.size),
        "links_limit_known": int(margin.size),
        "out_of_scope": int(budgets.out_of_scope),
        "margin_db": {
            "min": round(float(margin.min()), 3) if margin.size else None,
            "median": round(float(np.median(margin)), 3) if margin.size else None,
        },
        "histogram": budgets.histogram(),
        "optical_problems": codes,
        "build_s": build_s,
        "channels_s": channels_s,
        **measured,
        "validate_problems": len(report.problems),
        "targets": TARGETS,
        "targets_met": {key: measured[key] <= limit for key, limit in TARGETS.items()},
        "checks_failed": failures,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "optics.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0 if not failures and all(results["targets_met"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
