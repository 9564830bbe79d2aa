"""The port speeds a device model runs, and how many logical ports it has at one, as the
generators count them (used by edit documents and link media options).
"""

from __future__ import annotations

from functools import lru_cache

from inventory.library.rules import parse_breakout
from planner.domain.canvas.common import speed_text
from planner.domain.catalog import DeviceModel


@lru_cache(maxsize=1024)
def model_speeds(model: DeviceModel) -> frozenset[int]:
    """Port speeds a model runs: its cages' speeds and their listed breakouts (kept per model:
    an edit document asks it for both ends of every link)."""
    out = set()
    for group in model.port_groups:
        if group.port_speed_gbps:
            out.add(group.port_speed_gbps)
        for text in group.breakouts:
            try:
                speed = parse_breakout(text)[1]
            except ValueError:
                continue
            if group.ports_at(speed):
                out.add(speed)
    return frozenset(out)


@lru_cache(maxsize=1024)
def plane_speeds(model: DeviceModel) -> frozenset[int]:
    """The slower speeds a server's ports run: a half, quarter or eighth of the native speed
    (a 400G NIC at 200G behind a 1:2 splitter or a 1:4 breakout, or one plane of a
    multi-plane fabric). Without a listed breakout the cage stays one port at that speed
    (:func:`ports_at`)."""
    if model.category != "server":
        return frozenset()
    return frozenset(
        g.port_speed_gbps // k
        for g in model.port_groups
        if g.port_speed_gbps
        for k in (2, 4, 8)
        if g.port_speed_gbps % k == 0
    )


def supports(model: DeviceModel | None, speed: int) -> bool:
    """Whether ``model`` runs ``speed`` ports (natively, broken out or split over planes)."""
    return model is None or speed in model_speeds(model) | plane_speeds(model)


def common_speed(a: DeviceModel | None, b: DeviceModel | None) -> int | None:
    """The highest port speed both models run (a server's plane split only when nothing else
    is shared); None if they share none. An unknown model (fabric manager) runs anything."""
    if a is None and b is None:
        return None
    if a is None or b is None:
        known = a or b
        speeds = model_speeds(known)
        return max(speeds) if speeds else None
    shared = model_speeds(a) & model_speeds(b)
    if shared:
        return max(shared)
    loose = (model_speeds(a) | plane_speeds(a)) & (model_speeds(b) | plane_speeds(b))
    return max(loose) if loose else None


def ports_at(model: DeviceModel | None, speed: int) -> tuple[int, int]:
    """Logical ports and ports per cage of ``model`` at ``speed`` (as the generators count).

    A port splits into several logical ports only in a breakout mode its catalog entry lists
    (a ConnectX-8's 2 x 400G). A server port run slower than its native speed without one is
    still one logical port per physical port: a 400G NIC at 200G (two of its four lanes, as
    NVIDIA's 1:2 splitter fibres and 1:4 splitter cables run it) is one 200G port in its
    cage, one leg of a breakout.

    >>> from planner.domain.catalog import DeviceModel, PortGroup
    >>> nic = DeviceModel("srv", "server", (PortGroup(8, 1, 400, "OSFP"),))
    >>> ports_at(nic, 400), ports_at(nic, 200)
    ((8, 1), (8, 1))
    >>> cx8 = DeviceModel("srv8", "server", (PortGroup(8, 1, 800, breakouts=("2x400G",)),))
    >>> ports_at(cx8, 400), ports_at(cx8, 200)
    ((16, 2), (8, 1))
    """
    if model is None:
        return 0, 1
    group = model.group_at(speed)
    if group is not None:
        return model.radix_at(speed), group.ports_per_cage * group.split_at(speed)
    if model.category == "server":
        for group in model.port_groups:
            native = group.port_speed_gbps
            if native and native % speed == 0:
                return model.ports, group.ports_per_cage
    return 0, 1


def speed_list(model: DeviceModel) -> str:
    """The speeds ``model`` runs, fastest first, for messages."""
    speeds = sorted(model_speeds(model), reverse=True)
    return ", ".join(speed_text(s) for s in speeds) or "no known speed"
