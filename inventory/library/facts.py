"""Catalog part records as the facts the compatibility rules judge: the one converter.

A part record is a plain dict: ``{"category", "slug", "name", ...spec values}`` (the seed
files' ``spec`` flattened, or a row's :meth:`~inventory.models.CatalogPart.spec_values`
through ``inventory.adapters.part_record``). These functions turn records into the
dataclasses of :mod:`inventory.library.compat` (:class:`Cage`, :class:`Plug`,
:class:`Optic`, :class:`Fiber`). The catalog's "works with" lists
(:mod:`inventory.library.works_with`), media selection (:mod:`planner.domain.media`), the
canvas and the design validator all convert parts here, so they judge a part from the same
facts.

Host cages and a compute NIC
----------------------------
A server's compute ports are host cages. When the server names its ``compute_nic``, the
NIC's record fills what the server leaves unstated: the cage's form factor (a ``cage-only``
limit, else the NIC port's form factor), its top (a ``top-only`` limit) and its module power
rating. A ``cage-only`` limit names the cage type; the cage still takes the older plugs that
type takes (rule 14: QSFP112 host cages accept QSFP56 and QSFP28 and downshift). A server's
host cages carry no protocol and no NIC limits: the validator checks those per link, against
the protocol the switch runs. A NIC's own cages (its "works with" page, where there is no
link) carry its protocols and limits.
"""

from __future__ import annotations

from collections.abc import Mapping

from inventory.library.compat import Cage, Fiber, Optic, Plug
from inventory.library.rules import parse_breakout

#: Rule 16: copper reach when a cable states none (passive DAC at 100G-PAM4, LACC, AEC).
COPPER_REACH_M = {"dac": 3.0, "acc": 5.0, "aec": 7.0}

#: Categories whose records have data cages.
DEVICE_CATEGORIES = ("switch", "server", "nic")


def _frozen(values) -> frozenset:
    return frozenset(values or ())


def reach_cap_m(
    media: str | None, connector: str | None, splitter: bool, *, pmd: str | None = None
) -> float | None:
    """Rule 11: the whole-link reach limit of a fiber type and connector.

    Parameters
    ----------
    media : str or None
        ``"mmf"`` or ``"smf"``.
    connector : str or None
        The modules' connector (``"mpo-12"``, ``"lc-duplex"``, ...).
    splitter : bool
        The fiber is a 1:2 splitter.
    pmd : str, optional
        The modules' PMD. Rule 11's SM LC limit is NVIDIA's for 2xFR4; a long-reach PMD
        (LR4, 2xLR4, LR8, ER...) is not capped by it (its module's rated reach, 10 km for
        LR4, applies).

    Returns
    -------
    float or None
        MMF MPO 50 m; SMF MPO straight 500 m, splitter 50 m; SMF LC 2 km (not LR/ER);
        otherwise None (no cap from this rule).

    Examples
    --------
    >>> reach_cap_m("smf", "mpo12-apc", False), reach_cap_m("smf", "mpo12-apc", True)
    (500.0, 50.0)
    >>> reach_cap_m("smf", "lc-duplex", False), reach_cap_m("smf", "lc-duplex", False, pmd="LR4")
    (2000.0, None)
    """
    if not media or not connector:
        return None
    if connector.startswith("mpo"):
        if media == "mmf":
            return 50.0
        if media == "smf":
            return 50.0 if splitter else 500.0
    if connector.startswith("lc") and media == "smf":
        long_reach = any(tag in (pmd or "").upper() for tag in ("LR", "ER", "ZR"))
        return None if long_reach else 2000.0
    return None


def plug_of(part: Mapping) -> Plug:
    """The :class:`Plug` of a transceiver record."""
    return Plug(
        "transceiver",
        part.get("form_factor") or None,
        part.get("top") or None,
        part.get("ports_per_module") or 1,
        part.get("speed_gbps"),
        part.get("lanes"),
        part.get("lane_rate_gbps"),
        part.get("power_max_w"),
        _frozen(part.get("protocols")),
        part.get("side") or None,
        label=part["slug"],
    )


def optic_of(part: Mapping) -> Optic:
    """The :class:`Optic` (optical side) of a transceiver record."""
    return Optic(
        part.get("media") or None,
        part.get("pmd") or None,
        part.get("lane_rate_gbps"),
        part.get("port_speed_gbps"),
        tuple(part.get("breakouts") or ()),
        part.get("connector") or None,
        part.get("wavelength_nm"),
        _frozen(part.get("protocols")),
        tuple(part.get("fiber_grades") or ()),
        label=part["slug"],
    )


def legs_of(part: Mapping) -> int | None:
    """Legs of a cable or fiber: ``legs``, else from ``topology`` (straight 1, ``1:N`` N).

    The catalog rules read a cable's legs the same way (``legs or`` the topology's).

    Examples
    --------
    >>> legs_of({"legs": 4}), legs_of({"topology": "1:2"}), legs_of({"topology": "straight"})
    (4, 2, 1)
    >>> legs_of({}) is None
    True
    """
    if part.get("legs"):
        return int(part["legs"])
    topology = part.get("topology")
    if topology == "straight":
        return 1
    if topology and topology.startswith("1:"):
        return int(topology[2:])
    return None


def cable_plugs_of(part: Mapping) -> tuple[Plug, Plug]:
    """The head (end A) and one leg (end B) of a cable-assembly record, as plugs.

    The head carries every leg's lanes: a ``1:2`` cable with 2 lanes per leg and no ``legs``
    count has a 4-lane head.

    Examples
    --------
    >>> head, leg = cable_plugs_of({"slug": "c", "topology": "1:2", "lanes_per_leg": 2,
    ...                             "speed_gbps": 400, "leg_speed_gbps": 200})
    >>> head.lanes, leg.lanes, head.speed_gbps, leg.speed_gbps
    (4, 2, 400, 200)
    """
    lanes_per_leg = part.get("lanes_per_leg")
    legs = legs_of(part) or 1
    head = Plug(
        "cable",
        part.get("end_a_form_factor") or None,
        part.get("end_a_top") or None,
        part.get("end_a_ports_per_module") or 1,
        part.get("speed_gbps"),
        lanes_per_leg * legs if lanes_per_leg else None,
        part.get("lane_rate_gbps"),
        part.get("power_end_a_w"),
        _frozen(part.get("protocols")),
        label=f"{part['slug']} A",
    )
    leg = Plug(
        "cable",
        part.get("end_b_form_factor") or None,
        part.get("end_b_top") or None,
        part.get("end_b_ports_per_module") or 1,
        part.get("leg_speed_gbps") or part.get("speed_gbps"),
        lanes_per_leg,
        part.get("lane_rate_gbps"),
        part.get("power_end_b_w"),
        _frozen(part.get("protocols")),
        label=f"{part['slug']} B",
    )
    return head, leg


def fiber_of(part: Mapping) -> Fiber:
    """The :class:`Fiber` of a fiber-cable record."""
    return Fiber(
        part.get("fiber_type") or None,
        part.get("connector_a") or None,
        part.get("connector_b") or None,
        part.get("fiber_grade") or None,
        part.get("topology") or None,
        label=part["slug"],
    )


#: The optical budget facts of a transceiver record (issue 19), as :func:`optics_facts_of`
#: gives them.
OPTICS_FACT_KEYS = (
    "phy",
    "channel_il_max_db",
    "reach_m_by_grade",
    "tx_avg_min_dbm",
    "rx_avg_min_dbm",
    "fec",
    "linear",
    "host_serdes_note",
    "rated_with_patch_panels",
)


def optics_facts_of(part: Mapping) -> dict:
    """A transceiver record's optical budget facts, unknowns as None.

    ``phy`` (str), ``channel_il_max_db`` ({grade: dB}), ``reach_m_by_grade`` ({grade: m}, the
    catalog's ``reach_by_grade``), ``tx_avg_min_dbm`` and ``rx_avg_min_dbm`` (per lane),
    ``fec`` (``host-kp4`` | ``host-rs544`` | ``in-module``), ``linear`` (True for an LPO or
    LRO module: the catalog's ``dsp`` is ``linear`` or ``lro``), ``host_serdes_note`` (str,
    ``""`` when none) and ``rated_with_patch_panels`` (patch panels the maker's reach already
    assumes; 0 when not stated).

    Examples
    --------
    >>> f = optics_facts_of({"pmd": "DR4", "phy": "400GBASE-DR4", "dsp": "linear",
    ...                      "channel_il_max_db": {"OS2": 3.0}, "reach_by_grade": {}})
    >>> f["phy"], f["channel_il_max_db"], f["reach_m_by_grade"], f["linear"], f["fec"]
    ('400GBASE-DR4', {'OS2': 3.0}, None, True, None)
    >>> optics_facts_of({})["rated_with_patch_panels"]
    0
    """
    return {
        "phy": part.get("phy") or None,
        "channel_il_max_db": dict(part.get("channel_il_max_db") or {}) or None,
        "reach_m_by_grade": dict(part.get("reach_by_grade") or {}) or None,
        "tx_avg_min_dbm": part.get("tx_avg_min_dbm"),
        "rx_avg_min_dbm": part.get("rx_avg_min_dbm"),
        "fec": part.get("fec") or None,
        "linear": part.get("dsp") in ("linear", "lro"),
        "host_serdes_note": part.get("host_serdes_note") or "",
        "rated_with_patch_panels": part.get("rated_with_patch_panels") or 0,
    }


#: The latency facts of a part record (issue 23), as :func:`latency_facts_of` gives them.
LATENCY_FACT_KEYS = ("latency_ns", "forwarding_mode", "propagation_ns_per_m", "passive")

#: Cable assemblies and fibres with no active parts: they add no latency beyond propagation.
PASSIVE_CABLE_TYPES = ("dac",)


def latency_facts_of(part: Mapping | None) -> dict:
    """A part record's latency facts (issue 23), unknowns as None.

    ``latency_ns``: a switch's port-to-port latency, or what a transceiver or an active
    cable adds (its PHY, DSP, FEC), as published; ``forwarding_mode`` (``cut-through`` |
    ``store-and-forward``, switches); ``propagation_ns_per_m`` (cables and fibres);
    ``passive``: a fibre or a passive copper cable (DAC), whose added latency is nothing but
    its propagation, so ``latency_ns`` is 0 for it. An active cable (ACC, AEC, AOC) or a
    module without a published figure keeps ``latency_ns`` None (unknown, never zero).

    Examples
    --------
    >>> latency_facts_of({"category": "cable", "cable_type": "dac", "propagation_ns_per_m": 4.5})
    {'latency_ns': 0.0, 'forwarding_mode': None, 'propagation_ns_per_m': 4.5, 'passive': True}
    >>> latency_facts_of({"category": "cable", "cable_type": "aec"})["latency_ns"] is None
    True
    >>> switch = latency_facts_of({"category": "switch", "latency_ns": 150,
    ...                            "forwarding_mode": "cut-through"})
    >>> switch["latency_ns"], switch["forwarding_mode"], switch["passive"]
    (150.0, 'cut-through', False)
    """
    part = part or {}
    category = part.get("category")
    passive = category == "fiber" or (
        category == "cable" and part.get("cable_type") in PASSIVE_CABLE_TYPES
    )
    latency = part.get("latency_ns")
    if latency is None and passive:
        latency = 0.0
    propagation = part.get("propagation_ns_per_m")
    return {
        "latency_ns": float(latency) if latency is not None else None,
        "forwarding_mode": part.get("forwarding_mode") or None,
        "propagation_ns_per_m": float(propagation) if propagation is not None else None,
        "passive": passive,
    }


#: The failure facts of a part record (issue 24), as :func:`failure_facts_of` gives them.
FAILURE_FACT_KEYS = ("mtbf_hours", "mtbf_grade", "mtbf_source")


def failure_facts_of(part: Mapping | None) -> dict:
    """A part record's failure facts (issue 24): ``mtbf_hours`` as published or inferred
    (None: unknown, never a guess), with the grade and source of that figure from the
    record's provenance (``""`` when the record names none).

    A part with an MTBF fails ``24 / mtbf_hours`` times a day on average (constant failure
    rate); :mod:`planner.analyses.resilience.failures` adds these up per design.

    Examples
    --------
    >>> failure_facts_of({"mtbf_hours": 1e6, "provenance": {"mtbf_hours": {
    ...     "grade": "datasheet", "source": "nv-x"}}, "sources": {"nv-x": {"url": "https://x"}}})
    {'mtbf_hours': 1000000.0, 'mtbf_grade': 'datasheet', 'mtbf_source': 'https://x'}
    >>> failure_facts_of({"category": "cable"})
    {'mtbf_hours': None, 'mtbf_grade': '', 'mtbf_source': ''}
    """
    part = part or {}
    value = part.get("mtbf_hours")
    try:
        hours = float(value) if value is not None else None
    except (TypeError, ValueError):
        hours = None
    if hours is not None and not hours > 0:
        hours = None
    record = (part.get("provenance") or {}).get("mtbf_hours") or {}
    source = record.get("source") or ""
    url = ((part.get("sources") or {}).get(source) or {}).get("url") if source else None
    return {
        "mtbf_hours": hours,
        "mtbf_grade": str(record.get("grade") or "") if hours is not None else "",
        "mtbf_source": str(url or source) if hours is not None else "",
    }


def port_speeds_of(part: Mapping) -> set[int]:
    """Logical port speeds (Gb/s) a transceiver runs: its port speed (or module speed per
    port) and the per-port speed of each breakout it lists.

    Examples
    --------
    >>> sorted(port_speeds_of({"speed_gbps": 800, "ports_per_module": 2, "breakouts": ["4x200G"]}))
    [200, 400]
    """
    speeds = {part["port_speed_gbps"]} if part.get("port_speed_gbps") else set()
    if not speeds and part.get("speed_gbps") and part.get("ports_per_module"):
        speeds.add(part["speed_gbps"] // part["ports_per_module"])
    for text in part.get("breakouts") or ():
        try:
            speeds.add(parse_breakout(text)[1])
        except ValueError:
            continue
    return speeds


def runs_as_splitter_leg(part: Mapping, speed_gbps: int) -> bool:
    """Whether a transceiver runs ``speed_gbps`` only as the leg of a 1:2 splitter fibre: its
    port speed is twice that and the catalog gives it a reduced-power mode. NVIDIA's 400G
    SR4/DR4 modules "will activate only 2-channels ... creating a 200G speed" when the split
    end of a 1:2 fibre carries 2 channels (MMA4Z00-NS400-T); the catalog records that mode
    as ``power_reduced_w``.

    Examples
    --------
    >>> ns400 = {"port_speed_gbps": 400, "power_reduced_w": 6.5}
    >>> runs_as_splitter_leg(ns400, 200), runs_as_splitter_leg(ns400, 100)
    (True, False)
    >>> runs_as_splitter_leg({"port_speed_gbps": 400}, 200)
    False
    """
    port = part.get("port_speed_gbps")
    if not port and part.get("speed_gbps"):
        port = part["speed_gbps"] // (part.get("ports_per_module") or 1)
    return bool(port) and port == 2 * speed_gbps and part.get("power_reduced_w") is not None


def data_groups(record: Mapping | None, category: str | None = None) -> list[dict]:
    """The data port groups of a device record, in catalog order.

    A switch's ``cage_groups`` with role ``data`` (the default), a server's ``compute_ports``,
    a NIC's ``ports``; ``[]`` for any other record. ``category`` stands in for the record's
    own. The generators' port groups (:func:`planner.domain.catalog.device_from_spec`) are
    these, in this order.

    Examples
    --------
    >>> data_groups({"category": "switch", "cage_groups": [{"count": 64}, {"role": "mgmt"}]})
    [{'count': 64}]
    """
    if not record:
        return []
    key = {"switch": "cage_groups", "server": "compute_ports", "nic": "ports"}.get(
        category or record.get("category") or ""
    )
    groups = record.get(key) if key else None
    return [
        g
        for g in groups or []
        if isinstance(g, Mapping) and (key != "cage_groups" or g.get("role", "data") == "data")
    ]


def _limit(record: Mapping | None, code: str) -> Mapping | None:
    for limit in (record or {}).get("limits") or []:
        if isinstance(limit, Mapping) and limit.get("code") == code:
            return limit
    return None


def _known(value) -> bool:
    return value not in (None, "", "none")


def cage_of(record: Mapping | None, group: Mapping | None, *, nic: Mapping | None = None) -> Cage:
    """The :class:`Cage` of one data port group of a device record.

    Parameters
    ----------
    record : mapping or None
        A switch, server or NIC record.
    group : mapping or None
        One of :func:`data_groups` ``(record)``. Either None (an unknown device or port
        group) gives an unknown host cage.
    nic : mapping or None
        A server's compute NIC record: fills what the server's port leaves unstated (see the
        module notes).

    Examples
    --------
    >>> sw = {"category": "switch", "slug": "S", "protocols": ["infiniband"]}
    >>> cage = cage_of(sw, {"count": 32, "form_factor": "OSFP", "ports_per_cage": 2,
    ...                     "port_speed_gbps": 400, "speeds_gbps": [200, 400]})
    >>> cage.owner, cage.total_gbps, cage.speeds_gbps, cage.label
    ('switch', 800, (200, 400), 'S 32 x OSFP')
    >>> bf3 = {"category": "nic", "slug": "B", "ports": [{"form_factor": "QSFP112"}],
    ...        "limits": [{"code": "cage-only", "form_factors": ["QSFP112"]}]}
    >>> host = cage_of({"category": "server", "slug": "X"}, {"count": 8}, nic=bf3)
    >>> host.owner, host.form_factor, host.accepts
    ('host', 'QSFP112', None)
    """
    if record is None or group is None:
        return Cage("host", None)
    category, slug = record.get("category"), record.get("slug", "")
    if category == "nic":
        nic, port = record, group
        speed = group.get("max_speed_gbps") or record.get("max_speed_gbps")
        lanes = group.get("lanes")
    else:
        port = (data_groups(nic) or [{}])[0] if nic else {}
        speed = group.get("port_speed_gbps")
        lanes = group.get("lanes_per_port")
    form_factor, top = group.get("form_factor") or None, group.get("top") or None
    power = group.get("max_module_power_w")
    if nic:
        only = _limit(nic, "cage-only")
        if form_factor is None and only and only.get("form_factors"):
            form_factor = only["form_factors"][0]
        if form_factor is None and _known(port.get("form_factor")):
            form_factor = port["form_factor"]
        top_only = _limit(nic, "top-only")
        if top is None and top_only and top_only.get("top"):
            top = top_only["top"]
        if power is None and port.get("max_module_power_w"):
            power = port["max_module_power_w"]
    own_protocols = category in ("switch", "nic")
    return Cage(
        "switch" if category == "switch" else "host",
        form_factor,
        top,
        group.get("ports_per_cage") or 1,
        speed,
        lanes,
        group.get("lane_rate_gbps"),
        power,
        _frozen(record.get("protocols")) if own_protocols else frozenset(),
        tuple(group.get("speeds_gbps") or ()),
        tuple(group.get("breakouts") or ()),
        None,
        tuple(record.get("limits") or ()) if category == "nic" else (),
        label=f"{slug} {group.get('count', '?')} x {group.get('form_factor') or form_factor}",
    )


def cages_of(record: Mapping | None, *, nic: Mapping | None = None) -> list[Cage]:
    """Every data cage group of a device record, one :class:`Cage` each (see :func:`cage_of`)."""
    return [cage_of(record, group, nic=nic) for group in data_groups(record)]


__all__ = [
    "COPPER_REACH_M",
    "DEVICE_CATEGORIES",
    "cable_plugs_of",
    "cage_of",
    "cages_of",
    "data_groups",
    "FAILURE_FACT_KEYS",
    "failure_facts_of",
    "fiber_of",
    "LATENCY_FACT_KEYS",
    "latency_facts_of",
    "legs_of",
    "OPTICS_FACT_KEYS",
    "optic_of",
    "optics_facts_of",
    "plug_of",
    "port_speeds_of",
    "reach_cap_m",
]
