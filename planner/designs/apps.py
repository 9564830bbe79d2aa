from django.apps import AppConfig


class DesignsConfig(AppConfig):
    """Designs: fabric specs, generated topologies and their immutable revisions. Above teams,
    the audit log and the catalog; the jobs, quotes and as-built imports point at its
    revisions."""

    name = "planner.designs"
    label = "designs"
    verbose_name = "Designs"
