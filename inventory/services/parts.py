"""Edits of single parts: save, delete, archive (audited through :mod:`inventory.hooks`).

Who may call these is decided by the caller (:mod:`inventory.permissions`); each writes the
change and its audit event (old -> new per changed field) in one transaction.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from inventory.hooks import catalog_hooks
from inventory.library.schema import IDENTITY_FIELDS
from inventory.models import CATEGORY_MODELS, CatalogPart, Price
from inventory.services.common import (
    CATALOG_ARCHIVED,
    CATALOG_CHANGED,
    CATALOG_DELETED,
    CatalogConflict,
    audit,
    field_changes,
    plain,
)

__all__ = ["part_archive", "part_delete", "part_save", "part_usage", "part_values"]


def _slug_owner(slug: str, exclude_model) -> str | None:
    for category, model in CATEGORY_MODELS.items():
        if model is not exclude_model and model.objects.filter(slug=slug).exists():
            return category
    return None


def part_values(part: CatalogPart) -> dict:
    """A part's fields as its history records them (old -> new per changed field)."""
    names = (*IDENTITY_FIELDS, *part.SPEC_FIELDS, "sources", "provenance", "archived")
    values = {name: plain(getattr(part, name)) for name in names if name != "manufacturer"}
    values["manufacturer"] = part.manufacturer.slug if part.manufacturer_id else None
    return values


def _usage_text(usage) -> str:
    return (
        f"used by {usage.revision_count} revision{'s' if usage.revision_count != 1 else ''} of "
        f"{usage.design_count} design{'s' if usage.design_count != 1 else ''}"
    )


def part_usage(part: CatalogPart):
    """The design revisions that use ``part`` (answered by designs, see :mod:`inventory.hooks`)."""
    return catalog_hooks().part_usage(part)


@transaction.atomic
def part_save(*, part: CatalogPart, actor=None) -> CatalogPart:
    """Validate and save a part created or edited in a form or through the API, and record
    the change (old -> new per field) in the audit log.

    Raises
    ------
    django.core.exceptions.ValidationError
        A value breaks a rule (keyed by field); or the slug is another part's, or the part is
        renamed while design revisions use it (``slug``).
    """
    model = type(part)
    stored = model.objects.select_related("manufacturer").filter(pk=part.pk).first()
    before = part_values(stored) if part.pk and stored else {}
    owner = _slug_owner(part.slug, model)
    if owner:
        raise ValidationError(
            {
                "slug": f"{part.slug!r} is already a {owner} slug; slugs are "
                "unique across the catalog."
            }
        )
    if stored is not None and stored.slug != part.slug:
        usage = part_usage(stored)
        if usage:
            raise ValidationError(
                {
                    "slug": f"{stored.slug} is {_usage_text(usage)}, which name it by its slug; "
                    "it cannot be renamed. Archive it and add a new part instead."
                }
            )
    part.full_clean()
    part.save()
    changes = field_changes(before, part_values(part))
    if changes:
        created = stored is None
        audit(
            actor,
            CATALOG_CHANGED,
            f"{'Created' if created else 'Changed'} {part._meta.verbose_name} {part.slug}"
            + ("" if created else f": {', '.join(changes)}"),
            object_type=part.CATEGORY,
            object_ref=part.slug,
            details={"change": "created" if created else "updated", "fields": changes},
        )
    return part


@transaction.atomic
def part_delete(*, part: CatalogPart, actor=None) -> None:
    """Delete a part and its prices, unless a design revision uses it.

    Raises
    ------
    CatalogConflict
        A design revision uses the part (by slug or alias): nothing is deleted; archive it.
    """
    usage = part_usage(part)
    if usage:
        raise CatalogConflict(
            f"{part.slug} is {_usage_text(usage)} and cannot be deleted; archive it instead "
            "(hidden from pickers and new designs, still there for the revisions that use it).",
            field="slug",
            count=usage.revision_count,
        )
    values = part_values(part)
    prices, _ = Price.objects.filter(part_category=part.CATEGORY, part_slug=part.slug).delete()
    part.delete()
    audit(
        actor,
        CATALOG_DELETED,
        f"Deleted {part._meta.verbose_name} {part.slug}"
        + (f" and its {prices} price{'s' if prices != 1 else ''}" if prices else ""),
        object_type=part.CATEGORY,
        object_ref=part.slug,
        details={
            "change": "deleted",
            "fields": {name: {"old": value, "new": None} for name, value in values.items()},
            "prices_deleted": prices,
        },
    )


@transaction.atomic
def part_archive(*, part: CatalogPart, actor=None, archived: bool = True) -> CatalogPart:
    """Archive (or, with ``archived=False``, restore) a part; a no-op if it already is."""
    locked = type(part).objects.select_for_update().get(pk=part.pk)
    if locked.archived == archived:
        return locked
    locked.archived = archived
    locked.save(update_fields=["archived", "updated"])
    audit(
        actor,
        CATALOG_ARCHIVED,
        f"{'Archived' if archived else 'Restored'} {locked._meta.verbose_name} {locked.slug}",
        object_type=locked.CATEGORY,
        object_ref=locked.slug,
        details={
            "change": "archived" if archived else "unarchived",
            "fields": {"archived": {"old": not archived, "new": archived}},
        },
    )
    return locked
