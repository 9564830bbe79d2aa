"""Turn catalog rows into the pure compatibility dataclasses of :mod:`inventory.library.compat`."""

from __future__ import annotations

from inventory.library.compat import Cage, Fiber, Optic, Plug
from inventory.models import (
    CableAssembly,
    FiberCable,
    NICModel,
    ServerModel,
    SwitchModel,
    Transceiver,
)


def _frozen(values) -> frozenset:
    return frozenset(values or ())


def cages_of(part) -> list[Cage]:
    """The data cages of a switch, NIC or server, one :class:`Cage` per group."""
    if isinstance(part, SwitchModel):
        return [
            Cage(
                "switch",
                g.get("form_factor"),
                g.get("top"),
                g.get("ports_per_cage") or 1,
                g.get("port_speed_gbps"),
                g.get("lanes_per_port"),
                g.get("lane_rate_gbps"),
                g.get("max_module_power_w"),
                _frozen(part.protocols),
                tuple(g.get("speeds_gbps") or ()),
                tuple(g.get("breakouts") or ()),
                label=f"{part.slug} {g.get('count', '?')} x {g.get('form_factor')}",
            )
            for g in part.cage_groups or []
            if isinstance(g, dict) and g.get("role", "data") == "data"
        ]
    if isinstance(part, NICModel):
        accepts = None
        top_only = None
        for limit in part.limits or []:
            if limit.get("code") == "cage-only" and limit.get("form_factors"):
                accepts = frozenset(limit["form_factors"])
            if limit.get("code") == "top-only":
                top_only = limit.get("top")
        return [
            Cage(
                "host",
                p.get("form_factor"),
                p.get("top") or top_only,
                1,
                p.get("max_speed_gbps") or part.max_speed_gbps,
                p.get("lanes"),
                p.get("lane_rate_gbps"),
                None,
                _frozen(part.protocols),
                tuple(p.get("speeds_gbps") or ()),
                (),
                accepts,
                tuple(part.limits or ()),
                label=f"{part.slug} {p.get('count', '?')} x {p.get('form_factor')}",
            )
            for p in part.ports or []
            if isinstance(p, dict)
        ]
    if isinstance(part, ServerModel):
        return [
            Cage(
                "host",
                g.get("form_factor"),
                g.get("top"),
                g.get("ports_per_cage") or 1,
                g.get("port_speed_gbps"),
                g.get("lanes_per_port"),
                g.get("lane_rate_gbps"),
                g.get("max_module_power_w"),
                frozenset(),
                label=f"{part.slug} {g.get('count', '?')} x {g.get('form_factor')}",
            )
            for g in part.compute_ports or []
            if isinstance(g, dict)
        ]
    return []


def plug_of(module: Transceiver) -> Plug:
    return Plug(
        "transceiver",
        module.form_factor or None,
        module.top or None,
        module.ports_per_module or 1,
        module.speed_gbps,
        module.lanes,
        module.lane_rate_gbps,
        module.power_max_w,
        _frozen(module.protocols),
        module.side or None,
        label=module.slug,
    )


def optic_of(module: Transceiver) -> Optic:
    return Optic(
        module.media or None,
        module.pmd or None,
        module.lane_rate_gbps,
        module.port_speed_gbps,
        tuple(module.breakouts or ()),
        module.connector or None,
        module.wavelength_nm,
        _frozen(module.protocols),
        tuple(module.fiber_grades or ()),
        label=module.slug,
    )


def cable_plugs(cable: CableAssembly) -> tuple[Plug, Plug]:
    """The head (A end) and one leg (B end) of a cable."""
    lanes_per_leg = cable.lanes_per_leg
    legs = cable.legs or 1
    head = Plug(
        "cable",
        cable.end_a_form_factor or None,
        cable.end_a_top or None,
        cable.end_a_ports_per_module or 1,
        cable.speed_gbps,
        lanes_per_leg * legs if lanes_per_leg else None,
        cable.lane_rate_gbps,
        cable.power_end_a_w,
        _frozen(cable.protocols),
        label=f"{cable.slug} A",
    )
    leg = Plug(
        "cable",
        cable.end_b_form_factor or None,
        cable.end_b_top or None,
        cable.end_b_ports_per_module or 1,
        cable.leg_speed_gbps or cable.speed_gbps,
        lanes_per_leg,
        cable.lane_rate_gbps,
        cable.power_end_b_w,
        _frozen(cable.protocols),
        label=f"{cable.slug} B",
    )
    return head, leg


def fiber_of(fiber: FiberCable) -> Fiber:
    return Fiber(
        fiber.fiber_type or None,
        fiber.connector_a or None,
        fiber.connector_b or None,
        fiber.fiber_grade or None,
        fiber.topology or None,
        label=fiber.slug,
    )
