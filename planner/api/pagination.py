"""Pagination shared by every API list."""

from rest_framework.pagination import PageNumberPagination


class StandardPagination(PageNumberPagination):
    """Page-number pagination; clients may ask for up to 1,000 rows a page."""

    page_size_query_param = "page_size"
    max_page_size = 1000
