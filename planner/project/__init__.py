"""The Django project: settings, URLs, the Celery app, WSGI/ASGI, security middleware, health.

The Celery app is imported here so that ``@shared_task`` binds to it. No product code imports
this package; it imports the product.
"""

from planner.project.celery import app as celery_app

__all__ = ["celery_app"]
