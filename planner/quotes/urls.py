"""Quote pages: a design's quotes under ``designs/<pk>/quotes/`` (included by the design pages'
URLs, whose namespace ``planner`` they share), and a price book's coverage in the catalog
(:data:`catalog_urlpatterns`, under ``catalog/``)."""

from django.urls import path

from planner.quotes import views

QUOTE = "<int:quote_pk>/"

urlpatterns = [
    path("", views.quote_list, name="quote-list"),
    path("new/", views.quote_new, name="quote-new"),
    path(QUOTE, views.quote_detail, name="quote-detail"),
    path(f"{QUOTE}edit/", views.quote_edit, name="quote-edit"),
    path(f"{QUOTE}delete/", views.quote_delete, name="quote-delete"),
    path(f"{QUOTE}diff/", views.quote_diff, name="quote-diff"),
    *[
        path(f"{QUOTE}{step}/", views.quote_step, {"step": step}, name=f"quote-{step}")
        for step in views.STEP_DONE
    ],
    path(f"{QUOTE}<str:fmt>/", views.quote_download, name="quote-download"),
]

catalog_urlpatterns = [
    path(
        "price-books/<slug:slug>/coverage/",
        views.price_book_coverage,
        name="price-book-coverage",
    ),
]
