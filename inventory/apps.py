from django.apps import AppConfig


class InventoryConfig(AppConfig):
    """Catalog: equipment models, their sourced specs, and price books."""

    name = "inventory"
    verbose_name = "Catalog"
