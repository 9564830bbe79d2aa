"""A second database, in memory, to build at an old migration state and migrate forward
(tests/models/test_teams_migration.py, tests/models/test_apps_migration.py)."""

from __future__ import annotations

import pytest
from django.db import connections

#: The second connection's alias: rows are read and written with ``.using(ALIAS)``.
ALIAS = "old_state"


@pytest.fixture
def old_connection(django_db_blocker):
    """A second connection, to an empty SQLite database in memory (not the test database)."""
    settings = connections.configure_settings(
        {
            "default": connections.settings["default"],
            ALIAS: {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"},
        }
    )
    connections.settings[ALIAS] = settings[ALIAS]
    with django_db_blocker.unblock():
        try:
            yield connections[ALIAS]
        finally:
            connections[ALIAS].close()
            del connections[ALIAS]
            del connections.settings[ALIAS]
