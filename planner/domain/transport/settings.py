"""Transport settings of a design: InfiniBand or RoCEv2, and for RoCE the lossless QoS profile.

A design's spec may carry a top-level ``transport:`` block; the built fabric carries the parsed,
defaulted settings as ``fabric.settings.transport`` (:meth:`TransportSettings.as_dict`), read
back with :func:`transport_from_dict`.

Defaults come from vendor profiles. Every default value carries its source in
:attr:`TransportSettings.sources` (dotted field -> ``"URL (provenance)"``, provenance one of
primary / secondary / inferred). A value no source was found for is ``None`` (blank) and its
source says so; the checks skip a blank value and say which field to give.

Switch profiles (:data:`SWITCH_PROFILES`): ``nvidia-spectrum-x`` (Cumulus / Onyx RoCE
defaults), ``arista``, ``cisco``, ``juniper`` and ``custom`` (every value blank: the spec gives
them). NIC profiles (:data:`NIC_PROFILES`): ``nvidia-connectx`` (NVIDIA Network Operator
``roceOptimized``), ``intel-gaudi3`` (the Gaudi 3 driver's fixed priorities, the counter-example
of a mixed fleet), ``broadcom-thor2`` and ``custom``. What a NIC model can do (adaptive routing,
multiplane modes) is per NIC family (:func:`nic_capabilities`).

PFC headroom: :func:`pfc_xoff_bytes` is the mlx5 driver's formula.

Examples
--------
>>> round(pfc_xoff_bytes(400, 100, 9216) / 1024)
226
>>> s = default_roce("nvidia-spectrum-x")
>>> s.lossless_priority, s.cnp_priority, s.ecn_min_kb, s.ecn_max_kb
(3, 6, 150, 1500)
>>> t = TransportSettings("roce", s, None, {})
>>> transport_from_dict(t.as_dict()) == t
True

Nothing here imports Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace

TRANSPORTS = ("infiniband", "roce")
PFC_MODES = ("lossless", "semi-lossless", "lossy")
LOAD_BALANCING = ("ecmp", "flowlet", "adaptive", "spraying")  # Ethernet
MULTIPLANE_MODES = ("none", "swplb", "hwplb")
# opensm / UFM routing engines (UFM "Network Management" page: MINHOP, UPDN, DNUP, Fat Tree,
# PQFT; opensm.conf default ar_updn; SHARP's setup page: tree topologies updn, ar_updn, ftree,
# ar_ftree, Dragonfly+ dfp). See ROUTING_SOURCE and TREE_ENGINES_SOURCE.
ROUTING_ENGINES = ("ar_updn", "updn", "minhop", "dnup", "ftree", "ar_ftree", "pqft", "dfp")
TRUST_MODES = ("dscp", "pcp")
SWITCH_PROFILES = ("nvidia-spectrum-x", "arista", "cisco", "juniper", "custom")
NIC_PROFILES = ("nvidia-connectx", "intel-gaudi3", "broadcom-thor2", "custom")

# Sources ------------------------------------------------------------------------------------
CUMULUS_ROCE = (
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-514/"
    "Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE"
)
CUMULUS_QOS = (
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-514/"
    "Layer-1-and-Switch-Ports/Quality-of-Service/"
)
ONYX_ROCE = "https://docs.nvidia.com/networking/display/Onyxv31040100/RoCE+Commands"
CUMULUS_AR = (
    "https://docs.nvidia.com/networking-ethernet-software/nvue-reference/"
    "Set-and-Unset-Commands/Adaptive-Routing/"
)
NETOP_ROCE = (
    "https://docs.nvidia.com/networking/display/kubernetes26100/nic-conf-operator/"
    "configuration-details.html"
)
NETOP_ROCE_2670 = (
    "https://docs.nvidia.com/networking/display/kubernetes2670/nic-conf-operator/"
    "configuration-details.html"
)
DOROCE = "https://raw.githubusercontent.com/NVIDIA/doroce-linux/main/doRoCE.sh"
SPECTRUM_X_MULTIPLANE = (
    "https://docs.nvidia.com/networking/display/kubernetes26100/spectrum-x/spectrum-x.html"
)
SPECTRUM_X_NICS = (
    "https://docs.nvidia.com/networking/display/kubernetes25100/nic-conf-operator/"
    "spectrum-x-configuration.html"
)
GAUDI3_SWITCH = (
    "https://docs.habana.ai/en/latest/Management_and_Monitoring/Network_Configuration/"
    "Expected_Switch_Configuration.html"
)
ARISTA_AI = "https://manuals.plus/so/arista/ai-network-fabric-deployment-manual"
CISCO_HYPERFABRIC_LB = (
    "https://www.cisco.com/c/en/us/td/docs/dcn/hyperfabric/software/dynamic-load-balancing.pdf"
)
JUNIPER_THOR2 = (
    "https://www.juniper.net/documentation/us/en/software/jvd/jvd-ai-dc-apstra-amd/"
    "dcqcn_configuration_for_rdma_traffic_on_nics.html"
)
IB_AR = "https://docs.nvidia.com/networking/display/ibclusterbringupprocedure/adaptive+routing"
IB_SHIELD = "https://docs.nvidia.com/networking/display/ibclusterbringupprocedure/shield"
ROUTING_SOURCE = (
    "https://docs.nvidia.com/networking/display/ufmenterpriseumv6194/Network+Management"
)
TREE_ENGINES_SOURCE = (
    "https://docs.nvidia.com/networking/display/sharpv330/setting+up+nvidia+sharp+environment"
)
MLX5_XOFF = (
    "https://github.com/torvalds/linux/blob/master/drivers/net/ethernet/mellanox/mlx5/core/"
    "en/port_buffer.c (calculate_xoff); "
    "https://git.zx2c4.com/linux-dev/patch/?id=0696d60853d58f1b9431bc689e4e4526845b790a"
)
CUMULUS_MTU = (
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-59/"
    "Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/Switch-Port-Attributes/"
)
NOT_FOUND = "not published where searched: blank, give it in the spec"


@dataclass(frozen=True)
class Sourced:
    """A default value and where it comes from (``"URL (provenance)"``)."""

    value: object
    source: str


def _p(value, url: str, note: str = "") -> Sourced:
    return Sourced(value, f"{url} (primary{'; ' + note if note else ''})")


def _s(value, url: str, note: str = "") -> Sourced:
    return Sourced(value, f"{url} (secondary{'; ' + note if note else ''})")


def _i(value, note: str) -> Sourced:
    return Sourced(value, f"inferred: {note}")


_BLANK = Sourced(None, NOT_FOUND)

# Switch side (RoceSettings fields) per profile. pfc_mode, pfc_watchdog and multiplane_mode are
# the design's intent, not vendor figures: lossless with the watchdog on is what issue 20 checks
# for (next-wave.md §3.5), multiplane off until the spec asks.
_INTENT = {
    "pfc_mode": _i("lossless", "the RoCE mode a lossless design runs (Onyx: 'roce' = lossless)"),
    "pfc_watchdog": _i(True, "a lossless fabric runs the PFC watchdog against pause storms"),
    "multiplane_mode": _i("none", "one plane per NIC port unless the spec asks"),
}

#: The vendor figures of a switch profile; one with no published default is blank.
_VENDOR_FIELDS = (
    "lossless_priority",
    "lossless_dscp",
    "cnp_priority",
    "cnp_dscp",
    "trust",
    "ecn_min_kb",
    "ecn_max_kb",
    "mtu_b",
    "load_balancing",
)


def _profile(**given: Sourced) -> dict[str, Sourced]:
    """A switch profile: the ``given`` vendor figures, every other one blank, and the intent."""
    return {**dict.fromkeys(_VENDOR_FIELDS, _BLANK), **given, **_INTENT}


ROCE_PROFILE_DEFAULTS: dict[str, dict[str, Sourced]] = {
    "nvidia-spectrum-x": {
        "lossless_priority": _p(3, CUMULUS_ROCE, "PFC on switch priority 3 (RoCE) in lossless"),
        "lossless_dscp": _p(
            (24, 25, 26, 27, 28, 29, 30, 31),
            CUMULUS_QOS,
            "trusted DSCP 24-31 -> switch priority 3 (default classification)",
        ),
        "cnp_priority": _p(6, CUMULUS_ROCE, "switch priority 6 -> TC6 (CNP), strict"),
        "cnp_dscp": _p(48, CUMULUS_QOS, "trusted DSCP 48-55 -> switch priority 6"),
        "trust": _p("dscp", ONYX_ROCE, "show roce: port trust mode L3"),
        "ecn_min_kb": _p(150, ONYX_ROCE, "show roce: ecn, absolute, min 150"),
        "ecn_max_kb": _p(1500, ONYX_ROCE, "show roce: ecn, absolute, max 1500"),
        "mtu_b": _p(9216, CUMULUS_MTU, "ifupdown2 assigns 9216 as the default MTU"),
        "load_balancing": _p("adaptive", CUMULUS_AR, "adaptive routing on Spectrum-4 from CL 5.6"),
        **_INTENT,
    },
    "arista": _profile(
        lossless_priority=_i(3, f"EOS maps CS3 to traffic-class 3 for RoCEv2 ({ARISTA_AI})"),
        lossless_dscp=_s((24,), ARISTA_AI, "by default EOS maps CS3 to TC3 for RoCEv2"),
        load_balancing=_i("ecmp", "routed leaf-spine default; no AR/flowlet unless configured"),
    ),
    "cisco": _profile(
        load_balancing=_p("ecmp", CISCO_HYPERFABRIC_LB, "Hyperfabric: ECMP is the default"),
    ),
    "juniper": _profile(
        load_balancing=_i("ecmp", "routed leaf-spine default; no AR/flowlet unless configured"),
    ),
    "custom": _profile(load_balancing=_i("ecmp", "routed leaf-spine default")),
}

# Host side (NicQos QoS fields) per NIC profile.
NIC_PROFILE_DEFAULTS: dict[str, dict[str, Sourced]] = {
    "nvidia-connectx": {
        "data_priority": _p(3, NETOP_ROCE, "roceOptimized: PFC for priority 3"),
        "data_dscp": _p(26, DOROCE, "NVIDIA doRoCE tos_val=106, DSCP 26 (AF31)"),
        "cnp_priority": _p(6, NETOP_ROCE, "CNP_802P_PRIO=6"),
        "cnp_dscp": _p(
            48, NETOP_ROCE, f"CNP_DSCP=48 in v26.10; the v26.7 docs say 4 ({NETOP_ROCE_2670})"
        ),
        "trust": _p("dscp", NETOP_ROCE, "roceOptimized: trust dscp on each PF"),
    },
    "intel-gaudi3": {
        "data_priority": _p(2, GAUDI3_SWITCH, "priority 2 for data traffic (RDMA WRITE)"),
        "data_dscp": _p(24, GAUDI3_SWITCH, "data mapped to DSCP 24"),
        "cnp_priority": _p(3, GAUDI3_SWITCH, "priority 3 for ACK traffic (its control class)"),
        "cnp_dscp": _p(16, GAUDI3_SWITCH, "ACK mapped to DSCP 16"),
        "trust": _i("dscp", "the driver marks DSCP per priority (Gaudi 3 expected switch config)"),
    },
    "broadcom-thor2": {
        "data_priority": _p(3, JUNIPER_THOR2, "RoCE traffic tagged with DSCP 26 on priority 3"),
        "data_dscp": _p(26, JUNIPER_THOR2, "RoCE traffic tagged with DSCP 26"),
        "cnp_priority": _p(7, JUNIPER_THOR2, "CNP tagged with DSCP 48 and priority 7"),
        "cnp_dscp": _p(48, JUNIPER_THOR2, "CNP tagged with DSCP 48"),
        "trust": _i("dscp", "DSCP-tagged RoCE (Juniper JVD for AMD MI300X servers)"),
    },
    "custom": {
        "data_priority": _BLANK,
        "data_dscp": _BLANK,
        "cnp_priority": _BLANK,
        "cnp_dscp": _BLANK,
        "trust": _BLANK,
    },
}

# What a NIC family can do: (adaptive_routing, multiplane_modes, source). Matched on the
# catalog part's name (see nic_capabilities); None = not known.
_AR_NICS = "from NVIDIA's Spectrum-X NIC configuration: AR-capable NICs are BF-3, CX-8, CX-9"
NIC_FAMILIES: dict[str, tuple[bool | None, tuple[str, ...], str]] = {
    "connectx-9": (
        True,
        ("none", "swplb", "hwplb"),
        f"{SPECTRUM_X_MULTIPLANE} (primary; hwplb requires ConnectX-8 or ConnectX-9); {_AR_NICS}",
    ),
    "connectx-8": (
        True,
        ("none", "swplb", "hwplb"),
        f"{SPECTRUM_X_MULTIPLANE} (primary; hwplb requires ConnectX-8 or ConnectX-9); {_AR_NICS}",
    ),
    "bluefield-3-supernic": (
        True,
        ("none", "swplb"),
        f"{SPECTRUM_X_NICS} (primary; Spectrum-X NIC configuration supports BlueField-3 "
        f"SuperNIC); swplb inferred (hwplb needs CX-8/CX-9); {_AR_NICS}",
    ),
    "bluefield-3-dpu": (
        False,
        ("none",),
        f"inferred: not a SuperNIC; {_AR_NICS}",
    ),
    "connectx-7": (False, ("none",), f"inferred: {_AR_NICS}"),
    "other": (None, ("none",), "not published where searched: adaptive routing support unknown"),
}


def nic_family(slug: str, name: str = "") -> str:
    """The NIC family of a catalog part, from its slug and name.

    Examples
    --------
    >>> nic_family("C8180", "NVIDIA ConnectX-8 SuperNIC C8180")
    'connectx-8'
    >>> nic_family("B3140H", "NVIDIA BlueField-3 SuperNIC B3140H")
    'bluefield-3-supernic'
    >>> nic_family("MCX75310AAS-NEAT", "NVIDIA ConnectX-7 single-port OSFP 400G")
    'connectx-7'
    """
    text = f"{slug} {name}".lower().replace(" ", "-")
    for family in ("connectx-9", "connectx-8", "connectx-7"):
        if family in text:
            return family
    if "bluefield-3" in text:
        return "bluefield-3-supernic" if "supernic" in text else "bluefield-3-dpu"
    if text.startswith("mcx75"):
        return "connectx-7"
    return "other"


def nic_capabilities(slug: str, name: str = "") -> tuple[bool | None, tuple[str, ...], str]:
    """``(adaptive_routing, multiplane_modes, source)`` of a NIC part."""
    return NIC_FAMILIES[nic_family(slug, name)]


def nic_profile_for(manufacturer: str | None, name: str = "") -> str:
    """The NIC QoS profile a NIC part defaults to, from its manufacturer (``custom`` if none).

    Examples
    --------
    >>> nic_profile_for("nvidia"), nic_profile_for("intel", "Gaudi 3"), nic_profile_for("amd")
    ('nvidia-connectx', 'intel-gaudi3', 'custom')
    """
    maker = (manufacturer or "").lower()
    text = name.lower()
    if maker == "nvidia" or "connectx" in text or "bluefield" in text:
        return "nvidia-connectx"
    if "gaudi" in text or maker in ("intel", "habana"):
        return "intel-gaudi3"
    if maker == "broadcom" and ("thor2" in text.replace(" ", "") or "bcm576" in text):
        return "broadcom-thor2"
    return "custom"


def switch_profile_for(manufacturer: str | None) -> str:
    """The switch profile a leaf switch's manufacturer defaults to (``custom`` if none).

    Examples
    --------
    >>> switch_profile_for("nvidia"), switch_profile_for("arista"), switch_profile_for("edgecore")
    ('nvidia-spectrum-x', 'arista', 'custom')
    """
    maker = (manufacturer or "").lower()
    return {
        "nvidia": "nvidia-spectrum-x",
        "arista": "arista",
        "cisco": "cisco",
        "juniper": "juniper",
    }.get(maker, "custom")


# InfiniBand defaults (opensm / UFM).
IB_DEFAULTS: dict[str, Sourced] = {
    "routing_engine": _p("ar_updn", IB_AR, "opensm.conf default routing_engine"),
    "adaptive_routing": _p(True, IB_AR, "AR is enabled by default in opensm.conf"),
    "shield": _p(True, IB_SHIELD, "SHIELD (shield_mode) is on by default"),
    "sharp": _i(False, "on only where every switch of the fabric supports SHARP"),
}


# Settings -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class NicQos:
    """What a NIC model sends and marks (host side). ``None``: not known (blank)."""

    profile: str
    data_priority: int | None
    data_dscp: int | None
    cnp_priority: int | None
    cnp_dscp: int | None
    trust: str | None
    adaptive_routing: bool | None  # can do AR / packet-spraying reordering
    multiplane_modes: tuple[str, ...] = ("none",)

    def as_dict(self) -> dict:
        doc = {f.name: getattr(self, f.name) for f in fields(self)}
        doc["multiplane_modes"] = list(self.multiplane_modes)
        return doc


@dataclass(frozen=True)
class RoceSettings:
    """Switch-side and fabric-wide RoCE settings. ``None``: blank (no source, not given).

    ``mtu_by_role`` overrides ``mtu_b`` for the ports of one role (``server`` = the host NICs,
    ``leaf``, ``spine``, ``core``); the MTU check compares the two ends of every link.
    """

    profile: str
    lossless_priority: int | None
    lossless_dscp: tuple[int, ...]
    cnp_priority: int | None
    cnp_dscp: int | None
    trust: str | None
    ecn_min_kb: int | None
    ecn_max_kb: int | None
    pfc_mode: str
    mtu_b: int | None
    pfc_watchdog: bool
    load_balancing: str
    multiplane_mode: str
    nics: Mapping[str, NicQos] = field(default_factory=dict)
    mtu_by_role: Mapping[str, int] = field(default_factory=dict)

    def mtu_of(self, role: str) -> int | None:
        """The MTU of the ports of ``role`` (its override, else ``mtu_b``)."""
        return self.mtu_by_role.get(role, self.mtu_b)

    def as_dict(self) -> dict:
        doc = {f.name: getattr(self, f.name) for f in fields(self)}
        doc["lossless_dscp"] = list(self.lossless_dscp)
        doc["nics"] = {slug: nic.as_dict() for slug, nic in self.nics.items()}
        doc["mtu_by_role"] = dict(self.mtu_by_role)
        return doc


@dataclass(frozen=True)
class InfinibandSettings:
    """Subnet-manager settings of an InfiniBand fabric."""

    routing_engine: str
    adaptive_routing: bool
    shield: bool
    sharp: bool

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class TransportSettings:
    """A design's transport: ``infiniband`` (``infiniband`` set) or ``roce`` (``roce`` set).

    ``sources`` maps a dotted field (``roce.ecn_min_kb``, ``roce.nics.C8180.cnp_dscp``,
    ``infiniband.routing_engine``) to ``"URL (provenance)"``; a field the spec gave is
    ``"spec"``.
    """

    transport: str
    roce: RoceSettings | None
    infiniband: InfinibandSettings | None
    sources: Mapping[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict:
        """JSON-ready; round-trips through :func:`transport_from_dict`."""
        return {
            "transport": self.transport,
            "roce": self.roce.as_dict() if self.roce else None,
            "infiniband": self.infiniband.as_dict() if self.infiniband else None,
            "sources": dict(self.sources),
        }


def _nic_from_dict(data: dict) -> NicQos:
    return NicQos(
        **{
            **{k: data.get(k) for k in (f.name for f in fields(NicQos))},
            "multiplane_modes": tuple(data.get("multiplane_modes") or ("none",)),
        }
    )


def transport_from_dict(data: dict) -> TransportSettings:
    """The settings of :meth:`TransportSettings.as_dict`."""
    roce = data.get("roce")
    ib = data.get("infiniband")
    return TransportSettings(
        transport=data["transport"],
        roce=(
            RoceSettings(
                **{
                    **{k: roce.get(k) for k in (f.name for f in fields(RoceSettings))},
                    "lossless_dscp": tuple(roce.get("lossless_dscp") or ()),
                    "nics": {s: _nic_from_dict(n) for s, n in (roce.get("nics") or {}).items()},
                    "mtu_by_role": dict(roce.get("mtu_by_role") or {}),
                }
            )
            if roce
            else None
        ),
        infiniband=InfinibandSettings(**ib) if ib else None,
        sources=dict(data.get("sources") or {}),
    )


def default_roce(profile: str, **given) -> RoceSettings:
    """The RoCE settings of a switch profile, with ``given`` fields over its defaults."""
    values = {name: s.value for name, s in ROCE_PROFILE_DEFAULTS[profile].items()}
    values["lossless_dscp"] = tuple(values["lossless_dscp"] or ())
    return replace(RoceSettings(profile=profile, **values), **given)


def default_nic(profile: str, slug: str, name: str = "", **given) -> NicQos:
    """The QoS of NIC part ``slug`` under a NIC profile, capabilities from its family."""
    ar, modes, _ = nic_capabilities(slug, name)
    values = {k: s.value for k, s in NIC_PROFILE_DEFAULTS[profile].items()}
    return replace(
        NicQos(profile=profile, adaptive_routing=ar, multiplane_modes=modes, **values), **given
    )


def default_infiniband(**given) -> InfinibandSettings:
    """InfiniBand settings: opensm defaults with ``given`` fields over them."""
    return replace(InfinibandSettings(**{k: s.value for k, s in IB_DEFAULTS.items()}), **given)


def pfc_xoff_bytes(speed_gbps: float, cable_length_m: float, mtu_b: int) -> float:
    """PFC xoff headroom of one lossless priority on one port, in bytes (the mlx5 formula).

    ``xoff = (301 + 2.16 * length_m) * speed_gbps + 2.72 * mtu_b``, speed floored at 40 Gb/s
    (Linux mlx5 ``calculate_xoff``; :data:`MLX5_XOFF`). The lossless buffer must also hold one
    more MTU and a cell (:func:`pfc_buffer_bytes`).

    Examples
    --------
    >>> round(pfc_xoff_bytes(100, 3, 9216) / 1024), round(pfc_xoff_bytes(800, 500, 9216) / 1024)
    (55, 1103)
    >>> pfc_xoff_bytes(10, 0, 0) == pfc_xoff_bytes(40, 0, 0)
    True
    """
    return (301 + 2.16 * float(cable_length_m)) * max(float(speed_gbps), 40.0) + 2.72 * mtu_b


def pfc_buffer_bytes(speed_gbps, cable_length_m, mtu_b, cell_b: int = 0):
    """The lossless buffer one priority of one port needs: ``xoff + MTU + cell`` bytes (the
    mlx5 driver refuses a smaller one: "not enough for lossless buffer"). Works elementwise on
    NumPy arrays."""
    import numpy as np

    speed = np.maximum(np.asarray(speed_gbps, dtype=float), 40.0)
    xoff = (301 + 2.16 * np.asarray(cable_length_m, dtype=float)) * speed + 2.72 * mtu_b
    return xoff + mtu_b + cell_b


__all__ = [
    "IB_DEFAULTS",
    "LOAD_BALANCING",
    "MULTIPLANE_MODES",
    "NIC_FAMILIES",
    "NIC_PROFILES",
    "NIC_PROFILE_DEFAULTS",
    "PFC_MODES",
    "ROCE_PROFILE_DEFAULTS",
    "ROUTING_ENGINES",
    "SWITCH_PROFILES",
    "TRANSPORTS",
    "TRUST_MODES",
    "InfinibandSettings",
    "NicQos",
    "RoceSettings",
    "Sourced",
    "TransportSettings",
    "default_infiniband",
    "default_nic",
    "default_roce",
    "nic_capabilities",
    "nic_family",
    "nic_profile_for",
    "pfc_buffer_bytes",
    "pfc_xoff_bytes",
    "switch_profile_for",
    "transport_from_dict",
]
