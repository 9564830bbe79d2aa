"""The database-ready base of the ``fabric``, ``catalog`` and ``load_catalog`` commands.

A newcomer's first command on a fresh clone must work, or say in one line what to run first:

- With the embedded SQLite default (no ``DATABASE_URL``), a database without tables is set up on
  first use: migrated and, for commands that read the catalog, the seed catalog loaded, with one
  line on standard error saying so. A second run finds the tables and does nothing.
- With any other database (``DATABASE_URL``, e.g. PostgreSQL), nothing is created: a database
  without tables gets one line naming the commands to run, and exit status 1.
- Any error these commands hit (a database that cannot be reached, a file that cannot be read
  or written, anything unexpected) is one line on standard error and exit status 1, never a
  traceback; ``--traceback`` shows it when wanted.

Both apps' commands use this (``planner`` may import ``inventory``, not the other way).
"""

from __future__ import annotations

import os
import sys

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction

from inventory.services import CatalogImportError, catalog_load

RUN_FIRST = (
    "the database has no tables yet: run `python manage.py migrate` "
    "then `python manage.py load_catalog`"
)
RUN_MIGRATE_FIRST = "the database has no tables yet: run `python manage.py migrate` first"


def _first_line(exc: BaseException) -> str:
    """The first non-empty line of an exception's text (psycopg's run over several)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else exc.__class__.__name__


def embedded_database(alias: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether the database is the embedded SQLite default (no ``DATABASE_URL`` given)."""
    return connections[alias].vendor == "sqlite" and not os.environ.get("DATABASE_URL")


def ensure_database_ready(*, stderr, seed_catalog: bool = True, alias: str = DEFAULT_DB_ALIAS):
    """Make sure the database has its tables, or raise a one-line ``CommandError``.

    The embedded SQLite default without tables is migrated and (with ``seed_catalog``) given
    the seed catalog, saying so in one line on ``stderr``; any other database without tables
    is refused with the commands to run. A database that has its tables is left alone.
    """
    connection = connections[alias]
    try:
        tables = set(connection.introspection.table_names())
    except DatabaseError as exc:
        raise CommandError(f"cannot use the database: {_first_line(exc)}") from exc
    if "django_migrations" in tables:
        return
    if not embedded_database(alias):
        raise CommandError(RUN_FIRST if seed_catalog else RUN_MIGRATE_FIRST)
    call_command("migrate", database=alias, interactive=False, verbosity=0)
    note = "migrated"
    if seed_catalog:
        try:
            with transaction.atomic(using=alias):
                report = catalog_load()
        except CatalogImportError as exc:
            raise CommandError(f"the seed catalog did not load: {_first_line(exc)}") from exc
        note += f", seed catalog of {report.total} parts loaded"
    name = connection.settings_dict["NAME"]
    stderr.write(f"First use: set up the database {name} ({note}).", style_func=str)


class DatabaseCommand(BaseCommand):
    """A command that needs the database: made ready first, and every error one line.

    ``seed_catalog = False`` for a command that loads the catalog itself.
    """

    seed_catalog = True

    def execute(self, *args, **options):
        ensure_database_ready(stderr=self.stderr, seed_catalog=self.seed_catalog)
        try:
            return super().execute(*args, **options)
        except DatabaseError as exc:
            raise CommandError(
                f"database error: {_first_line(exc)} "
                "(if the schema is older than the code: run `python manage.py migrate`)"
            ) from exc
        except OSError as exc:
            raise CommandError(_first_line(exc)) from exc

    def run_from_argv(self, argv):
        """Run from the shell: an unexpected error is one line (``--traceback`` for all)."""
        try:
            super().run_from_argv(argv)
        except KeyboardInterrupt:
            sys.stderr.write("interrupted\n")
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the shell gets one line, never a traceback
            if "--traceback" in argv:
                raise
            sys.stderr.write(
                f"{argv[1]}: failed: {exc.__class__.__name__}: {_first_line(exc)} "
                "(run again with --traceback for details)\n"
            )
            sys.exit(1)
