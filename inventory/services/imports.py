"""Catalog files in: the seed, parts from records or CSV, price books from records or CSV.

Every import is all-or-nothing: it runs in one transaction and raises
:class:`~inventory.services.common.CatalogImportError` listing every problem (file, row or part,
field, message) before anything is kept. A successful import is recorded in the audit log
(``import.applied``). CSV cells our exports neutralised (``'`` before formula-like text) are
read back as written (:func:`inventory.library.cells.unescape_cell`).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import models, transaction

from inventory.hooks import catalog_hooks
from inventory.library.cells import unescape_cell
from inventory.library.documents import DocumentError, load_json
from inventory.library.files import CatalogFileError, PartRecord, read_catalog_folder
from inventory.library.parse_errors import csv_error_text
from inventory.library.schema import IDENTITY_FIELDS, SPEC_FIELDS
from inventory.models import CATEGORY_MODELS, CatalogPart, Manufacturer, Price, PriceBook
from inventory.services.common import (
    CATALOG_CHANGED,
    IMPORT_APPLIED,
    CatalogImportError,
    ImportProblem,
    ImportReport,
    audit,
    csv_columns,
    field_changes,
    validation_problems,
)
from inventory.services.parts import part_values

__all__ = [
    "SEED_FOLDER",
    "SEED_PRICE_BOOK",
    "catalog_import_csv",
    "catalog_load",
    "part_upsert",
    "parts_import",
    "PriceBookPreview",
    "RemovalsNotConfirmed",
    "price_book_import_csv",
    "price_book_import_preview",
    "price_book_import_records",
]

SEED_FOLDER = Path(__file__).resolve().parent.parent / "library" / "seed"
SEED_PRICE_BOOK = "reseller-list-2026"

_TEXT_FIELDS = (models.CharField, models.TextField)


# --- Parts from records --------------------------------------------------------------------------


def _stored_parts() -> dict[str, CatalogPart]:
    """Every stored part by slug, with its manufacturer (one query per category)."""
    return {
        part.slug: part
        for model in CATEGORY_MODELS.values()
        for part in model.objects.select_related("manufacturer")
    }


def _parts_by_name() -> dict[str, CatalogPart]:
    """Every stored part by slug, part number and alias, as :func:`part_get` finds them (a
    slug first): one query per category instead of several per name looked up."""
    parts = _stored_parts()
    by_name: dict[str, CatalogPart] = {}
    for part in parts.values():
        for name in (part.part_number, *(part.aliases or [])):
            if name:
                by_name.setdefault(name, part)
    return by_name | parts


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
    stored: dict[str, CatalogPart],
    actor=None,
    imported_from: str = "",
) -> list[ImportProblem]:
    """Create or update one part from a record; returns problems instead of raising.

    ``stored`` holds the catalog's parts by slug as the import found them
    (:func:`_stored_parts`): the record's own row, if any, and every slug taken in another
    category. A part created or changed gets an entry in its history (old -> new per field),
    as done by ``actor`` (``None``: the system) importing ``imported_from``.
    """
    model = CATEGORY_MODELS[record.category]
    where = f"{record.origin} {record.slug}".strip()
    part = stored.get(record.slug)
    owner = part.CATEGORY if part else None
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
    before = _comparable(part) if part else None
    old_values = part_values(part) if part else {}
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
    unchanged = before is not None and before == _comparable(part)
    try:
        # A row kept as stored keeps the unique rules and the manufacturer it had (the database
        # holds both): its fields are checked again, those not asked of the database again.
        if unchanged:
            part.full_clean(exclude=["manufacturer"], validate_unique=False)
        else:
            part.full_clean()
    except ValidationError as exc:
        return validation_problems(where, exc)
    if unchanged:
        report.unchanged += 1
        return []
    if before is None:
        report.created += 1
    else:
        report.updated += 1
    part.save()
    changes = field_changes(old_values, part_values(part))
    noun = f"{part._meta.verbose_name} {part.slug}"
    audit(
        actor,
        CATALOG_CHANGED,
        (f"Created {noun}" if before is None else f"Changed {noun}: {', '.join(changes)}")
        + f" (imported from {imported_from or 'records'})",
        object_type=part.CATEGORY,
        object_ref=part.slug,
        details={
            "change": "created" if before is None else "updated",
            "fields": changes,
            "import": imported_from or "records",
        },
    )
    return []


def _check_aliases(
    records: list[PartRecord], stored: dict[str, CatalogPart]
) -> list[ImportProblem]:
    """Aliases must not collide with another part's slug or alias."""
    seen: dict[str, str] = {}
    problems = []
    slugs = {r.slug for r in records}
    for slug, part in stored.items():
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
        stored = _stored_parts()
        problems.extend(_check_aliases(records, stored))
        for record in records:
            problems.extend(
                part_upsert(
                    record,
                    manufacturers=manufacturers,
                    report=report,
                    stored=stored,
                    actor=actor,
                    imported_from=source,
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


# --- The seed and price books --------------------------------------------------------------------


@transaction.atomic
def catalog_load(folder: Path = SEED_FOLDER) -> ImportReport:
    """Load a catalog folder (the seed by default) idempotently: create, update, keep."""
    try:
        files = read_catalog_folder(folder)
    except CatalogFileError as exc:
        raise CatalogImportError(
            [ImportProblem(str(exc).split(":")[0], getattr(exc, "field", ""), str(exc))]
        ) from exc
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


def _price_rows_parse(book: PriceBook, rows: list[dict], *, origin: str) -> list[Price]:
    """The offers of ``rows`` as unsaved prices of ``book``; raises
    :class:`CatalogImportError` listing every row that cannot be read."""
    problems: list[ImportProblem] = []
    new_prices = []
    parts = _parts_by_name()
    for number, row in enumerate(rows, start=2 if origin.endswith(".csv") else 1):
        where = f"{origin} row {number}"
        slug = str(row.get("part") or "").strip()
        part = parts.get(slug) if slug else None
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
            problems.extend(validation_problems(where, exc))
            continue
        new_prices.append(price)
    if problems:
        raise CatalogImportError(problems)
    return new_prices


#: The fields that name an offer across an upload: an offer of the book and a row that agree
#: on them are the same offer (changed when another field differs).
OFFER_IDENTITY = ("part_slug", "seller", "currency", "condition", "length_m")
#: An upload that removes more offers than this, or more than :data:`REMOVALS_ASK_SHARE` of
#: the book, is applied only with a second confirmation (``confirm_removals``).
REMOVALS_ASK_COUNT = 5
REMOVALS_ASK_SHARE = Decimal("0.10")


def _offer_values(price: Price) -> dict:
    values = {name: getattr(price, name) for name in Price.OFFER_FIELDS}
    values["price"] = f"{Decimal(values['price']):.2f}"
    values["length_m"] = None if values["length_m"] is None else float(values["length_m"])
    return values


def _offer_key(price: Price, names=Price.OFFER_FIELDS) -> tuple:
    values = _offer_values(price)
    return tuple(str(values[name]) for name in names)


@dataclass(frozen=True)
class PriceBookPreview:
    """What replacing a book's offers with an upload does, before anything is written.

    ``changed`` pairs an offer of the book with the row that replaces it (same
    :data:`OFFER_IDENTITY`, another price, source, date, grade or note).
    """

    origin: str
    offers_before: int
    added: tuple[Price, ...]
    changed: tuple[tuple[Price, Price], ...]
    removed: tuple[Price, ...]
    unchanged: int

    @property
    def rows(self) -> int:
        """Offers of the book after the upload."""
        return len(self.added) + len(self.changed) + self.unchanged

    @property
    def writes(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    @property
    def removes_many(self) -> bool:
        """More than :data:`REMOVALS_ASK_COUNT` offers or :data:`REMOVALS_ASK_SHARE` of the
        book removed: applying needs a second confirmation."""
        removed = len(self.removed)
        return removed > REMOVALS_ASK_COUNT or removed > REMOVALS_ASK_SHARE * self.offers_before

    def removals_text(self) -> str:
        removed, before = len(self.removed), self.offers_before
        return (
            f"This upload removes {removed:,} of the book's {before:,} "
            f"offer{'s' if before != 1 else ''}; confirm the removals to apply it."
        )

    def changed_fields(self) -> list[dict]:
        """Per changed offer: its part and each changed field, old -> new."""
        rows = []
        for old, new in self.changed:
            before, after = _offer_values(old), _offer_values(new)
            fields = {
                name: {"old": before[name], "new": after[name]}
                for name in Price.OFFER_FIELDS
                if before[name] != after[name]
            }
            rows.append({"part": old.part_slug, "fields": fields})
        return rows

    def as_dict(self) -> dict:
        return {
            "file": self.origin,
            "offers_before": self.offers_before,
            "offers_after": self.rows,
            "added": [_offer_values(p) for p in self.added],
            "changed": self.changed_fields(),
            "removed": [_offer_values(p) for p in self.removed],
            "unchanged": self.unchanged,
            "removes_many": self.removes_many,
        }


def _price_rows_diff(book: PriceBook, new_prices: list[Price], *, origin: str) -> PriceBookPreview:
    """Pair the book's offers with ``new_prices``: identical, changed (same identity), added,
    removed."""
    stored = list(book.prices.for_pricing())
    groups_old: dict[tuple, list[Price]] = {}
    groups_new: dict[tuple, list[Price]] = {}
    for price in stored:
        groups_old.setdefault(_offer_key(price, OFFER_IDENTITY), []).append(price)
    for price in new_prices:
        groups_new.setdefault(_offer_key(price, OFFER_IDENTITY), []).append(price)
    added, changed, removed, unchanged = [], [], [], 0
    for identity in {**groups_old, **groups_new}:
        olds = list(groups_old.get(identity, []))
        news = []
        for price in groups_new.get(identity, []):
            same = next((o for o in olds if _offer_key(o) == _offer_key(price)), None)
            if same is None:
                news.append(price)
            else:
                olds.remove(same)
                unchanged += 1
        changed.extend(zip(olds, news, strict=False))
        added.extend(news[len(olds) :])
        removed.extend(olds[len(news) :])
    return PriceBookPreview(
        origin=origin,
        offers_before=len(stored),
        added=tuple(added),
        changed=tuple(changed),
        removed=tuple(removed),
        unchanged=unchanged,
    )


def _price_rows_apply(preview: PriceBookPreview) -> None:
    """Write a preview: removed offers deleted, changed ones updated in place (same id),
    added ones created."""
    Price.objects.filter(pk__in=[p.pk for p in preview.removed]).delete()
    for old, new in preview.changed:
        for name in Price.OFFER_FIELDS:
            setattr(old, name, getattr(new, name))
    Price.objects.bulk_update([old for old, _ in preview.changed], list(Price.OFFER_FIELDS))
    Price.objects.bulk_create(list(preview.added))


def _price_rows_replace(book: PriceBook, rows: list[dict], *, origin: str) -> int:
    preview = _price_rows_diff(book, _price_rows_parse(book, rows, origin=origin), origin=origin)
    _price_rows_apply(preview)
    return preview.rows


def _price_csv_rows(text: str, origin: str) -> list[dict]:
    try:
        reader = csv.DictReader(io.StringIO(text))
        missing = {"part", "price"} - set(reader.fieldnames or [])
        rows = [_unescaped(row) for row in reader]
    except csv.Error as exc:
        raise CatalogImportError([ImportProblem(origin, "", csv_error_text(exc))]) from exc
    if missing:
        raise CatalogImportError(
            [ImportProblem(origin, ", ".join(sorted(missing)), "required column missing")]
        )
    return rows


def price_book_import_preview(
    *, book: PriceBook, text: str, origin: str = "prices.csv"
) -> PriceBookPreview:
    """What :func:`price_book_import_csv` would add, change and remove; writes nothing.

    Raises
    ------
    CatalogImportError
        The file cannot be read (every problem, by row and field).
    """
    rows = _price_csv_rows(text, origin)
    return _price_rows_diff(book, _price_rows_parse(book, rows, origin=origin), origin=origin)


class RemovalsNotConfirmed(CatalogImportError):
    """An upload removes many offers (:attr:`PriceBookPreview.removes_many`) and
    ``confirm_removals`` was not given; nothing was written. ``preview`` says what it does."""

    field = "confirm_removals"

    def __init__(self, preview: PriceBookPreview):
        self.preview = preview
        super().__init__([ImportProblem(preview.origin, self.field, preview.removals_text())])


def price_book_import_csv(
    *,
    book: PriceBook,
    text: str,
    origin: str = "prices.csv",
    actor=None,
    confirm_removals: bool = False,
) -> int:
    """Replace a book's prices with the rows of a CSV (columns: :data:`PRICE_COLUMNS`); returns
    the number of offers the book then holds.

    Offers the file keeps unchanged keep their id; changed ones are updated in place. Recorded
    in the audit log as done by ``actor``: how many offers were added, changed and removed and
    which parts they price (never the prices: one offer's edit, :func:`price_save`, records
    old -> new).

    Raises
    ------
    CatalogImportError
        The file cannot be read; nothing is written.
    RemovalsNotConfirmed
        The file removes many offers (:attr:`PriceBookPreview.removes_many`) and
        ``confirm_removals`` is false; nothing is written.
    """
    with transaction.atomic():
        PriceBook.objects.select_for_update().filter(pk=book.pk).first()
        preview = price_book_import_preview(book=book, text=text, origin=origin)
        if preview.removes_many and not confirm_removals:
            raise RemovalsNotConfirmed(preview)
        _price_rows_apply(preview)
        parts = (
            {p.part_slug for p in preview.added}
            | {old.part_slug for old, _ in preview.changed}
            | {p.part_slug for p in preview.removed}
        )
        _audit_import(
            actor,
            f"Replaced the prices of price book {book.slug} from {origin}: "
            f"{len(preview.added):,} added, {len(preview.changed):,} changed, "
            f"{len(preview.removed):,} removed, {preview.unchanged:,} unchanged",
            object_type="price-book",
            object_ref=book.slug,
            team=book.team,
            details={
                "rows": preview.rows,
                "file": origin,
                "added": len(preview.added),
                "changed": len(preview.changed),
                "removed": len(preview.removed),
                "unchanged": preview.unchanged,
                "removals_confirmed": bool(confirm_removals and preview.removed),
                "parts": sorted(parts),
            },
        )
    return preview.rows


def _unescaped(row: dict) -> dict:
    """A CSV row without the ``'`` our exports put before formula-like text (round trip)."""
    return {key: unescape_cell(v) if isinstance(v, str) else v for key, v in row.items()}


# --- CSV per category ----------------------------------------------------------------------------


class _CellError(ValueError):
    """A CSV cell that cannot be read; carries the problem to report."""

    def __init__(self, where: str, field: str, message: str):
        super().__init__(message)
        self.problem = ImportProblem(where, field, message)


def _cell(model, name: str, text: str, where: str):
    field_ = model._meta.get_field(name) if name not in {"sources", "provenance"} else None
    if name in {"sources", "provenance"} or isinstance(field_, models.JSONField):
        if text.strip() == "":
            return field_.get_default() if field_ else {}
        try:
            return load_json(text)
        except DocumentError as exc:  # too deep, a number too long, unstorable text
            raise _CellError(where, name, f"refused: {exc}") from None
        except ValueError as exc:
            raise _CellError(where, name, f"not valid JSON ({getattr(exc, 'msg', exc)})") from None
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
        raise CatalogImportError([ImportProblem(origin, "", csv_error_text(exc))]) from exc
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
        raise CatalogImportError([ImportProblem(origin, "", csv_error_text(exc))]) from exc
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
