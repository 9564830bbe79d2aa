"""The out-of-band management network: 1 GbE RJ45 access switches with uplinks into in-band.

Rule (RA-11333-001 V11, "Out-of-Band Management Network" and Table 8, whose Cat5e rows sum
to 317 = 127 + 64 + 8 + 8 + 2 + 108; the RA's "Varies" storage row is a spec field):

- managed ports: every node BMC (a rack-scale system: every compute tray), every switch of
  every other network (compute, storage, converged, in-band; the OOB switches' own management
  ports are not counted, as in the RA), every management and UFM node, one UFM back-to-back
  cable per UFM pair, every PDU (``pdus_per_rack`` per compute rack of the layout, RA 3;
  ``pdus_per_management_rack`` per management rack, RA 2; ``management_racks``, RA 6),
  NVLink switch trays of rack-scale systems, and ``storage_mgmt_ports`` (RA "Varies", 0);
- one Cat5e cable per managed port; OOB switches = ``ceil(ports / RJ45 ports)`` rounded up
  to a multiple of ``switch_multiple`` (RA 2: ceil(317 / 48) = 7, NVIDIA builds 8);
- ``uplinks`` (RA 2) x 100G AOC per OOB switch into the in-band network's cores.

By rack group (``switches_per_rack``, when given: NVIDIA's other builds place the OOB switches
by rack, not by port count, and the port rule does not reproduce them; sources in
:mod:`planner.domain.networks.published`):

- the layout's compute racks, in layout order, form groups (:func:`rack_groups`): a whole
  number ``s`` gives every rack ``s`` switches (GB300 NVL72: "2 SN2201 OOB switches" per rack),
  a unit fraction ``1/n`` one switch per ``n`` consecutive racks (DGX B200 SuperPOD 4 SU: 16
  SN2201 for 64 racks, ``0.25``; the last group may hold fewer racks);
- a group's switches serve its racks' ports (node BMCs, NVLink switch trays, the racks' PDUs)
  and must have room for them, else the field is refused;
- every other managed port (the switches of every network, which sit in the layout's network
  racks or the management racks, management and UFM nodes, UFM back-to-back, management-rack
  PDUs, storage appliances) takes the groups' spare ports (inferred: the B200 figure's 16
  switches serve the whole cluster), and ``ceil(rest / RJ45 ports)`` more switches are added
  for whatever does not fit; ``switch_multiple`` is not applied.
"""

from __future__ import annotations

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import FabricError
from planner.domain.networks.common import (
    RA_H100,
    LinkGroup,
    NetworkPlan,
    PartCount,
    SwitchGroup,
    ceil_div,
    find_part,
    is_ra_family,
    rack_group_shape,
    switch_ports,
)


def rack_groups(racks: int, switches_per_rack) -> list[tuple[range, int]]:
    """The OOB rack groups: ``(compute rack indexes, switches)`` per group, in layout order.

    >>> rack_groups(3, 2)
    [(range(0, 1), 2), (range(1, 2), 2), (range(2, 3), 2)]
    >>> rack_groups(10, 0.25)
    [(range(0, 4), 1), (range(4, 8), 1), (range(8, 10), 1)]
    """
    per_group, switches = rack_group_shape(switches_per_rack)
    return [
        (range(start, min(start + per_group, racks)), switches)
        for start in range(0, racks, per_group)
    ]


def oob_network(
    values: dict,
    shared: dict,
    *,
    server: str,
    hosts: int,
    compute_switches: int,
    other_switches: dict[str, int],
    compute_racks: int,
    nvlink_trays: int,
    facts: CatalogFacts,
    rack_servers: tuple[int, ...] = (),
) -> NetworkPlan:
    """The OOB network (see the module docstring); RA: 8 SN2201, 317 Cat5e + 16 uplinks.

    Parameters
    ----------
    values, shared : dict
        The ``oob`` block's settings and the shared counts (management/UFM nodes, racks).
    server : str
        The server slug (the RA's parts apply to DGX-H100/H200 on SN2201).
    hosts : int
        Nodes with a BMC (a rack-scale system's compute trays).
    compute_switches : int
        Switches of the compute fabric.
    other_switches : dict
        Switch count per other network (``storage``, ``converged``, ``inband``).
    compute_racks : int
        Racks of the layout that hold servers.
    nvlink_trays : int
        NVLink switch trays of rack-scale systems (used unless ``nvlink_switch_trays`` is set).
    facts : CatalogFacts
    rack_servers : tuple of int
        Servers per compute rack, in layout order (``switches_per_rack`` groups them; a
        rack-scale system brings ``hosts / servers`` BMC ports and its NVLink switch trays).

    Raises
    ------
    FabricError
        ``networks.oob.leaf`` (no RJ45 ports known), ``networks.oob.uplinks`` (more uplinks
        than the switch has uplink ports), ``networks.oob.switches_per_rack`` (a rack group
        needs more ports than its switches have, or the layout has no compute racks).

    Long because: its docstring documents nine parameters, and the sizing steps (managed ports,
    switches, uplinks) share the port counts; its UFM parts and conventions are functions of
    their own.
    """
    where = "networks.oob"
    leaf = values["leaf"]
    rj45, _ = switch_ports(facts, leaf, 1, f"{where}.leaf")
    uplink_speed = int(values["uplink_speed_gbps"])
    uplinks = int(values["uplinks"])
    if uplinks:
        uplink_ports, _ = switch_ports(facts, leaf, uplink_speed, f"{where}.uplink_speed_gbps")
        if uplinks > uplink_ports:
            raise FabricError(
                f"{where}.uplinks: {leaf} has {uplink_ports} ports at {uplink_speed}G, fewer "
                f"than {uplinks} uplinks",
                field=f"{where}.uplinks",
            )
    ufm = int(shared["ufm_appliances"])
    back_to_back = values.get("ufm_back_to_back")
    back_to_back = ufm // 2 if back_to_back is None else int(back_to_back)
    trays = values.get("nvlink_switch_trays")
    trays = nvlink_trays if trays is None else int(trays)
    management_racks = int(shared["management_racks"])
    pdus = compute_racks * int(values["pdus_per_rack"]) + management_racks * int(
        values["pdus_per_management_rack"]
    )
    names = {"storage": "storage", "converged": "converged", "inband": "in-band"}
    managed = [
        ("node BMCs", hosts * int(values["ports_per_node"])),
        ("compute fabric switches", compute_switches),
        *((f"{names[n]} switches", c) for n, c in other_switches.items()),
        ("management and UFM nodes", int(shared["management_nodes"]) + ufm),
        ("UFM back-to-back", back_to_back),
        ("PDUs", pdus),
        ("NVLink switch trays", trays),
        ("storage appliance management", int(values.get("storage_mgmt_ports") or 0)),
    ]
    managed = [(label, count) for label, count in managed if count]
    ports = sum(count for _, count in managed)
    multiple = max(1, int(values["switch_multiple"]))
    per_rack = values.get("switches_per_rack")
    if per_rack is None:
        switches = ceil_div(ports, rj45) if ports else 0
        switches = ceil_div(switches, multiple) * multiple
        sizing = (
            f"OOB switches: ceil({ports} / {rj45} RJ45 ports) rounded up to a multiple of "
            f"{multiple} (spec field switch_multiple; the RA builds 8 SN2201 for 317 ports, "
            "where ceil(317 / 48) = 7)."
        )
    else:
        switches, sizing = _by_rack_group(
            per_rack,
            rack_servers,
            ports=ports,
            rj45=rj45,
            bmc_per_server=int(values["ports_per_node"]) * hosts // max(sum(rack_servers), 1),
            trays_per_server=(trays // max(sum(rack_servers), 1) if trays == nvlink_trays else 0),
            pdus_per_rack=int(values["pdus_per_rack"]),
            leaf=leaf,
        )
    use_ra_parts = is_ra_family(server) and leaf == "SN2201"
    cat5e = find_part(facts, ("Cat5e",), "Cat5e patch cable, 1 GbE RJ45", "cable")
    aoc = (
        find_part(facts, ("980-9I13N-00C030", "MFA1A00-C030"), "100G QSFP28 AOC, 30 m", "cable")
        if use_ra_parts
        else None
    )
    links = [
        LinkGroup(f"{label}", label, "OOB switch", count, 1, "Cat5e", count, cat5e)
        for label, count in managed
    ]
    into = values.get("uplinks_into") or "in-band core"
    links.append(
        LinkGroup(
            "uplinks",
            "OOB switch",
            into,
            switches * uplinks,
            uplink_speed,
            "AOC",
            switches * uplinks,
            aoc,
            f"{uplinks} per OOB switch",
        )
    )
    counted = _ufm_parts(facts, ufm) if use_ra_parts else []
    conventions = _conventions(
        values=values,
        compute_racks=compute_racks,
        management_racks=management_racks,
        sizing=sizing,
        uplinks=uplinks,
        uplink_speed=uplink_speed,
        into=into,
        use_ra_parts=use_ra_parts,
    )
    return NetworkPlan(
        name="oob",
        switches=(SwitchGroup("leaf", leaf, switches, ports, rj45),) if switches else (),
        link_groups=tuple(group for group in links if group.links),
        parts=tuple(counted),
        endpoints=(
            ("managed ports", ports),
            ("compute racks", compute_racks),
            ("management racks", management_racks),
            ("PDUs", pdus),
        ),
        conventions=tuple(conventions),
        managed_ports=tuple(managed),
        settings={**values, "ufm_back_to_back": back_to_back, "nvlink_switch_trays": trays},
    )


def _ufm_parts(facts: CatalogFacts, ufm: int) -> list[PartCount]:
    """The RA's adapter and 1G module per UFM appliance on the OOB switches (RA parts only)."""
    if not ufm:
        return []
    return [
        PartCount(
            find_part(
                facts,
                ("980-9I71G-00J000", "MAM1Q00A-QSA"),
                "QSFP to SFP+ adapter",
                "transceiver",
            ),
            "switch",
            ufm,
            "transceiver",
            "UFM appliance (RA: 'For the UFM connections')",
        ),
        PartCount(
            find_part(facts, ("980-9I251-00IS00",), "1G BASE-T SFP module", "transceiver"),
            "switch",
            ufm,
            "transceiver",
            "UFM appliance (RA: 'For the UFM connections')",
        ),
    ]


def _conventions(
    *,
    values: dict,
    compute_racks: int,
    management_racks: int,
    sizing: str,
    uplinks: int,
    uplink_speed: int,
    into: str,
    use_ra_parts: bool,
) -> list[str]:
    """How the OOB network was sized and counted, in words, with its figures."""
    conventions = [
        "Managed ports: every node BMC, every switch of every other network (compute, "
        "storage, in-band; the OOB switches' own management ports are not counted, as in the "
        "RA), every management and UFM node, one UFM back-to-back cable per UFM pair, every "
        f"PDU ({values['pdus_per_rack']} per compute rack of the layout x {compute_racks}, "
        f"{values['pdus_per_management_rack']} per management rack x {management_racks}; "
        "spec fields pdus_per_rack, pdus_per_management_rack, networks.management_racks), "
        "NVLink switch trays, storage appliances' management ports (spec field "
        "storage_mgmt_ports; 'Varies' in the RA, default 0). One Cat5e cable per managed port.",
        sizing,
        f"Uplinks: {uplinks} x {uplink_speed}G AOC per OOB switch into the {into} (RA: 'Two "
        "uplinks per OOB to in-band'); counted here, not with in-band.",
        "Compute racks are the layout's racks that hold servers; the layout's network racks "
        "are not counted (the RA's management racks hold the switches).",
        "PDUs, management nodes and UFM appliances are endpoints, not parts of this network's "
        "bill of materials.",
    ]
    if use_ra_parts:
        conventions.append(f"Parts as printed in {RA_H100} (OOB Ethernet cables).")
    return conventions


def _by_rack_group(
    per_rack,
    rack_servers: tuple[int, ...],
    *,
    ports: int,
    rj45: int,
    bmc_per_server: int,
    trays_per_server: int,
    pdus_per_rack: int,
    leaf: str,
) -> tuple[int, str]:
    """OOB switches by rack group (module docstring) and the convention that says so.

    ``rack_servers`` counts servers per compute rack; each server brings ``bmc_per_server``
    BMC ports and ``trays_per_server`` NVLink switch tray ports (a rack-scale system's).
    """
    field = "networks.oob.switches_per_rack"
    if not rack_servers:
        raise FabricError(
            f"{field}: the layout places no server in a rack, so there is no rack group; "
            "leave the field out to size the OOB switches by port count",
            field=field,
        )
    grouped = spare = switches = 0
    for racks, count in rack_groups(len(rack_servers), per_rack):
        need = sum(
            rack_servers[r] * (bmc_per_server + trays_per_server) + pdus_per_rack for r in racks
        )
        if need > count * rj45:
            names = (
                f"compute racks {racks.start + 1}-{racks.stop}"
                if len(racks) > 1
                else (f"compute rack {racks.start + 1}")
            )
            raise FabricError(
                f"{field}: {names} need {need} OOB ports, more than {count} x {leaf} with "
                f"{rj45} RJ45 ports each; give more switches per rack",
                field=field,
            )
        grouped += need
        spare += count * rj45 - need
        switches += count
    rest = ports - grouped
    extra = ceil_div(rest - spare, rj45) if rest > spare else 0
    shape = rack_group_shape(per_rack)
    group = f"{shape[1]} per compute rack" if shape[0] == 1 else f"1 per {shape[0]} compute racks"
    sizing = (
        f"OOB switches by rack group (spec field switches_per_rack = {per_rack}): {group} of "
        f"the layout's {len(rack_servers)}, in layout order = {switches}, each serving its "
        f"racks' {grouped} node BMC, NVLink switch tray and PDU ports; the other {rest} managed "
        f"ports (every network's switches, management and UFM nodes, management-rack PDUs, "
        f"storage appliances) take the groups' {spare} spare ports"
        + (f", and {extra} more switches ceil(({rest} - {spare}) / {rj45})" if extra else "")
        + " (inferred; switch_multiple is not applied)."
    )
    return switches + extra, sizing


__all__ = ["oob_network", "rack_groups"]
