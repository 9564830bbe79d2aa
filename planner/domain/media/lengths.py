"""Ordered lengths of cables and fibers (``link_cable_length_m``; the run length stays in
``link_length_m``) and the orderable part number of each length sold.

A cable or fiber with listed lengths (``lengths_m``) gets the shortest one that covers its
longest leg; its orderable part number is the one the catalog lists for that length
(``length_parts``, :func:`part_number_at`). One with no listed lengths (a generic cord, a fiber
whose lengths sold no source gives, such as NVIDIA's MFP7E30) is ordered by our rounding
policy, :func:`policy_length_m`: its longest leg rounded up to whole metres up to 10 m, to 5 m
steps up to 50 m, to 10 m steps beyond, so a fabric orders a handful of lengths rather than one
per 0.1 m of run. No slack is added here: the run already holds the layout's service loop
(``layout.slack_m``, 2 m by default for every run that leaves its rack;
catalog-facts-more.md §7 cites 2-3 m per trunk).
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


def sold_lengths(record: dict) -> tuple[tuple[float, str], ...]:
    """``(length_m, part_number)`` of each length a cable or fiber is sold in, shortest first.

    The catalog's ``length_parts`` when it has them; else each listed length (``lengths_m``),
    with the part's own part number when it lists a single length (a part number of one length,
    such as ``MCP7Y00-N001``), else no part number (``""``).

    Examples
    --------
    >>> sold_lengths({"length_parts": [{"length_m": 5, "part_number": "X-5"},
    ...                                {"length_m": 3, "part_number": "X-3"}]})
    ((3.0, 'X-3'), (5.0, 'X-5'))
    >>> sold_lengths({"lengths_m": [1], "part_number": "980-9I432-00N001"})
    ((1.0, '980-9I432-00N001'),)
    >>> sold_lengths({"lengths_m": [0.5, 1]})
    ((0.5, ''), (1.0, ''))
    """
    listed = [
        (float(item["length_m"]), str(item.get("part_number") or ""))
        for item in record.get("length_parts") or ()
        if _positive(item.get("length_m"))
    ]
    if not listed:
        lengths = [float(v) for v in record.get("lengths_m") or () if _positive(v)]
        own = str(record.get("part_number") or "") if len(lengths) == 1 else ""
        listed = [(v, own) for v in lengths]
    return tuple(sorted(set(listed)))


def _positive(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def order_length_m(record: dict, run_m: float | None) -> float | None:
    """The length to order for a run: the shortest length sold that covers it
    (:func:`sold_lengths`), else, with no lengths listed, :func:`policy_length_m` of the run.

    A run longer than every length sold gets the longest (validation reports the run as too
    long for the part); an unknown run (``None`` or NaN) gets the longest length sold, or None
    when the part lists none.

    Examples
    --------
    >>> part = {"lengths_m": [3, 5, 10]}
    >>> order_length_m(part, 3.2), order_length_m(part, 10.0), order_length_m(part, None)
    (5.0, 10.0, 10.0)
    >>> order_length_m({}, 6.7), order_length_m({}, None)
    (7.0, None)
    """
    lengths = [length for length, _ in sold_lengths(record)]
    known = run_m is not None and math.isfinite(float(run_m))
    if not lengths:
        return float(policy_length_m(float(run_m))) if known else None
    if not known:
        return lengths[-1]
    return next((v for v in lengths if v >= float(run_m) - TOLERANCE_M), lengths[-1])


def order_lengths_of(record: dict, runs_m) -> np.ndarray:
    """:func:`order_length_m` of each run of an array; an unknown run (NaN) stays NaN.

    Examples
    --------
    >>> order_lengths_of({"lengths_m": [3, 5, 10]}, [0.5, 3.2, 12.0, float("nan")]).tolist()
    [3.0, 5.0, 10.0, nan]
    >>> order_lengths_of({}, [6.7, 12.8]).tolist()
    [7.0, 15.0]
    """
    return _round_up([length for length, _ in sold_lengths(record)], runs_m)


def _round_up(lengths, runs_m) -> np.ndarray:
    """Each run at the shortest of ``lengths`` that covers it (the longest when none does),
    or by :func:`policy_length_m` when there are no ``lengths``; NaN stays NaN."""
    runs = np.asarray(runs_m, dtype=np.float64)
    options = np.asarray(sorted(lengths), dtype=np.float64)
    if not options.size:
        return np.asarray(policy_length_m(runs), dtype=np.float64)
    pick = np.minimum(np.searchsorted(options, runs - TOLERANCE_M), options.size - 1)
    return np.where(np.isnan(runs), np.nan, options[pick])


def part_number_at(record: dict, length_m: float | None) -> str:
    """The orderable part number of ``record`` at the sold length ``length_m``: the one the
    catalog lists for that length; else the part's own part number when it is sold in one
    length or in no listed length at all; else ``""`` (the catalog lacks it).

    Examples
    --------
    >>> part = {"part_number": "", "length_parts": [{"length_m": 10, "part_number": "X-010"}]}
    >>> part_number_at(part, 10.0), part_number_at(part, 7.0)
    ('X-010', '')
    >>> part_number_at({"part_number": "980-9I54C-00V001", "lengths_m": [1]}, 1.0)
    '980-9I54C-00V001'
    """
    sold = sold_lengths(record)
    if length_m is not None and math.isfinite(float(length_m)):
        for length, part_number in sold:
            if abs(length - float(length_m)) <= TOLERANCE_M:
                return part_number
    return "" if sold else str(record.get("part_number") or "")


def order_lengths(fabric: Fabric, links: np.ndarray, keys: np.ndarray, lengths) -> None:
    """Order each cable at the shortest listed length that covers its longest leg; with no
    listed ``lengths``, at :func:`policy_length_m` of its longest leg. Links of unknown
    length (NaN) keep NaN."""
    ids, inverse = np.unique(keys, return_inverse=True)
    run = np.zeros(ids.size)
    np.maximum.at(run, inverse, fabric.link_length_m[links].astype(np.float64))
    pick = _round_up(lengths or (), run)
    fabric.link_cable_length_m[links] = pick[inverse].astype(np.float32)
