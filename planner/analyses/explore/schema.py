"""The JSON Schema of a requirements document (:data:`REQUIREMENTS_SCHEMA`), for the API, the
wizard and the docs. :func:`planner.analyses.explore.requirements.parse_requirements` is the
check that counts (catalog names, ranges, contradictions); the schema states the shape."""

from __future__ import annotations

from .requirements import (
    CABLINGS,
    COLLECTIVES,
    DEFAULT_MESSAGE_BYTES,
    DEFAULT_OBJECTIVES,
    DEFAULT_TOPOLOGIES,
    MAX_CANDIDATES,
    MAX_CANDIDATES_LIMIT,
    OBJECTIVES,
    ROUTINGS,
    TIERS,
    TOPOLOGIES,
    TRANSPORTS,
    UPLINKS,
)


def _list_of(item: dict, *, any_word: bool = False) -> dict:
    """One value, a non-empty list of them, or (``any_word``) the word ``any``."""
    options = [item, {"type": "array", "items": item, "minItems": 1}]
    if any_word:
        options.append({"const": "any"})
    return {"anyOf": options}


_NAME = {"type": "string", "minLength": 1}
_COUNT = {"type": "integer", "minimum": 1}
_RANGE = {
    "type": "object",
    "additionalProperties": False,
    "properties": {"min": _COUNT, "max": _COUNT},
    "required": ["max"],
}

REQUIREMENTS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://fabric-planner.example/schemas/explore-requirements.json",
    "title": "Fabric Planner exploration requirements",
    "description": "What a design-space exploration searches: the GPU count, the parts and "
    "shapes allowed, the limits and the workload (docs: guide/explore).",
    "type": "object",
    "additionalProperties": False,
    "required": ["gpus"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 100, "default": "exploration"},
        "gpus": {
            "description": "GPU count, or {min, max}: candidates use the fewest whole servers "
            "(or rack-scale systems) within the range.",
            "anyOf": [_COUNT, _RANGE],
        },
        "servers": {**_list_of(_NAME, any_word=True), "default": "any"},
        "switches": {
            "description": "Catalog switch names or any: each candidate uses one model in "
            "every tier; a mapping {leaf, spine, core} tries every combination.",
            "default": "any",
            "anyOf": [
                _list_of(_NAME, any_word=True),
                {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        role: _list_of(_NAME, any_word=True) for role in ("leaf", "spine", "core")
                    },
                },
            ],
        },
        "transports": {
            **_list_of({"enum": list(TRANSPORTS)}, any_word=True),
            "default": list(TRANSPORTS),
        },
        "speeds_gbps": {
            **_list_of({"type": "integer", "minimum": 1, "maximum": 3200}, any_word=True),
            "default": "any",
        },
        "planes": {**_list_of({"enum": [1, 2, 4, 8]}), "default": [1]},
        "topologies": {
            **_list_of({"enum": list(TOPOLOGIES)}, any_word=True),
            "default": list(DEFAULT_TOPOLOGIES),
        },
        "tiers": {**_list_of({"enum": list(TIERS)}, any_word=True), "default": [2, 3]},
        "oversubscription": {
            "description": "down:up ratios: {min, max} (the explorer tries 1, 1.5, 2, 3, 4, 5, "
            "6, 8 within it, and both ends), a ratio or a list of ratios.",
            "default": {"min": 1, "max": 1},
            "anyOf": [
                {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "min": {"type": "number", "exclusiveMinimum": 0, "maximum": 16},
                        "max": {"type": "number", "exclusiveMinimum": 0, "maximum": 16},
                    },
                },
                _list_of({"type": "number", "exclusiveMinimum": 0, "maximum": 16}),
            ],
        },
        "cabling": {
            **_list_of({"enum": list(CABLINGS)}, any_word=True),
            "default": ["point-to-point"],
        },
        "uplinks": {
            "description": "Switch-to-switch link speeds tried: link (the server-link speed) "
            "and/or port (the leaf's fastest port speed, e.g. 800G uplinks on a leaf split "
            "2 x 400G toward the servers).",
            **_list_of({"enum": list(UPLINKS)}, any_word=True),
            "default": ["link"],
        },
        "limits": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "budget": {
                    "anyOf": [
                        {"type": "number", "exclusiveMinimum": 0},
                        {
                            "type": "object",
                            "additionalProperties": False,
                            "anyOf": [{"required": ["amount"]}, {"required": ["price_book"]}],
                            "properties": {
                                "amount": {"type": "number", "exclusiveMinimum": 0},
                                "currency": {"type": "string", "pattern": "^[A-Za-z]{3}$"},
                                "price_book": {"type": "string"},
                            },
                        },
                    ]
                },
                "power_kw": {"type": "number", "exclusiveMinimum": 0},
                "racks": _COUNT,
                "max_gpus_lost_switch": {"type": "integer", "minimum": 0},
                "max_gpus_lost_rack": {"type": "integer", "minimum": 0},
                "min_optical_margin_db": {"type": "number", "minimum": 0},
            },
        },
        "workload": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "collectives": {
                    **_list_of({"enum": list(COLLECTIVES)}, any_word=True),
                    "default": ["all-reduce"],
                },
                "message_bytes": {
                    **_list_of({"type": "integer", "minimum": 8, "maximum": 2**40}),
                    "default": [DEFAULT_MESSAGE_BYTES],
                },
                "job_gpus": _list_of({"type": "integer", "minimum": 2}),
                "routing": {"enum": ["design", *ROUTINGS], "default": "design"},
            },
        },
        "objectives": {
            **_list_of({"enum": list(OBJECTIVES)}, any_word=True),
            "default": list(DEFAULT_OBJECTIVES),
        },
        "max_candidates": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_CANDIDATES_LIMIT,
            "default": MAX_CANDIDATES,
        },
        "base": {
            "type": "object",
            "description": "Design-spec keys every candidate takes as written (layout, media, "
            "reserved_leaf_ports, servers_per_su, networks, power, ...); not the keys the "
            "explorer sets.",
        },
    },
}

__all__ = ["REQUIREMENTS_SCHEMA"]
