"""The quotes API (routes in :mod:`planner.quotes.api.urls`)."""
