"""Unchanged by the teams move: the migration as it is today."""

import importlib

Migration = importlib.import_module("simulation.migrations.0001_initial").Migration
