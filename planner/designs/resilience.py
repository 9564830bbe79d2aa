"""A revision's failure domains and graph measurements, for the design page and the API.

Reads only (nothing stored): the pure :mod:`planner.analyses.resilience` on the revision's
stored fabric. Revisions never change and the measurements read no catalog, so the answer is
kept in the cache per revision (a 100,000-GPU fabric takes about 3 s the first time).
"""

from __future__ import annotations

import json
import zlib

from django.core.cache import cache

from planner import presentation
from planner.analyses.resilience import domain_index, domain_summary, measure_graph
from planner.designs.models import DesignRevision
from planner.designs.selectors import revision_fabric

CACHE_SECONDS = 24 * 3600
NO_FABRIC = "This revision has no stored fabric to measure."


def _key(revision: DesignRevision) -> str:
    created = revision.created.timestamp() if revision.created else 0
    return f"planner:resilience:v1:{revision.pk}:{created}"


def revision_resilience(revision: DesignRevision) -> dict:
    """``{"graph": GraphMeasures.as_dict(), "domains": domain_summary(...)}`` of ``revision``,
    or ``{"graph": None, "domains": None, "unavailable": why}`` (cached; see the module)."""
    key = _key(revision)
    found = cache.get(key)
    if found is not None:
        return found
    try:
        fabric = revision_fabric(revision) if revision.topology else None
    except (zlib.error, json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
        fabric = None
    if fabric is None or not fabric.node_count:
        result = {"graph": None, "domains": None, "unavailable": NO_FABRIC}
    else:
        result = {
            "graph": measure_graph(fabric).as_dict(),
            "domains": domain_summary(fabric, index=domain_index(fabric)),
            "unavailable": "",
        }
    cache.set(key, result, CACHE_SECONDS)
    return result


def _share(value) -> str:
    return "—" if value is None else f"{float(value) * 100:.1f} %"


#: Domain ids that are bare numbers read with their kind on the page ("SU 1", not "1").
_NUMBERED = {"plane": "plane", "su": "SU", "pod": "pod"}


def _domain_name(kind: str, domain_id) -> str:
    """A domain as the page names it: ``"SU 2"`` for SU ``"2"``; racks, rows, halls, feeds,
    PDUs and tiers by their own names."""
    prefix = _NUMBERED.get(kind)
    return f"{prefix} {domain_id}" if prefix else str(domain_id)


def page_context(revision: DesignRevision | None) -> dict | None:
    """What the design page's "Failure domains" and "Graph measurements" sections show."""
    if revision is None:
        return None
    data = revision_resilience(revision)
    graph, domains = data["graph"], data["domains"]
    if graph is None:
        return {"unavailable": data["unavailable"]}
    bisection = graph["bisection"]
    measured, formula = bisection["measured_gbps"], bisection["formula_gbps"]
    difference = measured - formula
    planes = []
    for plane in graph["planes"]:
        planes.append(
            {
                "plane": plane["plane"],
                "switches": presentation.number(plane["switches"]),
                "leaves": presentation.number(plane["leaves"]),
                "edge_connectivity": presentation.number(plane["edge_connectivity"]),
                "diameter": presentation.number(plane["diameter"]),
                "classes": [
                    {
                        "name": c["class"],
                        "hops": presentation.number(c["hops"]),
                        "switches": presentation.number(c["switches"]),
                        "paths": (
                            c.get("note")
                            if c["edge_disjoint_paths"] is None
                            else presentation.number(c["edge_disjoint_paths"])
                        ),
                    }
                    for c in plane["path_classes"]
                ],
            }
        )
    kinds = []
    for kind in domains["kinds"]:
        largest = kind["largest"]
        kinds.append(
            {
                "label": kind["label"],
                "stated": kind["stated"],
                "count": presentation.number(kind["count"]),
                "gpus": presentation.number(largest["gpus"]),
                "links": presentation.number(largest["links"]),
                "share": _share(largest["bisection_share"]),
                "worst": ", ".join(
                    f"{_domain_name(kind['kind'], row['id'])} ({_share(row['bisection_share'])})"
                    for row in kind["worst"][:3]
                    if row["bisection_share"] or row["gpus"]
                ),
            }
        )
    return {
        "unavailable": "",
        "measured": presentation.bandwidth(measured),
        "formula": presentation.bandwidth(formula),
        "nonblocking": presentation.bandwidth(bisection["nonblocking_gbps"]),
        "agrees": bisection["agrees"],
        "difference": presentation.bandwidth(abs(difference)),
        "difference_pct": f"{abs(difference) / formula * 100:.1f} %" if formula else "",
        "lower": difference < 0,
        "below_nonblocking": (
            f"{measured / bisection['nonblocking_gbps']:.2f}"
            if bisection["nonblocking_gbps"] and measured < bisection["nonblocking_gbps"] - 1
            else ""
        ),
        "halves_a": bisection["halves"]["a"],
        "halves_b": bisection["halves"]["b"],
        "switches": presentation.number(graph["switches"]),
        "edges": presentation.number(graph["edges"]),
        "switch_links": presentation.number(graph["switch_links"]),
        "edge_connectivity": presentation.number(graph["edge_connectivity"]),
        "max_hops": presentation.number(graph["max_hops"]["measured"]),
        "max_hops_formula": presentation.number(graph["max_hops"]["formula"]),
        "planes": planes,
        "kinds": kinds,
        "feeds_stated": domains["feeds_stated"],
        "notes": domains["notes"],
    }
