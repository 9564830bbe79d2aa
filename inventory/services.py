"""Writes to the catalog: seed loading, part edits, CSV/JSON/YAML import and export.

Every import is all-or-nothing: it runs in one transaction and raises
:class:`CatalogImportError` listing every problem (file, row or part, field, message) before
anything is kept.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q

from inventory.hooks import catalog_hooks
from inventory.library.cells import safe_cell, unescape_cell
from inventory.library.files import CatalogFileError, PartRecord, read_catalog_folder
from inventory.library.schema import IDENTITY_FIELDS, SPEC_FIELDS
from inventory.models import CATEGORY_MODELS, CatalogPart, Manufacturer, Price, PriceBook

SEED_FOLDER = Path(__file__).resolve().parent / "library" / "seed"
SEED_PRICE_BOOK = "reseller-list-2026"


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


def part_get(identifier: str) -> CatalogPart | None:
    """Find a part in any category by slug, then by part number or alias."""
    for model in CATEGORY_MODELS.values():
        part = model.objects.filter(slug=identifier).first()
        if part:
            return part
    for model in CATEGORY_MODELS.values():
        for part in model.objects.filter(
            Q(part_number=identifier) | Q(aliases__icontains=identifier)
        ):
            if part.part_number == identifier or identifier in (part.aliases or []):
                return part
    return None


def _slug_owner(slug: str, exclude_model) -> str | None:
    for category, model in CATEGORY_MODELS.items():
        if model is not exclude_model and model.objects.filter(slug=slug).exists():
            return category
    return None


def _slug_categories() -> dict[str, str]:
    """Every stored part slug with its category (one query per category)."""
    return {
        slug: category
        for category, model in CATEGORY_MODELS.items()
        for slug in model.objects.values_list("slug", flat=True)
    }


def _validation_problems(where: str, exc: ValidationError) -> list[ImportProblem]:
    if hasattr(exc, "error_dict"):
        return [
            ImportProblem(where, name if name != "__all__" else "", message)
            for name, errors in exc.message_dict.items()
            for message in errors
        ]
    return [ImportProblem(where, "", message) for message in exc.messages]


def _comparable(part: CatalogPart) -> dict:
    data = {
        name: getattr(part, name)
        for name in (*IDENTITY_FIELDS, *part.SPEC_FIELDS)
        if name != "manufacturer"
    }
    data["manufacturer"] = part.manufacturer.slug if part.manufacturer_id else None
    data["sources"], data["provenance"] = part.sources, part.provenance
    return json.loads(json.dumps(data, default=str))


def part_upsert(
    record: PartRecord,
    *,
    manufacturers: dict[str, Manufacturer],
    report: ImportReport,
    slug_categories: dict[str, str],
) -> list[ImportProblem]:
    """Create or update one part from a record; returns problems instead of raising.

    ``slug_categories`` maps the stored slugs to their category (:func:`_slug_categories`).
    """
    model = CATEGORY_MODELS[record.category]
    where = f"{record.origin} {record.slug}".strip()
    owner = slug_categories.get(record.slug)
    if owner and owner != record.category:
        return [
            ImportProblem(
                where,
                "slug",
                f"{record.slug!r} is already a {owner} slug; slugs are unique across the catalog.",
            )
        ]
    manufacturer_key = record.identity.get("manufacturer")
    manufacturer = manufacturers.get(str(manufacturer_key or "").lower())
    if manufacturer is None:
        return [ImportProblem(where, "manufacturer", f"unknown manufacturer {manufacturer_key!r}")]
    part = model.objects.filter(slug=record.slug).first()
    before = _comparable(part) if part else None
    part = part or model(slug=record.slug)
    blank = model()
    for name in (*IDENTITY_FIELDS, *model.SPEC_FIELDS):
        if name in {"slug", "manufacturer"}:
            continue
        source = record.identity if name in IDENTITY_FIELDS else record.spec
        value = source.get(name, getattr(blank, name))
        if value is None and isinstance(model._meta.get_field(name), _TEXT_FIELDS):
            value = ""
        setattr(part, name, value)
    part.manufacturer = manufacturer
    part.sources, part.provenance = record.sources, record.provenance
    try:
        part.full_clean()
    except ValidationError as exc:
        return _validation_problems(where, exc)
    if before is None:
        report.created += 1
    elif before == _comparable(part):
        report.unchanged += 1
        return []
    else:
        report.updated += 1
    part.save()
    return []


def _text_fields():
    from django.db import models

    return (models.CharField, models.TextField)


_TEXT_FIELDS = _text_fields()


def _check_aliases(records: list[PartRecord]) -> list[ImportProblem]:
    """Aliases must not collide with another part's slug or alias."""
    seen: dict[str, str] = {}
    problems = []
    slugs = {r.slug for r in records}
    existing = {p.slug: p for model in CATEGORY_MODELS.values() for p in model.objects.all()}
    for slug, part in existing.items():
        for alias in part.aliases or []:
            seen.setdefault(alias, slug)
    for record in records:
        aliases = record.identity.get("aliases") or []
        if not isinstance(aliases, list) or not all(isinstance(alias, str) for alias in aliases):
            problems.append(
                ImportProblem(
                    f"{record.origin} {record.slug}",
                    "aliases",
                    f'a list of other names, e.g. ["980-9I510-00NS00"] (got {aliases!r})',
                )
            )
            continue
        for alias in aliases:
            if alias in slugs and alias != record.slug:
                problems.append(
                    ImportProblem(
                        f"{record.origin} {record.slug}",
                        "aliases",
                        f"alias {alias!r} is another part's slug",
                    )
                )
            owner = seen.get(alias)
            if owner and owner != record.slug and owner not in slugs:
                problems.append(
                    ImportProblem(
                        f"{record.origin} {record.slug}",
                        "aliases",
                        f"alias {alias!r} already belongs to {owner}",
                    )
                )
            seen[alias] = record.slug
    return problems


def parts_import(
    records: list[PartRecord],
    *,
    manufacturers: dict[str, Manufacturer] | None = None,
    report: ImportReport | None = None,
    actor=None,
    source: str = "",
) -> ImportReport:
    """Upsert many parts in one transaction; refuse all of them if any is invalid.

    A successful import is recorded in the audit log (``import.applied``) as done by
    ``actor`` (``None``: the system) from ``source`` (a file or folder name).
    """
    report = report or ImportReport()
    problems: list[ImportProblem] = []
    seen: dict[str, str] = {}
    for record in records:
        if record.slug in seen:
            problems.append(
                ImportProblem(
                    f"{record.origin} {record.slug}",
                    "slug",
                    f"duplicate slug (also in {seen[record.slug]})",
                )
            )
        seen[record.slug] = record.origin
    if problems:
        raise CatalogImportError(problems)
    with transaction.atomic():
        if manufacturers is None:
            manufacturers = {}
            for m in Manufacturer.objects.all():
                manufacturers[m.slug.lower()] = m
                manufacturers[m.name.lower()] = m
        problems.extend(_check_aliases(records))
        slug_categories = _slug_categories()
        for record in records:
            problems.extend(
                part_upsert(
                    record,
                    manufacturers=manufacturers,
                    report=report,
                    slug_categories=slug_categories,
                )
            )
        if problems:
            transaction.set_rollback(True)
            raise CatalogImportError(problems)
        _audit_import(
            actor,
            f"Imported {len(records)} parts from {source or 'records'}: {report.created} "
            f"created, {report.updated} updated, {report.unchanged} unchanged",
            object_type="parts",
            object_ref=source,
            details={"created": report.created, "updated": report.updated, "parts": len(records)},
        )
    return report


def _audit_import(actor, summary: str, **fields) -> None:
    catalog_hooks().record(actor=actor, action=IMPORT_APPLIED, summary=summary, **fields)


#: The audit actions of catalog and price changes (values of the audit log's action choices).
IMPORT_APPLIED = "import.applied"
CATALOG_CHANGED = "catalog.changed"
CATALOG_DELETED = "catalog.deleted"
CATALOG_ARCHIVED = "catalog.archived"
PRICE_CHANGED = "price.changed"


@transaction.atomic
def catalog_load(folder: Path = SEED_FOLDER) -> ImportReport:
    """Load a catalog folder (the seed by default) idempotently: create, update, keep."""
    try:
        files = read_catalog_folder(folder)
    except CatalogFileError as exc:
        raise CatalogImportError([ImportProblem(str(exc).split(":")[0], "", str(exc))]) from exc
    manufacturers: dict[str, Manufacturer] = {}
    for item in files.manufacturers:
        manufacturer, _ = Manufacturer.objects.update_or_create(
            slug=item["slug"], defaults={"name": item["name"], "url": item.get("url") or ""}
        )
        manufacturers[manufacturer.slug.lower()] = manufacturer
        manufacturers[manufacturer.name.lower()] = manufacturer
    for m in Manufacturer.objects.all():
        manufacturers.setdefault(m.slug.lower(), m)
    report = parts_import(files.parts, manufacturers=manufacturers, source=folder.name)
    if files.price_book:
        price_book_import_records(files.price_book, files.prices)
    return report


def price_book_import_records(book_data: dict, prices) -> PriceBook:
    """Create or replace a price book's prices from records (seed ``prices.yaml``)."""
    book, _ = PriceBook.objects.update_or_create(
        slug=book_data["slug"],
        defaults={
            "name": book_data["name"],
            "currency": book_data.get("currency", "USD"),
            "kind": book_data.get("kind", "reseller"),
            "description": book_data.get("description", ""),
        },
    )
    rows = [
        {
            "part": p.part,
            "price": p.price,
            "currency": p.currency,
            "seller": p.seller,
            "source_url": p.url or "",
            "as_of": p.date or "",
            "grade": p.grade or "secondary",
            "condition": p.condition,
            "length_m": p.length_m,
            "note": p.note or "",
        }
        for p in prices
    ]
    _price_rows_replace(book, rows, origin="prices.yaml")
    return book


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


def _price_rows_replace(book: PriceBook, rows: list[dict], *, origin: str) -> int:
    problems: list[ImportProblem] = []
    new_prices = []
    for number, row in enumerate(rows, start=2 if origin.endswith(".csv") else 1):
        where = f"{origin} row {number}"
        slug = str(row.get("part") or "").strip()
        part = part_get(slug) if slug else None
        if part is None:
            problems.append(ImportProblem(where, "part", f"unknown part {slug!r}"))
            continue
        try:
            amount = Decimal(str(row.get("price")).replace(",", ""))
        except (InvalidOperation, ValueError):
            problems.append(ImportProblem(where, "price", f"not a number: {row.get('price')!r}"))
            continue
        length = row.get("length_m")
        if length in ("", None):
            length = None
        else:
            try:
                length = float(length)
            except ValueError:
                problems.append(ImportProblem(where, "length_m", f"not a number: {length!r}"))
                continue
        price = Price(
            book=book,
            part_category=part.CATEGORY,
            part_slug=part.slug,
            price=amount,
            currency=(row.get("currency") or book.currency).strip().upper(),
            seller=row.get("seller") or "",
            source_url=row.get("source_url") or "",
            as_of=str(row.get("as_of") or ""),
            grade=row.get("grade") or "secondary",
            condition=row.get("condition") or "new",
            length_m=length,
            note=row.get("note") or "",
        )
        try:
            price.full_clean(exclude=["book"])
        except ValidationError as exc:
            problems.extend(_validation_problems(where, exc))
            continue
        new_prices.append(price)
    if problems:
        raise CatalogImportError(problems)
    fields = Price.OFFER_FIELDS

    def key(price):
        values = {name: getattr(price, name) for name in fields}
        values["price"] = f"{Decimal(values['price']):.2f}"
        values["length_m"] = None if values["length_m"] is None else float(values["length_m"])
        return tuple(str(values[name]) for name in fields)

    if sorted(map(key, book.prices.all())) != sorted(map(key, new_prices)):
        book.prices.all().delete()
        Price.objects.bulk_create(new_prices)
    return len(new_prices)


def price_book_import_csv(
    *, book: PriceBook, text: str, origin: str = "prices.csv", actor=None
) -> int:
    """Replace a book's prices with the rows of a CSV (columns: :data:`PRICE_COLUMNS`).

    Recorded in the audit log as done by ``actor`` (the row count, never the prices).
    """
    try:
        reader = csv.DictReader(io.StringIO(text))
        missing = {"part", "price"} - set(reader.fieldnames or [])
        rows = [_unescaped(row) for row in reader]
    except csv.Error as exc:
        raise CatalogImportError([ImportProblem(origin, "", f"not CSV: {exc}")]) from exc
    if missing:
        raise CatalogImportError(
            [ImportProblem(origin, ", ".join(sorted(missing)), "required column missing")]
        )
    with transaction.atomic():
        count = _price_rows_replace(book, rows, origin=origin)
        _audit_import(
            actor,
            f"Replaced the prices of price book {book.slug} with {count} rows from {origin}",
            object_type="price-book",
            object_ref=book.slug,
            team=book.team,
            details={"rows": count, "file": origin},
        )
    return count


def _unescaped(row: dict) -> dict:
    """A CSV row without the ``'`` our exports put before formula-like text (round trip)."""
    return {key: unescape_cell(v) if isinstance(v, str) else v for key, v in row.items()}


def price_book_export_csv(book: PriceBook) -> str:
    """A book's prices as CSV (:data:`PRICE_COLUMNS`); formula-like text is neutralised."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=PRICE_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for price in book.prices.all():
        length = "" if price.length_m is None else f"{price.length_m:g}"
        text = {
            "part": price.part_slug,
            "category": price.part_category,
            "currency": price.currency,
            "seller": price.seller,
            "source_url": price.source_url,
            "as_of": price.as_of,
            "grade": price.grade,
            "condition": price.condition,
            "note": price.note,
        }
        writer.writerow(
            {
                **{name: safe_cell(value) for name, value in text.items()},
                "price": f"{price.price:.2f}",
                "length_m": length,
            }
        )
    return out.getvalue()


# --- CSV per category ----------------------------------------------------------------------------


def csv_columns(category: str) -> list[str]:
    return [*IDENTITY_FIELDS, *SPEC_FIELDS[category], "sources", "provenance"]


def _is_structured(model, name: str) -> bool:
    from django.db import models

    return isinstance(model._meta.get_field(name), models.JSONField)


def catalog_export_csv(category: str) -> str:
    """Every part of a category as CSV; lists and objects are JSON in their cells, and text
    that a spreadsheet would read as a formula is neutralised (``'`` before it)."""
    model = CATEGORY_MODELS[category]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = csv_columns(category)
    writer.writerow(columns)
    for part in model.objects.select_related("manufacturer").order_by("slug"):
        row = []
        for name in columns:
            value = part.manufacturer.slug if name == "manufacturer" else getattr(part, name)
            if name in {"sources", "provenance"} or _is_structured(model, name):
                row.append(json.dumps(value, sort_keys=True))
            elif value is None:
                row.append("")
            elif isinstance(value, bool):
                row.append("true" if value else "false")
            elif isinstance(value, float) and value.is_integer():
                row.append(str(int(value)))
            elif isinstance(value, str):
                row.append(safe_cell(value))  # no formula-like text (=, +, -, @, tab, CR)
            else:
                row.append(str(value))
        writer.writerow(row)
    return out.getvalue()


class _CellError(ValueError):
    """A CSV cell that cannot be read; carries the problem to report."""

    def __init__(self, where: str, field: str, message: str):
        super().__init__(message)
        self.problem = ImportProblem(where, field, message)


def _cell(model, name: str, text: str, where: str):
    from django.db import models

    field_ = model._meta.get_field(name) if name not in {"sources", "provenance"} else None
    if name in {"sources", "provenance"} or isinstance(field_, models.JSONField):
        if text.strip() == "":
            return field_.get_default() if field_ else {}
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise _CellError(where, name, f"not valid JSON ({exc.msg})") from None
    if text == "":
        return None
    if isinstance(field_, models.BooleanField):
        if text.lower() not in {"true", "false"}:
            raise _CellError(where, name, f"expected true or false, got {text!r}")
        return text.lower() == "true"
    if isinstance(field_, models.IntegerField):
        try:
            return int(text)
        except ValueError:
            raise _CellError(where, name, f"expected a whole number, got {text!r}") from None
    if isinstance(field_, models.FloatField):
        try:
            value = float(text)
        except ValueError:
            raise _CellError(where, name, f"expected a number, got {text!r}") from None
        return int(value) if value.is_integer() else value
    return text


def catalog_import_csv(
    *, category: str, text: str, origin: str = "catalog.csv", actor=None
) -> ImportReport:
    """Create or update parts from a category CSV (as written by :func:`catalog_export_csv`);
    ``actor`` is recorded in the audit log."""
    if category not in CATEGORY_MODELS:
        raise CatalogImportError(
            [ImportProblem(origin, "category", f"unknown category {category!r}")]
        )
    model = CATEGORY_MODELS[category]
    try:
        reader = csv.DictReader(io.StringIO(text))
        header = reader.fieldnames or []
    except csv.Error as exc:
        raise CatalogImportError([ImportProblem(origin, "", f"not CSV: {exc}")]) from exc
    allowed = set(csv_columns(category))
    problems = []
    unknown = [name for name in header if name not in allowed]
    if unknown:
        problems.append(
            ImportProblem(
                f"{origin} row 1", ", ".join(unknown), f"unknown column(s) for {category}"
            )
        )
    for required in ("slug", "name", "manufacturer"):
        if required not in header:
            problems.append(ImportProblem(f"{origin} row 1", required, "required column missing"))
    if problems:
        raise CatalogImportError(problems)
    records = []
    try:
        rows = [_unescaped(row) for row in reader]
    except csv.Error as exc:
        raise CatalogImportError([ImportProblem(origin, "", f"not CSV: {exc}")]) from exc
    for number, row in enumerate(rows, start=2):
        where = f"{origin} row {number}"
        if None in row:
            problems.append(ImportProblem(where, "", "more cells than columns"))
            continue
        values = {}
        for name in header:
            try:
                values[name] = (
                    _cell(model, name, row.get(name) or "", where)
                    if name not in IDENTITY_FIELDS or name == "aliases"
                    else (row.get(name) or "")
                )
            except _CellError as error:
                problems.append(error.problem)
        if not values.get("slug"):
            problems.append(ImportProblem(where, "slug", "required"))
            continue
        if values.get("aliases") is None:
            values["aliases"] = []
        records.append(
            PartRecord(
                category=category,
                slug=values["slug"],
                identity={k: values[k] for k in IDENTITY_FIELDS if k in values},
                spec={k: values[k] for k in SPEC_FIELDS[category] if k in values},
                sources=values.get("sources") or {},
                provenance=values.get("provenance") or {},
                origin=where,
            )
        )
    if problems:
        raise CatalogImportError(problems)
    return parts_import(records, actor=actor, source=origin)


# --- JSON --------------------------------------------------------------------------------------


def part_as_dict(part: CatalogPart) -> dict:
    data = {"slug": part.slug, "category": part.CATEGORY}
    for name in IDENTITY_FIELDS:
        if name == "manufacturer":
            data[name] = part.manufacturer.slug
        elif name != "slug":
            data[name] = getattr(part, name)
    for name in part.SPEC_FIELDS:
        data[name] = getattr(part, name)
    data["sources"], data["provenance"] = part.sources, part.provenance
    return data


def catalog_export_json() -> list[dict]:
    """The whole catalog (specs with provenance, no prices) as a list of objects."""
    parts = []
    for model in CATEGORY_MODELS.values():
        parts.extend(
            part_as_dict(p) for p in model.objects.select_related("manufacturer").order_by("slug")
        )
    return parts


# --- Edits of single entries: parts, manufacturers, price books, offers (audited) ---------------
#
# Who may call these is decided by the caller (:mod:`inventory.permissions`); each writes the
# change and its audit event (old -> new per changed field) in one transaction.


class CatalogConflict(Exception):
    """A change refused because something still uses the entry (an HTTP 409).

    ``field`` names what is in the way (e.g. ``"slug"``), ``message`` says what to do instead,
    ``count`` is how many things use it.
    """

    def __init__(self, message: str, *, field: str = "", count: int = 0):
        super().__init__(message)
        self.message, self.field, self.count = message, field, count


def _plain(value):
    """A value as the audit log stores it (JSON-able, manufacturer by slug)."""
    if isinstance(value, Manufacturer):
        return value.slug
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    return json.loads(json.dumps(value, default=str))


def _part_values(part: CatalogPart) -> dict:
    names = (*IDENTITY_FIELDS, *part.SPEC_FIELDS, "sources", "provenance", "archived")
    values = {name: _plain(getattr(part, name)) for name in names if name != "manufacturer"}
    values["manufacturer"] = part.manufacturer.slug if part.manufacturer_id else None
    return values


def _changes(before: dict, after: dict) -> dict:
    """``{field: {"old": ..., "new": ...}}`` for each field whose value differs."""
    return {
        name: {"old": before.get(name), "new": after.get(name)}
        for name in after
        if before.get(name) != after.get(name)
    }


def _audit(actor, action: str, summary: str, *, team=None, **fields) -> None:
    catalog_hooks().record(actor=actor, action=action, summary=summary, team=team, **fields)


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
    before = _part_values(stored) if part.pk and stored else {}
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
    changes = _changes(before, _part_values(part))
    if changes:
        created = stored is None
        _audit(
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
    values = _part_values(part)
    prices, _ = Price.objects.filter(part_category=part.CATEGORY, part_slug=part.slug).delete()
    part.delete()
    _audit(
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
    _audit(
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


MANUFACTURER_FIELDS = ("slug", "name", "url")


def _values(obj, names) -> dict:
    return {name: _plain(getattr(obj, name)) for name in names}


@transaction.atomic
def manufacturer_save(*, manufacturer: Manufacturer, actor=None) -> Manufacturer:
    """Validate and save a manufacturer; the change is audited (old -> new per field)."""
    stored = Manufacturer.objects.filter(pk=manufacturer.pk).first() if manufacturer.pk else None
    before = _values(stored, MANUFACTURER_FIELDS) if stored else {}
    manufacturer.full_clean()
    manufacturer.save()
    changes = _changes(before, _values(manufacturer, MANUFACTURER_FIELDS))
    if changes:
        _audit(
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
    values = _values(manufacturer, MANUFACTURER_FIELDS)
    manufacturer.delete()
    _audit(
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


PRICE_BOOK_FIELDS = ("slug", "name", "currency", "kind", "description", "team")


def _book_values(book: PriceBook) -> dict:
    values = _values(book, [name for name in PRICE_BOOK_FIELDS if name != "team"])
    values["team"] = book.team.slug if book.team_id else None
    return values


@transaction.atomic
def price_book_save(*, book: PriceBook, actor=None) -> PriceBook:
    """Validate and save a price book; the change is audited (old -> new per field), for
    readers of the book only (the event carries the book's team)."""
    stored = PriceBook.objects.filter(pk=book.pk).select_related("team").first()
    before = _book_values(stored) if book.pk and stored else {}
    book.full_clean()
    book.save()
    changes = _changes(before, _book_values(book))
    if changes:
        _audit(
            actor,
            PRICE_CHANGED,
            f"{'Created' if not before else 'Changed'} price book {book.slug}",
            team=book.team if book.team_id else (stored.team if stored else None),
            object_type="price-book",
            object_ref=book.slug,
            details={"change": "created" if not before else "updated", "fields": changes},
        )
    return book


@transaction.atomic
def price_book_delete(*, book: PriceBook, actor=None) -> None:
    """Delete a price book and its offers, unless a quote is priced from it.

    Raises
    ------
    CatalogConflict
        Quotes are priced from the book.
    """
    quotes = book.quotes.count()
    if quotes:
        raise CatalogConflict(
            f"{quotes} quote{'s are' if quotes != 1 else ' is'} priced from {book.slug}; "
            "it cannot be deleted.",
            field="slug",
            count=quotes,
        )
    values, team = _book_values(book), book.team
    prices, _ = book.prices.all().delete()
    book.delete()
    _audit(
        actor,
        PRICE_CHANGED,
        f"Deleted price book {values['slug']} and its {prices} price{'s' if prices != 1 else ''}",
        team=team,
        object_type="price-book",
        object_ref=values["slug"],
        details={
            "change": "deleted",
            "fields": {name: {"old": value, "new": None} for name, value in values.items()},
            "prices_deleted": prices,
        },
    )


def _price_values(price: Price) -> dict:
    values = _values(price, Price.OFFER_FIELDS)
    values["book"] = price.book.slug if price.book_id else None
    return values


@transaction.atomic
def price_save(*, price: Price, actor=None) -> Price:
    """Validate and save one offer; the change is audited with old -> new prices, for readers
    of its book only."""
    stored = Price.objects.filter(pk=price.pk).select_related("book").first() if price.pk else None
    before = _price_values(stored) if stored else {}
    price.full_clean()
    price.save()
    changes = _changes(before, _price_values(price))
    if changes:
        books = {price.book, stored.book if stored else price.book}
        for book in books:
            _audit(
                actor,
                PRICE_CHANGED,
                f"{'Added' if stored is None else 'Changed'} the price of {price.part_slug} in "
                f"{book.slug}",
                team=book.team,
                object_type="price",
                object_ref=str(price.pk),
                details={
                    "change": "created" if stored is None else "updated",
                    "book": book.slug,
                    "part": price.part_slug,
                    "fields": changes,
                },
            )
    return price


@transaction.atomic
def price_delete(*, price: Price, actor=None) -> None:
    """Delete one offer; audited with its old values, for readers of its book only."""
    values, book, pk = _price_values(price), price.book, price.pk
    price.delete()
    _audit(
        actor,
        PRICE_CHANGED,
        f"Deleted the price of {values['part_slug']} in {book.slug}",
        team=book.team,
        object_type="price",
        object_ref=str(pk),
        details={
            "change": "deleted",
            "book": book.slug,
            "part": values["part_slug"],
            "fields": {name: {"old": value, "new": None} for name, value in values.items()},
        },
    )
