"""Validate a built fabric: link compatibility (catalog-facts rules 1-26) and fabric checks.

:func:`validate_fabric` takes a :class:`~planner.domain.fabric.Fabric` (topology, layout and
media columns) and the :class:`~planner.domain.catalog.CatalogFacts` it was built from, and
returns a :class:`ValidationReport`. Problems are grouped: one :class:`Problem` per code and
distinct message (the message names the parts and devices), listing every affected element
(``link:<i>``, ``node:<name>``; at most :data:`MAX_IDS` ids, ``count`` has the total), so a
300,000-link fabric gives a readable list.

Link rules run once per *link group*: links with the same tier, speed, end models and roles,
ports per cage and parts (as in :mod:`planner.domain.media`). Fit is decided by
:mod:`inventory.library.compat` (the single authority: ``plug_fits_cage``,
``optics_interoperate``, ``fiber_fits_optic``); this module maps its findings to stable codes
and rule numbers (:mod:`simulation.engine.rules_catalog`) and adds what needs the whole link
or fabric: reach against ``link_length_m``, twin-port fiber pairing, breakouts, lane
structure, XDR, protocols and NIC limits. Length checks are NumPy comparisons per group.

Honesty about facts: a check whose facts are unknown is a ``warning`` ("cannot be verified:
<fact> unknown for <part>"), never an error. Two facts have no field in the seed schema and are
read only if a catalog record states them: ``lpo_validated`` (bool; on the switch, server or
compute-NIC record, rule 25) and ``fec_modes`` (list; same records, rule 26). Without them
an LPO module is a warning and a 100G/lane optic's host FEC an info.

Fabric checks: rail alignment (rail-optimized), built oversubscription against
``fabric.info``, ECMP balance, port use (double, out of range, too many), dangling links,
single points of failure, and GPU reachability per plane (NumPy union-find).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from inventory.library.compat import (
    TOP_NAMES,
    Cage,
    Plug,
    fiber_fits_optic,
    optics_interoperate,
    plug_fits_cage,
    pmd_family,
)
from planner.domain.catalog import CatalogFacts, DeviceModel, PortGroup
from planner.domain.fabric import ROLE, ROLES, SWITCH_ROLES, TIER, TIER_NAMES, Fabric
from planner.domain.part_facts import (
    COPPER_REACH_M,
    cable_plugs_of,
    cage_of,
    fiber_of,
    legs_of,
    optic_of,
    plug_of,
    port_group_of,
    port_speeds_of,
    reach_cap_m,
)
from simulation.engine.rules_catalog import RULES, SEVERITIES, rule_sort_key

Progress = Callable[[int, int], None] | None

MAX_IDS = 1000  # element ids listed per problem (``count`` has the total)
TOLERANCE_M = 1e-3
LENGTH_SKEW_M = 10.0  # rule 8: the two fibers of a twin-port module should be about equal
RATIO_TOLERANCE = 1e-3
PROGRESS_STEPS = 10
SUGGESTIONS = 3
SHORT_TOP = {"ihs": "finned", "rhs": "flat-top"}
TIER_ROLES = {  # tier -> (allowed a-end roles, b-end role)
    "server-leaf": ({"server", "manager"}, "leaf"),
    "leaf-spine": ({"leaf"}, "spine"),
    "spine-core": ({"spine"}, "core"),
}


# --- report ----------------------------------------------------------------------------------


@dataclass
class Problem:
    """One finding, grouped over every element it affects.

    Attributes
    ----------
    code : str
        Stable identifier (:data:`simulation.engine.rules_catalog.RULES`).
    severity : str
        ``error`` (will not work), ``warning`` (cannot be verified, or works badly) or
        ``info``.
    message : str
        What is wrong, naming parts and devices.
    element_ids : list of str
        ``link:<i>`` and ``node:<name>``, at most :data:`MAX_IDS`.
    suggestion : str
        A way out, naming catalog parts that would fit where there are some.
    rule : str
        The catalog-facts compatibility rule number, or ``"fabric"``.
    count : int
        Elements affected in all (may exceed ``len(element_ids)``).
    example : str
        The first affected element, described (``dgx-001 port 1 -> leaf-su001-r1 port 1``).
    """

    code: str
    severity: str
    message: str
    element_ids: list[str]
    suggestion: str = ""
    rule: str = "fabric"
    count: int = 0
    example: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class ValidationReport:
    """The problems of one fabric and what was checked."""

    problems: list[Problem]
    links_checked: int
    nodes_checked: int
    rules_run: list[str]
    counts_by_code: dict[str, int]  # affected elements per code
    counts_by_severity: dict[str, int]  # problems (grouped) per severity
    elapsed_s: float = 0.0
    power: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """No errors (warnings and infos allowed)."""
        return not self.counts_by_severity.get("error")

    def codes(self, severity: str | None = None) -> set[str]:
        return {p.code for p in self.problems if severity in (None, p.severity)}

    def rules(self, severity: str | None = None) -> set[str]:
        return {p.rule for p in self.problems if severity in (None, p.severity)}

    def by_code(self, code: str) -> list[Problem]:
        return [p for p in self.problems if p.code == code]

    def as_dict(self) -> dict:
        return {
            "problems": [p.as_dict() for p in self.problems],
            "summary": {
                "ok": self.ok,
                "links_checked": self.links_checked,
                "nodes_checked": self.nodes_checked,
                "rules_run": self.rules_run,
                "counts_by_code": self.counts_by_code,
                "counts_by_severity": self.counts_by_severity,
                "elapsed_s": round(self.elapsed_s, 3),
                "power": self.power,
            },
        }


class _Collector:
    """Problems keyed by (code, severity, message); element indices kept as arrays."""

    def __init__(self, fabric: Fabric):
        self.fabric = fabric
        self.items: dict[tuple[str, str, str], dict] = {}

    def add(
        self,
        code: str,
        message: str,
        *,
        severity: str | None = None,
        links=None,
        nodes=None,
        suggestion: str = "",
        example: str = "",
    ) -> None:
        severity = severity or RULES[code].severity
        links = None if links is None else np.atleast_1d(np.asarray(links, dtype=np.int64))
        nodes = None if nodes is None else np.atleast_1d(np.asarray(nodes, dtype=np.int64))
        given = [x for x in (links, nodes) if x is not None]
        if given and not any(x.size for x in given):
            return  # an empty selection
        key = (code, severity, message)
        item = self.items.get(key)
        if item is None:
            if not example and links is not None and links.size:
                example = _describe(self.fabric, int(links[0]))
            elif not example and nodes is not None and nodes.size:
                example = self.fabric.node_name[int(nodes[0])]
            item = self.items[key] = {
                "links": [],
                "nodes": [],
                "suggestion": suggestion,
                "example": example,
            }
        if links is not None:
            item["links"].append(links)
        if nodes is not None:
            item["nodes"].append(nodes)
        if suggestion and not item["suggestion"]:
            item["suggestion"] = suggestion

    def problems(self) -> list[Problem]:
        out = []
        names = self.fabric.node_name
        for (code, severity, message), item in self.items.items():
            links = _distinct(item["links"], self.fabric.link_count)
            nodes = _distinct(item["nodes"], self.fabric.node_count)
            ids = [f"link:{int(i)}" for i in links[:MAX_IDS]]
            ids += [f"node:{names[int(i)]}" for i in nodes[: max(0, MAX_IDS - len(ids))]]
            out.append(
                Problem(
                    code=code,
                    severity=severity,
                    message=message,
                    element_ids=ids,
                    suggestion=item["suggestion"],
                    rule=RULES[code].rule,
                    count=int(links.size + nodes.size),
                    example=item["example"],
                )
            )
        rank = {s: i for i, s in enumerate(SEVERITIES)}
        out.sort(key=lambda p: (rank[p.severity], rule_sort_key(p.rule), p.code, -p.count))
        return out


def _distinct(chunks: list[np.ndarray], size: int) -> np.ndarray:
    """Sorted distinct indices of ``chunks`` (a mask when they are valid indices: fast)."""
    if not chunks:
        return np.zeros(0, dtype=np.int64)
    values = np.concatenate(chunks)
    if values.size and values.min() >= 0 and values.max() < size:
        mask = np.zeros(size, dtype=bool)
        mask[values] = True
        return np.flatnonzero(mask)
    return np.unique(values)


def _describe(fabric: Fabric, link: int) -> str:
    a, b = int(fabric.link_a[link]), int(fabric.link_b[link])
    n = fabric.node_count
    a_name = fabric.node_name[a] if 0 <= a < n else f"node #{a}"
    b_name = fabric.node_name[b] if 0 <= b < n else f"node #{b}"
    text = (
        f"link:{link} {a_name} port {int(fabric.link_a_port[link]) + 1} -> "
        f"{b_name} port {int(fabric.link_b_port[link]) + 1}"
    )
    if fabric.link_length_m is not None:
        text += f" ({float(fabric.link_length_m[link]):g} m)"
    return text


# --- the two ends of a link group ------------------------------------------------------------


@dataclass
class _End:
    """One end of a link group: device, cage and the facts the rules need."""

    role: str
    slug: str
    model: DeviceModel | None
    group: PortGroup | None
    cage: Cage
    ppc: int  # logical ports per cage in the fabric
    record: dict | None  # the device's catalog record
    nic: dict | None  # a server's compute NIC record

    @property
    def is_switch(self) -> bool:
        return self.role in SWITCH_ROLES

    @property
    def label(self) -> str:
        if self.model is None:
            return f"{self.slug} {self.role} port"
        cage = self.cage
        twin = "twin-port " if cage.ports_per_cage == 2 else ""
        bits = [self.slug, TOP_NAMES.get(cage.top or "", ""), cage.form_factor or "", f"{twin}cage"]
        return " ".join(bit for bit in bits if bit)

    def protocols(self) -> frozenset | None:
        if self.is_switch:
            return frozenset(self.model.protocols) if self.model and self.model.protocols else None
        if self.role == "server":
            if self.nic and self.nic.get("protocols"):
                return frozenset(self.nic["protocols"])
            if self.model and self.model.protocols:
                return frozenset(self.model.protocols)
        return None

    def stated(self, key: str):
        """A host capability stated on the device or its compute NIC (None = not stated)."""
        for record in (self.nic, self.record):
            if record and record.get(key) is not None:
                return record[key]
        return None


def _make_end(fabric: Fabric, facts: CatalogFacts, node: int, speed: int) -> _End:
    slug = fabric.models[int(fabric.node_model[node])]
    role = ROLES[int(fabric.node_role[node])]
    model = facts.devices.get(slug)
    group = port_group_of(model, speed)
    cage = cage_of(model, group)
    record = facts.parts.get(slug)
    nic = None
    if role == "server" and record and record.get("compute_nic"):
        nic = facts.parts.get(record["compute_nic"])
    if nic:
        updates: dict = {}
        port = (nic.get("ports") or [{}])[0]
        for limit in nic.get("limits") or []:
            only = limit.get("code") == "cage-only" and limit.get("form_factors")
            if only and cage.form_factor is None:
                updates["form_factor"] = limit["form_factors"][0]
            if limit.get("code") == "top-only" and limit.get("top") and cage.top is None:
                updates["top"] = limit["top"]
        if cage.form_factor is None and port.get("form_factor") and "form_factor" not in updates:
            updates["form_factor"] = port["form_factor"]
        if cage.max_module_power_w is None and port.get("max_module_power_w"):
            updates["max_module_power_w"] = port["max_module_power_w"]
        if updates:
            cage = replace(cage, **updates)
    return _End(role, slug, model, group, cage, int(fabric.node_ports_per_cage[node]), record, nic)


@dataclass
class _Group:
    links: np.ndarray
    tier: str
    speed: int
    a: _End
    b: _End
    a_slug: str | None
    b_slug: str | None
    cable_slug: str | None
    a_part: dict | None
    b_part: dict | None
    cable: dict | None

    @property
    def manager(self) -> bool:
        return self.a.role == "manager"

    @property
    def assembly(self) -> bool:
        return self.cable is not None and self.cable.get("category") == "cable"

    def link_protocols(self) -> frozenset | None:
        known = [p for p in (self.a.protocols(), self.b.protocols()) if p]
        if not known:
            return None
        out = known[0]
        for other in known[1:]:
            out = out & other
        return out


# --- small helpers ---------------------------------------------------------------------------


def _num(value) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _errors(problems) -> list:
    return [p for p in problems if p.severity == "error"]


def _port_speed(part: dict) -> int | None:
    if part.get("port_speed_gbps"):
        return int(part["port_speed_gbps"])
    if part.get("speed_gbps"):
        return int(part["speed_gbps"]) // int(part.get("ports_per_module") or 1)
    return None


def _power(part: dict) -> float | None:
    value = _num(part.get("power_max_w"))
    return value if value is not None else _num(part.get("power_typical_w"))


def _connector_code(first: str, second: str) -> str:
    """Same connector family with another polish is rule 10, another family rule 24."""
    fam1, _, pol1 = first.partition("-")
    fam2, _, pol2 = second.partition("-")
    return "polish-mismatch" if fam1 == fam2 and pol1 != pol2 else "connector-mismatch"


def _ieee_reach(part: dict, grade: str | None) -> float | None:
    """Rule 12: IEEE reach class of a PMD, for optics that state no reach."""
    pmd = (part.get("pmd") or "").upper()
    speed = part.get("speed_gbps")
    if pmd == "VR8":
        return 50.0
    if pmd == "SR8":
        if speed == 400:
            return 70.0 if grade == "OM3" else 100.0
        return 100.0
    if pmd == "DR8":
        return 500.0
    if pmd == "DR8-2":
        return 2000.0
    return None


def _describe_part(part: dict) -> str:
    bits = [
        SHORT_TOP.get(part.get("top") or "", ""),
        "twin-port" if (part.get("ports_per_module") or 1) == 2 else "",
        part.get("form_factor") or part.get("end_a_form_factor") or "",
        part.get("pmd") or (part.get("cable_type") or "").upper(),
    ]
    return " ".join(bit for bit in bits if bit)


def _or_list(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def _chunks(links: np.ndarray, step: int):
    for start in range(0, links.size, step):
        yield links[start : start + step]


def _fit_code(code: str, plug: Plug, cage: Cage) -> str:
    if code == "top-mismatch":
        return "finned-plug-in-flat-cage" if plug.top == "ihs" else "flat-plug-in-finned-cage"
    if code == "form-factor-mismatch":
        ff, cf = plug.form_factor or "", cage.form_factor or ""
        if ff.startswith("QSFP-DD") and cf.startswith("QSFP") and not cf.startswith("QSFP-DD"):
            return "qsfp-dd-in-qsfp-cage"
        return "form-factor-mismatch"
    if code == "port-count-mismatch":
        if plug.ports == 1:
            return "single-port-module-in-twin-cage"
        return "twin-port-plug-in-single-cage"
    return {
        "host-part-in-switch": "host-module-in-switch",
        "switch-part-in-host": "switch-module-in-host",
        "lane-rate-mismatch": "lane-rate-mismatch",
        "speed-above-cage": "plug-faster-than-cage",
        "module-power-over-cage": "module-power-over-cage",
        "protocol-mismatch": "protocol-mismatch",
        "nic-limit": "nic-single-port-speed",
        "form-factor-unknown": "form-factor-unknown",
        "top-unknown": "top-unknown",
        "lane-rate-unknown": "lane-rate-unknown",
    }.get(code, "form-factor-mismatch")


OPTIC_CODES = {
    "media-mismatch": "media-mismatch",
    "pmd-mismatch": "pmd-mismatch",
    "lane-rate-mismatch": "optics-lane-rate-mismatch",
    "speed-mismatch": "port-speed-mismatch",
    "wavelength-mismatch": "wavelength-mismatch",
    "protocol-mismatch": "optics-protocol-mismatch",
    "media-unknown": "media-unknown",
    "lane-rate-unknown": "lane-rate-unknown",
}


def _unknown(fact: str, who: list[str]) -> str:
    return f"cannot be verified: {fact} unknown for {' and '.join(who) or 'a part'}"


# A finding of a link group: (code, message, suggestion, severity or None for the default).
Finding = tuple[str, str, str, str | None]


# --- the validator ---------------------------------------------------------------------------


class _Validator:
    def __init__(self, fabric: Fabric, facts: CatalogFacts, on_progress: Progress):
        self.fabric, self.facts, self.on_progress = fabric, facts, on_progress
        self.out = _Collector(fabric)
        self.scopes: set[str] = set()
        self.power = {"modules_w": 0.0, "cable_ends_w": 0.0, "unknown_modules": 0}
        self._suggestions: dict = {}
        seen: set[str] = set()
        self.transceivers: list[dict] = []
        self.cables: list[dict] = []
        self.fibers: list[dict] = []
        buckets = {"transceiver": self.transceivers, "cable": self.cables, "fiber": self.fibers}
        for slug in sorted(facts.parts):
            part = facts.parts[slug]
            if part.get("slug", slug) != slug or slug in seen:
                continue
            seen.add(slug)
            if part.get("category") in buckets:
                buckets[part["category"]].append(part)
        n = fabric.node_count
        a, b = fabric.link_a, fabric.link_b
        self.valid = (a >= 0) & (a < n) & (b >= 0) & (b < n) & (a != b)
        self.has_media = fabric.link_a_part is not None and fabric.link_b_part is not None

    # --- entry point -------------------------------------------------------------------------

    def run(self) -> ValidationReport:
        start = time.perf_counter()
        total = self.fabric.link_count
        self._progress(0, total)
        self._link_rules(total)
        if self.has_media:
            self._module_rules()
        self._fabric_checks()
        self._progress(total, total)
        problems = self.out.problems()
        counts_by_code: dict[str, int] = {}
        counts_by_severity = dict.fromkeys(SEVERITIES, 0)
        for problem in problems:
            counts_by_code[problem.code] = counts_by_code.get(problem.code, 0) + problem.count
            counts_by_severity[problem.severity] += 1
        self.power["modules_w"] = round(self.power["modules_w"], 3)
        self.power["cable_ends_w"] = round(self.power["cable_ends_w"], 3)
        return ValidationReport(
            problems=problems,
            links_checked=int(self.valid.sum()),
            nodes_checked=self.fabric.node_count,
            rules_run=[code for code, info in RULES.items() if info.scope in self.scopes],
            counts_by_code=counts_by_code,
            counts_by_severity=counts_by_severity,
            elapsed_s=time.perf_counter() - start,
            power=self.power,
        )

    def _progress(self, done: int, total: int) -> None:
        if self.on_progress:
            self.on_progress(int(done), int(total))

    # --- link rules ----------------------------------------------------------------------------

    def _link_rules(self, total: int) -> None:
        fabric = self.fabric
        links = np.flatnonzero(self.valid)
        self.scopes.add("device")
        if not self.has_media:
            self.out.add(
                "media-not-assigned",
                "the fabric has no media (modules, cables): part rules were not run",
            )
        else:
            self.scopes.add("media")
        if fabric.link_length_m is None and self.has_media:
            self.out.add(
                "layout-missing",
                "the fabric has no link lengths (no layout): reach was not checked",
                links=links[:1],
            )
        if not links.size:
            return
        a, b = fabric.link_a[links], fabric.link_b[links]
        none = np.full(links.size, -1, dtype=np.int64)
        columns = [
            fabric.link_tier[links],
            fabric.link_speed_gbps[links],
            fabric.node_model[a],
            fabric.node_model[b],
            fabric.node_role[a],
            fabric.node_role[b],
            fabric.node_ports_per_cage[a],
            fabric.node_ports_per_cage[b],
        ]
        if self.has_media:
            columns += [
                fabric.link_a_part[links],
                fabric.link_b_part[links],
                none if fabric.link_cable_part is None else fabric.link_cable_part[links],
            ]
        order, counts = _row_groups(columns)
        step = max(1, math.ceil(total / PROGRESS_STEPS))
        done = 0
        start = 0
        for count in counts:
            members = links[order[start : start + count]]
            start += count
            group = self._group(members)
            findings = self._findings(group)
            reach = self._reach(group) if self.has_media else None
            for chunk in _chunks(members, step):
                for code, message, suggestion, severity in findings:
                    self.out.add(
                        code, message, severity=severity, links=chunk, suggestion=suggestion
                    )
                if reach is not None:
                    self._apply_reach(group, reach, chunk)
                self._apply_cable_length(chunk)
                done += chunk.size
                self._progress(done, total)  # chunks hold at most a tenth of the links

    def _group(self, members: np.ndarray) -> _Group:
        fabric, facts = self.fabric, self.facts
        first = int(members[0])
        speed = int(fabric.link_speed_gbps[first])
        a = _make_end(fabric, facts, int(fabric.link_a[first]), speed)
        b = _make_end(fabric, facts, int(fabric.link_b[first]), speed)
        slugs: list[str | None] = [None, None, None]
        parts: list[dict | None] = [None, None, None]
        if self.has_media:
            columns = (fabric.link_a_part, fabric.link_b_part, fabric.link_cable_part)
            for i, column in enumerate(columns):
                index = -1 if column is None else int(column[first])
                if index >= 0:
                    slugs[i] = fabric.parts[index]
                    parts[i] = facts.parts.get(slugs[i])
        tier = TIER_NAMES[int(fabric.link_tier[first])]
        return _Group(members, tier, speed, a, b, *slugs, *parts)

    def _findings(self, g: _Group) -> list[Finding]:
        out: list[Finding] = []
        self._device_findings(g, out)
        if self.has_media:
            self._media_findings(g, out)
        return out

    # --- device-level: protocols, NIC limits, breakouts, lane structure ------------------------

    def _device_findings(self, g: _Group, out: list[Finding]) -> None:
        a, b = g.a, g.b
        pa, pb = a.protocols(), b.protocols()
        if pa and pb and not (pa & pb):
            out.append(
                (
                    "device-protocol-mismatch",
                    f"{a.slug} ({a.role}) speaks {', '.join(sorted(pa))}; {b.slug} ({b.role}) "
                    f"speaks {', '.join(sorted(pb))}: a link must be IB-IB or Eth-Eth (rule 17)",
                    "use devices of one protocol on both ends",
                    None,
                )
            )
        if a.role == "server" and a.nic is None and pa is None:
            out.append(
                (
                    "compute-nic-unknown",
                    _unknown("compute NIC (its protocols and limits, rules 17-18)", [a.slug]),
                    "name the server's compute_nic in the catalog",
                    None,
                )
            )
        link_protocols = g.link_protocols()
        if a.role == "server" and a.nic:
            for limit in a.nic.get("limits") or []:
                if limit.get("code") != "no-single-port-speed":
                    continue
                protocol, limit_speed = limit.get("protocol"), limit.get("speed_gbps") or 0
                if link_protocols and link_protocols <= {protocol} and g.speed >= limit_speed:
                    out.append(
                        (
                            "nic-single-port-speed",
                            f"{a.nic['slug']} in {a.slug} at {g.speed}G {protocol}: "
                            f"{limit.get('message') or 'not supported on a single port'}",
                            f"run {g.speed // 2}G per port (planes: 2), or use InfiniBand",
                            None,
                        )
                    )
        for end in (a, b):
            if end.is_switch:
                self._breakout_findings(g, end, out)
        if a.role == "server":
            self._host_speed_findings(g, a, out)
        self._cage_lane_findings(g, out)

    def _breakout_findings(self, g: _Group, end: _End, out: list[Finding]) -> None:
        group = end.group
        if group is None or not group.port_speed_gbps:
            return
        ports = group.ports_at(g.speed)
        modes = ", ".join(group.breakouts)
        if not ports:
            if group.breakouts:
                out.append(
                    (
                        "breakout-not-listed",
                        f"{end.slug} runs {group.port_speed_gbps}G ports and lists {modes}; "
                        f"{g.speed}G is not one of its modes (rule 21)",
                        f"use a speed {end.slug} lists ({modes})",
                        None,
                    )
                )
            else:
                out.append(
                    (
                        "breakout-unverified",
                        _unknown(f"{g.speed}G breakout mode", [end.slug]),
                        "",
                        None,
                    )
                )
            return
        expected = group.ports_per_cage * group.split_at(g.speed)
        if expected and end.ppc != expected:
            out.append(
                (
                    "breakout-not-listed",
                    f"the fabric runs {end.ppc} x {g.speed}G per {end.slug} cage; its listed "
                    f"modes ({modes or f'{group.port_speed_gbps}G'}) give {expected} (rule 21)",
                    "",
                    None,
                )
            )

    def _host_speed_findings(self, g: _Group, end: _End, out: list[Finding]) -> None:
        group = end.group
        if group is None or not group.port_speed_gbps:
            return
        physical = group.port_speed_gbps * (group.ports_per_cage or 1)
        logical = physical // max(1, end.ppc)
        speeds: set[int] = set()
        if end.nic:
            for port in end.nic.get("ports") or []:
                speeds.update(int(s) for s in port.get("speeds_gbps") or ())
                if port.get("max_speed_gbps"):
                    speeds.add(int(port["max_speed_gbps"]))
        if g.speed > group.port_speed_gbps:
            out.append(
                (
                    "host-port-speed",
                    f"{end.slug} ports run {group.port_speed_gbps}G; the link runs {g.speed}G "
                    "(rule 22)",
                    "",
                    None,
                )
            )
        elif g.speed != group.port_speed_gbps or logical != g.speed:
            if speeds and g.speed not in speeds:
                out.append(
                    (
                        "host-port-speed",
                        f"{end.nic['slug']} in {end.slug} runs {sorted(speeds)} Gb/s, not the "
                        f"link's {g.speed}G (rule 22: split legs need ports of that speed)",
                        "",
                        None,
                    )
                )
            elif not speeds:
                out.append(
                    (
                        "host-port-speed",
                        _unknown(f"whether the ports run {g.speed}G", [end.slug]),
                        "",
                        "warning",
                    )
                )

    def _cage_lane_findings(self, g: _Group, out: list[Finding]) -> None:
        """Rule 22: lanes x lane rate per link must match at both ends (host cages may
        downshift to the other end's lane rate)."""
        shapes = []
        for end in (g.a, g.b):
            group = end.group
            if group is None or not (
                group.lanes_per_port and group.lane_rate_gbps and group.port_speed_gbps
            ):
                return
            lanes = group.lanes_per_port * g.speed / group.port_speed_gbps
            if not float(lanes).is_integer() or lanes < 1:
                return
            shapes.append((int(lanes), int(group.lane_rate_gbps)))
        (la, ra), (lb, rb) = shapes
        if (la, ra) == (lb, rb):
            return
        for end, rate, other_rate in ((g.a, ra, rb), (g.b, rb, ra)):
            downshift = not end.is_switch and rate > other_rate
            if downshift and end.group.lanes_per_port * other_rate >= g.speed:
                return  # the host cage downshifts to the other end's lane rate
        out.append(
            (
                "lane-structure-mismatch",
                f"{g.speed}G links run {lb} x {rb}G at the {g.b.slug} end and {la} x {ra}G "
                f"at the {g.a.slug} end (rules 13 and 22: lane count and rate must match)",
                "",
                None,
            )
        )

    # --- media-level --------------------------------------------------------------------------

    def _media_findings(self, g: _Group, out: list[Finding]) -> None:
        if g.manager:
            if g.b_slug:
                self._known_part(g.b_slug, g.b_part, out)
                if g.b_part is not None:
                    self._plug_findings(g, g.b, plug_of(g.b_part), g.b_slug, g.b_part, out)
            return
        if g.a_slug is None and g.b_slug is None and g.cable_slug is None:
            out.append(("media-missing", "link without modules, cable or fiber", "", None))
            return
        for slug, part in ((g.a_slug, g.a_part), (g.b_slug, g.b_part), (g.cable_slug, g.cable)):
            if slug and part is None:
                self._known_part(slug, part, out)
                return
        if g.assembly:
            self._cable_findings(g, out)
        else:
            self._optics_findings(g, out)

    def _known_part(self, slug: str, part: dict | None, out: list[Finding]) -> None:
        if part is None:
            out.append(
                (
                    "part-not-in-catalog",
                    _unknown("every fact", [f"{slug} (not in the catalog)"]),
                    "",
                    None,
                )
            )

    def _plug_findings(
        self, g: _Group, end: _End, plug: Plug, label: str, part: dict | None, out
    ) -> list[tuple[str, str]]:
        """compat's plug-in-cage findings for ``end``; returns the errors as (code, message)."""
        errors: list[tuple[str, str]] = []
        cage = end.cage
        for v in plug_fits_cage(plug, cage):
            code = _fit_code(v.code, plug, cage)
            if v.severity != "error":
                fact = {"form-factor-unknown": "form factor", "top-unknown": "finned/flat top"}
                fact = fact.get(v.code, "lane rate")
                attr = {"form factor": "form_factor", "finned/flat top": "top"}.get(
                    fact, "lane_rate_gbps"
                )
                who = [label] if getattr(plug, attr) in (None, "", "none") else []
                if getattr(cage, attr) in (None, "", "none"):
                    who.append(f"the {end.slug} cage")
                out.append((code, _unknown(fact, who), "", None))
                continue
            errors.append((code, f"{label} in the {end.label}: {v.message}"))
        # Host cages carry no protocol in compat; the link's protocol is the switch's.
        link_protocols = g.link_protocols()
        host = not end.is_switch and plug.protocols and link_protocols
        if host and not (plug.protocols & link_protocols):
            errors.append(
                (
                    "protocol-mismatch",
                    f"{label} in the {end.label}: the plug speaks "
                    f"{', '.join(sorted(plug.protocols))}; the link runs "
                    f"{', '.join(sorted(link_protocols))} (rule 17).",
                )
            )
        if plug.kind == "transceiver" and part is not None:
            self._plug_lane_findings(end, plug, label, errors)
            if plug.power_max_w is None and cage.max_module_power_w is not None:
                out.append(
                    (
                        "module-power-unknown",
                        _unknown(
                            f"max power (the {end.slug} cage allows {cage.max_module_power_w:g} W)",
                            [label],
                        ),
                        "",
                        None,
                    )
                )
        return errors

    def _plug_lane_findings(self, end: _End, plug: Plug, label: str, errors: list) -> None:
        """Rule 22 at one end: the plug's lanes must match the cage's at the same speed."""
        group = end.group
        if group is None or not (group.lanes_per_port and group.port_speed_gbps):
            return
        cage_lanes = group.lanes_per_port * (group.ports_per_cage or 1)
        cage_speed = group.port_speed_gbps * (group.ports_per_cage or 1)
        if plug.lanes and plug.speed_gbps == cage_speed and plug.lanes != cage_lanes:
            errors.append(
                (
                    "lane-structure-mismatch",
                    f"{label} carries {plug.speed_gbps}G on {plug.lanes} lanes; the {end.label} "
                    f"runs it on {cage_lanes} x {group.lane_rate_gbps}G (rule 22).",
                )
            )

    def _optics_findings(self, g: _Group, out: list[Finding]) -> None:
        a_part, b_part, fiber = g.a_part, g.b_part, g.cable
        a_plug = plug_of(a_part) if a_part else None
        b_plug = plug_of(b_part) if b_part else None
        errs_a = self._plug_findings(g, g.a, a_plug, g.a_slug, a_part, out) if a_plug else []
        errs_b = self._plug_findings(g, g.b, b_plug, g.b_slug, b_part, out) if b_plug else []
        swapped = (
            a_plug is not None
            and b_plug is not None
            and errs_a
            and errs_b
            and any(code.endswith("cage") and "plug" in code for code, _ in errs_a + errs_b)
            and not _errors(plug_fits_cage(a_plug, g.b.cage))
            and not _errors(plug_fits_cage(b_plug, g.a.cage))
        )
        if swapped:
            out.append(
                (
                    "modules-swapped",
                    f"{g.a_slug} sits in the {g.a.label} and {g.b_slug} in the {g.b.label}: "
                    "the modules are swapped. IHS and RHS versions interoperate across a "
                    "link (rule 3), but each must sit in the cage of its own top",
                    f"swap them: {g.b_slug} at the {g.a.slug} end, {g.a_slug} at the "
                    f"{g.b.slug} end",
                    None,
                )
            )
        else:
            for end, errors, other in ((g.a, errs_a, b_part), (g.b, errs_b, a_part)):
                if errors:
                    suggestion = self._suggest_modules(g, end, other)
                    out.extend((code, message, suggestion, None) for code, message in errors)
        if a_part and b_part:
            self._pair_findings(g, out)
        if fiber is not None:
            self._fiber_findings(g, out)
        for slug, part, end in ((g.a_slug, a_part, g.a), (g.b_slug, b_part, g.b)):
            if part is None:
                continue
            self._module_speed_findings(g, slug, part, end, out)
            if _power(part) is None:
                out.append(
                    (
                        "power-unknown",
                        f"power unknown for {slug}: left out of the power total (rule 20)",
                        "",
                        None,
                    )
                )
            self._lpo_findings(g, slug, part, end, out)
        self._fec_findings(g, out)
        self._xdr_findings(g, out)

    def _pair_findings(self, g: _Group, out: list[Finding]) -> None:
        a_part, b_part = g.a_part, g.b_part
        oa, ob = optic_of(a_part), optic_of(b_part)
        pair = f"{g.b_slug} ({g.b.role} end) with {g.a_slug} ({g.a.role} end)"
        suggestion = ""
        for v in optics_interoperate(ob, oa):
            if v.code == "connector-mismatch":
                code = _connector_code(ob.connector, oa.connector)
            else:
                code = OPTIC_CODES.get(v.code, "media-mismatch")
            if v.severity != "error":
                attr = "media" if v.code == "media-unknown" else "lane_rate_gbps"
                fact = "media" if attr == "media" else "lane rate"
                who = [s for s, p in ((g.b_slug, b_part), (g.a_slug, a_part)) if not p.get(attr)]
                out.append((code, _unknown(fact, who), "", None))
                continue
            suggestion = suggestion or self._suggest_modules(g, g.a, b_part)
            out.append((code, f"{pair}: {v.message}", suggestion, None))
        straight = g.cable is not None and g.cable.get("topology") == "straight"
        la, lb = _lanes_per_connector(a_part), _lanes_per_connector(b_part)
        if straight and la and lb and la != lb:
            out.append(
                (
                    "twin-port-pairing",
                    f"{pair}: {lb} lanes per port at one end, {la} at the other over a straight "
                    "fiber; a twin-port 2xDR4/2xSR4 port feeds one 4-lane 400G DR4/SR4 "
                    "module (rule 6)",
                    self._suggest_modules(g, g.a, b_part),
                    None,
                )
            )
        self._single_phy_findings(g, out)

    def _single_phy_findings(self, g: _Group, out: list[Finding]) -> None:
        """Rule 23: an NVIDIA twin-port (two 4-lane engines) against a single 800G PHY."""
        for twin_slug, twin, peer_slug, peer in (
            (g.b_slug, g.b_part, g.a_slug, g.a_part),
            (g.a_slug, g.a_part, g.b_slug, g.b_part),
        ):
            is_twin = (twin.get("ports_per_module") or 1) == 2 or (
                (twin.get("pmd") or "").lower().startswith("2x")
            )
            pmd = (peer.get("pmd") or "").upper()
            single = (peer.get("ports_per_module") or 1) != 2 and pmd[:3] in ("SR8", "VR8", "DR8")
            if not (is_twin and single and (peer.get("speed_gbps") or 0) >= 800):
                continue
            if "2x400G" in (peer.get("breakouts") or ()):
                continue
            if peer.get("connector_count") == 1 or (peer.get("connector") or "").startswith(
                "mpo16"
            ):
                out.append(
                    (
                        "twin-port-vs-single-phy",
                        f"{twin_slug} is a twin-port (two 4-lane MPO-12 engines); {peer_slug} is "
                        f"one 8-lane {pmd} PHY on one connector: they do not pair (rule 23)",
                        self._suggest_modules(g, g.a if peer is g.a_part else g.b, twin),
                        None,
                    )
                )
            else:
                out.append(
                    (
                        "single-phy-unverified",
                        _unknown(f"whether {pmd} runs as 2 x 400G (rule 23)", [peer_slug]),
                        "",
                        None,
                    )
                )
            return

    def _fiber_findings(self, g: _Group, out: list[Finding]) -> None:
        fiber = g.cable
        fib = fiber_of(fiber)
        suggestion = ""
        for slug, part in ((g.b_slug, g.b_part), (g.a_slug, g.a_part)):
            if part is None:
                continue
            optic = optic_of(part)
            for v in fiber_fits_optic(fib, optic):
                if v.severity != "error":
                    who = []
                    if not (fib.fiber_type and fib.connector_a):
                        who.append(g.cable_slug)
                    if not (optic.media and optic.connector):
                        who.append(slug)
                    text = _unknown("fiber type or connector", who)
                    out.append(("fiber-unknown", text, "", None))
                    continue
                if v.code == "connector-mismatch":
                    ends = [c for c in (fib.connector_a, fib.connector_b) if c]
                    family = optic.connector.partition("-")[0]
                    same = [c for c in ends if c.partition("-")[0] == family]
                    code = _connector_code(optic.connector, (same or ends)[0])
                else:
                    code = v.code
                suggestion = suggestion or self._suggest_fibers(g)
                out.append((code, f"{g.cable_slug} with {slug}: {v.message}", suggestion, None))
        topology = fiber.get("topology")
        if topology and topology.startswith("1:") and g.b_part is not None:
            self._splitter_findings(g, out)

    def _splitter_findings(self, g: _Group, out: list[Finding]) -> None:
        """Rule 7: a 1:2 splitter leg carries half the lanes of the twin-port's port."""
        twin, slug = g.b_part, g.b_slug
        port = _port_speed(twin)
        if port and g.speed * 2 != port:
            out.append(
                (
                    "splitter-leg-speed",
                    f"{g.cable_slug} splits each {port}G port of {slug} into 2 legs of "
                    f"{port // 2}G; the link runs {g.speed}G (rule 7)",
                    self._suggest_fibers(g, topology="straight"),
                    None,
                )
            )
            return
        speeds = port_speeds_of(twin)
        if twin.get("breakouts") and g.speed not in speeds:
            out.append(
                (
                    "splitter-mode-unsupported",
                    f"{slug} lists {', '.join(twin['breakouts'])}, not the {g.speed}G legs of "
                    f"{g.cable_slug} (rule 7)",
                    "",
                    None,
                )
            )
        elif not twin.get("breakouts"):
            out.append(
                (
                    "splitter-mode-unsupported",
                    _unknown(f"a 4 x {g.speed}G mode (rule 7)", [slug]),
                    "",
                    "warning",
                )
            )

    def _module_speed_findings(self, g, slug, part, end, out) -> None:
        """Rule 21: the module must run the link's speed (splitter twin-ports: rule 7)."""
        topology = (g.cable or {}).get("topology") or ""
        if end is g.b and topology.startswith("1:"):
            return
        speeds = port_speeds_of(part)
        if not speeds or g.speed in speeds:
            return
        port = _port_speed(part)
        if port and g.speed * 2 == port and part.get("power_reduced_w") is not None:
            return  # 200G mode of a 400G module on a splitter leg (rule 7)
        if part.get("breakouts") or g.speed > max(speeds):
            out.append(
                (
                    "module-speed-unsupported",
                    f"{slug} runs {', '.join(f'{s}G' for s in sorted(speeds))} per port, not the "
                    f"link's {g.speed}G (rule 21)",
                    self._suggest_modules(g, end, g.b_part if end is g.a else g.a_part),
                    None,
                )
            )
        else:
            out.append(
                (
                    "module-speed-unsupported",
                    _unknown(f"a {g.speed}G mode", [slug]),
                    "",
                    "warning",
                )
            )

    def _lpo_findings(self, g, slug, part, end, out) -> None:
        dsp = part.get("dsp")
        if dsp not in ("linear", "lro"):
            return
        kind = "linear (LPO)" if dsp == "linear" else "linear-receive (LRO)"
        stated = end.stated("lpo_validated")
        if stated is False:
            out.append(
                (
                    "lpo-host-unsupported",
                    f"{slug} is a {kind} module; {end.slug} ports are not validated for LPO "
                    "(rule 25: the host must supply DSP SerDes and RS(544,514) FEC)",
                    self._suggest_modules(g, end, g.b_part if end is g.a else g.a_part),
                    None,
                )
            )
        elif stated is None:
            out.append(
                (
                    "lpo-host-unverified",
                    _unknown(f"LPO validation of the ports (host of {kind} {slug})", [end.slug]),
                    "",
                    None,
                )
            )

    def _fec_findings(self, g: _Group, out: list[Finding]) -> None:
        """Rule 26: 100G/lane PAM4 optics need the same RS-FEC mode on both hosts."""
        for slug, part in ((g.b_slug, g.b_part), (g.a_slug, g.a_part)):
            if part is None:
                continue
            lane = _num(part.get("lane_rate_gbps"))
            if lane is None or lane < 100 or part.get("modulation") not in (None, "PAM4"):
                continue
            fa, fb = g.a.stated("fec_modes"), g.b.stated("fec_modes")
            if fa is not None and fb is not None:
                if not set(fa) & set(fb):
                    out.append(
                        (
                            "host-fec-mismatch",
                            f"{slug}: {g.a.slug} runs FEC {sorted(fa)}, {g.b.slug} {sorted(fb)}; "
                            "both ends must run the same mode (rule 26)",
                            "",
                            None,
                        )
                    )
            elif fa is not None or fb is not None:
                silent = g.a.slug if fa is None else g.b.slug
                out.append(
                    (
                        "host-fec-unverified",
                        _unknown(f"the FEC mode ({slug} needs host RS-FEC, rule 26)", [silent]),
                        "",
                        None,
                    )
                )
            else:
                out.append(
                    (
                        "host-fec-unstated",
                        f"{slug} ({lane:g}G/lane PAM4) relies on host RS-FEC at both ends; "
                        f"{g.b.slug} and {g.a.slug} state no FEC mode (assumed, not verified; "
                        "rule 26)",
                        "",
                        None,
                    )
                )
            return

    def _xdr_findings(self, g: _Group, out: list[Finding]) -> None:
        """Rule 15: no QSFP112, multimode, AOC or passive DAC at 200G per lane."""
        if not self._is_xdr(g):
            return
        bad: list[tuple[str, str]] = []
        parts = [(g.a_slug, g.a_part), (g.b_slug, g.b_part)]
        for slug, part in parts:
            if part and part.get("form_factor") == "QSFP112":
                bad.append(("xdr-qsfp112", f"{slug} is QSFP112 (100G-PAM4 only)"))
            if part and part.get("media") == "mmf":
                bad.append(("xdr-multimode", f"{slug} is multimode"))
        if g.cable is not None:
            if g.cable.get("category") == "fiber" and g.cable.get("fiber_type") == "mmf":
                bad.append(("xdr-multimode", f"{g.cable_slug} is multimode fiber"))
            kind = g.cable.get("cable_type")
            if kind == "aoc":
                bad.append(("xdr-aoc", f"{g.cable_slug} is an AOC"))
            if kind == "dac":
                bad.append(("xdr-passive-dac", f"{g.cable_slug} is a passive DAC (too short)"))
        if bad:
            suggestion = self._suggest_link(g, 0.0)
            for code, text in bad:
                out.append(
                    (
                        code,
                        f"XDR (200G/lane) link: {text}; XDR takes LACC or SMF optics (rule 15)",
                        suggestion,
                        None,
                    )
                )

    def _is_xdr(self, g: _Group) -> bool:
        rates = [end.group.lane_rate_gbps for end in (g.a, g.b) if end.group]
        for part in (g.a_part, g.b_part, g.cable):
            if part:
                rates.append(part.get("lane_rate_gbps"))
        return 200 in rates

    def _cable_findings(self, g: _Group, out: list[Finding]) -> None:
        cable, slug = g.cable, g.cable_slug
        head, leg = cable_plugs_of(cable)
        errs_b = self._plug_findings(g, g.b, head, f"{slug} head", None, out)
        errs_a = self._plug_findings(g, g.a, leg, f"{slug} leg", None, out)
        if errs_a or errs_b:
            suggestion = self._suggest_cables(g)
            out.extend((code, message, suggestion, None) for code, message in errs_b + errs_a)
        legs = legs_of(cable)
        head_speed = cable.get("speed_gbps")
        leg_speed = cable.get("leg_speed_gbps") or (
            head_speed // legs if head_speed and legs else None
        )
        if head_speed and leg_speed:
            if head_speed != g.b.ppc * g.speed or leg_speed != g.a.ppc * g.speed:
                out.append(
                    (
                        "cable-breakout-mismatch",
                        f"{slug} has a {head_speed}G head and {leg_speed}G legs; the ports are "
                        f"{g.b.ppc} x {g.speed}G ({g.b.slug}) and {g.a.ppc} x {g.speed}G "
                        f"({g.a.slug}) (rule 21)",
                        self._suggest_cables(g),
                        None,
                    )
                )
        else:
            out.append(("breakout-unverified", _unknown("head or leg speed", [slug]), "", None))
        kind = cable.get("cable_type")
        if kind != "dac":
            ends = (cable.get("power_end_a_w"), cable.get("power_end_b_w"))
            if any(_num(value) is None for value in ends):
                out.append(
                    (
                        "power-unknown",
                        f"power per end unknown for {slug}: left out of the power total (rule 20)",
                        "",
                        None,
                    )
                )
        self._xdr_findings(g, out)

    # --- reach (rules 11, 12, 16) ---------------------------------------------------------------

    def _reach(self, g: _Group):
        """(limit m, code, what limits it) or None; an unknown reach is a static warning."""
        if self.fabric.link_length_m is None or g.manager or g.cable is None:
            return None
        limits: list[tuple[float, str, str]] = []
        if g.assembly:
            cable = g.cable
            lengths = [v for v in (_num(x) for x in cable.get("lengths_m") or ()) if v]
            for value, what in (
                (_num(cable.get("max_length_m")), f"{g.cable_slug} max length"),
                (max(lengths) if lengths else None, f"{g.cable_slug} longest listed length"),
            ):
                if value:
                    limits.append((value, "", what))
            kind = cable.get("cable_type")
            if not limits and kind in COPPER_REACH_M:
                limits.append((COPPER_REACH_M[kind], "", f"{kind.upper()} copper (rule 16)"))
            code = "copper-reach-exceeded" if kind in COPPER_REACH_M else "reach-exceeded"
            limits = [(value, code, what) for value, _, what in limits]
        else:
            fiber = g.cable
            grade = fiber.get("fiber_grade")
            for slug, part in ((g.a_slug, g.a_part), (g.b_slug, g.b_part)):
                if part is None:
                    continue
                by_grade = part.get("reach_by_grade") or {}
                if grade and _num(by_grade.get(grade)):
                    limits.append((float(by_grade[grade]), "reach-exceeded", f"{slug} on {grade}"))
                reach = _num(part.get("reach_m"))
                if reach:
                    limits.append((reach, "reach-exceeded", slug))
                else:
                    ieee = _ieee_reach(part, grade)
                    if ieee:
                        pmd = part.get("pmd")
                        limits.append(
                            (ieee, "ieee-reach-exceeded", f"the IEEE {pmd} class ({slug})")
                        )
            lengths = [v for v in (_num(x) for x in fiber.get("lengths_m") or ()) if v]
            for value, what in (
                (_num(fiber.get("max_length_m")), f"{g.cable_slug} max length"),
                (max(lengths) if lengths else None, f"{g.cable_slug} longest listed length"),
            ):
                if value:
                    limits.append((value, "reach-exceeded", what))
            topology = fiber.get("topology") or ""
            media = fiber.get("fiber_type") or (g.a_part or {}).get("media")
            connector = (
                (g.a_part or {}).get("connector")
                or (g.b_part or {}).get("connector")
                or fiber.get("connector_a")
            )
            splitter = topology.startswith("1:")
            cap = reach_cap_m(media, connector, splitter)
            if cap:
                kind = f"{(media or '').upper()} {connector}{' splitter' if splitter else ''}"
                limits.append((cap, "reach-exceeded", f"the rule-11 cap for {kind} links"))
        if not limits:
            return ("unknown", "reach-unknown", g.cable_slug)
        low = min(value for value, _, _ in limits)
        binding = [(code, what) for value, code, what in limits if value == low]
        codes = {code for code, _ in binding}
        code = "ieee-reach-exceeded" if "ieee-reach-exceeded" in codes else binding[0][0]
        names = []
        for _, what in binding:
            if what not in names:
                names.append(what)
        return (low, code, " and ".join(names))

    def _apply_reach(self, g: _Group, reach, chunk: np.ndarray) -> None:
        limit, code, what = reach
        if limit == "unknown":
            who = [s for s in (g.cable_slug, g.a_slug, g.b_slug) if s]
            self.out.add(code, _unknown("reach", who), links=chunk)
            return
        lengths = self.fabric.link_length_m[chunk]
        over = chunk[lengths > limit + TOLERANCE_M]
        if not over.size:
            return
        key = ("reach", id(g))
        if key not in self._suggestions:
            longest = float(self.fabric.link_length_m[g.links].max())
            self._suggestions[key] = self._suggest_link(g, longest)
        self.out.add(
            code,
            f"longer than the {limit:g} m reach of {what} "
            f"({g.b_slug or g.cable_slug} / {g.a_slug or g.cable_slug}, rule "
            f"{RULES[code].rule})",
            links=over,
            suggestion=self._suggestions[key],
        )

    def _apply_cable_length(self, chunk: np.ndarray) -> None:
        fabric = self.fabric
        if fabric.link_cable_length_m is None or fabric.link_length_m is None:
            return
        if fabric.link_cable_part is None:
            return
        short = (fabric.link_cable_length_m[chunk] < fabric.link_length_m[chunk] - TOLERANCE_M) & (
            fabric.link_cable_part[chunk] >= 0
        )
        if short.any():
            self.out.add(
                "cable-shorter-than-run",
                "the cable or fiber ordered is shorter than the cable run",
                links=chunk[short],
                suggestion="order the next listed length that covers the run",
            )

    # --- suggestions ---------------------------------------------------------------------------

    def _module_options(self, g: _Group, end: _End, other: dict | None) -> list[dict]:
        key = ("modules", end.slug, end.cage, end.ppc, g.speed, (other or {}).get("slug"))
        if key in self._suggestions:
            return self._suggestions[key]
        protocols = g.link_protocols()
        ranked = []
        for part in self.transceivers:
            plug = plug_of(part)
            problems = plug_fits_cage(plug, end.cage)
            if _errors(problems):
                continue
            speeds = port_speeds_of(part)
            if not speeds or g.speed not in speeds:
                continue
            if end.ppc % (part.get("ports_per_module") or 1):
                continue
            if protocols and plug.protocols and not (plug.protocols & protocols):
                continue
            xdr_bad = part.get("media") == "mmf" or part.get("form_factor") == "QSFP112"
            if xdr_bad and self._is_xdr(g):
                continue
            unknown = len(problems)
            if other is not None:
                pair = optics_interoperate(optic_of(part), optic_of(other))
                if _errors(pair):
                    continue
                unknown += len(pair)
                if pmd_family(part.get("pmd")) != pmd_family(other.get("pmd")):
                    continue
            ranked.append((unknown, part["slug"], part))
        ranked.sort(key=lambda item: item[:2])
        self._suggestions[key] = [part for _, _, part in ranked]
        return self._suggestions[key]

    def _suggest_modules(self, g: _Group, end: _End, other: dict | None) -> str:
        options = self._module_options(g, end, other)[:SUGGESTIONS]
        if not options:
            return ""
        names = [part["slug"] for part in options]
        return f"use {_or_list(names)} ({_describe_part(options[0])}) at the {end.slug} end"

    def _cable_options(self, g: _Group, min_reach: float) -> list[tuple[float, str]]:
        out = []
        for part in self.cables:
            head, leg = cable_plugs_of(part)
            if _errors(plug_fits_cage(head, g.b.cage)) or _errors(plug_fits_cage(leg, g.a.cage)):
                continue
            legs = legs_of(part)
            head_speed = part.get("speed_gbps")
            if not (legs and head_speed):
                continue
            leg_speed = part.get("leg_speed_gbps") or head_speed // legs
            if head_speed != g.b.ppc * g.speed or leg_speed != g.a.ppc * g.speed:
                continue
            kind = part.get("cable_type")
            if self._is_xdr(g) and kind in ("aoc", "dac"):
                continue
            lengths = [v for v in (_num(x) for x in part.get("lengths_m") or ()) if v]
            reach = [v for v in (_num(part.get("max_length_m")), max(lengths, default=None)) if v]
            if not reach and kind in COPPER_REACH_M:
                reach = [COPPER_REACH_M[kind]]
            if reach and min(reach) >= min_reach:
                out.append((min(reach), part["slug"]))
        return sorted(out)

    def _suggest_cables(self, g: _Group) -> str:
        longest = 0.0
        if self.fabric.link_length_m is not None:
            longest = float(self.fabric.link_length_m[g.links].max())
        options = self._cable_options(g, longest)[:SUGGESTIONS]
        if options:
            names = [f"{slug} ({reach:g} m)" for reach, slug in options]
            return f"use {_or_list(names)}"
        return self._suggest_link(g, longest)

    def _fiber_options(self, g, a_part, b_part, topology) -> list[dict]:
        out = []
        for fiber in self.fibers:
            if (fiber.get("topology") or "straight") != topology:
                continue
            fib = fiber_of(fiber)
            if any(_errors(fiber_fits_optic(fib, optic_of(p))) for p in (a_part, b_part) if p):
                continue
            if self._is_xdr(g) and fiber.get("fiber_type") == "mmf":
                continue
            if fiber.get("fiber_type") is None or fiber.get("connector_a") is None:
                continue
            out.append(fiber)
        return out

    def _suggest_fibers(self, g: _Group, topology: str | None = None) -> str:
        topology = topology or (g.cable or {}).get("topology") or "straight"
        options = self._fiber_options(g, g.a_part, g.b_part, topology)[:SUGGESTIONS]
        if not options:
            return self._suggest_link(g, 0.0)
        kind = f"{topology} {(options[0].get('fiber_type') or '').upper()}"
        return f"use {_or_list([f['slug'] for f in options])} ({kind})"

    def _suggest_link(self, g: _Group, min_reach: float) -> str:
        """Catalog optics (b + a over a fiber) or cables that fit both ends and reach."""
        key = ("link", g.a.slug, g.a.cage, g.a.ppc, g.b.slug, g.b.cage, g.b.ppc, g.speed, min_reach)
        if key in self._suggestions:
            return self._suggestions[key]
        options: list[tuple[tuple, str]] = []
        topology = (g.cable or {}).get("topology") or "straight"
        if topology not in ("straight", "1:2"):
            topology = "straight"
        for b_part in self._module_options(g, g.b, None)[:12]:
            for a_part in self._module_options(g, g.a, b_part)[:6]:
                for fiber in self._fiber_options(g, a_part, b_part, topology)[:2]:
                    reach = self._triple_reach(a_part, b_part, fiber, topology)
                    if reach is not None and reach >= min_reach:
                        text = (
                            f"{b_part['slug']} + {a_part['slug']} over {fiber['slug']} "
                            f"({reach:g} m)"
                        )
                        options.append(((0, reach, text), text))
        for reach, slug in self._cable_options(g, min_reach):
            options.append(((1, reach, slug), f"{slug} ({reach:g} m)"))
        options.sort()
        texts = []
        for _, text in options:
            if text not in texts:
                texts.append(text)
        result = f"use {_or_list(texts[:2])}" if texts else ""
        self._suggestions[key] = result
        return result

    @staticmethod
    def _triple_reach(a_part, b_part, fiber, topology) -> float | None:
        grade = fiber.get("fiber_grade")
        values = []
        for part in (a_part, b_part):
            reach = _num(part.get("reach_m")) or _ieee_reach(part, grade)
            if reach:
                values.append(reach)
        lengths = [v for v in (_num(x) for x in fiber.get("lengths_m") or ()) if v]
        for value in (_num(fiber.get("max_length_m")), max(lengths, default=None)):
            if value:
                values.append(value)
        cap = reach_cap_m(
            fiber.get("fiber_type"),
            a_part.get("connector") or fiber.get("connector_a"),
            topology.startswith("1:"),
        )
        if cap:
            values.append(cap)
        return min(values) if values else None

    # --- per module and per cable (rules 8 and 21) ------------------------------------------

    def _module_rules(self) -> None:
        self.scopes.add("module")
        fabric, facts = self.fabric, self.facts
        count = fabric.link_count
        if fabric.link_a_module is None or fabric.link_b_module is None or not count:
            self._cable_capacity()
            return
        links = np.concatenate([np.arange(count), np.arange(count)])
        modules = np.concatenate([fabric.link_a_module, fabric.link_b_module]).astype(np.int64)
        parts = np.concatenate([fabric.link_a_part, fabric.link_b_part]).astype(np.int64)
        keep = (modules >= 0) & self.valid[links]
        links, modules, parts = links[keep], modules[keep], parts[keep]
        if not links.size:
            self._cable_capacity()
            return
        order = np.argsort(modules, kind="stable")
        links, modules, parts = links[order], modules[order], parts[order]
        _, start, sizes = np.unique(modules, return_index=True, return_counts=True)
        per_link = np.repeat(np.arange(start.size), sizes)
        conflict = np.minimum.reduceat(parts, start) != np.maximum.reduceat(parts, start)
        if conflict.any():
            self.out.add(
                "module-part-conflict",
                "links that share a module (one cage) were given different parts",
                links=links[conflict[per_link]],
            )
        # Power total: one module per id.
        watts = [_power(facts.parts.get(slug) or {}) for slug in fabric.parts]
        power = np.array([np.nan if w is None else w for w in watts] + [np.nan])
        module_power = power[np.where(parts[start] >= 0, parts[start], -1)]
        self.power["modules_w"] += float(np.nansum(module_power))
        self.power["unknown_modules"] += int(np.isnan(module_power).sum())
        # Rule 8: both ports of a twin-port module on one fiber type, speed and length.
        cable_part = fabric.link_cable_part
        if cable_part is None:
            return
        topo = np.full(len(fabric.parts) + 1, -1, dtype=np.int64)
        for i, slug in enumerate(fabric.parts):
            part = facts.parts.get(slug) or {}
            if part.get("category") == "fiber":
                topo[i + 1] = {"straight": 1}.get(part.get("topology"), 0) or (legs_of(part) or -1)
        fibered = cable_part[links] >= 0
        multi = sizes > 1
        if not multi.any():
            self._cable_capacity()
            return
        sel = fibered & multi[per_link]
        if sel.any():
            l2, m2 = links[sel], per_link[sel]
            _, s2, n2 = np.unique(m2, return_index=True, return_counts=True)
            ok = n2 > 1
            t = topo[cable_part[l2].astype(np.int64) + 1]
            speed = fabric.link_speed_gbps[l2]
            cab = cable_part[l2].astype(np.int64)
            mixed = (np.minimum.reduceat(t, s2) != np.maximum.reduceat(t, s2)) | (
                np.minimum.reduceat(speed, s2) != np.maximum.reduceat(speed, s2)
            )
            mixed &= ok
            differ = (np.minimum.reduceat(cab, s2) != np.maximum.reduceat(cab, s2)) & ok & ~mixed
            expand = np.repeat(np.arange(s2.size), n2)
            if mixed.any():
                self.out.add(
                    "twin-port-mixed-fibers",
                    "the ports of one twin-port module use different fiber types or speeds "
                    "(straight and 1:2 splitter): the switch port runs either 2 x 400G or "
                    "4 x 200G, so both ports take the same fiber type (rule 8)",
                    links=l2[mixed[expand]],
                    suggestion="use the same fiber on both ports (both straight or both splitter)",
                )
            if differ.any():
                names = sorted({fabric.parts[int(c)] for c in cab[differ[expand]]})
                self.out.add(
                    "twin-port-fiber-parts-differ",
                    f"the ports of one twin-port module use different fiber parts "
                    f"({', '.join(names)}); both should be the same type (rule 8)",
                    links=l2[differ[expand]],
                )
            if fabric.link_length_m is not None:
                length = fabric.link_length_m[l2].astype(np.float64)
                skew = np.maximum.reduceat(length, s2) - np.minimum.reduceat(length, s2)
                skew = np.where(ok, skew, 0.0)
                far = skew > LENGTH_SKEW_M
                if far.any():
                    self.out.add(
                        "twin-port-length-skew",
                        f"the two fibers of a twin-port module differ by more than "
                        f"{LENGTH_SKEW_M:g} m (4.5 ns/m of skew; rule 8: roughly equal lengths)",
                        links=l2[far[expand]],
                    )
        self._cable_capacity()

    def _cable_capacity(self) -> None:
        """More links on one cable or fiber than it has legs (rule 21)."""
        fabric, facts = self.fabric, self.facts
        if fabric.link_cable is None or fabric.link_cable_part is None:
            return
        cable = fabric.link_cable.astype(np.int64)
        keep = (cable >= 0) & (fabric.link_cable_part >= 0) & self.valid
        if not keep.any():
            return
        links = np.flatnonzero(keep)
        capacity = np.zeros(len(fabric.parts), dtype=np.int64)
        head = np.zeros(len(fabric.parts), dtype=np.int64)
        for i, slug in enumerate(fabric.parts):
            part = facts.parts.get(slug) or {}
            if part.get("category") == "fiber":
                capacity[i] = legs_of(part) or 0
            elif part.get("category") == "cable":
                head[i] = part.get("speed_gbps") or 0
                capacity[i] = legs_of(part) or 0
        parts = fabric.link_cable_part[links].astype(np.int64)
        speed = fabric.link_speed_gbps[links].astype(np.int64)
        # Power of cable assemblies: one head and its legs per cable id (rule 20).
        watts = np.full(len(fabric.parts), np.nan)
        for i, slug in enumerate(fabric.parts):
            part = facts.parts.get(slug) or {}
            if part.get("category") == "cable":
                ends = (_num(part.get("power_end_a_w")), _num(part.get("power_end_b_w")))
                if None not in ends:
                    watts[i] = ends[0] + (legs_of(part) or 1) * ends[1]
        cap = np.where(head[parts] > 0, head[parts] // np.maximum(speed, 1), capacity[parts])
        ids, first, inverse, counts = np.unique(
            cable[links], return_index=True, return_inverse=True, return_counts=True
        )
        self.power["cable_ends_w"] += float(np.nansum(watts[parts[first]]))
        first_cap = cap[first]
        over = (counts > first_cap) & (first_cap > 0)
        if over.any():
            bad = links[over[inverse]]
            names = sorted({fabric.parts[int(p)] for p in fabric.link_cable_part[bad]})
            self.out.add(
                "fiber-legs-exceeded",
                f"more links share one {', '.join(names)} than it has legs (rule 21)",
                links=bad,
            )

    # --- fabric checks ---------------------------------------------------------------------------

    def _fabric_checks(self) -> None:
        self.scopes.add("fabric")
        fabric = self.fabric
        n = fabric.node_count
        valid = self.valid
        bad = np.flatnonzero(~valid)
        if bad.size:
            self.out.add(
                "dangling-link",
                "link to a node that does not exist, or from a node to itself",
                links=bad,
            )
        links = np.flatnonzero(valid)
        if not links.size or not n:
            return
        a, b = fabric.link_a[links].astype(np.int64), fabric.link_b[links].astype(np.int64)
        self._role_checks(links, a, b)
        self._port_checks(links, a, b)
        self._rail_checks(links, a, b)
        up_tiers = {tier: links[fabric.link_tier[links] == TIER[tier]] for tier in TIER_NAMES}
        self._oversubscription(up_tiers)
        self._balance(up_tiers)
        self._server_spof(links, a, b)
        self._reachability(links, a, b)

    def _role_checks(self, links, a, b) -> None:
        fabric = self.fabric
        role_a, role_b = fabric.node_role[a], fabric.node_role[b]
        tiers = fabric.link_tier[links]
        wrong = np.zeros(links.size, dtype=bool)
        for tier, (lower, upper) in TIER_ROLES.items():
            fits = np.isin(role_a, [ROLE[r] for r in lower]) & (role_b == ROLE[upper])
            wrong |= (tiers == TIER[tier]) & ~fits
        if wrong.any():
            self.out.add(
                "link-roles-mismatch",
                "the link's tier does not match the roles of its ends (a = lower tier)",
                links=links[wrong],
            )

    def _port_checks(self, links, a, b) -> None:
        fabric = self.fabric
        n = fabric.node_count
        ports = fabric.node_ports.astype(np.int64)
        nodes = np.concatenate([a, b])
        port = np.concatenate([fabric.link_a_port[links], fabric.link_b_port[links]]).astype(
            np.int64
        )
        both = np.concatenate([links, links])
        out_of_range = (port < 0) | (port >= ports[nodes])
        if out_of_range.any():
            self.out.add(
                "port-out-of-range",
                "link on a port the device does not have (port number above its port count)",
                links=both[out_of_range],
                nodes=nodes[out_of_range],
            )
        width = int(max(port.max(initial=0), ports.max(initial=0))) + 2
        key = nodes * width + (port + 1)
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        dup = np.zeros(key.size, dtype=bool)
        same = sorted_key[1:] == sorted_key[:-1]
        dup[order[1:][same]] = True
        dup[order[:-1][same]] = True
        if dup.any():
            self.out.add(
                "port-used-twice",
                "a port is used by two links",
                links=both[dup],
                nodes=np.unique(nodes[dup]),
            )
        ends = np.bincount(nodes, minlength=n)
        over = np.flatnonzero(ends > ports)
        if over.size:
            self.out.add("too-many-links", "more links than ports on a device", nodes=over)
        isolated = np.flatnonzero(ends == 0)
        if isolated.size:
            self.out.add("isolated-node", "node without any link", nodes=isolated)
        # Logical ports against the catalog model's ports at the node's link speed.
        speed = np.zeros(n, dtype=np.int64)
        speed[nodes] = np.concatenate([fabric.link_speed_gbps[links]] * 2)
        for model_index, slug in enumerate(fabric.models):
            model = self.facts.devices.get(slug)
            if model is None or model.category != "switch":
                continue
            members = np.flatnonzero(
                (fabric.node_model == model_index) & np.isin(fabric.node_role, _switch_codes())
            )
            for value in np.unique(speed[members]):
                if value <= 0:
                    continue
                radix = model.radix_at(int(value))
                sel = members[(speed[members] == value) & (ports[members] > radix)]
                if radix and sel.size:
                    self.out.add(
                        "ports-exceed-model",
                        f"{slug} has {radix} ports at {int(value)}G; the fabric gives it more",
                        nodes=sel,
                    )

    def _rail_checks(self, links, a, b) -> None:
        fabric = self.fabric
        if fabric.info.get("topology") != "rail-optimized":
            return
        planes = int(fabric.info.get("planes") or 1)
        server = (fabric.node_role[a] == ROLE["server"]) & (fabric.node_role[b] == ROLE["leaf"])
        if not server.any():
            return
        sl, sa, sb = links[server], a[server], b[server]
        port = fabric.link_a_port[sl].astype(np.int64)
        rail, plane = port // planes, port % planes
        wrong = (
            (fabric.node_rail[sb] != rail)
            | (fabric.node_su[sb] != fabric.node_su[sa])
            | (fabric.node_plane[sb] != plane)
        )
        if not wrong.any():
            return
        first = int(np.flatnonzero(wrong)[0])
        leaves = fabric.nodes_with_role("leaf")
        want = leaves[
            (fabric.node_rail[leaves] == rail[first])
            & (fabric.node_su[leaves] == fabric.node_su[sa[first]])
            & (fabric.node_plane[leaves] == plane[first])
        ]
        where = fabric.node_name[int(want[0])] if want.size else "its rail leaf"
        suggestion = (
            f"re-cable: {fabric.node_name[int(sa[first])]} port {int(port[first]) + 1} goes to "
            f"{fabric.node_name[int(sb[first])]}; it belongs on {where}"
        )
        self.out.add(
            "rail-mismatch",
            "a GPU's NIC lands on a leaf of another rail, SU or plane (rail-optimized: rail r of "
            "every server of an SU goes to that SU's rail-r leaf)",
            links=sl[wrong],
            nodes=np.unique(sa[wrong]),
            suggestion=suggestion,
        )

    def _oversubscription(self, tiers: dict[str, np.ndarray]) -> None:
        fabric = self.fabric
        info = fabric.info
        n = fabric.node_count
        speed = fabric.link_speed_gbps.astype(np.float64)
        design = info.get("oversubscription") or {}
        for role, down_tier, up_tier in (
            ("leaf", "server-leaf", "leaf-spine"),
            ("spine", "leaf-spine", "spine-core"),
        ):
            down_links, up_links = tiers[down_tier], tiers[up_tier]
            nodes = fabric.nodes_with_role(role)
            if not (nodes.size and down_links.size and up_links.size):
                continue  # nothing above this tier
            down = np.bincount(fabric.link_b[down_links], weights=speed[down_links], minlength=n)
            up = np.bincount(fabric.link_a[up_links], weights=speed[up_links], minlength=n)
            down, up = down[nodes], up[nodes]
            lonely = nodes[(up == 0) & (down > 0)]
            if lonely.size:
                self.out.add(
                    "leaf-no-uplinks",
                    f"{role} with downlinks but no uplinks: its servers reach nothing else",
                    nodes=lonely,
                )
            target = _num(design.get(role))
            if target is None:
                continue
            has = (up > 0) & (down > 0)
            ratio = np.divide(down, up, out=np.zeros_like(down), where=up > 0)
            above = nodes[has & (ratio > target * (1 + RATIO_TOLERANCE) + 1e-9)]
            if above.size:
                worst = float(ratio[has].max())
                self.out.add(
                    "oversubscription-above-design",
                    f"{role} downlink:uplink capacity reaches {worst:.3g}:1; the design "
                    f"(fabric.info) is {target:g}:1",
                    nodes=above,
                    suggestion=f"add uplinks to these {role}s or move downlinks away",
                )
            elif has.any() and float(ratio[has].max()) < target * (1 - RATIO_TOLERANCE):
                self.out.add(
                    "oversubscription-below-design",
                    f"every {role} is below the design {target:g}:1 (built at most "
                    f"{float(ratio[has].max()):.3g}:1)",
                    nodes=nodes[has][:1],
                )

    def _balance(self, tiers: dict[str, np.ndarray]) -> None:
        """ECMP: a leaf has equal links to every spine of its pod; a spine to every core of
        its group (the pod's / group's switch set = those its peers reach)."""
        fabric = self.fabric
        n = fabric.node_count
        for lower_role, tier, upper_role in (
            ("leaf", "leaf-spine", "spine"),
            ("spine", "spine-core", "core"),
        ):
            links = tiers[tier]
            if not links.size:
                continue
            lower = fabric.link_a[links].astype(np.int64)
            upper = fabric.link_b[links].astype(np.int64)
            pairs, counts = np.unique(lower * n + upper, return_counts=True)
            pair_lower, pair_upper = pairs // n, pairs % n
            nodes, start, distinct = np.unique(pair_lower, return_index=True, return_counts=True)
            low = np.minimum.reduceat(counts, start)
            high = np.maximum.reduceat(counts, start)
            unbalanced = nodes[low != high]
            if unbalanced.size:
                self.out.add(
                    "ecmp-unbalanced",
                    f"a {lower_role} has unequal numbers of links to the {upper_role}s it "
                    "reaches (ECMP spreads flows evenly, so the busiest link limits it)",
                    nodes=unbalanced,
                    suggestion=f"give each {lower_role} the same number of links to each "
                    f"{upper_role} of its pod or group",
                )
            pod = fabric.node_plane[nodes].astype(np.int64) * (n + 1) + (
                fabric.node_group[nodes].astype(np.int64) + 1
            )
            pod_of_pair = np.repeat(pod, distinct)
            pod_pairs = np.unique(pod_of_pair * n + pair_upper)
            pods, pod_size = np.unique(pod_pairs // n, return_counts=True)
            size = pod_size[np.searchsorted(pods, pod)]
            incomplete = nodes[distinct < size]
            if incomplete.size:
                self.out.add(
                    "ecmp-incomplete",
                    f"a {lower_role} is not linked to every {upper_role} of its pod or group",
                    nodes=incomplete,
                )
            single = nodes[distinct < 2]
            if single.size:
                self.out.add(
                    "spof-single-uplink",
                    f"a {lower_role} reaches one {upper_role} only: that {upper_role} or its "
                    "links are a single point of failure",
                    nodes=single,
                )
            lonely_pods = pods[pod_size < 2]
            if lonely_pods.size:
                members = nodes[np.isin(pod, lonely_pods)]
                self.out.add(
                    "spof-single-spine",
                    f"a pod or group has one {upper_role}: it is a single point of failure",
                    nodes=np.unique(pair_upper[np.isin(pod_of_pair, lonely_pods)]),
                    example=f"{fabric.node_name[int(members[0])]} and its peers",
                )

    def _server_spof(self, links, a, b) -> None:
        fabric = self.fabric
        n = fabric.node_count
        mask = (fabric.node_role[a] == ROLE["server"]) & (fabric.node_role[b] == ROLE["leaf"])
        if not mask.any():
            return
        pairs = np.unique(a[mask] * n + b[mask])
        servers, distinct = np.unique(pairs // n, return_counts=True)
        per_server = np.bincount(a[mask], minlength=n)[servers]
        single = servers[(distinct == 1) & (per_server > 1)]
        if single.size:
            self.out.add(
                "spof-server-single-leaf",
                "all of a server's rails land on one leaf: that leaf is a single point of "
                "failure for its GPUs",
                nodes=single,
            )

    def _reachability(self, links, a, b) -> None:
        fabric = self.fabric
        n = fabric.node_count
        servers = fabric.nodes_with_role("server")
        if not servers.size:
            return
        ends = np.bincount(np.concatenate([a, b]), minlength=n)
        ports = fabric.node_ports.astype(np.int64)
        short = servers[ends[servers] < ports[servers]]
        if short.size:
            self.out.add(
                "server-ports-unconnected",
                "a server has compute ports without a link: the GPUs behind them cannot reach "
                "the fabric",
                nodes=short,
            )
        planes = np.unique(fabric.link_plane[links])
        disconnected = []
        for plane in planes:
            sel = fabric.link_plane[links] == plane
            parent = _components(n, a[sel], b[sel])
            present = np.zeros(n, dtype=bool)
            present[a[sel]] = True
            present[b[sel]] = True
            members = servers[present[servers]]
            if members.size < 2:
                continue
            labels = parent[members]
            values, counts = np.unique(labels, return_counts=True)
            if values.size > 1:
                main = values[np.argmax(counts)]
                disconnected.append(members[labels != main])
        if disconnected:
            self.out.add(
                "gpus-disconnected",
                "some servers cannot reach the others through their plane: not every GPU pair "
                "is connected",
                nodes=np.unique(np.concatenate(disconnected)),
            )


def _switch_codes() -> list[int]:
    return [ROLE[role] for role in SWITCH_ROLES]


def _lanes_per_connector(part: dict) -> int | None:
    lanes = part.get("lanes")
    if not lanes:
        return None
    per = part.get("connector_count") or part.get("ports_per_module") or 1
    return int(lanes) // int(per) if int(lanes) % int(per) == 0 else None


def _row_groups(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Group rows by the values of ``columns``: (order of rows by group, rows per group)."""
    key = np.zeros(columns[0].shape[0], dtype=np.int64)
    span = 1
    for column in columns:
        column = column.astype(np.int64)
        low = int(column.min())
        width = int(column.max()) - low + 1
        if span * width >= 2**62:
            key = np.unique(key, return_inverse=True)[1].astype(np.int64)
            span = int(key.max()) + 1
        key = key * width + (column - low)
        span *= width
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return np.argsort(inverse, kind="stable"), counts


def _components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Union-find with NumPy: each node's root (the smallest node of its component).

    Roots hook onto the smaller root of every link, then paths are compressed; a Clos has a
    small diameter, so few rounds are needed.

    Examples
    --------
    >>> _components(5, np.array([0, 3]), np.array([1, 4])).tolist()
    [0, 0, 2, 3, 3]
    """
    parent = np.arange(n, dtype=np.int64)
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    while True:
        pa, pb = parent[a], parent[b]
        differ = pa != pb
        if not differ.any():
            return parent
        low = np.minimum(pa[differ], pb[differ])
        high = np.maximum(pa[differ], pb[differ])
        np.minimum.at(parent, high, low)
        while True:
            jumped = parent[parent]
            if np.array_equal(jumped, parent):
                break
            parent = jumped


def validate_fabric(
    fabric: Fabric, facts: CatalogFacts, *, on_progress: Progress = None
) -> ValidationReport:
    """Check every link against the compatibility rules and the fabric's wiring.

    Parameters
    ----------
    fabric : Fabric
        A built fabric; media and layout columns are used when present.
    facts : CatalogFacts
        The catalog the fabric was built from.
    on_progress : callable, optional
        ``on_progress(done, total)`` in links, at least every tenth of the links.

    Returns
    -------
    ValidationReport
        Grouped problems; ``as_dict()`` gives ``{"problems": [...], "summary": {...}}``.
    """
    return _Validator(fabric, facts, on_progress).run()


__all__ = ["MAX_IDS", "Problem", "ValidationReport", "validate_fabric"]
