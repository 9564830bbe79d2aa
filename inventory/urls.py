"""Catalog pages, under ``catalog/``.

Fixed prefixes (``transfer/``, ``price-books/``, ``exchange-rates/``) come before
``<category>/`` so that they are never read as a category; an unknown category is a 404 from
the view.
"""

from django.urls import path, register_converter

from inventory import views


class PartSlugConverter:
    """A part slug as the vendor writes it: letters, digits, '.', '_' and '-'."""

    regex = r"[A-Za-z0-9._-]+"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(PartSlugConverter, "part_slug")

app_name = "inventory"
urlpatterns = [
    path("", views.index, name="index"),
    path("transfer/", views.transfer, name="transfer"),
    path("price-books/", views.price_book_list, name="price-book-list"),
    path("price-books/<slug:slug>/", views.price_book_detail, name="price-book-detail"),
    path("price-books/<slug:slug>/prices.csv", views.price_book_export, name="price-book-export"),
    path("price-books/<slug:slug>/offers/new/", views.price_edit, name="price-add"),
    path("price-books/<slug:slug>/offers/<int:pk>/", views.price_edit, name="price-edit"),
    path(
        "price-books/<slug:slug>/offers/<int:pk>/archive/",
        views.price_archive,
        {"archived": True},
        name="price-archive",
    ),
    path(
        "price-books/<slug:slug>/offers/<int:pk>/restore/",
        views.price_archive,
        {"archived": False},
        name="price-restore",
    ),
    path(
        "price-books/<slug:slug>/offers/<int:pk>/remove/", views.price_remove, name="price-remove"
    ),
    path("exchange-rates/", views.exchange_rate_list, name="exchange-rate-list"),
    path("exchange-rates/<int:pk>/", views.exchange_rate_edit, name="exchange-rate-edit"),
    path(
        "exchange-rates/<int:pk>/delete/", views.exchange_rate_delete, name="exchange-rate-delete"
    ),
    path("<str:category>/", views.part_list, name="part-list"),
    path("<str:category>/new/", views.part_create, name="part-create"),
    path("<str:category>/export.csv", views.export_csv, name="export"),
    path("<str:category>/<part_slug:slug>/", views.part_detail, name="part-detail"),
    path("<str:category>/<part_slug:slug>/edit/", views.part_edit, name="part-edit"),
    path("<str:category>/<part_slug:slug>/delete/", views.part_delete, name="part-delete"),
    path("<str:category>/<part_slug:slug>/archive/", views.part_archive, name="part-archive"),
    path("<str:category>/<part_slug:slug>/unarchive/", views.part_unarchive, name="part-unarchive"),
    path("<str:category>/<part_slug:slug>/history/", views.part_history, name="part-history"),
]
