"""The requirements document of a design-space exploration (issue 39): what the user asks for,
parsed, checked against the catalog and defaulted.

A requirements document names the GPU count (or a range), the parts and shapes allowed
(servers, switches, transports, speeds, planes, topologies, tiers, oversubscription, cabling),
the limits a candidate must keep (budget, power, racks, GPUs lost to one switch or rack,
optical margin), the workload it is scored on and the objectives of the Pareto front. Every
key but ``gpus`` is optional; ``REQUIREMENTS_SCHEMA`` in :mod:`.schema` is its JSON Schema
and ``docs/pages/guide/explore.md`` its reference.

:func:`parse_requirements` refuses unknown keys, wrong types, unknown catalog names,
impossible ranges and contradictions with a :class:`RequirementsError` whose ``problems``
each name the field (a dotted path: ``limits.power_kw``, ``servers[1]``) and say why.

Pure (no Django).
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import yaml

from inventory.library.documents import DocumentError, load_json_or_yaml
from planner.domain.catalog import CatalogFacts, DeviceModel

#: The oversubscription ratios (down:up) the explorer tries, within the document's range.
RATIO_LADDER = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
TOPOLOGIES = ("rail-optimized", "clos", "fat-tree")
DEFAULT_TOPOLOGIES = ("rail-optimized", "clos")
TRANSPORTS = ("infiniband", "ethernet")
CABLINGS = ("point-to-point", "patch-panel")
#: Switch-to-switch link speeds tried: the server-link speed, or the leaf's fastest port speed
#: (a leaf whose 800G ports split 2 x 400G toward the servers and run 800G uplinks).
UPLINKS = ("link", "port")
TIERS = (1, 2, 3)
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all")
OBJECTIVES = (
    "cost",
    "fabric_cost",
    "collective_time_s",
    "power_w",
    "bisection_gbps",
    "failures_per_day",
)
DEFAULT_OBJECTIVES = ("cost", "collective_time_s")
DEFAULT_MESSAGE_BYTES = 2**28  # 256 MiB: a large-message all-reduce, bandwidth-bound
#: The flow engine's routing modes and aliases (planner.analyses.flow.routing; written out so
#: that reading a document does not load the engine; a unit test keeps them equal), but
#: ``opensm``: it runs the subnet manager on a simulated fabric per design (a minute at 16 SUs),
#: which a search over hundreds of candidates cannot afford.
ROUTINGS = ("rail", "ecmp", "flowlet", "spraying", "ib-ar", "adaptive")
MAX_CANDIDATES = 2000
MAX_CANDIDATES_LIMIT = 100_000
#: Candidates x GPUs a search evaluates by default (:func:`default_max_candidates`).
CANDIDATE_GPUS = 30_000_000
#: Spec keys a ``base`` block may not set: the explorer's axes set them.
AXIS_SPEC_KEYS = (
    "topology",
    "server",
    "servers",
    "racks",
    "gpus",
    "planes",
    "tiers",
    "oversubscription",
    "switches",
    "cabling",
    "transport",
    "uplink_speed_gbps",
    "price_book",
    "name",
)
TOP_KEYS = (
    "name",
    "gpus",
    "servers",
    "switches",
    "transports",
    "speeds_gbps",
    "planes",
    "topologies",
    "tiers",
    "oversubscription",
    "cabling",
    "uplinks",
    "limits",
    "workload",
    "objectives",
    "max_candidates",
    "base",
)
LIMIT_KEYS = (
    "budget",
    "power_kw",
    "racks",
    "max_gpus_lost_switch",
    "max_gpus_lost_rack",
    "min_optical_margin_db",
)
WORKLOAD_KEYS = ("collectives", "message_bytes", "job_gpus", "routing")


def default_max_candidates(gpus: int) -> int:
    """The cap when the document gives none: :data:`MAX_CANDIDATES`, fewer for large
    clusters so that a search stays within :data:`CANDIDATE_GPUS` candidate-GPUs (an 8,192-GPU
    candidate takes about 0.35 s of CPU, a 100,000-GPU one about 7 s: 300 of them are about
    18 minutes on two worker processes), and at least 50."""
    if gpus <= 0:
        return MAX_CANDIDATES
    return max(50, min(MAX_CANDIDATES, CANDIDATE_GPUS // gpus))


class RequirementsError(ValueError):
    """Requirements that cannot be explored: ``problems`` is a list of ``{"code", "field",
    "message"}`` (``field`` a dotted path of the document)."""

    def __init__(self, problems: list[dict]):
        self.problems = [dict(p) for p in problems]
        super().__init__(
            "; ".join(
                f"{p['field']}: {p['message']}" if p["field"] else p["message"] for p in problems
            )
        )


def problem(code: str, field_name: str, message: str) -> dict:
    """One problem of a requirements document."""
    return {"code": code, "field": field_name, "message": message}


@dataclass(frozen=True)
class Budget:
    """The budget limit (``amount``) and the price book the candidates are costed with; a
    book without an amount costs them without a limit."""

    amount: float | None
    currency: str = "USD"
    price_book: str | None = None


@dataclass(frozen=True)
class Limits:
    budget: Budget | None = None
    power_kw: float | None = None
    racks: int | None = None
    max_gpus_lost_switch: int | None = None
    max_gpus_lost_rack: int | None = None
    min_optical_margin_db: float | None = None


@dataclass(frozen=True)
class Workload:
    collectives: tuple[str, ...] = ("all-reduce",)
    message_bytes: tuple[int, ...] = (DEFAULT_MESSAGE_BYTES,)
    job_gpus: tuple[int, ...] = ()  # empty: every GPU of the candidate
    routing: str = "design"


@dataclass(frozen=True)
class Requirements:
    """The parsed, defaulted requirements (module doc); :meth:`as_document` gives the canonical
    document back."""

    gpus_min: int
    gpus_max: int
    servers: tuple[str, ...]
    leaves: tuple[str, ...]
    spines: tuple[str, ...]
    cores: tuple[str, ...]
    mix_switches: bool = False  # leaf x spine x core products (``switches`` as a mapping)
    name: str = "exploration"
    transports: tuple[str, ...] = TRANSPORTS
    speeds_gbps: tuple[int, ...] = ()  # empty: any the ends share
    planes: tuple[int, ...] = (1,)
    topologies: tuple[str, ...] = DEFAULT_TOPOLOGIES
    tiers: tuple[int, ...] = (2, 3)
    ratios: tuple[float, ...] = (1.0,)
    ratio_range: tuple[float, float] = (1.0, 1.0)
    cabling: tuple[str, ...] = ("point-to-point",)
    uplinks: tuple[str, ...] = ("link",)
    limits: Limits = field(default_factory=Limits)
    workload: Workload = field(default_factory=Workload)
    objectives: tuple[str, ...] = DEFAULT_OBJECTIVES
    max_candidates: int = MAX_CANDIDATES
    base: dict = field(default_factory=dict)
    any_servers: bool = False
    any_switches: bool = False

    def as_document(self) -> dict:
        """The canonical document (every default written out; parses to the same record)."""
        limits = {}
        lim = self.limits
        if lim.budget is not None:
            budget = {"currency": lim.budget.currency}
            if lim.budget.amount is not None:
                budget["amount"] = lim.budget.amount
            if lim.budget.price_book:
                budget["price_book"] = lim.budget.price_book
            limits["budget"] = budget
        for key in LIMIT_KEYS[1:]:
            value = getattr(lim, key)
            if value is not None:
                limits[key] = value
        if self.mix_switches:
            switches = {
                "leaf": list(self.leaves),
                "spine": list(self.spines),
                "core": list(self.cores),
            }
        else:
            switches = "any" if self.any_switches else list(self.leaves)
        workload = {
            "collectives": list(self.workload.collectives),
            "message_bytes": list(self.workload.message_bytes),
            "routing": self.workload.routing,
        }
        if self.workload.job_gpus:
            workload["job_gpus"] = list(self.workload.job_gpus)
        doc = {
            "name": self.name,
            "gpus": self.gpus_min
            if self.gpus_min == self.gpus_max
            else {"min": self.gpus_min, "max": self.gpus_max},
            "servers": "any" if self.any_servers else list(self.servers),
            "switches": switches,
            "transports": list(self.transports),
            "speeds_gbps": list(self.speeds_gbps) if self.speeds_gbps else "any",
            "planes": list(self.planes),
            "topologies": list(self.topologies),
            "tiers": list(self.tiers),
            "oversubscription": {"min": self.ratio_range[0], "max": self.ratio_range[1]},
            "cabling": list(self.cabling),
            "uplinks": list(self.uplinks),
            "limits": limits,
            "workload": workload,
            "objectives": list(self.objectives),
            "max_candidates": self.max_candidates,
        }
        if self.base:
            doc["base"] = copy.deepcopy(self.base)
        return doc


# --- Reading text -----------------------------------------------------------------------------


def load_requirements_text(text: str) -> dict:
    """YAML or JSON text -> a document; a parse error names its line and column."""
    try:
        document = load_json_or_yaml(text)
    except DocumentError as exc:
        raise RequirementsError([problem("too-large", exc.path, str(exc))]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        what = getattr(exc, "problem", None) or str(exc)
        raise RequirementsError(
            [problem("syntax", "", f"malformed YAML/JSON{where}: {what}")]
        ) from None
    if not isinstance(document, dict):
        raise RequirementsError(
            [
                problem(
                    "type", "", "a requirements document is a mapping of keys (gpus, servers, ...)"
                )
            ]
        )
    return document


# --- Small readers ----------------------------------------------------------------------------


class _Reader:
    """Collects problems while reading the document's values."""

    def __init__(self):
        self.problems: list[dict] = []

    def add(self, code: str, where: str, message: str) -> None:
        self.problems.append(problem(code, where, message))

    def unknown_keys(self, value: Mapping, allowed: tuple[str, ...], where: str) -> None:
        for key in value:
            if key not in allowed:
                path = f"{where}.{key}" if where else str(key)
                self.add("unknown-key", path, f"unknown key; allowed: {', '.join(allowed)}")

    def integer(self, value, where: str, *, minimum: int = 1, maximum: int | None = None):
        if isinstance(value, bool) or not isinstance(value, int):
            self.add("type", where, f"a whole number is expected (got {value!r})")
            return None
        if value < minimum or (maximum is not None and value > maximum):
            upper = f" and at most {maximum:,}" if maximum is not None else ""
            self.add("range", where, f"at least {minimum:,}{upper} (got {value:,})")
            return None
        return value

    def number(self, value, where: str, *, minimum: float = 0.0, strict: bool = False):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            self.add("type", where, f"a number is expected (got {value!r})")
            return None
        if value < minimum or (strict and value == minimum):
            bound = "above" if strict else "at least"
            self.add("range", where, f"{bound} {minimum:g} (got {value:g})")
            return None
        return float(value)

    def choices(self, value, where: str, allowed: tuple, *, default: tuple) -> tuple:
        """A list of values of ``allowed`` (or one value, or ``any``: all of them)."""
        if value is None:
            return default
        if value == "any":
            return tuple(allowed)
        items = value if isinstance(value, list) else [value]
        if not items:
            self.add(
                "empty", where, "an empty list allows nothing: leave the key out or list values"
            )
            return ()
        out = []
        for i, item in enumerate(items):
            if item not in allowed:
                self.add(
                    "unknown-value",
                    f"{where}[{i}]" if isinstance(value, list) else where,
                    f"{item!r} is not one of {', '.join(str(a) for a in allowed)}",
                )
            elif item not in out:
                out.append(item)
        return tuple(out)


def gpu_servers(facts: CatalogFacts) -> list[DeviceModel]:
    """The catalog's GPU servers and rack-scale systems with compute ports (one per slug)."""
    return [
        model
        for slug, model in sorted(facts.devices.items())
        if slug == model.slug and model.category == "server" and model.gpus and model.ports
    ]


def catalog_switches(facts: CatalogFacts) -> list[DeviceModel]:
    """The catalog's switches with data ports listed (one per slug)."""
    return [
        model
        for slug, model in sorted(facts.devices.items())
        if slug == model.slug and model.category == "switch" and model.ports
    ]


def _names(
    reader: _Reader, value, where: str, facts: CatalogFacts, category: str
) -> tuple[str, ...]:
    """Catalog names of ``category`` (each checked), canonical slugs in the order given."""
    items = value if isinstance(value, list) else [value]
    if not items:
        reader.add("empty", where, f"an empty list allows no {category}: write any or name some")
    out: list[str] = []
    for i, item in enumerate(items):
        path = f"{where}[{i}]" if isinstance(value, list) else where
        if not isinstance(item, str):
            reader.add("type", path, f"a catalog {category} name is expected (got {item!r})")
            continue
        model = facts.devices.get(item)
        if model is None or model.category != ("switch" if category == "switch" else "server"):
            hint = " (archived)" if item in facts.archived else ""
            reader.add("unknown-part", path, f"no {category} {item!r} in the catalog{hint}")
            continue
        if category == "GPU server" and not model.gpus:
            reader.add("not-gpu-server", path, f"{item!r} is a server without GPUs")
            continue
        if not model.ports:
            reader.add("no-ports", path, f"the catalog lists no data ports for {item!r}")
            continue
        if model.slug not in out:
            out.append(model.slug)
    return tuple(out)


# --- The blocks -------------------------------------------------------------------------------


def _gpus(reader: _Reader, value) -> tuple[int, int]:
    if value is None:
        reader.add("required", "gpus", "required: the GPU count, or {min, max}")
        return 0, 0
    if isinstance(value, Mapping):
        reader.unknown_keys(value, ("min", "max"), "gpus")
        low = reader.integer(value.get("min", 1), "gpus.min")
        high = reader.integer(value.get("max"), "gpus.max") if "max" in value else None
        if high is None and "max" not in value:
            reader.add("required", "gpus.max", "a range needs its max")
        if low and high and low > high:
            reader.add("range", "gpus", f"min {low:,} is above max {high:,}")
        return low or 0, high or 0
    count = reader.integer(value, "gpus")
    return count or 0, count or 0


def _switches(reader: _Reader, value, facts: CatalogFacts):
    """(leaves, spines, cores, mix, any)."""
    if value is None or value == "any":
        every = tuple(m.slug for m in catalog_switches(facts))
        return every, every, every, False, True
    if isinstance(value, Mapping):
        reader.unknown_keys(value, ("leaf", "spine", "core"), "switches")
        leaves = (
            _names(reader, value.get("leaf", "any"), "switches.leaf", facts, "switch")
            if value.get("leaf", "any") != "any"
            else tuple(m.slug for m in catalog_switches(facts))
        )
        out = [leaves]
        for role in ("spine", "core"):
            given = value.get(role)
            if given is None:
                out.append(out[-1])
            elif given == "any":
                out.append(tuple(m.slug for m in catalog_switches(facts)))
            else:
                out.append(_names(reader, given, f"switches.{role}", facts, "switch"))
        return out[0], out[1], out[2], True, False
    names = _names(reader, value, "switches", facts, "switch")
    return names, names, names, False, False


def _ratios(reader: _Reader, value) -> tuple[tuple[float, ...], tuple[float, float]]:
    """The ratios tried and the range as written."""
    if value is None:
        return (1.0,), (1.0, 1.0)
    if isinstance(value, Mapping):
        reader.unknown_keys(value, ("min", "max"), "oversubscription")
        low = reader.number(value.get("min", 1), "oversubscription.min", strict=True)
        high = reader.number(
            value.get("max", value.get("min", 1)), "oversubscription.max", strict=True
        )
        if low is None or high is None:
            return (), (1.0, 1.0)
        if low > high:
            reader.add("range", "oversubscription", f"min {low:g} is above max {high:g}")
            return (), (low, high)
        if high > 16:
            reader.add("range", "oversubscription.max", f"at most 16 (got {high:g})")
        tried = tuple(r for r in sorted({low, high, *RATIO_LADDER}) if low <= r <= high)
        return tried, (low, high)
    items = value if isinstance(value, list) else [value]
    out = []
    for i, item in enumerate(items):
        where = f"oversubscription[{i}]" if isinstance(value, list) else "oversubscription"
        if isinstance(item, str) and item.count(":") == 1:  # "3:1", as vendors publish it
            down, _, up = item.partition(":")
            with contextlib.suppress(ValueError, ZeroDivisionError):
                item = float(down) / float(up)
        ratio = reader.number(item, where, strict=True)
        if ratio is not None and ratio > 16:
            reader.add("range", where, f"at most 16 (got {ratio:g})")
        elif ratio is not None and ratio not in out:
            out.append(ratio)
    out.sort()
    if not out:
        return (), (1.0, 1.0)
    return tuple(out), (out[0], out[-1])


def _limits(reader: _Reader, value) -> Limits:
    if value is None:
        return Limits()
    if not isinstance(value, Mapping):
        reader.add("type", "limits", "a mapping of limits is expected")
        return Limits()
    reader.unknown_keys(value, LIMIT_KEYS, "limits")
    budget = None
    raw = value.get("budget")
    if raw is not None:
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            raw = {"amount": raw}
        if not isinstance(raw, Mapping):
            reader.add("type", "limits.budget", "{amount, currency, price_book} is expected")
        else:
            reader.unknown_keys(raw, ("amount", "currency", "price_book"), "limits.budget")
            amount = None
            if raw.get("amount") is not None or not raw.get("price_book"):
                amount = reader.number(raw.get("amount"), "limits.budget.amount", strict=True)
            currency = raw.get("currency", "USD")
            if not (isinstance(currency, str) and len(currency) == 3 and currency.isalpha()):
                reader.add(
                    "type", "limits.budget.currency", f"a 3-letter currency code (got {currency!r})"
                )
                currency = "USD"
            book = raw.get("price_book")
            if book is not None and not isinstance(book, str):
                reader.add("type", "limits.budget.price_book", "a price book's slug is expected")
                book = None
            if amount is not None or book:
                budget = Budget(amount, currency.upper(), book)

    def opt(key: str, kind: str):
        if value.get(key) is None:
            return None
        where = f"limits.{key}"
        if kind == "int":
            return reader.integer(value[key], where, minimum=0 if key.startswith("max_gpus") else 1)
        return reader.number(value[key], where, strict=key == "power_kw")

    return Limits(
        budget=budget,
        power_kw=opt("power_kw", "float"),
        racks=opt("racks", "int"),
        max_gpus_lost_switch=opt("max_gpus_lost_switch", "int"),
        max_gpus_lost_rack=opt("max_gpus_lost_rack", "int"),
        min_optical_margin_db=opt("min_optical_margin_db", "float"),
    )


def _workload(reader: _Reader, value, gpus_min: int) -> Workload:
    if value is None:
        return Workload()
    if not isinstance(value, Mapping):
        reader.add("type", "workload", "a mapping (collectives, message_bytes, job_gpus, routing)")
        return Workload()
    reader.unknown_keys(value, WORKLOAD_KEYS, "workload")
    collectives = reader.choices(
        value.get("collectives"), "workload.collectives", COLLECTIVES, default=("all-reduce",)
    )
    sizes = []
    raw = value.get("message_bytes", [DEFAULT_MESSAGE_BYTES])
    for i, item in enumerate(raw if isinstance(raw, list) else [raw]):
        where = (
            f"workload.message_bytes[{i}]" if isinstance(raw, list) else "workload.message_bytes"
        )
        size = reader.integer(item, where, minimum=8, maximum=2**40)
        if size is not None and size not in sizes:
            sizes.append(size)
    jobs = []
    raw = value.get("job_gpus", [])
    for i, item in enumerate(raw if isinstance(raw, list) else [raw]):
        where = f"workload.job_gpus[{i}]" if isinstance(raw, list) else "workload.job_gpus"
        job = reader.integer(item, where, minimum=2)
        if job is not None and gpus_min and job > gpus_min:
            reader.add(
                "contradiction",
                where,
                f"a job of {job:,} GPUs does not fit the smallest allowed cluster "
                f"({gpus_min:,} GPUs, gpus)",
            )
        elif job is not None and job not in jobs:
            jobs.append(job)
    routing = value.get("routing", "design")
    if routing != "design" and routing not in ROUTINGS:
        reader.add(
            "unknown-value",
            "workload.routing",
            f"{routing!r}: design (each candidate's transport default) or one of "
            f"{', '.join(ROUTINGS)}",
        )
        routing = "design"
    return Workload(tuple(collectives), tuple(sizes), tuple(jobs), routing)


def _base(reader: _Reader, value) -> dict:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        reader.add("type", "base", "a mapping of design-spec keys every candidate takes")
        return {}
    for key in value:
        if key in AXIS_SPEC_KEYS:
            reader.add(
                "axis-key",
                f"base.{key}",
                "set by the explorer for each candidate: give it as a requirement instead",
            )
    return {k: copy.deepcopy(v) for k, v in value.items() if k not in AXIS_SPEC_KEYS}


def _check_top(reader: _Reader, document: Mapping) -> None:
    reader.unknown_keys(document, TOP_KEYS, "")
    name = document.get("name", "exploration")
    if not isinstance(name, str) or not 1 <= len(name) <= 100:
        reader.add("type", "name", "a name of 1 to 100 characters")


def _contradictions(reader: _Reader, req: Requirements, facts: CatalogFacts) -> None:
    """What the values allow together: planes the servers split into, speeds they run."""
    if req.tiers == (1,) and req.ratios and min(req.ratios) != 1.0:
        reader.add(
            "contradiction",
            "oversubscription",
            "one tier has no uplinks, so no oversubscription: allow 1 or more tiers",
        )
    lim = req.limits
    if lim.racks is not None and lim.racks < 1:
        reader.add("range", "limits.racks", "at least 1")
    if req.speeds_gbps and req.servers:
        runs = set()
        for slug in req.servers:
            server = facts.devices[slug]
            port = server.port_speed_gbps or 0
            runs |= {port // p for p in req.planes if p and port % p == 0}
        if not runs & set(req.speeds_gbps):
            reader.add(
                "contradiction",
                "speeds_gbps",
                f"no allowed server runs {', '.join(f'{s}G' for s in req.speeds_gbps)} per plane "
                f"in {', '.join(str(p) for p in req.planes)} plane(s) (they run "
                f"{', '.join(f'{s}G' for s in sorted(runs)) or 'nothing'})",
            )
    if req.base and req.servers and req.leaves:
        _check_base(reader, req)
    if req.topologies == ("fat-tree",) and req.mix_switches:
        reader.add("contradiction", "topologies", "a fat-tree uses one switch model in every tier")


def _check_base(reader: _Reader, req: Requirements) -> None:
    """``base`` as a design spec would read it, with the first server and switch allowed."""
    from planner.domain.spec import SpecError, parse_spec

    probe = {
        **req.base,
        "name": "base",
        "topology": "rail-optimized",
        "server": req.servers[0],
        "servers": 1,
        "switches": {"leaf": req.leaves[0]},
    }
    try:
        parse_spec(probe)
    except SpecError as exc:
        for where, message in exc.problems:
            reader.add("spec", f"base.{where}" if where else "base", message)


def parse_requirements(document: Mapping, facts: CatalogFacts) -> Requirements:
    """Check a requirements document against the catalog and fill in its defaults.

    Raises
    ------
    RequirementsError
        With every problem found, each naming its field (module doc).

    Long because: it reads the document key by key, each a line or two over the block readers,
    then checks what the values allow together.
    """
    if not isinstance(document, Mapping):
        raise RequirementsError([problem("type", "", "a requirements document is a mapping")])
    reader = _Reader()
    _check_top(reader, document)
    gpus_min, gpus_max = _gpus(reader, document.get("gpus"))
    raw_servers = document.get("servers", "any")
    if raw_servers == "any":
        servers = tuple(m.slug for m in gpu_servers(facts))
    else:
        servers = _names(reader, raw_servers, "servers", facts, "GPU server")
    leaves, spines, cores, mix, any_switches = _switches(reader, document.get("switches"), facts)
    transports = reader.choices(
        document.get("transports"), "transports", TRANSPORTS, default=TRANSPORTS
    )
    speeds: tuple[int, ...] = ()
    raw = document.get("speeds_gbps", "any")
    if raw != "any":
        found = []
        for i, item in enumerate(raw if isinstance(raw, list) else [raw]):
            where = f"speeds_gbps[{i}]" if isinstance(raw, list) else "speeds_gbps"
            speed = reader.integer(item, where, maximum=3200)
            if speed is not None and speed not in found:
                found.append(speed)
        speeds = tuple(sorted(found))
        if not found and not reader.problems:
            reader.add("empty", "speeds_gbps", "an empty list allows no speed: write any")
    planes = reader.choices(document.get("planes"), "planes", (1, 2, 4, 8), default=(1,))
    topologies = reader.choices(
        document.get("topologies"), "topologies", TOPOLOGIES, default=DEFAULT_TOPOLOGIES
    )
    tiers = reader.choices(document.get("tiers"), "tiers", TIERS, default=(2, 3))
    ratios, ratio_range = _ratios(reader, document.get("oversubscription"))
    cabling = reader.choices(
        document.get("cabling"), "cabling", CABLINGS, default=("point-to-point",)
    )
    uplinks = reader.choices(document.get("uplinks"), "uplinks", UPLINKS, default=("link",))
    limits = _limits(reader, document.get("limits"))
    workload = _workload(reader, document.get("workload"), gpus_min)
    objectives = reader.choices(
        document.get("objectives"), "objectives", OBJECTIVES, default=DEFAULT_OBJECTIVES
    )
    max_candidates = reader.integer(
        document.get("max_candidates", default_max_candidates(gpus_max)),
        "max_candidates",
        maximum=MAX_CANDIDATES_LIMIT,
    )
    base = _base(reader, document.get("base"))
    if reader.problems:
        raise RequirementsError(reader.problems)
    req = Requirements(
        gpus_min=gpus_min,
        gpus_max=gpus_max,
        servers=servers,
        leaves=leaves,
        spines=spines,
        cores=cores,
        mix_switches=mix,
        name=document.get("name", "exploration"),
        transports=transports,
        speeds_gbps=speeds,
        planes=tuple(sorted(planes)),
        topologies=topologies,
        tiers=tuple(sorted(tiers)),
        ratios=ratios,
        ratio_range=ratio_range,
        cabling=cabling,
        uplinks=uplinks,
        limits=limits,
        workload=workload,
        objectives=objectives,
        max_candidates=max_candidates or MAX_CANDIDATES,
        base=base,
        any_servers=raw_servers == "any",
        any_switches=any_switches,
    )
    _contradictions(reader, req, facts)
    if reader.problems:
        raise RequirementsError(reader.problems)
    return req
