"""Which cage a fabric's link end uses, as the facts the compatibility rules judge.

Parts become facts in one place, :mod:`inventory.library.facts` (re-exported here for the
modules that import them from the design domain). What this module adds is the design's
side: the port group a link at a given speed uses on a device (:func:`port_group_of`) and
that group's cage, completed by a server's compute NIC (:func:`end_cage`). Media selection
(:mod:`planner.domain.media`) and the validator (:mod:`planner.analyses.validate`) both
take a link end's cage from :func:`end_cage`, and the catalog's "works with" lists take
theirs from the same :func:`inventory.library.facts.cage_of`.
"""

from __future__ import annotations

from dataclasses import asdict

from inventory.library.compat import Cage
from inventory.library.facts import (
    COPPER_REACH_M,
    cable_plugs_of,
    data_groups,
    fiber_of,
    legs_of,
    optic_of,
    plug_of,
    port_speeds_of,
    reach_cap_m,
)
from inventory.library.facts import cage_of as record_cage
from planner.domain.catalog import CatalogFacts, DeviceModel, PortGroup


def port_group_of(model: DeviceModel | None, speed_gbps: int) -> PortGroup | None:
    """The port group a link at ``speed_gbps`` uses: the one running that speed, else the
    one at the model's port speed, else the first."""
    if model is None:
        return None
    group = model.group_at(speed_gbps)
    if group is None and model.port_speed_gbps:
        group = model.group_at(model.port_speed_gbps)
    if group is None and model.port_groups:
        group = model.port_groups[0]
    return group


def device_cage(model: DeviceModel | None, group: PortGroup | None) -> Cage:
    """The cage of a device model's port group, from the group's own facts (no record, no
    compute NIC): :func:`inventory.library.facts.cage_of` of the group as a record.
    Prefer :func:`end_cage`, which reads the device's catalog record."""
    if model is None or group is None:
        return record_cage(None, None)
    record = {"category": model.category, "slug": model.slug, "protocols": model.protocols}
    return record_cage(record, asdict(group))


#: The name this module gave :func:`device_cage` before the converters moved.
cage_of = device_cage


def compute_nic_of(facts: CatalogFacts, record: dict | None) -> dict | None:
    """A server record's compute NIC record (None when it names none the catalog has)."""
    if not record or record.get("category") != "server" or not record.get("compute_nic"):
        return None
    nic = facts.parts.get(record["compute_nic"])
    return nic if nic is not None and nic.get("category") == "nic" else None


def end_cage(
    facts: CatalogFacts, slug: str, speed_gbps: int
) -> tuple[DeviceModel | None, PortGroup | None, Cage]:
    """The model, port group and cage of device ``slug`` at a link end running
    ``speed_gbps`` (an unknown host cage when the catalog lacks the device or a group).

    The cage is :func:`inventory.library.facts.cage_of` of the device's record and the
    chosen group, completed by a server's compute NIC.
    """
    model = facts.devices.get(slug)
    group = port_group_of(model, speed_gbps)
    if model is None or group is None:
        return model, group, record_cage(None, None)
    record = facts.parts.get(slug)
    index = next(i for i, g in enumerate(model.port_groups) if g is group)
    groups = data_groups(record, model.category)
    if record is not None and record.get("category") == model.category and index < len(groups):
        raw = groups[index]
        return model, group, record_cage(record, raw, nic=compute_nic_of(facts, record))
    return model, group, device_cage(model, group)  # a model without its record (tests)


def ports_per_cage_at(node_per_cage: int, group: PortGroup | None, speed_gbps: int) -> int:
    """Logical ports a cage carries at a link's speed: the node's ports per cage, or fewer when
    the cage runs this link unsplit (an 800G uplink in a cage whose other ports run 2 x 400G).

    >>> from planner.domain.catalog import PortGroup
    >>> sn5600 = PortGroup(64, 1, 800, breakouts=("2x400G", "4x200G"))
    >>> ports_per_cage_at(2, sn5600, 800), ports_per_cage_at(2, sn5600, 400)
    (1, 2)
    >>> ports_per_cage_at(2, None, 400)
    2
    """
    if group is None or not group.port_speed_gbps:
        return node_per_cage
    at_speed = group.ports_per_cage * max(1, group.split_at(speed_gbps))
    return min(node_per_cage, at_speed) if at_speed else node_per_cage


__all__ = [
    "COPPER_REACH_M",
    "cable_plugs_of",
    "cage_of",
    "compute_nic_of",
    "device_cage",
    "end_cage",
    "ports_per_cage_at",
    "fiber_of",
    "legs_of",
    "optic_of",
    "plug_of",
    "port_group_of",
    "port_speeds_of",
    "reach_cap_m",
]
