"""Writes for designs: build a spec into a fabric, create, revise, restore, update, delete,
and save topologies drawn or edited on the canvas.

Every service is keyword-only and atomic, and saves through ``full_clean()``. Problems with a
spec (malformed, infeasible, naming a part the catalog lacks, too large) are raised as one
:class:`DesignError` whose ``problems`` each name the spec field at fault; problems with an
edited topology as a :class:`TopologyError` (``problems`` = ``[{code, message, element_ids,
severity, field}]``, from :func:`planner.domain.canvas.validate_edit`).
"""

from __future__ import annotations

import hashlib
import json
import marshal
from collections.abc import Collection
from dataclasses import dataclass, replace

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Max

from inventory.permissions import price_books_pickable_for
from planner import presentation
from planner.analyses.latency import latency_report
from planner.analyses.reports import fabric_power
from planner.audit.log import audit_record
from planner.audit.models import AuditActionChoices
from planner.designs.adapters import catalog_facts, fabric_pack, fabric_unpack, price_of_factory
from planner.designs.models import (
    Design,
    DesignRevision,
    DesignRevisionKindChoices,
    DesignSharingChoices,
)
from planner.designs.selectors import revision_fabric, revision_part_names, revision_topology
from planner.domain.canvas import (
    CanvasError,
    EditError,
    fabric_from_edit,
    violation_dict,
)
from planner.domain.canvas.edit_patch import PatchedDocument, apply_patch, patch_problems
from planner.domain.canvas.views import node_positions
from planner.domain.catalog import CatalogFacts, CatalogLookupError, archived_problems
from planner.domain.edits import keep_from_base
from planner.domain.fabric import Fabric, FabricError
from planner.domain.fabric_diff import diff_fabrics
from planner.domain.generators import requested_servers
from planner.domain.networks.elements import network_elements
from planner.domain.physical.budget import budget_report, compute_budgets
from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, load_spec_text, parse_spec
from planner.domain.spec_model import DesignSpec
from planner.domain.summary import diff_networks, diff_summaries, summarize
from planner.domain.transport.resolve import resolve_transport
from planner.teams.models import Team

DEFAULT_MAX_GPUS = 2_000_000  # a 1,048,576-GPU campus design fits (issue 21)


class DesignError(ValueError):
    """A spec cannot become a design. ``problems`` is ``[{"field", "message"}]``."""

    def __init__(self, problems: list[dict]):
        self.problems = problems
        super().__init__(
            "; ".join(
                f"{p['field']}: {p['message']}" if p["field"] else p["message"] for p in problems
            )
        )


class TopologyError(DesignError):
    """An edit document with errors. ``problems`` is ``[{code, message, element_ids,
    severity, field}]`` (warnings included), as the canvas and jobs report them."""


class RevisionConflict(Exception):
    """An edit was based on a revision that is no longer the latest.

    ``latest`` is the latest revision number; ``changes`` is what changed between the edit's
    base and the latest: ``{"summary": diff, "spec": diff}`` (see ``diff_summaries``).
    """

    def __init__(self, *, latest: int, base: int, changes: dict):
        self.latest, self.base, self.changes = latest, base, changes
        super().__init__(
            f"Revision {base} is no longer the latest: revision {latest} was saved since"
        )


class StaleEdit(Exception):
    """An edit saved with ``check_stale`` makes spec parameters untrue; nothing is written.
    ``stale`` lists them (``summary.stale_parameters`` of the edit)."""

    def __init__(self, stale: list[dict]):
        self.stale = stale
        super().__init__(
            f"Not saved: {len(stale)} spec parameter{'s' if len(stale) != 1 else ''} would no "
            "longer hold."
        )


def max_gpus() -> int:
    """The largest design accepted (``settings.DESIGN_MAX_GPUS``)."""
    return int(getattr(settings, "DESIGN_MAX_GPUS", DEFAULT_MAX_GPUS))


def _lookup_problem(exc: CatalogLookupError) -> dict:
    text = str(exc.args[0]) if exc.args else str(exc)
    field, sep, message = text.partition(": ")
    return {"field": field, "message": message} if sep else {"field": "", "message": text}


def _check_size(spec: DesignSpec, facts: CatalogFacts) -> None:
    server = facts.device(spec.server, "server", field_name="server")
    rails = spec.rails or server.ports or 1
    per_server = server.gpus or rails
    servers, field = requested_servers(spec, per_server)
    if servers is not None:
        how = f"{getattr(spec, field):,} {'GPUs' if field == 'gpus' else field}"
    elif spec.k:
        servers, field = spec.k**3 // 4 // rails, "servers"
        how = f"a k = {spec.k} fat-tree"
    else:
        return
    gpus = servers * per_server
    limit = max_gpus()
    for key, value in (spec.grow_to or {}).items():  # the final build: the same limit
        final = value if key == "gpus" else value * per_server
        if final > limit:
            raise DesignError(
                [
                    {
                        "field": f"grow_to.{key}",
                        "message": f"grows to {final:,} GPUs; the largest design accepted "
                        f"here is {limit:,} GPUs (DESIGN_MAX_GPUS)",
                    }
                ]
            )
    if gpus > limit:
        raise DesignError(
            [
                {
                    "field": field,
                    "message": f"{how} of {server.slug} = {gpus:,} GPUs; the largest design "
                    f"accepted here is {limit:,} GPUs (DESIGN_MAX_GPUS): use fewer servers",
                }
            ]
        )


def _build_fabric(spec: DesignSpec, facts: CatalogFacts) -> Fabric:
    return build_fabric(spec, facts, price_of=price_of_factory(spec.price_book))


def _check_price_book(spec: DesignSpec, user) -> None:
    """A spec's ``price_book`` (the prices media "auto" compares) must be one ``user`` may
    pick: a public book, or a team book they read; another team's confidential book is
    refused as if it did not exist."""
    if not spec.price_book or user is None:
        return

    if not price_books_pickable_for(user).filter(slug=spec.price_book).exists():
        raise SpecError([("price_book", f"no price book {spec.price_book!r} in the catalog")])


def design_build(
    *, spec_document: dict | str, keep: Collection[str] = (), user=None
) -> tuple[DesignSpec, Fabric, dict]:
    """Parse a spec (mapping or YAML/JSON text), generate its fabric and summarize it.

    Archived catalog parts are not used: a spec naming one is refused (the field says it is
    archived) and media "auto" never picks one, except the names in ``keep`` (the parts the
    revision an edit is based on already uses). With ``user``, the spec's ``price_book`` must
    be one they may pick (a team's confidential book is refused to others).

    Writes nothing. Raises :class:`DesignError` listing every problem, each naming its field.
    """
    try:
        document = (
            load_spec_text(spec_document) if isinstance(spec_document, str) else spec_document
        )
        if not isinstance(document, dict):
            raise SpecError([("", "a spec is a mapping of keys (name, topology, ...)")])
        spec = parse_spec(document)
        _check_price_book(spec, user)
        facts = catalog_facts(for_new=True, keep=keep)
        archived = archived_problems(spec, facts)
        if archived:
            raise SpecError(archived)
        _check_size(spec, facts)
        fabric = _build_fabric(spec, facts)
    except SpecError as exc:
        raise DesignError([{"field": f, "message": m} for f, m in exc.problems]) from exc
    except FabricError as exc:
        raise DesignError([{"field": exc.field, "message": str(exc)}]) from exc
    except CatalogLookupError as exc:
        raise DesignError([_lookup_problem(exc)]) from exc
    return spec, fabric, _with_power(summarize(fabric, name=spec.name), fabric, facts)


def _revision_create(
    *,
    design: Design,
    number: int,
    spec: dict,
    topology: bytes,
    summary: dict,
    kind: str,
    user,
    message: str = "",
    parent: int | None = None,
) -> DesignRevision:
    revision = DesignRevision(
        design=design,
        number=number,
        spec=spec,
        topology=topology,
        summary=summary,
        kind=kind,
        message=message,
        created_by=user,
        parent=parent,
    )
    revision.full_clean()
    revision.save()
    design.save(update_fields=["updated"])
    return revision


@transaction.atomic
def design_create(
    *,
    owner,
    spec_document: dict | str,
    team: Team | None = None,
    sharing: str = DesignSharingChoices.PRIVATE,
    message: str = "",
) -> Design:
    """Build a spec and store it as a new design with revision 1 (kind ``generated``)."""
    spec, fabric, summary = design_build(spec_document=spec_document, user=owner)
    design = Design(
        name=spec.name, description=spec.description, owner=owner, team=team, sharing=sharing
    )
    design.full_clean()
    design.save()
    _revision_create(
        design=design,
        number=1,
        spec=spec.as_dict(),
        topology=fabric_pack(fabric),
        summary=summary,
        kind=DesignRevisionKindChoices.GENERATED,
        user=owner,
        message=message,
    )
    _audit_created(design, owner, summary, how="from a spec")
    return design


def _audit_created(design: Design, owner, summary: dict, *, how: str) -> None:
    audit_record(
        actor=owner,
        action=AuditActionChoices.DESIGN_CREATED,
        design=design,
        summary=f"Created design “{design.name}” {how} ({summary.get('gpus', 0):,} GPUs)",
        object_type="revision",
        object_ref="1",
        details={"sharing": design.sharing, "gpus": summary.get("gpus")},
    )


def _audit_revision(revision: DesignRevision, user, action: str, what: str) -> None:
    audit_record(
        actor=user,
        action=action,
        design=revision.design,
        summary=f"{what} revision {revision.number} of “{revision.design.name}”"
        + (f": {revision.message}" if revision.message else ""),
        object_type="revision",
        object_ref=str(revision.number),
        details={
            "kind": revision.kind,
            "parent": revision.parent,
            "gpus": revision.summary.get("gpus"),
        },
    )


def _latest_number(design: Design) -> int:
    return design.revisions.aggregate(latest=Max("number"))["latest"] or 0


def revision_changes(old: DesignRevision, new: DesignRevision) -> dict:
    """What changed from ``old`` to ``new``: summary figures and spec keys, every network's
    switches and cables (``networks``: ``diff_networks``, the compute fabric and each network
    of the spec's ``networks`` block; the summary diff leaves the networks to it), whether the
    topology differs (``topology_changed``: e.g. edited on the canvas with the same spec), the
    compute fabric's devices and links added, removed and changed (``fabric``:
    :func:`~planner.domain.fabric_diff.diff_fabrics`) and the spec parameters each no longer
    meets (``stale_parameters``: ``{"old", "new"}``). Every summary and spec change carries its
    sentence (``text``: "Link speed: 400 Gb/s → 800 Gb/s (+400 Gb/s)")."""
    old_summary, new_summary = dict(old.summary), dict(new.summary)
    stale = {
        "old": old_summary.pop("stale_parameters", []),
        "new": new_summary.pop("stale_parameters", []),
    }
    networks = diff_networks(old_summary, new_summary)
    old_summary.pop("networks", None)
    new_summary.pop("networks", None)
    topology_changed = bytes(old.topology) != bytes(new.topology)
    fabric = None
    if topology_changed and old.topology and new.topology:
        fabrics = revision_fabric(old), revision_fabric(new)
        fabric = diff_fabrics(*fabrics, positions=tuple(_canvas_positions(f) for f in fabrics))
    return {
        "summary": presentation.diff_texts(diff_summaries(old_summary, new_summary)),
        "networks": networks,
        "spec": presentation.diff_texts(diff_summaries(old.spec, new.spec)),
        "topology_changed": topology_changed,
        "fabric": fabric,
        "stale_parameters": stale,
    }


def _canvas_positions(fabric: Fabric) -> dict | None:
    """Where the canvas shows each node (stored, else its preset place), or ``None`` for a
    fabric too large for the whole-fabric view."""
    try:
        return node_positions(fabric)
    except CanvasError:
        return None


def _check_base(design: Design, base_revision: int) -> int:
    """The latest revision number, when ``base_revision`` is it (design locked by caller).

    Raises :class:`DesignError` (no such revision) or :class:`RevisionConflict` (stale).
    """
    latest = _latest_number(design)
    if not 1 <= base_revision <= latest:
        raise DesignError(
            [
                {
                    "field": "base_revision",
                    "message": f"no revision {base_revision} (latest is {latest})",
                }
            ]
        )
    if base_revision != latest:
        revisions = {
            r.number: r for r in design.revisions.filter(number__in=[base_revision, latest])
        }
        raise RevisionConflict(
            latest=latest,
            base=base_revision,
            changes=revision_changes(revisions[base_revision], revisions[latest]),
        )
    return latest


@transaction.atomic
def design_revise(
    *, design: Design, user, spec_document: dict | str, base_revision: int, message: str = ""
) -> DesignRevision:
    """Store a changed spec as the next revision (kind ``edited``).

    Raises
    ------
    RevisionConflict
        ``base_revision`` is not the latest revision (someone saved in between); nothing is
        written. Save on top of ``latest`` to keep this edit anyway.
    DesignError
        The spec is invalid or infeasible, or ``base_revision`` does not exist.
    """
    design = Design.objects.select_for_update().get(pk=design.pk)
    latest = _check_base(design, base_revision)
    spec, fabric, summary = design_build(
        spec_document=spec_document, keep=_base_part_names(design, base_revision), user=user
    )
    revision = _revision_create(
        design=design,
        number=latest + 1,
        spec=spec.as_dict(),
        topology=fabric_pack(fabric),
        summary=summary,
        kind=DesignRevisionKindChoices.EDITED,
        user=user,
        message=message,
        parent=base_revision,
    )
    _audit_revision(revision, user, AuditActionChoices.DESIGN_REVISED, "Saved the spec as")
    return revision


def _base_part_names(design: Design, number: int) -> set[str]:
    """Catalog names revision ``number`` of ``design`` uses (an edit may keep using them even
    if they were archived since)."""
    base = design.revisions.only("spec", "topology").filter(number=number).first()
    return revision_part_names(base) if base is not None else set()


def topology_build(
    *, document, name: str = "", keep: Collection[str] = (), base: Fabric | None = None
) -> tuple[Fabric, dict]:
    """Check an edit document (nodes and links drawn or edited on the canvas), build its
    fabric and summarize it. Writes nothing. Archived catalog parts are unknown to it, except
    the names in ``keep`` (those the edited revision already uses). With ``base`` (the fabric
    the edit started from), the fabric keeps base's racks, layout and build facts, and the
    summary lists the spec parameters the edit made untrue (``stale_parameters``; see
    :func:`planner.domain.edits.keep_from_base`).

    Raises
    ------
    TopologyError
        The document has errors; ``problems`` lists them all (and the warnings), each with
        the element ids (``node:<name>``, ``link:<index>``) the canvas highlights.
    """
    facts = catalog_facts(for_new=True, keep=keep)
    try:
        fabric = fabric_from_edit(document, facts)
    except EditError as exc:
        raise TopologyError([violation_dict(v) for v in exc.violations]) from exc
    if base is not None:
        network_elements(base, facts)  # a base stored before they were kept: built from it
        keep_from_base(base, fabric)
    return fabric, _with_power(summarize(fabric, name=name), fabric, facts)


def _with_power(summary: dict, fabric: Fabric, facts: CatalogFacts) -> dict:
    """``summary`` with ``power_w``: the fabric's total power budget (servers, switches,
    optics, cables; figures the catalog lacks are not in it), computed once when the
    revision is built so that lists and the wizard read it for free; and with
    ``optical_budget`` (:func:`_with_optics`) and ``latency`` (:func:`_with_latency`)."""
    summary = {**summary, "power_w": float(fabric_power(fabric=fabric, facts=facts)["total_w"])}
    return _with_latency(_with_optics(summary, fabric, facts), fabric, facts)


def _with_latency(summary: dict, fabric: Fabric, facts: CatalogFacts) -> dict:
    """``summary`` with ``latency``: GPU-to-GPU one-way latency per path class
    (:func:`planner.analyses.latency.latency_report`), computed once when the revision is
    built, for the design page, the API and ``manage.py fabric summary``."""
    return {**summary, "latency": latency_report(fabric, facts)}


def _with_optics(summary: dict, fabric: Fabric, facts: CatalogFacts) -> dict:
    """``summary`` with ``optical_budget`` (margin histogram, worst links; fabrics with media
    and lengths only), computed once when the revision is built, for the design page."""
    if fabric.link_a_part is None or fabric.link_length_m is None:
        return summary
    budgets = compute_budgets(fabric, facts)
    if not budgets.links.size:
        return summary
    threshold = fabric.settings.optical_margin_min_db
    report = budget_report(fabric, budgets, margin_min_db=threshold)
    return {**summary, "optical_budget": report}


#: How long an edit's build is kept for the save that follows its preview (seconds).
EDIT_BUILD_SECONDS = 600


def _edit_build(
    design: Design, base: DesignRevision, document: dict
) -> tuple[Fabric | None, bytes, dict]:
    """:func:`topology_build` of ``document`` on top of revision ``base``: the fabric (None when
    it comes from the cache), the fabric packed as a revision stores it, and the summary.

    The canvas previews an edit and then saves the same document: the build is kept in the
    cache (:data:`EDIT_BUILD_SECONDS`) under a key naming everything it depends on (the base
    revision, the design's name, the catalog, the document's exact content), so the save
    stores what the preview built instead of parsing and checking the document again. A
    document with errors is never kept (each request raises the same :class:`TopologyError`).
    """
    from planner.designs.cache import output_key, revision_ref

    keep = revision_part_names(base)  # base has its spec and topology: no second query
    digest = hashlib.sha256(_document_bytes(document)).hexdigest()
    key = output_key("edit-build", [revision_ref(base), design.name, sorted(keep), digest])
    found = cache.get(key)
    if found is not None:
        packed, summary = found
        return None, packed, summary
    fabric, summary = topology_build(
        document=document, name=design.name, keep=keep, base=_edit_base(base, keep)
    )
    packed = fabric_pack(fabric)
    cache.set(key, (packed, summary), EDIT_BUILD_SECONDS)
    return fabric, packed, summary


def _document_bytes(document: dict) -> bytes:
    """The exact content of an edit document as bytes, for the key of its build: ``marshal``
    (format 2: no shared references, so equal documents give equal bytes) writes a parsed
    5,000-element document in ~2 ms where sorted JSON takes ~50 ms. Key order counts (the
    canvas sends the preview's document again as it was); a value marshal cannot write falls
    back to JSON. Two spellings of one document only cost a build."""
    try:
        return marshal.dumps(document, 2)
    except ValueError:
        return json.dumps(document, sort_keys=True, separators=(",", ":"), default=str).encode()


def design_preview_topology(*, design: Design, document: dict, base_revision: int) -> dict:
    """What saving ``document`` on top of revision ``base_revision`` would do, without
    saving: ``{"problems" (warnings), "stale_parameters", "changes" (summary diff)}``.

    Raises :class:`TopologyError` (the document has errors) or :class:`DesignError` (no
    such revision); a stale ``base_revision`` is fine here (the save answers 409).
    """
    base = design.revisions.filter(number=base_revision).first()
    if base is None:
        raise DesignError([{"field": "base_revision", "message": f"no revision {base_revision}"}])
    fabric, packed, summary = _edit_build(design, base, document)
    if fabric is None:
        fabric = fabric_unpack(packed)
    old_summary = {k: v for k, v in base.summary.items() if k != "stale_parameters"}
    new_summary = {k: v for k, v in summary.items() if k != "stale_parameters"}
    return {
        "problems": [{"code": "unverified", **w} for w in _warnings(fabric)],
        "stale_parameters": summary.get("stale_parameters", []),
        "changes": presentation.diff_texts(diff_summaries(old_summary, new_summary)),
    }


def _edit_base(revision: DesignRevision, keep: Collection[str]) -> Fabric:
    """The fabric a canvas edit of ``revision`` starts from. One stored before transport
    settings were kept (``settings.legacy``, no transport) gets the transport its spec gives,
    as the pipeline stores it today, so that the edited revision keeps it."""
    fabric = fabric_unpack(revision.topology)
    if fabric.settings.transport is not None or not fabric.settings.legacy or not revision.spec:
        return fabric
    try:
        transport = resolve_transport(
            parse_spec(revision.spec).transport,
            fabric,
            catalog_facts(for_new=True, keep=keep),
        )
    except (SpecError, CatalogLookupError, KeyError, ValueError):
        return fabric  # the spec no longer resolves: the edit keeps what the base had
    fabric.settings = replace(fabric.settings, transport=transport)
    return fabric


def _warnings(fabric: Fabric) -> list[dict]:
    return [
        {"message": m, "element_ids": [], "severity": "warning", "field": ""}
        for m in fabric.info.get("media_warnings") or []
    ]


@transaction.atomic
def design_edit_topology(
    *,
    design: Design,
    user,
    document: dict,
    base_revision: int,
    message: str = "",
    check_stale: bool = False,
) -> DesignRevision:
    """Store an edited topology as the next revision (kind ``edited``; the base revision's
    spec, racks, layout and build facts are kept, the summary recomputed; the spec parameters
    the edit made untrue are recorded in the summary's ``stale_parameters``).

    Raises
    ------
    RevisionConflict
        ``base_revision`` is not the latest revision; nothing is written.
    TopologyError
        The document has errors (see :func:`topology_build`).
    DesignError
        ``base_revision`` does not exist.
    StaleEdit
        ``check_stale`` and the edit makes spec parameters untrue; nothing is written (the
        build is kept, so saving it anyway does not build it again).
    """
    design = Design.objects.select_for_update().get(pk=design.pk)
    latest = _check_base(design, base_revision)
    base = design.revisions.only("spec", "topology", "created").get(number=base_revision)
    return _store_edit(design, base, latest + 1, document, user, message, check_stale)


def _store_edit(
    design: Design,
    base: DesignRevision,
    number: int,
    document: dict,
    user,
    message: str,
    check_stale: bool,
) -> DesignRevision:
    """Build ``document`` on top of ``base`` and store it as revision ``number`` (the design
    locked, ``base`` the latest): what a whole document and a patch share."""
    _, packed, summary = _edit_build(design, base, document)
    if check_stale and summary.get("stale_parameters"):
        raise StaleEdit(summary["stale_parameters"])
    revision = _revision_create(
        design=design,
        number=number,
        spec=base.spec,
        topology=packed,
        summary=summary,
        kind=DesignRevisionKindChoices.EDITED,
        user=user,
        message=message,
        parent=base.number,
    )
    _audit_revision(revision, user, AuditActionChoices.DESIGN_REVISED, "Saved the topology as")
    return revision


@dataclass
class PatchSaved:
    """A patch saved: the new revision, the revision it was based on, and the document the
    patch made (:class:`~planner.domain.canvas.edit_patch.PatchedDocument`)."""

    revision: DesignRevision
    base: DesignRevision
    patched: PatchedDocument


@transaction.atomic
def design_patch_topology(
    *,
    design: Design,
    user,
    patch: dict,
    base_revision: int,
    message: str = "",
    check_stale: bool = False,
) -> PatchSaved:
    """Store what one canvas edit changed (a patch of ``base_revision``'s edit document: the
    nodes and links removed, set, changed and added; :mod:`planner.domain.canvas.edit_patch`)
    as the next revision. The patch is applied to the base's document and the document it
    makes is checked, built and stored as :func:`design_edit_topology` stores a whole one:
    the same rules, the same kept build for "Save anyway", the same revision.

    Returns the revision, its base and the patched document (``new_link_index``: where the
    base's links are in the saved document).

    Raises
    ------
    RevisionConflict, DesignError, StaleEdit
        As :func:`design_edit_topology`.
    TopologyError
        The patch names nodes or links the base does not have, or the document it makes has
        errors; every problem names the patch's entry (``links_added[0].b_part``,
        ``link:added-0``; :func:`~planner.domain.canvas.edit_patch.patch_problems`).
    """
    design = Design.objects.select_for_update().get(pk=design.pk)
    latest = _check_base(design, base_revision)
    base = design.revisions.only("spec", "topology", "created").get(number=base_revision)
    try:
        document = revision_topology(base)
    except CanvasError as exc:
        raise TopologyError(
            [
                {
                    "code": "too-large",
                    "message": str(exc),
                    "element_ids": [],
                    "severity": "error",
                    "field": "base_revision",
                }
            ]
        ) from exc
    patched = apply_patch(document, patch)
    if patched.document is None:
        raise TopologyError([violation_dict(v) for v in patched.problems])
    try:
        revision = _store_edit(
            design, base, latest + 1, patched.document, user, message, check_stale
        )
    except TopologyError as exc:
        raise TopologyError(patch_problems(exc.problems, patched)) from exc
    return PatchSaved(revision=revision, base=base, patched=patched)


@transaction.atomic
def design_create_drawn(
    *,
    owner,
    name: str,
    document: dict,
    description: str = "",
    team: Team | None = None,
    sharing: str = DesignSharingChoices.PRIVATE,
    message: str = "",
) -> Design:
    """A design drawn from scratch: revision 1 (kind ``edited``) holds the topology of
    ``document`` and the empty spec ``{}``. Raises :class:`TopologyError`."""
    fabric, summary = topology_build(document=document, name=name)
    design = Design(name=name, description=description, owner=owner, team=team, sharing=sharing)
    design.full_clean()
    design.save()
    _revision_create(
        design=design,
        number=1,
        spec={},
        topology=fabric_pack(fabric),
        summary=summary,
        kind=DesignRevisionKindChoices.EDITED,
        user=owner,
        message=message or "Drawn on the canvas",
    )
    _audit_created(design, owner, summary, how="on the canvas")
    return design


@transaction.atomic
def design_restore(*, design: Design, user, number: int, message: str = "") -> DesignRevision:
    """Make revision ``number``'s spec and topology current again, as a new revision."""
    design = Design.objects.select_for_update().get(pk=design.pk)
    source = design.revisions.filter(number=number).first()
    if source is None:
        raise DesignError([{"field": "number", "message": f"no revision {number}"}])
    revision = _revision_create(
        design=design,
        number=_latest_number(design) + 1,
        spec=source.spec,
        topology=bytes(source.topology),
        summary=source.summary,
        kind=DesignRevisionKindChoices.RESTORED,
        user=user,
        message=message or f"Restored revision {number}",
        parent=number,
    )
    audit_record(
        actor=user,
        action=AuditActionChoices.DESIGN_RESTORED,
        design=design,
        summary=f"Restored revision {number} of “{design.name}” as revision {revision.number}",
        object_type="revision",
        object_ref=str(revision.number),
        details={"restored": number},
    )
    return revision


UPDATABLE_FIELDS = ("name", "description", "team", "sharing")


def _audit_value(value):
    return getattr(value, "slug", value)


@transaction.atomic
def design_update(*, design: Design, actor=None, **changes) -> Design:
    """Change a design's name, description, team or sharing (not its spec: revise that).

    ``actor`` (the user making the change) is recorded in the audit log with what changed.
    """
    unknown = set(changes) - set(UPDATABLE_FIELDS)
    if unknown:
        raise TypeError(f"design_update() cannot change {', '.join(sorted(unknown))}")
    before = {key: _audit_value(getattr(design, key)) for key in changes}
    for key, value in changes.items():
        setattr(design, key, value)
    design.full_clean()
    design.save()
    changed = {
        key: {"old": before[key], "new": _audit_value(getattr(design, key))}
        for key in changes
        if before[key] != _audit_value(getattr(design, key))
    }
    if changed:
        audit_record(
            actor=actor,
            action=AuditActionChoices.DESIGN_CHANGED,
            design=design,
            summary=f"Changed {', '.join(changed)} of “{design.name}”",
            object_type="design",
            object_ref=str(design.pk),
            details={"changes": changed},
        )
    return design


@transaction.atomic
def design_delete(*, design: Design, actor=None) -> None:
    """Delete a design and all its revisions (the audit log keeps its id and name)."""
    audit_record(
        actor=actor,
        action=AuditActionChoices.DESIGN_DELETED,
        design=design,
        summary=f"Deleted design “{design.name}” ({design.revisions.count()} revisions)",
        object_type="design",
        object_ref=str(design.pk),
    )
    design.delete()
