"""Failure domains and graph measurements of a fabric (issue 24).

Pure Python, NumPy, networkx and SciPy (no Django):

- :mod:`.domains`: every element's rack, row, hall, power feed and PDU, plane, scalable unit,
  pod and switch tier; what each domain carries and what is lost when it fails
  (:func:`domain_index`, :func:`elements_of_domain`, :func:`lost_if_failed`,
  :func:`domain_summary`).
- :mod:`.graph`: the switch-level graph (switches as nodes, parallel links as capacity) and
  its measurements: the bisection by max-flow against the summary's formula, edge
  connectivity between leaves, edge-disjoint paths and hops per path class, diameter
  (:func:`switch_graph`, :func:`measure_graph`).
"""

from planner.analyses.resilience.domains import (
    DOMAIN_KINDS,
    DomainElements,
    DomainIndex,
    domain_index,
    domain_summary,
    elements_of_domain,
    lost_if_failed,
)
from planner.analyses.resilience.graph import (
    GraphMeasures,
    SwitchGraph,
    measure_graph,
    switch_graph,
)

__all__ = [
    "DOMAIN_KINDS",
    "DomainElements",
    "DomainIndex",
    "GraphMeasures",
    "SwitchGraph",
    "domain_index",
    "domain_summary",
    "elements_of_domain",
    "lost_if_failed",
    "measure_graph",
    "switch_graph",
]
