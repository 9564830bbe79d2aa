"""Fabric generators: rail-optimized, multi-plane, leaf-spine(-core) Clos and k-ary fat-tree.

Every generator builds one *plane* at a time (a plane is an independent fabric at the link
speed ``server port speed / planes``) and shares the servers between planes. Wiring is
balanced: each leaf has the same number of links to every spine of its pod, and each spine
the same number to every core of its group; switch counts are chosen so that this holds.

Rules (reference-architectures.md §2):

- leaf with oversubscription o: ``down = up * o``, ``down + up + reserved <= radix``;
- rail-optimized: one leaf per rail per scalable unit (SU); the leaf takes that rail's port of
  every server in the SU, so ``servers_per_su = down`` (non-blocking: radix / 2);
- 2 tiers: ``s`` spines, ``s`` divides a leaf's uplinks; every spine port faces down;
- 3 tiers: pods of as many SUs (or leaves) as half a spine's radix carries; spine j of every
  pod forms core group j; a spine's uplinks spread evenly over its group's cores.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from inventory.library.vocab import GPU_SERVER_KINDS
from planner.domain.catalog import CatalogFacts, DeviceModel
from planner.domain.fabric import Fabric, FabricBuilder, FabricError
from planner.domain.settings import FabricSettings
from planner.domain.spec_model import DesignSpec

from .generator_plans import _plan, _Switches
from .generator_wiring import _fat_tree_plane, _leaf_spine_plane, _Namer

Progress = Callable[[int, int], None] | None
MAX_GROWTH_GPUS = 10_000_000  # growth steps are listed one by one up to this final size


def _server_names(template: str, count: int) -> list[str]:
    """``template`` filled with each server's 1-based ``index`` (or the index appended)."""
    if "{" not in template:
        return [f"{template}{i + 1}" for i in range(count)]
    try:
        return [template.format(index=i + 1) for i in range(count)]
    except (KeyError, IndexError, ValueError, AttributeError) as exc:
        raise FabricError(
            f"{template!r} uses an unknown field or format {exc}; fields: index",
            field="naming.server",
        ) from exc


def generate_topology(
    spec: DesignSpec, facts: CatalogFacts, *, on_progress: Progress = None
) -> Fabric:
    """Build the nodes and links of ``spec`` (no layout or media yet).

    A rack-scale system (``compute_trays`` in the catalog, e.g. GB200-NVL72) is one server
    node whose ports are its trays' NICs, tray by tray: port ``(tray * rails + rail) *
    planes + plane``. Rail r is NIC r of every tray, as NVIDIA wires them, so a system puts
    ``compute_trays`` ports on each rail and a rail leaf takes whole systems.

    Raises
    ------
    FabricError
        The spec cannot be built (infeasible counts, a switch without ports at the link speed,
        ...); the message says why and what would work.
    CatalogLookupError
        The spec names a part that is not in the catalog.

    Long because: it sizes the fabric from the plans and then builds it plane by plane, with
    the fabric's info record in between; the server checks are
    :func:`_server_ports`.
    """
    server, trays, nics, rails = _server_ports(spec, facts)
    port_speed = server.port_speed_gbps
    speed = _plane_speed(spec, server, port_speed)
    gpus_per_server = server.gpus or rails * trays
    connected_gpus_per_server = _connected_gpus(server, rails, trays, gpus_per_server)
    if spec.topology == "fat-tree":
        switches = _switches(spec, facts, speed, speed)
        servers = _fat_tree_servers(spec, rails * trays, switches)
    else:
        servers, _ = requested_servers(spec, gpus_per_server)
    final_servers = _final_servers(spec, server, gpus_per_server, servers)
    if spec.topology == "clos" and final_servers and trays > 1:
        raise FabricError(
            "growth of a Clos fabric of rack-scale systems is not planned step by step; use "
            "topology: rail-optimized, whose steps are whole SUs",
            field="grow_to",
        )
    up_speed = _uplink_speed(spec, speed)
    switches = _switches(spec, facts, speed, up_speed)
    _check_nic_single_port(spec, facts, server, switches.leaf, speed)
    plan = _plan(spec, switches, servers, rails, trays, gpus_per_server, final_servers)
    builder = FabricBuilder()
    server_group = server.group_at(port_speed)
    server_ppc = (server_group.ports_per_cage if server_group else 1) * spec.planes
    server_su = (
        (np.arange(servers) // plan["servers_per_su"]).astype(np.int32)
        if spec.topology == "rail-optimized"
        else -1
    )
    server_nodes = builder.add_nodes(
        _server_names(spec.naming.server, servers),
        role="server",
        model=server.slug,
        su=server_su,
        ports=rails * trays * spec.planes,
        ports_per_cage=server_ppc,
    )
    connected = servers * connected_gpus_per_server
    info = {
        "topology": spec.topology,
        "servers": servers,
        "gpus": connected,
        "gpus_unconnected": servers * gpus_per_server - connected,
        "rails": rails,
        "speed_gbps": speed,
        "uplink_speed_gbps": up_speed,
        "server_port_speed_gbps": port_speed,
        "server_ports_physical": servers * rails * trays,
        "native_speed_gbps": {
            "server": port_speed,
            **{
                role: _native_speed(getattr(switches, role), role_speed)
                for role, role_speed in (
                    ("leaf", speed),
                    ("spine", up_speed),
                    ("core", up_speed),
                )
            },
        },
        "radix": {"leaf": switches.r_leaf, "spine": switches.r_spine, "core": switches.r_core},
        **{key: value for key, value in plan.items() if key != "growth"},
    }
    rack_system = None
    if server.is_rack_system:
        rack_system = {
            "model": server.slug,
            "compute_trays": trays,
            "gpus_per_tray": gpus_per_server // trays,
            "nics_per_tray": nics,
        }
    settings = FabricSettings(
        planes=spec.planes, rack_system=rack_system, growth=plan.get("growth")
    )
    for plane in range(spec.planes):
        namer = _Namer(spec, plane)
        if spec.topology == "fat-tree":
            _fat_tree_plane(builder, spec, switches, plan, server_nodes, rails, plane, namer)
        else:
            _leaf_spine_plane(
                builder, spec, switches, plan, server_nodes, rails, trays, plane, namer
            )
        if on_progress:
            on_progress(plane + 1, spec.planes)
    fabric = builder.build(info, settings)
    if len(set(fabric.node_name)) != fabric.node_count:
        raise FabricError(
            "node names are not unique; include {index} (and the tier's fields) "
            "in the naming templates",
            field="naming",
        )
    return fabric


def _server_ports(spec: DesignSpec, facts: CatalogFacts) -> tuple[DeviceModel, int, int, int]:
    """The spec's GPU server (or rack-scale system) checked: ``(server, compute trays, NICs
    per server or tray, rails)``; a :class:`FabricError` naming the field when it cannot be
    wired as asked."""
    server = facts.device(spec.server, "server", field_name="server")
    if server.kind and server.kind not in GPU_SERVER_KINDS:
        raise FabricError(
            f"{server.slug} is a {server.kind.replace('-', ' ')} part, not a GPU server or "
            "rack-scale system: choose the GPU server the fabric connects",
            field="server",
        )
    if not server.ports or not server.port_speed_gbps:
        raise FabricError(
            f"{server.slug} has no compute ports with a known speed in the catalog", field="server"
        )
    trays = server.compute_trays or 1
    if spec.racks is not None and not server.is_rack_system:
        raise FabricError(
            f"racks counts rack-scale systems; {server.slug} is a server: give servers or gpus",
            field="racks",
        )
    if server.ports % trays:
        raise FabricError(
            f"{server.slug}'s {server.ports} compute ports do not split evenly over its "
            f"{trays} compute trays",
            field="server",
        )
    nics = server.ports // trays  # per server, or per tray of a rack-scale system
    rails = spec.rails or nics
    if rails > nics:
        where = "per compute tray" if server.is_rack_system else ""
        raise FabricError(
            f"{server.slug} has {nics} compute ports{' ' + where if where else ''}; rails "
            f"cannot be {rails}",
            field="rails",
        )
    return server, trays, nics, rails


def _plane_speed(spec: DesignSpec, server: DeviceModel, port_speed: int) -> int:
    """The link speed of one plane; refused up front when the server's ports cannot split."""
    if spec.planes == 1:
        return port_speed
    if port_speed % spec.planes:
        raise FabricError(
            f"{port_speed}G ports cannot be split into {spec.planes} planes", field="planes"
        )
    speed = port_speed // spec.planes
    group = server.group_at(port_speed)
    if group is None or group.split_at(speed) != spec.planes:
        listed = ", ".join(group.breakouts) if group and group.breakouts else "none"
        raise FabricError(
            f"{server.slug}'s {port_speed}G compute ports cannot split into {spec.planes} x "
            f"{speed}G (breakouts in the catalog: {listed}); planes cannot be {spec.planes}",
            field="planes",
        )
    return speed


def _check_nic_single_port(
    spec: DesignSpec, facts: CatalogFacts, server: DeviceModel, leaf: DeviceModel, speed: int
) -> None:
    """Refuse up front a server link its compute NIC cannot run on one port at the leaf's
    protocol (rule 18, ``no-single-port-speed``: ConnectX-8 runs 800G as XDR InfiniBand
    only, Ethernet as 2 x 400G), naming the limit's source; validation reports the same
    limit (``nic-single-port-speed``) on a design built by hand."""
    if set(leaf.protocols) != {"ethernet"}:
        return
    record = facts.parts.get(server.slug) or {}
    nic = facts.parts.get(record.get("compute_nic") or "") or {}
    for index, limit in enumerate(nic.get("limits") or []):
        if (
            limit.get("code") == "no-single-port-speed"
            and limit.get("protocol") == "ethernet"
            and speed >= (limit.get("speed_gbps") or speed + 1)
        ):
            stated = (nic.get("provenance") or {}).get(f"limits.{index}") or {}
            ref = (nic.get("sources") or {}).get(stated.get("source")) or {}
            grade = stated.get("grade") or ref.get("grade") or "unknown"
            where = f"{grade}: {ref.get('url') or ref.get('title') or 'no source in the catalog'}"
            raise FabricError(
                f"{server.slug}'s compute NIC {nic.get('slug')} cannot run {speed}G Ethernet "
                f"on one port to the {leaf.slug} leaf: {limit.get('message')} ({where}); "
                f"run {spec.planes * 2} planes of {speed // 2}G, or an InfiniBand leaf",
                field="planes",
            )


def _uplink_speed(spec: DesignSpec, speed: int) -> int:
    """Switch-to-switch link speed: ``uplink_speed_gbps`` when given (slower, equal or
    faster than the server links), else the server link (plane) speed. Either way the
    summary's ``physical_ports`` counts the cables per physical port as NVIDIA's multi-plane
    tables do (a leaf's 800G port carrying two 400G uplinks is one)."""
    up = spec.uplink_speed_gbps or speed
    if up % speed and speed % up:
        raise FabricError(
            f"uplink_speed_gbps = {up}: a leaf port splits into equal lanes, so its {speed}G "
            f"server links and {up}G uplinks need one speed to be a whole multiple of the "
            f"other (e.g. {speed // 2}, {speed} or {speed * 2})",
            field="uplink_speed_gbps",
        )
    return up


def _native_speed(model: DeviceModel, speed: int) -> int:
    """The physical port speed of the ``model`` ports that run ``speed``."""
    group = model.group_at(speed)
    return int(group.port_speed_gbps) if group and group.port_speed_gbps else speed


def _connected_gpus(server: DeviceModel, rails: int, trays: int, gpus_per_server: int) -> int:
    """GPUs of one server that a wired rail reaches: all when every NIC is wired, else the
    share of the NICs wired (one NIC per GPU, or per ``gpus / NICs`` GPUs)."""
    nics = server.ports
    wired = rails * trays
    if wired >= nics:
        return gpus_per_server
    return gpus_per_server * wired // nics


def requested_servers(spec: DesignSpec, gpus_per_server: int) -> tuple[int | None, str]:
    """Servers (or rack-scale systems) the spec asks for and the field that says so:
    ``servers``, ``racks``, or ``gpus`` rounded up to whole servers; ``(None, "")`` when it
    gives none (a full fat-tree).

    >>> from planner.domain.spec import parse_spec
    >>> requested_servers(parse_spec({"name": "x", "topology": "clos", "server": "S",
    ...     "gpus": 20, "switches": {"leaf": "L"}}), 8)
    (3, 'gpus')
    """
    if spec.gpus is not None:
        return math.ceil(spec.gpus / gpus_per_server), "gpus"
    if spec.racks is not None:
        return spec.racks, "racks"
    if spec.servers is not None:
        return spec.servers, "servers"
    return None, ""


def _final_servers(
    spec: DesignSpec, server: DeviceModel, gpus_per_server: int, servers: int
) -> int | None:
    """Servers of the final build ``grow_to`` names, or None without growth."""
    if not spec.grow_to:
        return None
    ((key, value),) = spec.grow_to.items()
    if key == "racks" and not server.is_rack_system:
        raise FabricError(
            f"grow_to.racks counts rack-scale systems; {server.slug} is a server",
            field="grow_to.racks",
        )
    final = math.ceil(value / gpus_per_server) if key == "gpus" else value
    if final * gpus_per_server > MAX_GROWTH_GPUS:
        raise FabricError(
            f"grow_to.{key} = {value:,} is beyond the {MAX_GROWTH_GPUS:,} GPUs growth is "
            "planned for",
            field=f"grow_to.{key}",
        )
    if final < servers:
        raise FabricError(
            f"grow_to.{key} = {value:,} is smaller than today's build ({servers:,} servers)",
            field=f"grow_to.{key}",
        )
    return final


def _speed_refusal(model, speed: int) -> str:
    """Why ``model`` has no ports at ``speed`` Gb/s, naming what it does have.

    >>> from planner.domain.catalog import DeviceModel, PortGroup
    >>> _speed_refusal(DeviceModel("S", "switch", (PortGroup(32, 2, 800),)), 400)
    'S cannot run 400G ports (it has 64 x 800G ports and no listed breakout to that speed)'
    >>> _speed_refusal(DeviceModel("T", "switch", ()), 400)
    'T cannot run 400G ports: the catalog lists no data ports for it (add its port groups)'
    """
    groups = [g for g in model.port_groups if g.port_speed_gbps and g.ports]
    if not groups:
        return (
            f"{model.slug} cannot run {speed}G ports: the catalog lists no data ports for it "
            "(add its port groups)"
        )
    ports: dict[int, int] = {}
    for group in groups:
        ports[group.port_speed_gbps] = ports.get(group.port_speed_gbps, 0) + group.ports
    have = ", ".join(f"{count:,} x {gbps}G" for gbps, count in sorted(ports.items()))
    return (
        f"{model.slug} cannot run {speed}G ports (it has {have} ports and no listed breakout "
        "to that speed)"
    )


def _switches(spec: DesignSpec, facts: CatalogFacts, speed: int, up_speed: int) -> _Switches:
    models = {}
    radix = {}
    for role in ("leaf", "spine", "core"):
        model = facts.device(getattr(spec, role), "switch", field_name=f"switches.{role}")
        role_speed = speed if role == "leaf" else up_speed
        radix[role] = model.radix_at(role_speed)
        if not radix[role]:
            raise FabricError(_speed_refusal(model, role_speed), field=f"switches.{role}")
        models[role] = model
    if up_speed != speed and not models["leaf"].radix_at(up_speed):
        raise FabricError(_speed_refusal(models["leaf"], up_speed), field="uplink_speed_gbps")
    # The leaf's ports are counted at the slower of its two link speeds.
    radix["leaf"] = models["leaf"].radix_at(min(speed, up_speed))
    return _Switches(
        models["leaf"],
        models["spine"],
        models["core"],
        speed,
        radix["leaf"],
        radix["spine"],
        radix["core"],
        up_speed,
    )


def _fat_tree_servers(spec: DesignSpec, rails: int, sw: _Switches) -> int:
    k = spec.k
    if k > sw.r_leaf:
        raise FabricError(
            f"k = {k} needs {k}-port switches; {sw.leaf.slug} has {sw.r_leaf} ports at {sw.speed}G",
            field="k",
        )
    hosts = k**3 // 4
    if spec.servers is None:
        if hosts % rails:
            raise FabricError(
                f"a k = {k} tree has {hosts:,} host ports, not a multiple of {rails} "
                "rails: set servers",
                field="servers",
            )
        return hosts // rails
    if spec.servers * rails > hosts:
        raise FabricError(
            f"{spec.servers:,} servers x {rails} rails = {spec.servers * rails:,} host "
            f"ports; a k = {k} fat-tree has {hosts:,}",
            field="servers",
        )
    return spec.servers
