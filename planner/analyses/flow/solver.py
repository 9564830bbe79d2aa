"""Max-min rates of the running flows, kept exact as flows start and finish.

Between events the rates are re-solved *locally* and exactly: only flows whose bottleneck link
changed are re-solved (the others held at their rates), then the max-min optimality condition
(every flow has a saturated link on which no flow runs faster) is checked on every link whose
load changed; a flow that fails it joins the re-solved set, until none fails. The max-min
allocation is unique, so the result is the one a full re-solve gives.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from planner.analyses.flow.filling import fill, fill_small
from planner.analyses.flow.routing import RoutingError

__all__ = ["CHECK_RTOL", "LOCAL_FRACTION", "SMALL_CHANGE", "SMALL_WORK", "Rates"]

#: Relative tolerance of the optimality check of a local re-solve (saturated link, fastest flow).
CHECK_RTOL = 1e-9
#: A local re-solve that would scan more than this fraction of the incidence's entries (the
#: links whose load changes, with every flow crossing them) becomes a full one.
LOCAL_FRACTION = 0.25
#: Events that finish or start at most ``SMALL_CHANGE`` flows are re-solved in plain Python
#: while that scans at most ``SMALL_WORK`` incidence entries (NumPy calls cost more then).
SMALL_CHANGE = 8
SMALL_WORK = 1000
FASTER = 2


def gather(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, rows: np.ndarray):
    """Entries of CSR ``rows`` (in the given order): (position in ``rows``, column, value)."""
    rows = np.asarray(rows, dtype=np.int64)
    low = indptr[rows]
    length = indptr[rows + 1] - low
    segment = np.repeat(np.arange(rows.size), length)
    position = np.arange(segment.size) + np.repeat(low - (np.cumsum(length) - length), length)
    return segment, indices[position], data[position]


class Padded:
    """CSR rows as a dense table (rows x longest row) of entry positions, -1 past a row's
    end: :meth:`take` returns what :func:`gather` does in six NumPy calls instead of
    fifteen (an event takes a few hundred rows several times). :meth:`build` gives None when
    the table would be much larger than the entries (a few very long rows)."""

    #: the table holds at most this many cells per entry (and at least 65,536 cells)
    LIMIT = 8

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, longest: int):
        length = np.diff(indptr)
        kind = np.int32 if indices.size < 2**31 else np.int64
        self.at = np.full((length.size, longest), -1, dtype=kind)
        row = np.repeat(np.arange(length.size), length)
        self.at[row, np.arange(indices.size) - indptr[row]] = np.arange(indices.size)
        self.indices, self.data = indices, data

    @classmethod
    def build(cls, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray):
        rows = indptr.size - 1
        longest = int(np.diff(indptr).max()) if rows else 0
        if longest == 0 or rows * longest > max(cls.LIMIT * indices.size, 65536):
            return None
        return cls(indptr, indices, data, longest)

    def take(self, rows: np.ndarray):
        """Entries of ``rows`` (in the given order): (position in ``rows``, column, value)."""
        at = self.at[rows]
        segment, k = np.nonzero(at >= 0)
        position = at[segment, k]
        return segment, self.indices[position], self.data[position]


def unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (sorting beats NumPy's hashing on the small arrays of events)."""
    values = np.sort(values)
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if values.size else values


class Rates:
    """Max-min rates of the running flows, kept exact as flows start and finish.

    ``bottleneck[f]`` is a saturated link on which no flow runs faster than ``f``: the max-min
    optimality certificate of the current rates. A change re-solves only the flows whose
    certificate it breaks (see the module docstring): in plain Python when a few flows change
    (NumPy calls cost more than the work then), with NumPy for more, and all running flows at
    once when a local re-solve would scan ``LOCAL_FRACTION`` of the incidence; the event loop
    may also re-solve whole components (:meth:`finish`, :meth:`resolve_closed`). ``solves``
    counts the four kinds. The plain-Python path reads list copies of the per-flow state
    (``_lists``) and keeps its link loads and peaks in dicts; what it changes reaches the arrays at
    :meth:`sync`, before any NumPy path reads them.
    """

    def __init__(self, incidence: sp.csr_matrix, capacity: np.ndarray):
        a = sp.csr_matrix(incidence, dtype=np.float64)
        a.eliminate_zeros()
        a.sort_indices()
        at = a.T.tocsr()
        self.ptr, self.idx, self.val = a.indptr, a.indices, a.data
        self.t_ptr, self.t_idx, self.t_val = at.indptr, at.indices, at.data
        self.capacity = capacity
        n = a.shape[0]
        self.running = np.zeros(n, dtype=bool)
        self.running_count = 0
        self.rate = np.zeros(n)
        self.bottleneck = np.full(n, -1, dtype=np.int64)
        self.load = np.zeros(a.shape[1])
        with np.errstate(divide="ignore"):
            self.inverse_capacity = np.where(capacity > 0, 1.0 / capacity, 0.0)
        self.peak = np.zeros(a.shape[1])  # highest load / capacity so far
        self._member = np.zeros(n, dtype=bool)
        self._link_work = np.diff(self.t_ptr)  # entries on each link
        self._slowest = np.full(a.shape[1], np.inf)  # scratch of resolve_local, kept at inf
        self._column = np.zeros(a.shape[1], dtype=np.int64)  # scratch: link -> local column
        self._position = np.zeros(n, dtype=np.int64)
        self._mark = np.zeros(a.shape[1], dtype=bool)  # scratch of finish, kept False
        self._tables = None  # Padded flow rows and link rows (or None), built at first use
        self._rows: dict = {}  # plain-Python rows of the incidence and of its transpose
        self._link_rows: dict = {}
        self._lists = None  # running, rate, bottleneck as lists
        self._dirty_flows: set = set()  # rate and bottleneck changed in the lists only
        self._small_load: dict = {}  # link -> load set by the plain-Python path
        self._small_peak: dict = {}  # link -> highest load / capacity it saw
        self._capacity = capacity.tolist()
        self._inverse_capacity = self.inverse_capacity.tolist()
        self.solves = {"full": 0, "local": 0, "small": 0, "component": 0}

    # rows -----------------------------------------------------------------------------------
    def _built(self):
        if self._tables is None:
            self._tables = (
                Padded.build(self.ptr, self.idx, self.val),
                Padded.build(self.t_ptr, self.t_idx, self.t_val),
            )
        return self._tables

    def _links_of(self, flows: np.ndarray):
        """Entries of flows ``flows``: (position in ``flows``, link, weight)."""
        table = self._built()[0]
        if table is None:
            return gather(self.ptr, self.idx, self.val, flows)
        return table.take(flows)

    def _flows_on(self, links: np.ndarray):
        """Entries of links ``links``: (position in ``links``, flow, weight)."""
        table = self._built()[1]
        if table is None:
            return gather(self.t_ptr, self.t_idx, self.t_val, links)
        return table.take(links)

    # state ----------------------------------------------------------------------------------
    def _set_running(self, flows: np.ndarray, running: bool) -> None:
        self.running[flows] = running
        self.rate[flows] = 0.0
        if self._lists is not None:
            run, rate = self._lists[0], self._lists[1]
            for f in flows.tolist():
                run[f] = running
                rate[f] = 0.0

    def _set_rates(self, flows, rate, bottleneck) -> None:
        self.rate[flows] = rate
        self.bottleneck[flows] = bottleneck
        if self._lists is not None:
            rates, botts = self._lists[1], self._lists[2]
            for f, r, b in zip(
                np.asarray(flows).tolist(),
                np.asarray(rate).tolist(),
                np.asarray(bottleneck).tolist(),
                strict=True,
            ):
                rates[f] = r
                botts[f] = b

    def _set_load(self, links, load) -> None:
        self.load[links] = load
        self.peak[links] = np.maximum(self.peak[links], load * self.inverse_capacity[links])

    def sync(self) -> None:
        """Bring the arrays up to date with the plain-Python path's changes."""
        if self._dirty_flows:
            flows = list(self._dirty_flows)
            rate, bott = self._lists[1], self._lists[2]
            self.rate[flows] = [rate[f] for f in flows]
            self.bottleneck[flows] = [bott[f] for f in flows]
            self._dirty_flows.clear()
        if self._small_load:
            links = list(self._small_load)
            self.load[links] = list(self._small_load.values())
            self.peak[links] = np.maximum(self.peak[links], list(self._small_peak.values()))
            self._small_load.clear()
            self._small_peak.clear()

    def solve_all(self):
        """Re-solve every running flow; returns (those flows, their rates, bottlenecks)."""
        self.sync()
        self.solves["full"] += 1
        flows = np.flatnonzero(self.running)
        seg, cols, vals = gather(self.ptr, self.idx, self.val, flows)
        if (self.ptr[flows + 1] == self.ptr[flows]).any():
            raise RoutingError("a flow crosses no link")
        rate, bottleneck = fill(seg, cols, vals, flows.size, self.capacity)
        self.rate[flows] = rate
        self.bottleneck[flows] = bottleneck
        self.load = np.bincount(cols, weights=vals * rate[seg], minlength=self.load.size)
        np.maximum(self.peak, self.load * self.inverse_capacity, out=self.peak)
        self._lists = None
        return flows, rate, bottleneck

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
        if finished.size + started.size <= SMALL_CHANGE:
            done = self._update_small(finished.tolist(), started.tolist())
            if done is not None:
                return done
        self.sync()
        _, cols, _ = self._links_of(np.concatenate([finished, started]))
        touched = unique(cols)
        seg, flows, vals = self._flows_on(touched)
        self._set_load(
            touched, np.bincount(seg, weights=vals * self.rate[flows], minlength=touched.size)
        )
        hurt = flows[self.running[flows] & (self.bottleneck[flows] == touched[seg])]
        resolve = unique(np.concatenate([hurt, started]))
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
        self.sync()
        seg, cols, vals = self._links_of(finished)
        np.subtract.at(self.load, cols, vals * self.rate[finished][seg])
        self._set_running(finished, False)
        self.running_count -= finished.size
        mark = self._mark
        mark[cols] = True
        hurt = running[mark[self.bottleneck[running]]]
        mark[cols] = False
        return hurt

    def resolve_local(self, hurt: np.ndarray):
        """Re-solve after :meth:`finish`: ``hurt`` with every other flow held, widened until
        every certificate holds, as :meth:`update` does. The finished flows' links need no
        check of their own: every flow bottlenecked on one is hurt, so re-solved.

        The re-solve starts with the running flows that run faster than a hurt flow on one of
        its links as well: a hurt flow that speeds up takes its share from them, so the first
        check would add them anyway (this halves the widening rounds of 4,096 lognormal
        flows)."""
        seg, cols, _ = self._links_of(hurt)
        slowest = self._slowest
        np.minimum.at(slowest, cols, self.rate[hurt][seg])
        links = unique(cols)
        l_seg, flows, _ = self._flows_on(links)
        faster = self.running[flows] & (self.rate[flows] > slowest[links][l_seg] * (1 + CHECK_RTOL))
        slowest[links] = np.inf
        return self._resolve(unique(np.concatenate([hurt, flows[faster]])), links[:0])

    def resolve_closed(self, flows: np.ndarray):
        """Re-solve running flows ``flows`` from their links' full capacity: exact when they are
        whole components (no other running flow crosses their links), with no certificate to
        check. Returns (flows, rates, bottlenecks)."""
        self.sync()
        self.solves["component"] += 1
        seg, cols, vals = self._links_of(flows)
        links = unique(cols)
        column = np.searchsorted(links, cols)
        rate, local = fill(seg, column, vals, flows.size, self.capacity[links])
        bottleneck = links[local]
        self._set_rates(flows, rate, bottleneck)
        self._set_load(links, np.bincount(column, weights=vals * rate[seg], minlength=links.size))
        return flows, rate, bottleneck

    def _work(self, links: np.ndarray) -> int:
        """Incidence entries on ``links`` (every flow that ever crosses them)."""
        return int(self._link_work[links].sum())

    # plain Python: a few flows --------------------------------------------------------------
    def _row(self, flow: int) -> tuple[list, list]:
        row = self._rows.get(flow)
        if row is None:
            low, high = int(self.ptr[flow]), int(self.ptr[flow + 1])
            row = self._rows[flow] = (self.idx[low:high].tolist(), self.val[low:high].tolist())
        return row

    def _link_row(self, link: int) -> tuple[list, list]:
        row = self._link_rows.get(link)
        if row is None:
            low, high = int(self.t_ptr[link]), int(self.t_ptr[link + 1])
            row = (self.t_idx[low:high].tolist(), self.t_val[low:high].tolist())
            self._link_rows[link] = row
        return row

    def _update_small(self, finished: list, started: list):
        """:meth:`update` in plain Python; None (nothing changed) when that would scan more
        than ``SMALL_WORK`` incidence entries."""
        if self._lists is None:
            self._lists = (self.running.tolist(), self.rate.tolist(), self.bottleneck.tolist())
        running, rate, bott = self._lists
        capacity = self._capacity
        row, link_row = self._row, self._link_row
        touched: set = set()
        for flow in finished + started:
            touched.update(row(flow)[0])
        resolve = set(started)
        work = 0
        for link in touched:
            on_link = link_row(link)[0]
            work += len(on_link)
            for f in on_link:
                if bott[f] == link and running[f]:
                    resolve.add(f)
        if not resolve:  # no flow lost its certificate: new loads only
            check = sorted(touched)
            loads = []
            for link in check:
                on_link, vals = link_row(link)
                loads.append(sum(value * rate[f] for f, value in zip(on_link, vals, strict=True)))
            return self._commit_small(check, loads, [], [], [])
        while work <= SMALL_WORK:
            flows = sorted(resolve)
            rows = [row(f) for f in flows]
            links = set(touched)
            for cols, _ in rows:
                links.update(cols)
                work += len(cols)
            # one pass over the links: the load and top rate of the held flows, and which of
            # them are bottlenecked there
            check = sorted(links)
            held = []
            resid = {}
            for link in check:
                on_link, vals = link_row(link)
                work += len(on_link)
                held_load = fastest = 0.0
                bottlenecked = []
                for f, value in zip(on_link, vals, strict=True):
                    if running[f] and f not in resolve:
                        r = rate[f]
                        held_load += value * r
                        if r > fastest:
                            fastest = r
                        if bott[f] == link:
                            bottlenecked.append(f)
                held.append((held_load, fastest, bottlenecked))
                resid[link] = capacity[link] - held_load
            if work > SMALL_WORK:
                return None
            new_rate, new_bott = fill_small(rows, resid) if rows else ([], [])
            added: dict = {}
            for (cols, vals), r in zip(rows, new_rate, strict=True):
                for col, value in zip(cols, vals, strict=True):
                    load_top = added.get(col)
                    added[col] = (
                        (value * r, r)
                        if load_top is None
                        else (load_top[0] + value * r, max(load_top[1], r))
                    )
            loads = []
            state = {}
            grow: set = set()
            broken = False
            for link, (held_load, fastest, bottlenecked) in zip(check, held, strict=True):
                extra = added.get(link)
                if extra is not None:
                    held_load += extra[0]
                    fastest = max(fastest, extra[1])
                loads.append(held_load)
                saturated = held_load >= capacity[link] * (1 - CHECK_RTOL)
                floor = fastest * (1 - CHECK_RTOL)
                state[link] = (saturated, floor)
                for f in bottlenecked:
                    if not saturated or rate[f] < floor:
                        broken = True
                        grow.add(f)
            for r, link in zip(new_rate, new_bott, strict=True):
                saturated, floor = state[link]
                if not saturated or r < floor:  # held flows on its bottleneck run faster
                    broken = True
                    grow.update(g for g in link_row(link)[0] if running[g] and g not in resolve)
            if not broken:
                return self._commit_small(check, loads, flows, new_rate, new_bott)
            if not grow:
                return None
            resolve |= grow
        return None

    def _commit_small(self, links: list, loads: list, flows: list, rates: list, botts: list):
        small_load, small_peak, inverse_capacity = (
            self._small_load,
            self._small_peak,
            self._inverse_capacity,
        )
        for link, value in zip(links, loads, strict=True):
            small_load[link] = value
            level = value * inverse_capacity[link]
            if level > small_peak.get(link, -1.0):
                small_peak[link] = level
        _, rate, bott = self._lists
        for f, r, b in zip(flows, rates, botts, strict=True):
            rate[f] = r
            bott[f] = b
        if flows:
            self._dirty_flows.update(flows)
            self.solves["small"] += 1
        return (
            np.asarray(flows, dtype=np.int64),
            np.asarray(rates, dtype=np.float64),
            np.asarray(botts, dtype=np.int64),
        )

    # NumPy: more flows ----------------------------------------------------------------------
    def _resolve(self, flows: np.ndarray, touched: np.ndarray):
        """Re-solve ``flows`` with every other flow held, then check the certificate on all
        links whose load changed; widen and repeat until it holds."""
        member, position = self._member, self._position
        while True:
            seg, cols, vals = self._links_of(flows)
            own_links = unique(cols)
            links = unique(np.concatenate([own_links, touched])) if touched.size else own_links
            if self._work(links) > LOCAL_FRACTION * self.idx.size:
                return self.solve_all()
            self.solves["local"] += 1
            self._column[own_links] = np.arange(own_links.size)
            column = self._column[cols]
            own = np.bincount(
                column, weights=vals * self.rate[flows][seg], minlength=own_links.size
            )
            free = self.capacity[own_links] - (self.load[own_links] - own)
            rate, local = fill(seg, column, vals, flows.size, free)
            bottleneck = own_links[local]
            l_seg, l_flow, l_val = self._flows_on(links)
            keep = self.running[l_flow]
            l_seg, l_flow, l_val = l_seg[keep], l_flow[keep], l_val[keep]
            member[flows] = True
            position[flows] = np.arange(flows.size)
            inside = member[l_flow]
            at = np.where(inside, position[l_flow], 0)
            l_rate = np.where(inside, rate[at], self.rate[l_flow])
            l_bott = np.where(inside, bottleneck[at], self.bottleneck[l_flow])
            load = np.bincount(l_seg, weights=l_val * l_rate, minlength=links.size)
            fastest = np.zeros(links.size)
            np.maximum.at(fastest, l_seg, l_rate)
            saturated = load >= self.capacity[links] * (1 - CHECK_RTOL)
            holds = saturated[l_seg] & (l_rate >= fastest[l_seg] * (1 - CHECK_RTOL))
            broken = (l_bott == links[l_seg]) & ~holds
            member[flows] = False
            if not broken.any():
                self._set_rates(flows, rate, bottleneck)
                self._set_load(links, load)
                return flows, rate, bottleneck
            # an outside flow without its certificate joins; so do the outside flows on the
            # bottleneck of a re-solved flow that fails its certificate
            failing = np.zeros(links.size, dtype=bool)
            failing[l_seg[broken & inside]] = True
            grow = l_flow[(broken | failing[l_seg]) & ~inside]
            if grow.size == 0:
                return self.solve_all()
            flows = unique(np.concatenate([flows, grow]))
            touched = links
