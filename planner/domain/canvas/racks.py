"""Rack-scale systems on the canvas (GB200-NVL72, GB300-NVL72): one server node stands for a
rack of compute trays, whose ports are the trays' NICs, port ``(tray * rails + rail) * planes
+ plane`` (0-based; ``fabric.info["rack_system"]`` and ``["rails"]``, set by the generator).

:func:`rack_system` says whether a node is such a rack; :func:`rack_label` is what the canvas
calls it; :func:`rack_trays` lists its trays and where each NIC goes.
"""

from __future__ import annotations

import numpy as np

from planner.domain.fabric import Fabric
from planner.domain.names import Names, rack_name, rack_system


def rack_label(fabric: Fabric, node: int) -> str | None:
    """``"gpu00003 · GB300-NVL72 in rack R001-03 · 18 trays · 72 GPUs"``: the system by its
    device name and the rack by its layout name, as every other page names them
    (:mod:`planner.domain.names`); None for an ordinary server."""
    system = rack_system(fabric, node)
    if system is None:
        return None
    trays = int(system["compute_trays"])
    gpus = trays * int(system.get("gpus_per_tray") or 0)
    rack = rack_name(fabric, node)
    where = f" in rack {rack}" if rack else ""
    text = f"{fabric.node_name[node]} · {system['model']}{where} · {trays:,} trays"
    return f"{text} · {gpus:,} GPUs" if gpus else text


def racks_label(system: dict, count: int) -> str:
    """Many racks of one system: ``"8 GB300-NVL72 racks · 144 trays · 576 GPUs"``."""
    trays = count * int(system["compute_trays"])
    gpus = trays * int(system.get("gpus_per_tray") or 0)
    noun = "rack" if count == 1 else "racks"
    text = f"{count:,} {system['model']} {noun} · {trays:,} trays"
    return f"{text} · {gpus:,} GPUs" if gpus else text


def rack_trays(fabric: Fabric, node: int) -> list[dict] | None:
    """The trays of a rack-scale server and where each NIC connects, or None for a server that
    is not one.

    Returns ``[{"tray", "gpus", "nics": [{"rail", "plane", "port", "port_name", "peer",
    "peer_port", "peer_port_name"}]}]``: tray, rail and plane 1-based; ``port`` the rack's port
    and ``peer_port`` the leaf's, both 1-based as every port on the canvas, ``port_name`` and
    ``peer_port_name`` their names (:mod:`planner.domain.names`: ``tray 2 NIC 1``, ``9/2``);
    ``peer`` the leaf's name (``peer`` and the peer's port None for a NIC with no link). One
    NIC entry per rail and plane.

    Examples
    --------
    >>> from planner.domain.fabric import FabricBuilder
    >>> b = FabricBuilder()
    >>> s = b.add_nodes(["nvl-1"], role="server", model="nvl", ports=4, ports_per_cage=1)
    >>> l = b.add_nodes(["leaf-1"], role="leaf", model="sw", plane=0, ports=8, ports_per_cage=1)
    >>> b.add_links([s[0]] * 4, [0, 1, 2, 3], [l[0]] * 4, [4, 5, 6, 7], tier="server-leaf", plane=0,
    ...             speed_gbps=800)
    >>> system = {"model": "nvl", "compute_trays": 2, "gpus_per_tray": 4, "nics_per_tray": 2}
    >>> fabric = b.build({"rails": 2, "planes": 1, "rack_system": system})
    >>> trays = rack_trays(fabric, 0)
    >>> [(t["tray"], t["gpus"], len(t["nics"])) for t in trays]
    [(1, 4, 2), (2, 4, 2)]
    >>> trays[1]["nics"][1]  # doctest: +NORMALIZE_WHITESPACE
    {'rail': 2, 'plane': 1, 'port': 4, 'port_name': 'tray 2 NIC 2', 'peer': 'leaf-1',
     'peer_port': 8, 'peer_port_name': '8'}
    """
    system = rack_system(fabric, node)
    if system is None:
        return None
    trays = int(system["compute_trays"])
    rails = int(fabric.info["rails"])
    planes = int(fabric.info.get("planes") or 1)
    gpus = int(system.get("gpus_per_tray") or 0) or None
    names = Names(fabric)
    peers: dict[int, tuple[int, int]] = {}
    for ends, own_port, peer_port, other in (
        (fabric.link_a, fabric.link_a_port, fabric.link_b_port, fabric.link_b),
        (fabric.link_b, fabric.link_b_port, fabric.link_a_port, fabric.link_a),
    ):
        links = np.flatnonzero(ends == node)
        for port, peer, their in zip(
            own_port[links].tolist(), other[links].tolist(), peer_port[links].tolist(), strict=True
        ):
            peers[int(port)] = (int(peer), int(their))
    out = []
    for tray in range(trays):
        nics = []
        for rail in range(rails):
            for plane in range(planes):
                port = (tray * rails + rail) * planes + plane
                peer = peers.get(port)
                nics.append(
                    {
                        "rail": rail + 1,
                        "plane": plane + 1,
                        "port": port + 1,
                        "port_name": names.port(node, port),
                        "peer": fabric.node_name[peer[0]] if peer else None,
                        "peer_port": peer[1] + 1 if peer else None,
                        "peer_port_name": names.port(*peer) if peer else None,
                    }
                )
        out.append({"tray": tray + 1, "gpus": gpus, "nics": nics})
    return out
