from django.apps import AppConfig


class PlannerConfig(AppConfig):
    """Designs: fabric specs, generated topologies and their revisions."""

    name = "planner"
    verbose_name = "Designs"

    def ready(self):
        # Lazy: these modules use models, which load only once the app registry is ready.
        from inventory.hooks import install_catalog_hooks
        from planner.audit.log import install_design_owners
        from planner.catalog_hooks import PlannerCatalogHooks
        from planner.designs.selectors import owned_design_ids

        install_catalog_hooks(PlannerCatalogHooks())
        install_design_owners(owned_design_ids)
