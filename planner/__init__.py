"""Fabric Planner's designs side: design domain and analyses (pure), designs, teams, audit log,
quotes and outputs. The Django project itself (settings, URLs, Celery app) is
:mod:`planner.project`; importing this package loads neither Django nor Celery."""
