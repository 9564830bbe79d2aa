"""InfiniBand or RoCEv2 for one design: the same spec built with each transport's switches,
compared on cost, power, features and a flow simulation, each with its reasons and sources.

Pure (no Django). :func:`compare_transports` takes a revision's spec document and the catalog;
:func:`price_comparison` prices the two bills of materials at a price book (a separate step, so
that callers without the price right never compute a price, and a cached comparison is priced
at the book's current offers).

How the other side is built
---------------------------
The spec is rebuilt twice through :func:`planner.domain.pipeline.build_fabric`: as written (the
design's transport) and with every switch model replaced by its counterpart of the other
transport (:func:`counterpart_switch`), at the same link speeds, with the ``transport`` block
left out (so its settings are the defaults of the new switches' profile) and explicit media
parts replaced by ``auto`` (an InfiniBand part may not fit an Ethernet cage). The cluster's
other networks (storage, in-band, out-of-band) are the same either way and are left out, as are
the servers: the figures are the compute fabric's switches, NICs (catalog cards only: on-board
NICs are part of the server), transceivers, cables and fibers.

Counterpart rule (inferred, ours): among the catalog's switches of the other protocol that run
the tier's link speed, the one with the same lane rate at that speed (same SerDes generation,
so the same class of optics), then the same maker, then a published typical power (so power
compares), then the nearest capacity, then the slug. QM9700/QM9790 (Quantum-2, 51.2 Tb/s,
100G-PAM4) and SN5600 (Spectrum-4, 51.2 Tb/s, 100G-PAM4, 2 x 400G per 800G port) pair this way.

Flow simulation
---------------
The same collective (:data:`TRAFFIC`, a ring all-reduce ordered rail by rail as NCCL does,
:data:`SIZE_BYTES`) runs on each side's fabric under that transport's routings
(:data:`TRANSPORT_ROUTINGS`): InfiniBand adaptive routing and static d-mod-k forwarding;
RoCE ECMP (per-flow hash) and packet spraying (Spectrum-X adaptive routing). The design's own
setting (``fabric.settings.transport``) is marked. Modes are looked up by name in
:data:`planner.analyses.flow.ROUTINGS`; the InfiniBand AR and spraying modes have their own
names (``ib-ar``, ``spraying``) where the flow engine has them, else the older ``adaptive``
(packet spraying's equal split, which is also InfiniBand AR's fluid limit on a healthy Clos).

Size cap
--------
Above :data:`FULL_SIZE_MAX_GPUS` GPUs nothing is built or simulated (a page must stay fast): the
result names the switches each side would use, the features, and says so.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal

from planner.analyses.power import power_budget
from planner.domain.catalog import CatalogFacts, CatalogLookupError, DeviceModel
from planner.domain.fabric import ROLE, SWITCH_ROLES, Fabric, FabricError
from planner.domain.outputs.bom import BillOfMaterials, bill_of_materials
from planner.domain.outputs.quote import PriceTable, bom_cost, network_of
from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, parse_spec
from planner.domain.transport.resolve import nic_of_server
from planner.domain.transport.settings import nic_capabilities, nic_family

from .transport_features import (
    FULL_SIZE_MAX_GPUS,
    PROTOCOL,
    SIZE_BYTES,
    TRAFFIC,
    TRANSPORT_NAMES,
    TRANSPORTS,
    Counterpart,
    FlowRun,
    Side,
    TransportComparison,
    _features,
    _reasons,
    _switch_slugs,
)

__all__ = [
    "COST_CATEGORIES",
    "TRANSPORT_ROUTINGS",
    "compare_transports",
    "counterpart_switch",
    "price_comparison",
]

#: Candidates tried in turn for the other side when a build with one fails (media, radix).
ATTEMPTS = 3
#: Bill-of-materials categories the cost compares (servers and racks are the same either way).
COST_CATEGORIES = ("switch", "nic", "transceiver", "cable", "fiber")
COST_GROUPS = {
    "switch": "switches",
    "nic": "NICs",
    "transceiver": "optics",
    "cable": "cables and fibers",
    "fiber": "cables and fibers",
}


# --- Counterparts -----------------------------------------------------------------------------


def _transport_of(model: DeviceModel | None) -> str | None:
    protocols = set(model.protocols if model else ())
    if "infiniband" in protocols and "ethernet" not in protocols:
        return "infiniband"
    if "ethernet" in protocols:
        return "roce"
    return None


def _lane_rate_at(model: DeviceModel, speed_gbps: int) -> int | None:
    group = model.group_at(speed_gbps)
    return group.lane_rate_gbps if group else None


def _capacity(facts: CatalogFacts, slug: str) -> float | None:
    value = (facts.parts.get(slug) or {}).get("capacity_tbps")
    return float(value) if isinstance(value, int | float) else None


def counterpart_switch(
    facts: CatalogFacts, original: str, speed_gbps: int, transport: str, *, role: str = "leaf"
) -> Counterpart:
    """The switch of ``transport`` that takes ``original``'s place at ``speed_gbps`` (the
    module's counterpart rule); ``chosen`` None, with the reason, when no catalog switch of that
    transport runs the speed.

    Examples
    --------
    >>> from planner.domain.catalog import PortGroup
    >>> facts = CatalogFacts(devices={
    ...     "IB": DeviceModel("IB", "switch", (PortGroup(32, 2, 400, lane_rate_gbps=100),),
    ...                       protocols=("infiniband",)),
    ...     "ETH": DeviceModel("ETH", "switch", (PortGroup(64, 1, 800, lane_rate_gbps=100,
    ...                        breakouts=("2x400G",)),), protocols=("ethernet",))},
    ...     parts={"IB": {"slug": "IB"}, "ETH": {"slug": "ETH"}})
    >>> counterpart_switch(facts, "IB", 400, "roce").chosen
    'ETH'

    Long because: the counterpart rule's ordered tie-breaks (lane rate, maker, power, capacity,
    slug), each with the reason it gives.
    """
    model = facts.devices.get(original)
    wanted = PROTOCOL[transport]
    lane = _lane_rate_at(model, speed_gbps) if model else None
    maker = (facts.parts.get(original) or {}).get("manufacturer")
    capacity = _capacity(facts, original)
    candidates = []
    for slug in _switch_slugs(facts):
        candidate = facts.devices[slug]
        if wanted not in candidate.protocols or not candidate.radix_at(speed_gbps):
            continue
        part = facts.parts.get(slug) or {}
        other_capacity = _capacity(facts, slug)
        distance = (
            abs(other_capacity - capacity)
            if other_capacity is not None and capacity is not None
            else float("inf")
        )
        key = (
            0 if lane and _lane_rate_at(candidate, speed_gbps) == lane else 1,
            0 if maker and part.get("manufacturer") == maker else 1,
            0 if candidate.power_typical_w else 1,
            distance,
            slug,
        )
        candidates.append((key, slug))
    if not candidates:
        return Counterpart(
            role,
            original,
            None,
            speed_gbps,
            f"no {TRANSPORT_NAMES[transport]} switch in the catalog runs {speed_gbps}G ports",
        )
    candidates.sort()
    key, chosen = candidates[0]
    best = facts.devices[chosen]
    group = best.group_at(speed_gbps)
    ports = best.radix_at(speed_gbps)
    split = group.split_at(speed_gbps) if group else 1
    how = f"{ports:,} ports at {speed_gbps}G"
    if group and split > 1:
        how += f" ({group.ports:,} x {group.port_speed_gbps}G split {split} x {speed_gbps}G)"
    why = []
    if key[0] == 0:
        why.append(f"{_lane_rate_at(best, speed_gbps)}G lanes like {original}")
    if key[1] == 0:
        why.append("same maker")
    if key[2] == 0:
        why.append(f"typical power {best.power_typical_w:,g} W published")
    if key[3] == 0:
        why.append("same capacity")
    elif key[3] != float("inf"):
        why.append(f"nearest capacity ({_capacity(facts, chosen):g} Tb/s)")
    name = (facts.parts.get(chosen) or {}).get("name") or chosen
    reason = f"{name}: {how}" + (f"; {', '.join(why)}" if why else "")
    return Counterpart(
        role,
        original,
        chosen,
        speed_gbps,
        reason,
        tuple(slug for _, slug in candidates[1:]),
    )


# --- Building ---------------------------------------------------------------------------------


def _speeds(spec, facts: CatalogFacts) -> tuple[int | None, int | None]:
    """(server-leaf, switch-to-switch) link speeds of a spec, as the generators choose them."""
    server = facts.devices.get(spec.server)
    port = server.port_speed_gbps if server else None
    if not port:
        return None, None
    speed = port // spec.planes if spec.planes and port % spec.planes == 0 else port
    return speed, spec.uplink_speed_gbps or speed


def _current_transport(spec, facts: CatalogFacts) -> str:
    block = spec.transport
    kind = block if isinstance(block, str) else (block or {}).get("type")
    if kind in TRANSPORTS:
        return kind
    return _transport_of(facts.devices.get(spec.leaf)) or "roce"


def _roles(spec) -> dict[str, str]:
    return {role: getattr(spec, role) for role in SWITCH_ROLES if getattr(spec, role)}


def _other_document(
    document: dict, counterparts: tuple[Counterpart, ...]
) -> tuple[dict, list[str]]:
    """The spec document with the other transport's switches, no transport block and
    explicit media parts made ``auto``; the notes of what changed."""
    doc = copy.deepcopy(document)
    doc.pop("transport", None)
    doc["switches"] = {c.role: c.chosen for c in counterparts}
    notes = []
    for tier, choice in list((doc.get("media") or {}).items()):
        if isinstance(choice, dict):
            doc["media"][tier] = "auto"
            notes.append(
                f"media.{tier}: the design's explicit parts are replaced by auto for this build"
            )
    return doc, notes


def _counts(fabric: Fabric) -> dict[str, int]:
    return {
        role: int((fabric.node_role == ROLE[role]).sum())
        for role in SWITCH_ROLES
        if (fabric.node_role == ROLE[role]).any()
    }


def _models_in(fabric: Fabric, role: str) -> list[str]:
    used = sorted({int(m) for m in fabric.node_model[fabric.node_role == ROLE[role]]})
    return [fabric.models[m] for m in used]


def _compute_bom(fabric: Fabric, facts: CatalogFacts) -> BillOfMaterials:
    bom = bill_of_materials(fabric, facts)
    lines = tuple(
        line
        for line in bom.lines
        if line.category in COST_CATEGORIES and network_of(line.tier) == "compute"
    )
    return BillOfMaterials(lines=lines, spares_pct={}, notes=bom.notes)


def _quantities(bom: BillOfMaterials) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in bom.lines:
        group = COST_GROUPS[line.category]
        out[group] = out.get(group, 0) + line.quantity
    return out


def _power(fabric: Fabric, facts: CatalogFacts) -> dict:
    report = power_budget(fabric, facts).as_dict()
    unknown = report.get("unknown") or {}
    switches = {
        slug: count
        for slug, count in (unknown.get("devices") or {}).items()
        if (facts.devices.get(slug) and facts.devices[slug].category == "switch")
    }
    return {
        "switches_w": report["by_category"]["switches"],
        "transceivers_w": report["by_category"]["transceivers"],
        "cables_w": report["by_category"]["cables"],
        "network_w": report["network_w"],
        "network_w_per_gpu": report["network_w_per_gpu"],
        "unknown_switches": switches,
        "unknown_transceivers": dict(unknown.get("transceivers") or {}),
        "unknown_cables": dict(unknown.get("cables") or {}),
        "unknown_estimate_w": unknown.get("estimate_w") or 0.0,
        "figures": dict(report.get("figures") or {}),
    }


def _routing_names():
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses import flow

    return tuple(flow.ROUTINGS), dict(getattr(flow, "ROUTING_LABELS", {}))


def _mode(*names: str) -> str | None:
    modes, _ = _routing_names()
    return next((name for name in names if name in modes), None)


#: Per transport: (key, mode names in order of preference, label, why it is run).
TRANSPORT_ROUTINGS = {
    "infiniband": (
        (
            "ar",
            ("ib-ar", "adaptive"),
            "InfiniBand adaptive routing",
            "opensm's default (ar_updn): the switch picks the least loaded minimal-hop port",
        ),
        (
            "static",
            ("rail",),
            "Static forwarding (d-mod-k)",
            "adaptive routing off: one port per destination in the forwarding tables",
        ),
    ),
    "roce": (
        (
            "ecmp",
            ("ecmp",),
            "ECMP (per-flow hash)",
            "standard RoCEv2: one path per queue pair, chosen by hashing",
        ),
        (
            "spraying",
            ("spraying", "adaptive"),
            "Packet spraying (Spectrum-X adaptive routing)",
            "per-packet spreading over the equal-cost ports; the NICs reorder",
        ),
    ),
}


def _configured_key(transport: str, settings: dict | None) -> str | None:
    """Which run of :data:`TRANSPORT_ROUTINGS` the side's settings choose (None: neither)."""
    if not settings:
        return None
    if transport == "infiniband":
        ib = settings.get("infiniband") or {}
        return "ar" if ib.get("adaptive_routing") else "static"
    balancing = (settings.get("roce") or {}).get("load_balancing")
    return {"ecmp": "ecmp", "adaptive": "spraying", "spraying": "spraying"}.get(balancing)


def _flows(fabric: Fabric, transport: str, settings: dict | None, nic: dict) -> list[FlowRun]:
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.scenario import run_scenario

    configured = _configured_key(transport, settings)
    runs = []
    for key, names, label, why in TRANSPORT_ROUTINGS[transport]:
        mode = _mode(*names)
        if mode is None:
            continue
        note = why
        if key == "spraying" and nic.get("adaptive_routing") is not True:
            note += (
                f"; the design's NICs ({nic.get('family_name') or 'unknown'}) are not listed as "
                "reordering sprayed packets, so this figure assumes SuperNICs"
            )
        result = run_scenario(
            fabric, traffic=TRAFFIC, routing=mode, size_bytes=SIZE_BYTES, summary_only=True
        )
        runs.append(
            FlowRun(
                routing=mode,
                label=label,
                configured=key == configured,
                busbw_gbps=round(float(result["busbw_gbps"]), 3),
                bound_busbw_gbps=round(float(result["bound_busbw_gbps"]), 3),
                efficiency=None
                if result.get("efficiency") is None
                else round(float(result["efficiency"]), 4),
                completion_time_s=float(result["completion_time_s"]),
                max_link_utilization=round(float(result["max_link_utilization"]), 4),
                note=note,
            )
        )
    if configured is None and settings:
        balancing = (settings.get("roce") or {}).get("load_balancing")
        if balancing:
            runs = [replace(r, note=f"{r.note} (the design asks for {balancing})") for r in runs]
    return runs


def _nic(facts: CatalogFacts, server: str, transport: str) -> dict:
    """What the catalog says of the server's compute NIC for ``transport``."""
    key, name, _maker = nic_of_server(facts, server)
    record = facts.parts.get(key) or {}
    card = record.get("category") == "nic"
    family = nic_family(key, name)
    adaptive, modes, source = nic_capabilities(key, name)
    protocols = list(record.get("protocols") or []) if card else []
    family_name = {
        "connectx-9": "ConnectX-9",
        "connectx-8": "ConnectX-8",
        "connectx-7": "ConnectX-7",
        "bluefield-3-supernic": "BlueField-3 SuperNIC",
        "bluefield-3-dpu": "BlueField-3 DPU",
    }.get(family) or (str(record.get("name") or key) if card else f"on-board NICs of {server}")
    if card:
        speaks = PROTOCOL[transport] in protocols
        grade = ((record.get("provenance") or {}).get("protocols") or {}).get("grade")
        runs = f"{record.get('name') or key} lists {', '.join(protocols) or 'no protocol'}" + (
            f" ({grade})" if grade else ""
        )
    else:
        speaks = family in ("connectx-7", "connectx-8", "connectx-9") or None
        runs = f"on-board NICs of {server}" + (
            f" ({family_name}, runs InfiniBand or Ethernet)" if speaks else ""
        )
    limits = [
        str(limit.get("message"))
        for limit in record.get("limits") or ()
        if isinstance(limit, dict) and limit.get("protocol") == PROTOCOL[transport]
    ]
    return {
        "part": key if card else None,
        "name": name,
        "card": card,
        "family": family,
        "family_name": family_name,
        "speaks_transport": speaks,
        "runs": runs,
        "adaptive_routing": adaptive,
        "multiplane_modes": list(modes),
        "capability_source": source,
        "limits": limits,
    }


def _side(
    transport: str,
    document: dict,
    facts: CatalogFacts,
    *,
    current: bool,
    counterparts: tuple[Counterpart, ...],
    price_of,
    build: bool,
    notes: list[str],
) -> Side:
    spec = parse_spec(document)
    switches = _roles(spec)
    nic = _nic(facts, spec.server, transport)
    if not build:
        return Side(transport, current, switches, counterparts, nic=nic, notes=tuple(notes))
    missing = [c for c in counterparts if c.chosen is None]
    if missing:
        return Side(
            transport,
            current,
            switches,
            counterparts,
            nic=nic,
            error="; ".join(c.reason for c in missing),
            notes=tuple(notes),
        )
    try:
        fabric = build_fabric(spec, facts, price_of=price_of)
    except FabricError as exc:
        where = f"{exc.field}: " if exc.field else ""
        return Side(
            transport,
            current,
            switches,
            counterparts,
            nic=nic,
            error=f"{where}{exc}",
            notes=tuple(notes),
        )
    except (SpecError, CatalogLookupError) as exc:
        message = str(exc.args[0]) if exc.args else str(exc)  # a KeyError's str() quotes it
        return Side(
            transport, current, switches, counterparts, nic=nic, error=message, notes=tuple(notes)
        )
    transport_settings = fabric.settings.transport
    settings = transport_settings.as_dict() if transport_settings else None
    counts = _counts(fabric)
    counterparts = tuple(c for c in counterparts if c.role in counts)
    bom = _compute_bom(fabric, facts)
    used = {role: ", ".join(_models_in(fabric, role)) for role in SWITCH_ROLES}
    return Side(
        transport=transport,
        current=current,
        switches={role: used[role] for role in counts},
        counterparts=counterparts,
        switch_counts=counts,
        nic=nic,
        bom=bom,
        quantities=_quantities(bom),
        power=_power(fabric, facts),
        flows=tuple(_flows(fabric, transport, settings, nic)),
        settings=settings,
        gpus=fabric.info.get("gpus"),
        notes=tuple(notes),
    )


def _other_side(
    transport: str,
    document: dict,
    facts: CatalogFacts,
    counterparts: tuple[Counterpart, ...],
    *,
    price_of,
    build: bool,
) -> Side:
    """The other transport's side: built with the counterparts, and when the fabric cannot be
    built with them (no media for a run, a radix that does not fit), with the next candidates
    of the same rule (up to :data:`ATTEMPTS` in all), saying which failed and why."""
    failed: list[str] = []
    previous = None
    for attempt in range(ATTEMPTS):
        chosen = tuple(_nth_candidate(facts, c, attempt) for c in counterparts)
        if previous is not None and chosen == previous.counterparts:
            break  # no other candidate left
        doc, notes = _other_document(document, chosen)
        side = _side(
            transport,
            doc,
            facts,
            current=False,
            counterparts=chosen,
            price_of=price_of,
            build=build,
            notes=failed + notes,
        )
        if not side.error or not build or any(c.chosen is None for c in chosen):
            return side
        models = ", ".join(sorted({str(c.chosen) for c in chosen}))
        failed.append(f"Not built with {models}: {side.error}")
        previous = side
    return previous


def _nth_candidate(facts: CatalogFacts, counterpart: Counterpart, n: int) -> Counterpart:
    """``counterpart`` (n = 0) or its n-th alternative by the same rule (the last one when
    there are fewer)."""
    ranked = (counterpart.chosen, *counterpart.alternatives)
    if n == 0 or counterpart.chosen is None:
        return counterpart
    n = min(n, len(ranked) - 1)
    if n == 0:
        return counterpart
    slug = ranked[n]
    name = (facts.parts.get(slug) or {}).get("name") or slug
    return replace(
        counterpart,
        chosen=slug,
        reason=f"{name}: the next switch by the same rule ({', '.join(ranked[:n])} could not "
        "be built)",
        alternatives=tuple(ranked[n + 1 :]),
    )


def compare_transports(
    document: dict,
    facts: CatalogFacts,
    *,
    price_of: Callable[[str], float | None] | None = None,
    gpus: int | None = None,
    max_gpus: int = FULL_SIZE_MAX_GPUS,
    current_counts: dict[str, int] | None = None,
) -> TransportComparison:
    """InfiniBand and RoCEv2 builds of the spec ``document`` (see the module docstring).

    Parameters
    ----------
    document
        A design spec (a revision's stored spec; its ``networks`` block is left out).
    facts
        The catalog.
    price_of
        ``price_of(slug)`` for the media choice of the builds (as the design was built), or None.
    gpus
        The design's GPU count when known: above ``max_gpus`` nothing is built.
    max_gpus
        The size cap (:data:`FULL_SIZE_MAX_GPUS`).
    current_counts
        Switches per role of the stored design (its summary's ``switches``): when the design
        is not built, they say which roles it uses.

    Raises
    ------
    SpecError
        The document is not a spec (e.g. the empty spec of a design drawn on the canvas).

    Long because: it builds both sides, caps them, and assembles the comparison record from them;
    each step is a call, the record is many fields.
    """
    document = {k: v for k, v in document.items() if k != "networks"}
    spec = parse_spec(document)
    current = _current_transport(spec, facts)
    other = TRANSPORTS[1 - TRANSPORTS.index(current)]
    speed, up_speed = _speeds(spec, facts)
    counterparts = []
    chosen: dict[str, Counterpart] = {}
    for role, slug in _roles(spec).items():
        role_speed = speed if role == "leaf" else up_speed
        key = (slug, role_speed)
        if key not in chosen:
            chosen[key] = counterpart_switch(facts, slug, role_speed or 0, other, role=role)
        counterparts.append(replace(chosen[key], role=role))
    counterparts = tuple(counterparts)
    capped = gpus is not None and gpus > max_gpus
    build = not capped
    notes = []
    if capped:
        notes.append(
            f"This design has {gpus:,} GPUs: the comparison builds and simulates designs of up "
            f"to {max_gpus:,} GPUs, so only the switch choices and features are shown."
        )
    mine = _side(
        current,
        document,
        facts,
        current=True,
        counterparts=(),
        price_of=price_of,
        build=build,
        notes=[],
    )
    theirs = _other_side(
        other, document, facts, counterparts, price_of=price_of, build=build and not mine.error
    )
    sides = {current: mine, other: theirs}
    if mine.error and build:
        notes.append(
            f"The design's own build fails ({mine.error}), so the other side is not built either."
        )
    if capped and current_counts:
        mine = sides[current]
        roles = {role: n for role, n in current_counts.items() if role in mine.switches}
        sides[current] = replace(
            mine,
            switches={role: mine.switches[role] for role in roles},
            switch_counts=roles,
        )
    pair = (sides["infiniband"], sides["roce"])
    built_gpus = gpus if gpus is not None else sides[current].gpus
    return TransportComparison(
        current=current,
        sides=pair,
        features=tuple(_features(pair, facts, speed)),
        reasons=_reasons(pair, facts, speed, up_speed),
        gpus=built_gpus,
        capped=capped,
        max_gpus=max_gpus,
        notes=tuple(notes),
    )


# --- Features and reasons ---------------------------------------------------------------------


# --- Prices -----------------------------------------------------------------------------------


def price_comparison(comparison: TransportComparison, table: PriceTable, *, currency: str) -> dict:
    """Both sides' bills of materials at ``table``'s new-condition offers in ``currency`` (no
    discount or margin): per cost group and in total, with the unpriced parts (never counted as
    zero) and the parts whose prices make the difference. Only for users with the price right.

    A difference (RoCE minus InfiniBand) is given only where both sides are fully priced: per
    group in ``differences`` (``None`` where a side has unpriced lines in it), and in total as
    ``difference`` (``None`` unless both bills are complete); ``difference_priced_only`` is the
    difference of the priced lines' totals, whatever is missing. Amounts are strings with two
    decimals (exact).

    Long because: one loop over both sides' lines that prices them per cost group, with the
    unpriced parts, then the difference between the two sides.
    """

    def money(value: Decimal | None) -> str | None:
        return None if value is None else f"{value:.2f}"

    out = {
        "currency": currency,
        "sides": {},
        "differences": [],
        "difference": None,
        "difference_priced_only": None,
    }
    totals, complete, by_group = {}, {}, {}
    for side in comparison.sides:
        if side.bom is None:
            out["sides"][side.transport] = None
            continue
        quote = bom_cost(side.bom, table=table, currency=currency)
        groups: dict[str, Decimal] = {}
        unpriced_groups: dict[str, int] = {}
        parts: dict[str, dict] = {}
        for line in quote.lines:
            group = COST_GROUPS[line.line.category]
            groups.setdefault(group, Decimal("0.00"))
            if line.priced:
                groups[group] += line.extended_cost
                entry = parts.setdefault(
                    line.line.part,
                    {
                        "part": line.line.part,
                        "name": line.line.name,
                        "group": group,
                        "quantity": 0,
                        "unit": money(line.unit_cost),
                        "cost": Decimal("0.00"),
                    },
                )
                entry["quantity"] += line.line.quantity
                entry["cost"] += line.extended_cost
            else:
                unpriced_groups[group] = unpriced_groups.get(group, 0) + 1
        biggest = sorted(parts.values(), key=lambda p: (-p["cost"], p["part"]))[:5]
        totals[side.transport] = quote.cost_total
        complete[side.transport] = quote.complete
        by_group[side.transport] = {
            group: None if unpriced_groups.get(group) else cost for group, cost in groups.items()
        }
        out["sides"][side.transport] = {
            "groups": [
                {
                    "group": group,
                    "cost": money(cost),
                    "unpriced_lines": unpriced_groups.get(group, 0),
                }
                for group, cost in groups.items()
            ],
            "total": money(quote.cost_total),
            "complete": quote.complete,
            "status": quote.status,
            "unpriced_parts": list(quote.unpriced_parts),
            "largest": [{**p, "cost": money(p["cost"])} for p in biggest],
        }
    if len(totals) == 2:
        ib, roce = by_group["infiniband"], by_group["roce"]
        for group in dict.fromkeys(COST_GROUPS.values()):
            if group not in ib and group not in roce:
                continue
            a, b = ib.get(group, Decimal("0.00")), roce.get(group, Decimal("0.00"))
            out["differences"].append(
                {
                    "group": group,
                    "difference": None if a is None or b is None else money(b - a),
                    "comparable": a is not None and b is not None,
                }
            )
        out["difference_priced_only"] = money(totals["roce"] - totals["infiniband"])
        if complete["infiniband"] and complete["roce"]:
            out["difference"] = out["difference_priced_only"]
    return out
