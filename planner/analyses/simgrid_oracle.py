"""SimGrid as an exact max-min oracle (reference section 6.1).

SimGrid lives in Debian's ``python3-simgrid`` under the system Python (``/usr/bin/python3``),
not in the project's venv, so the platform and flows go to a subprocess as JSON. The platform
is a full zone with one host per GPU, or one host pair per flow when two flows join the same
GPUs (SimGrid keeps one route per host pair; such flows may take different ECMP paths), links
of the flows' bandwidths with zero latency, and the pure max-min model:
``network/model:CM02``, no cross traffic, ``network/bandwidth-factor:1``, a huge
``TCP-gamma``, and tight solver precisions.
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
import json, sys, time
from simgrid import Actor, Comm, Engine, LinkInRoute, NetZone

spec = json.load(open(sys.argv[1]))
engine = Engine(["oracle"] + spec["config"])
zone = NetZone.create_full_zone("fabric")
links = [zone.create_link(f"l{i}", bw).set_latency(0) for i, bw in enumerate(spec["bandwidth"])]
flows = spec["flows"]
hosts = [zone.create_host(f"h{i}", 1e9) for i in range(spec["hosts"])]
src = [hosts[s] for _, _, s, _ in flows]
dst = [hosts[d] for _, _, _, d in flows]
for f, (size, route, _, _) in enumerate(flows):
    hops = [LinkInRoute(links[i]) for i in route]
    zone.add_route(src[f].netpoint, dst[f].netpoint, None, None, hops, False)
zone.seal()
finish = [0.0] * len(flows)

def main():
    comms = [Comm.sendto_async(src[f], dst[f], fl[0]) for f, fl in enumerate(flows)]
    Comm.wait_all(comms)
    for f, comm in enumerate(comms):
        finish[f] = comm.finish_time

Actor.create("main", src[0], main)
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
    endpoints: tuple[np.ndarray, np.ndarray] | None = None,
    python: str = SYSTEM_PYTHON,
    timeout: float = 600,
) -> tuple[np.ndarray, float]:
    """Finish time of each flow (row of a 0/1 incidence; sizes in bytes, capacities in bit/s)
    under SimGrid's max-min solver, and SimGrid's own run time in seconds.

    ``endpoints`` = (src, dst) GPU indices: when every (src, dst) pair is distinct, hosts are
    the GPUs (a smaller route table); otherwise each flow gets its own host pair."""
    a = sp.csr_matrix(incidence)
    n_flows = a.shape[0]
    a.eliminate_zeros()
    if a.nnz and not np.allclose(a.data, 1.0):
        raise ValueError("SimGrid takes single-path routes only (0/1 incidence)")
    used, remap = np.unique(a.indices, return_inverse=True)
    bandwidth = (np.asarray(capacities, dtype=float)[used] / 8.0).tolist()  # bytes/s
    sizes = np.asarray(sizes)
    if not np.all(sizes == np.round(sizes)):
        raise ValueError("SimGrid takes whole bytes")
    pairs = None
    if endpoints is not None:
        src, dst = (np.asarray(e, dtype=np.int64) for e in endpoints)
        pairs = np.unique(np.stack([src, dst]), axis=1).shape[1] if n_flows else 0
    if pairs == n_flows:
        hosts = int(max(src.max(), dst.max())) + 1 if n_flows else 0
    else:  # one host pair per flow
        src, dst = np.arange(n_flows), n_flows + np.arange(n_flows)
        hosts = 2 * n_flows
    flows = [
        [int(sizes[f]), remap[a.indptr[f] : a.indptr[f + 1]].tolist(), int(src[f]), int(dst[f])]
        for f in range(n_flows)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.json"
        script = Path(tmp) / "runner.py"
        spec.write_text(
            json.dumps({"config": CONFIG, "bandwidth": bandwidth, "flows": flows, "hosts": hosts})
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
