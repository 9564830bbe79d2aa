"""Unchanged by the move of the designs, the audit log, quotes and as-built imports: the migration as it is
today."""

import importlib

Migration = importlib.import_module("inventory.migrations.0003_server_systems_per_rack").Migration
