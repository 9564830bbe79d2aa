"""Fixtures of the migration tests."""

from tests.models.old_state import old_connection  # noqa: F401  (a fixture: registered here)
