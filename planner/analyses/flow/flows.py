"""The flows a simulation runs, and their split into sub-flows over planes and queue pairs.

:func:`sub_flows`: on a multi-plane fabric every flow that leaves its server is split into
``k`` sub-flows of ``size/k``, sub-flow ``p`` on plane ``p`` at both ends (NCCL spreads a
transfer over the GPU's NIC ports); QP scaling splits further. A flow ends with its last part.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.analyses.flow.network import Network

__all__ = ["Flows", "sub_flows"]


@dataclass
class Flows:
    """Structure of arrays: one row per flow (GPU indices, bytes, start time in seconds, queue
    pair number, and the plane = which of the GPUs' NIC links it uses, 0 by default)."""

    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray
    start: np.ndarray | None = None
    qp: np.ndarray | None = None
    plane: np.ndarray | None = None

    def __post_init__(self):
        self.src = np.asarray(self.src, dtype=np.int64)
        self.dst = np.asarray(self.dst, dtype=np.int64)
        self.size = np.broadcast_to(np.asarray(self.size, dtype=np.float64), self.src.shape).copy()
        n = self.src.shape[0]
        self.start = np.zeros(n) if self.start is None else np.asarray(self.start, dtype=float)
        self.qp = np.zeros(n, np.int64) if self.qp is None else np.asarray(self.qp, np.int64)
        self.plane = (
            np.zeros(n, np.int64) if self.plane is None else np.asarray(self.plane, np.int64)
        )

    def __len__(self) -> int:
        return int(self.src.shape[0])

    def split_qp(self, k: int) -> tuple[Flows, np.ndarray]:
        """QP scaling: each flow becomes ``k`` sub-flows of size/k with qp = qp*k + j.
        Returns the sub-flows and, per sub-flow, the index of its parent flow."""
        parent = np.repeat(np.arange(len(self)), k)
        j = np.tile(np.arange(k), len(self))
        sub = Flows(
            self.src[parent],
            self.dst[parent],
            self.size[parent] / k,
            self.start[parent],
            self.qp[parent] * k + j,
            self.plane[parent],
        )
        return sub, parent


def sub_flows(net: Network, flows: Flows, qp_scaling: int = 1) -> tuple[Flows, np.ndarray]:
    """The flows the engine runs, and the index of each one's parent flow.

    On a fabric with ``k > 1`` NIC links per GPU every flow that leaves its server becomes
    ``k`` sub-flows of ``size/k``, sub-flow ``p`` on plane ``p`` (flows between GPUs of one
    server over scale-up stay whole); with ``qp_scaling > 1`` each part becomes that many
    sub-flows again (:meth:`Flows.split_qp`). On a single-plane fabric without QP scaling the
    flows are returned as they are.
    """
    parent = np.arange(len(flows))
    sub = flows
    k = net.planes
    if k > 1:
        local = (net.gpu_server[flows.src] == net.gpu_server[flows.dst]) & (
            net.scale_up_gbps is not None
        )
        copies = np.where(local, 1, k)
        parent = np.repeat(np.arange(len(flows)), copies)
        plane = np.arange(parent.size) - (np.cumsum(copies) - copies)[parent]
        sub = Flows(
            flows.src[parent],
            flows.dst[parent],
            flows.size[parent] / copies[parent],
            flows.start[parent],
            flows.qp[parent],
            plane,
        )
    if qp_scaling > 1:
        sub, split_parent = sub.split_qp(qp_scaling)
        parent = parent[split_parent]
    return sub, parent
