"""Identical planes run once (planner.analyses.flow.symmetry): the reduced run and the full
run agree on every figure. Multi-plane fabrics from test_flow_planes (20 two-GPU servers,
each GPU with one NIC link per plane)."""

from __future__ import annotations

import numpy as np
import pytest

from planner.analyses.flow import Flows, Network, simulate, symmetry
from planner.analyses.traffic import all_to_all, incast, permutation
from tests.unit.test_flow_planes import multi_plane_fabric

MB = 1_000_000


def _patterns(net: Network, seed: int) -> dict[str, Flows]:
    ranks = np.arange(net.gpu_count)
    rng = np.random.default_rng(seed)
    mixed = permutation(ranks, 1, seed=seed)
    sizes = 2 * np.round(rng.lognormal(np.log(MB), 1.0, len(mixed)) / 2)
    late = np.where(rng.random(len(mixed)) < 0.3, rng.random(len(mixed)) * 2e-5, 0.0)
    return {
        "lognormal, late starts": Flows(mixed.src, mixed.dst, sizes, late),
        "all-to-all": all_to_all(ranks, 4 * MB),
        "incast": incast(ranks, MB, target=seed),
    }


def _same(reduced, full):
    assert np.allclose(reduced.finish, full.finish, rtol=1e-12, atol=0)
    assert np.allclose(reduced.sub_finish, full.sub_finish, rtol=1e-12, atol=0)
    assert np.allclose(reduced.first_rates, full.first_rates, rtol=1e-12)
    assert np.allclose(reduced.link_util_avg, full.link_util_avg, rtol=1e-12, atol=1e-15)
    assert np.allclose(reduced.link_util_peak, full.link_util_peak, rtol=1e-12, atol=1e-15)
    assert abs(reduced.incidence - full.incidence).max() < 1e-12
    assert reduced.completion_time_s == pytest.approx(full.completion_time_s, rel=1e-12)
    assert reduced.events == full.events
    assert [h["link"] for h in reduced.hot_spots] == [h["link"] for h in full.hot_spots]
    assert [h["bottlenecked_flows"] for h in reduced.hot_spots] == [
        h["bottlenecked_flows"] for h in full.hot_spots
    ]


@pytest.mark.parametrize("qp_scaling", [1, 2])
@pytest.mark.parametrize("routing", ["rail", "spraying", "ib-ar"])
@pytest.mark.parametrize("planes", [2])
def test_identical_planes_run_once_and_agree_with_the_full_run(planes, routing, qp_scaling):
    net = Network.from_fabric(multi_plane_fabric(planes))
    assert symmetry.plane_links(net).shape[0] == planes
    for seed in (0, 1):
        for name, flows in _patterns(net, seed).items():
            reduced = simulate(net, flows, routing, seed=seed, qp_scaling=qp_scaling)
            full = simulate(net, flows, routing, seed=seed, qp_scaling=qp_scaling, symmetry=False)
            assert reduced.symmetry and full.symmetry is None, name
            _same(reduced, full)


def test_planes_that_differ_run_in_full():
    net = Network.from_fabric(multi_plane_fabric(2))
    switch_links = np.flatnonzero(net.is_switch[net.link_from] & net.is_switch[net.link_to])
    failed = net.with_failures(links=[int(switch_links[0]) // 2])  # one link of one plane
    assert symmetry.plane_links(failed) is None
    flows = permutation(np.arange(net.gpu_count), MB, seed=3)
    assert simulate(failed, flows, "spraying").symmetry is None
    # ECMP hashes the switch, so even identical planes differ
    assert simulate(net, flows, "ecmp").symmetry is None
    assert Network.from_fabric(multi_plane_fabric(1)).planes == 1
    assert symmetry.plane_links(Network.from_fabric(multi_plane_fabric(1))) is None
