"""Filling a fabric's media columns: :func:`assign_media`.

Links are grouped by tier and by (a-end model and cage group, b-end model and cage group,
speed) (:class:`~planner.domain.media.groups.LinkGroup`); each group's candidates
(:mod:`~planner.domain.media.candidates`) are ranked and chosen per connected set of links
(:mod:`~planner.domain.media.choice`), and its cables ordered
(:mod:`~planner.domain.media.lengths`).

Links through one cage share ``link_*_module``. Links of one cable assembly or one fiber (a
1:2 breakout's legs) share ``link_cable``. Cable ends are recorded in
``link_a_part``/``link_b_part`` with no module id.

Fabric-manager (UFM) links (:func:`_manager_links`) get the switch-end module of their cage
(the cage is used) and, on an InfiniBand leaf whose module takes the UFM-to-leaf fiber
(:data:`UFM_LEAF_CABLE`), that fiber, one per link, and a UFM-side transceiver per
fabric-manager port (:data:`UFM_SIDE_TRANSCEIVER`), so that the summary, the BOM and the
cabling plan count the parts NVIDIA's SuperPOD BOM lists for them (RA-11333-001 V11 Table 8).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from planner.domain.arrays import unique as unique_sorted
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, TIER_NAMES, Fabric, FabricError
from planner.domain.media.budget import BudgetCheck
from planner.domain.media.candidates import CABLE_KINDS, cable_candidates, optic_candidates
from planner.domain.media.catalog import MediaCatalog, PriceOf
from planner.domain.media.choice import choose_candidates, rank_candidates
from planner.domain.media.groups import NODE_SHIFT, LinkGroup, describe_link
from planner.domain.media.lengths import POLICY_TEXT, order_lengths, sold_lengths
from planner.domain.names import end_name
from planner.domain.physical.optics_tables import tables_for
from planner.domain.spec_model import DesignSpec, MediaChoice

#: The cable from the fabric manager (UFM appliance) to a leaf: NVIDIA DGX SuperPOD H100
#: reference architecture RA-11333-001 V11 Table 8 (primary), "NDR Cables, 200 Gbps, UFM to
#: leaf ports", 980-9I557-00N030. One per UFM link: the QM97x0 manual (Interfaces, primary)
#: runs the UFM side as "1 port in 400 Gb/s" (MMA4Z00-NS400) against one active switch-side
#: port, and RA Table 4 counts the 4 UFM links of the 4 SU fabric among its node+UFM -> leaf
#: *cables* (1,020 = 1,016 + 4); Table 8 prints 2 of them, which no wiring of one free leaf
#: port per UFM link reaches (a 1:2 splitter would put a 2 x 200G port beside a node's 400G
#: port in one twin-port cage, which catalog rule 8 forbids). Inferred: 4.
UFM_LEAF_CABLE = "980-9I557-00N030"
#: The UFM-side transceiver of that cable, RA-11333-001 V11 Table 8: "UFM System Transceivers"
#: 980-9I51S-00NS00, 4 for the 4 UFM links; the QM97x0 manual's UFM-side module, the seed
#: catalog's MMA4Z00-NS400 (https://docs.nvidia.com/networking/display/MMA4Z00NS400T).
UFM_SIDE_TRANSCEIVER = "980-9I51S-00NS00"

KIND_LABELS = {
    "auto": "media",
    "MMF": "MMF optics",
    "SMF": "SMF optics",
    "DAC": "DAC cables",
    "ACC": "ACC cables",
    "AEC": "AEC cables",
    "AOC": "AOC cables",
    "parts": "named parts",
}


@dataclass
class _Columns:
    """Per-link results in progress (part indices into ``parts``; keys before numbering)."""

    count: int
    parts: list[str] = field(default_factory=list)
    index: dict = field(default_factory=dict)

    def __post_init__(self):
        self.a_part = np.full(self.count, -1, dtype=np.int16)
        self.b_part = np.full(self.count, -1, dtype=np.int16)
        self.cable_part = np.full(self.count, -1, dtype=np.int16)
        self.a_key = np.full(self.count, -1, dtype=np.int64)
        self.b_key = np.full(self.count, -1, dtype=np.int64)
        self.cable_key = np.full(self.count, -1, dtype=np.int64)

    def part(self, slug: str | None) -> int:
        if slug is None:
            return -1
        if slug not in self.index:
            self.index[slug] = len(self.parts)
            self.parts.append(slug)
        return self.index[slug]


#: The switch at the upper end of each tier's links.
_UPPER_SWITCH = {"server-leaf": "leaf", "leaf-spine": "spine", "spine-core": "core"}


def _refusal_field(tier: str, choice: MediaChoice) -> str:
    """The spec field a "nothing fits" problem is about: the media the user chose, or, with
    media ``auto``, the switch model whose cages nothing fits.

    >>> _refusal_field("server-leaf", MediaChoice("auto"))
    'switches.leaf'
    >>> _refusal_field("leaf-spine", MediaChoice("DAC"))
    'media.leaf-spine'
    """
    if choice.kind == "auto" and tier in _UPPER_SWITCH:
        return f"switches.{_UPPER_SWITCH[tier]}"
    return f"media.{tier}"


def _assign_group(fabric, group, choice, catalog, cols, info, named, budget) -> None:
    want_cables = choice.kind in CABLE_KINDS or choice.kind == "auto"
    want_optics = choice.kind in ("MMF", "SMF", "auto")
    if choice.kind == "parts":
        cable_part = named.get("cable")
        want_cables = cable_part is not None and cable_part["category"] == "cable"
        want_optics = not want_cables
    candidates, reasons = [], []
    for wanted, make in ((want_optics, optic_candidates), (want_cables, cable_candidates)):
        if wanted:
            found, reason = make(group, catalog, choice, named)
            candidates += found
            reasons.append(reason)
    links = group.links
    lengths = fabric.link_length_m[links].astype(np.float64)
    label = KIND_LABELS.get(choice.kind, choice.kind)
    if choice.kind != "parts":  # named parts are taken as named; validation judges them
        candidates, budget_reason = budget.apply(candidates, group.tier)
        reasons.append(budget_reason)
    if not candidates:
        first = int(links[0])
        why = "; ".join(r.rstrip(".") for r in reasons if r)
        raise FabricError(
            f"{describe_link(fabric, first, float(lengths[0]), group.tier)}: {why}; "
            f"{links.size - 1} other link(s) of this kind fail the same way",
            field=_refusal_field(group.tier, choice),
        )
    ranked = rank_candidates(candidates, group, catalog)
    chosen = choose_candidates(group, ranked, lengths, label)
    used = unique_sorted(chosen)
    for index in used:
        cand = ranked[int(index)]
        mask = chosen == index
        sel = links[mask]
        if cand.warnings:
            info.setdefault("media_warnings", []).extend(
                f"{group.tier}: {w}" for w in cand.warnings
            )
        cable_key = group.keys("b", cand.b_group)[mask]
        cols.cable_part[sel] = cols.part(cand.cable)
        cols.cable_key[sel] = cable_key
        if cand.kind == "cable":
            index_part = cols.part(cand.cable)
            cols.a_part[sel] = index_part
            cols.b_part[sel] = index_part
        else:
            cols.a_part[sel] = cols.part(cand.a)
            cols.b_part[sel] = cols.part(cand.b)
            cols.a_key[sel] = group.keys("a", group.a.ports_per_cage)[mask]
            cols.b_key[sel] = group.keys("b", group.b.ports_per_cage)[mask]
        order_lengths(fabric, sel, cable_key, cand.lengths)


def _named_parts(choice: MediaChoice, catalog: MediaCatalog, tier: str) -> dict:
    if choice.kind != "parts":
        return {}
    field_name = f"media.{tier}"
    named = {}
    for key in ("a", "b"):
        slug = getattr(choice, key)
        if slug:
            named[key] = catalog.named(slug, ("transceiver",), field_name)
    if choice.cable:
        named["cable"] = catalog.named(choice.cable, ("cable", "fiber"), field_name)
        if named["cable"]["category"] == "cable" and (choice.a or choice.b):
            raise FabricError(
                f"{choice.cable} is a cable assembly with its own ends; leave a and b out",
                field=field_name,
            )
    return named


def _manager_links(fabric, tier_links, managers, cols, notes, facts: CatalogFacts) -> None:
    """Fabric-manager links: the switch-end module of their cage (the module the cage already
    has, else the tier's most common switch-end module); then, where that module takes the
    UFM-to-leaf fiber (:func:`_manager_media`), the fiber, one per link (per leaf port), and
    the UFM-side transceiver of each fabric-manager port."""
    if not managers.size:
        return
    b_nodes = fabric.link_b[managers]
    scale = fabric.link_port_scale(managers, "b")  # ports at the link's speed, as group.keys
    ppc = np.maximum(fabric.node_ports_per_cage[b_nodes].astype(np.int64) // scale, 1)
    ports = fabric.link_b_port[managers].astype(np.int64) // scale
    keys = (b_nodes.astype(np.int64) << NODE_SHIFT) | (ports // ppc * ppc)
    done = tier_links[cols.b_key[tier_links] >= 0]
    part = np.full(managers.size, -1, dtype=np.int16)
    if done.size:
        known, first = np.unique(cols.b_key[done], return_index=True)
        at = np.minimum(np.searchsorted(known, keys), known.size - 1)
        found = known[at] == keys
        part[found] = cols.b_part[done][first][at[found]]
        part[~found] = Counter(cols.b_part[done].tolist()).most_common(1)[0][0]
    hit = part >= 0
    cols.b_part[managers[hit]] = part[hit]
    cols.b_key[managers[hit]] = keys[hit]
    if not hit.all():
        notes.append(f"{int((~hit).sum())} fabric-manager link(s) got no switch-end module")
    cabled = np.zeros(managers.size, dtype=bool)
    for index in unique_sorted(part[hit]).tolist():
        mask = part == index
        leaf_models = {fabric.models[m] for m in fabric.node_model[b_nodes[mask]].tolist()}
        fiber, ufm_side = _manager_media(facts, cols.parts[index], leaf_models)
        if fiber is None:
            continue
        sel = managers[mask]
        cable_key = (b_nodes[mask].astype(np.int64) << NODE_SHIFT) | ports[mask]
        cols.cable_part[sel] = cols.part(fiber)
        cols.cable_key[sel] = cable_key
        if ufm_side is not None:
            a_nodes = fabric.link_a[sel].astype(np.int64)
            cols.a_part[sel] = cols.part(ufm_side)
            cols.a_key[sel] = (a_nodes << NODE_SHIFT) | fabric.link_a_port[sel]
        order_lengths(fabric, sel, cable_key, [v for v, _ in sold_lengths(facts.parts[fiber])])
        cabled |= mask
    if cabled.all():
        notes.append(
            f"{managers.size} fabric-manager (UFM) link(s): a {UFM_LEAF_CABLE} fiber and a "
            f"UFM-side {UFM_SIDE_TRANSCEIVER} transceiver each (RA-11333-001 Tables 4 and 8)"
        )
    else:
        notes.append(
            f"{int((~cabled).sum())} fabric-manager (UFM) link(s): switch-end module only; "
            f"the catalog has no UFM-to-leaf fiber for their leaf module"
        )


def _manager_media(
    facts: CatalogFacts, module: str, leaf_models: set[str]
) -> tuple[str | None, str | None]:
    """The UFM-to-leaf fiber and the UFM-side transceiver (catalog slugs) of fabric-manager
    links whose leaf end has ``module``: the fiber when the catalog has
    :data:`UFM_LEAF_CABLE` as a fiber of the module's media and every leaf runs InfiniBand
    (the cable is NDR), else None; the transceiver when the catalog has
    :data:`UFM_SIDE_TRANSCEIVER`, else None."""
    fiber = facts.parts.get(UFM_LEAF_CABLE) or {}
    record = facts.parts.get(module) or {}
    leaves = [facts.devices.get(model) for model in leaf_models]
    if not (
        fiber.get("category") == "fiber"
        and record.get("media") in ("mmf", "smf")
        and fiber.get("fiber_type") == record.get("media")
        and all(leaf is not None and "infiniband" in leaf.protocols for leaf in leaves)
    ):
        return None, None
    side = facts.parts.get(UFM_SIDE_TRANSCEIVER) or {}
    side_slug = side.get("slug") if side.get("category") == "transceiver" else None
    return str(fiber.get("slug") or UFM_LEAF_CABLE), side_slug


def dense_ids(keys: np.ndarray) -> np.ndarray:
    """Number the distinct keys 0, 1, ... in key order; a negative key (none) gets -1."""
    out = np.full(keys.size, -1, dtype=np.int32)
    keep = keys >= 0
    if keep.any():
        out[keep] = np.unique(keys[keep], return_inverse=True)[1].astype(np.int32)
    return out


def _check_shared_cages(fabric: Fabric, cols: _Columns) -> None:
    """One module per cage: a cage reached from two tiers must get the same part."""
    keys = np.concatenate([cols.a_key, cols.b_key])
    parts = np.concatenate([cols.a_part, cols.b_part]).astype(np.int64)
    keep = (keys >= 0) & (parts >= 0)
    keys, parts = keys[keep], parts[keep]
    if not keys.size:
        return
    pairs = unique_sorted(keys << 16 | parts)
    pair_keys = pairs >> 16
    if pairs.size == unique_sorted(pair_keys).size:
        return
    dup = int(pair_keys[np.flatnonzero(np.diff(pair_keys) == 0)[0]])
    node, port = dup >> NODE_SHIFT, dup & ((1 << NODE_SHIFT) - 1)
    names = sorted(cols.parts[int(p) & 0xFFFF] for p in pairs[pair_keys == dup])
    raise FabricError(
        f"the cage of {end_name(fabric, node, port)} joins links of two tiers that "
        f"chose different modules ({', '.join(names)}); choose the same media for both tiers",
        field="media",
    )


def assign_media(
    fabric: Fabric, spec: DesignSpec, facts: CatalogFacts, *, price_of: PriceOf = None
) -> None:
    """Fill ``parts`` and the ``link_*_part``, ``link_*_module`` and ``link_cable`` columns.

    Needs ``link_length_m`` (:func:`planner.domain.layout.assign_layout`). The auto policy is
    in :mod:`planner.domain.media.choice`.

    Raises
    ------
    FabricError
        A tier's links cannot be built with ``spec.media[tier]``; the message names the first
        failing link (ports numbered from 1), its length, why nothing fits and how many other
        links fail. ``field`` is ``media.<tier>``.
    """
    if fabric.link_length_m is None:
        raise FabricError("assign the layout before the media (link lengths are needed)")
    catalog = MediaCatalog(facts, price_of)
    cols = _Columns(fabric.link_count)
    # Ordered cable length: the run length unless a cable is sold in listed lengths.
    fabric.link_cable_length_m = fabric.link_length_m.copy()
    info = fabric.info
    info["media_warnings"] = []
    # Auto closes the optical budget with the connections the design's cabling puts on a run.
    cabling = {tier: choice.as_spec() for tier, choice in spec.cabling.items()}
    budget = BudgetCheck(facts, tables_for(facts), cabling)
    notes: list[str] = []
    is_manager = fabric.node_role[fabric.link_a] == ROLE["manager"]
    for tier_code, tier in enumerate(TIER_NAMES):
        tier_mask = fabric.link_tier == tier_code
        if not tier_mask.any():
            continue
        choice = spec.media.get(tier) or MediaChoice()
        named = _named_parts(choice, catalog, tier)
        links = np.flatnonzero(tier_mask & ~is_manager)
        if links.size:
            a_nodes, b_nodes = fabric.link_a[links], fabric.link_b[links]
            # ports per cage at the link's speed (a leaf with slower uplinks numbers its
            # ports at their speed: Fabric.link_port_scale)
            a_ppc = fabric.node_ports_per_cage[a_nodes] // fabric.link_port_scale(links, "a")
            b_ppc = fabric.node_ports_per_cage[b_nodes] // fabric.link_port_scale(links, "b")
            combo = (
                fabric.node_model[a_nodes].astype(np.int64) << 48
                | fabric.node_model[b_nodes].astype(np.int64) << 32
                | a_ppc.astype(np.int64) << 24
                | b_ppc.astype(np.int64) << 16
                | fabric.link_speed_gbps[links].astype(np.int64)
            )
            values, inverse = np.unique(combo, return_inverse=True)
            for value_index in range(values.size):
                members = links[inverse == value_index]
                group = LinkGroup(fabric, tier, members, facts)
                _assign_group(fabric, group, choice, catalog, cols, info, named, budget)
        _manager_links(
            fabric,
            np.flatnonzero(tier_mask & ~is_manager),
            np.flatnonzero(tier_mask & is_manager),
            cols,
            notes,
            facts,
        )
    _check_shared_cages(fabric, cols)
    fabric.parts = cols.parts
    fabric.link_a_part = cols.a_part
    fabric.link_b_part = cols.b_part
    fabric.link_cable_part = cols.cable_part
    modules = dense_ids(np.concatenate([cols.a_key, cols.b_key]))
    fabric.link_a_module = modules[: fabric.link_count]
    fabric.link_b_module = modules[fabric.link_count :]
    fabric.link_cable = dense_ids(cols.cable_key)
    used_cables = [cols.parts[i] for i in unique_sorted(cols.cable_part) if i >= 0]
    if any(facts.parts[slug].get("lengths_m") for slug in used_cables):
        notes.append(
            "cables and fibers sold in listed lengths are ordered at the shortest listed length "
            "that covers the longest run of that cable (link_cable_length_m)"
        )
    if any(not facts.parts[slug].get("lengths_m") for slug in used_cables):
        notes.append(f"cables and fibers with {POLICY_TEXT}")
    info["media_warnings"] = sorted(set(info["media_warnings"]))
    info["media_notes"] = notes
