"""One test database built per run, copied by every pytest-xdist worker.

Each worker used to create its own test database: 68 migrations, then the seed catalog through
the import service, about 14 s of CPU each under the coverage tracer on PostgreSQL, three
times a run. Now the first worker to ask builds a *template* (migrated, seed catalog loaded,
the seed rows copied aside as :mod:`tests.conftest` does), and every worker's database is a
copy of it: ``CREATE DATABASE ... TEMPLATE`` on PostgreSQL (half a second), a file copy on
SQLite. The lines of the migrations and of the import service still run once per run, in the
worker that builds, so the coverage figure is unchanged.

A template belongs to one run (pytest-xdist's run id, kept as the database's comment on
PostgreSQL and in the file name on SQLite): a run never reuses another's, and the next run
replaces it. Workers take turns through a lock (a PostgreSQL advisory lock held on the server's
maintenance database; ``flock`` on SQLite), so only one builds. Without pytest-xdist, or on
another database, the test database is created as before.

What the seed load reported (:data:`tests.conftest._SEED`) is stored in the template beside its
rows, so that a worker that did not build it answers ``seed_catalog`` with the same report.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

#: Where the seed's state is kept in the template: a table Django does not know, which a flush
#: leaves alone.
SEED_STATE_TABLE = "fabric_test_seed_state"


def run_id() -> str:
    """This run's id, shared by its pytest-xdist workers, or "" outside pytest-xdist."""
    return (
        os.environ.get("PYTEST_XDIST_TESTRUNUID", "")
        if os.environ.get("PYTEST_XDIST_WORKER")
        else ""
    )


def install(connection, build_seed: Callable[[], dict]) -> bool:
    """Make ``connection``'s ``create_test_db`` copy this run's template (building it first if
    no worker has); ``build_seed`` loads the seed catalog into the database being built and
    returns the state to store with it. Returns whether the template is used."""
    if not run_id() or connection.vendor not in {"postgresql", "sqlite"}:
        return False
    creation = connection.creation
    original = creation.create_test_db

    def create_test_db(verbosity=1, autoclobber=False, serialize=True, keepdb=False):
        if keepdb:
            return original(verbosity, autoclobber, serialize, keepdb)
        copy = _copy_postgresql if connection.vendor == "postgresql" else _copy_sqlite
        name = copy(connection, original, build_seed)
        connection.close()
        from django.conf import settings

        settings.DATABASES[connection.alias]["NAME"] = name
        connection.settings_dict["NAME"] = name
        if serialize:
            connection._test_serialized_contents = creation.serialize_db_to_string()
        connection.ensure_connection()
        return name

    creation.create_test_db = create_test_db
    return True


def stored_seed(connection) -> dict:
    """The seed state stored in the template this test database was copied from."""
    table = connection.ops.quote_name(SEED_STATE_TABLE)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT state FROM {table}")  # noqa: S608 (our own names)
        (state,) = cursor.fetchone()
    return pickle.loads(bytes(state))  # noqa: S301 (written by this run)


def _build(connection, original, build_seed, template_name: str) -> None:
    """Create, migrate and seed the template through Django's own ``create_test_db``."""
    test_settings = connection.settings_dict.setdefault("TEST", {})
    saved_test_name, saved_name = test_settings.get("NAME"), connection.settings_dict["NAME"]
    test_settings["NAME"] = template_name
    try:
        original(verbosity=0, autoclobber=True, serialize=False, keepdb=False)
        state = build_seed()
        table = connection.ops.quote_name(SEED_STATE_TABLE)
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE TABLE {table} (state bytea)")
            cursor.execute(f"INSERT INTO {table} (state) VALUES (%s)", [pickle.dumps(state)])
    finally:
        connection.close()
        test_settings["NAME"] = saved_test_name
        from django.conf import settings

        settings.DATABASES[connection.alias]["NAME"] = saved_name
        connection.settings_dict["NAME"] = saved_name


# --- PostgreSQL ---------------------------------------------------------------------------


def _copy_postgresql(connection, original, build_seed) -> str:
    creation = connection.creation
    name = creation._get_test_db_name()
    template = f"test_{connection.settings_dict['NAME']}_template"[:63]
    quote = connection.ops.quote_name
    lock = int.from_bytes(hashlib.sha256(template.encode()).digest()[:8], "big", signed=True)
    with creation._nodb_cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [lock])
        try:
            cursor.execute(
                "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
                [template],
            )
            row = cursor.fetchone()
            if row is None or row[0] != run_id():
                if row is not None:
                    cursor.execute(f"DROP DATABASE {quote(template)}")
                _build(connection, original, build_seed, template)
                cursor.execute(f"COMMENT ON DATABASE {quote(template)} IS %s", [run_id()])
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(name)}")
            cursor.execute(f"CREATE DATABASE {quote(name)} TEMPLATE {quote(template)}")
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [lock])
    return name


# --- SQLite ---------------------------------------------------------------------------------


def _copy_sqlite(connection, original, build_seed) -> str:
    name = connection.creation._get_test_db_name()
    if connection.creation.is_in_memory_db(name):
        raise RuntimeError("the test database template needs a file test database on SQLite")
    folder = Path(name).parent
    template = folder / f"test-db-template-{run_id()}.sqlite3"
    with open(folder / "test-db-template.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not template.exists():
            for stale in folder.glob("test-db-template-*.sqlite3"):
                stale.unlink()
            _build(connection, original, build_seed, str(template))
        with contextlib.suppress(FileNotFoundError):
            os.remove(name)
        shutil.copyfile(template, name)
    return name
