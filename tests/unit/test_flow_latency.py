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
    ring_schedule_sizes,
    simulate_latency,
)
from planner.analyses.scenario import make_flows
from planner.analyses.simgrid_oracle import simgrid_available, simgrid_finish_times
from planner.analyses.size_sweep import SIZES, compare_published, run_size_sweep
from planner.analyses.traffic import collective_rings, permutation
from tests.conftest import service_missing
from tests.unit.test_flow import dumbbell, rail_2tier, toy_fabric

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


def test_flat_size_sweep_small_sizes_pay_every_step_large_keep_the_max_min_time():
    fabric = rail_2tier()
    net = Network.from_fabric(fabric)
    link_ns = np.full(fabric.link_count, 50.0)
    node_ns = np.full(fabric.node_count, 600.0)
    result = run_size_sweep(fabric, rings="flat", routing="ecmp", link_ns=link_ns, node_ns=node_ns)
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
    zero = run_size_sweep(fabric, rings="flat", routing="ecmp", sizes=(size,))
    assert zero["points"][0]["time_s"] == pytest.approx(bandwidth, rel=1e-9)


def test_ring_schedule_of_many_sizes_and_rings_matches_one_at_a_time():
    rng = np.random.default_rng(4)
    transfer = rng.uniform(0.5, 2.0, (3, 12))
    alpha = rng.uniform(0.0, 1.0, (3, 12))
    scales = np.array([1e-6, 1.0, 50.0])
    many = ring_schedule_sizes(transfer, alpha, 22, scales, overhead_s=0.1)
    one = [
        max(
            ring_schedule(t * s, a, 22, overhead_s=0.1)
            for t, a in zip(transfer, alpha, strict=True)
        )
        for s in scales
    ]
    assert many == pytest.approx(one, rel=1e-12)
    # a ring whose servers are alike runs on one period of its edges: the same times
    block_t, block_a = np.array([0.0, 0.0, 0.0, 1.0]), np.array([0.0, 0.0, 0.0, 0.7])
    tiled = ring_schedule_sizes(np.tile(block_t, (4, 5)), np.tile(block_a, (4, 5)), 38, scales)
    full = [ring_schedule(np.tile(block_t, 5) * s, np.tile(block_a, 5), 38) for s in scales]
    assert tiled == pytest.approx(full, rel=1e-12)


def test_rail_rings_put_one_ring_per_nic_on_its_rail():
    """NCCL's rings on 3 servers x 4 GPUs: 4 rings over all 12 ranks, each leaving a server
    once, NIC c to NIC c of the next server; the flat ring is the simulate job's."""
    net = Network.from_fabric(toy_fabric(servers_per_pod=3, gpus=4, rail=True))
    plan = collective_rings(net, np.arange(12), "all-reduce", 1.0, layout="rail")
    assert plan.rings == 4 and plan.n == 12 and plan.steps == 22
    assert sorted(plan.order[1].tolist()) == list(range(12))  # every rank on every ring
    assert np.array_equal(net.gpu_local[plan.flows.src], net.gpu_local[plan.flows.dst])
    assert np.array_equal(
        net.gpu_server[plan.flows.src] != net.gpu_server[plan.flows.dst], [True] * 12
    )
    assert (plan.edge_flow >= 0).sum(axis=1).tolist() == [3] * 4  # one fabric hop per server
    assert plan.flows.size == pytest.approx(2 * 11 / 12 / 4)  # 2(n-1)/n of S/g per NIC
    flows, *_ = make_flows(net, "all-reduce", 1.0, placement="contiguous", seed=0)
    flat = collective_rings(net, np.arange(12), "all-reduce", 1.0).flows
    assert np.array_equal(flows.src, flat.src) and np.array_equal(flows.dst, flat.dst)


def test_rail_size_sweep_reaches_the_servers_nics_together():
    """2 servers x 8 GPUs, a 400G NIC each, one leaf per rail: 8 rings, large messages at
    8 x 50 GB/s less the latency, small ones latency-bound."""
    fabric = toy_fabric(servers_per_pod=2, gpus=8, rail=True, spines_per_pod=2)
    link_ns, switch_ns = 100.0, 500.0
    result = run_size_sweep(
        fabric,
        routing="ecmp",
        link_ns=np.full(fabric.link_count, link_ns),
        node_ns=np.full(fabric.node_count, switch_ns),
    )
    assert result["rings"] == "rail" and result["ring_count"] == 8 and result["gpus"] == 16
    n, g, nic = 16, 8, 400e9 / 8  # ranks, rings, NIC bytes/s
    alpha = (2 * link_ns + switch_ns) * 1e-9  # GPU -> rail leaf -> GPU
    size = float(SIZES[-1])
    wire = 2 * (n - 1) / n * size / (g * nic)  # each NIC's share at line rate
    busbw = {p["size_bytes"]: p["busbw_gbytes_s"] for p in result["points"]}
    # latency paid once (pipelined steps) up to once per step: busbw between the two
    efficiency_low = wire / (wire + 2 * (n - 1) * alpha)
    efficiency_high = wire / (wire + alpha)
    assert busbw[SIZES[-1]] * 1e9 <= g * nic * efficiency_high * (1 + 1e-9)
    assert busbw[SIZES[-1]] * 1e9 >= g * nic * efficiency_low
    assert busbw[SIZES[-1]] == pytest.approx(400.0, rel=1e-3)
    assert result["bound_busbw_gbytes_s"] == 400.0
    small = result["points"][0]
    assert small["time_s"] >= alpha and busbw[8] < 1e-3 * busbw[SIZES[-1]]  # latency-bound
    # each ring crosses the fabric twice a traversal: a handful of alphas, not 2(n-1) of them
    assert small["time_s"] == pytest.approx(4 * alpha, rel=1e-4)
    assert result["bandwidth_busbw_gbytes_s"] == pytest.approx(400.0, rel=1e-9)
    flat = run_size_sweep(fabric, rings="flat", routing="ecmp", sizes=(SIZES[-1],))
    assert flat["points"][0]["busbw_gbytes_s"] == pytest.approx(50.0, rel=1e-9)
    row = compare_published(result["points"], 8)[0]["comparisons"][0]
    assert row["ours_gbytes_s"] == busbw[SIZES[-1]] and row["theirs_per_nic_gbytes_s"] == [46, 48]


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
