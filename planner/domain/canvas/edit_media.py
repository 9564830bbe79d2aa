"""The parts and media of an edit document's links, checked group by group with the same
rule functions as media selection (:mod:`planner.domain.media`,
:mod:`inventory.library.compat`), and written into the fabric's media columns.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from inventory.library.compat import fiber_fits_optic
from inventory.library.facts import legs_of
from planner.domain.canvas.common import node_id, speed_text
from planner.domain.canvas.edit_parse import EditLink, ParsedEdit
from planner.domain.canvas.port_speeds import ports_at
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, Fabric
from planner.domain.media import (
    TOLERANCE_M,
    Candidate,
    LinkGroup,
    MediaCatalog,
    Rejections,
    cable_candidates,
    dense_ids,
    end_reason,
    module_options,
    optic_candidates,
    order_lengths,
    rank_candidates,
    sold_lengths,
)
from planner.domain.names import end_text, link_name, scheme_of
from planner.domain.part_facts import fiber_of, optic_of
from planner.domain.spec_model import MediaChoice

PART_CATEGORIES = {
    "a_part": ("transceiver", "cable"),
    "b_part": ("transceiver", "cable"),
    "cable": ("cable", "fiber"),
}


def _part(
    out: ParsedEdit, facts: CatalogFacts, link: EditLink, key: str, categories
) -> dict | None:
    slug = getattr(link, key)
    if slug is None:
        return None
    part = facts.parts.get(slug)
    if part is not None and part.get("category") in categories:
        return part
    link_id = f"link:{link.index}"
    if part is None:
        out.add(
            "unknown-part",
            f"{link_id}: no part {slug!r} in the catalog.",
            (link_id,),
            f"links[{link.index}].{key}",
        )
    else:
        kinds = " or ".join(categories)
        out.add(
            "part-category",
            f"{link_id}: {slug} is a {part.get('category')}, not a {kinds}.",
            (link_id,),
            f"links[{link.index}].{key}",
        )
    link.media_ok = False
    return None


@dataclass
class _Media:
    """What one group of identical links carries (for the fabric's media columns)."""

    a: str | None = None
    b: str | None = None
    cable: str | None = None
    assembly: bool = False
    candidate: Candidate | None = None


def _group_ids(fabric: Fabric, links: np.ndarray, end: str | None = None) -> tuple[str, ...]:
    ids = [f"link:{i}" for i in links.tolist()]
    ends = (
        [fabric.link_a, fabric.link_b]
        if end is None
        else [fabric.link_a if end == "a" else fabric.link_b]
    )
    nodes = np.unique(np.concatenate([column[links] for column in ends]))
    return (*ids, *(f"node:{fabric.node_name[n]}" for n in nodes.tolist()))


def check_media(out: ParsedEdit, facts: CatalogFacts, catalog: MediaCatalog) -> None:
    """Media of every link that is otherwise sound, group by group (as media selection)."""
    fabric = out.fabric
    # Python lists in the loop: indexing a NumPy array element by element is slower.
    node_model, per_cage = fabric.node_model.tolist(), fabric.node_ports_per_cage.tolist()
    groups: dict[tuple, list[int]] = defaultdict(list)
    for position, link in enumerate(out.links):
        if not link.media_ok or not (link.a_part or link.b_part or link.cable):
            continue
        for key, categories in PART_CATEGORIES.items():
            _part(out, facts, link, key, categories)
        if not link.media_ok:
            continue
        a, b = link.a, link.b
        key = (
            link.tier,
            node_model[a],
            node_model[b],
            per_cage[a],
            per_cage[b],
            link.speed,
            link.a_part,
            link.b_part,
            link.cable,
        )
        groups[key].append(position)
    for key, members in groups.items():
        tier, _, _, _, _, _, a_slug, b_slug, cable_slug = key
        links = np.asarray(members, dtype=np.int64)
        group = LinkGroup(fabric, tier, links, facts)
        media = _check_group(out, facts, catalog, group, a_slug, b_slug, cable_slug)
        if media is not None:
            out.media.append((group, media))


def _warn(out: ParsedEdit, fabric: Fabric, links: np.ndarray, warnings) -> None:
    for text in sorted(set(warnings)):
        out.add(
            "unverified", f"Cannot be proven: {text}", _group_ids(fabric, links), severity="warning"
        )


def _check_group(
    out, facts, catalog, group: LinkGroup, a_slug, b_slug, cable_slug
) -> _Media | None:
    """The media of one edited link group checked against its ends, or None with the problems added.

    Long because: one check after another on the same group (cable with modules, manager links, fit,
    speed), each with its own message.
    """
    fabric = out.fabric
    links = group.links
    parts = facts.parts
    cable = parts.get(cable_slug) if cable_slug else None
    is_manager = fabric.node_role[fabric.link_a[links[0]]] == ROLE["manager"]
    describe = f"{len(links)} link(s)" if len(links) > 1 else link_name(fabric, int(links[0]))
    if cable is not None and cable.get("category") == "cable":
        if any(slug not in (None, cable_slug) for slug in (a_slug, b_slug)):
            out.add(
                "cable-with-modules",
                f"{describe}: {cable_slug} is a cable assembly with its own ends; leave a_part "
                "and b_part empty (or name the cable).",
                _group_ids(fabric, links),
            )
            return None
        found, reason = cable_candidates(
            group, catalog, MediaChoice("parts", cable=cable_slug), {"cable": cable}
        )
        if not found:
            out.add("cable-mismatch", f"{describe}: {reason}", _group_ids(fabric, links))
            return None
        _warn(out, fabric, links, found[0].warnings)
        media = _Media(cable_slug, cable_slug, cable_slug, True, found[0])
        _check_reach(out, group, media)
        return media
    for slug in (a_slug, b_slug):
        if slug and parts[slug].get("category") == "cable":
            out.add(
                "cable-with-modules",
                f"{describe}: {slug} is a cable assembly; name it as the cable, not as a module.",
                _group_ids(fabric, links),
            )
            return None
    named = {
        "a": parts.get(a_slug) if a_slug else None,
        "b": parts.get(b_slug) if b_slug else None,
        "cable": cable,
    }
    fits = True
    warnings: list[str] = []
    for end, key, stage in ((group.a, "a", 1), (group.b, "b", 2)):
        part = named[key]
        if part is None or (key == "a" and is_manager):
            continue  # a fabric manager's ports are not in the catalog: its module is as named
        rejections = Rejections()
        options = module_options(
            catalog, end, group.speed, part, None, rejections, stage, splitter_legs=key == "a"
        )
        if not options:
            out.add(
                "module-mismatch",
                f"{describe}: {end_reason(end, part, '', rejections, stage)}",
                _group_ids(fabric, links, key),
            )
            fits = False
        else:
            warnings += options[0][1]
    if not fits:
        return None
    media = _Media(a_slug if named["a"] else None, b_slug, cable_slug)
    if named["a"] and named["b"] and not is_manager:
        choice = MediaChoice("parts", a=a_slug, b=b_slug, cable=cable_slug)
        found, reason = optic_candidates(group, catalog, choice, named)
        if not found:
            out.add("optics-mismatch", f"{describe}: {reason}", _group_ids(fabric, links))
            return None
        ranked = rank_candidates(found, group, catalog)
        media.candidate = ranked[0] if cable is not None else max(ranked, key=lambda c: c.reach_m)
        warnings += media.candidate.warnings
    elif cable is not None:
        for part in (named["a"], named["b"]):
            if part is None:
                continue
            problems = fiber_fits_optic(fiber_of(cable), optic_of(part))
            errors = [p.message for p in problems if p.severity == "error"]
            if errors:
                out.add(
                    "optics-mismatch",
                    f"{describe}: {cable_slug} does not suit {part['slug']}: {' '.join(errors)}",
                    _group_ids(fabric, links),
                )
                return None
    _warn(out, fabric, links, warnings)
    _check_reach(out, group, media)
    return media


def _check_reach(out: ParsedEdit, group: LinkGroup, media: _Media) -> None:
    candidate = media.candidate
    if candidate is None:
        return
    fabric = out.fabric
    lengths = fabric.link_length_m[group.links].astype(np.float64)
    too_long = group.links[np.isfinite(lengths) & (lengths > candidate.reach_m + TOLERANCE_M)]
    if not too_long.size:
        return
    first = int(too_long[0])
    what = candidate.label if media.cable else f"{candidate.b} + {candidate.a}"
    others = (
        f"; {too_long.size - 1} other link(s) are too long as well" if too_long.size > 1 else ""
    )
    out.add(
        "reach-exceeded",
        f"{link_name(fabric, first)} is {float(fabric.link_length_m[first]):g} m; {what} reaches "
        f"{candidate.reach_m:g} m{others}.",
        _group_ids(fabric, too_long),
    )


def check_cages(out: ParsedEdit, facts: CatalogFacts) -> None:
    """One plug per cage: links through one cage must name the same module or cable head."""
    fabric = out.fabric
    seen: dict[tuple[int, int], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    # Python lists in the loop: indexing a NumPy array element by element is slower.
    roles, per_cage, manager = (
        fabric.node_role.tolist(),
        fabric.node_ports_per_cage.tolist(),
        ROLE["manager"],
    )
    for link in out.links:
        if not link.media_ok:
            continue
        cable = facts.parts.get(link.cable) if link.cable else None
        assembly = link.cable if cable is not None and cable.get("category") == "cable" else None
        for node, port, slug in (
            (link.a, link.a_port - 1, link.a_part or assembly),
            (link.b, link.b_port - 1, link.b_part or assembly),
        ):
            if slug is None or roles[node] == manager:
                continue
            ppc = per_cage[node]
            seen[node, port // ppc * ppc][slug].append(link.index)
    for (node, first_port), by_part in seen.items():
        if len(by_part) < 2:
            continue
        name = fabric.node_name[node]
        ids = sorted({f"link:{i}" for links in by_part.values() for i in links})
        out.add(
            "cage-mixed-plugs",
            f"{name} cage {first_port // max(1, int(fabric.node_ports_per_cage[node])) + 1} "
            "holds one module or cable head, but its "
            f"links name {', '.join(sorted(by_part))}.",
            (node_id(name), *ids),
        )


def check_breakouts(out: ParsedEdit, facts: CatalogFacts) -> None:
    """The legs of each breakout assembly taken together, before the per-group media checks.

    A breakout (a cable or fiber with ``legs`` > 1, ``1:N``) is one assembly per head: the
    links through one head of their upper (b) end that name the same 1:N part are its legs,
    wherever their lower ends land (two or four servers or panels). A cable's head fills a
    cage; a splitter fiber's head is one optical port of the b-end module, so a twin-port
    800G module at 4 x 200G feeds two 1:2 fibers (four legs). At most N legs per head
    (``breakout-legs``), and every leg at the part's leg speed (``breakout-leg-speed``);
    each problem names the head's node and every leg, and its legs are not checked again
    group by group (one message, not one per leg).
    """
    fabric = out.fabric
    heads: dict[tuple[int, int, str], list[EditLink]] = defaultdict(list)
    sizes: dict[tuple[int, int, str], tuple[int, int]] = {}
    for link in out.links:
        part = facts.parts.get(link.cable) if link.media_ok and link.cable else None
        if part is None or part.get("category") not in ("cable", "fiber"):
            continue
        if (legs_of(part) or 1) < 2:
            continue
        per_cage = ports_at(out.nodes[link.b].device, link.speed)[1] or 1
        per_head = per_cage
        module = facts.parts.get(link.b_part) if link.b_part else None
        if part.get("category") == "fiber" and module is not None:
            per_module = int(module.get("ports_per_module") or 1)
            if per_cage % per_module == 0:
                per_head = per_cage // per_module
        key = (link.b, (link.b_port - 1) // per_head, link.cable)
        heads[key].append(link)
        sizes[key] = (per_cage, per_head)
    for (node, head, slug), members in heads.items():
        part = facts.parts[slug]
        legs = legs_of(part)
        leg_speed = part.get("leg_speed_gbps")
        name = fabric.node_name[node]
        ids = (node_id(name), *(f"link:{link.index}" for link in members))
        per_cage, per_head = sizes[node, head, slug]
        first = head * per_head
        where = f"{name} cage {first // per_cage + 1}"
        if per_head < per_cage:
            where += f" (module port {first % per_cage // per_head + 1})"
        listed = ", ".join(
            f"{end_text(out.nodes[link.a].name, scheme_of(fabric, link.a).name(link.a_port - 1))}"
            f" ({speed_text(link.speed)})"
            for link in members
        )
        bad = False
        if len(members) > legs:
            out.add(
                "breakout-legs",
                f"{where}: {slug} is a 1:{legs} breakout, but {len(members)} links name it "
                f"there: {listed}. One assembly has {legs} legs; give the other links the next "
                f"{'cage' if per_head == per_cage else 'module port'}.",
                ids,
            )
            bad = True
        speeds = {link.speed for link in members}
        if len(speeds) > 1 or (leg_speed and speeds != {int(leg_speed)}):
            legs_text = f"{legs} x {speed_text(int(leg_speed))}" if leg_speed else f"{legs}"
            out.add(
                "breakout-leg-speed",
                f"{where}: {slug} has {legs_text} legs, but its legs run {listed}. Every leg "
                "of one breakout runs its leg speed.",
                ids,
            )
            bad = True
        if bad:
            for link in members:
                link.media_ok = False


def fill_media(fabric: Fabric, out: ParsedEdit, facts: CatalogFacts) -> None:
    """Write the checked media of ``out`` into the fabric's part, module and cable columns; a
    cable is ordered at the shortest length it is sold in that covers its longest leg (its
    candidate's lengths, else the catalog's for a hand-named fiber such as a fabric
    manager's), else by the ordering policy."""
    count = fabric.link_count
    parts: list[str] = []
    index: dict[str, int] = {}

    def part(slug):
        if slug is None:
            return -1
        if slug not in index:
            index[slug] = len(parts)
            parts.append(slug)
        return index[slug]

    a_part = np.full(count, -1, dtype=np.int16)
    b_part = np.full(count, -1, dtype=np.int16)
    cable_part = np.full(count, -1, dtype=np.int16)
    a_key = np.full(count, -1, dtype=np.int64)
    b_key = np.full(count, -1, dtype=np.int64)
    cable_key = np.full(count, -1, dtype=np.int64)
    fabric.link_cable_length_m = fabric.link_length_m.copy()
    for group, media in out.media:
        links = group.links
        candidate = media.candidate
        if media.assembly:
            slot = part(media.cable)
            a_part[links] = b_part[links] = cable_part[links] = slot
            cable_key[links] = group.keys("b", candidate.b_group)
        else:
            if media.a:
                a_part[links] = part(media.a)
                a_key[links] = group.keys("a", group.a.ports_per_cage)
            if media.b:
                b_part[links] = part(media.b)
                b_key[links] = group.keys("b", group.b.ports_per_cage)
            if media.cable:
                cable_part[links] = part(media.cable)
                size = candidate.b_group if candidate is not None else 1
                cable_key[links] = group.keys("b", size)
        if media.cable:  # listed lengths, else the ordering policy
            known = links[np.isfinite(fabric.link_length_m[links])]
            if known.size:
                keys = cable_key[known]
                lengths = (
                    candidate.lengths
                    if candidate is not None
                    else [v for v, _ in sold_lengths(facts.parts.get(media.cable) or {})]
                )
                order_lengths(fabric, known, keys, lengths)
    fabric.parts = parts
    fabric.link_a_part, fabric.link_b_part, fabric.link_cable_part = a_part, b_part, cable_part
    modules = dense_ids(np.concatenate([a_key, b_key]))
    fabric.link_a_module = modules[:count]
    fabric.link_b_module = modules[count:]
    fabric.link_cable = dense_ids(cable_key)
