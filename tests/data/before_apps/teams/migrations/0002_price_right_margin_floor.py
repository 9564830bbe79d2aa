"""Unchanged by the move of the designs, the audit log, quotes and as-built imports: the migration as it is
today."""

import importlib

Migration = importlib.import_module("planner.teams.migrations.0002_price_right_margin_floor").Migration
