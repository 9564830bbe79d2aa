"""The test database every test runs on: fully migrated with the seed catalog, however it was
made (by this worker, or copied from the run's template: :mod:`tests.db_template`)."""

from __future__ import annotations

from django.db import connection, connections
from django.db.backends.sqlite3.base import DatabaseWrapper
from django.db.migrations.executor import MigrationExecutor

from tests import db_template
from tests.conftest import _SEED, _catalog_counts


def test_the_test_database_has_every_migration_applied(db):
    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []


def test_the_seed_catalog_is_there_with_the_report_of_its_load(seed_catalog):
    assert _catalog_counts() == _SEED["counts"]
    parts, prices = _SEED["counts"]
    assert parts > 0 and prices > 0
    assert seed_catalog is _SEED["report"]
    # The report of the load into the empty database (the template's, in a copy of it).
    assert seed_catalog.created == parts and seed_catalog.updated == seed_catalog.unchanged == 0


def _probe_worker(settings, tmp_path, worker: str) -> DatabaseWrapper:
    """A second SQLite connection standing for one pytest-xdist worker's."""
    alias = f"probe_{worker}"
    settings_dict = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(tmp_path / "never-opened.sqlite3"),
        "TEST": {"NAME": str(tmp_path / f"test-db.sqlite3_{worker}")},
    }
    settings.DATABASES = {**settings.DATABASES, alias: settings_dict}
    configured = connections.configure_settings({"default": {}, alias: settings_dict})[alias]
    return DatabaseWrapper(configured, alias=alias)


def test_workers_of_a_run_copy_one_template_and_the_next_run_builds_its_own(
    settings, tmp_path, monkeypatch
):
    builds = []

    def make(probe):
        def original(verbosity=1, autoclobber=False, serialize=True, keepdb=False):
            """Stands for Django's create_test_db (which migrates): one table, one row."""
            builds.append(probe.alias)
            probe.settings_dict["NAME"] = probe.settings_dict["TEST"]["NAME"]
            with probe.cursor() as cursor:
                cursor.execute("CREATE TABLE built (run text)")
                cursor.execute("INSERT INTO built VALUES (%s)", [db_template.run_id()])

        probe.creation.create_test_db = original
        db_template.install(probe, lambda: {"report": f"seed of {db_template.run_id()}"})
        return probe

    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", "run-a")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    workers = [make(_probe_worker(settings, tmp_path, w)) for w in ("gw0", "gw1")]
    names = [worker.creation.create_test_db(verbosity=0, serialize=False) for worker in workers]

    assert builds == ["probe_gw0"]  # the second worker copied the first one's template
    assert names == [str(tmp_path / "test-db.sqlite3_gw0"), str(tmp_path / "test-db.sqlite3_gw1")]
    for worker in workers:
        assert db_template.stored_seed(worker) == {"report": "seed of run-a"}
        with worker.cursor() as cursor:
            cursor.execute("SELECT run FROM built")
            assert cursor.fetchall() == [("run-a",)]
        worker.close()

    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", "run-b")
    later = make(_probe_worker(settings, tmp_path, "gw0"))
    later.creation.create_test_db(verbosity=0, serialize=False)
    assert builds == ["probe_gw0", "probe_gw0"]
    assert db_template.stored_seed(later) == {"report": "seed of run-b"}
    later.close()
    templates = sorted(p.name for p in tmp_path.glob("test-db-template-*.sqlite3"))
    assert templates == ["test-db-template-run-b.sqlite3"]


def test_outside_pytest_xdist_the_database_is_created_as_before(settings, tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    probe = _probe_worker(settings, tmp_path, "solo")
    original = probe.creation.create_test_db
    assert db_template.install(probe, dict) is False
    assert probe.creation.create_test_db == original
