"""Unchanged by the teams move: the migration as it is today."""

import importlib

Migration = importlib.import_module("inventory.migrations.0003_server_systems_per_rack").Migration
