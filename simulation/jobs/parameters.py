"""Each job kind's parameters as a DRF serializer: one definition for the checks and the docs.

:meth:`JobParameters.clean` is the one validation path of a job's parameters (the API, the
pages' forms and the services all submit through :func:`simulation.jobs.lifecycle.job_enqueue`,
which calls it); :meth:`JobParameters.json_schema` is what the OpenAPI schema shows for each
kind (``simulation.api.views.job_create_schema``). A problem is a ``ValidationError`` keyed
``parameters`` whose messages each start with the parameter they name
(``"seeds: a number from 1 to 200 (got 500)"``); every problem of a request is listed.

A parameter given as ``null`` counts as not given; so does an empty choice (``""``). The
choices that come from the flow simulation (traffics, routings, placements) are read when a
serializer is first used, not when this module loads (the flow simulation loads numba).
"""

from __future__ import annotations

import math
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers
from rest_framework.settings import api_settings

from planner.analyses.resilience.whatif import COLLECTIVES
from planner.analyses.sweep import AXES, MAX_POINTS, MAX_RUNS
from planner.analyses.sweep import MAX_SEEDS as SWEEP_MAX_SEEDS
from planner.domain.transport import PFC_MODES
from planner.presentation import count

MAX_HOLD_S = 3000
MAX_SIZE_BYTES = 1e13
MAX_SEEDS = 200
MAX_FAIL_LINKS = 10_000
MAX_SEED = 2**31 - 1
#: Most elements and domains one what-if fails at once.
MAX_WHATIF_FAILED = 1_000
#: Routings whose outcome depends on the hash seed (Monte Carlo over seeds means something).
HASHED_ROUTINGS = ("ecmp", "flowlet")
#: Routings only the ``simulate`` job offers (OpenSM runs once per job, not per sweep point).
SIMULATE_ONLY_ROUTINGS = ("opensm",)

NON_FIELD = api_settings.NON_FIELD_ERRORS_KEY


def plain(value) -> str:
    """A bound or a given value as a person writes it: ``2,000,000``, ``0.5``, ``-1``;
    ``infinity`` and ``not a number`` for the non-finite; any other value quoted."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"“{str(value)[:40]}”"
    if math.isnan(value):
        return "not a number"
    if math.isinf(value):
        return "infinity" if value > 0 else "minus infinity"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6g}"


def _is_number(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float)


def refuse(message: str) -> serializers.ValidationError:
    """A problem of several parameters, its message naming the first (``"seeds: ..."``)."""
    return serializers.ValidationError({NON_FIELD: [message]})


# --- fields ---------------------------------------------------------------------------------------


class ParameterField(serializers.Field):
    """A parameter: ``null`` is not given; :meth:`json_schema` documents it."""

    def __init__(self, *, help_text: str = "", **kwargs):
        super().__init__(required=False, allow_null=True, help_text=help_text, **kwargs)

    def json_schema(self) -> dict:
        raise NotImplementedError

    def documented(self, schema: dict) -> dict:
        return {**schema, "description": str(self.help_text)} if self.help_text else schema


class Number(ParameterField):
    """A number from ``low`` to ``high`` (``true`` and ``false`` are not numbers); ``whole``
    ones come back as ``int``, ``real`` ones as ``float``, others as given."""

    def __init__(self, *, low: float, high: float, whole=False, real=False, **kwargs):
        super().__init__(**kwargs)
        self.low, self.high, self.whole, self.real = low, high, whole, real

    def to_internal_value(self, value):
        if not _is_number(value) or not self.low <= value <= self.high:
            raise serializers.ValidationError(
                f"a number from {plain(self.low)} to {plain(self.high)} (got {plain(value)})"
            )
        if self.whole:
            if value != int(value):
                raise serializers.ValidationError(f"a whole number (got {value!r})")
            return int(value)
        return float(value) if self.real else value

    def json_schema(self) -> dict:
        kind = "integer" if self.whole else "number"
        return self.documented({"type": kind, "minimum": self.low, "maximum": self.high})


class Text(ParameterField):
    """Any value, kept as text of at most ``max_length`` characters."""

    def __init__(self, *, max_length: int, **kwargs):
        super().__init__(**kwargs)
        self.max_length = max_length

    def to_internal_value(self, value):
        return str(value)[: self.max_length]

    def json_schema(self) -> dict:
        return self.documented({"type": "string", "maxLength": self.max_length})


class Choice(ParameterField):
    """One of ``choices`` (``canonical`` maps an old name to its choice); ``""`` is not given."""

    def __init__(self, *, choices=(), canonical=None, aliases=(), **kwargs):
        super().__init__(**kwargs)
        self.choices, self.canonical, self.aliases = tuple(choices), canonical, tuple(aliases)

    def validate_empty_values(self, data):
        if data == "":
            return (True, None)
        return super().validate_empty_values(data)

    def to_internal_value(self, value):
        try:
            name = self.canonical(value) if self.canonical else value
        except (ValueError, TypeError):
            name = None
        if not isinstance(name, str) or name not in self.choices:
            raise serializers.ValidationError(
                f"one of {', '.join(self.choices + self.aliases)} (got {value!r})"
            )
        return name

    def json_schema(self) -> dict:
        return self.documented({"type": "string", "enum": [*self.choices, *self.aliases]})


class Axis(ParameterField):
    """A sweep axis: a list of values, or one value (a list of one); an empty list is refused.
    ``item`` checks and converts each value; the axis comes back sorted by ``order``."""

    def __init__(self, *, item: ParameterField, **kwargs):
        super().__init__(**kwargs)
        self.item = item

    def to_internal_value(self, value):
        values = list(value) if isinstance(value, list | tuple) else [value]
        if not values:
            raise serializers.ValidationError("give at least one value (or leave it out)")
        return [self.item.to_internal_value(v) for v in values]

    def json_schema(self) -> dict:
        one = self.item.json_schema()
        return self.documented({"oneOf": [one, {"type": "array", "items": one, "minItems": 1}]})


class WholeNumbers(ParameterField):
    """Whole numbers from ``low`` to ``high`` (an axis item)."""

    def __init__(self, *, low: int, high: int, **kwargs):
        super().__init__(**kwargs)
        self.low, self.high = low, high

    def to_internal_value(self, value):
        if (
            not _is_number(value)
            or not self.low <= value <= self.high  # before int(): NaN and infinity are out
            or value != int(value)
        ):
            raise serializers.ValidationError(
                f"whole numbers from {self.low:,} to {self.high:,} (got {value!r})"
            )
        return int(value)

    def json_schema(self) -> dict:
        return {"type": "integer", "minimum": self.low, "maximum": self.high}


class Numbers(ParameterField):
    """Numbers from ``low`` to ``high`` (an axis item), as ``float``."""

    def __init__(self, *, low: float, high: float, **kwargs):
        super().__init__(**kwargs)
        self.low, self.high = low, high

    def to_internal_value(self, value):
        if not _is_number(value) or not self.low <= value <= self.high:
            raise serializers.ValidationError(
                f"numbers from {self.low:g} to {self.high:g} (got {value!r})"
            )
        return float(value)

    def json_schema(self) -> dict:
        return {"type": "number", "minimum": self.low, "maximum": self.high}


class EachChoice(Choice):
    """One of ``choices`` (an axis item)."""

    def to_internal_value(self, value):
        try:
            return super().to_internal_value(value)
        except serializers.ValidationError:
            raise serializers.ValidationError(
                f"each one of {', '.join(self.choices)} (got {value!r})"
            ) from None


class ElementIds(ParameterField):
    """A what-if's failed elements or domains: ids such as ``node:<name>`` or
    ``rack:<name>``, one or a list; repeats dropped, order kept."""

    EXAMPLE = 'a list of element or domain ids, e.g. ["node:spine-01"] or ["rack:R001-01"]'

    def to_internal_value(self, value):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple) or not value:
            raise serializers.ValidationError(self.EXAMPLE)
        if len(value) > MAX_WHATIF_FAILED:
            raise serializers.ValidationError(
                f"at most {MAX_WHATIF_FAILED:,} ids (got {len(value):,})"
            )
        out = []
        for element in value:
            if not isinstance(element, str) or ":" not in element or len(element) > 200:
                raise serializers.ValidationError(
                    f"each an id such as node:<name> or rack:<name> (got {element!r})"
                )
            if element not in out:
                out.append(element)
        return out

    def json_schema(self) -> dict:
        item = {"type": "string", "pattern": "^[^:]+:.+$", "maxLength": 200}
        return self.documented(
            {"type": "array", "items": item, "minItems": 1, "maxItems": MAX_WHATIF_FAILED}
        )


# --- the serializers ------------------------------------------------------------------------------


class JobParameters(serializers.Serializer):
    """A job kind's parameters. Subclasses declare their fields in :meth:`parameter_fields`
    (read when first used) and their defaults and rules that span fields in ``validate``."""

    def get_fields(self) -> dict[str, ParameterField]:
        return self.parameter_fields()

    @classmethod
    def parameter_fields(cls) -> dict[str, ParameterField]:
        return {}

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError({NON_FIELD: ["parameters are a mapping"]})
        allowed = set(self.fields)
        unknown = sorted(set(data) - allowed)
        if unknown:
            accepted = ", ".join(sorted(allowed)) or "none"
            raise refuse(f"unknown parameter(s) {', '.join(unknown)} (accepted: {accepted})")
        given = super().to_internal_value(data)
        return {key: value for key, value in given.items() if value is not None}

    @classmethod
    def clean(cls, parameters: dict) -> dict:
        """The cleaned parameters, or a ``ValidationError`` keyed ``parameters`` listing each
        problem as ``"<parameter>: <what is wrong>"``."""
        serializer = cls(data=parameters)
        if serializer.is_valid():
            return dict(serializer.validated_data)
        raise DjangoValidationError({"parameters": problem_messages(serializer.errors)})

    @classmethod
    def json_schema(cls) -> dict:
        """The parameters' JSON schema (an object; no other parameter is accepted)."""
        fields = cls.parameter_fields()
        return {
            "type": "object",
            "title": cls.__name__,
            "description": " ".join((cls.__doc__ or "").split()),
            "properties": {name: field.json_schema() for name, field in fields.items()},
            "additionalProperties": False,
        }


def problem_messages(errors) -> list[str]:
    """DRF's errors as ``"<parameter>: <message>"`` lines (rules over several parameters name
    theirs at the start of their message)."""
    lines = []
    for key, messages in errors.items():
        for message in messages if isinstance(messages, list) else [messages]:
            lines.append(str(message) if key == NON_FIELD else f"{key}: {message}")
    return lines


def routing_problem(cleaned: dict) -> str | None:
    """What depends on the routing: Monte Carlo needs a hashed one, flowlets needs flowlet."""
    routing = cleaned["routing"]
    if cleaned.get("seeds", 1) > 1 and routing not in HASHED_ROUTINGS:
        return (
            "seeds: Monte Carlo over hash seeds is for ecmp or flowlet routing only "
            f"(routing is {routing})"
        )
    if "flowlets" in cleaned and routing != "flowlet":
        return f"flowlets: only for flowlet routing (routing is {routing})"
    if "opensm_engine" in cleaned and routing != "opensm":
        return f"opensm_engine: only for opensm routing (routing is {routing})"
    if routing == "opensm":
        return opensm_problem()
    return None


def opensm_problem() -> str | None:
    """Why ``opensm`` routing cannot run on this server (its tools missing: the message says
    how to install them), or None."""
    # Lazy: the flow simulation loads numba (about 1 s).
    from planner.analyses.opensm import missing_tools

    return f"routing: {problem}" if (problem := missing_tools()) else None


def sweep_routing_problem(cleaned: dict) -> str | None:
    if "flowlets" in cleaned and "flowlet" not in cleaned["routing"]:
        return (
            "flowlets: only for flowlet routing (the sweep's routing is "
            f"{', '.join(cleaned['routing'])})"
        )
    return None


def _flow_choices() -> dict[str, Any]:
    """The flow simulation's names and bounds."""
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.flow import FLOWLETS_MAX, ROUTING_ALIASES, ROUTINGS, canonical_routing
    from planner.analyses.opensm import ENGINES
    from planner.analyses.scenario import PLACEMENTS, STORAGE_TRAFFICS, TRAFFICS

    return dict(
        flowlets_max=FLOWLETS_MAX,
        # opensm (the real subnet manager's tables) runs in the simulate job only
        routings=tuple(r for r in ROUTINGS if r not in SIMULATE_ONLY_ROUTINGS),
        simulate_routings=ROUTINGS,
        opensm_engines=ENGINES,
        aliases=tuple(ROUTING_ALIASES),
        canonical=canonical_routing,
        placements=PLACEMENTS,
        storage_traffics=STORAGE_TRAFFICS,
        traffics=TRAFFICS,
    )


def _routing(flow: dict, help_text: str, *, kind: str = "routings") -> Choice:
    return Choice(
        choices=flow[kind],
        aliases=flow["aliases"],
        canonical=flow["canonical"],
        help_text=help_text,
    )


ROUTING_HELP = (
    "rail, ecmp, flowlet, spraying or ib-ar ('adaptive' is stored as spraying); default: "
    "the design's transport settings"
)
SIMULATE_ROUTING_HELP = (
    "rail, ecmp, flowlet, spraying, ib-ar or opensm (the real OpenSM's forwarding tables, "
    "where opensm and ibsim are installed); 'adaptive' is stored as spraying; default: the "
    "design's transport settings"
)
PFC_HELP = (
    "what the congestion report assumes: lossless, semi-lossless or lossy; default the design's"
)


def _pfc_mode() -> Choice:
    return Choice(choices=PFC_MODES, help_text=PFC_HELP)


def _seed() -> Number:
    return Number(low=0, high=MAX_SEED, whole=True, help_text="hash seed (default 0)")


def _flowlets(flow: dict) -> Number:
    return Number(
        low=1,
        high=flow["flowlets_max"],
        whole=True,
        help_text="flowlets per flow (flowlet routing)",
    )


def _size_bytes() -> Number:
    return Number(low=1, high=MAX_SIZE_BYTES, real=True, help_text="bytes per flow (default 1e9)")


class DiagnosticsParameters(JobParameters):
    """A worker-diagnostics job: ``echo`` comes back in the report; ``hold_s`` keeps the
    worker busy that long first (burn-in, soak)."""

    @classmethod
    def parameter_fields(cls):
        return {
            "echo": Text(max_length=200, help_text="text the report repeats"),
            "hold_s": Number(low=0, high=MAX_HOLD_S, help_text="seconds to hold the worker"),
        }

    def validate(self, attrs):
        cleaned = {"echo": attrs.get("echo", "")}
        if attrs.get("hold_s"):
            cleaned["hold_s"] = attrs["hold_s"]
        return cleaned


class ValidateParameters(JobParameters):
    """Link validation of the revision: no parameters."""


class PowerParameters(JobParameters):
    """The power and thermal budget: ``pue`` (power usage effectiveness) for the facility
    figure."""

    @classmethod
    def parameter_fields(cls):
        return {"pue": Number(low=1.0, high=5.0, real=True, help_text="1.0 to 5.0")}


class SimulateParameters(JobParameters):
    """One flow-simulation scenario: the traffic and its placement, the routing (a mode or an
    old name, stored as the mode; the design's when not given), failed links, the message
    size, and Monte Carlo ``seeds`` over ECMP hash seeds (ecmp or flowlet routing)."""

    @classmethod
    def parameter_fields(cls):
        flow = _flow_choices()
        return {
            "traffic": Choice(choices=flow["traffics"], help_text="default all-reduce"),
            "routing": _routing(flow, SIMULATE_ROUTING_HELP, kind="simulate_routings"),
            "seed": _seed(),
            "size_bytes": _size_bytes(),
            "fail_links": Number(
                low=0, high=MAX_FAIL_LINKS, whole=True, help_text="switch links failed at random"
            ),
            "placement": Choice(choices=flow["placements"], help_text="default contiguous"),
            "seeds": Number(
                low=1, high=MAX_SEEDS, whole=True, help_text="Monte Carlo runs (default 1)"
            ),
            "flowlets": _flowlets(flow),
            "pfc_mode": _pfc_mode(),
            "opensm_engine": Choice(
                choices=flow["opensm_engines"],
                help_text="OpenSM's routing engine for opensm routing (default updn, what the "
                "design's opensm.conf fragment routes with on upstream OpenSM)",
            ),
        }

    def validate(self, attrs):
        cleaned = {
            "traffic": attrs.get("traffic", "all-reduce"),
            "placement": attrs.get("placement", "contiguous"),
        }
        for key in ("routing", "pfc_mode", "opensm_engine"):
            if key in attrs:
                cleaned[key] = attrs[key]
        cleaned["seed"] = attrs.get("seed", 0)
        cleaned["fail_links"] = attrs.get("fail_links", 0)
        cleaned["seeds"] = attrs.get("seeds", 1)
        if "flowlets" in attrs:
            cleaned["flowlets"] = attrs["flowlets"]
        cleaned["size_bytes"] = attrs.get("size_bytes", 1e9)
        if cleaned["seeds"] > 1 and cleaned["traffic"] == "storage-read":
            raise refuse("seeds: Monte Carlo is not offered for storage-read; give seeds 1")
        if "routing" in cleaned and (problem := routing_problem(cleaned)):
            raise refuse(problem)
        return cleaned


class SweepParameters(JobParameters):
    """A sweep: the traffic, the axes (``fail_links``, ``size_bytes``, ``placement``,
    ``routing``: each a list or one value; the points are their cross product, at most 100)
    and Monte Carlo ``seeds`` per point (run k uses seed + k; at most 1,000 runs in all).
    Numeric axes are sorted and repeats dropped; ``routing`` is the design's when not given."""

    @classmethod
    def parameter_fields(cls):
        flow = _flow_choices()
        swept = tuple(t for t in flow["traffics"] if t not in flow["storage_traffics"])
        return {
            "fail_links": Axis(
                item=WholeNumbers(low=0, high=MAX_FAIL_LINKS), help_text="default [0]"
            ),
            "size_bytes": Axis(item=Numbers(low=1, high=MAX_SIZE_BYTES), help_text="default [1e9]"),
            "placement": Axis(
                item=EachChoice(choices=flow["placements"]), help_text="default [contiguous]"
            ),
            "routing": Axis(
                item=EachChoice(
                    choices=flow["routings"], aliases=flow["aliases"], canonical=flow["canonical"]
                ),
                help_text=ROUTING_HELP,
            ),
            "traffic": Choice(
                choices=swept, help_text="default all-reduce; storage-read is not swept"
            ),
            "seeds": Number(
                low=1, high=SWEEP_MAX_SEEDS, whole=True, help_text="runs per point (default 1)"
            ),
            "seed": _seed(),
            "flowlets": _flowlets(flow),
            "pfc_mode": _pfc_mode(),
        }

    def validate(self, attrs):
        flow = _flow_choices()
        cleaned = {"traffic": attrs.get("traffic", "all-reduce")}
        cleaned["fail_links"] = sorted(set(attrs.get("fail_links", [0])))
        cleaned["size_bytes"] = sorted(set(attrs.get("size_bytes", [1e9])))
        placements = set(attrs.get("placement", ["contiguous"]))
        cleaned["placement"] = [p for p in flow["placements"] if p in placements]
        if "routing" in attrs:
            routings = set(attrs["routing"])
            cleaned["routing"] = [r for r in flow["routings"] if r in routings]
        cleaned["seeds"] = attrs.get("seeds", 1)
        cleaned["seed"] = attrs.get("seed", 0)
        for key in ("flowlets", "pfc_mode"):
            if key in attrs:
                cleaned[key] = attrs[key]
        counts = {axis: len(cleaned.get(axis) or [None]) for axis in AXES}
        points = math.prod(counts.values())
        if points > MAX_POINTS:
            named = [axis for axis in AXES if counts[axis] > 1]
            raise refuse(
                f"{' × '.join(named)}: {' × '.join(str(counts[a]) for a in named)} = "
                f"{points:,} points; a sweep has at most {MAX_POINTS:,}"
            )
        runs = points * cleaned["seeds"]
        if runs > MAX_RUNS:
            raise refuse(
                f"seeds: {count(points, 'point')} × {cleaned['seeds']} seeds = {runs:,} runs; "
                f"a sweep has at most {MAX_RUNS:,}"
            )
        if "routing" in cleaned and (problem := sweep_routing_problem(cleaned)):
            raise refuse(problem)
        return cleaned


class SizeSweepParameters(JobParameters):
    """A message-size sweep: the ring collective (``traffic``), ``rings`` (``rail``: NCCL's
    ring per NIC, the default; ``flat``: one ring through every GPU's NIC), ``routing`` (the
    design's when not given), ``gpus`` (whole servers from the first; every GPU when not
    given), ``seed`` (ECMP hashing), ``switch_latency_ns`` (every switch's port-to-port
    latency instead of the catalog's) and ``overhead_us`` (a fixed cost per ring step)."""

    @classmethod
    def parameter_fields(cls):
        # Lazy: it loads numba (about 1 s); only simulating needs it.
        from planner.analyses.size_sweep import RINGS, TRAFFICS

        flow = _flow_choices()
        return {
            "traffic": Choice(choices=TRAFFICS, help_text="default all-reduce"),
            "rings": Choice(choices=RINGS, help_text="default rail"),
            "routing": _routing(flow, ROUTING_HELP),
            "gpus": Number(low=2, high=2_000_000, whole=True, help_text="default every GPU"),
            "seed": _seed(),
            "switch_latency_ns": Number(low=0, high=1e6, real=True, help_text="ns"),
            "overhead_us": Number(low=0, high=1e4, real=True, help_text="µs per ring step"),
        }

    def validate(self, attrs):
        cleaned = {
            "traffic": attrs.get("traffic", "all-reduce"),
            "rings": attrs.get("rings", "rail"),
        }
        for key in ("routing", "gpus"):
            if key in attrs:
                cleaned[key] = attrs[key]
        cleaned["seed"] = attrs.get("seed", 0)
        for key in ("switch_latency_ns", "overhead_us"):
            if key in attrs:
                cleaned[key] = attrs[key]
        return cleaned


class WhatifParameters(JobParameters):
    """A what-if failure: ``failed`` (element or domain ids, checked against the revision),
    the collective (``traffic``: ring all-reduce or all-to-all), ``size_bytes``, ``routing``
    (the design's when not given), ``seed`` (ECMP hashing) and ``flowlets`` (flowlet routing
    only)."""

    @classmethod
    def parameter_fields(cls):
        flow = _flow_choices()
        return {
            "failed": ElementIds(help_text="required: " + ElementIds.EXAMPLE),
            "traffic": Choice(choices=COLLECTIVES, help_text="default all-reduce"),
            "size_bytes": _size_bytes(),
            "routing": _routing(flow, ROUTING_HELP),
            "seed": _seed(),
            "flowlets": _flowlets(flow),
        }

    def validate(self, attrs):
        if "failed" not in attrs:
            raise refuse(f"failed: {ElementIds.EXAMPLE}")
        cleaned = {"failed": attrs["failed"], "traffic": attrs.get("traffic", "all-reduce")}
        if "routing" in attrs:
            cleaned["routing"] = attrs["routing"]
        cleaned["seed"] = attrs.get("seed", 0)
        if "flowlets" in attrs:
            cleaned["flowlets"] = attrs["flowlets"]
        cleaned["size_bytes"] = attrs.get("size_bytes", 1e9)
        if "flowlets" in cleaned and cleaned.get("routing", "flowlet") != "flowlet":
            raise refuse(f"flowlets: only for flowlet routing (routing is {cleaned['routing']})")
        return cleaned


def requirement_problems(problems) -> list[str]:
    """The problems of a requirements document as ``"<field>: <why>"`` lines."""
    from simulation.jobs.explore import problem_lines

    return problem_lines(problems)


def openapi_schema(schema):
    """A JSON Schema (draft 2020-12) as OpenAPI 3.0's dialect: ``const`` as a one-value
    ``enum``, numeric ``exclusiveMinimum``/``exclusiveMaximum`` as a bound with the boolean,
    a list of types as ``anyOf``; ``$schema`` and ``$id`` left out."""
    if isinstance(schema, list):
        return [openapi_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in ("$schema", "$id"):
            continue
        if key == "const":
            out["enum"] = [value]
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and _is_number(value):
            out["minimum" if key == "exclusiveMinimum" else "maximum"] = value
            out[key] = True
        elif key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: openapi_schema(item) for name, item in value.items()}
        else:
            out[key] = openapi_schema(value)
    kinds = out.get("type")
    if isinstance(kinds, list):
        nullable = "null" in kinds
        rest = [kind for kind in kinds if kind != "null"]
        if len(rest) == 1:
            out["type"] = rest[0]
        else:
            del out["type"]
            out["anyOf"] = [{"type": kind} for kind in rest]
        if nullable:
            out["nullable"] = True
    return out


class ExploreParameters(JobParameters):
    """The requirements document of a design-space exploration (see the guide's page
    Explore the design space): GPU count or range, servers, switches, transports, speeds,
    planes, topologies, tiers, oversubscription, cabling, limits and the workload to score.
    Stored as the canonical document (defaults filled in)."""

    @classmethod
    def clean(cls, parameters: dict) -> dict:
        """The canonical requirements document, or a ``ValidationError`` keyed ``parameters``
        listing each problem as ``"<field>: <why>"`` (``limits.power_kw: ...``)."""
        from planner.analyses.explore.requirements import RequirementsError, parse_requirements
        from planner.designs.adapters import catalog_facts

        if not isinstance(parameters, dict):
            raise DjangoValidationError({"parameters": ["the requirements are a mapping"]})
        try:
            requirements = parse_requirements(parameters, catalog_facts(for_new=True))
        except RequirementsError as exc:
            raise DjangoValidationError(
                {"parameters": requirement_problems(exc.problems)}
            ) from None
        return requirements.as_document()

    @classmethod
    def requirements_schema(cls) -> dict:
        """The requirements' JSON Schema as the explorer publishes it (draft 2020-12)."""
        from planner.analyses.explore.schema import REQUIREMENTS_SCHEMA

        return REQUIREMENTS_SCHEMA

    @classmethod
    def json_schema(cls) -> dict:
        """The requirements' schema as OpenAPI 3.0 states it (:func:`openapi_schema`)."""
        schema = openapi_schema(cls.requirements_schema())
        return {
            **schema,
            "title": cls.__name__,
            "description": " ".join((cls.__doc__ or "").split()),
        }
