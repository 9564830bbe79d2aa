"""The migrations of planner, teams, inventory and simulation as they were before the designs,
the audit log, quotes and as-built imports moved to apps of their own (labels ``designs``,
``audit``, ``quotes``, ``asbuilt``), to build a database at that state
(tests/models/test_apps_migration.py).

The planner app's migrations and simulation's 0002 (which named ``planner.0001_designs``) are
copies as they were; the others are today's, unchanged by the move."""
