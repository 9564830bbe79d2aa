"""The design spec ("design as code"): parse, check and default a YAML/JSON document.

Structure and types are checked against ``design-spec.schema.json`` (the same schema the
docs and editors use); meaning (fat-tree needs ``k``, tiers 2 or 3, ...) is checked here.
Every problem names its field, e.g. ``switches.leaf`` or ``layout.rack_units``.
"""

from __future__ import annotations

import copy
import difflib
import json
import math
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

import yaml

from inventory.library.documents import DocumentError, load_json, load_yaml
from planner.domain.campus import Campus, parse_campus
from planner.domain.transport.block import check_transport

SCHEMA_PATH = Path(__file__).with_name("design-spec.schema.json")
TOPOLOGIES = ("rail-optimized", "clos", "fat-tree")
TIERS = ("server-leaf", "leaf-spine", "spine-core")
MEDIA_KINDS = ("auto", "DAC", "ACC", "AEC", "AOC", "MMF", "SMF")


class SpecError(ValueError):
    """A spec cannot be used. ``problems`` is a list of ``(field, message)``."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{f}: {m}" if f else m for f, m in problems))


@cache
def spec_schema() -> dict:
    """The JSON Schema of a design spec."""
    return json.loads(SCHEMA_PATH.read_text())


@dataclass(frozen=True)
class MediaChoice:
    """How to build the links of one tier: a media kind, or explicit parts."""

    kind: str = "auto"  # auto | DAC | ACC | AEC | AOC | MMF | SMF | parts
    a: str | None = None
    b: str | None = None
    cable: str | None = None

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
    servers_per_rack: int | None = None
    rack: str | None = None
    rack_units: int = 48
    racks_per_row: int | None = None
    rack_width_m: float = 0.6
    row_pitch_m: float = 3.0
    tray_height_m: float = 0.6
    slack_m: float = 2.0
    switches_per_network_rack: int = 16


CABLING_KINDS = ("point-to-point", "patch-panel")
#: Fibers per MPO connector of a trunk: MPO-12 and MPO-16 (TIA-604-5 / IEC 61754-7 formats).
MPO_FIBERS = {"mpo12": 12, "mpo16": 16}


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

    type: str = "point-to-point"
    panels: str = "in-rack"  # in-rack | end-of-row
    trunk_fibers: int | str = "auto"  # auto | 12 | 16 | 24 | 32 | 144
    lc_termination: str = "cassette"  # cassette | harness
    polarity: str = "type-b"  # type-a | type-b | type-c
    mpo: str = "mpo12"  # mpo12 | mpo16
    polish: str = "apc"  # apc | upc

    @property
    def structured(self) -> bool:
        return self.type == "patch-panel"

    def as_spec(self):
        if not self.structured:
            return self.type
        return {"type": self.type, **{k: v for k, v in asdict(self).items() if k != "type"}}


@dataclass(frozen=True)
class Naming:
    server: str = "gpu{index:05d}"
    leaf: str = "leaf-su{su:03d}-r{rail}"
    spine: str = "spine-{group:03d}-{index:03d}"
    core: str = "core-{group:03d}-{index:03d}"


@dataclass(frozen=True)
class DesignSpec:
    """A parsed, defaulted design spec. See ``design-spec.schema.json`` for each field."""

    name: str
    topology: str
    server: str
    servers: int | None = None
    racks: int | None = None
    gpus: int | None = None
    rails: int | None = None
    planes: int = 1
    tiers: int | str = "auto"
    spines: int | None = None
    min_spines: int = 2
    uplink_speed_gbps: int | None = None
    grow_to: dict[str, int] = field(default_factory=dict)
    servers_per_su: int | None = None
    oversubscription: float = 1
    leaf: str | None = None
    spine: str | None = None
    core: str | None = None
    reserved_leaf_ports: int = 0
    k: int | None = None
    media: dict[str, MediaChoice] = field(default_factory=dict)
    price_book: str | None = None
    layout: Layout = field(default_factory=Layout)
    naming: Naming = field(default_factory=Naming)
    description: str = ""
    # The cluster's other networks as written (storage, inband, oob, converged, ...);
    # defaults are filled in when they are built (planner.domain.networks). Empty: none.
    networks: dict = field(default_factory=dict)
    # Per tier, as written (absent: point-to-point); see TierCabling.
    cabling: dict[str, TierCabling] = field(default_factory=dict)
    # Optical budget: a link whose worst-case margin is under this many dB is warned about
    # (planner.domain.physical.budget; issue 19 default 1 dB).
    optical_margin_min_db: float = 1.0
    # Several halls or buildings (planner.domain.campus); None: one hall.
    campus: Campus | None = None
    # The transport block as written ({} = not given: infiniband or roce from the leaf
    # switch, profile defaults); filled in when the fabric is built
    # (planner.domain.transport.resolve) and kept as fabric.info["transport"].
    transport: dict = field(default_factory=dict)
    # Power feeds of the racks as written ({} = not stated): ``feeds`` and ``by_rack_kind``
    # (planner.analyses.resilience.domains); kept as fabric.info["power_feeds"].
    power: dict = field(default_factory=dict)

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
            message = f"{error.instance!r}: use 2, 3 or auto"
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


def _non_finite(value, path: str = "") -> list[tuple[str, str]]:
    """Problems for NaN and infinite numbers (YAML's ``.nan``, ``.inf``), which JSON Schema's
    ``minimum`` and ``exclusiveMinimum`` let through."""
    if isinstance(value, float) and not math.isfinite(value):
        return [(path, f"{value!r} is not a finite number")]
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return []
    return [
        problem
        for key, item in items
        for problem in _non_finite(item, f"{path}.{key}" if path else str(key))
    ]


def _whole_numbers(document: dict, schema: dict) -> dict:
    """The document with whole floats (``8.0``, an integer to JSON Schema) made ``int`` where
    the schema asks for an integer (and ``tiers``, 2 or 3), so that counts stay counts."""
    out = dict(document)
    for key, rule in schema.get("properties", {}).items():
        value = out.get(key)
        if isinstance(value, float) and (rule.get("type") == "integer" or key == "tiers"):
            out[key] = int(value)
        elif isinstance(value, dict) and "properties" in rule:
            out[key] = _whole_numbers(value, rule)
    return out


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
    problems = _schema_problems(document) or _non_finite(document)
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
    if topology != "rail-optimized" and "servers_per_su" in document:
        problems.append(("servers_per_su", "scalable units apply to rail-optimized fabrics"))
    if topology == "fat-tree" and not switches.get("leaf"):
        problems.append(("switches.leaf", "required: the switch model of the tree"))
    if document.get("networks"):
        from planner.domain.networks import check_networks

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
    return DesignSpec(
        name=document["name"],
        topology=topology,
        server=document["server"],
        servers=document.get("servers"),
        racks=document.get("racks"),
        gpus=document.get("gpus"),
        rails=document.get("rails"),
        planes=document.get("planes", 1),
        tiers=document.get("tiers", "auto"),
        spines=document.get("spines"),
        min_spines=document.get("min_spines", 2),
        uplink_speed_gbps=document.get("uplink_speed_gbps"),
        grow_to=dict(document.get("grow_to") or {}),
        servers_per_su=document.get("servers_per_su"),
        oversubscription=document.get("oversubscription", 1),
        leaf=leaf,
        spine=switches.get("spine") or leaf,
        core=switches.get("core") or switches.get("spine") or leaf,
        reserved_leaf_ports=document.get("reserved_leaf_ports", 0),
        k=document.get("k"),
        media=media,
        price_book=document.get("price_book"),
        layout=Layout(**(document.get("layout") or {})),
        naming=Naming(**(document.get("naming") or {})),
        description=document.get("description", ""),
        networks=copy.deepcopy(document.get("networks") or {}),
        cabling=cabling,
        optical_margin_min_db=document.get("optical_margin_min_db", 1.0),
        campus=campus,
        transport=_transport_block(document.get("transport")),
        power=copy.deepcopy(document.get("power") or {}),
    )


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
