"""Latency in the flow simulation (issue 23 item 2): path latency per flow, flows that wait it
before their max-min transfer, ring schedules (latency-bound small messages, max-min large
ones), the message-size sweep, and SimGrid with link latency as the oracle.

SimGrid comes from Debian's ``python3-simgrid`` under ``/usr/bin/python3``; outside CI a
machine without it skips the SimGrid case, with ``CI=true`` it fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from planner.analyses.flow import Flows, Network, route, simulate
from planner.analyses.flow.alphabeta import (
    link_latency_s,
    path_latency,
    ring_schedule,
    simulate_latency,
)
from planner.analyses.scenario import make_flows
from planner.analyses.simgrid_oracle import simgrid_available, simgrid_finish_times
from planner.analyses.size_sweep import SIZES, run_size_sweep
from planner.analyses.traffic import permutation
from tests.conftest import service_missing
from tests.unit.test_flow import dumbbell, rail_2tier

MB = 1_000_000


def test_path_latency_sums_links_and_the_switches_entered():
    fabric = dumbbell(1)  # GPU 0 - leaf - spine - leaf - GPU 1
    net = Network.from_fabric(fabric)
    latency = link_latency_s(
        net, np.full(fabric.link_count, 10.0), np.full(fabric.node_count, 100.0)
    )
    flows = Flows([0], [1], MB)
    alpha = path_latency(route(net, flows, "ecmp"), latency)
    # 4 links of 10 ns, 3 switches (leaf, spine, leaf) of 100 ns; the server adds nothing
    assert alpha == pytest.approx([4 * 10e-9 + 3 * 100e-9])


def test_a_flow_waits_its_latency_then_sends_at_max_min_rates():
    net = Network.from_fabric(rail_2tier())
    flows = permutation(np.arange(net.gpu_count), 16 * MB, seed=1)
    plain = simulate(net, flows, "ecmp", seed=1)
    zero, alpha0 = simulate_latency(net, flows, "ecmp", latency_s=np.zeros(net.link_count), seed=1)
    assert not alpha0.any() and np.array_equal(zero.finish, plain.finish)
    per_link = np.full(net.link_count, 1e-6)
    late, alpha = simulate_latency(net, flows, "ecmp", latency_s=per_link, seed=1)
    assert alpha.min() >= 2e-6  # at least GPU -> leaf -> GPU
    # no shared link between flows of different latency here: each finish moves by its alpha
    assert late.finish == pytest.approx(plain.finish + alpha, rel=1e-9)


def test_ring_schedule_is_latency_bound_small_and_max_min_large():
    n, steps, alpha = 8, 14, 2e-6
    assert ring_schedule(np.full(n, 1e-12), np.full(n, alpha), steps) == pytest.approx(
        steps * alpha, rel=1e-6
    )
    # one slow edge: its transfers queue, so the ring takes steps x its transfer time
    transfer = np.full(n, 1.0)
    transfer[3] = 2.0
    assert ring_schedule(transfer, np.zeros(n), steps) == pytest.approx(steps * 2.0)
    # one far edge: the chain of steps crosses it about steps / n times, not every step
    far = np.zeros(n)
    far[5] = 1.0
    total = ring_schedule(np.zeros(n), far, steps)
    assert 1.0 <= total <= np.ceil(steps / n) + 1


def test_size_sweep_small_sizes_pay_every_step_large_keep_the_max_min_time():
    fabric = rail_2tier()
    net = Network.from_fabric(fabric)
    link_ns = np.full(fabric.link_count, 50.0)
    node_ns = np.full(fabric.node_count, 600.0)
    result = run_size_sweep(fabric, routing="ecmp", link_ns=link_ns, node_ns=node_ns)
    points = {p["size_bytes"]: p for p in result["points"]}
    assert list(points) == list(SIZES) and SIZES[0] == 8 and SIZES[-1] == 8 * 2**30
    steps, lat = result["steps"], result["latency"]
    assert steps == 2 * (net.gpu_count - 1)
    small = points[8]["time_s"]
    assert steps * lat["alpha_us"]["min"] * 1e-6 <= small <= steps * lat["alpha_us"]["max"] * 1e-6
    # the largest size: today's max-min time (the simulate job's flows) plus the latency
    size = float(SIZES[-1])
    flows, ranks, factor, bound = make_flows(
        net, "all-reduce", size, placement="contiguous", seed=0
    )
    bandwidth = simulate(net, flows, "ecmp").completion_time_s
    big = points[SIZES[-1]]["time_s"]
    assert bandwidth <= big <= bandwidth + small * 1.01
    assert points[SIZES[-1]]["busbw_gbytes_s"] == pytest.approx(bound / 8, rel=1e-3)
    busbw = [p["busbw_gbytes_s"] for p in result["points"]]
    assert busbw == sorted(busbw)  # bandwidth only grows with size on a non-blocking fabric
    zero = run_size_sweep(fabric, routing="ecmp", sizes=(size,))
    assert zero["points"][0]["time_s"] == pytest.approx(bandwidth, rel=1e-9)


@pytest.fixture(scope="module")
def simgrid():
    if not simgrid_available():
        service_missing("/usr/bin/python3 cannot import simgrid: apt-get install python3-simgrid")
    return True


@pytest.mark.parametrize("seed", [0, 3])
def test_latency_matches_simgrid_with_link_latency(simgrid, seed):
    """SimGrid's CM02 runs a communication's latency, then its transfer; it shares a link in
    inverse proportion to the flows' latencies, so the case keeps flows of one latency on
    each shared link: a permutation on a two-tier fabric (spine links carry only 4-hop flows)."""
    fabric = rail_2tier()
    net = Network.from_fabric(fabric)
    flows = permutation(np.arange(net.gpu_count), 16 * MB, seed=seed)
    node_ns = np.full(fabric.node_count, 300.0)
    link_ns = np.full(fabric.link_count, 20.0)
    latency = link_latency_s(net, link_ns, node_ns)
    ours, alpha = simulate_latency(net, flows, "ecmp", latency_s=latency, seed=seed)
    incidence = route(net, flows, "ecmp", seed=seed)
    theirs, _ = simgrid_finish_times(incidence, net.capacity, flows.size, latencies=latency)
    assert alpha.max() > alpha.min() > 0
    np.testing.assert_allclose(ours.finish, theirs, rtol=1e-9)
