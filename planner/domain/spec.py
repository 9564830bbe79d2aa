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
from dataclasses import fields
from functools import cache
from pathlib import Path

import yaml

from inventory.library.documents import DocumentError, load_json_or_yaml
from inventory.library.quantities import range_problems
from planner.domain.campus import parse_campus
from planner.domain.networks import check_networks
from planner.domain.spec_blocks import (
    BLOCK_DEFS,
)
from planner.domain.specfields import object_rule, word_or_mapping
from planner.domain.transport.block import check_transport

from .spec_model import (
    CABLING_KINDS,
    MEDIA_KINDS,
    MPO_FIBERS,
    TIERS,
    DesignSpec,
    Layout,
    MediaChoice,
    Naming,
    TierCabling,
)

SCHEMA_PATH = Path(__file__).with_name("design-spec.schema.json")


class SpecError(ValueError):
    """A spec cannot be used. ``problems`` is a list of ``(field, message)``."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{f}: {m}" if f else m for f, m in problems))


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
        document = load_json_or_yaml(text)
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

    Long because: it checks the document block by block (schema, transport, cabling, ranges, one
    tier, networks), each block a few lines that add problems naming the field.
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
