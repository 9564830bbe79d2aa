"""The channels of a fabric as its design cables them: point to point, or through the
structured cabling of its ``cabling`` block (:mod:`planner.domain.physical.structured`).

Kept apart from :mod:`.channels` so that the structured module can build on the channels
without an import circle.
"""

from __future__ import annotations

from dataclasses import replace

from planner.domain.fabric import Fabric
from planner.domain.physical.channels import Channels, point_to_point_channels
from planner.domain.physical.structured import structured_channels


def channels_for(fabric: Fabric, cabling: dict | None = None, facts=None) -> Channels:
    """The channels of ``fabric``.

    Parameters
    ----------
    fabric : Fabric
        The fabric.
    cabling : dict, optional
        The design's ``cabling`` block (default ``fabric.settings.cabling``, kept by the
        pipeline). Absent or empty: point to point.
    facts : CatalogFacts, optional
        The catalog (the structured plan reads connectors from it, else from
        ``fabric.info["structured"]``).

    Returns
    -------
    Channels
    """
    if cabling is None:
        cabling = fabric.settings.cabling
    if cabling:
        channels = structured_channels(fabric, cabling, facts)
    else:
        channels = point_to_point_channels(fabric)
    return _with_entrance_panels(fabric, channels)


def _with_entrance_panels(fabric: Fabric, channels: Channels) -> Channels:
    """A campus link (between two buildings, :mod:`planner.domain.campus`) also crosses the
    patch panels at both buildings' fiber entrances: ``entrance_panels`` per building, one
    mated LC pair each (next-wave.md §1.4: each patch panel adds one)."""
    panels = int((fabric.settings.campus or {}).get("entrance_panels") or 0)
    if not panels:
        return channels
    crossing = fabric.link_campus()
    if not crossing.any():
        return channels
    mated = channels.mated_pairs.copy()
    mated[crossing] += 2 * panels
    return replace(channels, mated_pairs=mated)


__all__ = ["channels_for"]
