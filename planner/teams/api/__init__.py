"""The teams API, mounted at ``/api/teams/`` (routes in :mod:`planner.teams.urls`)."""
