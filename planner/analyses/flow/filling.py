"""Max-min fair rates by parallel ("local bottleneck") water-filling (progressive filling).

Design: ``shared/reference/flow-simulation.md`` section 2.1. :func:`fill` on NumPy entries,
:func:`fill_small` in plain Python for a few flows, :func:`max_min_rates` on an incidence.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["fill", "fill_small", "max_min_rates"]


def fill(row, col, val, n_rows: int, capacity: np.ndarray, *, rtol: float = 1e-12):
    """Parallel water-filling on entries (``row``, ``col``, ``val``) sorted by row, every row
    ``0..n_rows-1`` with at least one entry; ``capacity`` per column.

    Each round freezes every column whose fair share is the smallest among the columns its
    unfrozen rows cross; those rows get that share. Returns (rate per row, bottleneck column
    per row: the first such column of the row).
    """
    n_cols = capacity.shape[0]
    rate = np.zeros(n_rows)
    bottleneck = np.full(n_rows, -1, dtype=np.int64)
    resid = np.array(capacity, dtype=np.float64)
    link_min = np.empty(n_cols)
    row_min = np.empty(n_rows)
    leaving_row = np.zeros(n_rows, dtype=bool)
    while row.size:  # entries of the unfrozen rows only
        load = np.bincount(col, weights=val, minlength=n_cols)
        with np.errstate(divide="ignore", invalid="ignore"):  # columns without entries
            share = np.maximum(resid, 0.0) / load
        entry_share = share[col]
        row_min.fill(np.inf)
        np.minimum.at(row_min, row, entry_share)
        entry_min = row_min[row]
        link_min.fill(np.inf)
        np.minimum.at(link_min, col, entry_min)
        hit = np.flatnonzero(entry_share <= link_min[col] * (1 + rtol))
        frozen = row[hit]
        leaving_row[frozen] = True
        bottleneck[frozen[::-1]] = col[hit][::-1]  # the first bottleneck column of a row wins
        leaving = leaving_row[row]
        leaving_row[frozen] = False
        rate[row[leaving]] = entry_min[leaving]
        resid -= np.bincount(
            col[leaving], weights=val[leaving] * entry_min[leaving], minlength=n_cols
        )
        stay = ~leaving
        row, col, val = row[stay], col[stay], val[stay]
    return rate, bottleneck


def fill_small(rows: list, resid: dict, *, rtol: float = 1e-12) -> tuple[list, list]:
    """:func:`fill` in plain Python for a few rows: ``rows`` = [(columns, values)] per row,
    ``resid`` = capacity per column (changed in place). Returns (rates, bottlenecks)."""
    if len(rows) == 1:  # one flow: the smallest share on its path
        cols, vals = rows[0]
        shares = [max(resid[col], 0.0) / value for col, value in zip(cols, vals, strict=True)]
        m = min(shares)
        return [m], [next(c for c, x in zip(cols, shares, strict=True) if x <= m * (1 + rtol))]
    rate = [0.0] * len(rows)
    bottleneck = [-1] * len(rows)
    active = list(range(len(rows)))
    while active:
        load: dict = {}
        for i in active:
            cols, vals = rows[i]
            for col, value in zip(cols, vals, strict=True):
                load[col] = load.get(col, 0.0) + value
        share = {col: max(resid[col], 0.0) / value for col, value in load.items()}
        row_min = {}
        col_min: dict = {}
        for i in active:
            cols = rows[i][0]
            m = min(share[col] for col in cols)
            row_min[i] = m
            for col in cols:
                if m < col_min.get(col, np.inf):
                    col_min[col] = m
        rest = []
        for i in active:
            for col in rows[i][0]:
                if share[col] <= col_min[col] * (1 + rtol):
                    rate[i], bottleneck[i] = row_min[i], col
                    break
            else:
                rest.append(i)
        for i in set(active).difference(rest):
            for col, value in zip(*rows[i], strict=True):
                resid[col] -= value * rate[i]
        active = rest
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
        cap = np.asarray(capacities, dtype=np.float64)
        rate[crossing], bottleneck[crossing] = fill(
            row, a.indices, a.data, crossing.size, cap, rtol=rtol
        )
    return (rate, bottleneck) if return_bottleneck else rate
