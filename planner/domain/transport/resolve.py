"""A spec's ``transport:`` block, checked and filled in from the vendor profiles (issue 20).

The block is optional. Written as a word (``transport: roce``) or a mapping::

    transport:
      type: roce                    # or infiniband; default from the leaf switch's protocols
      profile: nvidia-spectrum-x    # switch profile; default from the leaf's manufacturer
      lossless_priority: 3
      lossless_dscp: [26]
      cnp_priority: 6
      cnp_dscp: 48
      trust: dscp
      ecn_min_kb: 150
      ecn_max_kb: 1500
      pfc_mode: lossless            # lossless | semi-lossless | lossy
      mtu_b: 9216
      mtu_by_role: {server: 9000}   # a role's ports at another MTU
      pfc_watchdog: true
      load_balancing: adaptive      # ecmp | flowlet | adaptive | spraying
      multiplane_mode: none         # none | swplb | hwplb
      nics:                         # per NIC part (or server model with on-board NICs)
        C8180: {profile: nvidia-connectx, cnp_dscp: 48}

    transport: {type: infiniband, routing_engine: ar_updn, adaptive_routing: true,
                shield: true, sharp: true}

:func:`check_transport` finds what needs no catalog (a RoCE field on an InfiniBand design,
ECN min not below max); :func:`resolve_transport` fills the defaults from the built fabric's
switches and NICs and refuses what needs the catalog (a NIC that is not in it, a switch that
does not speak the transport, an ECN threshold above a switch's buffer), each problem naming
its field as ``transport.<field>``. The JSON Schema has checked types and ranges (DSCP 0-63,
priority 0-7, known profiles).

Nothing here imports Django.
"""

from __future__ import annotations

import numpy as np

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, SWITCH_ROLES, Fabric
from planner.domain.spec import SpecError
from planner.domain.transport.block import (
    IB_FIELDS,
    NIC_FIELDS,
    ROCE_FIELDS,
    check_transport,
    normalize,
)
from planner.domain.transport.settings import (
    IB_DEFAULTS,
    NIC_PROFILE_DEFAULTS,
    NOT_FOUND,
    ROCE_PROFILE_DEFAULTS,
    InfinibandSettings,
    NicQos,
    RoceSettings,
    TransportSettings,
    default_nic,
    nic_capabilities,
    nic_profile_for,
    switch_profile_for,
)

#: Switch ASICs that run SHARP (NVIDIA SHARP Rev 3.13.0, General Information: Quantum,
#: Quantum-2 and Quantum-3 firmware listed with their SHARP capabilities).
SHARP_ASICS = ("Quantum", "Quantum-2", "Quantum-3")
SHARP_SOURCE = (
    "https://docs.nvidia.com/networking/display/sharpv3130/general-information (primary; "
    "SHARP runs on Quantum, Quantum-2 and Quantum-3 switches)"
)
KB = 1000  # ECN thresholds are in KB as `show roce` prints them; buffers in MB (10^6 B)


def _models(fabric: Fabric, roles) -> list[str]:
    codes = [ROLE[r] for r in roles]
    used = np.unique(fabric.node_model[np.isin(fabric.node_role, codes)])
    return [fabric.models[int(m)] for m in used]


def switch_models(fabric: Fabric) -> list[str]:
    """Slugs of the fabric's switch models (leaf, spine, core)."""
    return _models(fabric, SWITCH_ROLES)


def _compute_nic_text(record: dict) -> str:
    """What a server record says about its on-board compute NICs: its name, ``trays.nic`` and
    the notes of its compute ports (e.g. "one ConnectX-8 per GPU on the HGX board")."""
    trays = record.get("trays") if isinstance(record.get("trays"), dict) else {}
    bits = [str(record.get("name") or ""), str(trays.get("nic") or "")]
    for path, entry in (record.get("provenance") or {}).items():
        if str(path).startswith(("compute_ports", "trays")) and isinstance(entry, dict):
            bits.append(str(entry.get("note") or ""))
    return " ".join(bit for bit in bits if bit)


def nic_of_server(facts: CatalogFacts, server: str) -> tuple[str, str, str | None]:
    """``(key, name, manufacturer)`` of a server model's compute NIC: the catalog NIC part its
    record names (``compute_nic``), else the server itself (on-board NICs, named by what its
    record says of its compute ports, e.g. "one ConnectX-8 per GPU on the HGX board")."""
    record = facts.parts.get(server) or {}
    slug = record.get("compute_nic")
    nic = facts.parts.get(slug) if isinstance(slug, str) and slug else None
    if nic is not None and nic.get("category") == "nic":
        return slug, str(nic.get("name") or ""), nic.get("manufacturer")
    text = _compute_nic_text(record)
    maker = record.get("manufacturer")
    if "connectx" in text.lower() or "bluefield" in text.lower():
        maker = "nvidia"
    return server, text, maker


def server_nics(fabric: Fabric, facts: CatalogFacts) -> dict[str, tuple[str, str, str | None]]:
    """Server model slug -> :func:`nic_of_server` for every server model of the fabric."""
    return {server: nic_of_server(facts, server) for server in _models(fabric, ("server",))}


def _leaf_protocols(fabric: Fabric, facts: CatalogFacts) -> set[str]:
    protocols: set[str] = set()
    for slug in _models(fabric, ("leaf",)) or switch_models(fabric):
        model = facts.devices.get(slug)
        protocols |= set(model.protocols if model else ())
    return protocols


def default_type(fabric: Fabric, facts: CatalogFacts) -> str:
    """``infiniband`` when the leaf switches speak InfiniBand and not Ethernet, else ``roce``."""
    protocols = _leaf_protocols(fabric, facts)
    return "infiniband" if "infiniband" in protocols and "ethernet" not in protocols else "roce"


def switch_buffers_mb(fabric: Fabric, facts: CatalogFacts) -> dict[str, float]:
    """Switch model slug -> its catalog packet buffer (MB), for the models that have one."""
    out = {}
    for slug in switch_models(fabric):
        value = (facts.parts.get(slug) or {}).get("buffer_mb")
        if isinstance(value, int | float) and value > 0:
            out[slug] = float(value)
    return out


def resolve_transport(block, fabric: Fabric, facts: CatalogFacts) -> TransportSettings:
    """The design's transport settings: the block's values over the profile defaults.

    Raises
    ------
    planner.domain.spec.SpecError
        Every problem, each naming its ``transport.<field>``.
    """
    block = normalize(block)
    problems = check_transport(block)
    kind = block.get("type") or default_type(fabric, facts)
    protocols = _leaf_protocols(fabric, facts)
    wanted = "infiniband" if kind == "infiniband" else "ethernet"
    if block.get("type") and protocols and wanted not in protocols:
        leaves = ", ".join(_models(fabric, ("leaf",)) or switch_models(fabric))
        problems.append(
            (
                "transport.type",
                f"{kind} needs {wanted} switches; the leaf switch {leaves} speaks "
                f"{' and '.join(sorted(protocols))}",
            )
        )
    sources: dict[str, str] = {}
    if kind == "infiniband":
        settings = _infiniband(block, fabric, facts, sources)
    else:
        settings = _roce(block, fabric, facts, sources, problems)
    if problems:
        raise SpecError(problems)
    return settings


def _infiniband(block, fabric, facts, sources) -> TransportSettings:
    values = {}
    for name, default in IB_DEFAULTS.items():
        if name in block:
            values[name] = block[name]
            sources[f"infiniband.{name}"] = "spec"
        else:
            values[name] = default.value
            sources[f"infiniband.{name}"] = default.source
    if "sharp" not in block:
        asics = {(facts.parts.get(s) or {}).get("asic") for s in switch_models(fabric)}
        values["sharp"] = bool(asics) and asics <= set(SHARP_ASICS)
        sources["infiniband.sharp"] = SHARP_SOURCE
    return TransportSettings("infiniband", None, InfinibandSettings(**values), sources)


def _roce(block, fabric, facts, sources, problems) -> TransportSettings:
    leaves = _models(fabric, ("leaf",)) or switch_models(fabric)
    maker = (facts.parts.get(leaves[0]) or {}).get("manufacturer") if leaves else None
    profile = block.get("profile") or switch_profile_for(maker)
    sources["roce.profile"] = (
        "spec"
        if "profile" in block
        else (f"inferred: the leaf switch's manufacturer ({maker or 'unknown'})")
    )
    values = {}
    for name, default in ROCE_PROFILE_DEFAULTS[profile].items():
        if name in block:
            values[name] = block[name]
            sources[f"roce.{name}"] = "spec"
        else:
            values[name] = default.value
            sources[f"roce.{name}"] = default.source
    values["lossless_dscp"] = tuple(values.get("lossless_dscp") or ())
    if "mtu_by_role" in block:
        sources["roce.mtu_by_role"] = "spec"
    nics = _nics(block.get("nics") or {}, fabric, facts, sources, problems)
    settings = RoceSettings(
        profile=profile,
        nics=nics,
        mtu_by_role=dict(block.get("mtu_by_role") or {}),
        **values,
    )
    buffers = switch_buffers_mb(fabric, facts)
    if buffers:
        slug, smallest = min(buffers.items(), key=lambda item: item[1])
        for name in ("ecn_max_kb", "ecn_min_kb"):
            value = getattr(settings, name)
            if name in block and value is not None and value * KB > smallest * 1e6:
                problems.append(
                    (
                        f"transport.{name}",
                        f"{value:,} KB is above the {smallest:,g} MB packet buffer of {slug}",
                    )
                )
                break
    return TransportSettings("roce", settings, None, sources)


def _nics(given: dict, fabric, facts, sources, problems) -> dict[str, NicQos]:
    """NIC key -> QoS: every NIC of the fabric's servers, and every NIC the block names."""
    nics: dict[str, NicQos] = {}
    present = {key: (name, maker) for key, name, maker in server_nics(fabric, facts).values()}
    for key in given:
        part = facts.parts.get(key)
        if part is None or part.get("category") not in ("nic", "server"):
            problems.append(
                (
                    f"transport.nics.{key}",
                    f"no NIC part or server model {key!r} in the catalog",
                )
            )
            continue
        if key not in present:
            present[key] = (
                nic_of_server(facts, key)[1:]
                if part.get("category") == "server"
                else (str(part.get("name") or ""), part.get("manufacturer"))
            )
    for key, (name, maker) in sorted(present.items()):
        overrides = dict(given.get(key) or {})
        profile = overrides.pop("profile", None) or nic_profile_for(maker, name)
        base = f"roce.nics.{key}"
        sources[f"{base}.profile"] = (
            "spec" if "profile" in (given.get(key) or {}) else "inferred: the NIC's manufacturer"
        )
        for field_name, default in NIC_PROFILE_DEFAULTS[profile].items():
            sources[f"{base}.{field_name}"] = "spec" if field_name in overrides else default.source
        _, _, capability = nic_capabilities(key, name)
        sources[f"{base}.adaptive_routing"] = capability
        sources[f"{base}.multiplane_modes"] = capability
        nics[key] = default_nic(
            profile, key, name, **{k: v for k, v in overrides.items() if k in NIC_FIELDS}
        )
    return nics


def transport_or_default(fabric: Fabric, facts: CatalogFacts) -> TransportSettings:
    """The fabric's settings (``fabric.settings.transport``), or the defaults for a fabric
    built before transports were part of a design (or drawn on the canvas)."""
    if fabric.settings.transport is not None:
        return fabric.settings.transport
    return resolve_transport(None, fabric, facts)


__all__ = [
    "IB_FIELDS",
    "NIC_FIELDS",
    "NOT_FOUND",
    "ROCE_FIELDS",
    "check_transport",
    "default_type",
    "nic_of_server",
    "normalize",
    "resolve_transport",
    "server_nics",
    "switch_buffers_mb",
    "switch_models",
    "transport_or_default",
]
