"""Pagination shared by every API list."""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination


class StandardPagination(PageNumberPagination):
    """Page-number pagination; clients may ask for up to 1,000 rows a page.

    ``page`` and ``page_size`` must be whole numbers of at least 1 (``page`` may also be
    ``last``): anything else is a 400 naming the parameter, never silently ignored. A
    ``page_size`` above 1,000 is capped at 1,000.
    """

    page_size_query_param = "page_size"
    max_page_size = 1000

    def get_schema_operation_parameters(self, view):
        """``page`` and ``page_size`` as the server reads them: whole numbers from 1."""
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] in {self.page_query_param, self.page_size_query_param}:
                parameter["schema"] = {**parameter["schema"], "minimum": 1}
        return parameters

    def paginate_queryset(self, queryset, request, view=None):
        self._check_whole_number(request, self.page_query_param, allow=self.last_page_strings)
        self._check_whole_number(request, self.page_size_query_param)
        return super().paginate_queryset(queryset, request, view)

    @staticmethod
    def _check_whole_number(request, name: str, allow=()) -> None:
        raw = request.query_params.get(name)
        if raw is None or raw in allow:
            return
        try:
            number = int(raw)
        except ValueError:
            number = 0
        if number < 1:
            raise ValidationError({name: [f"{name} must be a whole number of at least 1."]})
