"""The audit log's API (routes in :mod:`planner.audit.api.urls`)."""
