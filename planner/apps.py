from django.apps import AppConfig


class PlannerConfig(AppConfig):
    """Designs: fabric specs, generated topologies and their revisions."""

    name = "planner"
    verbose_name = "Designs"

    def ready(self):
        # Lazy: these modules use models, which load only once the app registry is ready.
        from inventory.hooks import install_catalog_hooks
        from planner.catalog_hooks import PlannerCatalogHooks
        from planner.quotes import checks  # noqa: F401  (registers quotes.E001: the PDF's fonts)

        install_catalog_hooks(PlannerCatalogHooks())
