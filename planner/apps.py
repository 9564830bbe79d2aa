from django.apps import AppConfig


class PlannerConfig(AppConfig):
    """Designs: fabric specs, generated topologies and their revisions."""

    name = "planner"
    verbose_name = "Designs"

    def ready(self):
        from inventory.hooks import install_catalog_hooks
        from planner.catalog_hooks import PlannerCatalogHooks

        install_catalog_hooks(PlannerCatalogHooks())
