"""The two transports' sides and features, each feature with its reasons and sources (issue 31).

Split from :mod:`planner.analyses.transport_compare`, which builds the two sides and compares
them: here are the records a comparison is made of (the comparison, a side, its counterpart
switches, its flow run, a feature), the sourced facts a feature rests on, and the rules that
read each side's switches and NICs into features and reasons."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import SWITCH_ROLES
from planner.domain.outputs.bom import BillOfMaterials
from planner.domain.transport.resolve import SHARP_ASICS

__all__ = [
    "FULL_SIZE_MAX_GPUS",
    "SIZE_BYTES",
    "TRAFFIC",
    "TRANSPORTS",
    "Counterpart",
    "Feature",
    "FlowRun",
    "Side",
    "Source",
    "TransportComparison",
]


TRANSPORTS = ("infiniband", "roce")


TRANSPORT_NAMES = {"infiniband": "InfiniBand", "roce": "RoCEv2 (Ethernet)"}


PROTOCOL = {"infiniband": "infiniband", "roce": "ethernet"}


#: Designs above this many GPUs are not built twice nor simulated on the page (a 8,192-GPU
#: design takes about 1 s for both builds, power and the four runs; measured on two cores).
FULL_SIZE_MAX_GPUS = 8_192


TRAFFIC = "all-reduce"


SIZE_BYTES = 1e9


FLOW_CAVEAT = (
    "Fluid max-min model: bandwidth-bound time of the collective, no queues, PFC pauses, "
    "congestion control or packet loss (the simulator's stated limits); the transports differ "
    "here only in how each routes the same flows."
)


@dataclass(frozen=True)
class Source:
    """Where a statement comes from: a title, its URL (or ``""``) and its provenance."""

    title: str
    url: str
    provenance: str  # primary | secondary | inferred | catalog

    def as_dict(self) -> dict:
        return {"title": self.title, "url": self.url, "provenance": self.provenance}


# --- Sources ----------------------------------------------------------------------------------
SHARP_DEVICES = Source(
    "NVIDIA SHARP Rev 3.13.0, General Information (devices: Quantum, Quantum-2, Quantum-3 "
    "switches; ConnectX-6 and later adapters)",
    "https://docs.nvidia.com/networking/display/sharpv3130/general-information",
    "primary",
)


SHARP_ENGINES = Source(
    "NVIDIA SHARP Rev 3.3.0, Setting up the SHARP environment (routing engines updn, ar_updn, "
    "ftree, ar_ftree for trees; dfp for Dragonfly+)",
    "https://docs.nvidia.com/networking/display/sharpv330/setting+up+nvidia+sharp+environment",
    "primary",
)


IB_AR = Source(
    "NVIDIA InfiniBand Cluster Bring-up Procedure, Adaptive Routing (on by default, "
    "routing engine ar_updn)",
    "https://docs.nvidia.com/networking/display/ibclusterbringupprocedure/adaptive+routing",
    "primary",
)


CUMULUS_AR = Source(
    "NVIDIA NVUE reference, adaptive routing (Spectrum-4 from Cumulus Linux 5.6; not on "
    "bonds, bond members, SVIs or subinterfaces)",
    "https://docs.nvidia.com/networking-ethernet-software/nvue-reference/"
    "Set-and-Unset-Commands/Adaptive-Routing/",
    "primary",
)


SPECTRUM_X_NICS = Source(
    "NVIDIA Network Operator 26.10, Spectrum-X NIC configuration (ConnectX-7, ConnectX-8, "
    "ConnectX-9 and BlueField-3 SuperNIC; hwplb needs ConnectX-8 or ConnectX-9)",
    "https://docs.nvidia.com/networking/display/kubernetes26100/spectrum-x/"
    "spectrum-x-configuration.html",
    "primary",
)


AR_NICS = Source(
    "Ethernet adaptive routing needs AR-capable NICs (BlueField-3, ConnectX-8, ConnectX-9 "
    "SuperNICs) on every endpoint, inferred from NVIDIA's Spectrum-X NIC configuration",
    "",
    "inferred",
)


CISCO_LB = Source(
    "Cisco Hyperfabric dynamic load balancing (ECMP default; adaptive routing for AI needs "
    "NVIDIA adaptive-routing NICs and a licence; flowlet works with any RoCEv2 NIC)",
    "https://www.cisco.com/c/en/us/td/docs/dcn/hyperfabric/software/dynamic-load-balancing.pdf",
    "primary",
)


IB_LINK_LAYER = Source(
    "InfiniBand Network Architecture (MindShare), Link Layer: flow control between the two "
    "ends of each link",
    "https://www.oreilly.com/library/view/infiniband-network-architecture/0321117654/"
    "0321117654_ch25lev1sec1.html",
    "secondary",
)


IB_CREDITS = Source(
    "Wireshark InfiniBand link fields: the flow-control packet carries a credit limit",
    "https://wireshark.org/docs/dfref/i/infiniband_link.html",
    "secondary",
)


CUMULUS_ROCE = Source(
    "NVIDIA Cumulus Linux 5.14, RoCE (lossless: PFC on priority 3, CNP on priority 6, ECN)",
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-514/"
    "Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE",
    "primary",
)


MLX5_HEADROOM = Source(
    "Linux mlx5 driver, PFC xoff headroom from speed, cable length and MTU",
    "https://git.zx2c4.com/linux-dev/patch/?id=0696d60853d58f1b9431bc689e4e4526845b790a",
    "primary",
)


SPECTRUM_HEADROOM = Source(
    "NVIDIA SONiC platform files, Spectrum switch PFC headroom per port speed and cable length "
    "(pg_profile_lookup.ini, ACS-SN5600)",
    "https://github.com/sonic-net/sonic-buildimage/blob/086b03bd70f9e211aaaf5f6aefe0790b508d2a94/"
    "device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600/pg_profile_lookup.ini",
    "primary",
)


IB_PKEY = Source(
    "NVIDIA config manager, InfiniBand PKey creation (the PKey is the IB fabric's per-tenant "
    "isolation primitive, set on the subnet manager / UFM)",
    "https://docs.nvidia.com/switch-infrastructure/config-manager/services/temporal/workflows/"
    "ib-pkey-creation",
    "primary",
)


EVPN_VRF = Source(
    "NVIDIA Cumulus Linux 5.8, EVPN inter-subnet routing (routing in the context of a tenant "
    "VRF over VXLAN)",
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-58/"
    "Network-Virtualization/Ethernet-Virtual-Private-Network-EVPN/Inter-subnet-Routing",
    "primary",
)


CATALOG = Source(
    "This catalog: each part's protocols, ports and power with their own sources",
    "",
    "catalog",
)


SIM_CAVEATS = Source(
    "Fluid flow model: no queues or packet-level effects (the limits m4, floodns and Meta's "
    "fabric papers point out)",
    "",
    "inferred",
)


@dataclass(frozen=True)
class Counterpart:
    """The switch one side uses in place of the design's ``original`` in one role."""

    role: str
    original: str
    chosen: str | None
    speed_gbps: int
    reason: str
    alternatives: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {
            "role": self.role,
            "original": self.original,
            "chosen": self.chosen,
            "speed_gbps": self.speed_gbps,
            "reason": self.reason,
            "alternatives": list(self.alternatives),
        }


@dataclass(frozen=True)
class FlowRun:
    """The collective under one routing mode."""

    routing: str
    label: str
    configured: bool  # the side's own transport settings choose this mode
    busbw_gbps: float | None
    bound_busbw_gbps: float | None
    efficiency: float | None
    completion_time_s: float | None
    max_link_utilization: float | None
    note: str = ""

    def as_dict(self) -> dict:
        return {
            "routing": self.routing,
            "label": self.label,
            "configured": self.configured,
            "busbw_gbps": self.busbw_gbps,
            "bound_busbw_gbps": self.bound_busbw_gbps,
            "efficiency": self.efficiency,
            "completion_time_s": self.completion_time_s,
            "max_link_utilization": self.max_link_utilization,
            "note": self.note,
        }


@dataclass(frozen=True)
class Side:
    """One transport's build of the design; ``error`` says why it could not be built."""

    transport: str
    current: bool
    switches: dict[str, str]  # role -> switch model (as the spec names it)
    counterparts: tuple[Counterpart, ...] = ()
    switch_counts: dict[str, int] = field(default_factory=dict)
    nic: dict = field(default_factory=dict)
    bom: BillOfMaterials | None = None
    quantities: dict[str, int] = field(default_factory=dict)  # cost group -> parts
    power: dict | None = None
    flows: tuple[FlowRun, ...] = ()
    settings: dict | None = None  # the built fabric's settings.transport, as a dict
    gpus: int | None = None
    error: str = ""
    notes: tuple[str, ...] = ()

    @property
    def built(self) -> bool:
        return self.bom is not None

    def as_dict(self) -> dict:
        return {
            "transport": self.transport,
            "name": TRANSPORT_NAMES[self.transport],
            "current": self.current,
            "switches": dict(self.switches),
            "counterparts": [c.as_dict() for c in self.counterparts],
            "switch_counts": dict(self.switch_counts),
            "nic": dict(self.nic),
            "quantities": dict(self.quantities),
            "bom": None
            if self.bom is None
            else [
                {
                    "part": line.part,
                    "name": line.name,
                    "category": line.category,
                    "tier": line.tier,
                    "length_m": line.length_m,
                    "quantity": line.quantity,
                }
                for line in self.bom.lines
            ],
            "power": self.power,
            "flows": [run.as_dict() for run in self.flows],
            "settings": self.settings,
            "gpus": self.gpus,
            "error": self.error,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Feature:
    """One feature of each transport, what it means for this design, and its sources."""

    key: str
    title: str
    infiniband: str
    roce: str
    this_design: str
    sources: tuple[Source, ...]

    def as_dict(self) -> dict:
        return {
            "key": self.key,
            "title": self.title,
            "infiniband": self.infiniband,
            "roce": self.roce,
            "this_design": self.this_design,
            "sources": [s.as_dict() for s in self.sources],
        }


@dataclass(frozen=True)
class TransportComparison:
    """Both sides (InfiniBand first), the features, and the reasons of each difference."""

    current: str
    sides: tuple[Side, Side]
    features: tuple[Feature, ...]
    reasons: dict[str, list[str]]  # aspect (hardware, power, flows) -> sentences
    gpus: int | None
    capped: bool
    max_gpus: int = FULL_SIZE_MAX_GPUS
    traffic: str = TRAFFIC
    size_bytes: float = SIZE_BYTES
    notes: tuple[str, ...] = ()
    flow_caveat: str = FLOW_CAVEAT

    def side(self, transport: str) -> Side:
        return self.sides[TRANSPORTS.index(transport)]

    def as_dict(self) -> dict:
        """JSON-ready, without any price (see :func:`price_comparison`)."""
        return {
            "current": self.current,
            "gpus": self.gpus,
            "capped": self.capped,
            "max_gpus": self.max_gpus,
            "traffic": self.traffic,
            "size_bytes": self.size_bytes,
            "sides": [side.as_dict() for side in self.sides],
            "features": [f.as_dict() for f in self.features],
            "reasons": {k: list(v) for k, v in self.reasons.items()},
            "notes": list(self.notes),
            "flow_caveat": self.flow_caveat,
        }


def _switch_slugs(facts: CatalogFacts) -> list[str]:
    """Catalog switch slugs (aliases left out)."""
    return sorted(
        slug
        for slug, model in facts.devices.items()
        if model.category == "switch" and (facts.parts.get(slug) or {}).get("slug") == slug
    )


def _asics(facts: CatalogFacts, side: Side) -> set[str]:
    slugs = set()
    for value in side.switches.values():
        slugs |= {s.strip() for s in value.split(",") if s.strip()}
    return {str((facts.parts.get(s) or {}).get("asic") or "?") for s in slugs}


def _makers(facts: CatalogFacts, protocol: str, speed: int | None) -> list[str]:
    """Manufacturers of catalog switches of ``protocol`` that run ``speed``."""
    makers = set()
    for slug in _switch_slugs(facts):
        model = facts.devices[slug]
        if protocol in model.protocols and (speed is None or model.radix_at(speed)):
            makers.add(str((facts.parts.get(slug) or {}).get("manufacturer") or "?"))
    return sorted(makers)


def _nic_makers(facts: CatalogFacts, protocol: str) -> list[str]:
    makers = set()
    for slug, part in facts.parts.items():
        nic = part.get("category") == "nic" and part.get("slug") == slug
        if nic and protocol in (part.get("protocols") or ()):
            makers.add(str(part.get("manufacturer") or "?"))
    return sorted(makers)


def _features(pair: tuple[Side, Side], facts: CatalogFacts, speed: int | None) -> list[Feature]:
    ib, roce = pair
    ib_asics = _asics(facts, ib)
    sharp_ok = bool(ib_asics) and ib_asics <= set(SHARP_ASICS)
    sharp_here = f"The InfiniBand build's switches ({', '.join(sorted(ib_asics))}) " + (
        "are listed for SHARP." if sharp_ok else "are not all listed for SHARP."
    )
    nic = roce.nic
    ar_nic = nic.get("adaptive_routing")
    nic_name = nic.get("family_name") or "unknown"
    if ar_nic is True:
        ar_here = f"The design's NICs ({nic_name}) are listed as able to reorder sprayed packets."
    elif ar_nic is False:
        ar_here = (
            f"The design's NICs ({nic_name}) are not listed as able to reorder sprayed packets: "
            "RoCE adaptive routing would need SuperNICs (BlueField-3, ConnectX-8/9); "
            "InfiniBand adaptive routing runs with them."
        )
    else:
        ar_here = f"Whether the design's NICs ({nic_name}) reorder sprayed packets is not known."
    speed_text = f"{speed}G" if speed else "the design's speed"
    ib_makers = _makers(facts, "infiniband", speed)
    eth_makers = _makers(facts, "ethernet", speed)
    vendor_here = (
        f"Switches that run {speed_text} ports in this catalog: InfiniBand from "
        f"{', '.join(ib_makers) or 'none'}; Ethernet from {', '.join(eth_makers) or 'none'}. "
        f"NICs: InfiniBand from {', '.join(_nic_makers(facts, 'infiniband')) or 'none'}; "
        f"Ethernet from {', '.join(_nic_makers(facts, 'ethernet')) or 'none'}."
    )
    return [
        Feature(
            "sharp",
            "In-network reduction (SHARP)",
            "SHARP offloads reductions to Quantum, Quantum-2 and Quantum-3 switches; it needs a "
            "tree routing engine (updn, ar_updn, ftree, ar_ftree) or dfp.",
            "The SHARP documentation lists InfiniBand switches only; no Ethernet switch.",
            sharp_here,
            (SHARP_DEVICES, SHARP_ENGINES),
        ),
        Feature(
            "adaptive-routing",
            "Adaptive routing",
            "On by default (opensm routing engine ar_updn): each switch picks the least loaded of "
            "the minimal-hop ports; no NIC requirement is stated.",
            "Spectrum-4 switches route adaptively from Cumulus Linux 5.6 (not on bonds or SVIs); "
            "packet spraying needs NICs that reorder (BlueField-3, ConnectX-8/9 SuperNICs). "
            "Other vendors default to ECMP; flowlet load balancing works with any RoCEv2 NIC.",
            ar_here,
            (IB_AR, CUMULUS_AR, SPECTRUM_X_NICS, AR_NICS, CISCO_LB),
        ),
        Feature(
            "flow-control",
            "Flow control and tuning",
            "Link-level, credit-based flow control: no PFC or ECN to tune.",
            "Lossless RoCE needs PFC on one priority with headroom per port from its speed and "
            "cable length (the switch vendor's table on switch ports, the NIC's formula on NIC "
            "ports), and ECN thresholds for congestion control; the design's "
            "transport checks verify them.",
            "The RoCE build's settings are the defaults of its switches' profile; the checks run "
            "in the validate job of a RoCE design.",
            (IB_LINK_LAYER, IB_CREDITS, CUMULUS_ROCE, SPECTRUM_HEADROOM, MLX5_HEADROOM),
        ),
        Feature(
            "multi-tenancy",
            "Multi-tenancy",
            "Partition keys (PKeys) set on the subnet manager isolate tenants.",
            "Tenant VRFs over EVPN-VXLAN on the switches.",
            "Neither is part of this design's spec; both are configured after the build.",
            (IB_PKEY, EVPN_VRF),
        ),
        Feature(
            "vendor-choice",
            "Vendor choice",
            "Switches and adapters from the makers the catalog lists for InfiniBand.",
            "Switches and NICs from the makers the catalog lists for Ethernet.",
            vendor_here,
            (CATALOG,),
        ),
    ]


def _fmt_w(watts: float | None) -> str:
    if watts is None:
        return "unknown"
    return f"{watts / 1000:,.1f} kW" if watts >= 1000 else f"{watts:,.0f} W"


def _reasons(
    pair: tuple[Side, Side], facts: CatalogFacts, speed: int | None, up_speed: int | None
) -> dict:
    """Sentences that explain each difference (no prices: those are in the priced part)."""
    hardware, power, flows = [], [], []
    ib, roce = pair
    if ib.built and roce.built:
        for role in SWITCH_ROLES:
            a, b = ib.switch_counts.get(role, 0), roce.switch_counts.get(role, 0)
            if not (a or b):
                continue
            radix = []
            for side in pair:
                slug = side.switches.get(role, "")
                model = facts.devices.get(slug.split(",")[0].strip())
                if model and speed:
                    at = speed if role == "leaf" else up_speed or speed
                    radix.append(f"{slug} has {model.radix_at(at):,} ports at {at}G")
            hardware.append(
                f"{role.capitalize()} switches: {a:,} InfiniBand vs {b:,} Ethernet"
                + (f" ({'; '.join(radix)})" if radix else "")
                + "."
            )
        for group, label in (
            ("optics", "Optics (modules)"),
            ("cables and fibers", "Cables and fibers"),
            ("NICs", "NIC cards"),
        ):
            a, b = ib.quantities.get(group, 0), roce.quantities.get(group, 0)
            if a or b:
                hardware.append(f"{label}: {a:,} InfiniBand vs {b:,} Ethernet.")
        pa, pb = ib.power or {}, roce.power or {}
        for key, label in (("switches_w", "switches"), ("transceivers_w", "optics")):
            power.append(
                f"{label.capitalize()}: {_fmt_w(pa.get(key))} InfiniBand vs "
                f"{_fmt_w(pb.get(key))} Ethernet."
            )
        for side in pair:
            unknown = side.power or {}
            missing = {
                **unknown.get("unknown_switches", {}),
                **unknown.get("unknown_transceivers", {}),
            }
            if missing:
                power.append(
                    f"{TRANSPORT_NAMES[side.transport]}: no published figure for "
                    + ", ".join(f"{count:,} x {slug}" for slug, count in sorted(missing.items()))
                    + " (left out of its total)."
                )
        power.append(
            "Switches count their typical power with passive cables; optics their maximum "
            "(the power budget's figures), so the optics are not counted twice."
        )
        for side in pair:
            for run in side.flows:
                if run.busbw_gbps is None:
                    continue
                flows.append(
                    f"{TRANSPORT_NAMES[side.transport]}, {run.label}: bus bandwidth "
                    f"{run.busbw_gbps:,.1f} Gb/s of {run.bound_busbw_gbps:,.1f} Gb/s possible"
                    f"{' (the design setting)' if run.configured else ''}; {run.note}."
                )
    return {"hardware": hardware, "power": power, "flows": flows}
