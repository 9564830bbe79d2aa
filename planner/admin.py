from django.contrib import admin

from planner.audit.models import AuditEvent
from planner.designs.models import Design, DesignRevision


class DesignRevisionInline(admin.TabularInline):
    """Revisions are immutable: listed here, never edited."""

    model = DesignRevision
    fields = ["number", "kind", "message", "created_by", "created", "parent"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Design)
class DesignAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "team", "sharing", "updated"]
    list_filter = ["sharing", "team"]
    search_fields = ["name", "owner__username"]
    inlines = [DesignRevisionInline]


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
