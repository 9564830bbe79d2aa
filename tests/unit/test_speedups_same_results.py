"""Rewrites for speed give the same results as the code they replace (issue 39 item 6): the
ring schedule's numba step loop against NumPy's, and the expected-failures counts against
the per-server and per-link loops they replaced."""

import numpy as np

from planner.analyses.flow.alphabeta import _period, ring_schedule_sizes
from planner.analyses.resilience.failures import _cable_counts, _leaf_sets, _module_counts


def _numpy_schedule(transfer, wait, steps, scales, overhead):
    """The NumPy loop the kernel replaced (``ring_schedule_sizes`` before issue 39)."""
    transfer = np.atleast_2d(np.asarray(transfer, dtype=float))
    wait = np.atleast_2d(np.asarray(wait, dtype=float)) + overhead
    scales = np.asarray(scales, dtype=float)
    if np.all(transfer == transfer[:1]) and np.all(wait == wait[:1]):
        transfer, wait = transfer[:1], wait[:1]
    p = _period(transfer, wait)
    transfer, wait = transfer[:, :p], wait[:, :p]
    tau = scales[:, None, None] * transfer[None]
    if np.all(transfer == transfer.flat[0]) and np.all(wait == wait.flat[0]):
        return steps * (tau[:, 0, 0] + wait.flat[0])
    finish = wait[None] + tau
    for _ in range(steps - 1):
        finish = np.maximum(np.roll(finish, 1, axis=-1) + wait[None], finish) + tau
    return finish.max(axis=(1, 2))


def test_the_ring_kernel_gives_numpys_times_bit_for_bit():
    rng = np.random.default_rng(3)
    for trial in range(60):
        rings, edges = int(rng.integers(1, 5)), int(rng.integers(2, 30))
        steps = int(rng.integers(1, 50))
        transfer = rng.random((rings, edges)) * rng.choice([1e-6, 1.0])
        wait = rng.random((rings, edges)) * 1e-6
        if trial % 7 == 0:
            wait[0, 1] = np.nan  # NaN propagates as np.maximum does
        scales = rng.random(int(rng.integers(1, 4))) * 10
        ours = ring_schedule_sizes(transfer, wait, steps, scales, overhead_s=1e-6)
        theirs = _numpy_schedule(transfer, wait, steps, scales, 1e-6)
        assert np.array_equal(ours, theirs, equal_nan=True), trial


def test_leaf_sets_module_and_cable_counts_match_the_loops():
    rng = np.random.default_rng(1)
    for trial in range(40):
        n = int(rng.integers(5, 40))
        a, b = rng.integers(0, n, 300), rng.integers(0, n, 300)
        servers = np.unique(rng.integers(0, n, 8))
        is_server = np.zeros(n, dtype=bool)
        is_server[servers] = True
        loop = {tuple(np.unique(b[a == s]).tolist()) for s in servers.tolist()}
        assert _leaf_sets(a, b, servers, is_server) == loop, trial

        parts = rng.integers(-1, 4, 200)
        modules = rng.integers(-1, 30, 200)
        keep = parts >= 0
        pairs = {
            (int(p), int(m)) if m >= 0 else (int(p), -1 - i)
            for i, (p, m) in enumerate(zip(parts[keep], modules[keep], strict=True))
        }
        expected: dict[int, int] = {}
        for part, _ in pairs:
            expected[part] = expected.get(part, 0) + 1
        assert dict(_module_counts(parts, modules)) == expected, trial

        ids = rng.integers(-1, 50, 200)
        seen, order, counts = set(), [], {}
        kept_ids = ids[keep].tolist()
        for i, part in enumerate(parts[keep].tolist()):
            key = (part, kept_ids[i])
            if key in seen:
                continue
            seen.add(key)
            if part not in counts:
                order.append(part)
            counts[part] = counts.get(part, 0) + 1
        assert _cable_counts(parts, ids) == [(p, counts[p]) for p in order], trial
        no_ids = _cable_counts(parts, None)
        first = list(dict.fromkeys(parts[keep].tolist()))
        assert no_ids == [(p, int((parts == p).sum())) for p in first], trial
