"""The links of the cluster's other networks (storage, converged, in-band, out-of-band; issue 18).

A fabric whose spec has a ``networks`` block (``fabric.settings.networks``) gets its networks'
concrete devices and links stored with it
(:func:`planner.domain.networks.elements.network_elements`); these checks judge them. A
fabric without networks costs one dict lookup: the 100k-GPU compute fabric validates as before.

Checks (codes in :data:`~planner.analyses.rules_catalog.RULES`, scope ``network``):

- **reach** (:func:`network_reach`): a link's run against its cable's reach: a twisted-pair
  (RJ45, Cat5e/Cat6) run at most :data:`BASE_T_CHANNEL_M` (the 1000BASE-T channel), a
  DAC/AOC its catalog ``max_length_m`` or longest listed length (a DAC of no stated length
  the rule-16 copper reach), a fibre its modules' reach and the rule-11 cap. Runs whose
  length is not known (``run_length_m`` None: an end outside the plan, such as a storage
  array) are one ``network-length-unknown`` note per network, never a guess;
- **parts** (:func:`network_parts`), where the catalog knows the parts: the switch has ports
  at the link's speed (``network-port-speed``); the cable or module carries the link's
  speed per port (``network-cable-speed``); the plug fits the switch's cage
  (:func:`inventory.library.compat.plug_fits_cage`, the single authority on fit): another
  form-factor family, finned against flat-top, a module in an RJ45 jack, a twin-port
  mismatch, no shared protocol or too much power is ``network-plug-cage-mismatch``; a plug of
  another generation of the same family, or rated faster or at another lane rate than the
  cage, that the link runs below its rating (the reference architecture's 200G QSFP56 AOC on
  a 100G QSFP28 port, its HDR splitters on NDR cages) is ``network-plug-cage-unverified``:
  the catalog does not state that mode. Only data ports of switches are judged (numbered
  ports; a ``mgmt`` or ``bmc`` port has no cage in the catalog), and facts the catalog lacks
  are left alone;
- **pairs** (:func:`network_pairs`): a leaf pair (MLAG: the leaves joined by ISLs) is two
  distinct switches, and each leaf has ISLs to one peer only; in a network whose settings say
  ``dual_homed``, each node's ports reach two different leaves, and where the network has
  leaf pairs, the two leaves of one pair (a bond across unpaired leaves does not form);
- **wiring** (:func:`network_wiring`): every link end names a device of the design, no link
  joins a device to itself, and no device port carries two links.

Element ids: ``node:<device name>`` (a network device, or a compute node by its fabric name)
and ``netlink:<i>``, the link's index in ``ClusterElements.links`` (the canvas's id of the
same link).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

from inventory.library.compat import Plug, plug_fits_cage
from planner.analyses.validate.context import Context
from planner.analyses.validate.parts import ieee_reach_m, num, or_list
from planner.analyses.validate.registry import register
from planner.domain.fabric import FabricError
from planner.domain.names import ARROW, end_text
from planner.domain.networks.elements import network_elements
from planner.domain.part_facts import (
    COPPER_REACH_M,
    cable_plugs_of,
    end_cage,
    plug_of,
    reach_cap_m,
)

SCOPE = "network"
#: The 1000BASE-T channel: up to 100 m of Category 5 (5e, 6) balanced cabling, e.g. 90 m of
#: fixed cable and 5 m of patch cord at each end. IEEE 802.3ab (IEEE 802.3 clause 40) over
#: the ANSI/TIA-568 channel; as quoted by http://www.aptsa.co.za/cat5.html ("cables are still
#: limited to a maximum of 100 m") and the catalog's Cat5e-Cat6-RJ45-patch-cord record
#: (grade secondary).
BASE_T_CHANNEL_M = 100.0
TOLERANCE_M = 1e-3
NETWORK_SWITCH_ROLES = frozenset({"leaf", "storage-leaf", "spine", "core", "switch"})
LEAF_ROLES = frozenset({"leaf", "storage-leaf"})
#: compat findings that are mechanical or electrical facts: the plug does not go or work.
FIT_ERRORS = frozenset(
    {
        "top-mismatch",
        "rj45-no-module",
        "host-part-in-switch",
        "port-count-mismatch",
        "protocol-mismatch",
        "module-power-over-cage",
    }
)
#: compat findings about rate that a plug run below its rating may not meet: not decided by
#: the catalog's facts when the link runs slower than the plug.
RATE_FINDINGS = frozenset({"lane-rate-mismatch", "speed-above-cage", "form-factor-mismatch"})
_DATA_PORT = re.compile(r"^\d+(/\d+)?$")
_ELEMENTS = "network-elements"


def _elements(ctx: Context):
    """The networks' elements of the fabric (built once per run), or None."""
    if _ELEMENTS not in ctx.memo:
        ctx.memo[_ELEMENTS] = None
        if ctx.fabric.settings.networks:
            try:
                elements = network_elements(ctx.fabric, ctx.facts)
            except FabricError:
                elements = None  # an old revision whose networks no longer build
            if elements is not None and elements.links:
                ctx.memo[_ELEMENTS] = _Index(ctx, elements)
                ctx.scopes.add(SCOPE)
    return ctx.memo[_ELEMENTS]


class _Index:
    """The elements with what the checks share, computed once: devices by name, the switches'
    models, leaves by network, which port names are data ports, settings."""

    def __init__(self, ctx: Context, elements):
        self.elements = elements
        self.facts = ctx.facts
        self.devices = {device.name: device for device in elements.devices}
        self.compute = set(ctx.fabric.node_name)
        self.settings = {
            name: (plan or {}).get("settings") or {}
            for name, plan in (ctx.fabric.settings.networks or {}).items()
        }
        categories = {
            slug: model.category for slug, model in ctx.facts.devices.items() if model.category
        }
        #: switch name -> model, for every device that is a switch (any network)
        self.switches = {
            d.name: d.model
            for d in elements.devices
            if d.role in NETWORK_SWITCH_ROLES or categories.get(d.model) == "switch"
        }
        #: leaf name -> its network (leaves of the networks' own, not the compute fabric's)
        self.leaves = {
            d.name: d.network
            for d in elements.devices
            if d.role in LEAF_ROLES and d.network != "compute"
        }
        self._data_port: dict[str, bool] = {}

    @staticmethod
    def link_id(index: int) -> str:
        return f"netlink:{index}"

    @staticmethod
    def node_id(name: str) -> str:
        return f"node:{name}"

    def is_switch(self, name: str) -> bool:
        return name in self.switches

    def model(self, name: str) -> str:
        device = self.devices.get(name)
        return device.model if device is not None else ""

    def data_port(self, port: str) -> bool:
        """A numbered port (``17``, ``2/1``), not ``mgmt`` or ``bmc`` (cached by name)."""
        known = self._data_port.get(port)
        if known is None:
            known = self._data_port[port] = bool(_DATA_PORT.match(port or ""))
        return known


def _describe(link) -> str:
    a, b = end_text(link.a_device, str(link.a_port)), end_text(link.b_device, str(link.b_port))
    return f"{a} {ARROW} {b} ({link.network}, {link.group})"


def _add(ctx: Context, code: str, message: str, ids: list[str], example: str = "", **kw):
    if ids:
        ctx.out.add(code, message, ids=ids, example=example, **kw)


# --- reach -------------------------------------------------------------------------------------


def _reach(index: _Index, link) -> tuple[float, str, str] | None:
    """(limit m, code, what limits it) of a link's cable, or None when nothing states one."""
    facts = index.facts
    part = facts.parts.get(link.cable_part) if link.cable_part else None
    kind = (link.cable_kind or "").strip().lower()
    limits: list[tuple[float, str, str]] = []
    twisted = kind.startswith("cat") or (
        part is not None and str(part.get("end_a_form_factor") or "").upper() == "RJ45"
    )
    if twisted:
        limits.append((BASE_T_CHANNEL_M, "network-copper-reach-exceeded", "the 1000BASE-T channel"))
    if part is not None:
        listed = [v for v in (num(x) for x in part.get("lengths_m") or ()) if v]
        for value, what in (
            (num(part.get("max_length_m")), f"{link.cable_part} max length"),
            (max(listed) if listed else None, f"{link.cable_part} longest listed length"),
        ):
            if value:
                code = "network-copper-reach-exceeded" if twisted else "network-reach-exceeded"
                limits.append((value, code, what))
        cable_type = str(part.get("cable_type") or "")
        if not limits and cable_type in COPPER_REACH_M:
            limits.append(
                (
                    COPPER_REACH_M[cable_type],
                    "network-copper-reach-exceeded",
                    f"{cable_type.upper()} copper (rule 16)",
                )
            )
        if part.get("category") == "fiber":
            limits += _optics_limits(facts, link, part)
    if not limits:
        return None
    low = min(value for value, _, _ in limits)
    binding = [(code, what) for value, code, what in limits if value == low]
    return low, binding[0][0], " and ".join(dict.fromkeys(what for _, what in binding))


def _optics_limits(facts, link, fiber: dict) -> list[tuple[float, str, str]]:
    grade = fiber.get("fiber_grade")
    limits = []
    modules = [
        (slug, facts.parts.get(slug)) for slug in (link.a_transceiver, link.b_transceiver) if slug
    ]
    for slug, part in modules:
        if not part:
            continue
        by_grade = part.get("reach_by_grade") or {}
        if grade and num(by_grade.get(grade)):
            limits.append((float(by_grade[grade]), "network-reach-exceeded", f"{slug} on {grade}"))
        reach_m = num(part.get("reach_m")) or ieee_reach_m(part, grade)
        if reach_m:
            limits.append((reach_m, "network-reach-exceeded", slug))
    media = fiber.get("fiber_type")
    connector = next((p.get("connector") for _, p in modules if p and p.get("connector")), None)
    splitter = str(fiber.get("topology") or "").startswith("1:") or bool(link.assembly)
    cap = reach_cap_m(media, connector or fiber.get("connector_a"), splitter)
    if cap:
        limits.append((cap, "network-reach-exceeded", f"the rule-11 cap for {media} links"))
    return limits


@register(
    stage="fabric",
    order=900,
    codes=(
        "network-copper-reach-exceeded",
        "network-reach-exceeded",
        "network-reach-unknown",
        "network-length-unknown",
    ),
)
def network_reach(ctx: Context) -> None:
    """Each network link no longer than its cable's reach (see the module docstring)."""
    index = _elements(ctx)
    if index is None:
        return
    unknown_length: dict[str, list[str]] = defaultdict(list)
    first: dict[str, str] = {}
    reaches: dict[tuple, tuple | None] = {}
    for i, link in enumerate(index.elements.links):
        if link.run_length_m is None or not math.isfinite(float(link.run_length_m)):
            unknown_length[link.network].append(index.link_id(i))
            first.setdefault(link.network, _describe(link))
            continue
        key = (link.cable_part, link.cable_kind, link.a_transceiver, link.b_transceiver)
        key += (bool(link.assembly),)
        if key not in reaches:
            reaches[key] = _reach(index, link)
        limit = reaches[key]
        if limit is None:
            who = [s for s in (link.cable_part, link.a_transceiver, link.b_transceiver) if s]
            _add(
                ctx,
                "network-reach-unknown",
                f"cannot be verified: reach unknown for {' and '.join(who) or link.cable_kind} "
                f"({link.network} {link.group})",
                [index.link_id(i)],
                _describe(link),
            )
            continue
        limit_m, code, what = limit
        if float(link.run_length_m) > limit_m + TOLERANCE_M:
            _add(
                ctx,
                code,
                f"{link.network} {link.group}: longer than the {limit_m:g} m reach of {what}",
                [index.link_id(i)],
                _describe(link),
                suggestion="shorten the run (place the devices closer) or choose a part "
                "that reaches; a copper RJ45 run over 100 m needs fibre or a switch between",
            )
    for network, ids in unknown_length.items():
        _add(
            ctx,
            "network-length-unknown",
            f"{network}: run lengths unknown (an end outside the plan, or a device the layout "
            "does not place), so reach and the 100 m limit of 1000BASE-T copper runs are not "
            "checked for these links",
            ids,
            first[network],
        )


# --- parts: speeds and cages -------------------------------------------------------------------


def _family(form_factor: str | None) -> str:
    """The mechanical family of a form factor (a QSFP56 plug goes into a QSFP28 cage)."""
    text = (form_factor or "").upper()
    for family in ("OSFP", "QSFP", "SFP", "RJ45"):
        if text.startswith(family):
            return family
    return text


def _head_at_b(index: _Index, link, legs: dict[str, list]) -> bool:
    """Whether a multi-leg cable's head (the end its legs share) is the link's B end."""
    members = legs.get(link.assembly) or [link]
    cages_b = {(m.b_device, m.b_port.split("/")[0]) for m in members}
    cages_a = {(m.a_device, m.a_port.split("/")[0]) for m in members}
    return len(cages_b) <= len(cages_a)


def _end_plugs(index: _Index, link, head_at_b: bool) -> tuple[Plug | None, Plug | None]:
    """The plugs at the link's A and B ends: its modules, else its cable's ends."""
    facts = index.facts
    plugs: list[Plug | None] = [None, None]
    cable = facts.parts.get(link.cable_part) if link.cable_part else None
    if cable is not None and cable.get("category") == "cable":
        head, leg = cable_plugs_of(cable)
        plugs = [leg, head] if (link.assembly and head_at_b) else [head, leg]
    elif cable is not None and cable.get("category") == "transceiver":
        plugs = [plug_of(cable), plug_of(cable)]
    for end, slug in enumerate((link.a_transceiver, link.b_transceiver)):
        module = facts.parts.get(slug) if slug else None
        if module is not None and module.get("category") == "transceiver":
            plugs[end] = plug_of(module)
    return plugs[0], plugs[1]


def _plug_text(plug: Plug) -> str:
    twin = "twin-port " if plug.ports == 2 else ""
    speed = f"{plug.speed_gbps}G " if plug.speed_gbps else ""
    return f"{speed}{twin}{plug.form_factor or ''} {plug.label.rsplit(' ', 1)[0]}".strip()


def _end_findings(index: _Index, link, device: str, port: str, plug: Plug | None) -> list:
    """(code, message) findings of one switch end of a link."""
    if not index.is_switch(device) or not index.data_port(port):
        return []
    slug = index.switches[device]
    model = index.facts.devices.get(slug)
    if model is None or not model.port_groups:
        return []  # the catalog lists no ports: nothing to judge
    speed = int(link.speed_gbps) if float(link.speed_gbps).is_integer() else link.speed_gbps
    if not model.radix_at(speed):
        speeds = sorted({g.port_speed_gbps for g in model.port_groups if g.port_speed_gbps})
        listed = or_list([f"{s}G" for s in speeds]) or "no stated speed"
        return [
            (
                "network-port-speed",
                f"{slug} has no {speed}G port ({listed} listed): {link.network} {link.group}",
            )
        ]
    out = []
    if plug is not None and plug.speed_gbps:
        per_port = plug.speed_gbps / max(1, plug.ports)
        if speed > per_port:
            out.append(
                (
                    "network-cable-speed",
                    f"{_plug_text(plug)} carries {per_port:g}G per port; the {link.network} "
                    f"{link.group} links run at {speed}G",
                )
            )
    if plug is None:
        return out
    _, _, cage = end_cage(index.facts, slug, speed)
    found = plug_fits_cage(plug, cage)
    where = f"{slug} {cage.form_factor or ''} cage".replace("  ", " ")
    mechanical = [
        v
        for v in found
        if v.severity == "error"
        and (
            v.code in FIT_ERRORS
            or (
                v.code == "form-factor-mismatch"
                and _family(plug.form_factor) != _family(cage.form_factor)
            )
        )
    ]
    rate = [v for v in found if v.severity == "error" and v.code in RATE_FINDINGS]
    rate = [v for v in rate if v not in mechanical]
    for violation in mechanical:
        out.append(
            (
                "network-plug-cage-mismatch",
                f"{_plug_text(plug)} in the {where}: {violation.message}",
            )
        )
    if rate and not mechanical:
        below = (plug.speed_gbps and speed < plug.speed_gbps / max(1, plug.ports)) or (
            cage.port_speed_gbps and speed < cage.port_speed_gbps
        )
        text = " ".join(v.message for v in rate)
        if below:
            out.append(
                (
                    "network-plug-cage-unverified",
                    f"cannot be verified: {_plug_text(plug)} in the {where} at {speed}G, below "
                    f"the plug's or the cage's rating; the catalog does not state that mode "
                    f"({text})",
                )
            )
        else:
            out.extend(
                (
                    "network-plug-cage-mismatch",
                    f"{_plug_text(plug)} in the {where}: {v.message}",
                )
                for v in rate
            )
    return out


@register(
    stage="fabric",
    order=910,
    codes=(
        "network-port-speed",
        "network-cable-speed",
        "network-plug-cage-mismatch",
        "network-plug-cage-unverified",
    ),
)
def network_parts(ctx: Context) -> None:
    """Speeds and cages of the network links' switch ends, where the catalog knows the parts."""
    index = _elements(ctx)
    if index is None:
        return
    links = index.elements.links
    switches, data_port = index.switches, index.data_port
    legs: dict[str, list] = defaultdict(list)
    for link in links:
        if link.assembly:
            legs[link.assembly].append(link)
    heads: dict[str, bool] = {}
    memo: dict[tuple, list] = {}
    found: dict[tuple[str, str], tuple[list[str], str]] = {}
    for i, link in enumerate(links):
        ends = []
        if link.a_device in switches and data_port(link.a_port):
            ends.append((link.a_device, link.a_port, 0))
        if link.b_device in switches and data_port(link.b_port):
            ends.append((link.b_device, link.b_port, 1))
        if not ends:
            continue
        head_at_b = False
        if link.assembly:
            if link.assembly not in heads:
                heads[link.assembly] = _head_at_b(index, link, legs)
            head_at_b = heads[link.assembly]
        for device, port, end in ends:
            key = (
                switches[device],
                end,
                head_at_b,
                link.speed_gbps,
                link.cable_part,
                link.a_transceiver,
                link.b_transceiver,
                bool(link.assembly),
                link.network,
                link.group,
            )
            findings = memo.get(key)
            if findings is None:
                plug = _end_plugs(index, link, head_at_b)[end]
                findings = memo[key] = _end_findings(index, link, device, port, plug)
            for code, message in findings:
                ids, _ = found.setdefault((code, message), ([], _describe(link)))
                ids.append(index.link_id(i))
    for (code, message), (ids, example) in found.items():
        _add(ctx, code, message, ids, example)


# --- pairs: MLAG and dual homing ---------------------------------------------------------------


@register(
    stage="fabric",
    order=920,
    codes=(
        "network-leaf-pair",
        "network-dual-homing-single-leaf",
        "network-dual-homing-unpaired",
    ),
)
def network_pairs(ctx: Context) -> None:
    """Leaf pairs of two distinct switches; dual-homed nodes on two leaves of one pair."""
    index = _elements(ctx)
    if index is None:
        return
    leaves, data_port = index.leaves, index.data_port
    peers: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    isl_ids: dict[str, list[str]] = defaultdict(list)
    homes: dict[str, dict[str, list[tuple[int, str]]]] = defaultdict(lambda: defaultdict(list))
    for i, link in enumerate(index.elements.links):
        network = link.network
        a_net, b_net = leaves.get(link.a_device), leaves.get(link.b_device)
        if a_net == b_net == network:
            if link.a_device == link.b_device:
                continue  # a link to itself: network-dangling-link
            if not (data_port(link.a_port) and data_port(link.b_port)):
                continue
            peers[network][link.a_device].add(link.b_device)
            peers[network][link.b_device].add(link.a_device)
            isl_ids[link.a_device].append(index.link_id(i))
            isl_ids[link.b_device].append(index.link_id(i))
        elif b_net == network and a_net is None and link.group == "node-leaf":
            homes[network][link.a_device].append((i, link.b_device))
    for network in index.elements.networks():
        pairs = peers.get(network, {})
        for leaf in sorted(pairs):
            if len(pairs[leaf]) > 1:
                _add(
                    ctx,
                    "network-leaf-pair",
                    f"{network}: a leaf pair (MLAG) is two switches; {leaf} has ISLs to "
                    f"{len(pairs[leaf])} leaves ({', '.join(sorted(pairs[leaf]))})",
                    [index.node_id(leaf), *isl_ids[leaf]],
                    leaf,
                )
        if not index.settings.get(network, {}).get("dual_homed"):
            continue
        single: list[str] = []
        unpaired: list[str] = []
        for node, ends in homes.get(network, {}).items():
            homed = {leaf for _, leaf in ends}
            if len(ends) >= 2 and len(homed) == 1:
                single += [index.node_id(node)] + [index.link_id(i) for i, _ in ends]
            elif pairs and len(homed) == 2:
                first, second = sorted(homed)
                if second not in pairs.get(first, ()):
                    unpaired += [index.node_id(node)] + [index.link_id(i) for i, _ in ends]
        _add(
            ctx,
            "network-dual-homing-single-leaf",
            f"{network}: dual-homed nodes (networks.{network}.dual_homed) with every port on "
            "one leaf",
            single,
        )
        _add(
            ctx,
            "network-dual-homing-unpaired",
            f"{network}: dual-homed nodes whose two leaves are not one leaf pair (no ISL "
            "joins them), so their bonded ports cannot form one link aggregate",
            unpaired,
        )


# --- wiring ------------------------------------------------------------------------------------


@register(
    stage="fabric",
    order=930,
    codes=("network-dangling-link", "network-port-used-twice"),
)
def network_wiring(ctx: Context) -> None:
    """Every network link between two devices of the design, and one link per port."""
    index = _elements(ctx)
    if index is None:
        return
    links = index.elements.links
    names = index.devices.keys() | index.compute
    dangling = [
        i
        for i, link in enumerate(links)
        if link.a_device == link.b_device
        or link.a_device not in names
        or link.b_device not in names
    ]
    _add(
        ctx,
        "network-dangling-link",
        "network link to a device that does not exist, or from a device to itself",
        [index.link_id(i) for i in dangling],
        _describe(links[dangling[0]]) if dangling else "",
    )
    bad = set(dangling)
    counts = Counter((link.a_device, link.a_port) for link in links)
    counts.update((link.b_device, link.b_port) for link in links)
    twice = {end for end, n in counts.items() if n > 1}
    if not twice:
        return
    ids: list[str] = []
    for i, link in enumerate(links):
        if i in bad:
            continue
        for end in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            if end in twice:
                ids += [index.node_id(end[0]), index.link_id(i)]
    device, port = min(twice)
    _add(
        ctx,
        "network-port-used-twice",
        "network device port used by two links",
        list(dict.fromkeys(ids)),
        f"{end_text(device, str(port))}: {counts[(device, port)]} links",
    )


__all__ = ["BASE_T_CHANNEL_M", "network_pairs", "network_parts", "network_reach"]
