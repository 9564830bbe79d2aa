from django.apps import AppConfig


class AuditConfig(AppConfig):
    """The audit log: who did what, when. Low on the ladder, right above teams: every app above
    it writes events (services, in their own transaction) and the event points at no model
    above it (a design by its id and name)."""

    name = "planner.audit"
    label = "audit"
    verbose_name = "Audit log"
