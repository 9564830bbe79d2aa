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

import numpy as np

from planner.domain.catalog import CatalogFacts, DeviceModel
from planner.domain.fabric import Fabric, FabricBuilder, FabricError
from planner.domain.spec import DesignSpec

Progress = Callable[[int, int], None] | None


@dataclass
class _Switches:
    leaf: DeviceModel
    spine: DeviceModel
    core: DeviceModel
    speed: int
    r_leaf: int
    r_spine: int
    r_core: int


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


def leaf_split(radix: int, oversubscription: float, reserved: int = 0) -> tuple[int, int]:
    """Down and up ports of a leaf: ``down = up * o`` as large as the radix allows.

    Examples
    --------
    >>> leaf_split(64, 1)
    (32, 32)
    >>> leaf_split(64, 3)
    (48, 16)
    >>> leaf_split(64, 1.5)
    (36, 24)
    """
    for up in range(int(radix // (oversubscription + 1)), 0, -1):
        down = up * oversubscription
        if float(down).is_integer() and down + up <= radix:
            return int(down), up
    raise FabricError(
        f"a {radix}-port leaf cannot be split {oversubscription}:1", field="oversubscription"
    )


class _Namer:
    def __init__(self, spec: DesignSpec, plane: int):
        self.spec, self.plane = spec, plane
        self.prefix = f"p{plane + 1}-" if spec.planes > 1 else ""

    def names(self, role: str, count: int, **columns) -> list[str]:
        template = getattr(self.spec.naming, role)
        if (
            role == "leaf"
            and self.spec.topology != "rail-optimized"
            and template == "leaf-su{su:03d}-r{rail}"
        ):
            template = "leaf-{pod:03d}-{index:03d}"
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

    Raises
    ------
    FabricError
        The spec cannot be built (infeasible counts, a switch without ports at the link speed,
        ...); the message says why and what would work.
    CatalogLookupError
        The spec names a part that is not in the catalog.
    """
    server = facts.device(spec.server, "server", field_name="server")
    if not server.ports or not server.port_speed_gbps:
        raise FabricError(
            f"{server.slug} has no compute ports with a known speed in the catalog", field="server"
        )
    rails = spec.rails or server.ports
    if rails > server.ports:
        raise FabricError(
            f"{server.slug} has {server.ports} compute ports; rails cannot be {rails}",
            field="rails",
        )
    port_speed = server.port_speed_gbps
    if port_speed % spec.planes:
        raise FabricError(
            f"{port_speed}G ports cannot be split into {spec.planes} planes", field="planes"
        )
    speed = port_speed // spec.planes
    switches = _switches(spec, facts, speed)
    gpus_per_server = server.gpus or rails
    if spec.topology == "fat-tree":
        servers = _fat_tree_servers(spec, rails, switches)
    else:
        servers = spec.servers
    builder = FabricBuilder()
    server_group = server.group_at(port_speed)
    server_ppc = (server_group.ports_per_cage if server_group else 1) * spec.planes
    plan = _plan(spec, switches, servers, rails, gpus_per_server)
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
        ports=rails * spec.planes,
        ports_per_cage=server_ppc,
    )
    info = {
        "topology": spec.topology,
        "servers": servers,
        "gpus": servers * gpus_per_server,
        "rails": rails,
        "planes": spec.planes,
        "speed_gbps": speed,
        "server_port_speed_gbps": port_speed,
        "radix": {"leaf": switches.r_leaf, "spine": switches.r_spine, "core": switches.r_core},
        **plan,
    }
    for plane in range(spec.planes):
        namer = _Namer(spec, plane)
        if spec.topology == "fat-tree":
            _fat_tree_plane(builder, spec, switches, plan, server_nodes, rails, plane, namer)
        else:
            _leaf_spine_plane(builder, spec, switches, plan, server_nodes, rails, plane, namer)
        if on_progress:
            on_progress(plane + 1, spec.planes)
    fabric = builder.build(info)
    if len(set(fabric.node_name)) != fabric.node_count:
        raise FabricError(
            "node names are not unique; include {index} (and the tier's fields) "
            "in the naming templates",
            field="naming",
        )
    return fabric


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


def _switches(spec: DesignSpec, facts: CatalogFacts, speed: int) -> _Switches:
    models = {}
    radix = {}
    for role in ("leaf", "spine", "core"):
        model = facts.device(getattr(spec, role), "switch", field_name=f"switches.{role}")
        radix[role] = model.radix_at(speed)
        if not radix[role]:
            raise FabricError(_speed_refusal(model, speed), field=f"switches.{role}")
        models[role] = model
    return _Switches(
        models["leaf"],
        models["spine"],
        models["core"],
        speed,
        radix["leaf"],
        radix["spine"],
        radix["core"],
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


def _plan(spec: DesignSpec, sw: _Switches, servers: int, rails: int, gpus_per_server: int) -> dict:
    """Decide SU size, leaf split, tier count, pods, spines and cores for one plane."""
    if spec.topology == "fat-tree":
        k = spec.k
        per_pod = (k // 2) ** 2
        pods = math.ceil(servers * rails / per_pod)
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
    reserved = spec.reserved_leaf_ports
    down, up = leaf_split(sw.r_leaf, spec.oversubscription)
    if spec.topology == "rail-optimized":
        n = spec.servers_per_su or down
        if n > down:
            raise FabricError(
                f"servers_per_su = {n} needs {n} leaf downlinks; a {sw.r_leaf}-port leaf at "
                f"{spec.oversubscription:g}:1 has {down}",
                field="servers_per_su",
            )
        if spec.servers_per_su:
            up_exact = n / spec.oversubscription
            if not up_exact.is_integer():
                raise FabricError(
                    f"{n} servers per SU at {spec.oversubscription:g}:1 gives "
                    f"{up_exact:g} uplinks per leaf; choose an SU size that divides "
                    "evenly",
                    field="servers_per_su",
                )
            up = int(up_exact)
        down = n
        sus = math.ceil(servers / n)
        leaves = sus * rails
        per_leaf_servers = n
    else:
        if rails > down:
            raise FabricError(
                f"a server's {rails} ports do not fit the {down} downlinks of a "
                f"{sw.r_leaf}-port leaf",
                field="rails",
            )
        per_leaf_servers = down // rails
        down = per_leaf_servers * rails
        up_exact = down / spec.oversubscription
        up = max(1, math.ceil(up_exact))
        leaves = math.ceil(servers / per_leaf_servers)
        sus = leaves
        n = per_leaf_servers
    if spec.topology == "rail-optimized":
        free = rails * (sus * n - servers)  # empty server slots of the last SU, on every rail
    else:
        free = leaves * down - servers * rails
    if reserved > free:
        fewer = servers - math.ceil((reserved - free) / rails)
        raise FabricError(
            f"reserved_leaf_ports = {reserved} needs that many free leaf ports; {servers:,} "
            f"servers leave {free}. Use fewer servers (e.g. {fewer}) or fewer reserved ports",
            field="reserved_leaf_ports",
        )
    gpus = servers * gpus_per_server
    # Two tiers: every leaf reaches every spine; s divides up and L * up / s <= spine radix.
    max_two_tier_leaves = sw.r_spine
    two_tier_spines = _smallest_divisor_at_least(up, leaves * up / sw.r_spine)
    fits_two = two_tier_spines is not None and leaves <= max_two_tier_leaves
    per_leaf_gpus = (
        per_leaf_servers * gpus_per_server / (rails if spec.topology == "rail-optimized" else 1)
    )
    max_two_gpus = int(
        (sw.r_spine // (rails if spec.topology == "rail-optimized" else 1))
        * (rails if spec.topology == "rail-optimized" else 1)
        * per_leaf_gpus
    )
    tiers = spec.tiers
    if tiers == "auto":
        tiers = 2 if fits_two else 3
    plan = {
        "servers_per_su": n,
        "sus": sus if spec.topology == "rail-optimized" else None,
        "leaves": leaves,
        "leaf_down": down,
        "leaf_up": up,
        "reserved_leaf_ports": reserved,
        "tiers": tiers,
        "oversubscription": {"leaf": round(down / up, 4), "spine": 1.0},
    }
    if tiers == 2:
        if not fits_two:
            raise FabricError(
                f"{_fmt(gpus)} GPUs at radix {sw.r_spine} need 3 tiers: 2 tiers stop at "
                f"{_fmt(max_two_gpus)}",
                field="tiers",
            )
        plan.update(
            pods=1,
            spines_per_pod=two_tier_spines,
            spines=two_tier_spines,
            cores=0,
            cores_per_group=0,
        )
        return plan
    # Three tiers: pods of whole SUs (or leaves) that half a spine's ports can take.
    half = sw.r_spine // 2
    unit = rails if spec.topology == "rail-optimized" else 1
    units_per_pod = max(1, half // unit) if unit <= half else 0
    if units_per_pod == 0:
        raise FabricError(
            f"an SU of {rails} rail leaves does not fit a {sw.r_spine}-port spine's "
            f"{half} downlinks",
            field="switches.spine",
        )
    leaves_per_pod = units_per_pod * unit
    pods = math.ceil(leaves / leaves_per_pod)
    pod_leaves = [min(leaves_per_pod, leaves - p * leaves_per_pod) for p in range(pods)]
    # Each pod gets the fewest spines that divide a leaf's uplinks and keep every spine's
    # downlinks within half its ports (a partial last pod needs fewer spines).
    pod_spines = [_smallest_divisor_at_least(up, count * up / half) for count in pod_leaves]
    spine_down = [
        count * up // spines for count, spines in zip(pod_leaves, pod_spines, strict=True)
    ]
    groups = max(pod_spines)
    cores_per_group, spine_up = _core_groups(spine_down, pod_spines, groups, sw)
    if cores_per_group is None:
        max_gpus = int(sw.r_core * leaves_per_pod * per_leaf_gpus)
        raise FabricError(
            f"{_fmt(gpus)} GPUs exceed 3 tiers at radix {sw.r_core}: 3 tiers stop at "
            f"{_fmt(max_gpus)}; use a larger-radix switch or more planes",
            field="tiers",
        )
    plan.update(
        pods=pods,
        leaves_per_pod=leaves_per_pod,
        pod_spines=pod_spines,
        spine_down=spine_down,
        spine_up=spine_up,
        spines_per_pod=groups,
        spines=sum(pod_spines),
        cores_per_group=cores_per_group,
        cores=groups * cores_per_group,
    )
    return plan


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
    plane: int,
    namer: _Namer,
) -> None:
    servers = server_nodes.shape[0]
    leaves, down, up = plan["leaves"], plan["leaf_down"], plan["leaf_up"]
    leaf_ppc = _ports_per_cage(sw.leaf, sw.speed)
    s_idx = np.repeat(np.arange(servers, dtype=np.int64), rails)
    r_idx = np.tile(np.arange(rails, dtype=np.int64), servers)
    if spec.topology == "rail-optimized":
        n = plan["servers_per_su"]
        leaf_su = np.repeat(np.arange(plan["sus"]), rails)
        leaf_rail = np.tile(np.arange(rails), plan["sus"])
        leaf_of = (s_idx // n) * rails + r_idx
        leaf_port = s_idx % n
    else:
        per_leaf = plan["servers_per_su"]
        leaf_su = np.arange(leaves) // max(1, plan.get("leaves_per_pod", leaves))
        leaf_rail = np.full(leaves, -1)
        leaf_of = s_idx // per_leaf
        leaf_port = (s_idx % per_leaf) * rails + r_idx
    pod_of_leaf = (
        np.arange(leaves) // plan.get("leaves_per_pod", leaves)
        if plan["tiers"] == 3
        else np.zeros(leaves, dtype=np.int64)
    )
    leaf_names = namer.names("leaf", leaves, su=leaf_su, rail=leaf_rail, pod=pod_of_leaf)
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
        r_idx * spec.planes + plane,
        leaf_nodes[leaf_of],
        leaf_port,
        tier="server-leaf",
        plane=plane,
        speed_gbps=sw.speed,
    )
    _reserved_ports(builder, spec, plan, leaf_nodes, rails, servers, plane, namer, sw.speed)
    _upper_tiers(builder, spec, sw, plan, leaf_nodes, pod_of_leaf, down, up, plane, namer)


def _reserved_ports(builder, spec, plan, leaf_nodes, rails, servers, plane, namer, speed) -> None:
    """Fabric-manager (UFM) links on free leaf downlinks of the last SU or leaves."""
    reserved = plan["reserved_leaf_ports"]
    if not reserved:
        return
    if spec.topology == "rail-optimized":
        n, sus = plan["servers_per_su"], plan["sus"]
        last_su_servers = servers - (sus - 1) * n
        ks = np.arange(reserved)
        leaf = (sus - 1) * rails + ks % rails
        port = last_su_servers + ks // rails
    else:
        per_leaf, down = plan["servers_per_su"], plan["leaf_down"]
        used = servers * rails
        slots = np.arange(used, used + reserved)
        leaf, port = slots // down, slots % down
        del per_leaf
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
        port,
        tier="server-leaf",
        plane=plane,
        speed_gbps=speed,
    )


def _ports_per_cage(model: DeviceModel, speed: int) -> int:
    group = model.group_at(speed)
    if group is None:
        return 1
    return group.ports_per_cage * group.split_at(speed)


def _upper_tiers(builder, spec, sw, plan, leaf_nodes, pod_of_leaf, down, up, plane, namer):
    leaves = leaf_nodes.shape[0]
    spine_ppc = _ports_per_cage(sw.spine, sw.speed)
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
        builder.add_links(
            leaf_nodes[l_idx],
            down + jj,
            spine_nodes[jj % s],
            l_idx * m + jj // s,
            tier="leaf-spine",
            plane=plane,
            speed_gbps=sw.speed,
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
    builder.add_links(
        leaf_nodes[l_idx],
        down + jj,
        spine_nodes[first_spine[pod] + jj % s_of],
        q * (up // s_of) + jj // s_of,
        tier="leaf-spine",
        plane=plane,
        speed_gbps=sw.speed,
    )
    # Spine-core: spine (p, g) has d_p downlinks and u_p >= d_p uplinks, spread evenly over
    # the c cores of group g; core ports are filled pod by pod.
    d = np.asarray(plan["spine_down"], dtype=np.int64)
    u = np.asarray(plan["spine_up"], dtype=np.int64)
    groups = plan["spines_per_pod"]
    core_ppc = _ports_per_cage(sw.core, sw.speed)
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
        speed_gbps=sw.speed,
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
