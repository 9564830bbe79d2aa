"""The event loop: constant rates until the next completion or arrival.

Design: ``shared/reference/flow-simulation.md`` section 2.2. Completions within a relative
``batch_rtol`` of each other are batched into one event; each event re-solves only what it
changes (:mod:`planner.analyses.flow.solver`). The next completions come from a heap of
(due time, flow) entries: an event costs the flows it changes, not a scan of every running
flow (a scan per event made 1M-flow runs quadratic).
"""

from __future__ import annotations

import heapq

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from planner.analyses.flow.flows import Flows, sub_flows
from planner.analyses.flow.incidence import route, unmerge
from planner.analyses.flow.network import Network
from planner.analyses.flow.results import Result, link_bits, summarize
from planner.analyses.flow.routing import RoutingError, canonical_routing
from planner.analyses.flow.solver import Rates, gather
from planner.analyses.flow.symmetry import PLANE_SYMMETRIC_ROUTINGS, plane_links, twins

__all__ = [
    "CLOSED_MAX",
    "LOCKSTEP_MAX_SHARE",
    "LOCKSTEP_MIN_FLOWS",
    "LOCKSTEP_ROW_LENGTH",
    "RESPLIT",
    "DueHeap",
    "components",
    "simulate",
]

#: Components run in lockstep (see :func:`simulate`) when there are more than this many flows,
LOCKSTEP_MIN_FLOWS = 64
#: the largest component holds at most this share of them ...
LOCKSTEP_MAX_SHARE = 0.125
#: ... and routes are short (at most this many links per flow on average: single paths; a
#: sprayed route crosses hundreds of links and its flows form one component anyway).
LOCKSTEP_ROW_LENGTH = 8.0
#: In lockstep, components are found again among the running flows when this share of them
#: has finished since the last time.
RESPLIT = 0.25
#: A round re-solves a component where a running flow lost its certificate whole while it
#: holds at most this many running flows (no certificate to check); a larger one locally.
CLOSED_MAX = 0


class DueHeap:
    """Due times of the running flows: ``due`` (an array, ``inf`` for a flow not running) and
    a heap of (due, flow) entries. An entry is current while ``due[flow]`` still equals its
    time; a changed due time pushes a new entry and leaves the old one to be skipped."""

    def __init__(self, due: np.ndarray):
        self.due = due
        self.heap: list = []

    def push(self, flows: np.ndarray) -> None:
        """Record the new due times of ``flows`` (already set in ``due``)."""
        heap = self.heap
        if flows.size * 8 > len(heap) + 64:  # many changes: rebuild from the current ones
            running = np.flatnonzero(np.isfinite(self.due))
            self.heap = heap = list(zip(self.due[running].tolist(), running.tolist(), strict=True))
            heapq.heapify(heap)
            return
        for entry in zip(self.due[flows].tolist(), flows.tolist(), strict=True):
            heapq.heappush(heap, entry)

    def first(self) -> float:
        """The earliest due time (``inf`` when none)."""
        heap, due = self.heap, self.due
        while heap:
            when, flow = heap[0]
            if due[flow] == when:
                return when
            heapq.heappop(heap)
        return np.inf

    def pop_until(self, limit: float) -> np.ndarray:
        """The flows due at or before ``limit``, sorted; their due times become ``inf``."""
        heap, due = self.heap, self.due
        out = []
        while heap and heap[0][0] <= limit:
            when, flow = heapq.heappop(heap)
            if due[flow] == when:
                due[flow] = np.inf
                out.append(flow)
        out.sort()
        return np.asarray(out, dtype=np.int64)


def components(rows: np.ndarray, cols: np.ndarray, n_rows: int) -> tuple[int, np.ndarray]:
    """Connected components of flows given as incidence entries (``rows`` 0..n_rows-1 in
    order, every one with an entry; ``cols`` their links): two flows are in one component
    when a chain of shared links joins them. Returns (count, label per flow); labels are
    0..count-1."""
    if n_rows == 0:
        return 0, np.zeros(0, dtype=np.int64)
    used = np.zeros(int(cols.max()) + 1, dtype=bool)
    used[cols] = True
    links = np.flatnonzero(used)
    column = np.zeros(used.size, dtype=np.int64)
    column[links] = n_rows + np.arange(links.size)
    size = n_rows + links.size
    indptr = np.full(size + 1, rows.size, dtype=np.int64)
    indptr[: n_rows + 1] = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=n_rows))))
    graph = sp.csr_matrix(
        (np.ones(rows.size, dtype=np.int8), column[cols], indptr), shape=(size, size)
    )
    # edges point from flows to links only: weak components are the undirected ones, found
    # without the symmetrised copy that ``directed=False`` builds
    count, label = csgraph.connected_components(graph, directed=True, connection="weak")
    return count, label[:n_rows].astype(np.int64)  # every component holds a flow


def _lockstep(
    rates: Rates, comp, due, running_rate, finish, *, now, batch_rtol, finished, on_progress
):
    """Run the started flows to completion, every component of the incidence on its own
    clock: each round takes the next completion(s) of every component at once and re-solves
    them together. Components share no link, so their max-min rates are independent and the
    union of their local re-solves is each one's; a round costs about what one event did,
    and rounds number about the events of the busiest component, not of the whole run.
    ``comp`` is each flow's component (:func:`components`). As flows finish, components come
    apart: they are found again among the running flows whenever ``RESPLIT`` of them have
    finished since the last time (a part keeps its component's clock). Returns the event
    times (one per component and round)."""
    order = np.flatnonzero(np.isfinite(due))
    order = order[np.argsort(comp[order], kind="stable")]
    clock = np.full(int(comp.max()) + 1 if comp.size else 0, now)
    nothing = np.zeros(0, dtype=np.int64)
    times = []
    resplit_at = order.size * (1 - RESPLIT)
    sizes_of = -1
    while order.size:
        if order.size <= resplit_at:
            seg, cols, _ = gather(rates.ptr, rates.idx, rates.val, order)
            count, part = components(seg, cols, order.size)
            part_clock = np.empty(count)
            part_clock[part] = clock[comp[order]]
            comp[order] = part
            clock = part_clock
            order = order[np.argsort(part, kind="stable")]
            resplit_at = order.size * (1 - RESPLIT)
        c = comp[order]
        d = due[order]
        starts = np.flatnonzero(np.concatenate(([True], c[1:] != c[:-1])))
        seg_comp = c[starts]
        nxt = np.minimum.reduceat(d, starts)
        here = clock[seg_comp]
        limit = here + (nxt - here) * (1 + batch_rtol)
        done = d <= np.repeat(limit, np.diff(np.append(starts, order.size)))
        ending = np.sort(order[done])
        clock[seg_comp] = nxt
        finish[ending] = clock[comp[ending]]
        due[ending] = np.inf
        times.append(nxt)
        order = order[~done]
        # the components where a running flow lost its certificate: re-solved whole when
        # small next to the hurt flows (no certificate to check), else locally
        hurt = rates.finish(ending, order)
        changed = nothing
        if hurt.size:
            hit = np.zeros(clock.size, dtype=bool)
            hit[comp[hurt]] = True
            if order.size != sizes_of:
                size = np.bincount(comp[order], minlength=clock.size)
                sizes_of = order.size
            small = hit & (size <= CLOSED_MAX)
            whole = order[small[comp[order]]]
            parts = []
            if whole.size:
                parts.append(rates.resolve_closed(np.sort(whole)))
            rest = hurt[~small[comp[hurt]]]
            if rest.size:
                parts.append(rates.resolve_local(rest))
            changed = np.concatenate([p[0] for p in parts])
            new_rate = np.concatenate([p[1] for p in parts])
        if changed.size:
            if not (new_rate.min() > 0 and new_rate.max() < np.inf):
                raise RoutingError("a flow has no capacity (failed link on its path?)")
            t0 = clock[comp[changed]]
            due[changed] = t0 + (due[changed] - t0) * (running_rate[changed] / new_rate)
            running_rate[changed] = new_rate
        if on_progress is not None:
            finished += ending.size
            total = finish.size
            on_progress(finished, total, f"simulated {finished:,} of {total:,} flows")
    return np.concatenate(times) if times else np.zeros(0)


def _distinct(times: np.ndarray, rtol: float) -> int:
    """Distinct times, those within ``rtol`` of the first of a run counted once."""
    times = np.sort(times)
    count, first = 0, -np.inf
    for t in times[np.concatenate(([True], times[1:] > times[:-1]))].tolist():
        if t > first * (1 + rtol) or first == -np.inf:
            count, first = count + 1, t
    return count


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
    symmetry: bool = True,
) -> Result:
    """Run ``flows`` (sizes in bytes) to completion; rates are max-min fair between events.

    The engine runs the sub-flows of :func:`sub_flows` (planes, ``qp_scaling``); a flow
    finishes with its last sub-flow; ``routing`` and ``flowlets``: see :func:`route`. Each
    event re-solves only what it changes (:mod:`planner.analyses.flow.solver`);
    ``Result.solves`` counts the solves by kind. When every flow starts at once and the
    routes split the flows into many components (no shared link between them), each
    component runs on its own clock and the components' events are taken a round at a time
    (``_lockstep``); ``Result.events`` still counts distinct event times.
    ``on_progress(done, total, message)``, when given, is called after each event with the
    count of finished sub-flows. With ``symmetry`` (default), identical planes run once
    (:mod:`planner.analyses.flow.symmetry`): the result is the same, ``Result.symmetry``
    says so.

    Raises
    ------
    RoutingError
        A flow has no path, or no capacity on it.
    ValueError
        Unknown routing, a plane the GPUs lack, or a start time that is not finite.
    """
    sub, parent = sub_flows(net, flows, qp_scaling)
    cap = np.where(net.alive, net.capacity, 0.0)
    planes = None
    if symmetry and net.planes > 1 and canonical_routing(routing) in PLANE_SYMMETRIC_ROUTINGS:
        planes = plane_links(net)
    kw = dict(
        seed=seed,
        polarization=polarization,
        flowlets=flowlets,
        batch_rtol=batch_rtol,
        on_progress=on_progress,
    )
    if planes is None:
        run = _run(net, sub, routing, cap, **kw)
        bits, peak, build, note = run.bits, run.peak, run.full_incidence, None
        routes = (run.incidence, run.merged)
    else:
        run, bits, peak, build, routes = _run_one_plane(
            net, sub, routing, cap, planes, qp_scaling, **kw
        )
        note = f"{net.planes} identical planes: plane 0 simulated, copied to the others"
    result = summarize(
        net,
        flows,
        bits,
        peak,
        run.rates.solves,
        parent=parent,
        finish=run.finish,
        first_rates=run.first_rates,
        first_bott=run.first_bott,
        cap=cap,
        events=run.events,
        hot_spot_count=hot_spot_count,
    )
    result.sub_flows, result.symmetry = sub, note
    result._build_incidence, result._routes = build, routes
    return result


def _run_one_plane(net, sub: Flows, routing, cap, planes, qp_scaling, **kw):
    """:func:`_run` on plane 0's sub-flows (and those inside a server), copied to the other
    planes: per sub-flow (finish, first rate, first bottleneck) and per link (bits, peak).
    Returns (run, link bits, peak, a function that builds the whole incidence: each twin's
    row, its links moved to its plane, and one that builds it as the run kept it: merged
    links as one, see ``Result.routes``)."""
    twin = twins(sub.plane, qp_scaling)
    mine = np.flatnonzero(sub.plane == 0)
    position = np.zeros(len(sub), dtype=np.int64)
    position[mine] = np.arange(mine.size)
    part = Flows(
        sub.src[mine], sub.dst[mine], sub.size[mine], sub.start[mine], sub.qp[mine], sub.plane[mine]
    )
    run = _run(net, part, routing, cap, **kw)
    of = position[twin]  # each sub-flow's row in the plane-0 run
    move = np.tile(np.arange(net.link_count), (planes.shape[0], 1))
    move[:, planes[0]] = planes  # move[p, link of plane 0] = that link in plane p
    peak, bits = run.peak.copy(), run.bits.copy()
    for p in range(1, planes.shape[0]):
        peak[planes[p]] = peak[planes[0]]
        bits[planes[p]] = bits[planes[0]]
    plane = sub.plane
    bott = run.first_bott[of]
    moved = bott >= 0
    bott[moved] = move[plane[moved], bott[moved]]
    run.finish, run.first_rates, run.first_bott = run.finish[of], run.first_rates[of], bott

    def moved(small):
        seg, cols, vals = gather(small.indptr, small.indices, small.data, of)
        indptr = np.concatenate(([0], np.cumsum(np.diff(small.indptr)[of])))
        return sp.csr_matrix(
            (vals, move[plane[seg], cols], indptr), shape=(len(sub), net.link_count)
        )

    def build():
        return moved(run.full_incidence())

    def routes():
        if run.merged is None:
            return moved(run.incidence), None
        merged = run.merged.copy()  # each plane's groups: plane 0's, moved to the plane
        for p in range(1, planes.shape[0]):
            merged[planes[p]] = move[p, run.merged[planes[0]]]
        return moved(run.incidence), merged

    return run, bits, peak, build, routes


class _Run:
    """What one engine run leaves: the solver, per-flow figures, the event count, and per
    link (every link, merged ones too) the peak utilisation and the bits that crossed it."""

    def __init__(self, rates, incidence, merged, finish, first_rates, first_bott, events, bits):
        self.rates, self.incidence, self.merged = rates, incidence, merged
        self.finish, self.first_rates, self.first_bott = finish, first_rates, first_bott
        self.events = events
        self.peak, self.bits = rates.peak, bits
        if merged is not None:
            self.peak, self.bits = self.peak[merged], bits[merged]

    def full_incidence(self):
        """The run's routes with merged links as they were (:func:`unmerge`)."""
        return self.incidence if self.merged is None else unmerge(self.incidence, self.merged)


def _run(
    net: Network, sub: Flows, routing, cap, *, seed, polarization, flowlets, batch_rtol, on_progress
):
    """Route and run sub-flows ``sub`` to completion (see :func:`simulate`); links that
    carry the same flows alike run as one (``route(merge_links=True)``).

    Long because: the event loop of the simulation: one while loop over shared arrays (rates, due
    times, bits left) that a split would have to pass back and forth at every event.
    """
    a, merged = route(
        net,
        sub,
        routing,
        seed=seed,
        polarization=polarization,
        flowlets=flowlets,
        merge_links=True,
    )
    n = len(sub)
    rates = Rates(a, cap)
    bits = sub.size * 8.0
    # A running flow has ``running_rate * (due - now)`` bits left; a starting flow is booked as
    # sending all its bits in one second until its first rate is known.
    running_rate = np.zeros(n)
    due = np.full(n, np.inf)
    queue = DueHeap(due)
    finish = np.full(n, np.nan)
    first_bott = np.full(n, -1, dtype=np.int64)
    first_rates = np.zeros(n)
    first_solve = True
    waiting = np.argsort(sub.start, kind="stable")
    waiting_start = sub.start[waiting]
    next_waiting = 0
    finished_count = 0
    events = 0
    lockstep = (
        n > LOCKSTEP_MIN_FLOWS
        and a.nnz <= LOCKSTEP_ROW_LENGTH * n
        and np.all(sub.start == sub.start[0])
    )
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
                queue.push(changed)
                if starting.size:
                    unset = first_bott[changed] < 0
                    first_bott[changed[unset]] = new_bott[unset]
                if first_solve:
                    first_rates[changed] = new_rate
                    first_solve = False
        if finished_count == n:
            break
        if lockstep and next_waiting == n:
            lockstep = False
            seg, cols, _ = gather(rates.ptr, rates.idx, rates.val, np.arange(n))
            n_comp, comp = components(seg, cols, n)
            if n_comp > 1 and np.bincount(comp).max() <= LOCKSTEP_MAX_SHARE * n:
                times = _lockstep(
                    rates,
                    comp,
                    due,
                    running_rate,
                    finish,
                    now=now,
                    batch_rtol=batch_rtol,
                    finished=finished_count,
                    on_progress=on_progress,
                )
                events += _distinct(times, batch_rtol)
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
        step = queue.first() - now
        if now + step > next_arrival:
            step = next_arrival - now
            ending = nothing
        else:
            ending = queue.pop_until(now + step * (1 + batch_rtol))
        now += step
        finish[ending] = now
        finished_count += ending.size
        if on_progress is not None:
            on_progress(finished_count, n, f"simulated {finished_count:,} of {n:,} flows")
    bits = link_bits(a, sub.size * 8.0, net.link_count)
    return _Run(rates, a, merged, finish, first_rates, first_bott, events, bits)
