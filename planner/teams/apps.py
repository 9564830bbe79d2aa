from django.apps import AppConfig


class TeamsConfig(AppConfig):
    """Teams: members, their roles and the price right. The bottom rung of the Django apps
    (as NetBox's ``tenancy``): the catalog (price books) and the designs point at teams, never
    the other way."""

    name = "planner.teams"
    label = "teams"
    verbose_name = "Teams"
