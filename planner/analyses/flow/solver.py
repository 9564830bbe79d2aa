"""Max-min rates of the running flows, kept exact as flows start and finish.

Between events the rates are re-solved *locally* and exactly: only flows whose bottleneck link
changed are re-solved (the others held at their rates), then the max-min optimality condition
(every flow has a saturated link on which no flow runs faster) is checked on every link whose
load changed; a flow that fails it joins the re-solved set, until none fails. The max-min
allocation is unique, so the result is the one a full re-solve gives.

An event re-solves tens to hundreds of flows: the re-solve is compiled (numba, cached next to
this file in ``__pycache__``), where array-library calls would cost more than the work.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from planner.analyses.flow.filling import fill
from planner.analyses.flow.routing import RoutingError

__all__ = ["CHECK_RTOL", "LOCAL_FRACTION", "Rates"]

#: Relative tolerance of the optimality check of a local re-solve (saturated link, fastest flow).
CHECK_RTOL = 1e-9
#: A local re-solve that would scan more than this fraction of the incidence's entries (the
#: links whose load changes, with every flow crossing them) becomes a full one.
LOCAL_FRACTION = 0.25
#: Relative tolerance of the water-filling (:func:`~planner.analyses.flow.filling.fill`).
FILL_RTOL = 1e-12


def gather(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, rows: np.ndarray):
    """Entries of CSR ``rows`` (in the given order): (position in ``rows``, column, value)."""
    rows = np.asarray(rows, dtype=np.int64)
    low = indptr[rows]
    length = indptr[rows + 1] - low
    segment = np.repeat(np.arange(rows.size), length)
    position = np.arange(segment.size) + np.repeat(low - (np.cumsum(length) - length), length)
    return segment, indices[position], data[position]


def unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (sorting beats NumPy's hashing on the small arrays of events)."""
    values = np.sort(values)
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if values.size else values


# compiled re-solves ---------------------------------------------------------------------------
# ``g`` bundles the incidence and the solver state the kernels read and write:
# (ptr, idx, val, t_ptr, t_idx, t_val, capacity, inverse_capacity, link_work,
#  running, rate, bottleneck, load, peak, position, column); ``position`` (per flow) and
# ``column`` (per link) are scratch marks, -1 between calls.


@numba.njit(cache=True, error_model="numpy")
def _set_loads(links, link_load, load, peak, inverse_capacity):
    for j in range(links.shape[0]):
        link = links[j]
        load[link] = link_load[j]
        level = link_load[j] * inverse_capacity[link]
        if level > peak[link]:
            peak[link] = level


@numba.njit(cache=True, error_model="numpy")
def _resolve(flows, touched, g, work_limit, check_rtol, fill_rtol):
    """Re-solve ``flows`` (distinct) with every other running flow held, then check the
    certificate on their links and ``touched``; widen and repeat until it holds. Returns
    (solved, flows, rates, bottlenecks, local re-solves); not solved when a re-solve would
    scan more than ``work_limit`` entries or the check finds no flow to add (a full re-solve
    then).

    Long because: one widening loop (re-solve, check the certificate, widen) over state each round
    updates; the loop is the algorithm.
    """
    ptr, idx, val, t_ptr, t_idx, t_val, capacity, inverse_capacity, link_work = g[:9]
    running, rate, bottleneck, load, peak, position, column = g[9:]
    local = 0
    while True:
        n_flows = flows.shape[0]
        count = 0
        for i in range(n_flows):
            count += ptr[flows[i] + 1] - ptr[flows[i]]
        seg = np.empty(count, dtype=np.int64)
        loc = np.empty(count, dtype=np.int64)
        vals = np.empty(count)
        links = np.empty(count + touched.shape[0], dtype=np.int64)
        n_own = 0
        k = 0
        for i in range(n_flows):
            f = flows[i]
            for e in range(ptr[f], ptr[f + 1]):
                link = idx[e]
                if column[link] < 0:
                    column[link] = n_own
                    links[n_own] = link
                    n_own += 1
                seg[k], loc[k], vals[k] = i, column[link], val[e]
                k += 1
        n_links = n_own
        for link in touched:
            if column[link] < 0:
                column[link] = n_links
                links[n_links] = link
                n_links += 1
        links = links[:n_links]
        work = 0
        for j in range(n_links):
            column[links[j]] = -1
            work += link_work[links[j]]
        if work > work_limit:
            return False, flows, np.zeros(0), flows[:0], local
        local += 1
        own = np.zeros(n_own)
        for k in range(count):
            own[loc[k]] += vals[k] * rate[flows[seg[k]]]
        free = np.empty(n_own)
        for j in range(n_own):
            link = links[j]
            free[j] = capacity[link] - (load[link] - own[j])
        new_rate, local_bott = fill(seg, loc, vals, n_flows, free, fill_rtol)
        new_bott = links[local_bott]
        for i in range(n_flows):
            position[flows[i]] = i
        link_load = np.zeros(n_links)
        fastest = np.zeros(n_links)
        for j in range(n_links):
            for e in range(t_ptr[links[j]], t_ptr[links[j] + 1]):
                f = t_idx[e]
                if running[f]:
                    i = position[f]
                    r = new_rate[i] if i >= 0 else rate[f]
                    link_load[j] += t_val[e] * r
                    if r > fastest[j]:
                        fastest[j] = r
        # an outside flow without its certificate joins; so do the outside flows on the
        # bottleneck of a re-solved flow that fails its certificate (marked -2 once added)
        grow = np.empty(work, dtype=np.int64)
        n_grow = 0
        broken = False
        failing = np.zeros(n_links, dtype=np.bool_)
        for j in range(n_links):
            link = links[j]
            saturated = link_load[j] >= capacity[link] * (1 - check_rtol)
            floor = fastest[j] * (1 - check_rtol)
            for e in range(t_ptr[link], t_ptr[link + 1]):
                f = t_idx[e]
                if not running[f]:
                    continue
                i = position[f]
                if i >= 0:
                    r, b = new_rate[i], new_bott[i]
                else:
                    r, b = rate[f], bottleneck[f]
                if b == link and not (saturated and r >= floor):
                    broken = True
                    if i >= 0:
                        failing[j] = True
                    elif i == -1:
                        position[f] = -2
                        grow[n_grow] = f
                        n_grow += 1
        if broken:
            for j in range(n_links):
                if failing[j]:
                    for e in range(t_ptr[links[j]], t_ptr[links[j] + 1]):
                        f = t_idx[e]
                        if running[f] and position[f] == -1:
                            position[f] = -2
                            grow[n_grow] = f
                            n_grow += 1
        for i in range(n_flows):
            position[flows[i]] = -1
        for i in range(n_grow):
            position[grow[i]] = -1
        if not broken:
            for i in range(n_flows):
                rate[flows[i]] = new_rate[i]
                bottleneck[flows[i]] = new_bott[i]
            _set_loads(links, link_load, load, peak, inverse_capacity)
            return True, flows, new_rate, new_bott, local
        if n_grow == 0:
            return False, flows, np.zeros(0), flows[:0], local
        flows = np.concatenate((flows, grow[:n_grow]))
        touched = links


@numba.njit(cache=True, error_model="numpy")
def _touch(changed, started, g):
    """The links of ``changed`` (finished and started flows, already marked) get their loads
    summed again. Returns (the running flows bottlenecked on one of those links and
    ``started``; the links)."""
    ptr, idx, t_ptr, t_idx, t_val, inverse_capacity = g[0], g[1], g[3], g[4], g[5], g[7]
    running, rate, bottleneck, load, peak, position, column = g[9:]
    count = 0
    for f in changed:
        count += ptr[f + 1] - ptr[f]
    touched = np.empty(count, dtype=np.int64)
    n_touched = 0
    for f in changed:
        for e in range(ptr[f], ptr[f + 1]):
            if column[idx[e]] < 0:
                column[idx[e]] = 0
                touched[n_touched] = idx[e]
                n_touched += 1
    touched = touched[:n_touched]
    link_load = np.zeros(n_touched)
    work = started.shape[0]
    for link in touched:
        work += t_ptr[link + 1] - t_ptr[link]
    hurt = np.empty(work, dtype=np.int64)
    n_hurt = 0
    for j in range(n_touched):
        link = touched[j]
        column[link] = -1
        for e in range(t_ptr[link], t_ptr[link + 1]):
            f = t_idx[e]
            link_load[j] += t_val[e] * rate[f]
            if running[f] and bottleneck[f] == link and position[f] == -1:
                position[f] = -2
                hurt[n_hurt] = f
                n_hurt += 1
    _set_loads(touched, link_load, load, peak, inverse_capacity)
    for f in started:
        if position[f] == -1:
            position[f] = -2
            hurt[n_hurt] = f
            n_hurt += 1
    hurt = hurt[:n_hurt]
    for f in hurt:
        position[f] = -1
    return hurt, touched


@numba.njit(cache=True, error_model="numpy")
def _finish(finished, still, g):
    """Finish flows ``finished``: their links' loads drop by what they sent. Returns the flows
    of ``still`` (running) bottlenecked on one of those links, in ``still``'s order."""
    ptr, idx, val = g[0], g[1], g[2]
    running, rate, bottleneck, load, column = g[9], g[10], g[11], g[12], g[15]
    for f in finished:
        for e in range(ptr[f], ptr[f + 1]):
            load[idx[e]] -= val[e] * rate[f]
            column[idx[e]] = 0
        running[f] = False
        rate[f] = 0.0
    hurt = np.empty(still.shape[0], dtype=np.int64)
    n_hurt = 0
    for f in still:
        if column[bottleneck[f]] == 0:
            hurt[n_hurt] = f
            n_hurt += 1
    for f in finished:
        for e in range(ptr[f], ptr[f + 1]):
            column[idx[e]] = -1
    return hurt[:n_hurt]


@numba.njit(cache=True, error_model="numpy")
def _widen(hurt, g, check_rtol):
    """``hurt`` and the running flows faster than a hurt flow on one of its links (see
    :meth:`Rates.resolve_local`)."""
    ptr, idx, t_ptr, t_idx = g[0], g[1], g[3], g[4]
    running, rate, position, column = g[9], g[10], g[14], g[15]
    count = 0
    for f in hurt:
        count += ptr[f + 1] - ptr[f]
    links = np.empty(count, dtype=np.int64)
    slowest = np.empty(count)
    n_links = 0
    work = 0
    for f in hurt:
        for e in range(ptr[f], ptr[f + 1]):
            link = idx[e]
            j = column[link]
            if j < 0:
                j = column[link] = n_links
                links[n_links] = link
                slowest[j] = rate[f]
                work += t_ptr[link + 1] - t_ptr[link]
                n_links += 1
            elif rate[f] < slowest[j]:
                slowest[j] = rate[f]
    chosen = np.empty(hurt.shape[0] + work, dtype=np.int64)
    n_chosen = 0
    for f in hurt:
        position[f] = -2
        chosen[n_chosen] = f
        n_chosen += 1
    for j in range(n_links):
        column[links[j]] = -1
        floor = slowest[j] * (1 + check_rtol)
        for e in range(t_ptr[links[j]], t_ptr[links[j] + 1]):
            f = t_idx[e]
            if running[f] and position[f] == -1 and rate[f] > floor:
                position[f] = -2
                chosen[n_chosen] = f
                n_chosen += 1
    chosen = chosen[:n_chosen]
    for f in chosen:
        position[f] = -1
    return chosen


class Rates:
    """Max-min rates of the running flows, kept exact as flows start and finish.

    ``bottleneck[f]`` is a saturated link on which no flow runs faster than ``f``: the max-min
    optimality certificate of the current rates. A change re-solves only the flows whose
    certificate it breaks (see the module docstring; compiled), and all running flows at once
    when a local re-solve would scan ``LOCAL_FRACTION`` of the incidence; the event loop may
    also re-solve whole components (:meth:`finish`, :meth:`resolve_closed`). ``solves``
    counts the three kinds.
    """

    def __init__(self, incidence: sp.csr_matrix, capacity: np.ndarray):
        a = sp.csr_matrix(incidence, dtype=np.float64)
        a.eliminate_zeros()
        a.sort_indices()
        at = a.T.tocsr()
        self.ptr, self.idx, self.val = _csr(a)
        self.t_ptr, self.t_idx, self.t_val = _csr(at)
        self.capacity = np.ascontiguousarray(capacity, dtype=np.float64)
        n = a.shape[0]
        self.running = np.zeros(n, dtype=bool)
        self.running_count = 0
        self.rate = np.zeros(n)
        self.bottleneck = np.full(n, -1, dtype=np.int64)
        self.load = np.zeros(a.shape[1])
        with np.errstate(divide="ignore"):
            self.inverse_capacity = np.where(self.capacity > 0, 1.0 / self.capacity, 0.0)
        self.peak = np.zeros(a.shape[1])  # highest load / capacity so far
        link_work = np.diff(self.t_ptr)  # entries on each link
        position = np.full(n, -1, dtype=np.int64)  # scratch marks of the kernels
        column = np.full(a.shape[1], -1, dtype=np.int64)
        self._g = (
            *(self.ptr, self.idx, self.val, self.t_ptr, self.t_idx, self.t_val),
            *(self.capacity, self.inverse_capacity, link_work),
            *(self.running, self.rate, self.bottleneck, self.load, self.peak, position, column),
        )
        self.solves = {"full": 0, "local": 0, "component": 0}

    def _limit(self) -> float:
        return float(LOCAL_FRACTION * self.idx.size)

    def _resolve(self, flows: np.ndarray, touched: np.ndarray):
        """:func:`_resolve` of ``flows`` (distinct), or a full re-solve where it gave up."""
        solved, flows, rate, bottleneck, local = _resolve(
            flows, touched, self._g, self._limit(), CHECK_RTOL, FILL_RTOL
        )
        self.solves["local"] += local
        if not solved:
            return self.solve_all()
        return flows, rate, bottleneck

    def solve_all(self):
        """Re-solve every running flow; returns (those flows, their rates, bottlenecks)."""
        self.solves["full"] += 1
        flows = np.flatnonzero(self.running)
        seg, cols, vals = gather(self.ptr, self.idx, self.val, flows)
        if (self.ptr[flows + 1] == self.ptr[flows]).any():
            raise RoutingError("a flow crosses no link")
        rate, bottleneck = fill(
            seg, cols.astype(np.int64), vals, flows.size, self.capacity, FILL_RTOL
        )
        self.rate[flows] = rate
        self.bottleneck[flows] = bottleneck
        self.load[:] = np.bincount(cols, weights=vals * rate[seg], minlength=self.load.size)
        np.maximum(self.peak, self.load * self.inverse_capacity, out=self.peak)
        return flows, rate, bottleneck

    def _set_running(self, flows: np.ndarray, running: bool) -> None:
        self.running[flows] = running
        self.rate[flows] = 0.0

    def update(self, finished: np.ndarray, started: np.ndarray):
        """Finish flows ``finished`` and start flows ``started``; re-solve what can change.

        Returns the flows whose rate was set, their rates and their bottlenecks.
        """
        if finished.size:
            self._set_running(finished, False)
        if started.size:
            self._set_running(started, True)
            if (self.ptr[started + 1] == self.ptr[started]).any():
                raise RoutingError("a flow crosses no link")
        self.running_count += started.size - finished.size
        if self.running_count == 0:
            return started[:0], np.zeros(0), started[:0]
        if started.size == self.running_count:  # nothing else runs: one plain solve
            return self.solve_all()
        changed = np.concatenate([finished, started]).astype(np.int64)
        resolve, touched = _touch(changed, started.astype(np.int64), self._g)
        if resolve.size == 0:
            return resolve, np.zeros(0), resolve
        return self._resolve(resolve, touched)

    # whole components ---------------------------------------------------------------------------
    def finish(self, finished: np.ndarray, running: np.ndarray) -> np.ndarray:
        """Finish flows ``finished`` without re-solving: their links' loads drop (by what they
        sent; no peak can rise). ``running`` holds every flow still running, in any order.
        Returns those that lost their certificate (bottlenecked on a link of a finished
        flow), in ``running``'s order; :meth:`resolve_closed` or :meth:`resolve_local` then
        re-solves."""
        self.running_count -= finished.size
        return _finish(finished.astype(np.int64), running.astype(np.int64), self._g)

    def resolve_local(self, hurt: np.ndarray):
        """Re-solve after :meth:`finish`: ``hurt`` with every other flow held, widened until
        every certificate holds, as :meth:`update` does. The finished flows' links need no
        check of their own: every flow bottlenecked on one is hurt, so re-solved.

        The re-solve starts with the running flows that run faster than a hurt flow on one of
        its links as well: a hurt flow that speeds up takes its share from them, so the first
        check would add them anyway (this halves the widening rounds of 4,096 lognormal
        flows)."""
        flows = _widen(hurt.astype(np.int64), self._g, CHECK_RTOL)
        return self._resolve(flows, flows[:0])

    def resolve_closed(self, flows: np.ndarray):
        """Re-solve running flows ``flows`` from their links' full capacity: exact when they are
        whole components (no other running flow crosses their links), with no certificate to
        check. Returns (flows, rates, bottlenecks)."""
        self.solves["component"] += 1
        seg, cols, vals = gather(self.ptr, self.idx, self.val, flows)
        links = unique(cols)
        column = np.searchsorted(links, cols).astype(np.int64)
        rate, local = fill(seg, column, vals, flows.size, self.capacity[links], FILL_RTOL)
        bottleneck = links[local].astype(np.int64)
        self.rate[flows] = rate
        self.bottleneck[flows] = bottleneck
        load = np.bincount(column, weights=vals * rate[seg], minlength=links.size)
        _set_loads(links.astype(np.int64), load, self.load, self.peak, self.inverse_capacity)
        return flows, rate, bottleneck


def _csr(m: sp.csr_matrix):
    """(indptr, indices, data) of ``m`` as the kernels take them (int64, int32, float64)."""
    return (
        m.indptr.astype(np.int64, copy=False),
        m.indices.astype(np.int32, copy=False),
        np.ascontiguousarray(m.data, dtype=np.float64),
    )
