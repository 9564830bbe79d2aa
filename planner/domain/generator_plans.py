"""How many switches a generated fabric needs, tier by tier: the plans the generators wire.

Split from :mod:`planner.domain.generators`, whose docstring states the sizing rules
(reference-architectures.md §2): a leaf's split of ports, the spine count that keeps wiring
balanced, pods and core groups, and the room left for growth."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from planner.domain.catalog import DeviceModel
from planner.domain.fabric import FabricError
from planner.domain.spec_model import DesignSpec


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
    """Servers per SU (or per leaf), leaves, and each leaf's downlinks and uplinks.

    Long because: the leaf sizing rule: one case per topology (rail-optimized, one tier, Clos, rack-
    scale) over the same counts; the cases are the rule as the module docstring states it.
    """
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
    """Tiers, pods, spines and cores of one plane (those of ``final`` when growing).

    Long because: the spine and core sizing rule for two and three tiers over the same counts, as
    the module docstring states it.
    """
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
