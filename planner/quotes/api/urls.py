"""Quotes API routes, mounted at ``/api/planner/`` (included by :mod:`planner.project.api_urls`):
a design's quotes under ``designs/<design>/quotes/``, and a price book's coverage."""

from django.urls import path

from planner.quotes.api import views

QUOTES = "designs/<int:design_pk>/quotes/"
QUOTE = "designs/<int:design_pk>/quotes/<int:pk>/"

urlpatterns = [
    path(QUOTES, views.QuoteListView.as_view(), name="design-quote-list"),
    path(QUOTE, views.QuoteDetailView.as_view(), name="design-quote-detail"),
    path(f"{QUOTE}priced/", views.QuotePricedView.as_view(), name="design-quote-priced"),
    path(f"{QUOTE}pdf/", views.QuoteFileView.as_view(), {"fmt": "pdf"}, name="design-quote-pdf"),
    path(f"{QUOTE}csv/", views.QuoteFileView.as_view(), {"fmt": "csv"}, name="design-quote-csv"),
    *[
        path(
            f"{QUOTE}{step}/",
            views.QuoteTransitionView.as_view(step=step),
            name=f"design-quote-{step}",
        )
        for step in ("send", "approve", "accept", "decline")
    ],
    path(f"{QUOTE}reprice/", views.QuoteRepriceView.as_view(), name="design-quote-reprice"),
    path(f"{QUOTE}diff/", views.QuoteDiffView.as_view(), name="design-quote-diff"),
    path(f"{QUOTE}xlsx/", views.QuoteFileView.as_view(), {"fmt": "xlsx"}, name="design-quote-xlsx"),
    path(
        "price-books/<slug:slug>/coverage/",
        views.PriceBookCoverageView.as_view(),
        name="api-price-book-coverage",
    ),
]
