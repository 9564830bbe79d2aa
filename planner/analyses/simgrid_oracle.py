"""SimGrid as an exact max-min oracle (reference section 6.1).

SimGrid lives in Debian's ``python3-simgrid`` under the system Python (``/usr/bin/python3``),
not in the project's venv, so the platform and flows go to a subprocess as JSON. The platform
is a star zone with one source host per flow, whose route to the centre is the flow's whole
path, and one sink host reached from the centre by an empty route: every flow keeps its own
route (two flows between the same GPUs may take different ECMP paths) and the platform grows
with the flows' route entries only (a full zone keeps a host x host route table: 8.6 GB at
32,768 hosts). Links have the flows' bandwidths and zero latency (or the ``latencies``
given), under the pure max-min model: ``network/model:CM02``, no cross traffic,
``network/bandwidth-factor:1``, a huge ``TCP-gamma``, and tight solver precisions.
Only single-path (0/1) routes can be expressed; sizes are whole bytes.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

SYSTEM_PYTHON = "/usr/bin/python3"
CONFIG = [
    "--cfg=network/model:CM02",
    "--cfg=network/crosstraffic:0",
    "--cfg=network/TCP-gamma:1e15",
    "--cfg=network/bandwidth-factor:1",
    "--cfg=surf/precision:1e-13",
    "--cfg=maxmin/precision:1e-13",
    "--log=root.thres:critical",
]

RUNNER = r"""
import json, os, sys, time
from simgrid import Actor, Comm, Engine, LinkInRoute, NetZone

spec = json.load(open(sys.argv[1]))
if spec["one_core"]:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
engine = Engine(["oracle"] + spec["config"])
zone = NetZone.create_star_zone("fabric")
latency = spec.get("latency") or [0.0] * len(spec["bandwidth"])
links = [
    zone.create_link(f"l{i}", bw).set_latency(latency[i]) for i, bw in enumerate(spec["bandwidth"])
]
flows = spec["flows"]
sink = zone.create_host("sink", 1e9)
zone.add_route(None, sink.netpoint, None, None, [], False)
src = [zone.create_host(f"h{f}", 1e9) for f in range(len(flows))]
for f, (_, route) in enumerate(flows):
    hops = [LinkInRoute(links[i]) for i in route]
    zone.add_route(src[f].netpoint, None, None, None, hops, False)
zone.seal()
finish = [0.0] * len(flows)

def main():
    comms = [Comm.sendto_async(src[f], sink, fl[0]) for f, fl in enumerate(flows)]
    Comm.wait_all(comms)
    for f, comm in enumerate(comms):
        finish[f] = comm.finish_time

Actor.create("main", sink, main)
start = time.perf_counter()
engine.run()
json.dump({"finish": finish, "seconds": time.perf_counter() - start}, sys.stdout)
"""


def simgrid_available(python: str = SYSTEM_PYTHON) -> bool:
    """True when ``python`` can import simgrid."""
    try:
        done = subprocess.run(
            [python, "-c", "import simgrid"], capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def simgrid_finish_times(
    incidence,
    capacities,
    sizes,
    *,
    latencies=None,
    one_core: bool = True,
    python: str = SYSTEM_PYTHON,
    timeout: float = 600,
) -> tuple[np.ndarray, float]:
    """Finish time of each flow (row of a 0/1 incidence; sizes in bytes, capacities in bit/s)
    under SimGrid's max-min solver, and SimGrid's own run time in seconds (``engine.run()``
    alone, after the platform is built). ``latencies`` (seconds per link, default 0): SimGrid
    runs each communication's route latency first, then its transfer; under CM02 a link is
    then shared in inverse proportion to the flows' latencies (equal shares for equal ones).

    SimGrid runs its actors as threads that hand over to one another (the Python bindings
    use thread contexts); with ``one_core`` (default) the process is pinned to one core,
    where a handover costs no cross-core wake-up: measured here, 4,096 flows ran in 0.2 s
    pinned and 0.6-0.8 s free on two idle cores. Pinned is SimGrid at its fastest."""
    a = sp.csr_matrix(incidence)
    n_flows = a.shape[0]
    a.eliminate_zeros()
    if a.nnz and not np.allclose(a.data, 1.0):
        raise ValueError("SimGrid takes single-path routes only (0/1 incidence)")
    used, remap = np.unique(a.indices, return_inverse=True)
    bandwidth = (np.asarray(capacities, dtype=float)[used] / 8.0).tolist()  # bytes/s
    latency = None
    if latencies is not None:
        latency = np.asarray(latencies, dtype=float)[used].tolist()  # seconds
    sizes = np.asarray(sizes)
    if not np.all(sizes == np.round(sizes)):
        raise ValueError("SimGrid takes whole bytes")
    flows = [[int(sizes[f]), remap[a.indptr[f] : a.indptr[f + 1]].tolist()] for f in range(n_flows)]
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.json"
        script = Path(tmp) / "runner.py"
        spec.write_text(
            json.dumps(
                {
                    "config": CONFIG,
                    "bandwidth": bandwidth,
                    "latency": latency,
                    "flows": flows,
                    "one_core": one_core,
                }
            )
        )
        script.write_text(RUNNER)
        done = subprocess.run(
            [python, str(script), str(spec)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"SimGrid failed ({done.returncode}): {done.stderr[-2000:]}")
    out = json.loads(done.stdout)
    return np.asarray(out["finish"], dtype=float), float(out["seconds"])


__all__ = ["CONFIG", "SYSTEM_PYTHON", "simgrid_available", "simgrid_finish_times"]
