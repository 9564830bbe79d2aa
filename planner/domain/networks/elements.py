"""The cluster networks as concrete devices and links (issue 18).

:func:`planner.domain.networks.cluster_networks` sizes the storage, converged, in-band and
out-of-band networks as counts (``fabric.settings.networks``: switch groups, link groups,
parts). :func:`cluster_elements` expands those counts into named devices and port-to-port
links, deterministically, from the fabric alone, by the generators' own rules:

Storage and converged (:mod:`~planner.domain.networks.storage`)
    - node ports fill the node leaves leaf by leaf (``common.spread``: ``ceil(ports /
      leaves)`` each), the port-0s of every node first, then the port-1s, so that a
      dual-homed node's ports land on different leaves; a leaf's node ports take its lowest
      ports, its uplinks its highest whole cages;
    - every leaf's uplinks go round the spines, the next leaf starting where the previous one
      stopped (the generator's count of spine ports); a spine's ports are taken in leaf order;
    - storage-array ports land on the storage leaves, one cable after another, the cables
      spread evenly (``spread``); a port slower than the fabric's is a leg of a splitter
      (``assembly``, ``leg``) that takes one whole cage of a storage leaf;
    - management-node splitters, then UFM cables (one per appliance, its two ports as legs
      of one cage), go round the storage leaves (the node leaves when there are none), one
      cage each (inferred: round-robin, so that redundant appliances land on different
      leaves; it keeps the generator's ``ceil(cables / leaves)`` per leaf);
    - a converged fabric's customer uplinks leave the spines in turn (the leaves without
      spines).

In-band (:mod:`~planner.domain.networks.inband`)
    - dual-homed: leaves form pairs (``inb-leaf-01``/``-02``, ...); nodes are spread evenly
      over the pairs (``spread``; filled pair by pair to the leaf's capacity when an even
      spread would not fit) and a node's ports alternate between the pair's two leaves; not
      dual-homed: filled leaf by leaf as storage;
    - a leaf's ports: nodes from port 1, then its ``leaf_uplinks`` uplinks, then its ISL ports
      on the highest ports (inferred); uplink ``k`` of a leaf goes to core ``k mod cores``;
    - management nodes, NFS links and customer uplinks go round the cores in turn, and so do
      the OOB switches' uplinks; a core's ports are taken in that order (inferred).

Out-of-band (:mod:`~planner.domain.networks.oob`)
    - the managed ports in the generator's order (node BMCs, compute fabric switches, the
      other networks' switches, management and UFM nodes, PDUs, NVLink switch trays, storage
      appliance management ports) fill the OOB switches switch by switch (``spread``: ``ceil
      (ports / switches)`` each); the RJ45 ports are numbered from 1, the uplinks after them
      (an SN2201's 48 RJ45 then its QSFP28 ports 49-52);
    - by rack group (``networks.oob.switches_per_rack``, :func:`~planner.domain.networks.oob.
      rack_groups`): the compute racks in layout order form the generator's groups; a group's
      switches (named in group order, ``oob-01`` first) take its racks' ports (BMCs, NVLink
      switch trays, PDUs) spread evenly over them; every other managed port (switches of every
      network, management and UFM nodes, management-rack PDUs, storage appliances) then fills
      the spare ports switch by switch in that order, the generator's extra switches last;
    - the UFM back-to-back cable joins the two appliances of a pair directly (port ``ha``);
      the generator also reserves an OOB switch port for it (its switch count is unchanged),
      here it is not patched to a switch (inferred from the RA's "UFM back-to-back" row);
    - each OOB switch's uplinks go to the in-band cores in turn (the converged spines when
      there is no in-band network, a ``customer-core`` endpoint otherwise).

Devices and racks (inferred placement rule)
    Compute servers and switches keep their fabric names, racks and RUs. A rack-scale
    system's compute trays have their own ports, named by tray (``tray03/stor1``); its NVLink
    switch trays' management ports likewise (``nvsw02/mgmt``). The spec's management racks
    (``networks.management_racks``, RA 6) become racks ``MGMT-01``...; they hold, in order,
    the storage, converged and in-band switches, the UFM appliances and the management
    nodes, spread evenly over them (``spread``) and stacked from U1 by catalog height (1 U
    when unknown) up to the layout's usable rack units. Without management racks these
    devices have no rack. An OOB switch goes where its managed ports are: into the rack that
    holds most of the devices it serves (the first such rack on a tie; a rack group's switch
    only into its group's racks), in the top 2 U the layout leaves for top-of-rack management
    gear (at most two per rack; the next best rack when full). PDUs belong to their rack (no
    RU: 0 U). Storage arrays, NFS storage and the customer's core are endpoints outside the
    plan (no rack).

Run lengths
    The management racks take a row of their own after the layout's last row, centred
    (inferred; :mod:`planner.domain.networks.lengths`, ``ClusterElements.rack_places``), and
    every link whose two ends have a rack gets ``run_length_m`` by the layout's own run rule
    with the distances kept in ``fabric.settings.layout`` (:func:`planner.domain.layout.
    run_lengths_m`); links to endpoints outside the plan (storage arrays, NFS, the
    customer's core) keep None.

Media
    Links whose group was sized without a part get the media chosen for them by length when
    the design was built (:func:`planner.domain.networks.media.apply_network_media`, from the
    options kept with the link group): ``cable_part``, ``cable_kind`` and, for optics, a
    transceiver per end.

Nothing here imports Django.
"""

from __future__ import annotations

from dataclasses import replace

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric
from planner.domain.networks.common import ceil_div, spread
from planner.domain.networks.lengths import management_rack_places, with_run_lengths
from planner.domain.networks.media import apply_network_media

from .element_management import _inband, _oob, _pdus, _place_management, _place_oob, _shared
from .element_parts import (
    ELEMENT_NETWORKS,
    MANAGEMENT_RACK,
    PORT_PREFIX,
    ClusterElements,
    _Builder,
    _endpoint,
    _Hosts,
    _management_node,
    _pod_links,
    _ports,
    _side_parts,
    _switches,
    _ufm,
    port_name,
)

# --------------------------------------------------------------------------------------------
# building


def _leaf_spine(b: _Builder, network: str, plan: dict, hosts: _Hosts, shared: dict) -> None:
    """A storage or converged network's switches and links (rules in the module docstring).

    The steps (node ports, storage-array ports, splitters and UFM cables, uplinks) are
    functions of their own, in that order: each takes the leaves' ports after the last.
    """
    groups = {g["name"]: g for g in plan.get("link_groups") or []}
    settings = plan.get("settings") or {}
    switch_groups = {g["role"]: g for g in plan.get("switch_groups") or []}
    names = _switches(b, network, plan)
    leaves, sleaves, spines = (names.get(r, []) for r in ("leaf", "storage-leaf", "spine"))
    speed = settings.get("speed_gbps") or 0
    any_leaf = switch_groups.get("leaf") or switch_groups.get("storage-leaf")
    radix, per_cage = _ports(b.facts, any_leaf, speed) if any_leaf else (0, 1)
    spine_cage = _ports(b.facts, switch_groups["spine"], speed)[1] if spines else 1
    optics = _side_parts(plan)
    sw_optic, node_optic, ufm_optic = (optics.get(s, "") for s in ("switch", "node", "ufm"))
    ports = _LeafPorts(per_cage)
    b.per_cage.update(dict.fromkeys(leaves + sleaves, per_cage))
    b.per_cage.update(dict.fromkeys(spines, spine_cage))

    _node_links(b, network, groups, settings, leaves, hosts, ports, node_optic, sw_optic)
    _storage_links(b, network, groups, sleaves, ports, sw_optic)
    _host_cables(
        b, network, groups, settings, shared, sleaves or leaves, ports, ufm_optic, sw_optic
    )
    _uplinks(
        b, network, groups, settings, leaves, sleaves, spines, names, radix, ports, speed, sw_optic
    )

    # a converged fabric's customer uplinks
    customer_group = groups.get("spine-customer")
    if customer_group:
        tops = spines or leaves + sleaves
        core = _endpoint(b, "customer-core", "customer-core", network)
        for k in range(int(customer_group["links"])):
            switch = tops[k % len(tops)]
            port = b.take(switch) if spines else port_name(radix - 1 - k // len(tops), per_cage)
            b.link(network, customer_group, switch, port, core, b.take(core))


class _LeafPorts:
    """The next free port of each leaf, from the bottom (0-based), one by one or by whole cage."""

    def __init__(self, per_cage: int):
        self.per_cage = per_cage
        self.used: dict[str, int] = {}

    def cage_start(self, leaf: str) -> int:
        """The first port of the leaf's next whole cage."""
        start = ceil_div(self.used.get(leaf, 0), self.per_cage) * self.per_cage
        self.used[leaf] = start + self.per_cage
        return start


def _node_links(b, network, groups, settings, leaves, hosts, ports, node_optic, sw_optic) -> None:
    """The nodes' ports on the node leaves, the port-0s of every node first."""
    per_cage = ports.per_cage
    node_group = groups.get("node-leaf")
    ppn = int(settings.get("ports_per_node") or 0)
    if node_group and leaves and ppn:
        loads = spread(int(node_group["links"]), len(leaves))
        position, host_count = 0, int(node_group["links"]) // ppn
        for leaf, load in zip(leaves, loads, strict=True):
            for _ in range(load):
                port, host = divmod(position, host_count)
                a, a_port = hosts.port(host, f"{PORT_PREFIX[network]}{port + 1}")
                index = ports.used.get(leaf, 0)
                ports.used[leaf] = index + 1
                b.link(
                    network,
                    node_group,
                    a,
                    a_port,
                    leaf,
                    port_name(index, per_cage),
                    a_transceiver=node_optic,
                    b_transceiver=sw_optic,
                )
                position += 1


def _storage_links(b, network, groups, sleaves, taken, sw_optic) -> None:
    """The storage arrays' ports: cables spread over the storage leaves."""
    per_cage = taken.per_cage
    storage_group = groups.get("storage-leaf")
    if storage_group and sleaves:
        ports = int(storage_group["links"])
        cables = int(storage_group["cables"])
        legs = ceil_div(ports, cables) if cables else 1
        array = _endpoint(b, "storage-array-01", "storage-array", network)
        port = 0
        for leaf, count in zip(sleaves, spread(cables, len(sleaves)), strict=True):
            for _ in range(count):
                if legs > 1:
                    start = taken.cage_start(leaf)
                    this = min(legs, ports - port)
                    assembly = f"{leaf}:{start // per_cage + 1} 1:{this}"
                    for leg in range(this):
                        index = start + (leg if per_cage > 1 else 0)
                        b.link(
                            network,
                            storage_group,
                            array,
                            str(port + 1),
                            leaf,
                            port_name(index, per_cage),
                            assembly=assembly,
                            leg=leg + 1,
                        )
                        port += 1
                else:
                    index = taken.used.get(leaf, 0)
                    taken.used[leaf] = index + 1
                    b.link(
                        network,
                        storage_group,
                        array,
                        str(port + 1),
                        leaf,
                        port_name(index, per_cage),
                        b_transceiver=sw_optic,
                    )
                    port += 1


def _host_cables(
    b, network, groups, settings, shared, host_leaves, ports, ufm_optic, sw_optic
) -> None:
    """Management-node splitters, then UFM cables: round the host leaves, a cage each."""
    per_cage = ports.per_cage
    turn = 0
    mgmt_group = groups.get("management-leaf")
    if mgmt_group and host_leaves:
        links, cables = int(mgmt_group["links"]), int(mgmt_group["cables"])
        per_node = int(settings.get("management_ports_per_node") or 1)
        legs = ceil_div(links, cables) if cables else 1
        for cable in range(cables):
            leaf = host_leaves[turn % len(host_leaves)]
            turn += 1
            start = ports.cage_start(leaf)
            this = min(legs, links - cable * legs)
            assembly = f"{leaf}:{start // per_cage + 1} 1:{this}" if this > 1 else ""
            for leg in range(this):
                k = cable * legs + leg
                node = _management_node(b, k // per_node)
                b.link(
                    network,
                    mgmt_group,
                    node,
                    f"{PORT_PREFIX[network]}{k % per_node + 1}",
                    leaf,
                    port_name(start + (leg if per_cage > 1 else 0), per_cage),
                    assembly=assembly,
                    leg=leg + 1 if assembly else None,
                )
    ufm_group = groups.get("ufm-leaf")
    if ufm_group and host_leaves:
        cables, links = int(ufm_group["cables"]), int(ufm_group["links"])
        legs = ceil_div(links, cables) if cables else 1
        # the network's appliances are the last of the cluster's (inferred: the first serve
        # the compute fabric)
        total = max(int(shared.get("ufm_appliances") or 0), cables)
        for cable in range(cables):
            leaf = host_leaves[turn % len(host_leaves)]
            turn += 1
            start = ports.cage_start(leaf)
            ufm = _ufm(b, total - cables + cable)
            assembly = f"{leaf}:{start // per_cage + 1} 1:{legs}" if legs > 1 else ""
            for leg in range(legs):
                b.link(
                    network,
                    ufm_group,
                    ufm,
                    f"ib{leg + 1}",
                    leaf,
                    port_name(start + (leg if per_cage > 1 else 0), per_cage),
                    a_transceiver=ufm_optic,
                    b_transceiver=sw_optic,
                    assembly=assembly,
                    leg=leg + 1 if assembly else None,
                )


def _uplinks(
    b, network, groups, settings, leaves, sleaves, spines, names, radix, ports, speed, sw_optic
) -> None:
    """Every leaf's uplinks on its top cages, round the spines (of its pod, three tiers)."""
    per_cage = ports.per_cage
    used = ports.used
    storage_group = groups.get("storage-leaf")
    up_group = groups.get("leaf-spine")
    if up_group and spines and int(up_group["links"]) and settings.get("pods"):
        up = int(up_group["links"])
        storage_up = int(settings.get("storage_uplinks_each") or 0)
        node_up = (up - storage_up * len(sleaves)) // len(leaves) if leaves else 0
        uplinks = [node_up] * len(leaves) + [storage_up] * len(sleaves)
        if sum(uplinks) != up:
            uplinks = spread(up, len(leaves) + len(sleaves))

        def leaf_port(leaf: str, k: int, up: int) -> str:
            top = (radix // per_cage - ceil_div(up, per_cage)) * per_cage if radix else 0
            return port_name(max(top, used.get(leaf, 0)) + k, per_cage)

        _pod_links(
            b,
            network,
            groups,
            settings,
            leaves + sleaves,
            uplinks,
            spines,
            names.get("core", []),
            leaf_port,
            a_transceiver=sw_optic,
            b_transceiver=sw_optic,
        )
    elif up_group and spines and int(up_group["links"]):
        total_up = int(up_group["links"])
        storage_up = 0
        if storage_group and sleaves:
            storage_speed = float(storage_group["speed_gbps"])
            total_storage = ceil_div(
                int(storage_group["links"]) * int(storage_speed), int(speed) or 1
            )
            storage_up = ceil_div(total_storage, len(sleaves))
        node_up = (total_up - storage_up * len(sleaves)) // len(leaves) if leaves else 0
        if node_up * len(leaves) + storage_up * len(sleaves) != total_up:  # old or odd info
            uplinks = spread(total_up, len(leaves) + len(sleaves))
        else:
            uplinks = [node_up] * len(leaves) + [storage_up] * len(sleaves)
        offset = 0
        for leaf, up in zip(leaves + sleaves, uplinks, strict=True):
            top = (radix // per_cage - ceil_div(up, per_cage)) * per_cage if radix else 0
            for k in range(up):
                spine = spines[(offset + k) % len(spines)]
                b.link(
                    network,
                    up_group,
                    leaf,
                    port_name(max(top, used.get(leaf, 0)) + k, per_cage),
                    spine,
                    b.take(spine),
                    a_transceiver=sw_optic,
                    b_transceiver=sw_optic,
                )
            offset += up


# --------------------------------------------------------------------------------------------
# placement


# --------------------------------------------------------------------------------------------


def cluster_elements(fabric: Fabric, facts: CatalogFacts) -> ClusterElements:
    """The devices and links of the cluster's other networks (module docstring).

    Parameters
    ----------
    fabric : Fabric
        A built fabric; its ``settings.networks`` (from
        :func:`planner.domain.networks.cluster_networks`) gives the counts.
    facts : CatalogFacts
        Switch port facts (ports per cage) and device heights.

    Returns
    -------
    ClusterElements
        Empty when ``fabric.settings`` has no ``networks``. Per network and link group, as many
        links as the group's ``links`` and as many distinct cables (assembly, or one link) as
        its ``cables``; as many switches per role and model as its switch groups.
    """
    networks = fabric.settings.networks or {}
    if not networks:
        return ClusterElements()
    b = _Builder(fabric, facts)
    shared = _shared(networks)
    hosts = _Hosts(b, facts)
    management_racks = [
        MANAGEMENT_RACK.format(k + 1) for k in range(int(shared.get("management_racks") or 0))
    ]
    fabric_racks = {str(r["name"]) for r in fabric.racks}
    management_racks = [name for name in management_racks if name not in fabric_racks]

    for name in ("storage", "converged"):
        if name in networks:
            _leaf_spine(b, name, networks[name], hosts, shared)
    cores: list[str] = []
    if "inband" in networks:
        cores = _inband(b, networks["inband"], hosts)
    # every management node and UFM appliance exists even when no network links it
    for k in range(int(shared.get("management_nodes") or 0)):
        _management_node(b, k)
    for k in range(int(shared.get("ufm_appliances") or 0)):
        _ufm(b, k)
    pdus = (
        _pdus(b, shared, management_racks) if "oob" in networks or "management" in networks else []
    )
    _place_management(b, management_racks)
    if "oob" in networks:
        tops = cores or [
            d.name for d in b.devices.values() if d.network == "converged" and d.role == "spine"
        ]
        _oob(b, networks["oob"], hosts, shared, pdus, tops)
        layout = fabric.settings.layout or {}
        units = {str(r["name"]): int(r.get("rack_units") or 42) for r in fabric.racks}
        units.update({name: int(layout.get("rack_units") or 42) for name in management_racks})
        _place_oob(b, [str(r["name"]) for r in fabric.racks] + management_racks, units)

    order = {name: i for i, name in enumerate(("compute", *ELEMENT_NETWORKS))}
    devices = sorted(b.devices.values(), key=lambda d: order.get(d.network, len(order)))
    places = management_rack_places(fabric.settings.layout, fabric.racks, management_racks)
    links = with_run_lengths(fabric, b.devices, b.links, places)
    links = apply_network_media(links, networks, b.devices, facts)
    return ClusterElements(
        devices=tuple(devices),
        links=tuple(links),
        racks=tuple(management_racks),
        notes=tuple(b.notes),
        rack_places=places,
    )


def with_plan_media(
    elements: ClusterElements, networks: dict, facts: CatalogFacts
) -> ClusterElements:
    """``elements`` with their links' media as the plan ``networks`` gives them: each link's
    cable kind and part as its link group has them, then the media chosen by length
    (:func:`~planner.domain.networks.media.apply_network_media`). After the media are chosen
    (the plan changed only there), the same as building the elements again from it, for a
    fraction of the time (the pipeline's 100k-GPU cluster builds them once, not twice).
    """
    groups = {
        (name, group["name"]): group
        for name, plan in networks.items()
        for group in plan.get("link_groups") or []
    }
    links = []
    for link in elements.links:
        group = groups.get((link.network, link.group))
        if group is not None:
            cable = group.get("cable") or {}
            link = replace(
                link,
                cable_kind=str(group["cable_kind"]),
                cable_part=str(cable.get("part") or ""),
            )
        links.append(link)
    devices = {d.name: d for d in elements.devices}
    return replace(elements, links=tuple(apply_network_media(links, networks, devices, facts)))


def network_elements(fabric: Fabric, facts: CatalogFacts) -> ClusterElements:
    """The devices and links of the fabric's other networks, as stored with it
    (``fabric.networks``, built once by :func:`planner.domain.pipeline.build_fabric`).

    A loaded fabric decodes its stored columns (``fabric.network_columns``) here, on first
    read. One stored before they were kept (neither) is upgraded here: they are built once
    (:func:`cluster_elements`) and kept on the fabric.
    Every page, export, analysis and job reads them through this function.

    Parameters
    ----------
    fabric : Fabric
    facts : CatalogFacts
        Only read to upgrade a fabric stored without its elements.

    Returns
    -------
    ClusterElements
        Empty when the design has no other networks.
    """
    # the columns first: another thread decoding them sets ``networks`` before it drops them
    columns, elements = fabric.network_columns, fabric.networks
    if elements is None:
        if columns is not None:  # stored: decoded on first read
            elements = ClusterElements.from_dict(columns)
        elif fabric.settings.networks:  # stored before they were kept: the upgrade
            elements = cluster_elements(fabric, facts)
        else:
            elements = ClusterElements()
        fabric.networks = elements
        fabric.network_columns = None
    return elements


__all__ = ["cluster_elements", "network_elements", "with_plan_media"]
