"""Fabric Planner: the Django project package and the designs app.

The Celery app is imported here so that ``@shared_task`` binds to it.
"""

from planner.celery import app as celery_app

__all__ = ["celery_app"]
