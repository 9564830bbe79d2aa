from django.apps import AppConfig


class PlannerConfig(AppConfig):
    """Designs: fabric specs, generated topologies and their revisions."""

    name = "planner"
    verbose_name = "Designs"
