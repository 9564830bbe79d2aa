"""Teams in the admin (staff); team owners manage their teams on the Team page too."""

from django.contrib import admin

from planner.teams.models import Team, TeamMembership


class TeamMembershipInline(admin.TabularInline):
    """Members, their role, and whether they see prices (the sales role)."""

    model = TeamMembership
    fields = ["user", "role", "can_view_prices"]
    extra = 1
    autocomplete_fields = ["user"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "margin_floor_pct", "created"]
    prepopulated_fields = {"slug": ["name"]}
    search_fields = ["name", "slug"]
    inlines = [TeamMembershipInline]


@admin.register(TeamMembership)
class TeamMembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "team", "role", "can_view_prices"]
    list_filter = ["role", "can_view_prices", "team"]
    list_editable = ["role", "can_view_prices"]
    search_fields = ["user__username", "team__name"]
    autocomplete_fields = ["user", "team"]
