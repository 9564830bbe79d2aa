from django.apps import AppConfig


class QuotesConfig(AppConfig):
    """Quotes: numbered, priced offers for a revision of a design, their lifecycle, versions
    and documents. Above the designs and the catalog (a quote prices a revision from a price
    book); writes the audit log."""

    name = "planner.quotes"
    label = "quotes"
    verbose_name = "Quotes"

    def ready(self):
        from planner.quotes import checks  # noqa: F401  (registers quotes.E001: the PDF's fonts)
