"""Flow-level (fluid) simulation of a fabric: routing, max-min fair rates, event-driven time.

Design: ``shared/reference/flow-simulation.md`` section 5. Pure NumPy/SciPy, no Django.

A :class:`Network` compiled from a fabric, :class:`Flows` (bytes between GPUs, with start
times), :func:`route` for the weighted flow x link incidence under ``rail``, ``ecmp`` or
``adaptive`` routing, :func:`max_min_rates` for one max-min solve, and :func:`simulate` for a
whole run: constant max-min fair rates between events, re-solved locally and exactly at each.

The package, one module per concern; each imports only the modules above it here:

==============  ===========================================================================
``network``     :class:`Network`: directed links, GPU endpoints, planes, failures
``flows``       :class:`Flows`, :func:`sub_flows` (planes, queue-pair scaling)
``routing``     switch-to-switch next hops (rail d-mod-k, ECMP hashing, adaptive spraying)
``incidence``   :func:`route`: flows to a weighted flow x link incidence (CSR)
``filling``     parallel water-filling, :func:`max_min_rates`
``solver``      the running flows' rates, kept exact by local re-solves between events
``results``     the :class:`~planner.analyses.flow.results.Result` of a run, its statistics
``events``      :func:`simulate`: the event loop
==============  ===========================================================================
"""

from planner.analyses.flow.events import simulate
from planner.analyses.flow.filling import max_min_rates
from planner.analyses.flow.flows import Flows, sub_flows
from planner.analyses.flow.incidence import route
from planner.analyses.flow.network import Network
from planner.analyses.flow.routing import ROUTINGS, RoutingError

__all__ = [
    "ROUTINGS",
    "Flows",
    "Network",
    "RoutingError",
    "max_min_rates",
    "route",
    "simulate",
    "sub_flows",
]
