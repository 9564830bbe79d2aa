"""The Celery application (Celery's ``proj/celery.py`` pattern).

Configuration comes from Django settings under the ``CELERY_`` namespace, so the worker and
the web process always agree on the broker.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.project.settings")

app = Celery("planner")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
