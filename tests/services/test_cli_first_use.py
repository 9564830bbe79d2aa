"""A newcomer's first command works: ``manage.py fabric`` and ``catalog`` on a fresh clone.

Each test runs ``manage.py`` in a subprocess, as a shell does, with ``FABRIC_VAR_DIR`` (where
the embedded SQLite database lives) in an empty folder: the first command migrates it and
loads the seed catalog, saying so in one line; a database given by ``DATABASE_URL`` is never
set up, and every failure is one line and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from unittest import mock

import pytest
from django.core.management import ManagementUtility
from django.db import OperationalError, connections

from tests.conftest import IN_CI, ROOT

FOUR_SU = "planner/domain/examples/h100-superpod-4su.yaml"
POSTGRES = "postgres://postgres@127.0.0.1:5432"


def manage(*args: str, var_dir, database_url: str | None = None) -> subprocess.CompletedProcess:
    """Run ``python manage.py ARGS`` in a fresh process; the database is SQLite in ``var_dir``
    unless ``database_url`` is given."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["FABRIC_VAR_DIR"] = str(var_dir)
    if database_url:
        env["DATABASE_URL"] = database_url
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_one_line_failure(result: subprocess.CompletedProcess) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_fresh_clone_first_command_sets_up_the_database_once(tmp_path):
    first = manage("fabric", "summary", FOUR_SU, var_dir=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    notes = first.stderr.strip().splitlines()
    assert len(notes) == 1 and notes[0].startswith("First use: set up the database"), notes
    assert "migrated" in notes[0] and "seed catalog" in notes[0]
    assert (tmp_path / "db.sqlite3").exists()
    # RA-11333-001 Table 4, 4 SU: 32 leaf and 16 spine switches.
    assert json.loads(first.stdout)["switches"] == {"leaf": 32, "spine": 16, "core": 0}

    second = manage("catalog", "export", "--format", "json", var_dir=tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stderr == ""  # the set-up is not done again
    catalog = json.loads(second.stdout)
    assert "QM9700" in json.dumps(catalog)


def test_an_unreachable_database_is_one_line(tmp_path):
    missing = f"{POSTGRES}/fabric_no_such_db_{uuid.uuid4().hex[:8]}"
    result = manage("catalog", "export", "--format", "json", var_dir=tmp_path, database_url=missing)
    line = assert_one_line_failure(result)
    assert line.startswith("CommandError: cannot use the database:"), line
    assert "does not exist" in line or "failed" in line, line
    assert not (tmp_path / "db.sqlite3").exists()


@pytest.fixture
def empty_postgres_database():
    """A PostgreSQL database as the app sees it with no tables: the server's ``postgres``
    database with its search path set to a new, empty schema (dropped afterwards). A schema
    rather than a ``CREATE DATABASE``: dropping a database forces a checkpoint, which costs
    seconds while other test workers write."""
    psycopg = pytest.importorskip("psycopg")
    schema = f"fabric_empty_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(f"{POSTGRES}/postgres", autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        if IN_CI:
            raise
        pytest.skip(f"no PostgreSQL on 127.0.0.1:5432: {exc}")
    with admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
        try:
            yield f"{POSTGRES}/postgres?options=-c%20search_path%3D{schema}"
        finally:
            admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def test_an_empty_postgres_database_names_the_commands_to_run(tmp_path, empty_postgres_database):
    url = empty_postgres_database
    result = manage("fabric", "summary", FOUR_SU, var_dir=tmp_path, database_url=url)
    assert result.stdout == ""
    assert assert_one_line_failure(result) == (
        "CommandError: the database has no tables yet: run `python manage.py migrate` "
        "then `python manage.py load_catalog`"
    )
    result = manage("load_catalog", var_dir=tmp_path, database_url=url)
    assert assert_one_line_failure(result) == (
        "CommandError: the database has no tables yet: run `python manage.py migrate` first"
    )


# In-process (the test database): every other error is one line and exit status 1.


def run(*argv: str) -> int:
    """Run ``manage.py ARGV`` as the shell does, in this process; returns the exit status.
    (Closing connections at the end would close the test's transaction: skipped.)"""
    with mock.patch.object(connections, "close_all"):
        try:
            ManagementUtility(["manage.py", *argv]).execute()
        except SystemExit as exc:
            return exc.code or 0
    return 0


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (("fabric", "summary", "no-such-spec.yaml"), "cannot read no-such-spec.yaml"),
        (("fabric", "summary", "planner"), "cannot read planner"),
        (("fabric", "export", "999999", "--format", "json"), "no design 999999"),
        (("catalog", "export", "--out", "/no/such/folder/x.json"), "cannot write"),
        (("catalog", "import", "no-such.csv"), "no such file"),
        (("catalog", "prices", "import", "a-book", "no-such.csv"), "cannot read no-such.csv"),
        (("catalog", "prices", "export", "no-such-book"), "no price book"),
    ],
)
def test_a_bad_argument_is_one_line(argv, says, capsys):
    assert run(*argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert says in err


def test_a_database_error_or_a_bug_is_one_line(capsys):
    with mock.patch(
        "inventory.management.commands.catalog.catalog_export_json",
        side_effect=OperationalError("no such column: inventory_switchmodel.x"),
    ):
        assert run("catalog", "export", "--format", "json") == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "database error: no such column" in err and "manage.py migrate" in err
    with mock.patch(
        "inventory.management.commands.catalog.catalog_export_json",
        side_effect=KeyError("boom"),
    ):
        assert run("catalog", "export", "--format", "json") == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "KeyError" in err and "--traceback" in err
