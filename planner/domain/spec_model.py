"""A design spec as typed records: :class:`DesignSpec` and the blocks it holds.

Split from :mod:`planner.domain.spec`, which reads and checks a spec document
(:func:`~planner.domain.spec.parse_spec`, :func:`~planner.domain.spec.load_spec_text`) into
these records; the JSON Schema is generated from their fields
(:func:`~planner.domain.spec.spec_schema`)."""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass

from planner.domain.campus import Campus
from planner.domain.spec_blocks import (
    CAMPUS_RULE,
    NETWORKS_RULE,
    POWER_RULE,
    TRANSPORT_RULE,
)
from planner.domain.specfields import spec_field

TOPOLOGIES = ("rail-optimized", "clos", "fat-tree")


TIERS = ("server-leaf", "leaf-spine", "spine-core")


MEDIA_KINDS = ("auto", "DAC", "ACC", "AEC", "AOC", "MMF", "SMF")


CABLING_KINDS = ("point-to-point", "patch-panel")


#: Fibers per MPO connector of a trunk: MPO-12 and MPO-16 (TIA-604-5 / IEC 61754-7 formats).
MPO_FIBERS = {"mpo12": 12, "mpo16": 16}


#: A tier's ends as the page names them ("server – leaf").
TIER_ENDS = {tier: tier.replace("-", " – ") for tier in TIERS}


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
