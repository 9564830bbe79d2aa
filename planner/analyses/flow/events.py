"""The event loop: constant rates until the next completion or arrival.

Design: ``shared/reference/flow-simulation.md`` section 2.2. Completions within a relative
``batch_rtol`` of each other are batched into one event; each event re-solves only what it
changes (:mod:`planner.analyses.flow.solver`).
"""

from __future__ import annotations

import numpy as np

from planner.analyses.flow.flows import Flows, sub_flows
from planner.analyses.flow.incidence import route
from planner.analyses.flow.network import Network
from planner.analyses.flow.results import Result, summarize
from planner.analyses.flow.routing import RoutingError
from planner.analyses.flow.solver import Rates

__all__ = ["simulate"]


def simulate(
    net: Network,
    flows: Flows,
    routing: str = "ecmp",
    *,
    seed: int = 0,
    polarization: bool = False,
    flowlets: int | None = None,
    qp_scaling: int = 1,
    batch_rtol: float = 1e-9,
    hot_spot_count: int = 10,
    on_progress=None,
) -> Result:
    """Run ``flows`` (sizes in bytes) to completion; rates are max-min fair between events.

    The engine runs the sub-flows of :func:`sub_flows` (planes, ``qp_scaling``); a flow
    finishes with its last sub-flow; ``routing`` and ``flowlets``: see :func:`route`. Each
    event re-solves only what it changes (:mod:`planner.analyses.flow.solver`);
    ``Result.solves`` counts the solves by kind.
    ``on_progress(done, total, message)``, when given, is called after each event with the
    count of finished sub-flows.

    Raises
    ------
    RoutingError
        A flow has no path, or no capacity on it.
    ValueError
        Unknown routing, a plane the GPUs lack, or a start time that is not finite.
    """
    sub, parent = sub_flows(net, flows, qp_scaling)
    a = route(net, sub, routing, seed=seed, polarization=polarization, flowlets=flowlets)
    cap = np.where(net.alive, net.capacity, 0.0)
    n = len(sub)
    rates = Rates(a, cap)
    bits = sub.size * 8.0
    # A running flow has ``running_rate * (due - now)`` bits left; a starting flow is booked as
    # sending all its bits in one second until its first rate is known.
    running_rate = np.zeros(n)
    due = np.full(n, np.inf)
    finish = np.full(n, np.nan)
    first_bott = np.full(n, -1, dtype=np.int64)
    first_rates = np.zeros(n)
    first_solve = True
    waiting = np.argsort(sub.start, kind="stable")
    waiting_start = sub.start[waiting]
    next_waiting = 0
    finished_count = 0
    events = 0
    now = 0.0
    nothing = np.zeros(0, dtype=np.int64)
    ending = nothing
    threshold = 1e-300
    while True:
        # flows whose start has come; empty ones finish at once
        starting = nothing
        if next_waiting < n and waiting_start[next_waiting] <= now * (1 + batch_rtol) + threshold:
            upto = int(np.searchsorted(waiting_start, now * (1 + batch_rtol) + threshold, "right"))
            starting = waiting[next_waiting:upto]
            next_waiting = upto
            empty = bits[starting] <= 0
            if empty.any():
                finish[starting[empty]] = sub.start[starting[empty]] if now == 0 else now
                finished_count += int(empty.sum())
                starting = starting[~empty]
            running_rate[starting] = bits[starting]
            due[starting] = now + 1.0
        threshold = 1e-300
        if ending.size or starting.size:
            changed, new_rate, new_bott = rates.update(ending, starting)
            if changed.size:
                if not (new_rate.min() > 0 and new_rate.max() < np.inf):
                    raise RoutingError("a flow has no capacity (failed link on its path?)")
                due[changed] = now + (due[changed] - now) * (running_rate[changed] / new_rate)
                running_rate[changed] = new_rate
                if starting.size:
                    unset = first_bott[changed] < 0
                    first_bott[changed[unset]] = new_bott[unset]
                if first_solve:
                    first_rates[changed] = new_rate
                    first_solve = False
        if finished_count == n:
            break
        next_arrival = waiting_start[next_waiting] if next_waiting < n else np.inf
        if rates.running_count == 0:
            if next_arrival == np.inf:
                raise ValueError("flow start times must be finite")
            now = next_arrival
            threshold = 0.0
            ending = nothing
            continue
        events += 1
        step = due.min() - now
        if now + step > next_arrival:
            step = next_arrival - now
            ending = nothing
        else:
            ending = np.flatnonzero(due <= now + step * (1 + batch_rtol))
        now += step
        finish[ending] = now
        due[ending] = np.inf
        finished_count += ending.size
        if on_progress is not None:
            on_progress(finished_count, n, f"simulated {finished_count:,} of {n:,} flows")
    rates.sync()
    result = summarize(
        net,
        flows,
        rates,
        parent=parent,
        finish=finish,
        first_rates=first_rates,
        first_bott=first_bott,
        bits=bits,
        cap=cap,
        events=events,
        hot_spot_count=hot_spot_count,
    )
    result.sub_flows, result.incidence = sub, a
    return result
