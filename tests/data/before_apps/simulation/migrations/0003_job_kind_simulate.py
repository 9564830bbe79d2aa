"""Unchanged by the move of the designs, the audit log, quotes and as-built imports: the migration as it is
today."""

import importlib

Migration = importlib.import_module("simulation.migrations.0003_job_kind_simulate").Migration
