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
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from inventory.library.vocab import GPU_SERVER_KINDS
from planner.domain.catalog import CatalogFacts, DeviceModel
from planner.domain.fabric import Fabric, FabricBuilder, FabricError
from planner.domain.settings import FabricSettings
from planner.domain.spec import DesignSpec

Progress = Callable[[int, int], None] | None
MAX_GROWTH_GPUS = 10_000_000  # growth steps are listed one by one up to this final size


@dataclass
class _Switches:
    leaf: DeviceModel
    spine: DeviceModel
    core: DeviceModel
    speed: int  # server-leaf links (the plane speed)
    r_leaf: int  # leaf ports at ``unit`` (the slower of ``speed`` and ``up_speed``)
    r_spine: int  # spine ports at ``up_speed``
    r_core: int
    up_speed: int = 0  # leaf-spine and spine-core links

    @property
    def unit(self) -> int:
        """The leaf's logical port speed: the slower of its down- and uplinks. A leaf's ports
        are numbered at this speed; a faster link takes several consecutive ones (the lanes
        of a port split that way)."""
        return min(self.speed, self.up_speed or self.speed)

    @property
    def down_units(self) -> int:
        """Leaf ports at ``unit`` one server link takes (1 unless uplinks are slower)."""
        return self.speed // self.unit

    @property
    def up_units(self) -> int:
        """Leaf ports at ``unit`` one uplink takes (1 unless uplinks are faster)."""
        return (self.up_speed or self.speed) // self.unit

    @property
    def max_down(self) -> int:
        """The leaf's ports at the server link speed (its catalog port groups)."""
        return self.leaf.radix_at(self.speed)

    @property
    def max_up(self) -> int:
        """The leaf's ports at the uplink speed."""
        return self.leaf.radix_at(self.up_speed or self.speed)


def _divisors(n: int) -> list[int]:
    small = [d for d in range(1, int(math.isqrt(n)) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def _smallest_divisor_at_least(n: int, minimum: float) -> int | None:
    for d in _divisors(n):
        if d >= minimum:
            return d
    return None


def _fmt(number: float) -> str:
    return f"{number:,.0f}" if float(number).is_integer() else f"{number:,}"


def leaf_split(
    radix: int,
    oversubscription: float,
    stride: int = 1,
    *,
    down_units: int = 1,
    max_down: int | None = None,
    max_up: int | None = None,
) -> tuple[int, int]:
    """Down and up ports of a leaf with bandwidth ratio ``down:up = o:1``, as many as fit.

    ``radix`` counts the leaf's ports at its slower link speed; an uplink takes ``stride`` of
    them and a downlink ``down_units`` (an 800G uplink on a leaf split 2 x 400G toward the
    servers takes 2; a 400G server link on a leaf whose 200G uplinks split its ports 4 x 200G
    takes 2). ``o`` is any ratio above 0: below 1 the uplinks carry more than the downlinks
    (``0.5`` is the "1:2" some vendors publish). ``max_down`` and ``max_up`` cap each side at
    the ports the leaf's groups offer at that speed.

    Examples
    --------
    >>> leaf_split(64, 1)
    (32, 32)
    >>> leaf_split(64, 3)
    (48, 16)
    >>> leaf_split(64, 1.5)
    (36, 24)
    >>> leaf_split(128, 1, stride=2)  # SN5600: 64 x 400G down, 32 x 800G up
    (64, 32)
    >>> leaf_split(64, 0.5)  # 1:2: 21 down, 42 up (one port left over)
    (21, 42)
    >>> leaf_split(256, 1, down_units=2)  # SN5600 4 x 200G: 64 x 400G down, 128 x 200G up
    (64, 128)
    """
    o = Fraction(oversubscription).limit_denominator(1000)
    if o <= 0:
        raise FabricError(
            f"oversubscription {oversubscription:g}:1 is below the 1:1000 a leaf's whole "
            "ports can give: use a larger ratio",
            field="oversubscription",
        )
    for up in range(math.floor(radix / ((o + 1) * stride)), 0, -1):
        down = o * up * stride / down_units
        if down.denominator != 1 or down < 1:
            continue
        if (max_down is not None and down > max_down) or (max_up is not None and up > max_up):
            continue
        if down * down_units + up * stride <= radix:
            return int(down), up
    raise FabricError(
        f"a leaf with {radix} ports cannot give whole down- and uplinks at {float(o):g}:1 "
        f"(downlink:uplink bandwidth; an uplink takes {stride} port(s), a downlink "
        f"{down_units}): choose another ratio or leaf",
        field="oversubscription",
    )


class _Namer:
    def __init__(self, spec: DesignSpec, plane: int):
        self.spec, self.plane = spec, plane
        self.prefix = f"p{plane + 1}-" if spec.planes > 1 else ""

    def names(self, role: str, count: int, **columns) -> list[str]:
        template = getattr(self.spec.naming, role)
        if role == "leaf" and template == "leaf-su{su:03d}-r{rail}":
            if self.spec.topology != "rail-optimized":
                template = "leaf-{pod:03d}-{index:03d}"
            elif "member" in columns and int(np.max(columns["member"], initial=0)) > 0:
                template = "leaf-su{su:03d}-r{rail}-{member}"
        out = []
        for i in range(count):
            values = {key: int(col[i]) + 1 for key, col in columns.items()}
            values.setdefault("index", i + 1)
            values["plane"] = self.plane + 1
            try:
                out.append(self.prefix + template.format(**values))
            except (KeyError, IndexError, ValueError, AttributeError) as exc:
                raise FabricError(
                    f"{template!r} uses an unknown field {exc}; "
                    f"fields: {', '.join(sorted(values))}",
                    field=f"naming.{role}",
                ) from exc
        return out


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
    """
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


def _plan(
    spec: DesignSpec,
    sw: _Switches,
    servers: int,
    rails: int,
    trays: int,
    gpus_per_server: int,
    final_servers: int | None = None,
) -> dict:
    """Decide SU size, leaf split, tier count, pods, spines and cores for one plane.

    With ``final_servers`` (``grow_to``), the tiers, spines and cores are those of the final
    build and only today's leaves are planned; ``growth`` says what each step adds.
    """
    if spec.topology == "fat-tree":
        k = spec.k
        per_pod = (k // 2) ** 2
        pods = math.ceil(servers * rails * trays / per_pod)
        return {
            "tiers": 3,
            "pods": pods,
            "servers_per_su": servers,
            "leaf_down": k // 2,
            "leaf_up": k // 2,
            "leaves": pods * (k // 2),
            "spines_per_pod": k // 2,
            "spines": pods * (k // 2),
            "cores_per_group": k // 2,
            "cores": (k // 2) ** 2,
            "reserved_leaf_ports": 0,
            "oversubscription": {"leaf": 1.0, "spine": 1.0},
        }
    final = None
    if final_servers is not None and final_servers > servers:
        final = _plan(spec, sw, final_servers, rails, trays, gpus_per_server)
    plan = _leaf_plan(spec, sw, servers, rails, trays)
    plan.update(_upper_plan(spec, sw, plan, servers, gpus_per_server, final))
    if final is not None:
        plan["growth"] = _growth(
            spec, plan, final, servers, final_servers, gpus_per_server, rails * trays
        )
    return plan


def _leaf_plan(spec: DesignSpec, sw: _Switches, servers: int, rails: int, trays: int) -> dict:
    """Servers per SU (or per leaf), leaves, and each leaf's downlinks and uplinks."""
    reserved = spec.reserved_leaf_ports
    one_tier = spec.tiers == 1
    o = Fraction(spec.oversubscription).limit_denominator(1000)
    if one_tier:  # no uplinks: every port at the server link speed faces down
        down, up = min(sw.max_down, sw.r_leaf // sw.down_units), 0
    else:
        down, up = leaf_split(
            sw.r_leaf,
            spec.oversubscription,
            sw.up_units,
            down_units=sw.down_units,
            max_down=sw.max_down,
            max_up=sw.max_up,
        )
    per_leaf = None  # servers whose rail port one leaf takes (rail-optimized)
    if spec.topology == "rail-optimized":
        if trays > 1:  # a rack-scale system puts ``trays`` ports on every rail
            systems_per_leaf = down // trays
            if systems_per_leaf < 1:
                raise FabricError(
                    f"a rail leaf takes the {trays} trays of a {spec.server} on one rail; "
                    f"{sw.leaf.slug} has {down} downlinks at {float(o):g}:1",
                    field="switches.leaf",
                )
            n = spec.servers_per_su or systems_per_leaf
            per_leaf = min(n, systems_per_leaf)
        else:
            n = spec.servers_per_su or down
            if n > down:
                raise FabricError(
                    f"servers_per_su = {n} needs {n} leaf downlinks; {sw.leaf.slug} "
                    f"({sw.r_leaf} ports at {sw.unit}G) at {float(o):g}:1 has {down}",
                    field="servers_per_su",
                )
            per_leaf = n
        leaf_down = per_leaf * trays
        if (spec.servers_per_su or trays > 1) and not one_tier:
            up_exact = Fraction(leaf_down * sw.down_units) / (o * sw.up_units)
            if up_exact.denominator != 1:
                what = "servers per SU" if trays == 1 else f"{spec.server} trays per leaf"
                raise FabricError(
                    f"{leaf_down} {what} at {float(o):g}:1 gives {float(up_exact):g} uplinks "
                    f"of {sw.up_speed}G per leaf; choose a size that divides evenly",
                    field="servers_per_su" if spec.servers_per_su else "oversubscription",
                )
            up = int(up_exact)
            if leaf_down * sw.down_units + up * sw.up_units > sw.r_leaf or up > sw.max_up:
                raise FabricError(
                    f"{leaf_down} downlinks of {sw.speed}G and {up} uplinks of {sw.up_speed}G "
                    f"at {float(o):g}:1 exceed {sw.leaf.slug}'s ports ({sw.r_leaf} x "
                    f"{sw.unit}G): use fewer servers per SU or a higher ratio",
                    field="servers_per_su" if spec.servers_per_su else "oversubscription",
                )
        down = leaf_down
        leaves_per_rail = math.ceil(n / per_leaf)
        sus = math.ceil(servers / n)
        leaves = sus * rails * leaves_per_rail
        unit = rails * leaves_per_rail  # leaves of one SU
        free = rails * trays * (sus * n - servers)  # empty server slots of the last SU
    else:
        # Servers (a rack-scale system's trays) on consecutive leaf ports, each whole on one
        # leaf: ``n`` of them per leaf.
        if rails > down:
            what = "a compute tray's" if trays > 1 else "a server's"
            raise FabricError(
                f"{what} {rails} ports do not fit the {down} downlinks of {sw.leaf.slug} "
                f"({sw.r_leaf} ports at {sw.unit}G)",
                field="rails",
            )
        n = down // rails
        down = n * rails
        mlag_pair = False
        if one_tier:
            n, down, mlag_pair = _one_tier_leaves(spec, sw, servers * trays, rails, down)
        else:
            up = max(1, math.ceil(Fraction(down * sw.down_units) / (o * sw.up_units)))
            while up > 1 and (
                down * sw.down_units + up * sw.up_units > sw.r_leaf or up > sw.max_up
            ):
                up -= 1  # whole servers per leaf may round the ratio; keep to the ports
        leaves = 2 if mlag_pair else math.ceil(servers * trays / n)
        sus = leaves
        leaves_per_rail = 1
        unit = 1
        free = leaves * down - servers * rails * trays
    if reserved > free:
        fewer = servers - math.ceil((reserved - free) / (rails * trays))
        raise FabricError(
            f"reserved_leaf_ports = {reserved} needs that many free leaf ports; {servers:,} "
            f"servers leave {free}. Use fewer servers (e.g. {fewer}) or fewer reserved ports",
            field="reserved_leaf_ports",
        )
    rail_pair = spec.topology == "rail-optimized" and one_tier and leaves == 2
    if rail_pair and (rails != 2 or trays > 1):
        raise FabricError(
            f"one tier with two rail leaves per plane keeps each rail on its own leaf; "
            f"{servers:,} servers on {rails} rail(s) need two leaves for one rail, which nothing "
            "joins: use tiers 2 (or auto), fewer servers, or topology: clos",
            field="tiers",
        )
    if one_tier and leaves > 2:
        raise FabricError(
            f"one tier is a single leaf or an MLAG pair per plane; {servers:,} servers on "
            f"{rails} rails need {leaves} rail leaves of {sw.leaf.slug} per plane: use tiers 2 "
            "(or auto), or topology: clos to put every rail on one leaf",
            field="tiers",
        )
    return {
        # one tier on two leaves: each server on both, nothing joins the two (see the flow
        # job: rings per rail, PXN)
        "mlag_pair": one_tier and leaves == 2,
        "servers_per_su": n,
        "servers_per_leaf": per_leaf if per_leaf is not None else n,
        "leaves_per_rail": leaves_per_rail,
        "leaves_per_su": unit,
        "sus": sus if spec.topology == "rail-optimized" else None,
        "leaves": leaves,
        "leaf_down": down,
        "leaf_up": up,
        "reserved_leaf_ports": reserved,
        "oversubscription": (
            {}
            if one_tier
            else {"leaf": round(down * sw.speed / (up * sw.up_speed), 4), "spine": 1.0}
        ),
    }


def _one_tier_leaves(
    spec: DesignSpec, sw: _Switches, units: int, rails: int, down: int
) -> tuple[int, int, bool]:
    """Servers per leaf, downlinks and whether it is an MLAG pair, for one tier (Clos).

    Every compute port of the plane lands on one leaf, or on a pair of leaves with each
    server dual-homed (its ports alternate between the two: no spine joins them, so each
    server must reach both). ``units`` counts servers (a rack-scale system's trays)."""
    links = units * rails
    if links <= down:
        return units, links, False
    if links <= 2 * down and rails >= 2 and rails % 2 == 0:
        return units, -(-links // 2), True
    why = (
        f"a pair takes at most {2 * down:,}"
        if rails >= 2 and rails % 2 == 0
        else "a pair needs each server dual-homed, and a server with one port cannot be"
    )
    raise FabricError(
        f"one tier is a single leaf or an MLAG pair per plane: {units:,} servers x {rails} "
        f"ports = {links:,} links at {sw.speed}G, and {sw.leaf.slug} has {down} ports at that "
        f"speed ({why}): use tiers 2 (or auto), fewer servers or a larger-radix leaf",
        field="tiers",
    )


def _spine_count(spec: DesignSpec, up: int, need: float, *, where: str) -> int:
    """Spines for leaves with ``up`` uplinks each that need at least ``need`` spines: the
    exact ``spines``, or the smallest divisor of ``up`` at least ``need`` and min_spines."""
    if spec.spines:
        if up % spec.spines:
            raise FabricError(
                f"spines = {spec.spines} does not divide a leaf's {up} uplinks evenly; "
                f"use one of {', '.join(map(str, _divisors(up)))}",
                field="spines",
            )
        if spec.spines < need:
            raise FabricError(
                f"spines = {spec.spines} is too few: {where} need at least {math.ceil(need)} "
                "spines' ports",
                field="spines",
            )
        return spec.spines
    chosen = _smallest_divisor_at_least(up, max(need, spec.min_spines))
    if chosen is None and _smallest_divisor_at_least(up, need) is not None:
        raise FabricError(
            f"min_spines = {spec.min_spines}: a leaf has only {up} uplink(s), so it cannot "
            f"reach {spec.min_spines} spines evenly; set min_spines: 1 to allow a single "
            "spine, or lower the oversubscription",
            field="min_spines",
        )
    return chosen


def _upper_plan(spec, sw, plan, servers, gpus_per_server, final) -> dict:
    """Tiers, pods, spines and cores of one plane (those of ``final`` when growing)."""
    leaves, up, unit = plan["leaves"], plan["leaf_up"], plan["leaves_per_su"]
    gpus = servers * gpus_per_server
    per_unit_gpus = plan["servers_per_su"] * gpus_per_server / unit if unit else 0
    max_two_gpus = int((sw.r_spine // unit) * unit * per_unit_gpus) if unit else 0
    fits_two = leaves <= sw.r_spine and (
        spec.spines is not None
        or _smallest_divisor_at_least(up, leaves * up / sw.r_spine) is not None
    )
    tiers = final["tiers"] if final else spec.tiers
    if tiers == 1:
        return {
            "tiers": 1,
            "pods": 1,
            "spines_per_pod": 0,
            "spines": 0,
            "cores": 0,
            "cores_per_group": 0,
        }
    if tiers == "auto":
        tiers = 2 if fits_two else 3
    if tiers == 2:
        if not fits_two:
            raise FabricError(
                f"{_fmt(gpus)} GPUs at radix {sw.r_spine} need 3 tiers: 2 tiers stop at "
                f"{_fmt(max_two_gpus)}",
                field="tiers",
            )
        if final:
            spines = final["spines"]
        else:
            spines = _spine_count(spec, up, leaves * up / sw.r_spine, where=f"{leaves} leaves")
        return {
            "tiers": 2,
            "pods": 1,
            "spines_per_pod": spines,
            "spines": spines,
            "cores": 0,
            "cores_per_group": 0,
        }
    # Three tiers: pods of whole SUs (or leaves) that half a spine's ports can take.
    half = sw.r_spine // 2
    if final:
        leaves_per_pod = final["leaves_per_pod"]
        pods = math.ceil(leaves / leaves_per_pod)
        return {
            "tiers": 3,
            "pods": pods,
            "leaves_per_pod": leaves_per_pod,
            "pod_spines": final["pod_spines"][:pods],
            "spine_down": final["spine_down"][:pods],
            "spine_up": final["spine_up"][:pods],
            "spines_per_pod": final["spines_per_pod"],
            "spines": sum(final["pod_spines"][:pods]),
            "cores_per_group": final["cores_per_group"],
            "cores": final["cores"],
        }
    units_per_pod = max(1, half // unit) if unit <= half else 0
    if units_per_pod == 0:
        raise FabricError(
            f"an SU of {unit} rail leaves does not fit a {sw.r_spine}-port spine's "
            f"{half} downlinks",
            field="switches.spine",
        )
    leaves_per_pod = units_per_pod * unit
    pods = math.ceil(leaves / leaves_per_pod)
    pod_leaves = [min(leaves_per_pod, leaves - p * leaves_per_pod) for p in range(pods)]
    # Each pod gets the fewest spines that divide a leaf's uplinks and keep every spine's
    # downlinks within half its ports (a partial last pod needs fewer spines).
    pod_spines = [
        _spine_count(spec, up, count * up / half, where=f"{count} leaves of a pod")
        for count in pod_leaves
    ]
    spine_down = [
        count * up // spines for count, spines in zip(pod_leaves, pod_spines, strict=True)
    ]
    groups = max(pod_spines)
    cores_per_group, spine_up = _core_groups(spine_down, pod_spines, groups, sw)
    if cores_per_group is None:
        max_gpus = int(sw.r_core * leaves_per_pod * per_unit_gpus / max(1, unit) * unit)
        raise FabricError(
            f"{_fmt(gpus)} GPUs exceed 3 tiers at radix {sw.r_core}: 3 tiers stop at "
            f"{_fmt(max_gpus)}; use a larger-radix switch or more planes",
            field="tiers",
        )
    return {
        "tiers": 3,
        "pods": pods,
        "leaves_per_pod": leaves_per_pod,
        "pod_spines": pod_spines,
        "spine_down": spine_down,
        "spine_up": spine_up,
        "spines_per_pod": groups,
        "spines": sum(pod_spines),
        "cores_per_group": cores_per_group,
        "cores": groups * cores_per_group,
    }


def _growth(spec, today, final, servers, final_servers, gpus_per_server, ports_per_server):
    """Today's and the final build's counts (all planes), and what each step adds.

    A step is one SU (rail-optimized) or one leaf (Clos); identical steps are run together
    (``count`` steps, each adding ``adds``)."""
    planes = spec.planes

    def counts(plan, count):
        return {
            "servers": count,
            "gpus": count * gpus_per_server,
            "leaves": plan["leaves"] * planes,
            "spines": plan["spines"] * planes,
            "cores": plan["cores"] * planes,
        }

    n = today["servers_per_su"]
    uplinks = today["leaf_up"] * planes * today["leaves_per_su"]
    per_pod = final.get("leaves_per_pod")
    pod_spines = final.get("pod_spines") or []
    spine_up = final.get("spine_up") or []
    steps: list[dict] = []
    have = servers
    filled_units = today["sus"] if spec.topology == "rail-optimized" else today["leaves"]
    leaves_now = today["leaves"]
    while have < final_servers:
        room = filled_units * n - have
        if room > 0:  # fill today's last, partial SU (or leaf): no new leaves
            add, leaves_added = min(room, final_servers - have), 0
        else:
            add, leaves_added = min(n, final_servers - have), today["leaves_per_su"]
            filled_units += 1
        pods_before = math.ceil(leaves_now / per_pod) if per_pod else 0
        leaves_now += leaves_added
        pods_after = math.ceil(leaves_now / per_pod) if per_pod else 0
        new_pods = range(pods_before, pods_after)
        have += add
        adds = {
            "servers": add,
            "gpus": add * gpus_per_server,
            "leaves": leaves_added * planes,
            "spines": sum(pod_spines[p] for p in new_pods) * planes,
            "server_leaf_links": add * ports_per_server * planes,
            "leaf_spine_links": uplinks if leaves_added else 0,
            "spine_core_links": sum(pod_spines[p] * spine_up[p] for p in new_pods) * planes,
        }
        if steps and steps[-1]["adds"] == adds:
            steps[-1]["count"] += 1
        else:
            steps.append({"count": 1, "adds": adds})
    return {
        "today": counts(today, servers),
        "final": counts(final, final_servers),
        "steps": steps,
    }


def _core_groups(spine_down, pod_spines, groups, sw) -> tuple[int | None, list[int]]:
    """Cores per group ``c`` and each pod's spine uplinks.

    Spine g of every pod joins core group g. A spine's uplinks must split evenly over the c
    cores of its group (balanced), be at least its downlinks (non-blocking) and fit its ports;
    so uplinks = downlinks rounded up to a multiple of c (a partial pod's spines may get a few
    more uplinks than downlinks). The smallest c whose cores have ports for their group wins.
    """
    for c in range(1, max(spine_down) + 1):
        spine_up = [math.ceil(d / c) * c for d in spine_down]
        if any(u + d > sw.r_spine for u, d in zip(spine_up, spine_down, strict=True)):
            continue
        load = max(
            sum(u for u, s_p in zip(spine_up, pod_spines, strict=True) if s_p > g)
            for g in range(groups)
        )
        if load <= c * sw.r_core:
            return c, spine_up
    return None, []


def _leaf_spine_plane(
    builder: FabricBuilder,
    spec: DesignSpec,
    sw: _Switches,
    plan: dict,
    server_nodes: np.ndarray,
    rails: int,
    trays: int,
    plane: int,
    namer: _Namer,
) -> None:
    servers = server_nodes.shape[0]
    leaves, down, up = plan["leaves"], plan["leaf_down"], plan["leaf_up"]
    leaf_ppc = _ports_per_cage(sw.leaf, sw.unit)
    ports = rails * trays  # per server: tray t's NIC r is port t * rails + r
    s_idx = np.repeat(np.arange(servers, dtype=np.int64), ports)
    p_idx = np.tile(np.arange(ports, dtype=np.int64), servers)
    t_idx, r_idx = p_idx // rails, p_idx % rails
    member = np.zeros(leaves, dtype=np.int64)
    if spec.topology == "rail-optimized":
        n, lpr = plan["servers_per_su"], plan["leaves_per_rail"]
        per_leaf = plan["servers_per_leaf"]
        sus = plan["sus"]
        leaf_su = np.repeat(np.arange(sus), rails * lpr)
        leaf_rail = np.tile(np.repeat(np.arange(rails), lpr), sus)
        member = np.tile(np.arange(lpr), sus * rails)
        in_su = s_idx % n
        leaf_of = ((s_idx // n) * rails + r_idx) * lpr + in_su // per_leaf
        leaf_port = (in_su % per_leaf) * trays + t_idx
    else:
        per_leaf = plan["servers_per_su"]  # servers (trays) per leaf
        leaf_su = np.arange(leaves) // max(1, plan.get("leaves_per_pod", leaves))
        leaf_rail = np.full(leaves, -1)
        unit = s_idx * trays + t_idx
        if plan.get("mlag_pair"):  # dual-homed: a server's ports alternate between the two
            k = unit * rails + r_idx
            leaf_of, leaf_port = k % 2, k // 2
        else:
            leaf_of = unit // per_leaf
            leaf_port = (unit % per_leaf) * rails + r_idx
    pod_of_leaf = (
        np.arange(leaves) // plan.get("leaves_per_pod", leaves)
        if plan["tiers"] == 3
        else np.zeros(leaves, dtype=np.int64)
    )
    leaf_names = namer.names(
        "leaf", leaves, su=leaf_su, rail=leaf_rail, pod=pod_of_leaf, member=member
    )
    leaf_nodes = builder.add_nodes(
        leaf_names,
        role="leaf",
        model=sw.leaf.slug,
        plane=plane,
        su=leaf_su,
        rail=leaf_rail,
        group=pod_of_leaf,
        ports=sw.r_leaf,
        ports_per_cage=leaf_ppc,
    )
    builder.add_links(
        server_nodes[s_idx],
        p_idx * spec.planes + plane,
        leaf_nodes[leaf_of],
        leaf_port * sw.down_units,
        tier="server-leaf",
        plane=plane,
        speed_gbps=sw.speed,
    )
    _reserved_ports(builder, spec, plan, leaf_nodes, rails, trays, servers, plane, namer, sw)
    _upper_tiers(builder, spec, sw, plan, leaf_nodes, pod_of_leaf, down, up, plane, namer)


def _reserved_ports(builder, spec, plan, leaf_nodes, rails, trays, servers, plane, namer, sw):
    """Fabric-manager (UFM) links on free leaf downlinks of the last SU or leaves.

    Rail-optimized: the free server slots of the last SU, rail by rail (slot ``k`` of a rail
    is the port a server there would use); Clos: the leaf ports after the last server's."""
    reserved = plan["reserved_leaf_ports"]
    if not reserved:
        return
    if spec.topology == "rail-optimized":
        n, sus = plan["servers_per_su"], plan["sus"]
        lpr, leaf_down = plan["leaves_per_rail"], plan["leaf_down"]
        used = (servers - (sus - 1) * n) * trays  # rail slots the last SU's servers use
        ks = np.arange(reserved)
        slot = used + ks // rails
        leaf = ((sus - 1) * rails + ks % rails) * lpr + slot // leaf_down
        port = slot % leaf_down
    else:
        down = plan["leaf_down"]
        used = servers * rails * trays
        slots = np.arange(used, used + reserved)
        leaf, port = slots // down, slots % down
        if plan.get("mlag_pair"):
            leaf, port = slots % 2, slots // 2
    manager = builder.add_nodes(
        [f"{namer.prefix}fabric-manager"],
        role="manager",
        model="fabric-manager",
        plane=plane,
        ports=reserved,
        ports_per_cage=1,
    )
    builder.add_links(
        np.full(reserved, manager[0]),
        np.arange(reserved),
        leaf_nodes[leaf],
        port * sw.down_units,
        tier="server-leaf",
        plane=plane,
        speed_gbps=sw.speed,
    )


def _ports_per_cage(model: DeviceModel, speed: int) -> int:
    group = model.group_at(speed)
    if group is None:
        return 1
    return group.ports_per_cage * group.split_at(speed)


def _uplink_base(sw: _Switches, down: int, up: int) -> int:
    """The leaf port (at ``sw.unit``) of the first uplink: after the downlinks, at the next
    cage when the uplinks still fit from there (a cage then holds links of one speed).

    >>> from planner.domain.catalog import DeviceModel, PortGroup
    >>> leaf = DeviceModel("L", "switch", (PortGroup(8, 1, 800, breakouts=("2x400G",)),))
    >>> _uplink_base(_Switches(leaf, leaf, leaf, 400, 16, 8, 8, 800), 5, 4)
    6
    """
    base = down * sw.down_units
    cage = max(1, _ports_per_cage(sw.leaf, sw.unit))
    aligned = -(-base // cage) * cage
    return aligned if aligned + up * sw.up_units <= sw.r_leaf else base


def _bundle(sw: _Switches, links_per_spine: int) -> int:
    """Uplinks that go to one spine together: the legs of one of the leaf's ports when its
    uplinks are a breakout slower than the server links (4 x 200G of an 800G port: one
    straight cable or fibre then carries them to one spine port), else 1.

    >>> from planner.domain.catalog import DeviceModel, PortGroup
    >>> sn = DeviceModel("SN", "switch", (PortGroup(64, 1, 800, breakouts=("2x400G", "4x200G")),))
    >>> _bundle(_Switches(sn, sn, sn, 400, 256, 256, 256, 200), 32)
    4
    >>> _bundle(_Switches(sn, sn, sn, 400, 128, 128, 128, 400), 32)
    1
    """
    if not sw.up_speed or sw.up_speed >= sw.speed:
        return 1
    group = sw.leaf.group_at(sw.up_speed)
    legs = group.split_at(sw.up_speed) if group else 1
    return legs if legs > 1 and links_per_spine % legs == 0 else 1


def _upper_tiers(builder, spec, sw, plan, leaf_nodes, pod_of_leaf, down, up, plane, namer):
    if plan["tiers"] == 1:
        return
    leaves = leaf_nodes.shape[0]
    spine_ppc = _ports_per_cage(sw.spine, sw.up_speed)
    stride = sw.up_units  # leaf ports (at ``sw.unit``) one uplink takes
    base = _uplink_base(sw, down, up)
    j = np.arange(up, dtype=np.int64)
    if plan["tiers"] == 2:
        s = plan["spines"]
        m = up // s
        spine_nodes = builder.add_nodes(
            namer.names("spine", s, group=np.zeros(s, dtype=int)),
            role="spine",
            model=sw.spine.slug,
            plane=plane,
            group=0,
            ports=sw.r_spine,
            ports_per_cage=spine_ppc,
        )
        l_idx = np.repeat(np.arange(leaves, dtype=np.int64), up)
        jj = np.tile(j, leaves)
        k = _bundle(sw, m)  # uplinks k at a time to one spine (1: one by one)
        builder.add_links(
            leaf_nodes[l_idx],
            base + jj * stride,
            spine_nodes[(jj // k) % s],
            l_idx * m + (jj // k) // s * k + jj % k,
            tier="leaf-spine",
            plane=plane,
            speed_gbps=sw.up_speed,
        )
        return
    pods, c, pod_spines = plan["pods"], plan["cores_per_group"], np.asarray(plan["pod_spines"])
    first_spine = np.concatenate([[0], np.cumsum(pod_spines)[:-1]])
    spine_pod = np.repeat(np.arange(pods), pod_spines)
    spine_group = np.concatenate([np.arange(count) for count in pod_spines])
    spine_nodes = builder.add_nodes(
        namer.names("spine", int(pod_spines.sum()), group=spine_pod, pod=spine_pod),
        role="spine",
        model=sw.spine.slug,
        plane=plane,
        su=spine_pod,
        group=spine_group,
        ports=sw.r_spine,
        ports_per_cage=spine_ppc,
    )
    # Leaf-spine: leaf l (position q in pod p) uplink j -> spine (p, j % s_p), m = up / s_p
    # links to each.
    l_idx = np.repeat(np.arange(leaves, dtype=np.int64), up)
    jj = np.tile(j, leaves)
    pod = pod_of_leaf[l_idx]
    s_of = pod_spines[pod]
    q = l_idx - pod * plan["leaves_per_pod"]
    k = _bundle(sw, int(np.gcd.reduce(up // pod_spines)))  # as in two tiers
    builder.add_links(
        leaf_nodes[l_idx],
        base + jj * stride,
        spine_nodes[first_spine[pod] + (jj // k) % s_of],
        q * (up // s_of) + (jj // k) // s_of * k + jj % k,
        tier="leaf-spine",
        plane=plane,
        speed_gbps=sw.up_speed,
    )
    # Spine-core: spine (p, g) has d_p downlinks and u_p >= d_p uplinks, spread evenly over
    # the c cores of group g; core ports are filled pod by pod.
    d = np.asarray(plan["spine_down"], dtype=np.int64)
    u = np.asarray(plan["spine_up"], dtype=np.int64)
    groups = plan["spines_per_pod"]
    core_ppc = _ports_per_cage(sw.core, sw.up_speed)
    core_group = np.repeat(np.arange(groups), c)
    core_nodes = builder.add_nodes(
        namer.names("core", groups * c, group=core_group),
        role="core",
        model=sw.core.slug,
        plane=plane,
        group=core_group,
        ports=sw.r_core,
        ports_per_cage=core_ppc,
    )
    a, a_port, b, b_port = [], [], [], []
    used = np.zeros(groups, dtype=np.int64)  # core ports used so far in each group
    for p in range(pods):
        k = np.arange(u[p], dtype=np.int64)
        for g in range(int(pod_spines[p])):
            a.append(np.full(u[p], spine_nodes[first_spine[p] + g]))
            a_port.append(d[p] + k)
            b.append(core_nodes[g * c + k % c])
            b_port.append(used[g] + k // c)
            used[g] += u[p] // c
    builder.add_links(
        np.concatenate(a),
        np.concatenate(a_port),
        np.concatenate(b),
        np.concatenate(b_port),
        tier="spine-core",
        plane=plane,
        speed_gbps=sw.up_speed,
    )


def _fat_tree_plane(builder, spec, sw, plan, server_nodes, rails, plane, namer) -> None:
    k = spec.k
    h = k // 2
    pods = plan["pods"]
    servers = server_nodes.shape[0]
    hosts = servers * rails
    e = np.arange(hosts, dtype=np.int64)
    edges = pods * h
    edge_pod = np.repeat(np.arange(pods), h)
    leaf_ppc = _ports_per_cage(sw.leaf, sw.speed)
    edge_nodes = builder.add_nodes(
        namer.names("leaf", edges, pod=edge_pod, su=edge_pod, rail=np.tile(np.arange(h), pods)),
        role="leaf",
        model=sw.leaf.slug,
        plane=plane,
        su=edge_pod,
        group=edge_pod,
        ports=sw.r_leaf,
        ports_per_cage=leaf_ppc,
    )
    builder.add_links(
        server_nodes[e // rails],
        (e % rails) * spec.planes + plane,
        edge_nodes[e // h],
        e % h,
        tier="server-leaf",
        plane=plane,
        speed_gbps=sw.speed,
    )
    agg_pod = np.repeat(np.arange(pods), h)
    agg_group = np.tile(np.arange(h), pods)
    agg_nodes = builder.add_nodes(
        namer.names("spine", edges, group=agg_pod, pod=agg_pod),
        role="spine",
        model=sw.spine.slug,
        plane=plane,
        su=agg_pod,
        group=agg_group,
        ports=sw.r_spine,
        ports_per_cage=_ports_per_cage(sw.spine, sw.speed),
    )
    # Edge i of pod p -> every aggregation switch of pod p, one link each.
    ei = np.repeat(np.arange(edges, dtype=np.int64), h)
    jj = np.tile(np.arange(h, dtype=np.int64), edges)
    pod = ei // h
    builder.add_links(
        edge_nodes[ei],
        h + jj,
        agg_nodes[pod * h + jj],
        ei % h,
        tier="leaf-spine",
        plane=plane,
        speed_gbps=sw.speed,
    )
    core_group = np.repeat(np.arange(h), h)
    core_nodes = builder.add_nodes(
        namer.names("core", h * h, group=core_group),
        role="core",
        model=sw.core.slug,
        plane=plane,
        group=core_group,
        ports=sw.r_core,
        ports_per_cage=_ports_per_cage(sw.core, sw.speed),
    )
    # Aggregation j of pod p -> the h cores of group j, one link each; core port = pod.
    ai = np.repeat(np.arange(edges, dtype=np.int64), h)
    tt = np.tile(np.arange(h, dtype=np.int64), edges)
    builder.add_links(
        agg_nodes[ai],
        h + tt,
        core_nodes[(ai % h) * h + tt],
        ai // h,
        tier="spine-core",
        plane=plane,
        speed_gbps=sw.speed,
    )
