"""Max-min fair rates by parallel ("local bottleneck") water-filling (progressive filling).

Design: ``shared/reference/flow-simulation.md`` section 2.1. :func:`fill` on incidence
entries, compiled (numba: an event re-solves 50 to 100 flows, where the calls of an array
library cost more than the work), :func:`max_min_rates` on an incidence.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

__all__ = ["fill", "max_min_rates"]


@numba.njit(cache=True, error_model="numpy")
def fill(row, col, val, n_rows, capacity, rtol=1e-12):
    """Parallel water-filling on entries (``row``, ``col``, ``val``) sorted by row, every row
    ``0..n_rows-1`` with at least one entry; ``capacity`` per column.

    Each round freezes every column whose fair share is the smallest among the columns its
    unfrozen rows cross; those rows get that share. Returns (rate per row, bottleneck column
    per row: the first such column of the row).
    """
    n_cols = capacity.shape[0]
    rate = np.zeros(n_rows)
    bottleneck = np.full(n_rows, -1, dtype=np.int64)
    resid = capacity.copy()
    m = row.shape[0]
    r = row.copy()  # entries of the unfrozen rows, kept at the front
    c = col.copy()
    v = val.copy()
    load = np.zeros(n_cols)  # per round: the unfrozen rows' weight, then what they take
    share = np.empty(n_cols)
    link_min = np.full(n_cols, np.inf)
    row_min = np.full(n_rows, np.inf)
    leaving = np.zeros(n_rows, dtype=np.bool_)
    while m:
        for k in range(m):
            load[c[k]] += v[k]
        for k in range(m):  # each column's fair share, each row's smallest
            j, i = c[k], r[k]
            share[j] = max(resid[j], 0.0) / load[j]
            if share[j] < row_min[i]:
                row_min[i] = share[j]
        for k in range(m):  # each column's smallest row share
            j = c[k]
            load[j] = 0.0
            if row_min[r[k]] < link_min[j]:
                link_min[j] = row_min[r[k]]
        for k in range(m):  # the first bottleneck column of a row wins
            j, i = c[k], r[k]
            if not leaving[i] and share[j] <= link_min[j] * (1 + rtol):
                leaving[i] = True
                bottleneck[i] = j
        for k in range(m):  # what the frozen rows take, column by column
            i = r[k]
            if leaving[i]:
                rate[i] = row_min[i]
                load[c[k]] += v[k] * row_min[i]
        kept = 0
        for k in range(m):  # off the columns' residuals; the unfrozen rows' entries kept
            j, i = c[k], r[k]
            link_min[j] = np.inf
            row_min[i] = np.inf
            if leaving[i]:
                resid[j] -= load[j]
                load[j] = 0.0
            else:
                r[kept], c[kept], v[kept] = i, j, v[k]
                kept += 1
        m = kept  # a frozen row stays marked leaving: it has no entry left
    return rate, bottleneck


def max_min_rates(incidence, capacities, *, rtol: float = 1e-12, return_bottleneck: bool = False):
    """Max-min fair rates of the flows (rows) on the links (columns) of a weighted incidence.

    Parallel water-filling: each round freezes every link whose fair share is the smallest
    among the links its unfrozen flows cross; those flows get that share. A flow that crosses
    no link gets ``inf``. With ``return_bottleneck``, also the bottleneck link of each flow
    (-1 for none).
    """
    a = sp.csr_matrix(incidence, dtype=np.float64)
    a.eliminate_zeros()
    n_flows = a.shape[0]
    length = np.diff(a.indptr)
    crossing = np.flatnonzero(length > 0)
    rate = np.full(n_flows, np.inf)
    bottleneck = np.full(n_flows, -1, dtype=np.int64)
    if crossing.size:
        row = np.repeat(np.arange(crossing.size), length[crossing])
        cap = np.ascontiguousarray(capacities, dtype=np.float64)
        rate[crossing], bottleneck[crossing] = fill(
            row, a.indices.astype(np.int64), a.data, crossing.size, cap, rtol
        )
    return (rate, bottleneck) if return_bottleneck else rate
