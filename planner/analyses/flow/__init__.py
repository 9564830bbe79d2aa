"""Flow-level (fluid) simulation of a fabric: routing, max-min fair rates, event-driven time.

Design: ``shared/reference/flow-simulation.md`` section 5. Pure NumPy/SciPy, no Django.

A :class:`Network` compiled from a fabric, :class:`Flows` (bytes between GPUs, with start
times), :func:`route` for the weighted flow x link incidence under one of :data:`ROUTINGS`
(``rail``, ``ecmp``, ``flowlet``, ``spraying``, ``ib-ar``, ``opensm``; ``adaptive`` is the old
name of ``spraying``), :func:`max_min_rates` for one max-min solve, :func:`simulate` for a whole run
(constant max-min fair rates between events, re-solved locally and exactly at each), and
:func:`congestion_tree` for where lossless flow control would spread congestion.

The package, one module per concern; each imports only the modules above it here:

==============  ===========================================================================
``network``     :class:`Network`: directed links, GPU endpoints, planes, failures
``flows``       :class:`Flows`, :func:`sub_flows` (planes, queue-pair scaling)
``routing``     switch-to-switch next hops per transport mode (d-mod-k, ECMP, flowlet, spraying,
                InfiniBand adaptive routing)
``forwarding``  ``opensm`` routing: the hops a subnet manager's forwarding tables give
``incidence``   :func:`route`: flows to a weighted flow x link incidence (CSR)
``filling``     parallel water-filling, :func:`max_min_rates`
``solver``      the running flows' rates, kept exact by local re-solves between events
``results``     the :class:`~planner.analyses.flow.results.Result` of a run, its statistics
``events``      :func:`simulate`: the event loop
``alphabeta``   latency: path latency per flow, :func:`simulate` after it, ring schedules
``congestion``  :func:`congestion_tree`: hot ports and the links PFC pause would spread to
``symmetry``    identical planes: run plane 0, copy it to the others
==============  ===========================================================================
"""

from planner.analyses.flow import symmetry
from planner.analyses.flow.congestion import congestion_tree
from planner.analyses.flow.events import simulate
from planner.analyses.flow.filling import max_min_rates
from planner.analyses.flow.flows import Flows, sub_flows
from planner.analyses.flow.forwarding import ForwardingTables
from planner.analyses.flow.incidence import route
from planner.analyses.flow.network import Network
from planner.analyses.flow.routing import (
    FLOWLETS_DEFAULT,
    FLOWLETS_MAX,
    ROUTING_ALIASES,
    ROUTING_LABELS,
    ROUTINGS,
    RoutingError,
    canonical_routing,
)

__all__ = [
    "FLOWLETS_DEFAULT",
    "FLOWLETS_MAX",
    "ROUTINGS",
    "ROUTING_ALIASES",
    "ROUTING_LABELS",
    "Flows",
    "ForwardingTables",
    "Network",
    "RoutingError",
    "canonical_routing",
    "congestion_tree",
    "max_min_rates",
    "route",
    "simulate",
    "sub_flows",
    "symmetry",
]
