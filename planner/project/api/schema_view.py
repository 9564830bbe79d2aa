"""The OpenAPI schema's view (``/api/schema/``), apart from :mod:`.parameters`: drf-spectacular's
views import DRF's views, which read ``DEFAULT_PERMISSION_CLASSES`` (a class of that module)."""

from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SCHEMA_KWARGS, SpectacularAPIView

from planner.project.api.parameters import load_schema_extensions


class SchemaView(SpectacularAPIView):
    """``/api/schema/``: drf-spectacular's view, its extensions resolved first."""

    @extend_schema(**SCHEMA_KWARGS)  # documented as drf-spectacular documents its own
    def get(self, request, *args, **kwargs):
        load_schema_extensions()
        return super().get(request, *args, **kwargs)
