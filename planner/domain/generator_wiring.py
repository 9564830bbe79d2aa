"""How a generated plane is wired: leaves to spines to cores, and the k-ary fat-tree.

Split from :mod:`planner.domain.generators`: each function here builds one plane's switches
and links from a plan of :mod:`planner.domain.generator_plans`, balanced as that module's
rules require, with the names :class:`_Namer` gives."""

from __future__ import annotations

import numpy as np

from planner.domain.catalog import DeviceModel
from planner.domain.fabric import FabricBuilder, FabricError
from planner.domain.spec_model import DesignSpec

from .generator_plans import _Switches


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
    """Spines and cores of one plane, and their links to the leaves (two or three tiers).

    Long because: the wiring formulas of two and three tiers (see its comments) work on the same
    index arrays.
    """
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
