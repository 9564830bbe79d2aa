"""Flow simulation timings: ``python tests/bench_flow.py`` writes ``.var/bench/flow.json``.

Cases (reference ``flow-simulation.md`` section 4): an 8,192-GPU permutation (ours vs
SimGrid), one max-min solve of 32,768 flows on a 32,768-GPU fabric, a ring all-reduce on
32,768 GPUs, 4,096 flows of mixed (lognormal) sizes, and the peak memory of the process.
Fabrics are DGX-H100 rail-optimized SuperPODs from the seed catalog (QM9700, 3 tiers at 32k).
"""

from __future__ import annotations

import json
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"
sys.path.insert(0, str(ROOT))

from inventory.library.files import read_catalog_folder  # noqa: E402
from planner.domain.catalog import facts_from_records  # noqa: E402
from planner.domain.generators import generate_topology  # noqa: E402
from planner.domain.spec import parse_spec  # noqa: E402
from simulation.engine.flow import Flows, Network, max_min_rates, route, simulate  # noqa: E402
from simulation.engine.simgrid_oracle import (  # noqa: E402
    simgrid_available,
    simgrid_finish_times,
)
from simulation.engine.traffic import bus_bandwidth, permutation, ring_allreduce  # noqa: E402


def _fabric(facts, gpus: int):
    spec = {
        "name": f"h100-{gpus}",
        "topology": "rail-optimized",
        "server": "DGX-H100",
        "servers": gpus // 8,
        "switches": {"leaf": "QM9700"},
    }
    return generate_topology(parse_spec(spec), facts)


def _timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def main() -> dict:
    facts = facts_from_records(read_catalog_folder(ROOT / "inventory/library/seed").parts)
    results: dict = {"machine": platform.machine(), "python": platform.python_version()}

    net8k = Network.from_fabric(_fabric(facts, 8192))
    flows = permutation(np.arange(net8k.gpu_count), 16_000_000, seed=7)
    res, seconds = _timed(lambda: simulate(net8k, flows, "ecmp", seed=1))
    case = {"ours_s": seconds, "events": res.events, "completion_s": res.completion_time_s}
    if simgrid_available():
        a = route(net8k, flows, "ecmp", seed=1)
        (theirs, sg_run), sg_total = _timed(
            lambda: simgrid_finish_times(
                a, net8k.capacity, flows.size, endpoints=(flows.src, flows.dst)
            )
        )
        case |= {
            "simgrid_run_s": sg_run,
            "simgrid_total_s": sg_total,
            "max_rel_diff": float(np.max(np.abs(res.finish / theirs - 1))),
        }
    results["permutation_8192"] = case

    net32k = Network.from_fabric(_fabric(facts, 32768))
    flows = permutation(np.arange(net32k.gpu_count), 16_000_000, seed=7)
    a, route_s = _timed(lambda: route(net32k, flows, "ecmp", seed=1))
    _, solve_s = _timed(lambda: max_min_rates(a, net32k.capacity))
    results["solve_32768"] = {
        "flows": a.shape[0],
        "links": a.shape[1],
        "route_s": route_s,
        "solve_s": solve_s,
    }
    ranks = np.arange(net32k.gpu_count)
    for routing in ("rail", "ecmp", "adaptive"):
        res, seconds = _timed(lambda r=routing: simulate(net32k, ring_allreduce(ranks, 1e9), r))
        _, busbw = bus_bandwidth("all-reduce", 1e9, res.completion_time_s, ranks.size)
        results[f"ring_allreduce_32768_{routing}"] = {
            "seconds": seconds,
            "events": res.events,
            "busbw_gbps": busbw * 8 / 1e9,
        }

    net4k = Network.from_fabric(_fabric(facts, 4096))
    rng = np.random.default_rng(3)
    base = permutation(np.arange(net4k.gpu_count), 1, seed=3)
    sizes = np.round(rng.lognormal(np.log(16e6), 1.0, len(base)))
    mixed = Flows(base.src, base.dst, sizes)
    res, seconds = _timed(lambda: simulate(net4k, mixed, "ecmp", seed=1))
    case = {"ours_s": seconds, "events": res.events}
    if simgrid_available():
        a = route(net4k, mixed, "ecmp", seed=1)
        (theirs, sg_run), _ = _timed(
            lambda: simgrid_finish_times(a, net4k.capacity, sizes, endpoints=(base.src, base.dst))
        )
        case |= {
            "simgrid_run_s": sg_run,
            "max_rel_diff": float(np.max(np.abs(res.finish / theirs - 1))),
        }
    results["mixed_4096"] = case
    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "flow.json").write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
