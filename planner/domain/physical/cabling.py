"""The channels of a fabric as its design cables them: point to point, or through the
structured cabling of its ``cabling`` block (:mod:`planner.domain.physical.structured`).

Kept apart from :mod:`.channels` so that the structured module can build on the channels
without an import circle.
"""

from __future__ import annotations

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
        The design's ``cabling`` block (default ``fabric.info["cabling"]``, kept by the
        pipeline). Absent or empty: point to point.
    facts : CatalogFacts, optional
        The catalog (the structured plan reads connectors from it, else from
        ``fabric.info["structured"]``).

    Returns
    -------
    Channels
    """
    if cabling is None:
        cabling = (fabric.info or {}).get("cabling")
    if cabling:
        return structured_channels(fabric, cabling, facts)
    return point_to_point_channels(fabric)


__all__ = ["channels_for"]
