"""``python manage.py catalog``: export and import the catalog and price books.

Examples::

    python manage.py catalog export --format json > catalog.json
    python manage.py catalog export --format csv --category transceiver > transceivers.csv
    python manage.py catalog import transceivers.csv            # category from the file name
    python manage.py catalog import path/to/devicetype-library/device-types/Nvidia/
    python manage.py catalog import my-catalog-folder/           # our YAML format (like the seed)
    python manage.py catalog prices export reseller-list-2026 > prices.csv
    python manage.py catalog prices import my-book prices.csv --name "ACME 2027" --currency EUR
"""

import json
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from inventory.library.schema import FILES
from inventory.management.base import DatabaseCommand
from inventory.models import CATEGORY_MODELS, PriceBook
from inventory.netbox_import import netbox_import
from inventory.services import (
    CatalogImportError,
    RemovalsNotConfirmed,
    catalog_export_csv,
    catalog_export_json,
    catalog_import_csv,
    catalog_load,
    price_book_export_csv,
    price_book_import_csv,
)

CSV_NAMES = {**{c: c for c in CATEGORY_MODELS}, **{Path(f).stem: c for c, f in FILES.items()}}


class Command(DatabaseCommand):
    help = "Export or import the catalog (JSON, CSV, our YAML, NetBox devicetype YAML) and prices."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        export = sub.add_parser(
            "export", help="Print the catalog (specs and provenance, no prices)."
        )
        export.add_argument("--format", choices=["json", "csv"], default="json")
        export.add_argument("--category", choices=sorted(CATEGORY_MODELS))
        export.add_argument("--out", help="Write to this file instead of standard output.")
        imp = sub.add_parser("import", help="Import a CSV, a catalog folder or NetBox YAML.")
        imp.add_argument("path")
        imp.add_argument(
            "--category",
            choices=sorted(CATEGORY_MODELS),
            help="For CSV (default: from the file name) or NetBox files.",
        )
        imp.add_argument(
            "--replace",
            action="store_true",
            help="NetBox files: overwrite parts whose values come from other sources.",
        )
        prices = sub.add_parser("prices", help="Price book CSV import/export.")
        prices_sub = prices.add_subparsers(dest="prices_action", required=True)
        pexp = prices_sub.add_parser("export")
        pexp.add_argument("book")
        pimp = prices_sub.add_parser("import")
        pimp.add_argument("book")
        pimp.add_argument("path")
        pimp.add_argument("--name", help="Name for a new book.")
        pimp.add_argument("--currency", default="USD")
        pimp.add_argument(
            "--confirm-removals",
            action="store_true",
            help="Apply a file that removes more than 5 offers or 10 %% of the book.",
        )

    def handle(self, *args, action, **options):
        try:
            if action == "export":
                self._export(options)
            elif action == "import":
                self._import(Path(options["path"]), options.get("category"), options["replace"])
            else:
                self._prices(options)
        except CatalogImportError as exc:
            raise CommandError(f"nothing was imported:\n{exc}") from exc

    def _write(self, text, out):
        if out:
            try:
                Path(out).write_text(text, encoding="utf-8")
            except OSError as exc:
                raise CommandError(f"cannot write {out}: {exc.strerror or exc}") from exc
        else:
            sys.stdout.write(text)

    def _export(self, options):
        if options["format"] == "json":
            text = json.dumps(catalog_export_json(), indent=2, sort_keys=False, default=str) + "\n"
        else:
            if not options.get("category"):
                raise CommandError("--format csv needs --category (one CSV per category)")
            text = catalog_export_csv(options["category"])
        self._write(text, options.get("out"))

    def _import(self, path: Path, category, replace=False):
        if not path.exists():
            raise CommandError(f"{path}: no such file or folder")
        if path.is_file() and path.stat().st_size > settings.CATALOG_IMPORT_MAX_BYTES:
            raise CommandError(f"{path}: larger than {settings.CATALOG_IMPORT_MAX_BYTES} bytes")
        if path.suffix.lower() == ".csv":
            category = category or CSV_NAMES.get(path.stem.lower())
            if not category:
                raise CommandError(f"{path.name}: say --category (file name does not name one)")
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from exc
            except UnicodeDecodeError as exc:
                raise CommandError(f"{path.name}: not UTF-8 text") from exc
            report = catalog_import_csv(category=category, text=text, origin=path.name)
        elif path.is_dir() and any(
            (path / name).exists() for name in ["manufacturers.yaml", *FILES.values()]
        ):
            report = catalog_load(path)
        else:
            report = netbox_import([path], category=category, replace_existing=replace)
        for warning in report.warnings:
            self.stderr.write(f"warning: {warning}")
        self.stdout.write(
            f"Imported {report.total} parts ({report.created} created, "
            f"{report.updated} updated, {report.unchanged} unchanged)."
        )

    def _prices(self, options):
        if options["prices_action"] == "export":
            book = PriceBook.objects.filter(slug=options["book"]).first()
            if book is None:
                raise CommandError(f"no price book {options['book']!r}")
            sys.stdout.write(price_book_export_csv(book))
            return
        path = Path(options["path"])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise CommandError(f"{path.name}: not UTF-8 text") from exc
        book, _ = PriceBook.objects.get_or_create(
            slug=options["book"],
            defaults={
                "name": options.get("name") or options["book"],
                "currency": options["currency"],
                "kind": "negotiated",
            },
        )
        try:
            count = price_book_import_csv(
                book=book,
                text=text,
                origin=path.name,
                confirm_removals=options["confirm_removals"],
            )
        except RemovalsNotConfirmed as exc:
            raise CommandError(
                f"{exc.preview.removals_text()} Run again with --confirm-removals."
            ) from exc
        self.stdout.write(f"{book.name}: {count} prices.")
