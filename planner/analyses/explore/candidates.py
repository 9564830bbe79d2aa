"""Candidates of an exploration: every design the requirements allow, pruned by arithmetic
before anything is built.

Axes, in the enumeration order (outermost first): topology, server, planes (which fix the
server-link speed: the server's port speed over the planes), tiers, leaf, spine and core
switch models (one model in every tier unless ``switches`` is a mapping per tier),
oversubscription, cabling, uplink speed (the link speed, or the leaf's faster port speed).
The transport is the leaf's (InfiniBand switches give an InfiniBand fabric, Ethernet ones
RoCE).

Pruning (each prune is recorded with the field at fault and why, grouped by reason):

- ``gpus``: no whole number of the server's systems falls in the GPU range;
- ``planes``: the server's NIC port cannot split into that many planes (its listed breakouts);
- ``speeds_gbps``: the plane speed is not an allowed one;
- ``transports``: the switch's transport is not allowed, the tiers' switches speak different
  protocols, or the server's compute NIC does not list the protocol;
- ``switches.<role>``: the switch runs no port at the link speed;
- ``tiers``: the switches' radix cannot hold the servers' ports in that many tiers at that
  ratio (upper bounds: one tier a leaf pair, two tiers ``down x spine radix``, three tiers
  ``down x spine radix / 2 x core radix``, ``down`` the leaf's downlinks at the ratio), or
  fewer tiers already hold them (a third tier only adds switches, power and hops);
- ``limits.budget`` / ``limits.power_kw``: a lower bound of the servers' and switches' price
  (counts at full radix, no optics or cables) or typical power is already over the limit;
- ``max_candidates``: over the cap, candidates are kept evenly spread over the enumeration
  order (every ``n / max``-th), which is deterministic and says so.

What arithmetic cannot settle (cages, reach, media, the generator's exact divisibility) is
left to the build: such a candidate is evaluated and reported ``infeasible`` with the build's
reason.

Pure (no Django).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from planner.domain.catalog import CatalogFacts, DeviceModel
from planner.domain.transport.resolve import nic_of_server
from planner.domain.transport.settings import (
    NIC_PROFILE_DEFAULTS,
    ROCE_PROFILE_DEFAULTS,
    nic_capabilities,
    nic_profile_for,
    switch_profile_for,
)

from .probe import MediaProbes
from .requirements import Requirements, RequirementsError, problem

#: ``base`` keys that only a rail-optimized spec takes (left out of other topologies).
RAIL_ONLY_KEYS = ("servers_per_su",)

PriceOf = Callable[[str], float | None] | None


@dataclass(frozen=True)
class Candidate:
    """One design to evaluate: its axes, a complete design-spec document and a label."""

    index: int
    key: str
    axes: dict
    document: dict
    label: str


@dataclass(frozen=True)
class Enumeration:
    """The candidates kept, the prunes (grouped by field and reason) and the bounds used."""

    candidates: tuple[Candidate, ...]
    pruned: tuple[dict, ...]
    bounds: dict


def transport_of(model: DeviceModel) -> str:
    """``infiniband`` for a switch that speaks InfiniBand and not Ethernet, else ``ethernet``."""
    protocols = set(model.protocols or ())
    return "infiniband" if "infiniband" in protocols and "ethernet" not in protocols else "ethernet"


def ratio_text(ratio: float | None) -> str:
    """``3:1``, ``1.5:1``; ``-`` for no ratio (one tier)."""
    return "-" if ratio is None else f"{ratio:g}:1"


def server_count(server: DeviceModel, gpus_min: int, gpus_max: int) -> int | None:
    """Whole systems of ``server`` giving a GPU count within the range (the fewest), or None."""
    per = int(server.gpus or 0)
    if not per:
        return None
    count = math.ceil(gpus_min / per)
    return count if count * per <= gpus_max else None


def plane_speed(server: DeviceModel, planes: int) -> int | None:
    """The server-link speed at ``planes`` planes, or None when its port cannot split so."""
    port = server.port_speed_gbps or 0
    if not port or port % planes:
        return None
    speed = port // planes
    group = server.group_at(port)
    if planes == 1:
        return speed
    return speed if group and group.split_at(speed) == planes else None


def _nic_protocols(facts: CatalogFacts, server: str) -> tuple[str, set[str]]:
    key, name, _ = nic_of_server(facts, server)
    record = facts.parts.get(key) or {}
    protocols = record.get("protocols")
    return (name or key), set(protocols) if isinstance(protocols, list | tuple) else set()


@dataclass(frozen=True)
class _Cell:
    """What the capacity arithmetic needs of one (server, planes) choice."""

    server: DeviceModel
    servers: int
    planes: int
    speed: int
    ports: int  # server ports per plane

    @property
    def gpus(self) -> int:
        return self.servers * int(self.server.gpus or 0)


def downlinks(radix: int, ratio: float) -> int:
    """Most downlinks of a leaf of ``radix`` ports at ``ratio`` (down:up), an upper bound."""
    return int(radix * ratio / (1 + ratio))


def capacity(leaf_radix: int, spine_radix: int, core_radix: int, tiers: int, ratio: float) -> int:
    """Upper bound of server ports one plane holds (module doc)."""
    if tiers == 1:
        return 2 * leaf_radix
    down = downlinks(leaf_radix, ratio)
    if tiers == 2:
        return down * spine_radix
    return down * (spine_radix // 2) * core_radix


def switch_counts(cell: _Cell, radix: tuple[int, int, int], tiers: int, ratio: float) -> tuple:
    """Lower bounds of (leaves, spines, cores) over all planes."""
    r_leaf, r_spine, r_core = radix
    if tiers == 1:
        return cell.planes * math.ceil(cell.ports / r_leaf), 0, 0
    down = max(1, downlinks(r_leaf, ratio))
    leaves = math.ceil(cell.ports / down)
    up_ports = leaves * (r_leaf - down)
    spines = math.ceil(up_ports / r_spine) if tiers == 2 else math.ceil(2 * up_ports / r_spine)
    cores = math.ceil(spines * (r_spine // 2) / r_core) if tiers == 3 else 0
    return cell.planes * leaves, cell.planes * spines, cell.planes * cores


class _Pruned:
    """Prunes grouped by (field, reason), each with a count and its first candidate's axes."""

    def __init__(self):
        self.groups: dict[tuple[str, str], dict] = {}
        self.best: tuple[int, str] | None = None  # most GPUs a capacity-pruned choice holds

    def note_capacity(self, gpus: int, what: str) -> None:
        if self.best is None or gpus > self.best[0]:
            self.best = (gpus, what)

    def add(self, field_name: str, reason: str, axes: dict, count: int = 1) -> None:
        entry = self.groups.get((field_name, reason))
        if entry is None:
            self.groups[(field_name, reason)] = {
                "field": field_name,
                "reason": reason,
                "count": count,
                "axes": dict(axes),
            }
        else:
            entry["count"] += count

    def as_tuple(self) -> tuple[dict, ...]:
        return tuple(self.groups.values())

    @property
    def total(self) -> int:
        return sum(entry["count"] for entry in self.groups.values())


# --- The axes ---------------------------------------------------------------------------------


def _cells(req: Requirements, facts: CatalogFacts, pruned: _Pruned) -> list[_Cell]:
    """(server, planes) choices the GPU range, the NIC's splits and the speeds allow."""
    cells = []
    for slug in req.servers:
        server = facts.devices[slug]
        axes = {"server": slug}
        count = server_count(server, req.gpus_min, req.gpus_max)
        if count is None:
            per = int(server.gpus or 0)
            pruned.add(
                "gpus",
                f"{slug} has {per} GPUs per system: no whole number of them gives "
                f"{req.gpus_min:,} to {req.gpus_max:,} GPUs",
                axes,
            )
            continue
        for planes in req.planes:
            speed = plane_speed(server, planes)
            axes = {"server": slug, "planes": planes}
            if speed is None:
                pruned.add(
                    "planes",
                    f"{slug}'s {server.port_speed_gbps}G NIC port lists no split into {planes} "
                    "planes",
                    axes,
                )
                continue
            if req.speeds_gbps and speed not in req.speeds_gbps:
                pruned.add(
                    "speeds_gbps",
                    f"{slug} in {planes} plane(s) runs {speed}G per plane, not an allowed speed",
                    {**axes, "speed_gbps": speed},
                )
                continue
            cells.append(_Cell(server, count, planes, speed, count * server.ports))
    return cells


def _switch_sets(
    req: Requirements, tiers: int, topology: str
) -> list[tuple[str, str | None, str | None]]:
    """(leaf, spine, core) models for ``tiers``: one model everywhere, or the per-tier
    products when ``switches`` is a mapping (a fat-tree is always one model)."""
    if not req.mix_switches or topology == "fat-tree":
        return [(s, s if tiers >= 2 else None, s if tiers == 3 else None) for s in req.leaves]
    out = []
    for leaf in req.leaves:
        if tiers == 1:
            out.append((leaf, None, None))
            continue
        for spine in req.spines:
            if tiers == 2:
                out.append((leaf, spine, None))
            else:
                out.extend((leaf, spine, core) for core in req.cores)
    return out


def _switch_problem(cell: _Cell, models: list[DeviceModel], req: Requirements, nic) -> tuple:
    """(field, reason) when the switches cannot serve the cell at all; None when they may."""
    transport = transport_of(models[0])
    if transport not in req.transports:
        return (
            "transports",
            f"{models[0].slug} is an {transport} switch; allowed: {', '.join(req.transports)}",
        )
    for role, model in zip(("leaf", "spine", "core"), models, strict=False):
        if transport_of(model) != transport:
            return (
                "transports",
                f"the {role} {model.slug} speaks {transport_of(model)}, the leaf {transport}",
            )
        if not model.radix_at(cell.speed):
            fastest = model.port_speed_gbps or 0
            return (
                f"switches.{role}",
                f"{model.slug} runs no port at {cell.speed}G (its ports: {fastest}G, "
                "breakouts as listed)",
            )
    name, protocols = nic
    if protocols and transport not in protocols:
        return "transports", f"{cell.server.slug}'s compute NIC ({name}) does not list {transport}"
    return None


def _tiers_of(req: Requirements, topology: str) -> tuple[int, ...]:
    return (3,) if topology == "fat-tree" else req.tiers


def _ratios_of(req: Requirements, tiers: int, topology: str) -> tuple[float | None, ...]:
    if tiers == 1 or topology == "fat-tree":
        return (None,)
    return req.ratios


def fat_tree_k(ports: int) -> int:
    """The smallest even k >= 4 whose k-ary fat-tree (k^3 / 4 host ports) holds ``ports``."""
    k = 4
    while k**3 // 4 < ports:
        k += 2
    return k


# --- Arithmetic prunes ------------------------------------------------------------------------


def _radix(cell: _Cell, models: list[DeviceModel]) -> tuple[int, int, int]:
    radix = [m.radix_at(cell.speed) for m in models] + [0, 0]
    return radix[0], radix[1] or radix[0], radix[2] or radix[1] or radix[0]


def _capacity_problem(
    cell: _Cell, models, tiers: int, ratio, topology: str, pruned: _Pruned
) -> tuple | None:
    """(field, reason) when the radix cannot hold the cell's ports (module doc)."""
    radix = _radix(cell, models)
    leaf = models[0].slug
    per_port = (cell.server.gpus or 0) / max(1, cell.server.ports)
    if topology == "fat-tree":
        k = fat_tree_k(cell.ports)
        if k > radix[0]:
            return (
                "topologies",
                f"a fat-tree of {cell.ports:,} host ports per plane needs k = {k}; {leaf} has "
                f"{radix[0]} ports at {cell.speed}G",
            )
        return None
    if topology == "rail-optimized" and tiers == 1 and cell.server.ports > 1:
        return (
            "tiers",
            f"one tier of a rail-optimized fabric is a leaf per rail with nothing joining the "
            f"{cell.server.ports} rails of {cell.server.slug}: one tier is a clos (every rail "
            "on one leaf or an MLAG pair)",
        )
    held = capacity(*radix, tiers, ratio or 1.0)
    if held < cell.ports:
        at = "" if ratio is None else f" at {ratio_text(ratio)}"
        pruned.note_capacity(
            int(held * per_port),
            f"{'/'.join(dict.fromkeys(m.slug for m in models))} at {cell.speed}G in {tiers} "
            f"tier(s){at}",
        )
        return (
            "tiers",
            f"{cell.ports:,} server ports per plane ({cell.gpus:,} GPUs) exceed what "
            f"{'/'.join(m.slug for m in models)} at {cell.speed}G hold in {tiers} tier(s){at}: "
            f"at most {held:,} ports ({int(held * per_port):,} GPUs)",
        )
    if tiers == 3 and capacity(*radix, 2, ratio or 1.0) >= cell.ports:
        return (
            "tiers",
            f"two tiers already hold {cell.ports:,} server ports per plane on {leaf} at "
            f"{cell.speed}G: a third tier only adds switches, power and hops",
        )
    return None


def _limit_problem(cell: _Cell, models, tiers, ratio, req: Requirements, price_of) -> tuple | None:
    """(field, reason) when a lower bound of price or power is over the limit."""
    if tiers == 1:
        counts = switch_counts(cell, _radix(cell, models), 1, 1.0)
    else:
        counts = switch_counts(cell, _radix(cell, models), tiers, ratio or 1.0)
    roles = list(models) + [models[-1]] * (3 - len(models))
    budget = req.limits.budget
    if budget is not None and budget.amount is not None and price_of is not None:
        each = [price_of(m.slug) or 0.0 for m in roles]
        bound = (price_of(cell.server.slug) or 0.0) * cell.servers + sum(
            c * p for c, p in zip(counts, each, strict=True)
        )
        if bound > budget.amount:
            return (
                "limits.budget",
                f"at least {bound:,.0f} {budget.currency} for {cell.servers:,} "
                f"{cell.server.slug} and {sum(counts):,} switches (before optics and cables) "
                f"is over the budget of {budget.amount:,.0f}",
            )
    if req.limits.power_kw is not None:
        watts = (cell.server.power_typical_w or 0.0) * cell.servers + sum(
            c * (m.power_typical_w or 0.0) for c, m in zip(counts, roles, strict=True)
        )
        if watts / 1000 > req.limits.power_kw:
            return (
                "limits.power_kw",
                f"at least {watts / 1000:,.1f} kW for the servers and {sum(counts):,} switches "
                f"(typical power, before optics) is over {req.limits.power_kw:,g} kW",
            )
    return None


# --- Documents --------------------------------------------------------------------------------


def candidate_key(axes: dict) -> str:
    """``rail-optimized|DGX-H100|QM9700/QM9700/-|400G|1p|2t|1:1|point-to-point``."""
    switches = "/".join(axes[r] or "-" for r in ("leaf", "spine", "core"))
    return "|".join(
        (
            axes["topology"],
            axes["server"],
            switches,
            f"{axes['speed_gbps']}G",
            f"{axes['planes']}p",
            f"{axes['tiers']}t",
            ratio_text(axes["oversubscription"]),
            axes["cabling"],
        )
    ) + (
        f"|up{axes['uplink_gbps']}G"
        if axes.get("uplink_gbps", axes["speed_gbps"]) != axes["speed_gbps"]
        else ""
    )


def candidate_label(axes: dict) -> str:
    """A short sentence: ``1,024 DGX-H100, QM9700 rail-optimized, 2 tiers, 400G, 1:1``."""
    switches = (
        axes["leaf"]
        + (f"/{axes['spine']}" if axes["spine"] and axes["spine"] != axes["leaf"] else "")
        + (f"/{axes['core']}" if axes["core"] and axes["core"] != axes["spine"] else "")
    )
    planes = f", {axes['planes']} planes" if axes["planes"] > 1 else ""
    ratio = f", {ratio_text(axes['oversubscription'])}" if axes["oversubscription"] else ""
    cabling = ", patch panels" if axes["cabling"] == "patch-panel" else ""
    if axes.get("uplink_gbps", axes["speed_gbps"]) != axes["speed_gbps"]:
        cabling += f", {axes['uplink_gbps']}G uplinks"
    if (axes.get("roce") or {}).get("load_balancing"):
        cabling += f", {axes['roce']['load_balancing'].upper()}"
    return (
        f"{axes['servers']:,} {axes['server']}, {switches} {axes['topology']}, "
        f"{axes['tiers']} tier{'s' if axes['tiers'] > 1 else ''}, {axes['speed_gbps']}G"
        f"{planes}{ratio}{cabling}"
    )


def _value(sourced):
    return getattr(sourced, "value", sourced)


def roce_settings(facts: CatalogFacts, leaf: str, server: str) -> dict:
    """What a RoCE candidate sets in its ``transport`` block so that its switches and NICs
    agree (configuration, not parts; empty when the profiles' defaults already agree):

    - ``load_balancing: ecmp`` when the leaf's profile defaults to adaptive routing or
      spraying and the server's NIC is not known to reorder packets (ConnectX-7 on
      Spectrum-4: validation's ``ar-nic-unsupported`` refuses it and suggests ECMP);
    - ``lossless_dscp`` / ``lossless_priority`` widened to the NIC's data marking when the
      switch profile classifies another one (Arista's DSCP 24 against ConnectX's 26:
      validation's ``roce-priority-mismatch`` suggests aligning them)."""
    maker = (facts.parts.get(leaf) or {}).get("manufacturer")
    profile = ROCE_PROFILE_DEFAULTS.get(switch_profile_for(maker)) or {}
    key, name, nic_maker = nic_of_server(facts, server)
    out: dict = {}
    if _value(profile.get("load_balancing")) in ("adaptive", "spraying"):
        adaptive, _, _ = nic_capabilities(key, name)
        if not adaptive:
            out["load_balancing"] = "ecmp"
    nic = NIC_PROFILE_DEFAULTS.get(nic_profile_for(nic_maker, name)) or {}
    dscp, nic_dscp = _value(profile.get("lossless_dscp")), _value(nic.get("data_dscp"))
    if dscp is not None and nic_dscp is not None and nic_dscp not in tuple(dscp):
        out["lossless_dscp"] = sorted({*tuple(dscp), int(nic_dscp)})
    prio, nic_prio = _value(profile.get("lossless_priority")), _value(nic.get("data_priority"))
    if prio is not None and nic_prio is not None and prio != nic_prio:
        out["lossless_priority"] = int(nic_prio)
    return out


def candidate_document(axes: dict, req: Requirements, facts: CatalogFacts, index: int) -> dict:
    """The design-spec document of a candidate (``parse_spec`` accepts it)."""
    server = facts.devices[axes["server"]]
    doc = dict(req.base)
    if axes["topology"] != "rail-optimized":
        for key in RAIL_ONLY_KEYS:  # scalable units are the rail-optimized generator's
            doc.pop(key, None)
    doc.update(
        name=f"{req.name} #{index}"[:100],
        description=candidate_label(axes)[:2000],
        topology=axes["topology"],
        server=axes["server"],
        planes=axes["planes"],
        tiers=axes["tiers"],
        oversubscription=axes["oversubscription"] or 1,
        switches={r: axes[r] for r in ("leaf", "spine", "core") if axes[r]},
    )
    doc["racks" if server.is_rack_system else "servers"] = axes["servers"]
    if axes["topology"] == "fat-tree":
        doc["k"] = axes["k"]
    if axes.get("uplink_gbps", axes["speed_gbps"]) != axes["speed_gbps"]:
        doc["uplink_speed_gbps"] = axes["uplink_gbps"]
    if axes["cabling"] == "patch-panel":
        tiers = ("leaf-spine", "spine-core")[: axes["tiers"] - 1]
        doc["cabling"] = dict.fromkeys(tiers, "patch-panel")
    if axes.get("roce"):
        doc["transport"] = {"type": "roce", **axes["roce"]}
    if req.limits.budget is not None and req.limits.budget.price_book:
        doc["price_book"] = req.limits.budget.price_book
    return doc


# --- Enumeration ------------------------------------------------------------------------------


def _axes(cell: _Cell, topology: str, models, tiers: int, ratio, cabling: str) -> dict:
    roles = [m.slug for m in models] + [None] * (3 - len(models))
    axes = {
        "topology": topology,
        "server": cell.server.slug,
        "servers": cell.servers,
        "gpus": cell.gpus,
        "leaf": roles[0],
        "spine": roles[1],
        "core": roles[2],
        "transport": transport_of(models[0]),
        "speed_gbps": cell.speed,
        "planes": cell.planes,
        "tiers": tiers,
        "oversubscription": ratio,
        "cabling": cabling,
    }
    if topology == "fat-tree":
        axes["k"] = fat_tree_k(cell.ports)
    return axes


def _with_balancing(axes: dict, facts: CatalogFacts) -> dict:
    if axes["transport"] == "ethernet":
        settings = roce_settings(facts, axes["leaf"], axes["server"])
        if settings:
            axes["roce"] = settings
    return axes


def _uplink_speeds(cell: _Cell, models, tiers: int, topology: str, req, pruned) -> list[int]:
    """The distinct switch-to-switch speeds of ``req.uplinks`` for this choice: the link
    speed, and the leaf's fastest port speed where it is faster and every upper tier runs it
    (one tier and fat-trees: the link speed only)."""
    speeds: list[int] = []
    for kind in req.uplinks:
        speed = cell.speed
        if kind == "port" and tiers >= 2 and topology != "fat-tree":
            native = models[0].port_speed_gbps or cell.speed
            upper = list(models[1:])
            if native > cell.speed and all(m.radix_at(native) for m in upper):
                speed = native
            elif native > cell.speed:
                slow = next(m.slug for m in upper if not m.radix_at(native))
                pruned.add(
                    "uplinks",
                    f"{slow} runs no {native}G port for {models[0].slug}'s {native}G uplinks",
                    {"leaf": models[0].slug, "spine": models[1].slug if len(models) > 1 else None},
                )
                continue
        if speed not in speeds:
            speeds.append(speed)
    return speeds


def _walk(req: Requirements, facts: CatalogFacts, pruned: _Pruned, price_of) -> list[dict]:
    """Every surviving candidate's axes, in the enumeration order (module doc).

    Long because: the nested loop over the axes, each level pruning what it can settle.
    """
    kept: list[dict] = []
    probes = MediaProbes(facts, price_of)
    cells = _cells(req, facts, pruned)
    nics = {slug: _nic_protocols(facts, slug) for slug in req.servers}
    n_cab = len(req.cabling)
    for topology in req.topologies:
        for cell in cells:
            base = {"topology": topology, "server": cell.server.slug, "planes": cell.planes}
            if topology == "fat-tree" and 3 not in req.tiers:
                pruned.add("tiers", "a fat-tree has three tiers: allow tiers 3", base)
                continue
            for tiers in _tiers_of(req, topology):
                ratios = _ratios_of(req, tiers, topology)
                for names in _switch_sets(req, tiers, topology):
                    models = [facts.devices[n] for n in names if n]
                    axes = {
                        **base,
                        "tiers": tiers,
                        "leaf": names[0],
                        "spine": names[1],
                        "core": names[2],
                    }
                    found = _switch_problem(cell, models, req, nics[cell.server.slug])
                    if found:
                        pruned.add(*found, axes, count=len(ratios) * n_cab)
                        continue
                    arithmetic = {
                        ratio: _capacity_problem(cell, models, tiers, ratio, topology, pruned)
                        or _limit_problem(cell, models, tiers, ratio, req, price_of)
                        for ratio in ratios
                    }
                    if not all(arithmetic.values()):  # something fits: are there parts?
                        found = probes.refusal(cell.server, cell.planes, *names[:2], tiers)
                        if found:
                            pruned.add(*found, axes, count=len(ratios) * n_cab)
                            continue
                    for ratio in ratios:
                        axes_r = {**axes, "oversubscription": ratio}
                        if arithmetic[ratio]:
                            pruned.add(*arithmetic[ratio], axes_r, count=n_cab)
                            continue
                        for cabling in req.cabling:
                            if cabling == "patch-panel" and tiers == 1:
                                pruned.add(
                                    "cabling",
                                    "one tier has no switch-to-switch runs to patch",
                                    axes_r,
                                )
                                continue
                            for up in _uplink_speeds(cell, models, tiers, topology, req, pruned):
                                axes_c = _axes(cell, topology, models, tiers, ratio, cabling)
                                axes_c["uplink_gbps"] = up
                                kept.append(_with_balancing(axes_c, facts))
    return kept


def _cap(kept: list[dict], limit: int, pruned: _Pruned) -> tuple[list[dict], dict | None]:
    """At most ``limit`` candidates, evenly spread over the enumeration order."""
    total = len(kept)
    if total <= limit:
        return kept, None
    chosen = [kept[(i * total) // limit] for i in range(limit)]
    pruned.add(
        "max_candidates",
        f"{total:,} candidates survive pruning; {limit:,} are kept, evenly spread over the "
        f"enumeration order (every {total / limit:.2f}th)",
        kept[1] if total > 1 else kept[0],
        count=total - limit,
    )
    return chosen, {"enumerated": total, "kept": limit, "rule": "evenly spread"}


def _nothing_left(req: Requirements, pruned: _Pruned) -> RequirementsError:
    """The refusal when every candidate is pruned: the field that pruned the most, and why
    (for the radix, the most GPUs any allowed choice holds)."""
    groups = sorted(pruned.groups.values(), key=lambda g: -g["count"])
    if not groups:
        return RequirementsError([problem("empty", "servers", "no server or switch to try")])
    problems = []
    capacity_pruned = any(
        g["field"] == "tiers" and "exceed" in g["reason"] for g in pruned.groups.values()
    )
    if capacity_pruned and pruned.best is not None:
        ratios = " or ".join(ratio_text(r) for r in req.ratios)
        tiers = " or ".join(str(t) for t in req.tiers)
        which = "catalog" if req.any_switches else "allowed"
        most, what = pruned.best
        problems.append(
            problem(
                "radix",
                "oversubscription" if 3 in req.tiers else "tiers",
                f"no {which} switch reaches {ratios} at {req.gpus_min:,} GPUs in {tiers} "
                f"tier(s): the most any holds is {most:,} GPUs ({what}); allow a higher "
                "oversubscription, more tiers or planes, or fewer GPUs",
            )
        )
    for entry in groups[: 3 - len(problems)]:
        problems.append(problem("nothing-fits", entry["field"], entry["reason"]))
    return RequirementsError(problems)


def enumerate_candidates(
    req: Requirements, facts: CatalogFacts, *, price_of: PriceOf = None
) -> Enumeration:
    """The candidates ``req`` allows, pruned and capped (module doc); deterministic.

    ``price_of(slug)`` (a unit price in the budget's currency, or None) lets the budget prune.

    Raises
    ------
    RequirementsError
        Nothing survives pruning: the problems name the fields that pruned most and why.
    """
    pruned = _Pruned()
    kept = _walk(req, facts, pruned, price_of)
    if not kept:
        raise _nothing_left(req, pruned)
    survived = len(kept)
    kept, capped = _cap(kept, req.max_candidates, pruned)
    candidates = []
    for index, axes in enumerate(kept):
        candidates.append(
            Candidate(
                index=index,
                key=candidate_key(axes),
                axes=axes,
                document=candidate_document(axes, req, facts, index),
                label=candidate_label(axes),
            )
        )
    bounds = {
        "survived": survived,
        "pruned": pruned.total,
        "capped": capped,
        "max_candidates": req.max_candidates,
        "rules": {
            "capacity": "one tier: 2 x leaf ports; two: leaf downlinks x spine ports; three: leaf "
            "downlinks x spine ports / 2 x core ports (ports at the link speed, per plane)",
            "limits": "servers x unit price + lower-bound switch counts x unit price (no optics, "
            "cables or racks); likewise typical power",
        },
    }
    return Enumeration(tuple(candidates), pruned.as_tuple(), bounds)


__all__ = [
    "Candidate",
    "Enumeration",
    "candidate_document",
    "candidate_key",
    "enumerate_candidates",
    "transport_of",
]
