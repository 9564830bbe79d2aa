"""The storage fabric: node leaves, storage leaves and spines (NVIDIA DGX SuperPOD H100 style).

Rules (RA-11333-001 V11, "Storage Fabric" and Table 8; the split of its 16 QM9700 into 8
node leaves + 4 storage leaves + 4 spines is inferred, it reproduces every Table 8 count):

- node leaves: each node's ``ports_per_node`` storage ports at ``speed_gbps``; a leaf takes at
  most ``floor(radix * r / (1 + r))`` node ports for the downlink:uplink ratio
  ``r = oversubscription`` (RA: "near 4:3"), filled leaf by leaf, the port-0s of every node
  first, so a node's ports land on different leaves (dual-homed); each node leaf takes
  ``ceil(ports of the fullest leaf / r)`` uplinks;
- storage leaves (``storage_leaves``; RA default 4, otherwise the fewest that fit): the
  storage arrays' ``storage_ports`` at ``storage_port_speed_gbps`` (RA 96 x 200G), connected
  1:1 in bandwidth ("storage devices are connected at a 1:1 port to uplink ratio"); a port
  slower than the fabric's is one leg of a 2 x 200G AOC splitter from a twin-port cage;
- management nodes (``management_nodes`` x ``management_ports_per_node``, RA 4 x 2 at 200G)
  and UFM appliances (``ufm_appliances``, RA 2, two 200G ports each on one 1:2 cable) land on
  the storage leaves (the node leaves when there are none);
- spines: the fewest, at least 2, whose ports take every leaf uplink, each leaf spread evenly;
- three tiers when a leaf's uplinks cannot reach that many spines (a cluster of thousands of
  nodes): pods of leaves under their own spines, the spines 1:1 under cores
  (:func:`planner.domain.networks.tiers.three_tiers`, inferred: the standard folded Clos).
"""

from __future__ import annotations

from fractions import Fraction

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import FabricError
from planner.domain.networks.bandwidth import (
    RA_READ_GBYTES_PER_NODE,
    RA_READ_SOURCE,
    read_bandwidth,
)
from planner.domain.networks.common import (
    RA_H100,
    LinkGroup,
    NetworkPlan,
    PartCount,
    SwitchGroup,
    cages,
    ceil_div,
    find_part,
    is_ra_family,
    spread,
    switch_ports,
)
from planner.domain.networks.tiers import three_tiers

MIN_SPINES = 2


def _ra_parts(facts: CatalogFacts) -> dict:
    """The storage fabric's parts in RA-11333-001 V11 Table 8 (printed part number first)."""
    return {
        "fiber": find_part(
            facts,
            ("980-9I570-00N030", "MFP7E10-N030"),
            "NDR 400G multimode fibre, MPO-12/APC, 30 m",
            "fiber",
        ),
        "splitter": find_part(
            facts,
            ("980-9I117-00H030", "MFA7U10-H030"),
            "AOC splitter, twin-port 400G OSFP to 2 x 200G QSFP56, 30 m",
            "cable",
        ),
        "ufm": find_part(
            facts, ("980-9I557-00N030",), "NDR 200G cable, UFM to leaf, 30 m", "fiber"
        ),
        "switch_optic": find_part(
            facts,
            ("980-9I510-00NS00", "MMA4Z00-NS"),
            "twin-port 2 x 400G SR4 OSFP transceiver (finned), switch side",
            "transceiver",
        ),
        "node_optic": find_part(
            facts,
            ("980-9I693-00NS00", "MMA1Z00-NS400"),
            "400G QSFP112 SR4 transceiver, node side",
            "transceiver",
        ),
        "ufm_optic": find_part(
            facts,
            ("980-9I51S-00NS00", "MMA4Z00-NS400"),
            "400G single-port OSFP SR4 transceiver, UFM side",
            "transceiver",
        ),
    }


def leaf_spine_network(
    name: str,
    values: dict,
    shared: dict,
    hosts: int,
    server: str,
    facts: CatalogFacts,
) -> NetworkPlan:
    """A two-tier leaf-spine network for storage (or a converged storage + in-band fabric).

    Parameters
    ----------
    name : str
        ``storage`` or ``converged``: the spec block, named in errors (``networks.<name>.*``).
    values : dict
        The block's settings with defaults (``common.resolve_settings``).
    shared : dict
        ``management_nodes``, ``ufm_appliances``, ``management_racks``.
    hosts : int
        Nodes with storage ports (a rack-scale system counts each compute tray).
    server : str
        The server slug (the RA's parts apply to DGX-H100/H200 on QM9700 at 400G).
    facts : CatalogFacts
        Switch ports and part records.

    Raises
    ------
    FabricError
        A switch without enough ports or speed, or a fabric that needs a third tier; ``field``
        names the setting, e.g. ``networks.storage.leaf``.

    Long because: node leaves, storage leaves, spines, parts and read bandwidth share some twenty
    intermediate counts; its link groups, spine ports and conventions are already functions of their
    own.
    """
    where = f"networks.{name}"
    leaf, spine = values["leaf"], values.get("spine") or values["leaf"]
    speed = values.get("speed_gbps")
    if speed is None:
        device = facts.devices.get(leaf)
        speed = device.port_speed_gbps if device else None
        if not speed:
            raise FabricError(
                f"{where}.speed_gbps: required (the catalog gives no port speed for {leaf!r})",
                field=f"{where}.speed_gbps",
            )
    radix, per_cage = switch_ports(facts, leaf, speed, f"{where}.leaf")
    spine_radix, spine_cage = switch_ports(facts, spine, speed, f"{where}.spine")
    ratio: Fraction = values["oversubscription"]
    use_ra_parts = (
        name == "storage" and is_ra_family(server) and leaf == spine == "QM9700" and speed == 400
    )
    parts = _ra_parts(facts) if use_ra_parts else {}

    # node leaves
    node_ports = hosts * int(values["ports_per_node"])
    down_cap = int(Fraction(radix) * ratio / (1 + ratio))
    node_leaves = ceil_div(node_ports, down_cap) if node_ports else 0
    if values.get("dual_homed") and values["ports_per_node"] >= 2 and node_ports:
        node_leaves = max(node_leaves, 2)
    loads = spread(node_ports, node_leaves)
    fullest = max(loads, default=0)
    node_up = ceil_div(fullest, ratio) if fullest else 0

    # storage arrays, management nodes, UFM
    storage_ports = int(values.get("storage_ports") or 0)
    storage_speed = int(values.get("storage_port_speed_gbps") or speed)
    if storage_speed > speed:
        raise FabricError(
            f"{where}.storage_port_speed_gbps: {storage_speed}G is faster than the fabric's "
            f"{speed}G ports",
            field=f"{where}.storage_port_speed_gbps",
        )
    storage_split = storage_speed < speed  # a leg of a splitter from one cage
    legs_per_cable = max(per_cage, 2)
    storage_switch_ports = (
        storage_ports if per_cage > 1 or not storage_split else ceil_div(storage_ports, 2)
    )
    storage_up_total = ceil_div(storage_ports * storage_speed, speed) if storage_ports else 0
    mgmt_links = int(shared["management_nodes"]) * int(values["management_ports_per_node"])
    mgmt_cables = ceil_div(mgmt_links, legs_per_cable) if mgmt_links else 0
    ufm = int(values.get("ufm_appliances") or 0)
    extra_ports = (mgmt_cables + ufm) * per_cage  # one cage per splitter / UFM cable

    storage_leaves = values.get("storage_leaves")
    if storage_ports and storage_leaves is None:
        storage_leaves = 1
        while True:
            used = (
                ceil_div(storage_switch_ports, storage_leaves)
                + ceil_div(storage_up_total, storage_leaves)
                + ceil_div(extra_ports, storage_leaves)
            )
            if used <= radix or storage_leaves > storage_ports:
                break
            storage_leaves += 1
    storage_leaves = int(storage_leaves or 0) if storage_ports else 0
    storage_loads = spread(storage_switch_ports, storage_leaves)
    storage_up = ceil_div(storage_up_total, storage_leaves) if storage_leaves else 0
    host_leaves = storage_leaves or node_leaves
    extra_each = ceil_div(extra_ports, host_leaves) if host_leaves and extra_ports else 0
    if storage_leaves and max(storage_loads) + storage_up + extra_each > radix:
        raise FabricError(
            f"{where}.storage_leaves: {storage_leaves} {leaf} leaves cannot take "
            f"{storage_ports} storage ports, their {storage_up_total} uplinks and the "
            "management/UFM cables; give more storage leaves",
            field=f"{where}.storage_leaves",
        )
    if node_leaves and fullest + node_up + (0 if storage_leaves else extra_each) > radix:
        raise FabricError(
            f"{where}.leaf: {leaf} has {radix} ports at {speed}G, fewer than a leaf's "
            f"{fullest} node ports + {node_up} uplinks",
            field=f"{where}.leaf",
        )

    # spines
    leaf_uplinks = [node_up] * node_leaves + [storage_up] * storage_leaves
    leaf_count = node_leaves + storage_leaves
    total_up = sum(leaf_uplinks)
    customer_uplinks = int(values.get("uplinks") or 0)
    spine_ports: list[int] = []
    core_ports: list[int] = []
    pods: list[int] = []  # leaves per pod (three tiers only)
    spines_per_pod = 0
    core_groups: list[int] = []
    if leaf_count > 1 and total_up:
        pods, spines_per_pod, spine_ports, core_ports, core_groups = _spine_ports(
            where,
            name,
            leaf_uplinks,
            customer_uplinks,
            spine,
            spine_radix,
            values.get("spines"),
        )
    elif total_up:  # a single leaf: nothing to uplink to inside the fabric
        leaf_uplinks = [0] * leaf_count
        node_up = storage_up = total_up = 0

    switches = []
    if node_leaves:
        switches.append(
            SwitchGroup("leaf", leaf, node_leaves, sum(loads) + node_up * node_leaves, radix)
        )
    if storage_leaves:
        switches.append(
            SwitchGroup(
                "storage-leaf",
                leaf,
                storage_leaves,
                storage_switch_ports + storage_up * storage_leaves + extra_ports,
                radix,
            )
        )
    if spine_ports:
        switches.append(
            SwitchGroup("spine", spine, len(spine_ports), sum(spine_ports), spine_radix)
        )
    if core_ports:
        switches.append(SwitchGroup("core", spine, len(core_ports), sum(core_ports), spine_radix))

    optical = bool(parts)
    node_kind = "MMF" if optical else "not chosen"
    links = _link_groups(
        server=server,
        dual_homed=bool(values.get("dual_homed")),
        speed=speed,
        node_kind=node_kind,
        parts=parts,
        node_ports=node_ports,
        total_up=total_up,
        core_ports=core_ports,
        pods=pods,
        spines_per_pod=spines_per_pod,
        storage_ports=storage_ports,
        storage_speed=storage_speed,
        storage_split=storage_split,
        legs_per_cable=legs_per_cable,
        storage_leaves=storage_leaves,
        ufm=ufm,
        mgmt_links=mgmt_links,
        mgmt_cables=mgmt_cables,
    )

    counted: list[PartCount] = []
    if optical:
        switch_cages = (
            cages(loads, per_cage)
            + cages(leaf_uplinks, per_cage)
            + cages(spine_ports, spine_cage)
            + cages(core_ports, spine_cage)
            + (0 if storage_split else cages(storage_loads, per_cage))
            + ufm
        )
        counted = [
            PartCount(
                parts["switch_optic"],
                "switch",
                switch_cages,
                "transceiver",
                "used cage with a fibre link (node-facing leaf cages, leaf uplink cages, spine "
                "cages, one per UFM cable); AOC splitters need none",
            ),
            PartCount(parts["node_optic"], "node", node_ports, "transceiver", "node storage port"),
        ]
        if ufm:
            counted.append(PartCount(parts["ufm_optic"], "ufm", 2 * ufm, "transceiver", "UFM port"))

    conventions = _conventions(
        ratio=ratio,
        down_cap=down_cap,
        fullest=fullest,
        node_up=node_up,
        speed=speed,
        storage_up_total=storage_up_total,
        storage_leaves=storage_leaves,
        optical=optical,
    )
    endpoints = (
        ("nodes", hosts),
        ("node ports", node_ports),
        ("storage-array ports", storage_ports),
        ("management nodes", int(shared["management_nodes"])),
        ("UFM appliances", ufm),
    )
    asked = values.get("read_gbytes_per_node")
    bandwidth = None
    try:
        bandwidth = hosts and read_bandwidth(
            network=name,
            hosts=hosts,
            ports_per_node=int(values["ports_per_node"]),
            speed_gbps=speed,
            leaf_loads=loads,
            node_uplinks=node_up,
            storage_ports=storage_ports,
            storage_port_speed_gbps=storage_speed,
            storage_uplinks=storage_up * storage_leaves,
            asked_gbytes_per_node=asked,
            readers=values.get("concurrent_readers") or "all",
            even_uplinks=not spine_ports
            or all(up % (spines_per_pod or len(spine_ports)) == 0 for up in leaf_uplinks if up),
            source=(
                RA_READ_SOURCE
                if name == "storage" and is_ra_family(server) and asked == RA_READ_GBYTES_PER_NODE
                else f"spec field {where}.read_gbytes_per_node"
            ),
        )
    except ValueError as exc:
        raise FabricError(
            f"{where}.concurrent_readers: {exc}", field=f"{where}.concurrent_readers"
        ) from None
    conventions.append(
        "Read bandwidth per node: every reading node reads from every storage-array port; "
        "the smallest of node ports, node-leaf uplinks (shared by the reading ports on each "
        "leaf), storage-leaf uplinks and storage-array ports (both shared by the readers) "
        "is what it gets. GB/s = Gb/s / 8 (line rate; protocol overhead not modelled)."
    )
    return NetworkPlan(
        name=name,
        switches=tuple(switches),
        link_groups=tuple(links),
        parts=tuple(counted),
        endpoints=endpoints,
        conventions=tuple(conventions),
        settings={
            **values,
            "speed_gbps": speed,
            "storage_leaves": storage_leaves,
            **(
                {
                    "pods": pods,
                    "spines_per_pod": spines_per_pod,
                    "core_groups": core_groups,
                    "storage_uplinks_each": storage_up,
                }
                if pods
                else {}
            ),
        },
        bandwidth=bandwidth or None,
    )


def _spine_ports(
    where: str,
    name: str,
    leaf_uplinks: list[int],
    customer_uplinks: int,
    spine: str,
    spine_radix: int,
    given: int | None,
) -> tuple[list[int], int, list[int], list[int], list[int]]:
    """Ports used on each spine (and core) for the leaves' uplinks and the customer uplinks.

    The fewest spines, at least ``MIN_SPINES``, whose ports take every uplink, each leaf's
    uplinks going round them from where the previous leaf stopped (``given``: the spec's
    ``spines``, which is kept or refused); when a leaf has fewer uplinks than spines, three
    tiers (:func:`three_tiers`). Returns ``(pods, spines_per_pod, spine_ports, core_ports,
    core_groups)``; ``pods`` is empty for two tiers.
    """
    total_up = sum(leaf_uplinks)
    spine_ports: list[int] = []
    core_ports: list[int] = []
    pods: list[int] = []  # leaves per pod (three tiers only)
    spines_per_pod = 0
    core_groups: list[int] = []
    spines = given or max(MIN_SPINES, ceil_div(total_up + customer_uplinks, spine_radix))
    if min(u for u in leaf_uplinks if u) < spines and not given:
        pods, spines_per_pod, spine_ports, core_ports, core_groups = three_tiers(
            where, name, leaf_uplinks, customer_uplinks, spine, spine_radix
        )
    while not pods:
        if min(u for u in leaf_uplinks if u) < spines:
            raise FabricError(
                f"{where}.spines: {spines} {spine} spines are more than a leaf's "
                f"{min(leaf_uplinks)} uplinks reach",
                field=f"{where}.spines",
            )
        spine_ports = [0] * spines
        offset = 0
        for up in leaf_uplinks:
            for k in range(up):
                spine_ports[(offset + k) % spines] += 1
            offset += up
        for k in range(customer_uplinks):
            spine_ports[k % spines] += 1
        if max(spine_ports) <= spine_radix:
            break
        if given:
            raise FabricError(
                f"{where}.spines: {spines} spines of {spine_radix} ports cannot take "
                f"{total_up + customer_uplinks} uplinks",
                field=f"{where}.spines",
            )
        spines += 1
    return pods, spines_per_pod, spine_ports, core_ports, core_groups


def _link_groups(
    *,
    server: str,
    dual_homed: bool,
    speed: int,
    node_kind: str,
    parts: dict,
    node_ports: int,
    total_up: int,
    core_ports: list[int],
    pods: list[int],
    spines_per_pod: int,
    storage_ports: int,
    storage_speed: int,
    storage_split: bool,
    legs_per_cable: int,
    storage_leaves: int,
    ufm: int,
    mgmt_links: int,
    mgmt_cables: int,
) -> list[LinkGroup]:
    """The network's link groups (node, leaf-spine, spine-core, storage-array, UFM and
    management-node links), those without links left out.

    Long because: one LinkGroup literal of nine fields per kind of link (six kinds).
    """
    links = [
        LinkGroup(
            "node-leaf",
            f"{server} storage port",
            "leaf",
            node_ports,
            speed,
            node_kind,
            node_ports,
            parts.get("fiber"),
            "each node's ports on different leaves (dual-homed)" if dual_homed else "",
        ),
        LinkGroup(
            "leaf-spine",
            "leaf / storage leaf",
            "spine",
            total_up,
            speed,
            node_kind,
            total_up,
            parts.get("fiber"),
        ),
    ]
    if core_ports:
        links.append(
            LinkGroup(
                "spine-core",
                "spine",
                "core",
                sum(core_ports),
                speed,
                node_kind,
                sum(core_ports),
                parts.get("fiber"),
                f"three tiers: {len(pods)} pods of up to {max(pods)} leaves under "
                f"{spines_per_pod} spines each, every spine 1:1 to the cores",
            )
        )
    if storage_ports:
        cables = ceil_div(storage_ports, legs_per_cable) if storage_split else storage_ports
        links.append(
            LinkGroup(
                "storage-leaf",
                "storage-array port",
                "storage leaf",
                storage_ports,
                storage_speed,
                f"AOC splitter 1:{legs_per_cable}" if storage_split else node_kind,
                cables,
                parts.get("splitter") if storage_split else parts.get("fiber"),
                "counted once per splitter for its legs" if storage_split else "",
            )
        )
    if ufm:
        links.append(
            LinkGroup(
                "ufm-leaf",
                "UFM appliance port",
                "storage leaf" if storage_leaves else "leaf",
                2 * ufm,
                speed // 2,
                "fibre 1:2" if node_kind != "not chosen" else "not chosen",
                ufm,
                parts.get("ufm"),
                "one cable per UFM appliance, from one leaf cage to its two ports",
            )
        )
    if mgmt_links:
        links.append(
            LinkGroup(
                "management-leaf",
                "management node port",
                "storage leaf" if storage_leaves else "leaf",
                mgmt_links,
                speed // 2,
                f"AOC splitter 1:{legs_per_cable}",
                mgmt_cables,
                parts.get("splitter"),
                "one 2 x 200G splitter per management node (RA: 'Slurm management')",
            )
        )
    return [group for group in links if group.links]


def _conventions(
    *,
    ratio: Fraction,
    down_cap: int,
    fullest: int,
    node_up: int,
    speed: int,
    storage_up_total: int,
    storage_leaves: int,
    optical: bool,
) -> list[str]:
    """How the network was sized and counted, in words, with this network's figures."""
    ratio_text = f"{ratio.numerator}:{ratio.denominator}"
    conventions = [
        f"Node leaves take at most floor(radix x r / (1 + r)) = {down_cap} node ports for "
        f"downlink:uplink r = {ratio_text}, filled leaf by leaf (the port-0s of every node "
        f"first, so a node's ports land on different leaves); each takes ceil({fullest} / r) = "
        f"{node_up} uplinks.",
        "Storage-array ports are connected 1:1 in bandwidth: ceil(ports x port speed / "
        f"{speed}G) = {storage_up_total} storage-leaf uplinks.",
        f"Storage leaves: {storage_leaves} (spec field storage_leaves; the RA's 16 storage "
        "switches read as 8 node leaves + 4 storage leaves + 4 spines, an inference: 3 storage "
        "leaves would fit by ports).",
        f"Spines: the fewest, at least {MIN_SPINES}, whose ports take every leaf uplink, each "
        "leaf spread evenly over them.",
        "Cables are counted per assembly: one per 400G fibre link, one per AOC splitter for "
        "its two 200G legs (storage arrays, management nodes), one per UFM 1:2 cable for the "
        "appliance's two ports.",
    ]
    if optical:
        conventions.append(
            "Switch transceivers are counted per used cage (a twin-port OSFP cage carries two "
            "400G links), only cages with a fibre: node-facing leaf cages, leaf uplink cages, "
            "spine cages, plus one per UFM cable; splitter AOCs plug in without one (RA Table 8 "
            "counts 369 switch transceivers, not every cage). One transceiver per node storage "
            "port and per UFM port."
        )
        conventions.append(f"Parts as printed in {RA_H100} (storage InfiniBand cables).")
    else:
        conventions.append(
            "Parts are not chosen for this network (the reference parts are the H100 "
            "SuperPOD's QM9700 400G storage fabric): cables are counted per link, "
            "transceivers are not counted."
        )
    conventions.append(
        "The storage appliances' own cables and transceivers ('Varies' in RA Table 8) are "
        "not counted."
    )
    return conventions


def storage_network(values, shared, hosts, server, facts) -> NetworkPlan:
    """The storage fabric (see the module docstring); RA: 16 QM9700 for 127 DGX H100."""
    return leaf_spine_network("storage", values, shared, hosts, server, facts)


__all__ = ["leaf_spine_network", "storage_network"]
