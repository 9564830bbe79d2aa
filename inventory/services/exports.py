"""Catalog files out: parts as CSV per category or as JSON, a price book's prices as CSV.

Text that a spreadsheet would read as a formula is neutralised (``'`` before it,
:func:`inventory.library.cells.safe_cell`); :mod:`inventory.services.imports` reads it back.
"""

from __future__ import annotations

import csv
import io
import json

from django.db import models

from inventory.library.cells import safe_cell
from inventory.library.schema import IDENTITY_FIELDS
from inventory.models import CATEGORY_MODELS, CatalogPart, PriceBook
from inventory.services.common import PRICE_COLUMNS, csv_columns

__all__ = ["catalog_export_csv", "catalog_export_json", "part_as_dict", "price_book_export_csv"]


def price_book_export_csv(book: PriceBook) -> str:
    """A book's prices as CSV (:data:`PRICE_COLUMNS`); formula-like text is neutralised."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=PRICE_COLUMNS, lineterminator="\n")
    writer.writeheader()
    # The model's order (part, length, price), then every other column: two offers at one price
    # (a list price and an estimate based on it) come out in the same order after a round trip.
    offers = book.prices.for_pricing().order_by(
        "part_slug",
        "length_m",
        "price",
        "seller",
        "condition",
        "grade",
        "as_of",
        "source_url",
        "note",
    )
    for price in offers:
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


def _is_structured(model, name: str) -> bool:
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
