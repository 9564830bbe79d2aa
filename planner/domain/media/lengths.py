"""Ordered lengths of cables and fibers (``link_cable_length_m``; the run length stays in
``link_length_m``).

A cable or fiber with listed lengths (``lengths_m``) gets the shortest one that covers its
longest leg. One with no listed lengths (no source gives the lengths NVIDIA's MFP7E fibers are
sold in, catalog-facts.md §4) is ordered by our rounding policy, :func:`policy_length_m`: its
longest leg rounded up to whole metres up to 10 m, to 5 m steps up to 50 m, to 10 m steps
beyond, so a fabric orders a handful of lengths rather than one per 0.1 m of run. No slack is
added here: the run already holds the layout's service loop (``layout.slack_m``, 2 m by
default for every run that leaves its rack; catalog-facts-more.md §7 cites 2-3 m per trunk).
"""

from __future__ import annotations

import math

import numpy as np

from planner.domain.fabric import Fabric

#: Lengths and reaches closer than this (metres) are equal.
TOLERANCE_M = 1e-4

# Our ordering policy for parts with no listed lengths: (up to this run, round up to this step).
POLICY_STEPS_M = ((10.0, 1.0), (50.0, 5.0), (math.inf, 10.0))
POLICY_TEXT = (
    "no listed lengths in the catalog: run rounded up by the ordering policy (whole metres "
    "to 10 m, 5 m steps to 50 m, 10 m steps beyond; slack is in the run, layout.slack_m)"
)


def policy_length_m(run_m):
    """The ordered length of a run for a part sold in no listed lengths (our policy:
    :data:`POLICY_STEPS_M`); NaN (unknown) stays NaN. Works on arrays too.

    Examples
    --------
    >>> [float(policy_length_m(v)) for v in (0.6, 6.7, 10.0, 10.05, 12.8, 18.2, 50.0, 61.0)]
    [1.0, 7.0, 10.0, 15.0, 15.0, 20.0, 50.0, 70.0]
    """
    run = np.asarray(run_m, dtype=np.float64)
    out = np.full(run.shape, np.nan)
    below = np.zeros(run.shape, dtype=bool)
    for limit, step in POLICY_STEPS_M:
        here = ~below & (run <= limit + TOLERANCE_M)
        out[here] = np.ceil(np.round(run[here] / step - TOLERANCE_M / step, 6)) * step
        below |= here
    out = np.maximum(out, POLICY_STEPS_M[0][1])
    return out if out.ndim else out[()]


def order_lengths(fabric: Fabric, links: np.ndarray, keys: np.ndarray, lengths) -> None:
    """Order each cable at the shortest listed length that covers its longest leg; with no
    listed ``lengths``, at :func:`policy_length_m` of its longest leg. Links of unknown
    length (NaN) keep NaN."""
    ids, inverse = np.unique(keys, return_inverse=True)
    run = np.zeros(ids.size)
    np.maximum.at(run, inverse, fabric.link_length_m[links].astype(np.float64))
    if lengths:
        options = np.asarray(lengths, dtype=np.float64)
        pick = options[np.minimum(np.searchsorted(options, run - TOLERANCE_M), options.size - 1)]
    else:
        pick = policy_length_m(run)
    fabric.link_cable_length_m[links] = pick[inverse].astype(np.float32)
