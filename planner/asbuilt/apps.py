from django.apps import AppConfig


class AsBuiltConfig(AppConfig):
    """As built: what the built fabric reports (its cabling, its port counters), imported
    against a revision of a design. Above the designs and the jobs (counter overlays); writes
    the audit log."""

    name = "planner.asbuilt"
    label = "asbuilt"
    verbose_name = "As built"
