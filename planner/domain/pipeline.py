"""Build a whole fabric from a spec: topology, then layout, then media."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric
from planner.domain.generators import generate_topology
from planner.domain.layout import assign_layout
from planner.domain.media import PriceOf, assign_media
from planner.domain.networks import cluster_networks
from planner.domain.networks import elements as elements_module
from planner.domain.networks.media import choose_network_media, needs_media
from planner.domain.physical.structured import part_summary, plan_structured
from planner.domain.spec_model import DesignSpec
from planner.domain.transport.resolve import resolve_transport

STEPS = 3


def build_fabric(
    spec: DesignSpec,
    facts: CatalogFacts,
    *,
    price_of: PriceOf = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> Fabric:
    """Generate the topology, place it in racks and choose the media of every link.

    A spec with a ``networks`` block also gets its other networks (storage, in-band, OOB,
    converged; :func:`planner.domain.networks.cluster_networks`), sized from the laid-out
    fabric and stored as ``fabric.settings.networks``; the links sized without a part get
    their media by length (:mod:`planner.domain.networks.media`). Their devices and links are
    built here, once, as ``fabric.networks`` (stored with the revision; every reader takes
    them from there: :func:`planner.domain.networks.elements.network_elements`).

    The design's settings are built here, once, as ``fabric.settings``
    (:class:`~planner.domain.settings.FabricSettings`): the generator's planes, rack-scale
    system and growth, the layout, campus and assumptions, the transport (the spec's
    ``transport`` block over the defaults of its switch and NIC profiles;
    :func:`planner.domain.transport.resolve.resolve_transport`), the power feeds, the
    optical margin, the structured cabling and the networks.

    ``on_progress(done, total)`` is called after each of the three steps; ``price_of(slug)``
    is a unit price in one currency, or None for an unpriced part.

    Raises
    ------
    FabricError
        A step cannot be done; ``field`` names the spec field at fault.
    CatalogLookupError
        The spec names a part that is not in the catalog.
    SpecError
        The ``transport`` block asks what the design's parts cannot do (each problem names
        its ``transport.<field>``).
    """

    def progress(done: int) -> None:
        if on_progress:
            on_progress(done, STEPS)

    fabric = generate_topology(spec, facts)
    fabric.settings = replace(
        fabric.settings,
        transport=resolve_transport(spec.transport, fabric, facts),
        # the racks' power feeds, for the failure domains (analyses.resilience)
        power_feeds=dict(spec.power) if spec.power else None,
        optical_margin_min_db=float(spec.optical_margin_min_db),
    )
    progress(1)
    assign_layout(fabric, spec, facts)
    progress(2)
    assign_media(fabric, spec, facts, price_of=price_of)
    if spec.structured:
        _structured(fabric, spec, facts)
    _networks(fabric, spec, facts, price_of)
    progress(3)
    return fabric


def _networks(fabric: Fabric, spec: DesignSpec, facts: CatalogFacts, price_of: PriceOf) -> None:
    """The other networks: sized (``fabric.settings.networks``), then built once as devices
    and links (``fabric.networks``, stored with the revision; empty without a ``networks``
    block). Links sized without a part get their media by length from the built links' runs,
    then the links take the media chosen."""
    if not spec.networks:
        fabric.networks = elements_module.ClusterElements()
        return
    cluster = cluster_networks(spec, fabric, facts)
    fabric.settings = replace(fabric.settings, networks=cluster.as_dict())
    elements = elements_module.cluster_elements(fabric, facts)
    if needs_media(cluster):  # media by length: their links' runs are needed
        cluster = choose_network_media(cluster, elements, facts, price_of=price_of)
        fabric.settings = replace(fabric.settings, networks=cluster.as_dict())
        elements = elements_module.with_plan_media(elements, fabric.settings.networks, facts)
    fabric.networks = elements


def _structured(fabric: Fabric, spec: DesignSpec, facts: CatalogFacts) -> None:
    """A spec that cables some tier through patch panels: keep its ``cabling`` block in
    ``fabric.settings``, what the plan reads of the parts and the plan's counts in
    ``fabric.info["structured"]`` (:mod:`planner.domain.physical.structured`)."""
    cabling = {tier: choice.as_spec() for tier, choice in spec.cabling.items()}
    fabric.settings = replace(fabric.settings, cabling=cabling)
    fabric.info["structured"] = {"parts": part_summary(fabric, facts)}
    plan = plan_structured(fabric, cabling, facts)
    fabric.info["structured"].update(
        links=int(plan.structured.sum()),
        panels=len(plan.panels),
        trunks=len(plan.trunks),
        notes=plan.notes,
    )


__all__ = ["build_fabric"]
