"""Unchanged by the move of the designs, the audit log, quotes and as-built imports: the migration as it is
today."""

import importlib

Migration = importlib.import_module("planner.teams.migrations.0001_initial").Migration
