"""The design spec ("design as code"): its definition, and how a YAML/JSON document is parsed,
checked and defaulted.

The dataclasses below are the spec's one definition: each field is declared with
:func:`planner.domain.specfields.spec_field` (its default, title with unit, description,
range or enum), and :func:`spec_schema` generates the JSON Schema from them (the blocks kept
as written, ``transport``, ``networks``, ``power`` and ``campus``, take their rules from
:mod:`planner.domain.spec_blocks`). The wizard's fields are made from the same schema
(:mod:`planner.designs.forms`), and ``design-spec.schema.json`` beside this module is that
schema written out for editors and the docs (:func:`schema_text`; ``make spec-schema``).

Structure and types are checked against the schema; meaning (fat-tree needs ``k``, tiers 2
or 3, ...) is checked here. Every problem names its field, e.g. ``switches.leaf`` or
``layout.rack_units``.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from dataclasses import asdict, dataclass, fields
from functools import cache
from pathlib import Path

import yaml

from inventory.library.documents import DocumentError, load_json, load_yaml
from inventory.library.quantities import range_problems
from planner.domain.campus import Campus, parse_campus
from planner.domain.networks import check_networks
from planner.domain.spec_blocks import (
    BLOCK_DEFS,
    CAMPUS_RULE,
    NETWORKS_RULE,
    POWER_RULE,
    TRANSPORT_RULE,
)
from planner.domain.specfields import object_rule, spec_field, word_or_mapping
from planner.domain.transport.block import check_transport

SCHEMA_PATH = Path(__file__).with_name("design-spec.schema.json")
TOPOLOGIES = ("rail-optimized", "clos", "fat-tree")
TIERS = ("server-leaf", "leaf-spine", "spine-core")
MEDIA_KINDS = ("auto", "DAC", "ACC", "AEC", "AOC", "MMF", "SMF")
CABLING_KINDS = ("point-to-point", "patch-panel")
#: Fibers per MPO connector of a trunk: MPO-12 and MPO-16 (TIA-604-5 / IEC 61754-7 formats).
MPO_FIBERS = {"mpo12": 12, "mpo16": 16}
#: A tier's ends as the page names them ("server – leaf").
TIER_ENDS = {tier: tier.replace("-", " – ") for tier in TIERS}


class SpecError(ValueError):
    """A spec cannot be used. ``problems`` is a list of ``(field, message)``."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{f}: {m}" if f else m for f, m in problems))


@dataclass(frozen=True)
class MediaChoice:
    """How to build the links of one tier: a media kind, or explicit parts (``kind`` parts)."""

    kind: str = spec_field("auto", enum=MEDIA_KINDS)
    a: str | None = spec_field(None)
    b: str | None = spec_field(None)
    cable: str | None = spec_field(None)

    def as_spec(self):
        if self.kind != "parts":
            return self.kind
        return {
            key: value
            for key, value in (("a", self.a), ("b", self.b), ("cable", self.cable))
            if value is not None
        }


@dataclass(frozen=True)
class Layout:
    servers_per_rack: int | None = spec_field(
        None,
        title="Servers per rack",
        description="Default: as many as fit the rack's RU and power.",
        minimum=1,
    )
    rack: str | None = spec_field(
        None,
        title="Rack type",
        description="The rack type, by its catalog name: its height (RU) and power limit (kW) "
        "decide servers per rack and flag over-limit racks. Default: a 48U rack with no power "
        "limit unless servers_per_rack is set.",
    )
    rack_units: int = spec_field(48, minimum=10, maximum=60)
    racks_per_row: int | None = spec_field(
        None,
        description="Default: auto — a near-square hall (ceil(sqrt(racks * row_pitch_m / "
        "rack_width_m)), at least 10, rounded up to whole SU/blocks, at most 64).",
        minimum=2,
        maximum=64,
    )
    rack_width_m: float = spec_field(0.6, exclusiveMinimum=0)
    row_pitch_m: float = spec_field(
        3.0,
        description="Distance between the fronts of two rows (rack depth + aisle).",
        exclusiveMinimum=0,
    )
    tray_height_m: float = spec_field(
        0.6, description="Cable tray height above the rack top.", minimum=0
    )
    slack_m: float = spec_field(
        2.0,
        description="Service loop added to every cable run that leaves the rack.",
        minimum=0,
    )
    switches_per_network_rack: int = spec_field(16, minimum=1)


@dataclass(frozen=True)
class TierCabling:
    """How the links of one tier are cabled (``cabling.<tier>`` in the spec).

    ``point-to-point`` (the default) is one cable or fiber per link. ``patch-panel`` runs each
    link port -> patch cord -> panel -> MPO trunk -> panel -> patch cord -> port
    (:mod:`planner.domain.physical.structured`). Defaults are what NVIDIA's structured cabling
    requirements ask for MPO (https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth
    "MPO/LC Cable Requirements", 2025-09-10: MPO low loss, green tab, APC, Type-B per TIA-568,
    8 fibers per strand, 12 allowed); in-rack panels, cassettes for LC and ``auto`` trunk sizes
    are our choice (inferred), documented in the structured module.
    """

    type: str = spec_field("point-to-point", enum=CABLING_KINDS)
    panels: str = spec_field(
        "in-rack",
        description="in-rack: panels in the top free units of each rack holding a link end; "
        "end-of-row: a panel rack at the end of each row.",
        enum=("in-rack", "end-of-row"),
    )
    trunk_fibers: int | str = spec_field(
        "auto",
        description="Fibers per MPO trunk. auto: 144-fiber trunks (12 x MPO-12) or 32-fiber "
        "(2 x MPO-16) for the bulk of a panel pair, the smallest that carries the rest.",
        rule={"oneOf": [{"const": "auto"}, {"enum": [12, 16, 24, 32, 144]}]},
    )
    lc_termination: str = spec_field(
        "cassette",
        description="Duplex-LC optics: an MPO-to-LC cassette in the panel (2 mated pairs per "
        "panel), or a breakout harness from the panel's MPO adapter (1).",
        enum=("cassette", "harness"),
    )
    polarity: str = spec_field(
        "type-b",
        description="Trunk polarity (TIA-568). Default type-b, NVIDIA's structured cabling "
        "requirements for MPO.",
        enum=("type-a", "type-b", "type-c"),
    )
    mpo: str = spec_field(
        "mpo12",
        description="Trunk MPO format: MPO-12 (4-lane SR4/DR4, 8 of 12 fibers) or MPO-16 "
        "(8-lane SR8/DR8).",
        enum=tuple(MPO_FIBERS),
    )
    polish: str = spec_field(
        "apc",
        description="MPO end-face polish. Default apc, NVIDIA's requirement for MPO multimode "
        "and single-mode.",
        enum=("apc", "upc"),
    )

    @property
    def structured(self) -> bool:
        return self.type == "patch-panel"

    def as_spec(self):
        if not self.structured:
            return self.type
        return {"type": self.type, **{k: v for k, v in asdict(self).items() if k != "type"}}


@dataclass(frozen=True)
class Naming:
    server: str = spec_field("gpu{index:05d}")
    leaf: str = spec_field("leaf-su{su:03d}-r{rail}")
    spine: str = spec_field("spine-{group:03d}-{index:03d}")
    core: str = spec_field("core-{group:03d}-{index:03d}")


def _per_tier(definition: str, title: str, default: str, description: str) -> dict:
    """The rule of a mapping from tier to a value of ``$defs/<definition>`` (a tier not given
    takes ``default``)."""
    return {
        "additionalProperties": False,
        "properties": {
            tier: {
                "$ref": f"#/$defs/{definition}",
                "title": f"{title} {TIER_ENDS[tier]}",
                "default": default,
            }
            for tier in TIERS
        },
        "description": description,
    }


_COUNT = {"type": "integer", "minimum": 1}
GROW_TO_RULE = {
    "type": "object",
    "additionalProperties": False,
    "minProperties": 1,
    "maxProperties": 1,
    "properties": {
        "gpus": {
            "title": "Grow to (GPUs)",
            **_COUNT,
            "description": "Spines and cores sized for this many GPUs; only today's leaves "
            "are built.",
        },
        "servers": _COUNT,
        "racks": _COUNT,
    },
    "description": "The final build, as one of gpus, servers or racks: spines and cores, and "
    "the ports they keep free, are sized for it, while only today's leaves and servers are "
    "built.",
}


@dataclass(frozen=True)
class DesignSpec:
    """A parsed, defaulted design spec: the spec's definition (see the module docstring).

    Each field is a key of the document, but ``leaf``, ``spine`` and ``core``, which the
    document gives under ``switches``. Blocks kept as written (``networks``, ``transport``,
    ``power``) are filled in when the fabric is built.
    """

    name: str = spec_field(title="Name", description="Design name.", minLength=1, maxLength=100)
    topology: str = spec_field(
        title="Topology",
        description="rail-optimized: each SU has one leaf per rail taking that NIC port of "
        "every server in the SU (NVIDIA SuperPOD). clos: leaf-spine(-core) with servers' ports "
        "on consecutive leaf ports. fat-tree: k-ary fat-tree (Al-Fares 2008).",
        enum=TOPOLOGIES,
    )
    server: str = spec_field(
        title="Server",
        description="The GPU server model, by its catalog name (e.g. DGX-H100).",
    )
    servers: int | None = spec_field(
        None,
        title="Servers",
        description="Server count. fat-tree: may be omitted for the full tree.",
        minimum=1,
    )
    racks: int | None = spec_field(
        None,
        title="Racks",
        description="Rack-scale systems only (GB200-NVL72, GB300-NVL72): the number of racks, "
        "i.e. systems; the same as servers for such a system.",
        minimum=1,
    )
    gpus: int | None = spec_field(
        None,
        title="GPUs",
        description="GPU count, instead of servers or racks: servers = GPUs / GPUs per server "
        "(or per rack-scale system), rounded up.",
        minimum=1,
    )
    rails: int | None = spec_field(
        None,
        title="Rails",
        description="Compute NIC ports per server used by this fabric. Default: the server "
        "model's compute ports.",
        minimum=1,
    )
    planes: int = spec_field(
        1,
        title="Planes",
        description="Each NIC port is split into this many independent planes of lower speed; "
        "each plane is its own fabric.",
        minimum=1,
        maximum=8,
    )
    tiers: int | str = spec_field(
        "auto",
        title="Tiers",
        description="Switch tiers; auto = the fewest that fit (2 or 3). 1: one tier, a single "
        "leaf or an MLAG pair of leaves per plane with every server port on it and no spines.",
        rule={"oneOf": [{"enum": [1, 2, 3]}, {"const": "auto"}]},
    )
    spines: int | None = spec_field(
        None,
        title="Spines (exact)",
        description="Exact spine switches per plane (two tiers) or per pod (three tiers). "
        "Default: the fewest that wire every leaf evenly, and at least min_spines.",
        minimum=1,
    )
    min_spines: int = spec_field(
        2,
        title="Minimum spines",
        description="Fewest spines the automatic choice may pick, so that no leaf hangs on a "
        "single uplink switch; 1 allows a single spine.",
        minimum=1,
    )
    uplink_speed_gbps: int | None = spec_field(
        None,
        title="Uplink speed (Gb/s)",
        description="Speed of switch-to-switch links (leaf-spine, spine-core), e.g. 800 on a "
        "two-plane fabric whose leaves split 800G ports 2 x 400G toward the servers. Default: "
        "the server link (plane) speed.",
        minimum=1,
    )
    grow_to: dict[str, int] = spec_field(default_factory=dict, rule=GROW_TO_RULE)
    servers_per_su: int | None = spec_field(
        None,
        title="Servers per SU",
        description="Servers per scalable unit (rail-optimized). Default: half the leaf radix "
        "(non-blocking).",
        minimum=1,
    )
    oversubscription: float = spec_field(
        1,
        title="Oversubscription",
        description="Leaf downlink:uplink bandwidth ratio: 1 = non-blocking, 3 = 3:1, 0.5 = "
        "1:2 (twice as much uplink as downlink bandwidth). Any ratio above 0; a spec may also "
        'write it as vendors publish it, "down:up" ("3:1", "1:2").',
        exclusiveMinimum=0,
        maximum=16,
    )
    leaf: str | None = spec_field(
        None,
        title="Leaf switch",
        description="The leaf switch model, by its catalog name.",
        group="switches",
    )
    spine: str | None = spec_field(
        None,
        title="Spine switch",
        description="The spine switch model. Default: the leaf model.",
        group="switches",
    )
    core: str | None = spec_field(
        None,
        title="Core switch",
        description="The core switch model. Default: the spine model.",
        group="switches",
    )
    reserved_leaf_ports: int = spec_field(
        0,
        title="Reserved leaf ports",
        description="Leaf ports kept free for fabric managers (UFM), per plane. They take free "
        "server ports of the last SU.",
        minimum=0,
    )
    k: int | None = spec_field(
        None,
        title="k (fat-tree radix)",
        description="Fat-tree radix (fat-tree only).",
        minimum=4,
        multipleOf=2,
    )
    media: dict[str, MediaChoice] = spec_field(
        default_factory=dict,
        rule=_per_tier(
            "media",
            "Media",
            MediaChoice().kind,
            "Per tier. auto = cheapest in the price book, then lowest power (docs: Architect).",
        ),
    )
    price_book: str | None = spec_field(
        None,
        title="Price book",
        description="The price book whose prices media 'auto' compares. Default: the seed "
        "reseller book.",
    )
    layout: Layout = spec_field(default_factory=Layout)
    naming: Naming = spec_field(
        default_factory=Naming,
        description="Python format strings; {plane} is prefixed automatically when planes > 1.",
    )
    description: str = spec_field("", title="Description", maxLength=2000)
    # The cluster's other networks as written (storage, inband, oob, converged, ...);
    # defaults are filled in when they are built (planner.domain.networks). Empty: none.
    networks: dict = spec_field(default_factory=dict, rule=NETWORKS_RULE)
    # Per tier, as written (absent: point-to-point); see TierCabling.
    cabling: dict[str, TierCabling] = spec_field(
        default_factory=dict,
        rule=_per_tier(
            "cabling",
            "Cabling",
            TierCabling().type,
            "Per tier: point-to-point (the default: one cable or fiber per link) or "
            "patch-panel (structured cabling: a patch cord at each end, patch panels, MPO "
            "trunks between them; planner/domain/physical/structured.py).",
        ),
    )
    # Optical budget: a link whose worst-case margin is under this many dB is warned about
    # (planner.domain.physical.budget; issue 19 default 1 dB).
    optical_margin_min_db: float = spec_field(
        1.0,
        title="Optical margin (dB)",
        description="Optical loss budget: validation warns about a link whose worst-case "
        "margin (channel insertion-loss limit minus computed loss) is under this many dB "
        "(default 1 dB).",
        minimum=0,
        maximum=20,
    )
    # Several halls or buildings (planner.domain.campus); None: one hall.
    campus: Campus | None = spec_field(None, rule=CAMPUS_RULE)
    # The transport block as written ({} = not given: infiniband or roce from the leaf
    # switch, profile defaults); filled in when the fabric is built
    # (planner.domain.transport.resolve) and kept as fabric.settings.transport.
    transport: dict = spec_field(default_factory=dict, rule=TRANSPORT_RULE)
    # Power feeds of the racks as written ({} = not stated): ``feeds`` and ``by_rack_kind``
    # (planner.analyses.resilience.domains); kept as fabric.settings.power_feeds.
    power: dict = spec_field(default_factory=dict, rule=POWER_RULE)

    def cabling_of(self, tier: str) -> TierCabling:
        """The cabling of ``tier`` (point-to-point when the spec does not say)."""
        return self.cabling.get(tier) or TierCabling()

    @property
    def structured(self) -> bool:
        """Some tier is cabled through patch panels."""
        return any(choice.structured for choice in self.cabling.values())

    def as_dict(self) -> dict:
        """The spec as a document (round-trips through :func:`parse_spec`)."""
        doc = {"name": self.name, "topology": self.topology, "server": self.server}
        if self.description:
            doc["description"] = self.description
        for key in (
            "servers",
            "racks",
            "gpus",
            "rails",
            "servers_per_su",
            "spines",
            "uplink_speed_gbps",
            "k",
            "price_book",
        ):
            if getattr(self, key) is not None:
                doc[key] = getattr(self, key)
        if self.grow_to:
            doc["grow_to"] = dict(self.grow_to)
        if self.min_spines != 2:  # the default is left out, as in specs written before it
            doc["min_spines"] = self.min_spines
        if self.optical_margin_min_db != 1.0:  # likewise
            doc["optical_margin_min_db"] = self.optical_margin_min_db
        doc.update(
            planes=self.planes,
            tiers=self.tiers,
            oversubscription=self.oversubscription,
            reserved_leaf_ports=self.reserved_leaf_ports,
        )
        doc["switches"] = {
            tier: getattr(self, tier) for tier in ("leaf", "spine", "core") if getattr(self, tier)
        }
        doc["media"] = {tier: choice.as_spec() for tier, choice in self.media.items()}
        doc["layout"] = {k: v for k, v in asdict(self.layout).items() if v is not None}
        if self.campus is not None:  # left out when not given, as in specs written before it
            doc["campus"] = self.campus.as_spec()
        if self.cabling:  # left out when not given, as in specs written before it
            doc["cabling"] = {tier: choice.as_spec() for tier, choice in self.cabling.items()}
        doc["naming"] = asdict(self.naming)
        if self.networks:
            doc["networks"] = copy.deepcopy(self.networks)
        if self.transport:  # left out when not given, as in specs written before it
            doc["transport"] = copy.deepcopy(self.transport)
        if self.power:  # likewise
            doc["power"] = copy.deepcopy(self.power)
        return doc


#: The schema's own keys, before the generated ones.
_SCHEMA_HEAD = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://fabric-planner.example/schemas/design-spec.json",
    "title": "Fabric Planner design spec",
    "description": "A fabric stated as intent: topology, server and switch models, counts, "
    "media and layout. Catalog parts are named by slug. Omitted values take the documented "
    "defaults.",
}


@cache
def spec_schema() -> dict:
    """The JSON Schema of a design spec, generated from :class:`DesignSpec` and its nested
    dataclasses (:func:`planner.domain.specfields.object_rule`). Do not change the result:
    it is cached and shared."""
    groups = {
        "switches": {
            "required": ["leaf"],
            "description": "Catalog slugs per tier; spine and core default to the leaf model.",
        }
    }
    return {
        **_SCHEMA_HEAD,
        **object_rule(DesignSpec, groups=groups),
        "$defs": {
            **BLOCK_DEFS,
            "cabling": word_or_mapping(TierCabling, "type", in_mapping=True),
            "media": word_or_mapping(
                MediaChoice,
                "kind",
                in_mapping=False,
                minProperties=1,
                description="Explicit parts: a = module at the lower-tier end, b = upper-tier "
                "end, cable = cable or fiber; any may be omitted.",
            ),
        },
    }


def schema_text() -> str:
    """The schema as ``design-spec.schema.json`` holds it (a test keeps the file equal): JSON
    indented by two, a value on one line where it fits in 100 characters."""
    return _json_lines(spec_schema(), 0) + "\n"


def _json_lines(value, indent: int, used: int = 0) -> str:
    """``value`` as JSON on a line indented by ``indent`` whose first ``used`` characters are
    taken (by its key): on one line where the line fits in 100 characters."""
    flat = json.dumps(value, ensure_ascii=False)
    if indent + used + len(flat) <= 100 or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            head = f"{json.dumps(key, ensure_ascii=False)}: "
            items.append(pad + head + _json_lines(item, indent + 2, len(head)))
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + _json_lines(item, indent + 2) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def load_spec_text(text: str, *, name: str = "spec") -> dict:
    """Read YAML or JSON text into a document.

    JSON is YAML, but not quite: YAML reads JSON's ``\\ud83d\\ude00`` escapes as two lone
    surrogates, so text that parses as JSON is read as JSON. Both are read within the limits
    of :mod:`inventory.library.documents` (size, nesting depth, text a database can store),
    reported as a :class:`SpecError` naming the limit and the field.
    """
    try:
        try:
            document = load_json(text)
        except DocumentError:
            raise
        except ValueError:
            document = load_yaml(text, loader=yaml.SafeLoader)
    except DocumentError as exc:
        raise SpecError([(exc.path, f"{name}: {exc}")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise SpecError(
            [("", f"{name}{where}: malformed YAML/JSON: {getattr(exc, 'problem', exc)}")]
        ) from exc
    if not isinstance(document, dict):
        raise SpecError([("", f"{name}: a spec is a mapping of keys (name, topology, ...)")])
    return document


def _did_you_mean(typed, choices, *, quote: bool = True) -> str:
    """ "; did you mean 'rail-optimized'?" for a near miss (difflib), else "".

    Case-insensitive equals count (``mmf`` -> ``MMF``); ``quote=False`` gives the key form.

    >>> _did_you_mean("rail-optimised", ["rail-optimized", "clos", "fat-tree"])
    "; did you mean 'rail-optimized'?"
    >>> _did_you_mean("topolgy", ["topology", "tiers"], quote=False)
    ' (did you mean topology?)'
    >>> _did_you_mean("zzz", ["clos"])
    ''
    """
    if not isinstance(typed, str):
        return ""
    words = [str(choice) for choice in choices]
    close = difflib.get_close_matches(typed, words, n=1, cutoff=0.6)
    if not close:
        lowered = {word.lower(): word for word in words}
        close = [lowered[typed.lower()]] if typed.lower() in lowered else []
    if not close:
        return ""
    if quote:
        return f"; did you mean {close[0]!r}?"
    return f" (did you mean {close[0]}?)"


def _schema_problems(document: dict) -> list[tuple[str, str]]:
    from jsonschema import Draft202012Validator

    problems = []
    validator = Draft202012Validator(spec_schema())
    for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
        path = ".".join(str(p) for p in error.absolute_path)
        if error.validator == "additionalProperties":
            known = list(error.schema.get("properties", {}))
            extra = sorted(str(key) for key in set(error.instance) - set(known))
            unused = [key for key in known if key not in error.instance]  # a key is set once
            message = "unknown key(s): " + ", ".join(
                key + _did_you_mean(key, unused, quote=False) for key in extra
            )
        elif error.validator == "enum":
            message = error.message + _did_you_mean(error.instance, error.validator_value)
        elif error.validator == "oneOf" and path.startswith("media."):
            message = (
                f"{error.instance!r} is not one of {', '.join(MEDIA_KINDS)} nor "
                "{a, b, cable} parts"
            ) + _did_you_mean(error.instance, MEDIA_KINDS)
        elif error.validator == "oneOf" and path.startswith("cabling.") and path.count(".") == 1:
            message = _cabling_message(error.instance)
        elif error.validator == "oneOf" and path == "transport":
            problems.extend(_transport_problems(error))
            continue
        elif error.validator == "oneOf" and path == "tiers":
            message = f"{error.instance!r}: use 1, 2, 3 or auto"
        elif path.startswith("power.") and error.validator in ("pattern", "uniqueItems"):
            message = _feed_message(error)
        else:
            message = error.message
        problems.append((path, message))
    return problems


def _feed_message(error) -> str:
    """A power feed name the schema refuses: a repeated name, or one that is not a short
    word (``A``, ``B``, ``feed-1``)."""
    if error.validator == "uniqueItems":
        return f"a feed is named twice in {error.instance!r}; name each feed once"
    return (
        f"{error.instance!r} is not a feed name: 1 to 16 letters, digits, '-' or '_', "
        "starting with a letter or digit (e.g. A, B)"
    )


def _transport_problems(error) -> list[tuple[str, str]]:
    """A ``transport`` block the schema refuses: a word that is not a transport, or the
    mapping's own problems, each naming its field (``transport.cnp_dscp``)."""
    from jsonschema import Draft202012Validator

    if not isinstance(error.instance, dict):
        return [
            (
                "transport",
                f"{error.instance!r} is not one of infiniband, roce nor a mapping of settings"
                + _did_you_mean(error.instance, ["infiniband", "roce"]),
            )
        ]
    schema = spec_schema()
    branch = {**error.schema["oneOf"][1], "$defs": schema["$defs"]}
    problems = []
    for inner in sorted(
        Draft202012Validator(branch).iter_errors(error.instance),
        key=lambda e: list(e.absolute_path),
    ):
        path = ".".join(["transport", *(str(p) for p in inner.absolute_path)])
        if inner.validator == "additionalProperties":
            known = list(inner.schema.get("properties", {}))
            extra = sorted(str(key) for key in set(inner.instance) - set(known))
            message = "unknown key(s): " + ", ".join(
                key + _did_you_mean(key, known, quote=False) for key in extra
            )
        elif inner.validator == "enum":
            message = inner.message + _did_you_mean(inner.instance, inner.validator_value)
        else:
            message = inner.message
        problems.append((path, message))
    return problems


def _cabling_message(value) -> str:
    """What is wrong with one tier's ``cabling`` value (a string or a mapping)."""
    if isinstance(value, dict):
        from jsonschema import Draft202012Validator

        rule = spec_schema()["$defs"]["cabling"]["oneOf"][1]
        errors = sorted(Draft202012Validator(rule).iter_errors(value), key=lambda e: e.path)
        if errors:
            error = errors[0]
            where = ".".join(str(p) for p in error.absolute_path)
            if error.validator == "additionalProperties":
                extra = sorted(set(value) - set(rule["properties"]))
                return "unknown key(s): " + ", ".join(
                    key + _did_you_mean(key, list(rule["properties"]), quote=False) for key in extra
                )
            return f"{where + ': ' if where else ''}{error.message}"
    return f"{value!r} is not one of {', '.join(CABLING_KINDS)} nor a mapping with a type" + (
        _did_you_mean(value, CABLING_KINDS)
    )


def _out_of_range(document: dict) -> list[tuple[str, str]]:
    """Problems for numbers outside their physical range (:mod:`inventory.library.quantities`:
    by the unit in the key, ``slack_m``; a count without one) and for NaN and infinite
    numbers (YAML's ``.nan``, ``.inf``), which JSON Schema's ``minimum`` lets through."""
    return [
        (path, problem.split(": ", 1)[1])
        for key, value in document.items()
        for path, problem in range_problems(str(key), value)
    ]


def _whole_numbers(document: dict, schema: dict) -> dict:
    """The document with whole floats (``8.0``, an integer to JSON Schema) made ``int`` where
    the schema asks for an integer (and ``tiers``, 1, 2 or 3), so that counts stay counts."""
    out = dict(document)
    for key, rule in schema.get("properties", {}).items():
        value = out.get(key)
        if isinstance(value, float) and (rule.get("type") == "integer" or key == "tiers"):
            out[key] = int(value)
        elif isinstance(value, dict) and "properties" in rule:
            out[key] = _whole_numbers(value, rule)
    return out


_RATIO_TEXT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$")


def _ratio_text(document) -> tuple[dict, list[tuple[str, str]]]:
    """``oversubscription`` written as vendors publish it, ``"down:up"`` (``"3:1"``,
    ``"1:2"``), as the number the spec keeps (down / up bandwidth).

    >>> _ratio_text({"oversubscription": "1:2"})
    ({'oversubscription': 0.5}, [])
    >>> _ratio_text({"oversubscription": "1:0"})[1]
    [('oversubscription', "'1:0': both sides of down:up must be above 0")]
    """
    if not isinstance(document, dict) or not isinstance(document.get("oversubscription"), str):
        return document, []
    text = document["oversubscription"]
    match = _RATIO_TEXT.match(text)
    if match is None:
        return document, [
            ("oversubscription", f'{text!r}: write a number (3, 0.5) or down:up ("3:1", "1:2")')
        ]
    down, up = float(match.group(1)), float(match.group(2))
    if down <= 0 or up <= 0:
        return document, [("oversubscription", f"{text!r}: both sides of down:up must be above 0")]
    return {**document, "oversubscription": round(down / up, 6)}, []


def _one_tier_problems(document: dict) -> list[tuple[str, str]]:
    """Keys a one-tier fabric (a leaf or an MLAG pair per plane, no spines) cannot use.

    >>> _one_tier_problems({"tiers": 1, "spines": 2, "oversubscription": 1})
    [('spines', 'a one-tier fabric has no spines (tiers: 1)')]
    """
    problems = []
    for key in ("spines", "uplink_speed_gbps", "grow_to"):
        if document.get(key):
            what = {"grow_to": "is built whole", "spines": "has no spines"}.get(
                key, "has no uplinks"
            )
            problems.append((key, f"a one-tier fabric {what} (tiers: 1)"))
    if document.get("oversubscription", 1) != 1:
        problems.append(
            ("oversubscription", "a one-tier fabric has no uplinks to oversubscribe (tiers: 1)")
        )
    if (document.get("switches") or {}).get("spine") or (document.get("switches") or {}).get(
        "core"
    ):
        problems.append(("switches.spine", "a one-tier fabric has no spines (tiers: 1)"))
    return problems


def parse_spec(document: dict | str) -> DesignSpec:
    """Check a spec document and return it with defaults filled in.

    Parameters
    ----------
    document : dict or str
        The spec as a mapping, or YAML/JSON text.

    Raises
    ------
    SpecError
        With every problem found, each naming its field.

    Examples
    --------
    >>> spec = parse_spec({"name": "x", "topology": "clos", "server": "DGX-H100",
    ...                    "servers": 4, "switches": {"leaf": "QM9700"}})
    >>> spec.spine, spec.media["leaf-spine"].kind, spec.tiers
    ('QM9700', 'auto', 'auto')
    >>> parse_spec({"name": "x", "topology": "ring", "server": "A"}).name
    Traceback (most recent call last):
    ...
    planner.domain.spec.SpecError: topology: 'ring' is not one of [...]
    """
    if isinstance(document, str):
        document = load_spec_text(document)
    document, ratio_problems = _ratio_text(document)
    problems = ratio_problems or _schema_problems(document) or _out_of_range(document)
    if problems:
        raise SpecError(problems)
    document = _whole_numbers(document, spec_schema())
    switches = document.get("switches") or {}
    topology = document["topology"]
    if topology == "fat-tree" and "k" not in document:
        problems.append(("k", "a fat-tree needs its radix k"))
    if topology != "fat-tree" and "k" in document:
        problems.append(("k", "k applies to fat-tree only"))
    counts = [key for key in ("servers", "racks", "gpus") if key in document]
    if topology != "fat-tree" and not counts:
        problems.append(("servers", "required unless topology is fat-tree (or give racks or gpus)"))
    if len(counts) > 1:
        problems.append(
            (counts[1], f"give one of servers, racks and gpus, not {' and '.join(counts)}")
        )
    if topology == "fat-tree" and document.get("grow_to"):
        problems.append(
            ("grow_to", "a k-ary fat-tree is built whole; growth applies to leaf-spine fabrics")
        )
    if topology == "fat-tree" and "uplink_speed_gbps" in document:
        problems.append(("uplink_speed_gbps", "a k-ary fat-tree runs every tier at one speed"))
    if "spines" in document and document.get("min_spines", 1) > document["spines"]:
        problems.append(("min_spines", f"is more than spines = {document['spines']}"))
    if topology != "fat-tree" and not switches.get("leaf"):
        problems.append(("switches.leaf", "required: the leaf switch model"))
    if topology == "fat-tree" and document.get("tiers", "auto") not in ("auto", 3):
        problems.append(("tiers", "a k-ary fat-tree has 3 tiers"))
    if document.get("tiers") == 1:
        problems.extend(_one_tier_problems(document))
    if topology != "rail-optimized" and "servers_per_su" in document:
        problems.append(("servers_per_su", "scalable units apply to rail-optimized fabrics"))
    if topology == "fat-tree" and not switches.get("leaf"):
        problems.append(("switches.leaf", "required: the switch model of the tree"))
    if document.get("networks"):
        problems.extend(check_networks(document["networks"], document["server"]))
    cabling = _cabling(document.get("cabling") or {}, problems)
    campus = parse_campus(document.get("campus"), problems)
    if document.get("transport"):
        problems.extend(check_transport(document["transport"]))
    if problems:
        raise SpecError(problems)
    media = {}
    for tier in TIERS:
        value = (document.get("media") or {}).get(tier, "auto")
        media[tier] = (
            MediaChoice(kind=value)
            if isinstance(value, str)
            else MediaChoice(
                kind="parts", a=value.get("a"), b=value.get("b"), cable=value.get("cable")
            )
        )
    leaf = switches.get("leaf")
    given = {key: document[key] for key in _TAKEN_AS_GIVEN if key in document}
    return DesignSpec(
        **given,  # the rest take the definition's defaults
        grow_to=dict(document.get("grow_to") or {}),
        leaf=leaf,
        spine=switches.get("spine") or leaf,
        core=switches.get("core") or switches.get("spine") or leaf,
        media=media,
        layout=Layout(**(document.get("layout") or {})),
        naming=Naming(**(document.get("naming") or {})),
        networks=copy.deepcopy(document.get("networks") or {}),
        cabling=cabling,
        campus=campus,
        transport=_transport_block(document.get("transport")),
        power=copy.deepcopy(document.get("power") or {}),
    )


#: Fields of :class:`DesignSpec` that :func:`parse_spec` builds into their own types.
_BUILT = frozenset(
    ("grow_to", "leaf", "spine", "core", "media", "layout", "naming", "networks", "cabling")
    + ("campus", "transport", "power")
)
#: The other fields: read from the document's key of the same name as given.
_TAKEN_AS_GIVEN = tuple(item.name for item in fields(DesignSpec) if item.name not in _BUILT)


def _transport_block(block) -> dict:
    """The transport block as a mapping (``roce`` -> ``{"type": "roce"}``; absent: ``{}``)."""
    if not block:
        return {}
    return {"type": block} if isinstance(block, str) else copy.deepcopy(block)


def _mpo_name(mpo: str) -> str:
    """``mpo12`` -> ``MPO-12``."""
    return "MPO-" + mpo[3:]


def _cabling(block: dict, problems: list[tuple[str, str]]) -> dict[str, TierCabling]:
    """The ``cabling`` block as :class:`TierCabling` per tier given; a trunk size that the
    trunk's MPO format cannot make (16 or 32 fibers of MPO-12, 12/24/144 of MPO-16) is a
    problem naming ``cabling.<tier>.trunk_fibers``."""
    out = {}
    for tier in TIERS:
        value = block.get(tier)
        if value is None:
            continue
        choice = TierCabling(type=value) if isinstance(value, str) else TierCabling(**value)
        size = choice.trunk_fibers
        unit = MPO_FIBERS[choice.mpo]
        if choice.structured and isinstance(size, int) and size % unit:
            problems.append(
                (
                    f"cabling.{tier}.trunk_fibers",
                    f"a {size}-fiber trunk is not made of {_mpo_name(choice.mpo)} connectors "
                    f"({unit} fibers each); use {'16 or 32' if unit == 16 else '12, 24 or 144'}"
                    f", or mpo: {'mpo16' if unit == 12 else 'mpo12'}",
                )
            )
        out[tier] = choice
    return out
