"""WSGI entry point (gunicorn planner.project.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.project.settings")
application = get_wsgi_application()
