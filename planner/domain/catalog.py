"""What the generators need to know about catalog parts, as plain dataclasses.

The Django side builds these from catalog rows (``planner.designs.adapters``); tests build them from
the seed YAML with :func:`models_from_records`. Nothing here imports Django.

Optics facts (issue 19)
-----------------------
A transceiver's record in :attr:`CatalogFacts.parts` carries its optical budget facts under
the keys of :data:`inventory.library.facts.OPTICS_FACT_KEYS`: ``phy``, ``channel_il_max_db``
({fiber grade: dB}), ``reach_m_by_grade``, ``tx_avg_min_dbm``, ``rx_avg_min_dbm`` (per lane),
``fec``, ``linear``, ``host_serdes_note`` and ``rated_with_patch_panels`` (None, ``""`` or 0
when unknown; see :func:`inventory.library.facts.optics_facts_of`).

Latency facts (issue 23)
------------------------
Every record carries its spec's ``latency_ns``, ``forwarding_mode`` and
``propagation_ns_per_m`` (None when unknown); :func:`inventory.library.facts.latency_facts_of`
reads them (a fibre or passive DAC adds 0 ns beyond propagation) and a switch's
:class:`DeviceModel` has ``latency_ns`` and ``forwarding_mode``. The analysis is
:mod:`planner.analyses.latency`. The reference table of
fiber attenuation, mated-pair and splice losses is :attr:`CatalogFacts.optics`, an
:class:`inventory.library.optics.OpticsTable` (the seed's ``optics.yaml`` unless given):
``facts.optics.attenuation_db_per_km("OM4", "worst")``, ``facts.optics.mated_pair_db(
"mpo12-apc", "typical")``, ``facts.optics.splice_db("smf")``, or its plain dicts
``fiber_grades``, ``connectors``, ``splices`` with ``provenance`` per value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inventory.library.facts import (
    data_groups,
    failure_facts_of,
    latency_facts_of,
    optics_facts_of,
)
from inventory.library.optics import OpticsTable, seed_optics
from inventory.library.rules import parse_breakout


class CatalogLookupError(KeyError):
    """A spec names a part the catalog does not have (or not of the right category)."""


@dataclass(frozen=True)
class PortGroup:
    """Identical cages of one device: ``count`` cages of ``ports_per_cage`` logical ports."""

    count: int
    ports_per_cage: int = 1
    port_speed_gbps: int | None = None
    form_factor: str | None = None
    top: str | None = None
    lanes_per_port: int | None = None
    lane_rate_gbps: int | None = None
    breakouts: tuple[str, ...] = ()
    max_module_power_w: float | None = None

    @property
    def ports(self) -> int:
        return self.count * self.ports_per_cage

    def ports_at(self, speed_gbps: int) -> int:
        """Logical ports this group offers at ``speed_gbps`` (0 if it cannot run that speed).

        Examples
        --------
        >>> PortGroup(64, 1, 800, breakouts=("2x400G", "4x200G")).ports_at(400)
        128
        >>> PortGroup(32, 2, 400).ports_at(200)
        0
        >>> PortGroup(64, 1, 800, breakouts=("1x400G", "2x400G")).ports_at(400)
        128
        """
        if not self.port_speed_gbps:
            return 0
        if speed_gbps == self.port_speed_gbps:
            return self.ports
        legs_at = [0]
        for text in self.breakouts:  # the widest listed split at that speed
            try:
                legs, leg_speed = parse_breakout(text)
            except ValueError:
                continue
            if leg_speed == speed_gbps and legs * leg_speed <= self.port_speed_gbps:
                legs_at.append(legs)
        return self.ports * max(legs_at)

    def split_at(self, speed_gbps: int) -> int:
        """Logical ports per physical port at ``speed_gbps`` (1 without breakout)."""
        if speed_gbps == self.port_speed_gbps:
            return 1
        return self.ports_at(speed_gbps) // self.ports if self.ports else 0


@dataclass(frozen=True)
class DeviceModel:
    """A switch or server model, reduced to what a fabric generator uses."""

    slug: str
    category: str  # "switch" | "server"
    port_groups: tuple[PortGroup, ...] = ()
    rack_units: float | None = None
    power_typical_w: float | None = None
    power_max_w: float | None = None
    gpus: int | None = None
    protocols: tuple[str, ...] = ()
    airflow: str | None = None
    name: str = ""
    kind: str = ""  # a server's kind: server, rack-system, management, appliance, pdu
    # A rack-scale system (GB200-NVL72): its compute trays, each with ports / trays of the
    # compute ports; one system fills one rack.
    compute_trays: int | None = None
    # Published systems per rack (NVIDIA: four DGX B300 per rack), for a layout without a
    # height (its source is in the part's provenance).
    systems_per_rack: int | None = None
    # A switch's port-to-port latency (ns) and forwarding mode as published (issue 23; None:
    # unknown); the analysis reads them through inventory.library.facts.latency_facts_of.
    latency_ns: float | None = None
    forwarding_mode: str | None = None
    # Mean time between failures (hours) as published or inferred (issue 24; None: unknown);
    # its grade and source are in the part's record (inventory.library.facts.failure_facts_of).
    mtbf_hours: float | None = None

    @property
    def is_rack_system(self) -> bool:
        return bool(self.compute_trays)

    @property
    def ports(self) -> int:
        return sum(group.ports for group in self.port_groups)

    @property
    def port_speed_gbps(self) -> int | None:
        speeds = [g.port_speed_gbps for g in self.port_groups if g.port_speed_gbps]
        return max(speeds) if speeds else None

    def radix_at(self, speed_gbps: int) -> int:
        """Ports available at ``speed_gbps`` across groups that can run it."""
        return sum(group.ports_at(speed_gbps) for group in self.port_groups)

    def group_at(self, speed_gbps: int) -> PortGroup | None:
        """The first group that can run ``speed_gbps``."""
        for group in self.port_groups:
            if group.ports_at(speed_gbps):
                return group
        return None


@dataclass
class CatalogFacts:
    """Device models by slug, plus the raw part records media selection needs."""

    devices: dict[str, DeviceModel] = field(default_factory=dict)
    # slug -> {category, slug, manufacturer, spec..., provenance, sources}; ``provenance`` maps
    # a spec field (dotted path) to {source, grade, ...} and ``sources`` a key to {url, grade}.
    parts: dict[str, dict] = field(default_factory=dict)
    # Names (slugs and aliases) of archived parts left out of these facts -> their category:
    # facts for new designs leave them out, so that nothing new picks them.
    archived: dict[str, str] = field(default_factory=dict)
    # Fiber attenuation, connector mated-pair and splice losses with their sources (the
    # module notes); the seed's optics.yaml by default.
    optics: OpticsTable = field(default_factory=seed_optics)

    def device(self, slug: str, category: str, *, field_name: str) -> DeviceModel:
        model = self.devices.get(slug)
        if model is None and self.archived.get(slug) == category:
            raise CatalogLookupError(f"{field_name}: {archived_message(slug, category)}")
        if model is None or model.category != category:
            raise CatalogLookupError(f"{field_name}: no {category} {slug!r} in the catalog")
        return model


def archived_message(slug: str, category: str) -> str:
    """Why a new design may not use an archived part.

    >>> archived_message("DGX-H100", "server")
    "server 'DGX-H100' is archived in the catalog: choose another one for new designs"
    """
    return f"{category} {slug!r} is archived in the catalog: choose another one for new designs"


def spec_part_fields(spec) -> list[tuple[str, str]]:
    """``(field, name)`` of every catalog part a parsed spec names.

    ``spec`` is a :class:`planner.domain.spec.DesignSpec`: ``server``, ``switches.<tier>``,
    ``media.<tier>.a|b|cable`` and ``layout.rack``.
    """
    fields = [("server", spec.server)]
    fields += [(f"switches.{tier}", getattr(spec, tier)) for tier in ("leaf", "spine", "core")]
    for tier, choice in (spec.media or {}).items():
        fields += [(f"media.{tier}.{end}", getattr(choice, end)) for end in ("a", "b", "cable")]
    fields.append(("layout.rack", spec.layout.rack))
    return [(name, value) for name, value in fields if isinstance(value, str) and value]


def archived_problems(spec, facts: CatalogFacts) -> list[tuple[str, str]]:
    """``(field, message)`` for each part a spec names that ``facts`` left out as archived."""
    problems, seen = [], set()
    for name, slug in spec_part_fields(spec):
        category = facts.archived.get(slug)
        if category and slug not in seen:  # once per part: spine and core default to leaf
            seen.add(slug)
            problems.append((name, archived_message(slug, category)))
    return problems


def device_from_spec(slug: str, category: str, spec: dict, name: str = "") -> DeviceModel:
    """Build a :class:`DeviceModel` from a catalog part's spec values (switch or server)."""
    groups = data_groups(spec, category)
    port_groups = tuple(
        PortGroup(
            count=g.get("count") or 0,
            ports_per_cage=g.get("ports_per_cage") or 1,
            port_speed_gbps=g.get("port_speed_gbps"),
            form_factor=g.get("form_factor"),
            top=g.get("top"),
            lanes_per_port=g.get("lanes_per_port"),
            lane_rate_gbps=g.get("lane_rate_gbps"),
            breakouts=tuple(g.get("breakouts") or ()),
            max_module_power_w=g.get("max_module_power_w"),
        )
        for g in groups
    )
    trays = spec.get("trays") if isinstance(spec.get("trays"), dict) else {}
    compute_trays = trays.get("compute") if spec.get("kind") == "rack-system" else None
    systems_per_rack = spec.get("systems_per_rack")
    latency = latency_facts_of({"category": category, **spec})
    return DeviceModel(
        slug=slug,
        category=category,
        port_groups=port_groups,
        kind=str(spec.get("kind") or ""),
        compute_trays=int(compute_trays) if compute_trays else None,
        systems_per_rack=int(systems_per_rack) if systems_per_rack else None,
        rack_units=spec.get("rack_units"),
        power_typical_w=spec.get("power_typical_w"),
        power_max_w=spec.get("power_max_w"),
        gpus=spec.get("gpus"),
        protocols=tuple(spec.get("protocols") or ()),
        airflow=spec.get("airflow"),
        name=name,
        latency_ns=latency["latency_ns"],
        forwarding_mode=latency["forwarding_mode"],
        mtbf_hours=failure_facts_of(spec)["mtbf_hours"],
    )


def facts_from_records(records) -> CatalogFacts:
    """Catalog facts from :class:`inventory.library.files.PartRecord` objects (seed files)."""
    facts = CatalogFacts()
    for record in records:
        entry = {
            "category": record.category,
            "slug": record.slug,
            "manufacturer": record.identity.get("manufacturer"),
            "name": record.identity.get("name", ""),
            "part_number": record.identity.get("part_number", ""),
            **record.spec,
            "provenance": dict(record.provenance or {}),
            "sources": dict(record.sources or {}),
        }
        if record.category == "transceiver":
            entry.update(optics_facts_of(entry))
        facts.parts[record.slug] = entry
        if record.category in ("switch", "server"):
            facts.devices[record.slug] = device_from_spec(
                record.slug, record.category, record.spec, record.identity.get("name", "")
            )
        for alias in record.identity.get("aliases") or []:
            facts.parts.setdefault(alias, entry)
            if record.slug in facts.devices:
                facts.devices.setdefault(alias, facts.devices[record.slug])
    return facts
