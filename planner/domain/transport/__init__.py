"""The fabric's transport: InfiniBand or RoCEv2, and the lossless settings a design runs with
(issue 20). :mod:`planner.domain.transport.settings` holds the settings, the vendor profiles
their defaults come from (each value with its source) and the mlx5 PFC headroom formula.

Nothing here imports Django.
"""

from planner.domain.transport.settings import (
    LOAD_BALANCING,
    MULTIPLANE_MODES,
    NIC_PROFILES,
    PFC_MODES,
    ROUTING_ENGINES,
    SWITCH_PROFILES,
    TRANSPORTS,
    TRUST_MODES,
    InfinibandSettings,
    NicQos,
    RoceSettings,
    TransportSettings,
    pfc_xoff_bytes,
    transport_from_dict,
)

__all__ = [
    "LOAD_BALANCING",
    "MULTIPLANE_MODES",
    "NIC_PROFILES",
    "PFC_MODES",
    "ROUTING_ENGINES",
    "SWITCH_PROFILES",
    "TRANSPORTS",
    "TRUST_MODES",
    "InfinibandSettings",
    "NicQos",
    "RoceSettings",
    "TransportSettings",
    "pfc_xoff_bytes",
    "transport_from_dict",
]
