"""Our max-min event simulation against SimGrid's LMM solver (exact oracle, CM02, zero latency).

SimGrid comes from Debian's ``python3-simgrid`` under ``/usr/bin/python3`` (``.ci/run``
installs it). Outside CI a machine without it skips these tests; with ``CI=true`` they fail.
"""

from __future__ import annotations

import numpy as np
import pytest

from planner.analyses.flow import Flows, Network, route, simulate, sub_flows
from planner.analyses.simgrid_oracle import simgrid_available, simgrid_finish_times
from planner.analyses.traffic import all_to_all, incast, permutation
from tests.conftest import service_missing
from tests.unit.test_flow import clos_3tier, dumbbell, rail_2tier
from tests.unit.test_flow_planes import multi_plane_fabric

MB = 1_000_000


@pytest.fixture(scope="module")
def simgrid():
    if not simgrid_available():
        service_missing("/usr/bin/python3 cannot import simgrid: apt-get install python3-simgrid")
    return True


def _sized(flows: Flows, seed: int, *, random_sizes: bool) -> Flows:
    if random_sizes:
        rng = np.random.default_rng(seed)
        sizes = np.round(rng.lognormal(np.log(16 * MB), 1.0, len(flows)))
    else:
        sizes = np.full(len(flows), 16 * MB)
    return Flows(flows.src, flows.dst, sizes)


def _patterns(n: int, seed: int) -> dict[str, Flows]:
    ranks = np.arange(n)
    return {
        "permutation": permutation(ranks, MB, seed=seed),
        "all-to-all": all_to_all(ranks, MB),
        "incast": incast(ranks, MB, target=n - 1),
    }


@pytest.mark.parametrize("random_sizes", [False, True], ids=["equal", "lognormal"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("routing", ["ecmp", "rail"])
@pytest.mark.parametrize(
    "topology", [dumbbell, rail_2tier, clos_3tier], ids=["dumbbell", "rail-2tier", "clos-3tier"]
)
def test_finish_times_match_simgrid(simgrid, topology, routing, seed, random_sizes):
    fabric = topology(3) if topology is dumbbell else topology()
    net = Network.from_fabric(fabric)
    for name, pattern in _patterns(net.gpu_count, seed).items():
        flows = _sized(pattern, seed, random_sizes=random_sizes)
        ours = simulate(net, flows, routing, seed=seed)
        a = route(net, flows, routing, seed=seed)
        theirs, _ = simgrid_finish_times(a, net.capacity, flows.size)
        assert np.allclose(ours.finish, theirs, rtol=1e-6, atol=0), name


def test_oracle_rejects_fractional_routes(simgrid):
    net = Network.from_fabric(rail_2tier())
    flows = permutation(np.arange(net.gpu_count), MB, seed=0)
    with pytest.raises(ValueError, match="single-path"):
        simgrid_finish_times(route(net, flows, "adaptive"), net.capacity, flows.size)


@pytest.mark.parametrize("routing", ["ecmp", "rail"])
def test_multi_plane_finish_times_match_simgrid(simgrid, routing):
    # each flow runs as one sub-flow per plane; SimGrid gets the sub-flows' routes
    net = Network.from_fabric(multi_plane_fabric(2))
    pattern = permutation(np.arange(net.gpu_count), MB, seed=5)
    sizes = 2 * np.round(_sized(pattern, 5, random_sizes=True).size / 2)  # halves: whole bytes
    flows = Flows(pattern.src, pattern.dst, sizes)
    ours = simulate(net, flows, routing, seed=5)
    sub, parent = sub_flows(net, flows)
    theirs, _ = simgrid_finish_times(route(net, sub, routing, seed=5), net.capacity, sub.size)
    assert np.allclose(ours.sub_finish, theirs, rtol=1e-6, atol=0)
    assert np.allclose(ours.finish, np.maximum(theirs[0::2], theirs[1::2]), rtol=1e-6, atol=0)
    assert (parent[0::2] == parent[1::2]).all()
