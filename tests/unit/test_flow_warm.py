"""The flow kernels' warm-up (planner.analyses.flow.warm, run by `make setup` and the Docker
build) compiles every compiled kernel with the argument types the simulation passes, so no
test, web or worker process compiles them again."""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
from numba.core.dispatcher import Dispatcher

import planner.analyses.flow as flow
from planner.analyses.flow import Network, max_min_rates, route, simulate, warm
from tests.unit.test_flow import clos_3tier
from tests.unit.test_flow_incremental import _patterns, _random_flows


def test_the_warm_up_calls_every_compiled_kernel_of_the_package():
    compiled = set()
    for module in pkgutil.iter_modules(flow.__path__):
        names = vars(importlib.import_module(f"{flow.__name__}.{module.name}"))
        compiled |= {v for v in names.values() if isinstance(v, Dispatcher)}
    assert compiled == set(warm.KERNELS)


def test_a_simulation_passes_the_types_the_warm_up_compiled():
    warm.warm()
    compiled = {kernel.__name__: list(kernel.signatures) for kernel in warm.KERNELS}
    assert all(len(signatures) == 1 for signatures in compiled.values()), compiled
    net = Network.from_fabric(clos_3tier())
    for late in (0.0, 0.3):  # all flows at once (components in lockstep), then arriving
        for pattern in _patterns(net.gpu_count, 1).values():
            simulate(net, _random_flows(pattern, 1, late=late), "ecmp", seed=1)
    a = route(net, _patterns(net.gpu_count, 1)["all-to-all"], "ecmp", seed=1)
    max_min_rates(a, np.where(net.alive, net.capacity, 0.0), return_bottleneck=True)
    assert {kernel.__name__: list(kernel.signatures) for kernel in warm.KERNELS} == compiled
