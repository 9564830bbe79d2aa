"""Turn catalog part records into the compatibility dataclasses of :mod:`inventory.library.compat`.

Catalog parts arrive as plain dicts (:attr:`planner.domain.catalog.CatalogFacts.parts`) and
devices as :class:`~planner.domain.catalog.DeviceModel`; the compatibility rules take
:class:`~inventory.library.compat.Plug`, :class:`~inventory.library.compat.Optic`,
:class:`~inventory.library.compat.Fiber` and :class:`~inventory.library.compat.Cage`. Media
selection (:mod:`planner.domain.media`), the canvas (:mod:`planner.domain.canvas`) and
validation (:mod:`simulation.engine.validate`) share these adapters, so all three judge a part
from the same facts. They mirror ``inventory/adapters.py``, which does the same for model rows.
"""

from __future__ import annotations

from inventory.library.compat import Cage, Fiber, Optic, Plug
from inventory.library.rules import parse_breakout
from planner.domain.catalog import DeviceModel, PortGroup

#: Rule 16: copper reach when a cable states none (passive DAC at 100G-PAM4, LACC, AEC).
COPPER_REACH_M = {"dac": 3.0, "acc": 5.0, "aec": 7.0}


def reach_cap_m(media: str | None, connector: str | None, splitter: bool) -> float | None:
    """Rule 11: the whole-link reach limit of a fiber type and connector.

    Parameters
    ----------
    media : str or None
        ``"mmf"`` or ``"smf"``.
    connector : str or None
        The modules' connector (``"mpo-12"``, ``"lc-duplex"``, ...).
    splitter : bool
        The fiber is a 1:2 splitter.

    Returns
    -------
    float or None
        MMF MPO 50 m; SMF MPO straight 500 m, splitter 50 m; SMF LC 2 km; otherwise None
        (no cap from this rule).
    """
    if not media or not connector:
        return None
    if connector.startswith("mpo"):
        if media == "mmf":
            return 50.0
        if media == "smf":
            return 50.0 if splitter else 500.0
    if connector.startswith("lc") and media == "smf":
        return 2000.0
    return None


def _frozen(values) -> frozenset:
    return frozenset(values or ())


def plug_of(part: dict) -> Plug:
    """The :class:`Plug` of a transceiver record."""
    return Plug(
        "transceiver",
        part.get("form_factor") or None,
        part.get("top") or None,
        part.get("ports_per_module") or 1,
        part.get("speed_gbps"),
        part.get("lanes"),
        part.get("lane_rate_gbps"),
        part.get("power_max_w"),
        _frozen(part.get("protocols")),
        part.get("side") or None,
        label=part["slug"],
    )


def optic_of(part: dict) -> Optic:
    """The :class:`Optic` (optical side) of a transceiver record."""
    return Optic(
        part.get("media") or None,
        part.get("pmd") or None,
        part.get("lane_rate_gbps"),
        part.get("port_speed_gbps"),
        tuple(part.get("breakouts") or ()),
        part.get("connector") or None,
        part.get("wavelength_nm"),
        _frozen(part.get("protocols")),
        tuple(part.get("fiber_grades") or ()),
        label=part["slug"],
    )


def legs_of(part: dict) -> int | None:
    """Legs of a cable or fiber: ``legs``, else from ``topology`` (straight 1, ``1:N`` N)."""
    if part.get("legs"):
        return int(part["legs"])
    topology = part.get("topology")
    if topology == "straight":
        return 1
    if topology and topology.startswith("1:"):
        return int(topology[2:])
    return None


def cable_plugs_of(part: dict) -> tuple[Plug, Plug]:
    """The head (end A) and one leg (end B) of a cable-assembly record, as plugs."""
    lanes_per_leg = part.get("lanes_per_leg")
    legs = legs_of(part) or 1
    head = Plug(
        "cable",
        part.get("end_a_form_factor") or None,
        part.get("end_a_top") or None,
        part.get("end_a_ports_per_module") or 1,
        part.get("speed_gbps"),
        lanes_per_leg * legs if lanes_per_leg else None,
        part.get("lane_rate_gbps"),
        part.get("power_end_a_w"),
        _frozen(part.get("protocols")),
        label=f"{part['slug']} A",
    )
    leg = Plug(
        "cable",
        part.get("end_b_form_factor") or None,
        part.get("end_b_top") or None,
        part.get("end_b_ports_per_module") or 1,
        part.get("leg_speed_gbps") or part.get("speed_gbps"),
        lanes_per_leg,
        part.get("lane_rate_gbps"),
        part.get("power_end_b_w"),
        _frozen(part.get("protocols")),
        label=f"{part['slug']} B",
    )
    return head, leg


def fiber_of(part: dict) -> Fiber:
    """The :class:`Fiber` of a fiber-cable record."""
    return Fiber(
        part.get("fiber_type") or None,
        part.get("connector_a") or None,
        part.get("connector_b") or None,
        part.get("fiber_grade") or None,
        part.get("topology") or None,
        label=part["slug"],
    )


def cage_of(model: DeviceModel | None, group: PortGroup | None) -> Cage:
    """The :class:`Cage` of a device's port group (an unknown host cage when either is None)."""
    if model is None or group is None:
        return Cage("host", None)
    return Cage(
        "switch" if model.category == "switch" else "host",
        group.form_factor,
        group.top,
        group.ports_per_cage or 1,
        group.port_speed_gbps,
        group.lanes_per_port,
        group.lane_rate_gbps,
        group.max_module_power_w,
        _frozen(model.protocols) if model.category == "switch" else frozenset(),
        (),
        tuple(group.breakouts),
        label=f"{model.slug} {group.count} x {group.form_factor}",
    )


def port_group_of(model: DeviceModel | None, speed_gbps: int) -> PortGroup | None:
    """The port group a link at ``speed_gbps`` uses: the one running that speed, else the
    one at the model's port speed, else the first."""
    if model is None:
        return None
    group = model.group_at(speed_gbps)
    if group is None and model.port_speed_gbps:
        group = model.group_at(model.port_speed_gbps)
    if group is None and model.port_groups:
        group = model.port_groups[0]
    return group


def port_speeds_of(part: dict) -> set[int]:
    """Logical port speeds (Gb/s) a transceiver runs: its port speed (or module speed per
    port) and the per-port speed of each breakout it lists."""
    speeds = {part["port_speed_gbps"]} if part.get("port_speed_gbps") else set()
    if not speeds and part.get("speed_gbps") and part.get("ports_per_module"):
        speeds.add(part["speed_gbps"] // part["ports_per_module"])
    for text in part.get("breakouts") or ():
        try:
            speeds.add(parse_breakout(text)[1])
        except ValueError:
            continue
    return speeds


__all__ = [
    "COPPER_REACH_M",
    "cable_plugs_of",
    "cage_of",
    "fiber_of",
    "legs_of",
    "optic_of",
    "plug_of",
    "port_group_of",
    "port_speeds_of",
    "reach_cap_m",
]
