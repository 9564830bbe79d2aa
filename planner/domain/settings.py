"""A design's settings as its fabric keeps them: what the design asks for, apart from what is
measured on its nodes and links.

The pipeline (:func:`planner.domain.pipeline.build_fabric`) fills one
:class:`FabricSettings` per built fabric and the revision stores it with the fabric
(``Fabric.to_dict()["settings"]``). Every feature reads ``fabric.settings``; what is measured
on the nodes and links (counts, speeds, notes, the generator's plan) stays in
``fabric.info``. A hand edit (:func:`planner.domain.edits.keep_from_base`) copies the base
revision's settings over whole, so an edit changes only what it touched.

A fabric stored before the settings were kept apart has them as ``info`` keys;
:meth:`FabricSettings.from_info` upgrades them on read.

Nothing here imports Django.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from planner.domain.transport.settings import TransportSettings, transport_from_dict

#: ``info`` keys of a fabric stored before :class:`FabricSettings` (format 1), one per field.
INFO_KEYS = (
    "transport",
    "layout",
    "campus",
    "cabling",
    "power_feeds",
    "growth",
    "networks",
    "assumptions",
    "rack_system",
    "planes",
    "generated",
    "optical_margin_min_db",
)
DEFAULT_MARGIN_MIN_DB = 1.0


@dataclass(frozen=True)
class FabricSettings:
    """A design's settings (see the module docstring). Change one with
    :func:`dataclasses.replace`; the blocks are JSON-shaped as the spec and the layout give
    them.

    Attributes
    ----------
    transport
        InfiniBand or RoCE and their settings (the spec's ``transport`` block over the
        defaults of the switch and NIC profiles); None for a design drawn on the canvas.
    layout
        The hall layout: ``rack`` (catalog slug), ``rack_units``, ``usable_rack_units``,
        ``servers_per_rack``, ``racks_per_row`` (and ``racks_per_row_auto``), ``rows``,
        ``racks`` and the run rule's distances in metres (:mod:`planner.domain.layout`).
    campus
        Buildings, their fiber distances in metres and entrance panels
        (:meth:`planner.domain.campus.Campus.as_info`); None for a one-hall design.
    cabling
        The spec's ``cabling`` block (tier -> structured cabling choice); None: direct runs.
    power_feeds
        The spec's ``power`` block (the racks' feeds, for the failure domains).
    growth
        What each growth step adds (a spec with ``grow_to``).
    networks
        The cluster's other networks (storage, in-band, OOB, converged) as sized
        (:meth:`planner.domain.networks.ClusterNetworks.as_dict`).
    assumptions
        Choices the layout made for facts the spec and catalog do not give, each with its
        source or grade.
    rack_system
        The rack-scale system of the servers (``model``, ``compute_trays``, ``gpus_per_tray``,
        ``nics_per_tray``); None for ordinary servers.
    planes
        Parallel planes of the compute fabric.
    generated
        The generator's parameters, kept from the first hand edit on
        (:func:`planner.domain.edits.generated_parameters`); None before.
    optical_margin_min_db
        The optical budget's warning threshold, dB.
    legacy
        Read from a fabric stored before the settings were kept (not stored): a missing
        ``transport`` means it was never kept, not that the design has none.
    """

    transport: TransportSettings | None = None
    layout: dict | None = None
    campus: dict | None = None
    cabling: dict | None = None
    power_feeds: dict | None = None
    growth: dict | None = None
    networks: dict | None = None
    assumptions: tuple[dict, ...] = ()
    rack_system: dict | None = None
    planes: int = 1
    generated: dict | None = None
    optical_margin_min_db: float = DEFAULT_MARGIN_MIN_DB
    legacy: bool = False

    def to_dict(self) -> dict:
        """JSON-ready; :meth:`from_dict` reverses it.

        Examples
        --------
        >>> s = FabricSettings(planes=2, layout={"rack": "R", "racks": 3})
        >>> FabricSettings.from_dict(s.to_dict()) == s
        True
        """
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "legacy"}
        data["transport"] = self.transport.as_dict() if self.transport else None
        data["assumptions"] = [dict(a) for a in self.assumptions]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> FabricSettings:
        transport = data.get("transport")
        margin = data.get("optical_margin_min_db")
        return cls(
            transport=transport_from_dict(transport) if transport else None,
            layout=data.get("layout"),
            campus=data.get("campus"),
            cabling=data.get("cabling"),
            power_feeds=data.get("power_feeds"),
            growth=data.get("growth"),
            networks=data.get("networks"),
            assumptions=tuple(data.get("assumptions") or ()),
            rack_system=data.get("rack_system"),
            planes=int(data.get("planes") or 1),
            generated=data.get("generated"),
            optical_margin_min_db=DEFAULT_MARGIN_MIN_DB if margin is None else float(margin),
            legacy=bool(data.get("legacy")),
        )

    @classmethod
    def from_info(cls, info: dict) -> tuple[FabricSettings, dict]:
        """The settings of a fabric stored before they were kept apart (:data:`INFO_KEYS` in
        its ``info``), and the rest of ``info`` (the measured facts).

        Examples
        --------
        >>> settings, info = FabricSettings.from_info({"planes": 2, "gpus": 16})
        >>> settings.planes, settings.legacy, info
        (2, True, {'gpus': 16})
        """
        kept = {key: info[key] for key in INFO_KEYS if key in info}
        rest = {key: value for key, value in info.items() if key not in INFO_KEYS}
        return cls.from_dict({**kept, "legacy": True}), rest


__all__ = ["DEFAULT_MARGIN_MIN_DB", "INFO_KEYS", "FabricSettings"]
