from django.contrib import admin

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
