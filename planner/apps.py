from django.apps import AppConfig


class PlannerConfig(AppConfig):
    """The project's glue, no models of its own: the ``fabric`` CLI and the other management
    commands, the template tags, and at start-up what the lower apps ask of those above them
    without importing them (the catalog's hooks, the audit log's design owners, where team
    changes are recorded). The designs are the ``designs`` app (:mod:`planner.designs`)."""

    name = "planner"
    verbose_name = "Fabric Planner"

    def ready(self):
        # Lazy: these modules use models, which load only once the app registry is ready.
        from inventory.hooks import install_catalog_hooks
        from planner.audit.log import install_design_owners, record_team_change
        from planner.catalog_hooks import PlannerCatalogHooks
        from planner.designs.selectors import owned_design_ids
        from planner.teams.services import install_team_recorder

        install_catalog_hooks(PlannerCatalogHooks())
        install_design_owners(owned_design_ids)
        install_team_recorder(record_team_change)
