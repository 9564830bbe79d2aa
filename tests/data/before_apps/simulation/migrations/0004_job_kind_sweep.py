"""Unchanged by the move of the designs, the audit log, quotes and as-built imports: the migration as it is
today."""

import importlib

Migration = importlib.import_module("simulation.migrations.0004_job_kind_sweep").Migration
