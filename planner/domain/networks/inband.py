"""The in-band management network: leaf pairs (MLAG) under a core pair.

Rules (RA-11333-001 V11, "In-Band Management Network" and Table 8; the 6 leaves + 2 cores
reading of its 8 SN4600C is inferred, it reproduces 304 = 254 + 8 + 4 + 6 + 8 + 24):

- each node's ``ports_per_node`` ports (RA: 2, "operate at 100 Gbps and are bonded") are
  dual-homed to a leaf pair; a leaf takes ``radix - leaf_uplinks - ISL ports`` node ports,
  and the leaf count is rounded up to whole pairs;
- every leaf has ``leaf_uplinks`` links (RA 4) spread over ``cores`` cores (RA 2); each leaf
  pair has ``isl_per_pair`` ISL cables (RA 2); the core pair's own ISL is not counted;
- management nodes (``management_nodes`` x ``management_ports_per_node``), NFS storage links
  (``nfs_links``, RA 8) and uplinks to the customer's core (``uplinks``, RA 4 CWDM4 modules)
  land on the cores, and so do the OOB switches' uplinks (counted with the OOB network);
- ``cores`` unset: 2, or more when a pair cannot take every link (each leaf still reaching
  every core); when that needs more cores than a leaf has uplinks, pods of leaf pairs under
  their own spines (as many per pod as a leaf has uplinks) and the spines 1:1 under cores
  (:func:`planner.domain.networks.tiers.three_tiers`; inferred, for clusters of thousands of
  nodes).
"""

from __future__ import annotations

from dataclasses import replace

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import FabricError
from planner.domain.networks.common import (
    RA_H100,
    LinkGroup,
    NetworkPlan,
    SwitchGroup,
    ceil_div,
    find_part,
    is_ra_family,
    switch_ports,
)
from planner.domain.networks.tiers import three_tiers


def _ra_parts(facts: CatalogFacts) -> dict:
    aoc = find_part(facts, ("980-9I13N-00C030", "MFA1A00-C030"), "100G QSFP28 AOC, 30 m", "cable")
    return {
        "node": find_part(
            facts,
            ("980-9I440-00H030", "MFS1S00-H030V"),
            "200G QSFP56 AOC, 30 m (runs at 100G on the switch's QSFP28 port)",
            "cable",
        ),
        "aoc": aoc,
        "dc": find_part(
            facts,
            ("980-9I17Q-00CM00",),
            "100G QSFP28 CWDM4 module (the fibre to the customer's core is not counted)",
            "transceiver",
        ),
        "isl": find_part(
            facts, ("980-9I54C-00V001",), "100G QSFP28 passive copper cable (DAC), 1 m", "cable"
        ),
    }


def inband_network(
    values: dict,
    shared: dict,
    hosts: int,
    server: str,
    facts: CatalogFacts,
    *,
    oob_uplinks: int = 0,
) -> NetworkPlan:
    """The in-band management network (see the module docstring); RA: 8 SN4600C, 304 cables.

    Raises
    ------
    FabricError
        A switch without enough ports at the speed, naming ``networks.inband.<field>``.

    Long because: the sizing steps (leaves, pairs, cores, uplinks) share many intermediate
    counts that a split would pass as arguments; its link groups and conventions are functions
    of their own.
    """
    where = "networks.inband"
    leaf, core = values["leaf"], values.get("core") or values["leaf"]
    speed = values.get("speed_gbps")
    if speed is None:
        device = facts.devices.get(leaf)
        speed = device.port_speed_gbps if device else None
        if not speed:
            raise FabricError(
                f"{where}.speed_gbps: required (the catalog gives no port speed for {leaf!r})",
                field=f"{where}.speed_gbps",
            )
    radix, _ = switch_ports(facts, leaf, speed, f"{where}.leaf")
    core_radix, _ = switch_ports(facts, core, speed, f"{where}.core")
    dual = bool(values.get("dual_homed"))
    leaf_uplinks = int(values["leaf_uplinks"])
    isl = int(values["isl_per_pair"]) if dual else 0
    cores_given = values.get("cores")
    cores = int(cores_given or 2)
    node_ports = hosts * int(values["ports_per_node"])
    down_cap = radix - leaf_uplinks - isl
    if down_cap < 1:
        raise FabricError(
            f"{where}.leaf_uplinks: {leaf} has {radix} ports, no room for nodes after "
            f"{leaf_uplinks} uplinks and {isl} ISL ports",
            field=f"{where}.leaf_uplinks",
        )
    leaves = ceil_div(node_ports, down_cap) if node_ports else 0
    if dual and leaves:
        leaves = max(2, leaves + leaves % 2)
    mgmt = int(shared["management_nodes"]) * int(values["management_ports_per_node"])
    nfs = int(values.get("nfs_links") or 0)
    dc = int(values.get("uplinks") or 0)
    leaf_core = leaves * leaf_uplinks
    isl_cables = (leaves // 2) * isl
    core_extra = mgmt + nfs + dc + oob_uplinks  # the OOB uplinks: counted with the OOB network
    pods: list[int] = []
    spine_used: list[int] = []
    core_ports: list[int] = []
    core_groups: list[int] = []
    if not cores_given and leaf_core + core_extra > cores * core_radix:
        needed = ceil_div(leaf_core + core_extra, core_radix)
        if needed <= leaf_uplinks:  # more cores, still two tiers
            cores = needed
        else:  # pods of leaf pairs under spines, the spines under cores
            pods, _, spine_used, core_ports, core_groups = three_tiers(
                where,
                "in-band",
                [leaf_uplinks] * leaves,
                core_extra,
                core,
                core_radix,
                unit=2 if dual else 1,
            )
            cores = len(core_ports)
    if leaves and not pods and leaf_uplinks < cores:
        raise FabricError(
            f"{where}.leaf_uplinks: {leaf_uplinks} uplinks cannot reach {cores} cores",
            field=f"{where}.leaf_uplinks",
        )
    spine_core = sum(spine_used) // 2
    core_used = (spine_core if pods else leaf_core) + core_extra
    if core_used > cores * core_radix:
        raise FabricError(
            f"{where}.core: {cores} {core} cores of {core_radix} ports cannot take {core_used} "
            "links (leaves, management nodes, NFS, customer uplinks); add cores",
            field=f"{where}.core",
        )
    use_ra_parts = is_ra_family(server) and leaf == core == "SN4600C" and speed == 100
    parts = _ra_parts(facts) if use_ra_parts else {}
    links = _link_groups(
        server=server,
        speed=speed,
        parts=parts,
        dual=dual,
        node_ports=node_ports,
        mgmt=mgmt,
        dc=dc,
        isl_cables=isl_cables,
        nfs=nfs,
        pods=pods,
        leaf_uplinks=leaf_uplinks,
        leaf_core=leaf_core,
        spine_core=spine_core,
    )
    switches = []
    if leaves:
        switches.append(
            SwitchGroup("leaf", leaf, leaves, node_ports + leaf_core + 2 * isl_cables, radix)
        )
    if spine_used:
        switches.append(SwitchGroup("spine", core, len(spine_used), sum(spine_used), core_radix))
    if cores:
        switches.append(SwitchGroup("core", core, cores, core_used, core_radix))
    conventions = _conventions(
        values=values,
        shared=shared,
        speed=speed,
        dual=dual,
        use_ra_parts=use_ra_parts,
        radix=radix,
        leaf_uplinks=leaf_uplinks,
        isl=isl,
        leaves=leaves,
        cores=cores,
        nfs=nfs,
        dc=dc,
    )
    return NetworkPlan(
        name="inband",
        switches=tuple(switches),
        link_groups=tuple(group for group in links if group.links),
        endpoints=(
            ("nodes", hosts),
            ("node ports", node_ports),
            ("management nodes", int(shared["management_nodes"])),
            ("NFS storage links", nfs),
            ("customer uplinks", dc),
        ),
        conventions=tuple(conventions),
        settings={
            **values,
            "speed_gbps": speed,
            "leaves": leaves,
            "cores": cores,
            **(
                {"pods": pods, "spines_per_pod": leaf_uplinks, "core_groups": core_groups}
                if pods
                else {}
            ),
        },
    )


def _link_groups(
    *,
    server: str,
    speed: int,
    parts: dict,
    dual: bool,
    node_ports: int,
    mgmt: int,
    dc: int,
    isl_cables: int,
    nfs: int,
    pods: list[int],
    leaf_uplinks: int,
    leaf_core: int,
    spine_core: int,
) -> list[LinkGroup]:
    """The in-band link groups (nodes, management nodes, customer uplinks, ISLs, NFS, leaf
    uplinks, spine-core), empty ones included (the caller leaves them out).

    Long because: one LinkGroup literal of nine fields per kind of link (seven kinds).
    """
    links = [
        LinkGroup(
            "node-leaf",
            f"{server} in-band port",
            "leaf",
            node_ports,
            speed,
            "AOC",
            node_ports,
            parts.get("node"),
            "bonded pair per node, dual-homed to a leaf pair" if dual else "",
        ),
        LinkGroup(
            "management-core",
            "management node port",
            "core",
            mgmt,
            speed,
            "AOC",
            mgmt,
            parts.get("aoc"),
        ),
        LinkGroup(
            "core-customer",
            "core",
            "customer's core",
            dc,
            speed,
            "CWDM4 module",
            dc,
            parts.get("dc"),
            "counted as a cable, as the RA does; the fibre is the customer's",
        ),
        LinkGroup(
            "leaf-isl",
            "leaf",
            "leaf (its pair)",
            isl_cables,
            speed,
            "DAC",
            isl_cables,
            parts.get("isl"),
        ),
        LinkGroup("nfs-core", "NFS storage port", "core", nfs, speed, "AOC", nfs, parts.get("aoc")),
        LinkGroup(
            "leaf-spine" if pods else "leaf-core",
            "leaf",
            "spine" if pods else "core",
            leaf_core,
            speed,
            "AOC",
            leaf_core,
            parts.get("aoc"),
        ),
        LinkGroup(
            "spine-core",
            "spine",
            "core",
            spine_core,
            speed,
            "AOC",
            spine_core,
            parts.get("aoc"),
            f"three tiers: {len(pods)} pods of up to {max(pods, default=0)} leaves under "
            f"{leaf_uplinks} spines each, every spine 1:1 to the cores",
        ),
    ]
    return links


def _conventions(
    *,
    values: dict,
    shared: dict,
    speed: int,
    dual: bool,
    use_ra_parts: bool,
    radix: int,
    leaf_uplinks: int,
    isl: int,
    leaves: int,
    cores: int,
    nfs: int,
    dc: int,
) -> list[str]:
    """How the in-band network was sized and counted, in words, with its figures."""
    conventions = [
        f"Each node's {values['ports_per_node']} in-band ports are bonded"
        + (" and dual-homed to a leaf pair (MLAG)" if dual else "")
        + f", at {speed}G"
        + (
            "; the RA's DGX cable is a 200G QSFP56 AOC running at 100G on QSFP28 ports."
            if use_ra_parts
            else "."
        ),
        f"Leaves: node ports / ({radix} - {leaf_uplinks} uplinks - {isl} ISL ports) = "
        f"{leaves}" + (", rounded up to whole pairs" if dual else "") + f"; each leaf has "
        f"{leaf_uplinks} uplinks spread over {cores} cores; {isl} ISL cables per leaf pair; "
        "the core pair's own ISL is not counted (RA Table 8: 6 ISL = 3 pairs x 2).",
        f"On the cores: management nodes ({shared['management_nodes']} x "
        f"{values['management_ports_per_node']}), NFS storage links ({nfs}; spec field "
        f"nfs_links, RA 8) and uplinks to the customer's core ({dc}; spec field uplinks, RA 4 "
        "CWDM4 modules, counted as cables as the RA does).",
        "The OOB switches' uplinks land on the cores too; they are counted with the OOB "
        "network (RA Table 8).",
        "Every link is an AOC or DAC: no transceivers are counted besides the CWDM4 modules.",
    ]
    if use_ra_parts:
        conventions.append(f"Parts as printed in {RA_H100} (in-band Ethernet cables).")
    else:
        conventions.append(
            "Parts are not chosen for this network (the reference parts are the H100 "
            "SuperPOD's SN4600C at 100G): cables are counted per link by kind."
        )
    return conventions


def take_core_ports(plan: NetworkPlan, ports: int, *, field: str) -> NetworkPlan:
    """``plan`` with ``ports`` more used on its cores (the OOB uplinks), or a
    :class:`FabricError` naming ``field`` when the cores have not that many free."""
    groups = list(plan.switches)
    for index, group in enumerate(groups):
        if group.role != "core":
            continue
        free = group.count * group.ports_each - group.ports_used
        if ports > free:
            raise FabricError(
                f"{field}: {ports} OOB uplinks do not fit the in-band cores' {free} free "
                "ports; fewer OOB uplinks, or more in-band cores (networks.inband.cores)",
                field=field,
            )
        groups[index] = replace(group, ports_used=group.ports_used + ports)
        return replace(plan, switches=tuple(groups))
    return plan


__all__ = ["inband_network", "take_core_ports"]
