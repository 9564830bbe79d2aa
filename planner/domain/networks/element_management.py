"""The management networks as devices and links: in-band, out-of-band, PDUs (issue 18).

Split from :mod:`planner.domain.networks.elements`, whose docstring states the rules these
follow; the storage and converged leaf-spine networks stay there."""

from __future__ import annotations

import math
from collections import Counter

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import SWITCH_ROLES
from planner.domain.networks.common import ceil_div, spread
from planner.domain.networks.oob import rack_groups

from .element_parts import (
    ENDPOINT_ROLES,
    TOP_OF_RACK_RU,
    NetworkDevice,
    _Builder,
    _endpoint,
    _Hosts,
    _management_node,
    _pod_links,
    _ports,
    _ra_model,
    _switches,
    _ufm,
)


def _inband(b: _Builder, plan: dict, hosts: _Hosts) -> list[str]:
    """The in-band network's switches and links, dual-homed or not (rules in the elements module).

    Long because: the rules name ports in one order (nodes, uplinks, ISLs, management, NFS,
    customer), sharing the port counters of every leaf and core.
    """
    groups = {g["name"]: g for g in plan.get("link_groups") or []}
    settings = plan.get("settings") or {}
    switch_groups = {g["role"]: g for g in plan.get("switch_groups") or []}
    names = _switches(b, "inband", plan)
    leaves, cores = names.get("leaf", []), names.get("core", [])
    speed = settings.get("speed_gbps") or 0
    radix = _ports(b.facts, switch_groups["leaf"], speed)[0] if leaves else 0
    dual = bool(settings.get("dual_homed"))
    ppn = int(settings.get("ports_per_node") or 0)
    leaf_up = int(settings.get("leaf_uplinks") or 0)
    isl = int(settings.get("isl_per_pair") or 0) if dual else 0
    cap = max(radix - leaf_up - isl, 1)
    used: dict[str, int] = {}

    node_group = groups.get("node-leaf")
    if node_group and leaves and ppn:
        host_count = int(node_group["links"]) // ppn
        if dual and len(leaves) >= 2:
            pairs = len(leaves) // 2
            per_pair = spread(host_count, pairs)
            if max(ceil_div(n * ppn, 2) for n in per_pair) > cap:  # fill pair by pair
                each = max(1, (2 * cap) // ppn)
                per_pair, left = [], host_count
                for _ in range(pairs):
                    per_pair.append(min(each, left))
                    left -= per_pair[-1]
            host = 0
            for pair, count in enumerate(per_pair):
                for _ in range(count):
                    for port in range(ppn):
                        leaf = leaves[2 * pair + port % 2]
                        a, a_port = hosts.port(host, f"inb{port + 1}")
                        index = used.get(leaf, 0)
                        used[leaf] = index + 1
                        b.link("inband", node_group, a, a_port, leaf, str(index + 1))
                    host += 1
        else:
            position = 0
            for leaf, load in zip(leaves, spread(host_count * ppn, len(leaves)), strict=True):
                for _ in range(load):
                    port, host = divmod(position, host_count)
                    a, a_port = hosts.port(host, f"inb{port + 1}")
                    used[leaf] = used.get(leaf, 0) + 1
                    b.link("inband", node_group, a, a_port, leaf, str(used[leaf]))
                    position += 1

    if settings.get("pods"):
        _pod_links(
            b,
            "inband",
            groups,
            settings,
            leaves,
            [leaf_up] * len(leaves),
            names.get("spine", []),
            cores,
            lambda leaf, k, up: str(radix - isl - leaf_up + k + 1),
        )
    up_group = groups.get("leaf-core")
    if up_group and cores:
        for leaf in leaves:
            for k in range(leaf_up):
                core = cores[k % len(cores)]
                b.link(
                    "inband",
                    up_group,
                    leaf,
                    str(radix - isl - leaf_up + k + 1),
                    core,
                    b.take(core),
                )
    mgmt_group = groups.get("management-core")
    if mgmt_group and cores:
        per_node = int(settings.get("management_ports_per_node") or 1)
        for k in range(int(mgmt_group["links"])):
            core = cores[k % len(cores)]
            node = _management_node(b, k // per_node)
            b.link("inband", mgmt_group, node, f"inb{k % per_node + 1}", core, b.take(core))
    nfs_group = groups.get("nfs-core")
    if nfs_group and cores:
        nfs = _endpoint(b, "nfs-storage-01", "nfs-storage", "inband")
        for k in range(int(nfs_group["links"])):
            core = cores[k % len(cores)]
            b.link("inband", nfs_group, nfs, str(k + 1), core, b.take(core))
    dc_group = groups.get("core-customer")
    if dc_group and cores:
        customer = _endpoint(b, "customer-core", "customer-core", "inband")
        for k in range(int(dc_group["links"])):
            core = cores[k % len(cores)]
            b.link(
                "inband",
                dc_group,
                core,
                b.take(core),
                customer,
                b.take(customer),
            )
    isl_group = groups.get("leaf-isl")
    if isl_group and isl:
        for pair in range(len(leaves) // 2):
            first, second = leaves[2 * pair], leaves[2 * pair + 1]
            for k in range(isl):
                port = str(radix - isl + k + 1)
                b.link("inband", isl_group, first, port, second, port)
    return cores


#: OOB managed-port labels (oob.py) -> how their devices are found.
_SWITCH_LABELS = {
    "storage switches": "storage",
    "converged switches": "converged",
    "in-band switches": "inband",
}


def _oob(b: _Builder, plan: dict, hosts: _Hosts, shared: dict, pdus: list[str], tops) -> None:
    """The out-of-band network's switches and links (rules in the elements module).

    Long because: one pass that gathers every managed port in the generator's order and fills the
    switches with them; the order is the rule.
    """
    groups = {g["name"]: g for g in plan.get("link_groups") or []}
    settings = plan.get("settings") or {}
    names = _switches(b, "oob", plan)
    switches = names.get("leaf", [])
    if not switches:
        return
    rj45 = int((plan.get("switch_groups") or [{}])[0].get("ports_each") or 48)
    fabric = b.fabric
    managed: list[tuple[dict, str, str]] = []  # (group, device, port)
    back_to_back: list[tuple[dict, int]] = []
    management_nodes = int(shared.get("management_nodes") or 0)
    for label, group in groups.items():
        if label == "uplinks":
            continue
        count = int(group["links"])
        ends: list[tuple[str, str]] = []
        if label == "node BMCs":
            per_node = max(1, count // max(len(hosts), 1))
            for k in range(count):
                host, port = divmod(k, per_node)
                ends.append(hosts.port(host, "bmc" if port == 0 else f"bmc{port + 1}"))
        elif label == "compute fabric switches":
            nodes = [int(i) for i in range(fabric.node_count) if fabric.role_of(i) in SWITCH_ROLES]
            ends = [(b.compute(i), "mgmt") for i in nodes]
        elif label in _SWITCH_LABELS:
            network = _SWITCH_LABELS[label]
            ends = [
                (d.name, "mgmt")
                for d in b.devices.values()
                if d.network == network and d.role in ("leaf", "storage-leaf", "spine", "core")
            ]
        elif label == "management and UFM nodes":
            ufm = count - management_nodes
            ends = [(_management_node(b, i), "bmc") for i in range(management_nodes)]
            ends += [(_ufm(b, i), "bmc") for i in range(max(ufm, 0))]
        elif label == "UFM back-to-back":
            back_to_back.append((group, count))
            continue
        elif label == "PDUs":
            ends = [(name, "mgmt") for name in pdus]
        elif label == "NVLink switch trays":
            servers = hosts.servers
            per = ceil_div(count, len(servers)) if servers else 0
            for k in range(count if servers else 0):
                server = b.compute(servers[k // per])
                ends.append((server, f"nvsw{k % per + 1:02d}/mgmt"))
        elif label == "storage appliance management":
            array = _endpoint(b, "storage-array-01", "storage-array", "oob")
            ends = [(array, f"mgmt{k + 1}") for k in range(count)]
        if len(ends) != count:  # counts and fabric disagree (an older design): say so
            b.notes.append(
                f"OOB {label}: {count} ports counted, {len(ends)} devices found; "
                "the rest are unnamed endpoints"
            )
            ends = ends[:count]
            spare = (
                _endpoint(b, "oob-endpoint", "unnamed-endpoint", "oob") if len(ends) < count else ""
            )
            ends += [(spare, str(k + 1)) for k in range(count - len(ends))]
        managed += [(group, device, port) for device, port in ends]

    for switch, ends in zip(
        switches, _oob_ports(b, settings, switches, managed, rj45), strict=True
    ):
        for port, (group, device, device_port) in enumerate(ends):
            b.link("oob", group, device, device_port, switch, str(port + 1))

    for group, count in back_to_back:
        for pair in range(count):  # the pair's two appliances, joined directly
            first, second = _ufm(b, 2 * pair), _ufm(b, 2 * pair + 1)
            b.link("oob", group, first, "ha", second, "ha")

    up_group = groups.get("uplinks")
    if up_group:
        per_switch = int(settings.get("uplinks") or 0)
        if not tops:
            tops = [_endpoint(b, "customer-core", "customer-core", "oob")]
        k = 0
        for switch in switches:
            for u in range(per_switch):
                top = tops[k % len(tops)]
                b.link("oob", up_group, switch, str(rj45 + u + 1), top, b.take(top))
                k += 1


def _oob_ports(b: _Builder, settings: dict, switches: list[str], managed: list, rj45: int):
    """The managed ports of each OOB switch, in port order (module docstring): spread evenly
    over the switches, or by rack group when ``switches_per_rack`` is set."""
    per_rack = settings.get("switches_per_rack")
    if per_rack is not None:
        compute = [str(r["name"]) for r in b.fabric.racks if r.get("kind") == "server"]
        groups = rack_groups(len(compute), per_rack)
        group_of = {compute[r]: g for g, (racks, _) in enumerate(groups) for r in racks}
        own: list[list] = [[] for _ in groups]
        rest: list = []
        for end in managed:
            g = group_of.get(b.devices[end[1]].rack)
            (rest if g is None else own[g]).append(end)
        out: list[list] = []
        homes: dict[str, tuple[str, ...]] = {}
        for g, (racks, count) in enumerate(groups):
            position = 0
            for load in spread(len(own[g]), count):
                if len(out) < len(switches):
                    homes[switches[len(out)]] = tuple(compute[r] for r in racks)
                out.append(own[g][position : position + load])
                position += load
        out += [[] for _ in switches[len(out) :]]
        position = 0
        for ends in out:  # spare ports, switch by switch, the extra switches last
            take = max(0, rj45 - len(ends))
            ends += rest[position : position + take]
            position += take
        fits = all(len(ends) <= rj45 for ends in out)
        if fits and len(out) == len(switches) and position >= len(rest):
            b.homes.update(homes)
            return out
        b.notes.append(  # counts and fabric disagree (an older design): by port count
            "OOB switches: the rack groups do not match the counted switches; ports spread "
            "over the switches instead"
        )
    out, position = [], 0
    for load in spread(len(managed), len(switches)):
        out.append(managed[position : position + load])
        position += load
    return out


def _shared(networks: dict) -> dict:
    """Management nodes, UFM appliances and racks, PDUs per rack: the management plan's
    settings, else what the networks' endpoints say (designs built before they were kept)."""
    management = (networks.get("management") or {}).get("settings") or {}
    if "management_racks" in management:
        return dict(management)
    out = {"management_nodes": 0, "ufm_appliances": 0, "management_racks": 0}
    for name in ("storage", "converged", "inband"):
        endpoints = (networks.get(name) or {}).get("endpoints") or {}
        if endpoints.get("management nodes"):
            out["management_nodes"] = int(endpoints["management nodes"])
    oob = networks.get("oob") or {}
    out["management_racks"] = int((oob.get("endpoints") or {}).get("management racks") or 0)
    both = int((oob.get("managed_ports") or {}).get("management and UFM nodes") or 0)
    storage_ufm = int(
        ((networks.get("storage") or {}).get("endpoints") or {}).get("UFM appliances") or 0
    )
    out["ufm_appliances"] = max(both - out["management_nodes"], storage_ufm)
    settings = oob.get("settings") or {}
    out["pdus_per_rack"] = int(settings.get("pdus_per_rack") or 0)
    out["pdus_per_management_rack"] = int(settings.get("pdus_per_management_rack") or 0)
    return out


def _pdus(b: _Builder, shared: dict, management_racks: list[str]) -> list[str]:
    """Every PDU (compute racks first, then management racks), named ``pdu-<rack>-<n>``."""
    names = []
    per_compute = int(shared.get("pdus_per_rack") or 0)
    per_management = int(shared.get("pdus_per_management_rack") or 0)
    racks = [
        (str(r["name"]), per_compute, "compute_pdu")
        for r in b.fabric.racks
        if r.get("kind") == "server"
    ]
    racks += [(name, per_management, "management_pdu") for name in management_racks]
    for rack, count, role in racks:
        for k in range(count):
            name = b.add(f"pdu-{rack}-{k + 1}", "management", "pdu", _ra_model(role))
            b.devices[name] = NetworkDevice(name, "management", "pdu", _ra_model(role), rack)
            names.append(name)
    return names


def _height(facts: CatalogFacts, model: str) -> int:
    device = facts.devices.get(model)
    return int(math.ceil(device.rack_units)) if device and device.rack_units else 1


def _place_management(b: _Builder, racks: list[str]) -> None:
    """Storage, converged and in-band switches, UFM appliances and management nodes into
    the management racks (module docstring)."""
    order = [
        d.name
        for network in ("storage", "converged", "inband")
        for d in b.devices.values()
        if d.network == network and d.role not in ENDPOINT_ROLES
    ]
    order += [d.name for d in b.devices.values() if d.role == "ufm"]
    order += [d.name for d in b.devices.values() if d.role == "management-node"]
    if not racks or not order:
        return
    layout = b.fabric.settings.layout or {}
    rack_units = int(layout.get("rack_units") or 42)
    usable = int(layout.get("usable_rack_units") or rack_units - TOP_OF_RACK_RU)
    position = 0
    for rack, count in zip(racks, spread(len(order), len(racks)), strict=True):
        fill = 0
        for name in order[position : position + count]:
            device = b.devices[name]
            height = _height(b.facts, device.model)
            ru = fill + 1 if fill + height <= usable else None
            if ru is None:
                b.notes.append(f"{name}: no room left in {rack}; placed without an RU")
            fill += height
            b.devices[name] = NetworkDevice(
                name, device.network, device.role, device.model, rack, ru
            )
        position += count


def _place_oob(b: _Builder, racks_order: list[str], rack_units: dict[str, int]) -> None:
    """Each OOB switch into a top-2-U slot: of its rack group's racks when the spec groups them
    (``switches_per_rack``); else of a network rack holding devices it serves, of the compute
    fabric's network rack nearest the racks it serves, of a management rack, and last of the
    server rack holding most of them (inferred: the reference layouts fill a server rack to its
    power limit with its servers, and the RAs place management switches apart from them)."""
    served: dict[str, Counter] = {}
    for link in b.links:
        if link.network != "oob" or b.devices[link.b_device].network != "oob":
            continue
        rack = b.devices[link.a_device].rack
        if rack:
            served.setdefault(link.b_device, Counter())[rack] += 1
    rank = {rack: i for i, rack in enumerate(racks_order)}
    server_racks = {str(r["name"]) for r in b.fabric.racks if r.get("kind") == "server"}
    places = {str(r["name"]): (r.get("row", 0), r.get("position", 0)) for r in b.fabric.racks}
    network_racks = [
        str(r["name"]) for r in b.fabric.racks if r.get("kind") not in (None, "server")
    ]
    taken: Counter = Counter()
    for device in [d for d in b.devices.values() if d.network == "oob"]:
        counts = served.get(device.name) or Counter()
        home = b.homes.get(device.name)
        by_count = sorted(counts, key=lambda r: (-counts[r], rank.get(r, len(rank))))
        if home:
            choices = sorted(home, key=lambda r: (r in server_racks, -counts[r], rank.get(r, 0)))
        else:
            # served network racks, the nearest network racks to what it serves (rack width
            # and row pitch by the layout's defaults), management racks, then server racks
            def distance(rack: str, counts=counts) -> float:
                row, position = places.get(rack, (0, 0))
                return sum(
                    n * (abs(position - places[r][1]) * 0.6 + abs(row - places[r][0]) * 3.0)
                    for r, n in counts.items()
                    if r in places
                )

            choices = (
                [r for r in by_count if r not in server_racks]
                + sorted(network_racks, key=distance)
                + racks_order[len(b.fabric.racks) :]
                + [r for r in by_count if r in server_racks]
            )
        for rack in choices:
            if taken[rack] < TOP_OF_RACK_RU:
                ru = rack_units.get(rack, 42) - TOP_OF_RACK_RU + 1 + taken[rack]
                taken[rack] += 1
                b.devices[device.name] = NetworkDevice(
                    device.name, "oob", device.role, device.model, rack, ru
                )
                break
        else:
            b.notes.append(f"{device.name}: no top-of-rack slot free where its ports are")
