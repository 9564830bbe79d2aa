"""``make bench``: the 100,000-GPU timings of the pure domain, moved out of the unit tests.

The unit tests check the same properties at a smaller size (tests/unit/test_validate_fabric.py,
test_canvas.py, test_layout.py, test_media.py); here the 12,500 DGX-B300 fabric (100,000 GPUs,
over 300,000 links) is built once, the same correctness checks run on it, and each step is
timed against its target. Results go to ``.var/bench/domain.json``; the exit status is 1 when
a check fails or a target is missed.

Targets (2 cores): build with layout and media <= 6 s, layout alone <= 1 s, canvas views
(overview, one SU, core) <= 1 s, whole-fabric validation <= 20 s, graph measurements (switch
graph, bisection max-flow, leaf edge connectivity, path classes, diameter) <= 10 s, failure
domains summary <= 10 s, one what-if failure (a spine, a rack, an SU) <= 5 s.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"
SEED = ROOT / "inventory" / "library" / "seed"
B300_12500 = {
    "name": "b300-12500",
    "topology": "rail-optimized",
    "server": "DGX-B300",
    "servers": 12500,
    "switches": {"leaf": "Q3400-RA"},
    "layout": {"servers_per_rack": 4},
}
TARGETS = {
    "build_s": 6.0,
    "layout_s": 1.0,
    "canvas_views_s": 1.0,
    "validate_s": 20.0,
    "graph_measures_s": 10.0,
    "failure_domains_s": 10.0,
    "what_if_s": 5.0,
}


def _timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, round(time.perf_counter() - started, 3)


def _check(failures: list[str], ok: bool, what: str) -> None:
    if not ok:
        failures.append(what)


def fabric_summary_bisection(fabric) -> float:
    from planner.domain.summary import summarize

    return summarize(fabric)["bisection_gbps"]


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from inventory.library.files import read_catalog_folder
    from planner.analyses.validate import validate_fabric
    from planner.domain.canvas import MAX_ELEMENTS, detail_elements, overview_elements
    from planner.domain.catalog import facts_from_records
    from planner.domain.generators import generate_topology
    from planner.domain.layout import assign_layout
    from planner.domain.pipeline import build_fabric
    from planner.domain.spec import parse_spec

    facts = facts_from_records(read_catalog_folder(SEED).parts)
    spec = parse_spec(B300_12500)
    failures: list[str] = []

    # Build with layout and media (tests/unit/test_media.py, test_layout.py).
    fabric, build_s = _timed(lambda: build_fabric(spec, facts))
    _check(failures, fabric.info["gpus"] == 100_000, "100,000 GPUs")
    _check(failures, fabric.link_count > 300_000, "over 300,000 links")
    _check(failures, bool((fabric.link_cable_part >= 0).all()), "every link has a cable part")
    servers = fabric.nodes_with_role("server")
    per_rack = np.bincount(fabric.node_rack[servers])
    _check(failures, per_rack.max() == 4, "at most 4 servers per rack")
    _check(failures, fabric.link_length_m.max() < 200, "longest run under 200 m")
    info = fabric.settings.layout
    _check(
        failures,
        (info["racks_per_row"], info["racks_per_row_auto"]) == (57, True),
        "57 racks per row, chosen automatically",
    )

    # Layout alone on a generated topology (tests/unit/test_layout.py).
    bare = generate_topology(spec, facts)
    _, layout_s = _timed(lambda: assign_layout(bare, spec, facts))
    _check(failures, bool((bare.link_length_m > 0).all()), "every laid-out link has a length")

    # Canvas views (tests/unit/test_canvas.py).
    def views():
        return (
            overview_elements(fabric),
            detail_elements(fabric, "su:1"),
            detail_elements(fabric, "core"),
        )

    (overview, detail, core), views_s = _timed(views)

    def size(view):
        return len(view["elements"]["nodes"]) + len(view["elements"]["edges"])

    def kind(view, name):
        elements = view["elements"]["nodes"] + view["elements"]["edges"]
        return [e["data"] for e in elements if e["data"]["kind"] == name]

    _check(failures, all(size(v) < MAX_ELEMENTS for v in (overview, detail, core)), "views small")
    _check(
        failures,
        Counter(a["role"] for a in kind(overview, "aggregate"))["server"] == 174,
        "174 server aggregates (SUs) in the overview",
    )
    _check(
        failures,
        len([d for d in kind(detail, "device") if d["role"] == "server"]) == 72,
        "72 servers in SU 1",
    )
    _check(failures, any("core group" in n for n in core["notes"]), "core aggregated to fit")

    # Whole-fabric validation (tests/unit/test_validate_fabric.py).
    calls: list[tuple[int, int]] = []
    report, validate_s = _timed(
        lambda: validate_fabric(fabric, facts, on_progress=lambda d, t: calls.append((d, t)))
    )
    total = fabric.link_count
    done = [0] + [d for d, _ in calls]
    _check(failures, report.ok, "validates without errors")
    _check(failures, report.links_checked == total, "every link checked")
    _check(failures, all(t == total for _, t in calls) and done[-1] == total, "progress ends")
    _check(failures, max(np.diff(done)) <= math.ceil(total / 10), "progress every tenth")
    _check(failures, len(report.problems) < 20, "problems grouped")

    # Graph measurements and failure domains (tests/unit/test_resilience.py).
    from planner.analyses.resilience import domain_summary, measure_graph

    graph, graph_s = _timed(lambda: measure_graph(fabric))
    _check(failures, graph.nonblocking_gbps == 100_000 * 800 / 2, "non-blocking 40 Pb/s")
    _check(failures, graph.formula_gbps == fabric_summary_bisection(fabric), "formula as summary")
    _check(failures, graph.measured_gbps <= graph.formula_gbps, "measured within the formula")
    _check(failures, graph.max_hops_measured == 6, "6 links GPU to GPU at most")
    domains, domains_s = _timed(lambda: domain_summary(fabric))
    racks = {k["kind"]: k for k in domains["kinds"]}["rack"]
    _check(failures, racks["count"] == len(fabric.racks), "a domain per rack")
    # What-if failures (tests/unit/test_whatif.py): a spine, a rack, a whole SU.
    from planner.analyses.resilience.domains import gpus_per_server
    from planner.analyses.resilience.whatif import what_if

    spine = fabric.node_name[int(fabric.nodes_with_role("spine")[0])]
    rack = int(fabric.node_rack[fabric.nodes_with_role("server")[0]])
    in_rack = int((fabric.node_rack[fabric.nodes_with_role("server")] == rack).sum())
    cases = {
        "spine": [f"node:{spine}"],
        "rack": [f"rack:{fabric.racks[rack]['name']}"],
        "su": ["su:1"],
    }
    whatif_s = {}
    for name, failed in cases.items():
        found, whatif_s[name] = _timed(lambda failed=failed: what_if(fabric, failed))
        if name == "rack":
            lost = in_rack * gpus_per_server(fabric)
            _check(failures, found.gpus_lost == lost, "rack what-if: its servers x GPUs")
        if name == "spine":
            _check(failures, found.gpus_lost == 0, "spine what-if: no GPU cut off")

    measured = {
        "build_s": build_s,
        "layout_s": layout_s,
        "canvas_views_s": views_s,
        "validate_s": validate_s,
        "graph_measures_s": graph_s,
        "failure_domains_s": domains_s,
        "what_if_s": max(whatif_s.values()),
    }
    results = {
        "design": B300_12500,
        "links": int(total),
        **measured,
        "graph": graph.as_dict(),
        "what_if_cases_s": whatif_s,
        "targets": TARGETS,
        "targets_met": {key: measured[key] <= limit for key, limit in TARGETS.items()},
        "checks_failed": failures,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "domain.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0 if not failures and all(results["targets_met"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
