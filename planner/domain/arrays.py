"""Array helpers for the fabric's columns at a million links.

NumPy 2.x's ``np.unique`` without ``return_index``/``return_inverse``/``return_counts`` finds
the distinct values with a hash table; on millions of distinct integers that is about 100
times slower than sorting on this project's machines (6,000,000 int64 node-port keys: 11 s
against 0.12 s, measured while profiling a 524,288-GPU build, issue 21). :func:`unique` sorts.
"""

from __future__ import annotations

import numpy as np


def unique(values) -> np.ndarray:
    """The sorted distinct values of ``values`` (flattened), found by sorting.

    Same result as ``np.unique(values)`` for integer and boolean arrays (and floats without
    NaN), without NumPy's hash table.

    Examples
    --------
    >>> unique(np.array([3, 1, 3, 2, 1])).tolist(), unique([]).size
    ([1, 2, 3], 0)
    """
    flat = np.sort(np.asarray(values).ravel())
    if flat.size < 2:
        return flat
    keep = np.empty(flat.size, dtype=bool)
    keep[0] = True
    np.not_equal(flat[1:], flat[:-1], out=keep[1:])
    return flat[keep]


__all__ = ["unique"]
