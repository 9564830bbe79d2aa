"""Reads of designs, scoped by who may see and change them.

Sharing rules:

- the owner always reads and writes (and alone deletes, or changes team and sharing);
- members of the design's team read it when sharing is ``team-read`` or ``team-edit``;
- members with role editor or owner write it when sharing is ``team-edit``;
- anyone else does not see it: 404, never 403, so ids do not leak. A user who can read but not
  write gets 403 on a write.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from django.core.exceptions import PermissionDenied
from django.db.models import (
    BinaryField,
    F,
    IntegerField,
    JSONField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Substr
from django.http import Http404

from inventory.models import ServerModel
from planner.designs.adapters import (
    catalog_facts,
    catalog_fingerprint,
    fabric_part_names,
    fabric_settings,
    fabric_settings_from_start,
    fabric_unpack,
    price_of_factory,
)
from planner.designs.models import Design, DesignRevision, DesignSharingChoices
from planner.domain import canvas
from planner.domain.catalog import spec_part_fields
from planner.domain.fabric import Fabric
from planner.domain.networks.element_parts import ClusterElements
from planner.domain.networks.elements import network_elements
from planner.domain.settings import FabricSettings
from planner.domain.spec import SpecError, parse_spec
from planner.teams.models import WRITE_ROLES, TeamMembership

SHARED = (DesignSharingChoices.TEAM_READ, DesignSharingChoices.TEAM_EDIT)


def _visible(user) -> Q:
    teams = TeamMembership.objects.filter(user_id=user.pk).values("team_id")
    return Q(owner_id=user.pk) | Q(sharing__in=SHARED, team_id__in=teams)


def design_list_for(user) -> QuerySet[Design]:
    """Designs ``user`` may open, newest change first, with ``latest_number``,
    ``latest_id`` and ``latest_summary`` (of the latest revision), ``gpus`` (its GPU count)
    and ``owner_name`` annotated (the last two for sorting)."""
    if not getattr(user, "is_authenticated", False):
        return Design.objects.none()
    latest = DesignRevision.objects.filter(design=OuterRef("pk")).order_by("-number")
    gpus = latest.annotate(gpus=Cast(KeyTextTransform("gpus", "summary"), IntegerField()))
    return (
        Design.objects.filter(_visible(user))
        .select_related("owner", "team")
        .annotate(
            latest_number=Subquery(latest.values("number")[:1], output_field=IntegerField()),
            latest_id=Subquery(latest.values("pk")[:1], output_field=IntegerField()),
            latest_summary=Subquery(latest.values("summary")[:1], output_field=JSONField()),
            gpus=Subquery(gpus.values("gpus")[:1], output_field=IntegerField()),
            owner_name=F("owner__username"),
        )
    )


def design_can_write(user, design: Design) -> bool:
    """Whether ``user`` may add revisions to ``design`` and rename it."""
    if design.owner_id == user.pk:
        return True
    return (
        design.sharing == DesignSharingChoices.TEAM_EDIT
        and design.team_id is not None
        and TeamMembership.objects.filter(
            team_id=design.team_id, user_id=user.pk, role__in=WRITE_ROLES
        ).exists()
    )


def design_can_manage(user, design: Design) -> bool:
    """Whether ``user`` may delete ``design`` or change its team and sharing (owner only)."""
    return design.owner_id == user.pk


def owned_design_ids(user) -> QuerySet:
    """Ids of the designs ``user`` owns (a values query): they read those designs' audit
    events (:func:`planner.audit.log.install_design_owners`)."""
    return Design.objects.filter(owner_id=user.pk).values("pk")


def design_get_for(user, pk, *, write: bool = False, manage: bool = False) -> Design:
    """The design ``pk`` if ``user`` may read it (and write or manage it, when asked).

    Raises
    ------
    Http404
        The design does not exist or ``user`` may not read it.
    PermissionDenied
        ``user`` may read it but not make the change asked for.
    """
    try:
        design = design_list_for(user).get(pk=pk)
    except (Design.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404("No such design.") from exc
    if manage and not design_can_manage(user, design):
        raise PermissionDenied("Only the design's owner may delete it or change its sharing.")
    if write and not design_can_write(user, design):
        raise PermissionDenied("You may view this design but not change it.")
    return design


def revision_get(design: Design, number) -> DesignRevision:
    """Revision ``number`` of ``design`` (404 if there is none)."""
    try:
        return design.revisions.select_related("created_by").get(number=number)
    except (DesignRevision.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404(f"Design {design.pk} has no revision {number}.") from exc


def revision_list(design: Design) -> QuerySet[DesignRevision]:
    """Revisions of ``design``, newest first, without the stored topology."""
    return design.revisions.select_related("created_by").defer("topology").order_by("-number")


# --- which revisions use a catalog part ------------------------------------------------------


def spec_part_names(spec: dict) -> set[str]:
    """Catalog names a stored spec names (server, switches, explicit media, rack)."""
    if not isinstance(spec, dict) or not spec:
        return set()
    try:
        return {name for _, name in spec_part_fields(parse_spec(spec))}
    except (SpecError, TypeError, ValueError, KeyError):
        # Read what it names even where the stored spec no longer parses.
        def mapping(value) -> dict:
            return value if isinstance(value, dict) else {}

        names = [spec.get("server"), mapping(spec.get("layout")).get("rack")]
        names += list(mapping(spec.get("switches")).values())
        for choice in mapping(spec.get("media")).values():
            names += list(mapping(choice).values())
        return {name for name in names if isinstance(name, str) and name}


#: Bytes of a stored fabric read for its settings when the revision was loaded without it.
FABRIC_HEAD_BYTES = 1 << 16


def revision_fabric_settings(revision: DesignRevision) -> FabricSettings:
    """The settings of ``revision``'s stored fabric (its transport, networks, layout ...).

    When the revision was loaded without its topology (pages defer it: it can be megabytes),
    only the first :data:`FABRIC_HEAD_BYTES` are read from the database, the whole topology
    only if its head is longer. Empty settings for a revision with no stored fabric."""
    if "topology" not in revision.get_deferred_fields():
        return fabric_settings(revision.topology) if revision.topology else FabricSettings()
    start = (
        DesignRevision.objects.filter(pk=revision.pk)
        .annotate(head=Substr("topology", 1, FABRIC_HEAD_BYTES, output_field=BinaryField()))
        .values_list("head", flat=True)
        .first()
    )
    if not start:
        return FabricSettings()
    settings = fabric_settings_from_start(start)
    if settings is None:
        revision.refresh_from_db(fields=["topology"])
        return fabric_settings(revision.topology) if revision.topology else FabricSettings()
    return settings


def revision_part_names(revision: DesignRevision) -> set[str]:
    """Every catalog name (slug or alias) ``revision`` uses: in its spec and its stored fabric
    (device models, media parts, rack type)."""
    return spec_part_names(revision.spec) | fabric_part_names(revision.topology)


@dataclass
class PartUsage:
    """Revisions that use a catalog part: ``revisions`` is ``[(design id, design name,
    revision number)]``, by design then number."""

    revisions: list[tuple[int, str, int]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.revisions)

    @property
    def revision_count(self) -> int:
        return len(self.revisions)

    @property
    def design_count(self) -> int:
        return len({design for design, _, _ in self.revisions})


def part_usage(part) -> PartUsage:
    """The design revisions, of every user and team, that use ``part``.

    A revision uses a part when its spec or stored fabric names the part's slug or one of its
    aliases; a NIC is also used by the revisions of the servers that name it as their
    ``compute_nic`` (the bill of materials counts it). Revisions are never changed, so a used
    part must stay in the catalog (archive it instead of deleting it).

    For the catalog's checks only: it names designs the caller may not see, so show counts,
    not names, to users.
    """
    names = {part.slug, *(part.aliases or [])}
    if part.CATEGORY == "nic":
        for server in ServerModel.objects.filter(compute_nic__in=names).only("slug", "aliases"):
            names |= {server.slug, *(server.aliases or [])}
    found = []
    revisions = (
        DesignRevision.objects.select_related("design")
        .only("design__name", "number", "spec", "topology")
        .order_by("design_id", "number")
    )
    for revision in revisions.iterator(chunk_size=50):
        if names & revision_part_names(revision):
            found.append((revision.design_id, revision.design.name, revision.number))
    return PartUsage(found)


# --- canvas reads ------------------------------------------------------------------------------

FABRIC_CACHE_SIZE = 4
_fabrics: OrderedDict[bytes, Fabric] = OrderedDict()
_fabrics_lock = threading.Lock()
#: Canvas views and edit documents of the last few fabrics (the page opens a view and the
#: edit document, then each save of a patch reads both again). A whole-fabric view of 5,000
#: elements takes ~5 MB, its edit document ~2 MB.
DERIVED_CACHE_SIZE = 8
_derived: OrderedDict[tuple, dict] = OrderedDict()


def _kept(store: OrderedDict, size: int, key, compute):
    """``store[key]``, computed and kept (the last ``size``) when missing."""
    with _fabrics_lock:
        if key in store:
            store.move_to_end(key)
            return store[key]
    value = compute()
    with _fabrics_lock:
        store[key] = value
        while len(store) > size:
            store.popitem(last=False)
    return value


def _fabric_key(revision: DesignRevision) -> bytes:
    return hashlib.blake2b(bytes(revision.topology), digest_size=16).digest()


def revision_fabric(revision: DesignRevision) -> Fabric:
    """The stored fabric of ``revision`` (read-only: do not change it).

    Unpacking 100,000 GPUs takes ~0.4 s, so the last few fabrics are kept per process, keyed
    by a digest of the stored bytes (revisions never change, and ids may be reused).
    """
    return _kept(
        _fabrics,
        FABRIC_CACHE_SIZE,
        _fabric_key(revision),
        lambda: fabric_unpack(bytes(revision.topology)),
    )


def _derived_of(revision: DesignRevision, what: tuple, compute) -> dict:
    """``compute(fabric)`` of ``revision``'s fabric, kept per process as :func:`revision_fabric`
    keeps fabrics (read-only: do not change it)."""
    return _kept(
        _derived,
        DERIVED_CACHE_SIZE,
        (_fabric_key(revision), *what),
        lambda: compute(revision_fabric(revision)),
    )


def revision_canvas(
    revision: DesignRevision, *, view: str, scope: str | None = None, plane: str | None = None
) -> dict:
    """The canvas elements of a revision (:mod:`planner.domain.canvas`): ``view`` overview
    or detail (with ``scope`` su:N, pod:N, core or all), all planes or ``plane`` (1-based
    text, ``all`` or None for every plane).

    Raises
    ------
    planner.domain.canvas.CanvasError
        Unknown view, scope or plane (``field`` "plane"), or a scope too large to show node
        by node.
    """
    fabric = revision_fabric(revision)
    chosen = canvas.parse_plane(plane, fabric)
    if view not in ("overview", "detail"):
        raise canvas.CanvasError(f"unknown view {view!r}: use overview or detail")
    if view == "detail" and not scope:
        raise canvas.CanvasError("a detail view needs a scope: su:N, pod:N, core or all")

    def build(fabric: Fabric) -> dict:
        cluster = revision_cluster(fabric)
        if view == "overview":
            return canvas.overview_elements(fabric, chosen, cluster)
        return canvas.detail_elements(fabric, scope, chosen, cluster)

    # a fabric's other networks may be drawn from the catalog (revision_cluster): its state
    what = ("view", view, scope if view == "detail" else None, chosen)
    if fabric.settings.networks:
        what = (*what, catalog_fingerprint())
    return _derived_of(revision, what, build)


def revision_canvas_changes(
    base: DesignRevision, revision: DesignRevision, new_link_index: dict[int, int]
) -> dict:
    """What a patch saved as ``revision`` changed in the whole-fabric detail view of ``base``
    (the view the canvas edits in), its links renumbered by ``new_link_index``:
    ``{"removed", "nodes", "edges"}`` (:func:`planner.domain.canvas.view_changes`)."""
    before = revision_canvas(base, view="detail", scope="all")["elements"]
    after = revision_canvas(revision, view="detail", scope="all")["elements"]
    return canvas.view_changes(before, after, new_link_index)


def revision_cluster(fabric: Fabric) -> ClusterElements | None:
    """The devices and links of the fabric's other networks (storage, in-band, OOB, ...), as
    stored with it (:func:`planner.domain.networks.elements.network_elements`); None when its
    spec has none."""
    if not fabric.settings.networks:
        return None
    return network_elements(fabric, catalog_facts())


def revision_topology(revision: DesignRevision) -> dict:
    """The edit document of a revision (nodes and links; see :func:`canvas.edit_document`).

    Raises ``CanvasError`` for fabrics above :data:`canvas.MAX_ELEMENTS` nodes + links.
    Kept per process (read-only: do not change it; the canvas reads it when it opens, and
    each save of a patch applies the patch to it).
    """
    return _derived_of(revision, ("topology",), canvas.edit_document)


def link_options(
    a_model: str, b_model: str, *, speed_gbps: int | None = None, length_m: float | None = None
) -> dict:
    """Media choices for a link between two catalog device models, priced from the seed
    price book (see :func:`planner.domain.canvas.link_options`); archived parts are not
    offered."""
    options = canvas.link_options(
        a_model,
        b_model,
        facts=catalog_facts(for_new=True),
        speed_gbps=speed_gbps,
        length_m=length_m,
        price_of=price_of_factory(),
    )
    return options.as_dict()
