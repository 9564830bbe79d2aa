"""Candidate media for a link group, checked with the compatibility rules of
:mod:`inventory.library.compat` (parts adapted by :mod:`inventory.library.facts`, link-end
cages by :mod:`planner.domain.part_facts`).

Candidates (``spec.media[tier]`` narrows them: MMF/SMF = optics of that media; DAC, ACC, AEC,
AOC = cable assemblies of that ``cable_type``; parts = the named slugs, the rest chosen):

- **optics**: a transceiver that fits the a-end cage, one that fits the b-end cage, that
  interoperate, and a fiber that fits both (straight, or a 1:2 splitter from a b-end port to
  two a-end ports). An a-end module whose port runs twice the link speed and that has a
  reduced-power mode runs the link speed only as a splitter leg (NVIDIA's 400G module at
  200G: :func:`~inventory.library.facts.runs_as_splitter_leg`), so only with a 1:2 fiber:
  e.g. four 400G NICs at 200G on one twin-port 800G switch cage through two splitters.
  Reach = the smallest of both modules' ``reach_m``, the fiber's
  ``max_length_m`` (or longest ``lengths_m``) and the rule-11 caps (MMF MPO 50 m; SMF MPO
  straight 500 m, splitter 50 m; SMF LC 2 km).
- **cables**: a cable assembly whose head (end A) fits the b-end (upper tier) cage and whose
  legs fit the a-end cages; a 1:N cable serves the links of one b-end cage from up to N a-end
  cages. Reach = ``max_length_m`` or the longest of ``lengths_m`` (the smaller if both),
  else rule 16 (DAC 3 m, ACC 5 m, AEC 7 m).

A check that fails is an error; one that cannot be made because a fact is unknown (a
"warning") leaves the candidate unproven: auto never picks it, but a part the user names is
accepted with its warnings listed in ``info["media_warnings"]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from inventory.library.compat import optics_interoperate, plug_fits_cage
from inventory.library.facts import (
    COPPER_REACH_M,
    legs_of,
    port_speeds_of,
    reach_cap_m,
    runs_as_splitter_leg,
)
from planner.domain.media.catalog import MediaCatalog
from planner.domain.media.groups import LinkEnd, LinkGroup
from planner.domain.spec_model import MediaChoice

CABLE_KINDS = {"DAC": "dac", "ACC": "acc", "AEC": "aec", "AOC": "aoc"}


@dataclass
class Candidate:
    """One way to build the links of a :class:`LinkGroup`: two modules and a fiber
    (``kind="optics"``) or a cable assembly (``kind="cable"``), with its reach and the listed
    lengths it is sold in; ``sort_key`` is set by
    :func:`~planner.domain.media.choice.rank_candidates`."""

    kind: str  # "optics" | "cable"
    a: str | None
    b: str | None
    cable: str
    reach_m: float
    lengths: tuple[float, ...]
    a_group: int  # links per a-end connector (optics) or cage (cable leg)
    b_group: int  # links per cable, grouped at the b end
    sort_key: tuple = ()
    warnings: tuple[str, ...] = ()
    limit_note: str = ""  # why the reach is shorter than rated (the optical budget)

    @property
    def label(self) -> str:
        if self.kind == "cable":
            return self.cable
        return f"{self.b} + {self.a} over {self.cable}"


def _errors(problems) -> list[str]:
    return [p.message for p in problems if p.severity == "error"]


def _unknowns(problems) -> list[str]:
    return [p.message for p in problems if p.severity != "error"]


class Rejections:
    """Why candidates were turned down, for a helpful error message."""

    def __init__(self):
        self.items: list[tuple[int, str, str]] = []  # (stage, label, message)

    def add(self, stage: int, label: str, messages: list[str]) -> None:
        self.items.append((stage, label, " ".join(messages)))

    def example(self, stage: int) -> str:
        found = [(label, text) for s, label, text in self.items if s == stage]
        if not found:
            return ""
        label, text = found[0]
        more = f"; {len(found) - 1} more turned down" if len(found) > 1 else ""
        return f" (e.g. {label}: {text.rstrip('.')}{more})"


def _check(problems, named: bool, warnings: list[str], context: str) -> list[str] | None:
    """Errors of a check (reject), or None when it passes; warnings kept when ``named``."""
    errors = _errors(problems)
    if errors:
        return errors
    unknown = _unknowns(problems)
    if unknown:
        if not named:
            return ["unproven: " + " ".join(unknown)]
        warnings.extend(f"{context}: {text}" for text in unknown)
    return None


def module_options(
    catalog: MediaCatalog,
    end: LinkEnd,
    speed: int,
    named: dict | None,
    media: str | None,
    rej: Rejections,
    stage: int,
    protocols: frozenset = frozenset(),
    splitter_legs: bool = False,
) -> list[tuple[dict, list[str]]]:
    """(part, warnings) for transceivers that fit ``end``'s cage at ``speed``.

    Only ``named`` when given, else the catalog's transceivers of ``media`` (any when None);
    the ones turned down are recorded in ``rej`` under ``stage``. ``protocols`` are the
    link's (its switch ends'): a host cage carries none, so a module there must speak one of
    them (rule 17), as the design validator checks. With ``splitter_legs`` (the a end) a
    module that runs ``speed`` only as a 1:2 splitter leg is kept too; the fiber decides.
    """
    options = []
    parts = [named] if named else catalog.transceivers
    end_label = end.label
    for part in parts:
        if media and part.get("media") != media and not named:
            continue
        warnings: list[str] = []
        context = f"{part['slug']} in the {end_label}"
        problems = plug_fits_cage(catalog.plug(part), end.cage)
        failed = _check(problems, bool(named), warnings, context)
        spoken = frozenset(part.get("protocols") or ())
        host = protocols and spoken and not end.cage.protocols
        if failed is None and host and not spoken & protocols:
            failed = [
                f"speaks {', '.join(sorted(spoken))}; the link runs "
                f"{', '.join(sorted(protocols))} (rule 17)."
            ]
        ports = part.get("ports_per_module") or 1
        speeds = port_speeds_of(part)
        if failed is None and end.ports_per_cage % ports:
            failed = [f"{ports} ports per module cannot carry {end.ports_per_cage} per cage."]
        leg = splitter_legs and runs_as_splitter_leg(part, speed)
        if failed is None and speeds and speed not in speeds and not leg:
            failed = [f"runs {', '.join(f'{s}G' for s in sorted(speeds))}, not {speed}G."]
        if failed is None and not speeds:
            failed = _check([_Unknown("port speed unknown")], bool(named), warnings, context)
        if failed:
            rej.add(stage, context, failed)
            continue
        options.append((part, warnings))
    return options


@dataclass(frozen=True)
class _Unknown:
    message: str
    severity: str = "warning"


def _numbers(*values) -> list[float]:
    return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def optic_candidates(group: LinkGroup, catalog: MediaCatalog, choice: MediaChoice, named: dict):
    """Optics candidates for ``group`` under ``choice``, and why there are none ("" if any).

    ``named`` holds the parts a ``parts`` choice names (keys ``a``, ``b``, ``cable``).
    """
    rej = Rejections()
    media = choice.kind.lower() if choice.kind in ("MMF", "SMF") else None
    words = f"{choice.kind} " if media else ""
    fiber_named = named.get("cable")
    protocols = group.protocols
    a_options = module_options(
        catalog, group.a, group.speed, named.get("a"), media, rej, 1, protocols, True
    )
    if not a_options:
        return [], end_reason(group.a, named.get("a"), words, rej, 1)
    b_options = module_options(
        catalog, group.b, group.speed, named.get("b"), media, rej, 2, protocols
    )
    if not b_options:
        return [], end_reason(group.b, named.get("b"), words, rej, 2)
    fibers = [fiber_named] if fiber_named else catalog.fibers
    out = []
    pairs = 0
    for part_a, warn_a in a_options:
        for part_b, warn_b in b_options:
            optic_a, optic_b = catalog.optic(part_a), catalog.optic(part_b)
            warnings = [*warn_a, *warn_b]
            pair_named = bool(named.get("a") or named.get("b"))
            pair = f"{part_b['slug']} + {part_a['slug']}"
            failed = _check(optics_interoperate(optic_a, optic_b), pair_named, warnings, pair)
            if failed:
                rej.add(3, pair, failed)
                continue
            pairs += 1
            a_conn = group.a.ports_per_cage // (part_a.get("ports_per_module") or 1)
            b_conn = group.b.ports_per_cage // (part_b.get("ports_per_module") or 1)
            for fiber in fibers:
                if media and fiber.get("fiber_type") != media and not fiber_named:
                    continue
                candidate = _optics_candidate(
                    catalog, group, part_a, part_b, fiber, (a_conn, b_conn), named, warnings, rej
                )
                if candidate is not None:
                    out.append(candidate)
    if out:
        return out, ""
    if not pairs:
        return [], (
            f"no {words}transceiver for the {group.b.label} interoperates with one for the "
            f"{group.a.label}{rej.example(3)}"
        )
    if fiber_named:
        why = rej.example(4) or rej.example(5)
        return [], f"{fiber_named['slug']} does not suit these modules{why}"
    return [], f"no {words}fiber suits the modules that fit{rej.example(4)}"


def end_reason(end: LinkEnd, named: dict | None, words: str, rej: Rejections, stage: int) -> str:
    """Why no transceiver fits ``end`` (``named``, or any), from the rejections of ``stage``."""
    if named is not None:
        texts = [text for s, _, text in rej.items if s == stage]
        return f"{named['slug']} does not fit the {end.label}: {' '.join(texts)}"
    return f"no {words}transceiver fits the {end.label}{rej.example(stage)}"


def _optics_candidate(catalog, group, part_a, part_b, fiber, conns, named, warnings, rej):
    a_conn, b_conn = conns
    warnings = list(warnings)
    label = f"{fiber['slug']} with {part_b['slug']} + {part_a['slug']}"
    fiber_named = named.get("cable") is fiber
    any_named = fiber_named or named.get("a") is part_a or named.get("b") is part_b
    for part, key in ((part_a, "a"), (part_b, "b")):
        tolerate = fiber_named or named.get(key) is part
        failed = _check(catalog.fiber_fits(fiber, part), tolerate, warnings, label)
        if failed:
            rej.add(4, label, failed)
            return None
    topology = fiber.get("topology")
    if topology in (None, "straight"):
        if topology is None:
            failed = _check([_Unknown("fiber topology unknown")], fiber_named, warnings, label)
            if failed:
                rej.add(4, label, failed)
                return None
        splitter = False
        shape_ok = a_conn == b_conn and group.structure_ok(a_conn, b_conn, 1)
    elif topology == "1:2":
        splitter = True
        shape_ok = b_conn == 2 * a_conn and group.structure_ok(a_conn, b_conn, 2)
    else:
        rej.add(5, label, [f"{topology} fibers are not used between these ports."])
        return None
    speeds = port_speeds_of(part_a)
    if not splitter and speeds and group.speed not in speeds:
        rej.add(
            5,
            label,
            [f"{part_a['slug']} runs {group.speed}G only as the leg of a 1:2 splitter fiber."],
        )
        return None
    if not shape_ok:
        shape = "1:2 splitter" if splitter else "straight"
        rej.add(5, label, [f"the wiring does not suit a {shape} fiber."])
        return None
    lengths = tuple(sorted(_numbers(*(fiber.get("lengths_m") or ()))))
    media = fiber.get("fiber_type") or part_a.get("media") or part_b.get("media")
    connector = part_a.get("connector") or part_b.get("connector") or fiber.get("connector_a")
    limits = _numbers(
        part_a.get("reach_m"),
        part_b.get("reach_m"),
        fiber.get("max_length_m"),
        max(lengths) if lengths else None,
        reach_cap_m(media, connector, splitter, pmd=part_a.get("pmd") or part_b.get("pmd")),
    )
    if not limits:
        failed = _check([_Unknown("reach unknown")], any_named, warnings, label)
        if failed:
            rej.add(6, label, failed)
            return None
    return Candidate(
        "optics",
        part_a["slug"],
        part_b["slug"],
        fiber["slug"],
        min(limits) if limits else math.inf,
        lengths,
        a_conn,
        b_conn,
        warnings=tuple(warnings),
    )


def cable_candidates(group: LinkGroup, catalog: MediaCatalog, choice: MediaChoice, named: dict):
    """Cable-assembly candidates for ``group`` under ``choice``, and why there are none
    ("" if any); ``named`` as in :func:`optic_candidates`."""
    rej = Rejections()
    cable_type = CABLE_KINDS.get(choice.kind)
    cable_named = named.get("cable")
    parts = [cable_named] if cable_named else catalog.cables
    out = []
    a_ports, b_ports = group.a.ports_per_cage, group.b.ports_per_cage
    for part in parts:
        if cable_type and part.get("cable_type") != cable_type and not cable_named:
            continue
        is_named = cable_named is not None
        warnings: list[str] = []
        slug = part["slug"]
        head, leg = catalog.cable_plugs(part)
        where = f"{slug} head in the {group.b.label}"
        failed = _check(plug_fits_cage(head, group.b.cage), is_named, warnings, where)
        if failed is None:
            where = f"{slug} leg in the {group.a.label}"
            failed = _check(plug_fits_cage(leg, group.a.cage), is_named, warnings, where)
        if failed is None:
            where = slug
        legs = legs_of(part)
        head_speed = part.get("speed_gbps")
        leg_speed = part.get("leg_speed_gbps") or (
            head_speed // legs if head_speed and legs else None
        )
        if failed is None and (legs is None or head_speed is None):
            failed = _check([_Unknown("legs or speed unknown")], is_named, warnings, slug)
        if failed is None and legs is not None and head_speed is not None:
            if head_speed != b_ports * group.speed or leg_speed != a_ports * group.speed:
                failed = [
                    f"a {head_speed}G head with {legs} x {leg_speed}G legs does not match "
                    f"{b_ports} x {group.speed}G to {a_ports} x {group.speed}G cages."
                ]
            elif legs * a_ports != b_ports or not group.structure_ok(a_ports, b_ports, legs):
                failed = [f"the wiring does not suit a {part.get('topology') or legs} cable."]
        if failed:
            rej.add(7, where, failed)
            continue
        lengths = tuple(sorted(_numbers(*(part.get("lengths_m") or ()))))
        reach = _numbers(part.get("max_length_m"), max(lengths) if lengths else None)
        if not reach and part.get("cable_type") in COPPER_REACH_M:
            reach = [COPPER_REACH_M[part["cable_type"]]]
        if not reach:
            failed = _check([_Unknown("reach unknown")], is_named, warnings, slug)
            if failed:
                rej.add(7, slug, failed)
                continue
        out.append(
            Candidate(
                "cable",
                None,
                None,
                slug,
                min(reach) if reach else math.inf,
                lengths,
                a_ports,
                b_ports,
                warnings=tuple(warnings),
            )
        )
    if out:
        return out, ""
    if cable_named is not None:
        texts = [text for _, _, text in rej.items]
        return [], f"{cable_named['slug']} does not suit these ports: {' '.join(texts)}"
    kind = f"{choice.kind} " if cable_type else ""
    return [], (f"no {kind}cable fits the {group.b.label} and the {group.a.label}{rej.example(7)}")
