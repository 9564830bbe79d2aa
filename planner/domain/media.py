"""Choose the modules, cables and fibers of every link.

Links are grouped by tier and by (a-end model and cage group, b-end model and cage group,
speed); each group has few distinct situations, so candidates are evaluated once per group
with the compatibility rules of :mod:`inventory.library.compat` (parts adapted by
:mod:`inventory.library.facts`, link-end cages by :mod:`planner.domain.part_facts`), then
applied to the links' lengths with NumPy.

Candidates (``spec.media[tier]`` narrows them: MMF/SMF = optics of that media; DAC, ACC, AEC,
AOC = cable assemblies of that ``cable_type``; parts = the named slugs, the rest chosen):

- **optics**: a transceiver that fits the a-end cage, one that fits the b-end cage, that
  interoperate, and a fiber that fits both (straight, or a 1:2 splitter from a b-end port to
  two a-end ports). Reach = the smallest of both modules' ``reach_m``, the fiber's
  ``max_length_m`` (or longest ``lengths_m``) and the rule-11 caps (MMF MPO 50 m; SMF MPO
  straight 500 m, splitter 50 m; SMF LC 2 km).
- **cables**: a cable assembly whose head (end A) fits the b-end (upper tier) cage and whose
  legs fit the a-end cages; a 1:N cable serves the links of one b-end cage from up to N a-end
  cages. Reach = ``max_length_m`` or the longest of ``lengths_m`` (the smaller if both),
  else rule 16 (DAC 3 m, ACC 5 m, AEC 7 m).

Ordered lengths (``link_cable_length_m``; the run length stays in ``link_length_m``): a cable
or fiber with listed lengths (``lengths_m``) gets the shortest one that covers its longest
leg. One with no listed lengths (no source gives the lengths NVIDIA's MFP7E fibers are sold
in, catalog-facts.md §4) is ordered by our rounding policy, :func:`policy_length_m`: its
longest leg rounded up to whole metres up to 10 m, to 5 m steps up to 50 m, to 10 m steps
beyond, so a fabric orders a handful of lengths rather than one per 0.1 m of run. No slack is
added here: the run already holds the layout's service loop (``layout.slack_m``, 2 m by
default for every run that leaves its rack; catalog-facts-more.md §7 cites 2-3 m per trunk).

A check that fails is an error; one that cannot be made because a fact is unknown (a
"warning") leaves the candidate unproven: auto never picks it, but a part the user names is
accepted with its warnings listed in ``info["media_warnings"]``.

Modules: one per cage (``port // node_ports_per_cage``), so a twin-port module in a twin-port
cage carries both logical ports; links through one cage share ``link_*_module``. Links of one
cable assembly or one fiber (a 1:2 breakout's legs) share ``link_cable``. Cable ends are
recorded in ``link_a_part``/``link_b_part`` with no module id.

Auto policy (deterministic): links that share a module or a cable must use one candidate, so
each connected set of such links takes the first candidate, in this order, that reaches its
longest link:

1. lowest price per link (a-end module + b-end module + cable; a module or cable shared by n
   links counts 1/n); candidates with an unpriced part come after every fully priced one;
2. lowest power per link (unknown power last);
3. fewest distinct parts;
4. shortest reach that still covers the run (no paying for reach or cable length not used:
   a 1.5 m DAC before a 2 m one, an SR optic before a DR at equal price and power);
5. slug order.

Fabric-manager (UFM) links get only the switch-end module of their cage (the cage is used);
their cables and far-end modules are listed separately in the published SuperPOD BOM.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from inventory.library.compat import (
    TOP_NAMES,
    Cage,
    fiber_fits_optic,
    optics_interoperate,
    plug_fits_cage,
)
from inventory.library.facts import (
    COPPER_REACH_M,
    cable_plugs_of,
    fiber_of,
    legs_of,
    optic_of,
    plug_of,
    port_speeds_of,
    reach_cap_m,
)
from planner.domain.catalog import CatalogFacts, DeviceModel
from planner.domain.fabric import ROLE, TIER_NAMES, Fabric, FabricError
from planner.domain.part_facts import end_cage
from planner.domain.spec import DesignSpec, MediaChoice

PriceOf = Callable[[str], float | None] | None

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
CABLE_KINDS = {"DAC": "dac", "ACC": "acc", "AEC": "aec", "AOC": "aoc"}
NODE_SHIFT = 20  # key = node << NODE_SHIFT | first port of the cage or group
TOLERANCE_M = 1e-4


# --- candidates ------------------------------------------------------------------------------


@dataclass
class LinkEnd:
    """One end of a link group: the device model, its cage and logical ports per cage."""

    model: DeviceModel | None
    cage: Cage
    ports_per_cage: int

    @property
    def label(self) -> str:
        cage = self.cage
        if self.model is None:
            return "unknown device's cage"
        top = TOP_NAMES.get(cage.top or "", "")
        twin = "twin-port " if cage.ports_per_cage == 2 else ""
        bits = [self.model.slug, cage.form_factor or "unknown", top, f"{twin}cage"]
        return " ".join(b for b in bits if b)


@dataclass
class Candidate:
    """One way to build the links of a :class:`LinkGroup`: two modules and a fiber
    (``kind="optics"``) or a cable assembly (``kind="cable"``), with its reach and the listed
    lengths it is sold in; ``sort_key`` is set by :func:`rank_candidates`."""

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

    @property
    def label(self) -> str:
        if self.kind == "cable":
            return self.cable
        return f"{self.b} + {self.a} over {self.cable}"


@dataclass
class MediaCatalog:
    """The catalog's media parts by canonical slug, with their compat dataclasses."""

    facts: CatalogFacts
    price_of: PriceOf
    transceivers: list[dict] = field(default_factory=list)
    cables: list[dict] = field(default_factory=list)
    fibers: list[dict] = field(default_factory=list)
    _prices: dict = field(default_factory=dict)

    def __post_init__(self):
        seen = set()
        for slug in sorted(self.facts.parts):
            part = self.facts.parts[slug]
            if part.get("slug", slug) != slug or slug in seen:
                continue  # an alias
            seen.add(slug)
            bucket = {"transceiver": self.transceivers, "cable": self.cables, "fiber": self.fibers}
            if part.get("category") in bucket:
                bucket[part["category"]].append(part)

    def price(self, slug: str | None) -> float | None:
        if slug is None:
            return 0.0
        if slug not in self._prices:
            value = self.price_of(slug) if self.price_of else None
            self._prices[slug] = float(value) if value is not None else None
        return self._prices[slug]

    def named(self, slug: str, categories: tuple[str, ...], field_name: str) -> dict:
        part = self.facts.parts.get(slug)
        if part is None or part.get("category") not in categories:
            kinds = " or ".join(categories)
            raise FabricError(f"{slug!r} is not a {kinds} in the catalog", field=field_name)
        return part


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


class LinkGroup:
    """Links of one tier with the same end models, cage groups and speed."""

    def __init__(self, fabric: Fabric, tier: str, links: np.ndarray, facts: CatalogFacts):
        self.fabric, self.tier, self.links = fabric, tier, links
        first = int(links[0])
        self.speed = int(fabric.link_speed_gbps[first])
        ends = []
        for node in (int(fabric.link_a[first]), int(fabric.link_b[first])):
            slug = fabric.models[int(fabric.node_model[node])]
            model, _, cage = end_cage(facts, slug, self.speed)
            ends.append(LinkEnd(model, cage, int(fabric.node_ports_per_cage[node])))
        self.a, self.b = ends
        self._keys: dict = {}
        self._structure: dict = {}

    def keys(self, end: str, size: int) -> np.ndarray:
        """Per link: node and first port of its group of ``size`` ports at ``end``."""
        if (end, size) not in self._keys:
            nodes = (self.fabric.link_a if end == "a" else self.fabric.link_b)[self.links]
            ports = (self.fabric.link_a_port if end == "a" else self.fabric.link_b_port)[self.links]
            self._keys[end, size] = (nodes.astype(np.int64) << NODE_SHIFT) | (
                ports.astype(np.int64) // size * size
            )
        return self._keys[end, size]

    def structure_ok(self, a_size: int, b_size: int, legs: int) -> bool:
        """Can one cable join each b-end group of ``b_size`` ports to at most ``legs`` a-end
        groups of ``a_size`` ports, every a-end group wholly within one b-end group?"""
        key = (a_size, b_size, legs)
        if key not in self._structure:
            a_ids = np.unique(self.keys("a", a_size), return_inverse=True)[1]
            b_ids = np.unique(self.keys("b", b_size), return_inverse=True)[1]
            pairs = np.unique(a_ids.astype(np.int64) * (b_ids.max() + 1) + b_ids)
            pair_a, pair_b = pairs // (b_ids.max() + 1), pairs % (b_ids.max() + 1)
            one_b_per_a = np.bincount(pair_a).max() <= 1
            legs_ok = np.bincount(pair_b).max() <= legs
            self._structure[key] = bool(one_b_per_a and legs_ok)
        return self._structure[key]


def module_options(
    catalog: MediaCatalog,
    end: LinkEnd,
    speed: int,
    named: dict | None,
    media: str | None,
    rej: Rejections,
    stage: int,
) -> list[tuple[dict, list[str]]]:
    """(part, warnings) for transceivers that fit ``end``'s cage at ``speed``.

    Only ``named`` when given, else the catalog's transceivers of ``media`` (any when None);
    the ones turned down are recorded in ``rej`` under ``stage``.
    """
    options = []
    parts = [named] if named else catalog.transceivers
    for part in parts:
        if media and part.get("media") != media and not named:
            continue
        warnings: list[str] = []
        context = f"{part['slug']} in the {end.label}"
        problems = plug_fits_cage(plug_of(part), end.cage)
        failed = _check(problems, bool(named), warnings, context)
        ports = part.get("ports_per_module") or 1
        speeds = port_speeds_of(part)
        if failed is None and end.ports_per_cage % ports:
            failed = [f"{ports} ports per module cannot carry {end.ports_per_cage} per cage."]
        if failed is None and speeds and speed not in speeds:
            failed = [f"runs {', '.join(f'{s}G' for s in sorted(speeds))}, not {speed}G."]
        if failed is None and not speeds:
            failed = _check([_Unknown("port speed unknown")], bool(named), warnings, context)
        if failed:
            rej.add(stage, f"{part['slug']} in the {end.label}", failed)
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
    a_options = module_options(catalog, group.a, group.speed, named.get("a"), media, rej, 1)
    if not a_options:
        return [], end_reason(group.a, named.get("a"), words, rej, 1)
    b_options = module_options(catalog, group.b, group.speed, named.get("b"), media, rej, 2)
    if not b_options:
        return [], end_reason(group.b, named.get("b"), words, rej, 2)
    fibers = [fiber_named] if fiber_named else catalog.fibers
    out = []
    pairs = 0
    for part_a, warn_a in a_options:
        for part_b, warn_b in b_options:
            optic_a, optic_b = optic_of(part_a), optic_of(part_b)
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
                    group, part_a, part_b, fiber, (a_conn, b_conn), named, warnings, rej
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
        return [], f"{fiber_named['slug']} does not suit these modules{rej.example(4)}"
    return [], f"no {words}fiber suits the modules that fit{rej.example(4)}"


def end_reason(end: LinkEnd, named: dict | None, words: str, rej: Rejections, stage: int) -> str:
    """Why no transceiver fits ``end`` (``named``, or any), from the rejections of ``stage``."""
    if named is not None:
        texts = [text for s, _, text in rej.items if s == stage]
        return f"{named['slug']} does not fit the {end.label}: {' '.join(texts)}"
    return f"no {words}transceiver fits the {end.label}{rej.example(stage)}"


def _optics_candidate(group, part_a, part_b, fiber, conns, named, warnings, rej):
    a_conn, b_conn = conns
    warnings = list(warnings)
    label = f"{fiber['slug']} with {part_b['slug']} + {part_a['slug']}"
    fiber_named = named.get("cable") is fiber
    any_named = fiber_named or named.get("a") is part_a or named.get("b") is part_b
    fiber_obj = fiber_of(fiber)
    for part, key in ((part_a, "a"), (part_b, "b")):
        tolerate = fiber_named or named.get(key) is part
        failed = _check(fiber_fits_optic(fiber_obj, optic_of(part)), tolerate, warnings, label)
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
        reach_cap_m(media, connector, splitter),
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
        head, leg = cable_plugs_of(part)
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


def rank_candidates(
    candidates: list[Candidate], group: LinkGroup, catalog: MediaCatalog
) -> list[Candidate]:
    """``candidates`` in auto-policy order (rules 1-5 of the module docstring)."""
    a_share, b_share = group.a.ports_per_cage, group.b.ports_per_cage
    for cand in candidates:
        if cand.kind == "cable":
            part = catalog.facts.parts[cand.cable]
            legs = legs_of(part) or 1
            prices = [(catalog.price(cand.cable), cand.b_group)]
            watts = [
                (part.get("power_end_a_w"), cand.b_group),
                (
                    None if part.get("power_end_b_w") is None else part["power_end_b_w"] * legs,
                    cand.b_group,
                ),
            ]
            count = 1
        else:
            parts = catalog.facts.parts
            prices = [
                (catalog.price(cand.a), a_share),
                (catalog.price(cand.b), b_share),
                (catalog.price(cand.cable), cand.b_group),
            ]
            watts = [
                (_power(parts[cand.a]), a_share),
                (_power(parts[cand.b]), b_share),
            ]
            count = len({cand.a, cand.b, cand.cable})
        unpriced = sum(1 for price, _ in prices if price is None)
        price = sum(price / share for price, share in prices if price is not None)
        power_known = all(w is not None for w, _ in watts)
        power = sum(w / share for w, share in watts if w is not None)
        cand.sort_key = (
            unpriced > 0,
            unpriced,
            round(price, 6),
            not power_known,
            round(power, 6),
            count,
            round(cand.reach_m, 3),
            (cand.a or "", cand.b or "", cand.cable),
        )
    return sorted(candidates, key=lambda c: c.sort_key)


def _power(part: dict) -> float | None:
    value = part.get("power_max_w")
    if value is None:
        value = part.get("power_typical_w")
    return value


# --- assignment ------------------------------------------------------------------------------


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


def _describe_link(fabric: Fabric, link: int, length: float, tier: str) -> str:
    a, b = int(fabric.link_a[link]), int(fabric.link_b[link])
    return (
        f"{tier} link {fabric.node_name[a]} port {int(fabric.link_a_port[link]) + 1} -> "
        f"{fabric.node_name[b]} port {int(fabric.link_b_port[link]) + 1} ({length:g} m)"
    )


def _components(group: LinkGroup, a_size: int, b_size: int) -> np.ndarray:
    """Connected sets of links that share a cage at either end."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    a_ids = np.unique(group.keys("a", a_size), return_inverse=True)[1]
    b_ids = np.unique(group.keys("b", b_size), return_inverse=True)[1]
    na = int(a_ids.max()) + 1
    size = na + int(b_ids.max()) + 1
    graph = coo_matrix(
        (np.ones(a_ids.size, dtype=np.int8), (a_ids, na + b_ids)), shape=(size, size)
    ).tocsr()
    _, labels = connected_components(graph, directed=False)
    return labels[a_ids]


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


def _assign_group(fabric, group, choice, catalog, cols, info, named) -> None:
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
    if not candidates:
        first = int(links[0])
        why = "; ".join(r.rstrip(".") for r in reasons if r)
        raise FabricError(
            f"{_describe_link(fabric, first, float(lengths[0]), group.tier)}: {why}; "
            f"{links.size - 1} other link(s) of this kind fail the same way",
            field=_refusal_field(group.tier, choice),
        )
    ranked = rank_candidates(candidates, group, catalog)
    reach = np.array([c.reach_m for c in ranked], dtype=np.float64)
    best = np.maximum.accumulate(reach)
    if lengths.max() <= reach[0] + TOLERANCE_M:
        chosen = np.zeros(links.size, dtype=np.int64)
    else:
        too_long = lengths > best[-1] + TOLERANCE_M
        if too_long.any():
            first = int(np.flatnonzero(too_long)[0])
            longest = ranked[int(np.argmax(reach))]
            raise FabricError(
                f"{_describe_link(fabric, int(links[first]), float(lengths[first]), group.tier)}"
                f": no {label} reach {float(lengths[first]):g} m; the longest is "
                f"{longest.reach_m:g} m ({longest.label}); {int(too_long.sum()) - 1} other "
                "link(s) are too long as well",
                field=f"media.{group.tier}",
            )
        # Links sharing a module or a cable take one candidate: the first that reaches the
        # longest link of their connected set (candidates share cage sizes within a group).
        labels = _components(group, group.a.ports_per_cage, group.b.ports_per_cage)
        longest = np.zeros(int(labels.max()) + 1)
        np.maximum.at(longest, labels, lengths)
        per_set = np.searchsorted(best, longest - TOLERANCE_M, side="left")
        chosen = per_set[labels]
    used = np.unique(chosen)
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


# Our ordering policy for parts with no listed lengths: (up to this run, round up to this step).
POLICY_STEPS_M = ((10.0, 1.0), (50.0, 5.0), (math.inf, 10.0))
POLICY_TEXT = (
    "no listed lengths in the catalog: run rounded up by the ordering policy (whole metres "
    "to 10 m, 5 m steps to 50 m, 10 m steps beyond; slack is in the run, layout.slack_m)"
)


def policy_length_m(run_m):
    """The ordered length of a run for a part sold in no listed lengths (our policy:
    :data:`POLICY_STEPS_M`); NaN (unknown) stays NaN. Works on arrays too.

    Examples
    --------
    >>> [float(policy_length_m(v)) for v in (0.6, 6.7, 10.0, 10.05, 12.8, 18.2, 50.0, 61.0)]
    [1.0, 7.0, 10.0, 15.0, 15.0, 20.0, 50.0, 70.0]
    """
    run = np.asarray(run_m, dtype=np.float64)
    out = np.full(run.shape, np.nan)
    below = np.zeros(run.shape, dtype=bool)
    for limit, step in POLICY_STEPS_M:
        here = ~below & (run <= limit + TOLERANCE_M)
        out[here] = np.ceil(np.round(run[here] / step - TOLERANCE_M / step, 6)) * step
        below |= here
    out = np.maximum(out, POLICY_STEPS_M[0][1])
    return out if out.ndim else out[()]


def order_lengths(fabric: Fabric, links: np.ndarray, keys: np.ndarray, lengths) -> None:
    """Order each cable at the shortest listed length that covers its longest leg; with no
    listed ``lengths``, at :func:`policy_length_m` of its longest leg. Links of unknown
    length (NaN) keep NaN."""
    ids, inverse = np.unique(keys, return_inverse=True)
    run = np.zeros(ids.size)
    np.maximum.at(run, inverse, fabric.link_length_m[links].astype(np.float64))
    if lengths:
        options = np.asarray(lengths, dtype=np.float64)
        pick = options[np.minimum(np.searchsorted(options, run - TOLERANCE_M), options.size - 1)]
    else:
        pick = policy_length_m(run)
    fabric.link_cable_length_m[links] = pick[inverse].astype(np.float32)


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


def _manager_links(fabric, tier_links, managers, cols, notes) -> None:
    """Fabric-manager links: the switch-end module of their cage only (the module the cage
    already has, else the tier's most common switch-end module)."""
    if not managers.size:
        return
    b_nodes = fabric.link_b[managers]
    ppc = fabric.node_ports_per_cage[b_nodes].astype(np.int64)
    ports = fabric.link_b_port[managers].astype(np.int64)
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
    notes.append(
        f"{managers.size} fabric-manager (UFM) link(s): switch-end module only; their cables "
        "and far-end modules are listed separately (as in the published SuperPOD BOM)"
    )


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
    pairs = np.unique(keys << 16 | parts)
    pair_keys = pairs >> 16
    if pairs.size == np.unique(pair_keys).size:
        return
    dup = int(pair_keys[np.flatnonzero(np.diff(pair_keys) == 0)[0]])
    node, port = dup >> NODE_SHIFT, dup & ((1 << NODE_SHIFT) - 1)
    names = sorted(cols.parts[int(p) & 0xFFFF] for p in pairs[pair_keys == dup])
    raise FabricError(
        f"the cage of {fabric.node_name[node]} port {port + 1} joins links of two tiers that "
        f"chose different modules ({', '.join(names)}); choose the same media for both tiers",
        field="media",
    )


def assign_media(
    fabric: Fabric, spec: DesignSpec, facts: CatalogFacts, *, price_of: PriceOf = None
) -> None:
    """Fill ``parts`` and the ``link_*_part``, ``link_*_module`` and ``link_cable`` columns.

    Needs ``link_length_m`` (:func:`planner.domain.layout.assign_layout`). The policy is in
    the module docstring.

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
            combo = (
                fabric.node_model[a_nodes].astype(np.int64) << 48
                | fabric.node_model[b_nodes].astype(np.int64) << 32
                | fabric.node_ports_per_cage[a_nodes].astype(np.int64) << 24
                | fabric.node_ports_per_cage[b_nodes].astype(np.int64) << 16
                | fabric.link_speed_gbps[links].astype(np.int64)
            )
            values, inverse = np.unique(combo, return_inverse=True)
            for value_index in range(values.size):
                members = links[inverse == value_index]
                group = LinkGroup(fabric, tier, members, facts)
                _assign_group(fabric, group, choice, catalog, cols, info, named)
        _manager_links(
            fabric,
            np.flatnonzero(tier_mask & ~is_manager),
            np.flatnonzero(tier_mask & is_manager),
            cols,
            notes,
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
    used_cables = [cols.parts[i] for i in np.unique(cols.cable_part) if i >= 0]
    if any(facts.parts[slug].get("lengths_m") for slug in used_cables):
        notes.append(
            "cables and fibers sold in listed lengths are ordered at the shortest listed length "
            "that covers the longest run of that cable (link_cable_length_m)"
        )
    if any(not facts.parts[slug].get("lengths_m") for slug in used_cables):
        notes.append(f"cables and fibers with {POLICY_TEXT}")
    info["media_warnings"] = sorted(set(info["media_warnings"]))
    info["media_notes"] = notes


__all__ = [
    "Candidate",
    "LinkEnd",
    "LinkGroup",
    "MediaCatalog",
    "Rejections",
    "assign_media",
    "cable_candidates",
    "dense_ids",
    "end_reason",
    "module_options",
    "optic_candidates",
    "order_lengths",
    "policy_length_m",
    "rank_candidates",
]
