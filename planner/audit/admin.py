"""The audit log in the admin (staff), read-only."""

from django.contrib import admin

from planner.audit.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """The audit log, read-only: events are written by services and never changed."""

    list_display = ["created", "actor", "action", "design_name", "team", "summary"]
    list_filter = ["action", "team"]
    search_fields = ["summary", "design_name", "actor__username"]
    date_hierarchy = "created"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
