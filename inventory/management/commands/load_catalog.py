"""Load the seed catalog (idempotent: a second run changes nothing)."""

from django.core.management.base import CommandError

from inventory.management.base import DatabaseCommand
from inventory.services import CatalogImportError, catalog_load


class Command(DatabaseCommand):
    help = "Load the seed catalog and its reseller price book; safe to run again."
    seed_catalog = False  # a fresh embedded database is only migrated: this loads it

    def handle(self, *args, **options):
        try:
            report = catalog_load()
        except CatalogImportError as exc:
            raise CommandError(f"catalog not loaded:\n{exc}") from exc
        self.stdout.write(
            f"Catalog: {report.total} parts ({report.created} created, "
            f"{report.updated} updated, {report.unchanged} unchanged)."
        )
