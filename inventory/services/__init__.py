"""Writes to the catalog, and its files in and out, one module per concern.

- :mod:`~inventory.services.common`: import problems and reports, conflicts, file columns,
  part lookup, the audit of a change (imported by the others; imports none of them);
- :mod:`~inventory.services.imports`: the seed, parts from records or CSV, price books from
  records or CSV, all-or-nothing;
- :mod:`~inventory.services.exports`: parts as CSV or JSON, a price book as CSV (formula-like
  text neutralised);
- :mod:`~inventory.services.parts`: save, delete, archive a part;
- :mod:`~inventory.services.manufacturers`: save, delete a manufacturer;
- :mod:`~inventory.services.price_books`: save, delete a price book or one offer;
- :mod:`~inventory.services.exchange_rates`: save, delete an exchange rate.

Writes are keyword-only, ``full_clean`` and audit (through :mod:`inventory.hooks`) in one
transaction. Callers import from here: ``from inventory.services import part_save``.
"""

from inventory.services.common import (
    PRICE_COLUMNS,
    CatalogConflict,
    CatalogImportError,
    ImportProblem,
    ImportReport,
    csv_columns,
    part_by_number_or_alias,
    part_get,
)
from inventory.services.exchange_rates import exchange_rate_delete, exchange_rate_save
from inventory.services.exports import (
    catalog_export_csv,
    catalog_export_json,
    part_as_dict,
    price_book_export_csv,
)
from inventory.services.imports import (
    SEED_PRICE_BOOK,
    PriceBookPreview,
    RemovalsNotConfirmed,
    catalog_import_csv,
    catalog_load,
    parts_import,
    price_book_import_csv,
    price_book_import_preview,
)
from inventory.services.manufacturers import manufacturer_delete, manufacturer_save
from inventory.services.parts import part_archive, part_delete, part_save, part_usage
from inventory.services.price_books import (
    price_archive,
    price_book_delete,
    price_book_save,
    price_delete,
    price_restore,
    price_save,
)

__all__ = [
    "PRICE_COLUMNS",
    "SEED_PRICE_BOOK",
    "PriceBookPreview",
    "RemovalsNotConfirmed",
    "CatalogConflict",
    "CatalogImportError",
    "ImportProblem",
    "ImportReport",
    "catalog_export_csv",
    "catalog_export_json",
    "catalog_import_csv",
    "catalog_load",
    "exchange_rate_delete",
    "exchange_rate_save",
    "csv_columns",
    "manufacturer_delete",
    "manufacturer_save",
    "part_archive",
    "part_as_dict",
    "part_delete",
    "part_by_number_or_alias",
    "part_get",
    "part_save",
    "part_usage",
    "parts_import",
    "price_book_delete",
    "price_book_export_csv",
    "price_book_import_csv",
    "price_book_import_preview",
    "price_book_save",
    "price_archive",
    "price_delete",
    "price_restore",
    "price_save",
]
