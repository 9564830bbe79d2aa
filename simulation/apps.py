from django.apps import AppConfig


class SimulationConfig(AppConfig):
    """Jobs: background validation, power and traffic runs on Celery workers."""

    name = "simulation"
    verbose_name = "Jobs"
