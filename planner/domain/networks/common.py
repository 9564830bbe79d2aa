"""What every cluster network shares: defaults by server family, settings, results, parts.

A design's compute fabric is the spec's topology; the other networks of a cluster (storage,
in-band management, out-of-band management, or a converged storage + in-band fabric) are
stated in the spec's ``networks`` block and sized here by rule. Defaults follow the reference
architecture of the server family (:func:`family_defaults`):

- DGX-H100 and DGX-H200: NVIDIA DGX SuperPOD H100 reference architecture, RA-11333-001 V11
  (2023-09-22), Tables 7 and 8 (:data:`RA_H100`, :data:`RA_DEFAULTS`). Values the RA prints
  but does not derive (storage-array ports, NFS links, management and UFM nodes, management
  racks, the storage leaf count) are spec fields whose default is the RA's value.
- DGX-B200: NVIDIA DGX SuperPOD B200 reference architecture, RA-11334-001 V08, its management
  rack figure (:data:`B200_DEFAULTS`); the rows it reproduces and the ones it does not are in
  :mod:`planner.domain.networks.published`.
- GB200-NVL72 and GB300-NVL72: one converged storage + in-band Ethernet fabric on SN5600 and
  SN2201 out-of-band switches, two in every rack (:data:`NVL72_DEFAULTS`); no other
  per-network switch counts were found for them, so otherwise only the switch models and the
  node ports are defaults.
- other servers (DGX-B300 included: no published storage, in-band or OOB switch counts were
  found): the same rules; a field whose default is not known (the switch models, a converged
  fabric's everything) must be given, and is refused naming the field.

Where neither the spec nor the family's reference gives a network's ports per node or speed,
they come from the server's catalog ports of that role (``other_ports``:
:func:`node_port_defaults`), and the network's conventions name what was taken and how firm
it is (DGX-B300: a pair of storage and of in-band ports per the B300 RA, 400G inferred).

Every figure behind these defaults, with its address, the sentence or table row quoted and the
date it was read, is listed in :mod:`planner.domain.networks.published`.

Nothing here imports Django.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import FabricError
from planner.domain.networks.bandwidth import StorageBandwidth

NETWORKS = ("storage", "converged", "inband", "oob")  # build order (oob counts the others)
SHARED_FIELDS = ("management_nodes", "ufm_appliances", "management_racks")
H100_FAMILY = ("DGX-H100", "DGX-H200")
RA_H100 = "NVIDIA DGX SuperPOD H100 reference architecture RA-11333-001 V11, Tables 7 and 8"

# Ports of switches whose catalog record lists none yet (RA-11333-001 V11 Table 7: "SN4600C
# switch ... 64 QSFP28 ports", "SN2201 switch ... 48 RJ45 ports"; the SN2201's 4 QSFP28
# uplinks from NVIDIA's SN2201 manual). Catalog port facts win when present.
PUBLISHED_PORTS: dict[str, dict[int, tuple[int, int]]] = {
    # slug -> {speed_gbps: (ports, ports_per_cage)}
    "SN4600C": {100: (64, 1)},
    "SN2201": {1: (48, 1), 100: (4, 1)},
}

# Rule defaults: any server family.
RULE_DEFAULTS: dict[str, dict] = {
    "shared": {"management_nodes": 0, "ufm_appliances": 0, "management_racks": 0},
    "storage": {
        "ports_per_node": 2,
        "dual_homed": True,
        "oversubscription": 1,
        "storage_ports": 0,
        "storage_leaves": None,
        "ufm_appliances": 0,
        "management_ports_per_node": 2,
        "read_gbytes_per_node": None,  # nothing asked, nothing checked
        "concurrent_readers": "all",
    },
    "converged": {
        "ports_per_node": 2,
        "dual_homed": True,
        "oversubscription": 1,
        "storage_ports": 0,
        "storage_leaves": None,
        "ufm_appliances": 0,
        "management_ports_per_node": 2,
        "uplinks": 0,
        "read_gbytes_per_node": None,
        "concurrent_readers": "all",
    },
    "inband": {
        "ports_per_node": 2,
        "dual_homed": True,
        "leaf_uplinks": 4,
        "isl_per_pair": 2,
        "cores": None,  # 2, more as needed (inband.py)
        "uplinks": 0,
        "nfs_links": 0,
        "management_ports_per_node": 2,
    },
    "oob": {
        "ports_per_node": 1,
        "uplinks": 2,
        "uplink_speed_gbps": 100,
        "switch_multiple": 1,
        "pdus_per_rack": 3,
        "pdus_per_management_rack": 2,
        "ufm_back_to_back": None,  # one per UFM pair
        "storage_mgmt_ports": 0,
        "nvlink_switch_trays": None,  # from the catalog (rack-scale systems)
        "switches_per_rack": None,  # None: sized by port count (oob.py)
    },
}

# The RA's values (DGX-H100 / DGX-H200 only), over the rule defaults.
RA_DEFAULTS: dict[str, dict] = {
    "shared": {"management_nodes": 4, "ufm_appliances": 4, "management_racks": 6},
    "storage": {
        "leaf": "QM9700",
        "spine": "QM9700",
        "speed_gbps": 400,
        "oversubscription": "4:3",
        "storage_ports": 96,
        "storage_port_speed_gbps": 200,
        "storage_leaves": 4,
        "ufm_appliances": 2,
        # RA storage section: "a GDS-enabled application should be able to read data at over
        # 40 GBps" (planner.domain.networks.bandwidth.RA_READ_SOURCE); one node reading is our
        # reading of "an application" (inferred)
        "read_gbytes_per_node": 40,
        "concurrent_readers": 1,
    },
    "converged": {},
    "inband": {
        "leaf": "SN4600C",
        "core": "SN4600C",
        "speed_gbps": 100,
        "uplinks": 4,
        "nfs_links": 8,
    },
    "oob": {"leaf": "SN2201", "switch_multiple": 2},
}

# DGX-B200: NVIDIA DGX SuperPOD B200 RA-11334-001 V08 (sources and quotes:
# planner.domain.networks.published, rows "b200-*"). Over the rule defaults.
B200_DEFAULTS: dict[str, dict] = {
    # Figure 3.2 (management racks, 4 SU): 7 management nodes, 2 compute + 2 storage UFMs,
    # five management racks.
    "shared": {"management_nodes": 7, "ufm_appliances": 4, "management_racks": 5},
    "storage": {
        "leaf": "QM9700",  # Figure 3.2: "8 x QM9700 storage leaves, 4 x QM9700 storage spines"
        "spine": "QM9700",
        "speed_gbps": 400,  # 400G storage ports (BlueField-3 QSFP112), as the H100 RA's
        "oversubscription": "4:3",  # inferred: the H100 RA's "near 4:3" (B200 text not read)
        "spines": 4,  # printed, not derived: the fewest-spines rule gives 3 at 4:3
        "ufm_appliances": 2,  # Figure 3.2: "2 x storage UFMs"
    },
    "converged": {},
    "inband": {
        "leaf": "SN5600",  # Figure 3.2: "2 x SN5600 in-band leaves, 2 x SN5600 in-band spines"
        "core": "SN5600",
        "speed_gbps": 200,  # "in-band connections operate at 200 Gbps and are bonded"
    },
    # Figure 3.2: "16 x SN2201 out-of-band leaves" for the 4 SU build's 64 compute racks of
    # two DGX B200: one per 4 racks (inferred: the figure prints the count, not the rule)
    "oob": {"leaf": "SN2201", "switches_per_rack": 0.25},
}

# GB200-NVL72 / GB300-NVL72: storage and in-band on one Ethernet fabric (GB200 SuperPOD RA:
# "Storage and In-band Ethernet Fabric"; Mission Control: SN5600 "(INBAND)", SN2201 "(OOB)"),
# each compute tray on it with "two 400 Gb/s ports to two separate switches" (NVL72 Enterprise
# RA). Racks are fed by power shelves, not rack PDUs (GB300: "8 power shelves of 33 kW").
NVL72_DEFAULTS: dict[str, dict] = {
    "shared": {},
    "storage": {},
    "converged": {"leaf": "SN5600", "spine": "SN5600", "speed_gbps": 400, "ports_per_node": 2},
    "inband": {},
    # GB300 NVL72 components: "2 SN2201 OOB switches for integrated management access of rack
    # components"; Mission Control: "IPMI Covers GB200 (2x per GB200 rack) SN2201s"
    "oob": {"leaf": "SN2201", "pdus_per_rack": 0, "switches_per_rack": 2},
}

#: Family defaults by catalog server slug (see :func:`family_defaults`).
FAMILY_DEFAULTS: dict[str, dict[str, dict]] = {
    "DGX-H100": RA_DEFAULTS,
    "DGX-H200": RA_DEFAULTS,
    "DGX-B200": B200_DEFAULTS,
    "GB200-NVL72": NVL72_DEFAULTS,
    "GB300-NVL72": NVL72_DEFAULTS,
}

FAMILY_NAMES = ", ".join(sorted(FAMILY_DEFAULTS))

REQUIRED = {  # fields without a rule default: the RA gives them, or the spec must
    "storage": ("leaf",),
    "converged": ("leaf",),
    "inband": ("leaf",),
    "oob": ("leaf",),
}


def is_ra_family(server: str) -> bool:
    """Whether the H100 SuperPOD reference architecture's defaults (and its parts) apply to
    ``server``."""
    return server in H100_FAMILY


def family_defaults(server: str) -> dict[str, dict]:
    """The reference defaults of ``server``'s family, over :data:`RULE_DEFAULTS` (empty when
    no reference architecture gives any).

    >>> family_defaults("DGX-B200")["inband"]["leaf"], family_defaults("XE9680")
    ('SN5600', {})
    """
    return FAMILY_DEFAULTS.get(server, {})


def resolve_settings(networks: dict, server: str) -> tuple[dict, list[tuple[str, str]]]:
    """The ``networks`` block with defaults filled in, and the problems found.

    Parameters
    ----------
    networks : dict
        The spec's ``networks`` block, already checked against the JSON Schema.
    server : str
        The spec's server slug; its family's defaults (:func:`family_defaults`) come over the
        rule defaults.

    Returns
    -------
    tuple
        ``({"shared": {...}, "<network>": {...}, ...}, [(field, message), ...])`` with one
        entry per network the block names (``compute`` is the spec's own fabric and is left
        out).

    Examples
    --------
    >>> settings, problems = resolve_settings({"oob": {}}, "DGX-H100")
    >>> settings["oob"]["leaf"], settings["shared"]["management_racks"], problems
    ('SN2201', 6, [])
    >>> resolve_settings({"oob": {}}, "XE9680")[1][0][0]
    'networks.oob.leaf'
    """
    family = family_defaults(server)
    problems: list[tuple[str, str]] = []
    shared = dict(RULE_DEFAULTS["shared"])
    shared.update(family.get("shared") or {})
    shared.update({key: networks[key] for key in SHARED_FIELDS if key in networks})
    settings: dict = {"shared": shared}
    for name in NETWORKS:
        if name not in networks:
            continue
        values = dict(RULE_DEFAULTS[name])
        values.update(family.get(name) or {})
        values.update(networks[name] or {})
        for key in REQUIRED[name]:
            if not values.get(key):
                problems.append(
                    (
                        f"networks.{name}.{key}",
                        f"required: no default switch is known for server {server!r} "
                        f"on this network (reference defaults exist for {FAMILY_NAMES})",
                    )
                )
        try:
            values["oversubscription"] = ratio(values.get("oversubscription", 1))
        except ValueError as exc:
            problems.append((f"networks.{name}.oversubscription", str(exc)))
        if name == "oob" and values.get("switches_per_rack") is not None:
            try:
                rack_group_shape(values["switches_per_rack"])
            except ValueError as exc:
                problems.append(("networks.oob.switches_per_rack", str(exc)))
        settings[name] = values
    if "oob" in settings and not ({"inband", "converged"} & set(settings)):
        settings["oob"]["uplinks_into"] = "customer network"
    return settings, problems


#: The role of a node's catalog ports (``other_ports``) each network's per-node ports and
#: speed are read from, first found (planner.domain.networks.media reads the cage the same way).
NODE_PORT_SETTINGS = {
    "storage": ("storage",),
    "converged": ("converged", "storage"),
    "inband": ("inband",),
    "oob": ("oob",),
}


def _plain(value):
    return value.get("value") if isinstance(value, dict) else value


def _graded(provenance: dict, index: int, key: str) -> str:
    """`` (inferred: note)`` for an inferred or estimated node-port value, else ``""``."""
    prov = provenance.get(f"other_ports.{index}.{key}") or {}
    grade, note = prov.get("grade"), prov.get("note")
    if grade in ("inferred", "estimate"):
        return f" ({grade}: {note})" if note else f" ({grade})"
    return ""


def node_port_defaults(
    settings: dict, networks: dict, server: str, facts: CatalogFacts
) -> tuple[dict, dict[str, str]]:
    """Each network's ``ports_per_node`` and ``speed_gbps`` from the server's catalog ports
    (``other_ports`` of the network's role) where neither the spec nor the family's reference
    gives them, and per network a sentence naming what was taken, with its grade and note.

    A rack-scale system's ports are listed per rack while its hosts are compute trays: its
    family defaults stand. The OOB network's speed is its switches' (1 GbE RJ45): only its
    ports per node are read.

    >>> from planner.domain.catalog import CatalogFacts
    >>> facts = CatalogFacts(parts={"S": {"kind": "server", "other_ports": [
    ...     {"role": "storage", "count": 2, "port_speed_gbps": 400}],
    ...     "provenance": {"other_ports.0.port_speed_gbps": {"grade": "inferred",
    ...                                                      "note": "as B200"}}}})
    >>> values, notes = node_port_defaults({"storage": {"ports_per_node": 2}}, {}, "S", facts)
    >>> values["storage"]["speed_gbps"], notes["storage"]
    (400, 'S storage ports from the catalog: 2 per node, 400G (inferred: as B200)')
    >>> node_port_defaults({"storage": {}}, {"storage": {"speed_gbps": 200}}, "S", facts)[1]
    {'storage': 'S storage ports from the catalog: 2 per node'}
    """
    record = facts.parts.get(server) or {}
    if record.get("kind") == "rack-system":
        return settings, {}
    provenance = record.get("provenance") or {}
    family = family_defaults(server)
    notes: dict[str, str] = {}
    for name, values in settings.items():
        roles = NODE_PORT_SETTINGS.get(name)
        if not roles:
            continue
        found = None
        for role in roles:
            for index, entry in enumerate(record.get("other_ports") or []):
                if isinstance(entry, dict) and entry.get("role") == role:
                    found = (index, entry)
                    break
            if found:
                break
        if found is None:
            continue
        index, entry = found
        given = {**(family.get(name) or {}), **(networks.get(name) or {})}
        taken = []

        count = _plain(entry.get("count"))
        if "ports_per_node" not in given and isinstance(count, int) and count >= 1:
            values["ports_per_node"] = count
            taken.append(f"{count} per node{_graded(provenance, index, 'count')}")
        speed = _plain(entry.get("port_speed_gbps"))
        number = isinstance(speed, int | float) and not isinstance(speed, bool) and speed > 0
        if name != "oob" and "speed_gbps" not in given and number:
            leaf = facts.devices.get(values.get("leaf") or "")
            if leaf is None or leaf.radix_at(int(speed)):
                values["speed_gbps"] = int(speed)
                taken.append(f"{int(speed)}G{_graded(provenance, index, 'port_speed_gbps')}")
            else:  # a slower leaf: the links run at the leaf's speed (its default)
                taken.append(
                    f"{int(speed)}G ports on {leaf.slug} leaves without {int(speed)}G ports: "
                    "the links run at the leaf's speed"
                )
        if taken:
            notes[name] = f"{server} {entry['role']} ports from the catalog: {', '.join(taken)}"
    return settings, notes


def rack_group_shape(switches_per_rack) -> tuple[int, int]:
    """``(racks, switches)`` of one OOB rack group from ``networks.oob.switches_per_rack``:
    a whole number of switches in every compute rack, or one switch per whole number of racks.

    >>> rack_group_shape(2), rack_group_shape(0.25), rack_group_shape("1/3")
    ((1, 2), (4, 1), (3, 1))
    >>> rack_group_shape(0.4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: 0.4: a whole number of switches per rack (2) or one switch per whole number ...
    """
    try:
        value = Fraction(str(switches_per_rack).strip())
    except (ValueError, ZeroDivisionError):
        value = Fraction(-1)
    if value > 0 and value.denominator == 1:
        return 1, value.numerator
    if 0 < value < 1:
        racks = 1 / value
        near = round(racks)
        if near >= 2 and abs(racks - near) <= Fraction(1, 100):  # 0.333 = one per 3 racks
            return int(near), 1
    raise ValueError(
        f"{switches_per_rack}: a whole number of switches per rack (2) or one switch per "
        "whole number of racks (0.25 = one per 4 racks)"
    )


def ratio(value) -> Fraction:
    """A downlink:uplink ratio from ``4:3``, ``"1.5"`` or a number (at least 1).

    >>> ratio("4:3"), ratio(1.3333), ratio(2)
    (Fraction(4, 3), Fraction(4, 3), Fraction(2, 1))
    """
    if isinstance(value, Fraction):
        result = value
    elif isinstance(value, str) and ":" in value:
        down, up = value.split(":", 1)
        result = Fraction(int(down), int(up))
    else:
        result = Fraction(str(value)).limit_denominator(100)
    if result < 1:
        raise ValueError(f"{value!r}: a downlink:uplink ratio of at least 1")
    return result


def ceil_div(a, b) -> int:
    """Integer ceiling of ``a / b`` (exact for fractions)."""
    return int(math.ceil(Fraction(a) / Fraction(b)))


# --------------------------------------------------------------------------------------------
# parts


@dataclass(frozen=True)
class PartRef:
    """A part a network uses: its catalog slug when the catalog has it, else only the
    reference's part number and description (``in_catalog`` False: "part not in catalog")."""

    label: str  # catalog slug, or the printed part number / kind when not in the catalog
    part_number: str = ""
    description: str = ""
    in_catalog: bool = False
    category: str = ""  # catalog category when known (fiber, cable, transceiver, switch)

    def as_dict(self) -> dict:
        return {
            "part": self.label,
            "part_number": self.part_number,
            "description": self.description,
            "in_catalog": self.in_catalog,
            "category": self.category,
        }


def find_part(
    facts: CatalogFacts, candidates: tuple[str, ...], description: str, category: str = "cable"
) -> PartRef:
    """The first of ``candidates`` (the reference's part number first, then the maker's
    ordering name) that the catalog has, else a :class:`PartRef` not in the catalog whose
    ``category`` is the given one (how its bill-of-materials line is filed)."""
    for name in candidates:
        record = facts.parts.get(name)
        if record:
            return PartRef(
                label=str(record.get("slug") or name),
                part_number=str(record.get("part_number") or candidates[0]),
                description=description,
                in_catalog=True,
                category=str(record.get("category") or ""),
            )
    return PartRef(
        label=candidates[0],
        part_number=candidates[0],
        description=description,
        category=category,
    )


def switch_ports(facts: CatalogFacts, slug: str, speed_gbps: int, where: str) -> tuple[int, int]:
    """``(ports, ports_per_cage)`` a switch model offers at ``speed_gbps``.

    Catalog port facts first, then :data:`PUBLISHED_PORTS` for the reference switches whose
    record lists no ports yet.

    Raises
    ------
    FabricError
        ``field`` = ``where``: the model is not a catalog switch, or has no port at that
        speed.
    """
    device = facts.devices.get(slug)
    if (device is None or device.category != "switch") and slug not in PUBLISHED_PORTS:
        raise FabricError(f"{where}: no switch {slug!r} in the catalog", field=where)
    if device is not None and device.radix_at(speed_gbps):
        group = device.group_at(speed_gbps)
        split = group.split_at(speed_gbps) if group else 1
        return device.radix_at(speed_gbps), (group.ports_per_cage * split if group else 1)
    published = PUBLISHED_PORTS.get(slug, {}).get(speed_gbps)
    if published:
        return published
    raise FabricError(
        f"{where}: switch {slug!r} has no {speed_gbps}G ports (in the catalog or the reference "
        "architecture); choose another switch or speed",
        field=where,
    )


# --------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class SwitchGroup:
    """Switches of one role and model, and the ports they use."""

    role: str
    model: str
    count: int
    ports_used: int
    ports_each: int

    def as_dict(self) -> dict:
        return {
            "role": self.role,
            "model": self.model,
            "count": self.count,
            "ports_used": self.ports_used,
            "ports_each": self.ports_each,
        }


@dataclass(frozen=True)
class LinkGroup:
    """Links that join the same kinds of things the same way.

    ``links`` is the number of logical links (ports at ``speed_gbps``); ``cables`` the
    assemblies counted (a 1:2 splitter counts once for its two legs).
    """

    name: str
    a: str
    b: str
    links: int
    speed_gbps: float
    cable_kind: str
    cables: int
    cable: PartRef | None = None
    note: str = ""
    # Media chosen by length (planner.domain.networks.media): per part combination used,
    # its counts; and per pair of end models, the ranked options the choice reapplies.
    media: tuple[dict, ...] = ()
    media_options: tuple[dict, ...] = ()

    def as_dict(self) -> dict:
        out = {
            "name": self.name,
            "a": self.a,
            "b": self.b,
            "links": self.links,
            "speed_gbps": self.speed_gbps,
            "cable_kind": self.cable_kind,
            "cables": self.cables,
            "cable": self.cable.as_dict() if self.cable else None,
            "note": self.note,
        }
        if self.media or self.media_options:
            out["media"] = [dict(use) for use in self.media]
            out["media_options"] = [dict(option) for option in self.media_options]
        return out

    def cable_counts(self) -> list[tuple[str | None, str, int, str]]:
        """``(part label, kind, cables, category)``: per chosen medium, then what is left
        unchosen (part ``None``). A group whose "cable" is a module alone (the customer
        supplies the fibre) has category ``transceiver``, as its bill-of-materials line."""
        if not self.media:
            if self.cable is None:
                return [(None, self.cable_kind, self.cables, "")]
            return [(self.cable.label, self.cable_kind, self.cables, self.cable.category)]
        out = [
            (
                use["cable"]["part"],
                use["cable_kind"],
                int(use["cables"]),
                use["cable"].get("category") or "",
            )
            for use in self.media
        ]
        left = self.cables - sum(n for _, _, n, _ in out)
        if left > 0:
            out.append((None, "not chosen", left, ""))
        return out


@dataclass(frozen=True)
class PartCount:
    """A counted part (transceiver, adapter): where it sits and how it is counted."""

    part: PartRef
    side: str
    count: int
    category: str
    counted_per: str

    def as_dict(self) -> dict:
        return {
            **self.part.as_dict(),
            "side": self.side,
            "count": self.count,
            "category": self.category,
            "counted_per": self.counted_per,
        }


@dataclass(frozen=True)
class NetworkPlan:
    """One network of the cluster: switches, link groups, counted parts, endpoints served
    and the counting conventions that make its numbers."""

    name: str
    switches: tuple[SwitchGroup, ...]
    link_groups: tuple[LinkGroup, ...]
    parts: tuple[PartCount, ...] = ()
    endpoints: tuple[tuple[str, int], ...] = ()
    conventions: tuple[str, ...] = ()
    managed_ports: tuple[tuple[str, int], ...] = ()  # OOB only: what its ports serve
    settings: dict = field(default_factory=dict)
    bandwidth: StorageBandwidth | None = None  # storage / converged: read rate per node

    @property
    def switch_count(self) -> int:
        return sum(group.count for group in self.switches)

    def as_dict(self) -> dict:
        """JSON-ready: what the summary shows and the bill of materials lists."""
        by_model: dict[str, dict[str, int]] = {}
        for group in self.switches:
            role = by_model.setdefault(group.role, {})
            role[group.model] = role.get(group.model, 0) + group.count
        cables: dict[str, int] = {}
        by_kind: dict[str, int] = {}
        not_chosen: dict[str, int] = {}
        transceivers: dict[str, int] = {}
        by_side: dict[str, dict[str, int]] = {}
        for group in self.link_groups:
            for label, kind, count, category in group.cable_counts():
                by_kind[kind] = by_kind.get(kind, 0) + count
                if label is None:  # no part to order: not among the parts, as in the BOM
                    not_chosen[kind] = not_chosen.get(kind, 0) + count
                elif category == "transceiver":
                    transceivers[label] = transceivers.get(label, 0) + count
                    side = by_side.setdefault(group.name, {})
                    side[label] = side.get(label, 0) + count
                else:
                    cables[label] = cables.get(label, 0) + count
        for count in self.parts:
            if count.category != "transceiver":
                continue
            transceivers[count.part.label] = transceivers.get(count.part.label, 0) + count.count
            side = by_side.setdefault(count.side, {})
            side[count.part.label] = side.get(count.part.label, 0) + count.count
        missing = sorted(
            {
                ref.label
                for ref in [g.cable for g in self.link_groups] + [p.part for p in self.parts]
                if ref is not None and not ref.in_catalog
            }
        )
        out = {
            "switches": by_model,
            "switches_total": self.switch_count,
            "links": {group.name: group.links for group in self.link_groups},
            "cables": cables,
            "cables_by_kind": by_kind,
            "cables_not_chosen": not_chosen,
            "cables_total": sum(group.cables for group in self.link_groups),
            "transceivers": transceivers,
            "transceivers_by_side": by_side,
            "endpoints": dict(self.endpoints),
            "link_groups": [group.as_dict() for group in self.link_groups],
            "parts": [count.as_dict() for count in self.parts],
            "switch_groups": [group.as_dict() for group in self.switches],
            "parts_not_in_catalog": missing,
            "conventions": list(self.conventions),
            "settings": {k: _plain(v) for k, v in self.settings.items()},
        }
        if self.bandwidth is not None:
            out["bandwidth"] = self.bandwidth.as_dict()
        if self.managed_ports:
            out["managed_ports"] = dict(self.managed_ports)
            out["managed_ports_total"] = sum(n for _, n in self.managed_ports)
        return out


def _plain(value):
    if isinstance(value, Fraction):
        return f"{value.numerator}:{value.denominator}"
    return value


@dataclass(frozen=True)
class ClusterNetworks:
    """Every network a spec's ``networks`` block asks for, in build order."""

    server: str
    networks: tuple[NetworkPlan, ...]
    shared: dict = field(default_factory=dict)

    def get(self, name: str) -> NetworkPlan | None:
        return next((plan for plan in self.networks if plan.name == name), None)

    def as_dict(self) -> dict:
        """``{network name: network dict}`` (see :meth:`NetworkPlan.as_dict`)."""
        return {plan.name: plan.as_dict() for plan in self.networks}


def cages(ports_per_switch: list[int], per_cage: int) -> int:
    """Cages used: per switch, its used ports rounded up to whole cages.

    >>> cages([32, 32, 30], 2)
    47
    """
    return sum(ceil_div(p, per_cage) for p in ports_per_switch if p)


def spread(total: int, bins: int) -> list[int]:
    """``total`` filled bin by bin, ``ceil(total / bins)`` each until it runs out.

    >>> spread(254, 8)
    [32, 32, 32, 32, 32, 32, 32, 30]
    """
    if bins <= 0:
        return []
    each = ceil_div(total, bins)
    out = []
    left = total
    for _ in range(bins):
        take = min(each, max(left, 0))
        out.append(take)
        left -= take
    return out
