"""The migrations of planner, inventory and simulation as they were before Team moved to its own
app (label ``teams``), to build a database at that state (tests/models/test_teams_migration.py)."""
