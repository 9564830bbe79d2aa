from django.apps import AppConfig


class JobsConfig(AppConfig):
    """Jobs: background runs of every kind (validation, power, flow simulation, sweeps, what-if,
    exploration) on Celery workers, and the pages that read their results. The package and label
    keep the first name, ``simulation`` (see :mod:`simulation`)."""

    name = "simulation"
    verbose_name = "Jobs"
