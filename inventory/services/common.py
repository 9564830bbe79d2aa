"""What the catalog services share: problems and reports, conflicts, file columns, audit.

Every other module of :mod:`inventory.services` imports from here and nothing imports back,
so the package's imports run one way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db.models import Q

from inventory.hooks import catalog_hooks
from inventory.library.schema import IDENTITY_FIELDS, SPEC_FIELDS
from inventory.models import CATEGORY_MODELS, CatalogPart, Manufacturer

__all__ = [
    "CATALOG_ARCHIVED",
    "CATALOG_CHANGED",
    "CATALOG_DELETED",
    "IMPORT_APPLIED",
    "PRICE_CHANGED",
    "PRICE_COLUMNS",
    "CatalogConflict",
    "CatalogImportError",
    "ImportProblem",
    "ImportReport",
    "audit",
    "csv_columns",
    "field_changes",
    "part_by_number_or_alias",
    "part_get",
    "plain",
    "plain_values",
    "validation_problems",
]

#: The audit actions of catalog and price changes (values of the audit log's action choices).
IMPORT_APPLIED = "import.applied"
CATALOG_CHANGED = "catalog.changed"
CATALOG_DELETED = "catalog.deleted"
CATALOG_ARCHIVED = "catalog.archived"
PRICE_CHANGED = "price.changed"


# --- Imports: problems and reports ---------------------------------------------------------------


@dataclass
class ImportProblem:
    """One reason an import was refused."""

    where: str  # file, row or part
    field: str
    message: str

    def __str__(self):
        location = f"{self.where}, field {self.field}" if self.field else self.where
        return f"{location}: {self.message}"


class CatalogImportError(Exception):
    """An import was refused; nothing was written."""

    def __init__(self, problems: list[ImportProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems[:50]))


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.created + self.updated + self.unchanged


def validation_problems(where: str, exc: ValidationError) -> list[ImportProblem]:
    """A model's :class:`ValidationError` as import problems (one per field message)."""
    if hasattr(exc, "error_dict"):
        return [
            ImportProblem(where, name if name != "__all__" else "", message)
            for name, errors in exc.message_dict.items()
            for message in errors
        ]
    return [ImportProblem(where, "", message) for message in exc.messages]


# --- File columns (what exports write and imports read) ------------------------------------------

PRICE_COLUMNS = [
    "part",
    "category",
    "price",
    "currency",
    "seller",
    "source_url",
    "as_of",
    "grade",
    "condition",
    "length_m",
    "note",
]


def csv_columns(category: str) -> list[str]:
    return [*IDENTITY_FIELDS, *SPEC_FIELDS[category], "sources", "provenance"]


# --- Lookup --------------------------------------------------------------------------------------


def part_get(identifier: str) -> CatalogPart | None:
    """Find a part in any category by slug, then by part number or alias."""
    for model in CATEGORY_MODELS.values():
        part = model.objects.filter(slug=identifier).first()
        if part:
            return part
    return part_by_number_or_alias(identifier)


def part_by_number_or_alias(identifier: str, *, category: str = "") -> CatalogPart | None:
    """Find a part by part number or alias: in any category, or in ``category`` only (one
    query instead of eight when nothing matches)."""
    models_ = [CATEGORY_MODELS[category]] if category else CATEGORY_MODELS.values()
    for model in models_:
        for part in model.objects.filter(
            Q(part_number=identifier) | Q(aliases__icontains=identifier)
        ):
            if part.part_number == identifier or identifier in (part.aliases or []):
                return part
    return None


# --- Edits of single entries: conflicts and audit ------------------------------------------------
#
# Who may call the edit services is decided by the caller (:mod:`inventory.permissions`); each
# writes the change and its audit event (old -> new per changed field) in one transaction.


class CatalogConflict(Exception):
    """A change refused because something still uses the entry (an HTTP 409).

    ``field`` names what is in the way (e.g. ``"slug"``), ``message`` says what to do instead,
    ``count`` is how many things use it.
    """

    def __init__(self, message: str, *, field: str = "", count: int = 0):
        super().__init__(message)
        self.message, self.field, self.count = message, field, count


def plain(value):
    """A value as the audit log stores it (JSON-able, manufacturer by slug)."""
    if isinstance(value, Manufacturer):
        return value.slug
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    return json.loads(json.dumps(value, default=str))


def plain_values(obj, names) -> dict:
    """``{name: plain(value)}`` of ``obj``'s fields ``names``."""
    return {name: plain(getattr(obj, name)) for name in names}


def field_changes(before: dict, after: dict) -> dict:
    """``{field: {"old": ..., "new": ...}}`` for each field whose value differs."""
    return {
        name: {"old": before.get(name), "new": after.get(name)}
        for name in after
        if before.get(name) != after.get(name)
    }


def audit(actor, action: str, summary: str, *, team=None, **fields) -> None:
    """Record a catalog change in the audit log (through :mod:`inventory.hooks`)."""
    catalog_hooks().record(actor=actor, action=action, summary=summary, team=team, **fields)
