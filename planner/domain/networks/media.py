"""Media of the cluster networks' links, chosen by length as the compute fabric's ``auto``.

The H100 SuperPOD reference architecture prints the parts of its own networks (RA-11333-001
V11 Table 8; :mod:`~planner.domain.networks.storage`, :mod:`~planner.domain.networks.inband`,
:mod:`~planner.domain.networks.oob`), and those stay. Every other link group sized without a
part (``cable`` None: storage, converged or in-band networks on other switches, the OOB
uplinks outside the RA) gets its media here, by the compute fabric's own selector
(:mod:`planner.domain.media`, no second one):

- the group's concrete links (:func:`planner.domain.networks.elements.cluster_elements`) are
  split by the pair of end models, as the compute fabric's groups are; each end's cage comes
  from the catalog: a switch's port group at the link speed
  (:func:`planner.domain.part_facts.end_cage`, ports per cage as the network's sizing counts
  them), a node's port of the network's role in the server record's ``other_ports``
  (storage, in-band; a converged port is read as the storage port), else an unknown cage;
- candidates are :func:`~planner.domain.media.optic_candidates` and
  :func:`~planner.domain.media.cable_candidates` (media ``auto``: cage form factors of both
  ends, speed, protocols, the links' wiring), ranked by
  :func:`~planner.domain.media.rank_candidates` (price when the price book has it, then power,
  fewest parts, shortest reach that covers the run) and chosen per connected set of links
  sharing a cage or a cable by :func:`planner.domain.media.choice.choose_candidates` with
  the links' run lengths (:mod:`planner.domain.networks.lengths`): short runs take the
  cheapest part that reaches them (a DAC or an AOC), long runs optics;
- a link without a run length (an end outside the plan or without a rack) is taken at the
  longest run of its group; a group with no run known, no candidate (an unknown cage, a far
  end outside the plan such as the storage arrays or the customer's core) or a run longer
  than every candidate reaches is not chosen, and the network's conventions say why.

The ranked options are kept with the link group (``media_options``), so that
:func:`apply_network_media` gives every later expansion of the elements the same parts
without the price book; the counts (``media``: cables per part, transceivers per end) feed
the summary, the bill of materials and the power budget (``parts``).

Nothing here imports Django.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from inventory.library.compat import Cage
from inventory.library.facts import cage_of
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import FabricError
from planner.domain.media import (
    Candidate,
    LinkGroup,
    MediaCatalog,
    PriceOf,
    cable_candidates,
    optic_candidates,
    rank_candidates,
)
from planner.domain.media.choice import choose_candidates
from planner.domain.media.groups import LinkEnd
from planner.domain.networks.common import (
    ClusterNetworks,
    NetworkPlan,
    PartCount,
    PartRef,
    find_part,
    switch_ports,
)
from planner.domain.part_facts import end_cage
from planner.domain.spec_model import MediaChoice

#: A node port's role in the server record's ``other_ports``, per network (first found).
NODE_PORT_ROLES = {
    "storage": ("storage",),
    "converged": ("converged", "storage"),
    "inband": ("inband",),
}
#: ``counted_per`` of the transceivers counted here (not the reference's printed parts).
CHOSEN_PER = "used cage, chosen by length"
CHOSEN_TEXT = (
    "Parts chosen by length, as the compute fabric's media auto (planner.domain.media): per "
    "link, the cheapest compatible cable or optics in the price book (unpriced parts last), "
    "then the lowest power, fewest parts and the shortest reach that covers its run, for the "
    "cages of both ends at the link speed; one choice for links sharing a cage or a cable. "
    "Runs as the layout measures them (a link without a run takes its group's longest). "
    "Transceivers are counted per used cage."
)


# --------------------------------------------------------------------------------------------
# the ends of a network link


def _node_cage(facts: CatalogFacts, slug: str, network: str) -> Cage:
    record = facts.parts.get(slug) or {}
    for role in NODE_PORT_ROLES.get(network, ()):
        for entry in record.get("other_ports") or []:
            if isinstance(entry, dict) and entry.get("role") == role and entry.get("form_factor"):
                return cage_of(record, entry)
    return Cage("host", None)


def _end(facts: CatalogFacts, model: str, network: str, speed: int) -> tuple[LinkEnd, bool]:
    """The :class:`LinkEnd` of a device ``model`` on ``network`` at ``speed``, and whether it
    is a switch (its ports named by cage)."""
    device = facts.devices.get(model) if model else None
    if device is not None and device.category == "switch":
        found, _, cage = end_cage(facts, model, speed)
        try:
            per_cage = switch_ports(facts, model, speed, "networks")[1]
        except FabricError:
            per_cage = 1
        return LinkEnd(found, cage, per_cage), True
    return LinkEnd(device, _node_cage(facts, model, network), 1), False


def _port_index(port: str, per_cage: int) -> int | None:
    """A switch port name (``3``, ``2/1``) as a 0-based logical port; None otherwise."""
    head, _, tail = port.partition("/")
    if not head.isdigit() or (tail and not tail.isdigit()):
        return None
    if tail:
        return (int(head) - 1) * per_cage + int(tail) - 1
    return int(head) - 1


class _Subgroup:
    """Links of one network link group between the same two device models."""

    def __init__(self, network, name, links, indexes, devices, facts):
        first = links[indexes[0]]
        self.network, self.name, self.indexes = network, name, indexes
        self.a_model = devices[first.a_device].model if first.a_device in devices else ""
        self.b_model = devices[first.b_device].model if first.b_device in devices else ""
        self.speed = int(first.speed_gbps)
        self.a, a_switch = _end(facts, self.a_model, network, self.speed)
        self.b, b_switch = _end(facts, self.b_model, network, self.speed)
        numbers: dict[str, int] = {}
        own: dict[tuple[str, str], int] = {}
        per_device: dict[str, int] = {}
        arrays = {}
        for end, switch, end_info in (("a", a_switch, self.a), ("b", b_switch, self.b)):
            nodes, ports = [], []
            for i in indexes:
                link = links[i]
                device = link.a_device if end == "a" else link.b_device
                port = link.a_port if end == "a" else link.b_port
                nodes.append(numbers.setdefault(device, len(numbers)))
                index = _port_index(port, end_info.ports_per_cage) if switch else None
                if index is None:  # a node's port: a cage of its own
                    if (device, port) not in own:
                        own[device, port] = per_device.get(device, 0)
                        per_device[device] = own[device, port] + 1
                    index = own[device, port]
                ports.append(index)
            arrays[end] = (np.asarray(nodes, dtype=np.int64), np.asarray(ports, dtype=np.int64))
        lengths = [links[i].run_length_m for i in indexes]
        known = [v for v in lengths if v is not None]
        self.longest = max(known) if known else None
        self.lengths = np.asarray(
            [self.longest if v is None else v for v in lengths], dtype=np.float64
        )
        self.outside = not self.a_model or not self.b_model

        def describe(i: int, length_m: float) -> str:
            link = links[indexes[i]]
            return (
                f"{network} {name} link {link.a_device} {link.a_port} -> {link.b_device} "
                f"{link.b_port} ({length_m:g} m)"
            )

        self.group = LinkGroup.from_ends(
            f"{network} {name}", self.speed, self.a, self.b, arrays, describe
        )

    def key(self) -> tuple[str, str, int]:
        return (self.a_model, self.b_model, self.speed)


def _subgroups(network, name, links, indexes, devices, facts) -> list[_Subgroup]:
    by_models: dict[tuple, list[int]] = {}
    for i in indexes:
        link = links[i]
        a = devices.get(link.a_device)
        b = devices.get(link.b_device)
        key = (a.model if a else "", b.model if b else "", int(link.speed_gbps))
        by_models.setdefault(key, []).append(i)
    return [
        _Subgroup(network, name, links, members, devices, facts) for members in by_models.values()
    ]


def _choose(sub: _Subgroup, ranked: list[Candidate]) -> tuple[np.ndarray | None, str]:
    """Per link of ``sub``, the index of its candidate in ``ranked``; or None and why not."""
    if not ranked:
        return None, "no candidate"
    if sub.longest is None:
        first = sub.group.describe(0, float("nan")).rsplit(" (", 1)[0]
        return None, (
            f"no run length is known ({first}: an end without a rack); a run length is "
            "needed to choose"
        )
    try:
        return choose_candidates(sub.group, ranked, sub.lengths, "media"), ""
    except FabricError as exc:
        return None, str(exc)


def _candidate(option: dict) -> Candidate:
    return Candidate(
        option["kind"],
        option.get("a"),
        option.get("b"),
        option["cable"],
        float(option["reach_m"]),
        tuple(option.get("lengths") or ()),
        int(option["a_group"]),
        int(option["b_group"]),
    )


def _option(cand: Candidate) -> dict:
    return {
        "kind": cand.kind,
        "a": cand.a,
        "b": cand.b,
        "cable": cand.cable,
        "reach_m": cand.reach_m,
        "lengths": list(cand.lengths),
        "a_group": cand.a_group,
        "b_group": cand.b_group,
    }


def _kind_label(facts: CatalogFacts, cand: Candidate) -> str:
    part = facts.parts.get(cand.cable) or {}
    if cand.kind == "cable":
        return str(part.get("cable_type") or "cable").upper()
    return str(part.get("fiber_type") or "fiber").upper()


# --------------------------------------------------------------------------------------------
# applying stored options (every expansion of the elements)


def apply_network_media(links: list, networks: dict, devices: dict, facts: CatalogFacts) -> list:
    """``links`` with the media their groups' stored options choose (module docstring).

    Parameters
    ----------
    links : list of NetworkLink
        Every network link, run lengths set.
    networks : dict
        ``fabric.settings.networks``; link groups with ``media_options`` are applied.
    devices : dict
        Device name -> NetworkDevice (their models).
    facts : CatalogFacts

    Returns
    -------
    list of NetworkLink
        The same links; those chosen get ``cable_part``, ``cable_kind`` and, for optics,
        ``a_transceiver`` and ``b_transceiver``.
    """
    wanted = {
        (name, group["name"]): group["media_options"]
        for name, plan in (networks or {}).items()
        for group in plan.get("link_groups") or []
        if group.get("media_options")
    }
    if not wanted:
        return links
    members: dict[tuple, list[int]] = {}
    for i, link in enumerate(links):
        if (link.network, link.group) in wanted:
            members.setdefault((link.network, link.group), []).append(i)
    out = list(links)
    for (network, name), indexes in members.items():
        options = {
            (o["a_model"], o["b_model"], int(o["speed_gbps"])): o for o in wanted[network, name]
        }
        for sub in _subgroups(network, name, links, indexes, devices, facts):
            option = options.get(sub.key())
            ranked = [_candidate(c) for c in (option or {}).get("candidates") or []]
            chosen, _ = _choose(sub, ranked)
            if chosen is None:
                continue
            for position, i in enumerate(sub.indexes):
                cand = ranked[int(chosen[position])]
                out[i] = replace(
                    links[i],
                    cable_part=cand.cable,
                    cable_kind=_kind_label(facts, cand),
                    a_transceiver=cand.a or "",
                    b_transceiver=cand.b or "",
                )
    return out


# --------------------------------------------------------------------------------------------
# choosing and counting (once, when the design is built)


def _side(device, is_switch: bool) -> str:
    if is_switch:
        return "switch"
    if device is not None and device.network == "compute":
        return "node"
    return device.role if device is not None else "endpoint"


def needs_media(cluster: ClusterNetworks) -> bool:
    """Whether any link group of ``cluster`` was sized without a part."""
    return any(
        group.cable is None and group.links
        for plan in cluster.networks
        if plan.name != "management"
        for group in plan.link_groups
    )


def choose_network_media(
    cluster: ClusterNetworks, elements, facts: CatalogFacts, *, price_of: PriceOf = None
) -> ClusterNetworks:
    """``cluster`` with media chosen for every link group sized without a part (module
    docstring).

    Parameters
    ----------
    cluster : ClusterNetworks
        The networks as :func:`planner.domain.networks.cluster_networks` sized them.
    elements : ClusterElements
        Their devices and links with run lengths
        (:func:`planner.domain.networks.elements.cluster_elements` of the fabric whose
        ``settings.networks`` is ``cluster.as_dict()``).
    facts : CatalogFacts
    price_of : callable, optional
        Unit price of a slug (None: unpriced), as for the compute fabric's media.

    Returns
    -------
    ClusterNetworks
        Chosen groups carry ``media`` (counts per part combination) and ``media_options``;
        a group with a single medium for every link also gets it as ``cable``; the chosen
        transceivers are added to the network's ``parts`` per part and side.
    """
    catalog = MediaCatalog(facts, price_of)
    links = list(elements.links)
    devices = {d.name: d for d in elements.devices}
    by_group: dict[tuple[str, str], list[int]] = {}
    for i, link in enumerate(links):
        by_group.setdefault((link.network, link.group), []).append(i)
    plans = []
    for plan in cluster.networks:
        groups, notes, modules = [], [], {}
        for group in plan.link_groups:
            indexes = by_group.get((plan.name, group.name)) or []
            if group.cable is not None or not group.links or not indexes:
                groups.append(group)
                continue
            group, why = _choose_group(plan.name, group, links, indexes, devices, facts, catalog)
            groups.append(group)
            notes += why
            for use in group.media:
                for end in ("a", "b"):
                    if use.get(end):
                        key = (use[end], use[f"{end}_side"])
                        modules[key] = modules.get(key, 0) + int(use[f"{end}_modules"])
        if not any(g.media for g in groups) and not notes:
            plans.append(plan)
            continue
        parts = list(plan.parts)
        for (slug, side), count in sorted(modules.items()):
            record = facts.parts.get(slug) or {}
            ref = find_part(facts, (slug,), str(record.get("name") or slug), "transceiver")
            parts.append(PartCount(ref, side, count, "transceiver", CHOSEN_PER))
        conventions = [c for c in plan.conventions if not c.startswith("Parts are not chosen")]
        if any(g.media for g in groups):
            conventions.append(CHOSEN_TEXT)
        conventions += notes
        plans.append(
            NetworkPlan(
                name=plan.name,
                switches=plan.switches,
                link_groups=tuple(groups),
                parts=tuple(parts),
                endpoints=plan.endpoints,
                conventions=tuple(conventions),
                managed_ports=plan.managed_ports,
                settings=plan.settings,
                bandwidth=plan.bandwidth,
            )
        )
    return replace(cluster, networks=tuple(plans))


def _choose_group(network, group, links, indexes, devices, facts, catalog):
    """One link group: its options, choice and counts; and the notes on what was not chosen.

    Long because: one loop over a group's options that keeps the best choice and the notes on every
    option not chosen.
    """
    options, uses, notes = [], {}, []
    chosen_links = 0
    for sub in _subgroups(network, group.name, links, indexes, devices, facts):
        where = f"{network} {group.name} ({sub.a_model or 'outside the plan'} to "
        where += f"{sub.b_model or 'outside the plan'}, {len(sub.indexes)} links)"
        if sub.outside:
            notes.append(
                f"{where}: not chosen, an end is outside the plan (its cage is not known)."
            )
            continue
        candidates, reasons = [], []
        for make in (optic_candidates, cable_candidates):
            found, reason = make(sub.group, catalog, MediaChoice("auto"), {})
            candidates += found
            reasons.append(reason)
        if not candidates:
            why = "; ".join(r.rstrip(".") for r in reasons if r)
            notes.append(f"{where}: not chosen, {why}.")
            continue
        ranked = rank_candidates(candidates, sub.group, catalog)
        reach = np.array([c.reach_m for c in ranked])
        keep = [i for i in range(len(ranked)) if i == 0 or reach[i] > reach[:i].max()]
        ranked = [ranked[i] for i in keep]  # the only ones the choice can take
        chosen, why = _choose(sub, ranked)
        options.append(
            {
                "a_model": sub.a_model,
                "b_model": sub.b_model,
                "speed_gbps": sub.speed,
                "candidates": [_option(c) for c in ranked],
            }
        )
        if chosen is None:
            notes.append(f"{where}: not chosen, {why}.")
            continue
        a_keys = sub.group.keys("a", sub.a.ports_per_cage)
        b_keys = sub.group.keys("b", sub.b.ports_per_cage)
        a_device = devices.get(links[sub.indexes[0]].a_device)
        b_device = devices.get(links[sub.indexes[0]].b_device)
        a_switch = sub.a.model is not None and sub.a.model.category == "switch"
        b_switch = sub.b.model is not None and sub.b.model.category == "switch"
        for index in np.unique(chosen).tolist():
            cand = ranked[int(index)]
            mask = chosen == index
            cables = {links[sub.indexes[p]].cable_id for p in np.flatnonzero(mask).tolist()}
            use = uses.setdefault(
                (cand.a, cand.b, cand.cable),
                {
                    "cable": find_part(
                        facts,
                        (cand.cable,),
                        str((facts.parts.get(cand.cable) or {}).get("name") or cand.cable),
                        str((facts.parts.get(cand.cable) or {}).get("category") or "cable"),
                    ).as_dict(),
                    "cable_kind": _kind_label(facts, cand),
                    "a": cand.a,
                    "b": cand.b,
                    "a_side": _side(a_device, a_switch) if cand.a else "",
                    "b_side": _side(b_device, b_switch) if cand.b else "",
                    "reach_m": cand.reach_m,
                    "links": 0,
                    "cables": 0,
                    "a_modules": 0,
                    "b_modules": 0,
                    "longest_run_m": 0.0,
                },
            )
            use["links"] += int(mask.sum())
            use["cables"] += len(cables)
            if cand.a:
                use["a_modules"] += int(np.unique(a_keys[mask]).size)
                use["b_modules"] += int(np.unique(b_keys[mask]).size)
            use["longest_run_m"] = max(use["longest_run_m"], float(sub.lengths[mask].max()))
            chosen_links += int(mask.sum())
    media = tuple(uses.values())
    whole = len(media) == 1 and chosen_links == group.links
    kinds = sorted({use["cable_kind"] for use in media})
    if media and chosen_links < group.links:
        kinds.append("not chosen")
    return (
        replace(
            group,
            media=media,
            media_options=tuple(options),
            cable=_ref(media[0]["cable"]) if whole else None,
            cable_kind=" / ".join(kinds) if media else group.cable_kind,
        ),
        notes,
    )


def _ref(cable: dict) -> PartRef:
    return PartRef(
        label=cable["part"],
        part_number=cable["part_number"],
        description=cable["description"],
        in_catalog=cable["in_catalog"],
        category=cable["category"],
    )


__all__ = ["NODE_PORT_ROLES", "apply_network_media", "choose_network_media", "needs_media"]
