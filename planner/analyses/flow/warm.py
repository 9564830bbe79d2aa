"""Compile the flow simulation's kernels once, into numba's on-disk cache.

The kernels (:func:`~planner.analyses.flow.filling.fill`, the re-solves of
:mod:`~planner.analyses.flow.solver` and the ring schedule's step loop in
:mod:`~planner.analyses.flow.alphabeta`) are ``numba.njit(cache=True)``: the first call in a
process compiles them (5 to 6 s of CPU) unless this package's ``__pycache__`` holds them
(``*.nbi``, ``*.nbc``; git-ignored). ``make setup`` runs ``python -m
planner.analyses.flow.warm`` when filling.py, solver.py or alphabeta.py change, and the
Docker image at build time, so that test, web and worker processes load the kernels instead.

Numba recompiles a kernel when its own file changes, but not when a kernel it calls from
another file does (the solver's re-solve calls filling's :func:`fill`): :func:`main` deletes
the package's cached kernels before compiling them again.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from planner.analyses.flow import alphabeta, filling, solver
from planner.analyses.flow.filling import max_min_rates
from planner.analyses.flow.solver import Rates

__all__ = ["KERNELS", "clear", "main", "warm"]

#: every compiled function of the package
KERNELS = (
    filling.fill,
    solver._set_loads,
    solver._resolve,
    solver._touch,
    solver._finish,
    solver._widen,
    alphabeta._ring_steps,
)
CACHE_DIR = Path(__file__).resolve().parent / "__pycache__"


def warm() -> None:
    """Call every kernel, through the calls the simulation makes, with its argument types."""
    # links 0 and 1 of capacity 1; flow 0 on link 0, flow 1 on both, flow 2 on link 1
    incidence = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
    max_min_rates(incidence, np.ones(2))
    rates = Rates(incidence, np.ones(2))
    none = np.zeros(0, dtype=np.int64)
    rates.update(none, np.array([0, 1], dtype=np.int64))  # all running: a full solve
    rates.update(none, np.array([2], dtype=np.int64))  # a local re-solve
    hurt = rates.finish(np.array([0], dtype=np.int64), np.array([1, 2], dtype=np.int64))
    rates.resolve_local(hurt)
    rates.resolve_closed(np.array([1, 2], dtype=np.int64))
    # a ring of two unequal edges: the alpha-beta schedule's step loop
    alphabeta.ring_schedule_sizes(np.array([1.0, 2.0]), np.array([0.5, 0.1]), 3, [1.0])


def clear() -> int:
    """Delete the package's cached kernels; returns how many files."""
    files = [*CACHE_DIR.glob("*.nbi"), *CACHE_DIR.glob("*.nbc")]
    for path in files:
        path.unlink(missing_ok=True)
    return len(files)


def main() -> None:
    clear()
    started = time.process_time()
    warm()
    missing = [kernel.__name__ for kernel in KERNELS if not kernel.signatures]
    if missing:
        sys.exit(f"flow kernels not compiled: {', '.join(missing)}")
    print(f"flow kernels compiled in {time.process_time() - started:.1f} s CPU ({CACHE_DIR})")


if __name__ == "__main__":
    main()
