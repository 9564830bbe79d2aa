"""Edits of manufacturers: save and delete (audited through :mod:`inventory.hooks`)."""

from __future__ import annotations

from django.db import transaction

from inventory.models import CATEGORY_MODELS, Manufacturer
from inventory.services.common import (
    CATALOG_CHANGED,
    CATALOG_DELETED,
    CatalogConflict,
    audit,
    field_changes,
    plain_values,
)

__all__ = ["manufacturer_delete", "manufacturer_save"]

MANUFACTURER_FIELDS = ("slug", "name", "url")


@transaction.atomic
def manufacturer_save(*, manufacturer: Manufacturer, actor=None) -> Manufacturer:
    """Validate and save a manufacturer; the change is audited (old -> new per field)."""
    stored = Manufacturer.objects.filter(pk=manufacturer.pk).first() if manufacturer.pk else None
    before = plain_values(stored, MANUFACTURER_FIELDS) if stored else {}
    manufacturer.full_clean()
    manufacturer.save()
    changes = field_changes(before, plain_values(manufacturer, MANUFACTURER_FIELDS))
    if changes:
        audit(
            actor,
            CATALOG_CHANGED,
            f"{'Created' if stored is None else 'Changed'} manufacturer {manufacturer.slug}",
            object_type="manufacturer",
            object_ref=manufacturer.slug,
            details={"change": "created" if stored is None else "updated", "fields": changes},
        )
    return manufacturer


@transaction.atomic
def manufacturer_delete(*, manufacturer: Manufacturer, actor=None) -> None:
    """Delete a manufacturer that has no parts.

    Raises
    ------
    CatalogConflict
        Parts of the catalog name the manufacturer.
    """
    count = sum(
        model.objects.filter(manufacturer=manufacturer).count()
        for model in CATEGORY_MODELS.values()
    )
    if count:
        raise CatalogConflict(
            f"{count} catalog part{'s' if count != 1 else ''} name{'s' if count == 1 else ''} "
            f"{manufacturer.slug}; delete or move them first.",
            field="slug",
            count=count,
        )
    values = plain_values(manufacturer, MANUFACTURER_FIELDS)
    manufacturer.delete()
    audit(
        actor,
        CATALOG_DELETED,
        f"Deleted manufacturer {values['slug']}",
        object_type="manufacturer",
        object_ref=values["slug"],
        details={
            "change": "deleted",
            "fields": {name: {"old": value, "new": None} for name, value in values.items()},
        },
    )
