"""The OpenAPI schema's view (``/api/schema/``), apart from :mod:`.parameters`: drf-spectacular's
views import DRF's views, which read ``DEFAULT_PERMISSION_CLASSES`` (a class of that module)."""

from __future__ import annotations

from django.utils import translation
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SCHEMA_KWARGS, SpectacularAPIView

from planner.project.api.parameters import load_schema_extensions

#: The public schema, by (API version, language): made once per process.
_PUBLIC_SCHEMAS: dict[tuple, dict] = {}


class ProcessSchemaGenerator(SchemaGenerator):
    """drf-spectacular's generator, keeping the public schema it made for the process.

    The public schema (``SERVE_PUBLIC``, the default: the same for every user who may read it)
    depends only on the code, the settings and the URL configuration, which do not change while
    a process runs; making it walks every view and serializer (0.3-0.5 s of CPU each time, 2 s
    the first). It is made once per API version and language, as :mod:`.parameters` reads each
    operation once. A schema filtered for a user (``public=False``) or over other URL
    patterns is made every time, as before. Callers only read it (the renderers write it out).
    """

    def get_schema(self, request=None, public=False):
        if not public or self.urlconf is not None or self.patterns is not None:
            return super().get_schema(request=request, public=public)
        key = (self.api_version, translation.get_language())
        schema = _PUBLIC_SCHEMAS.get(key)
        if schema is None:
            schema = _PUBLIC_SCHEMAS[key] = super().get_schema(request=request, public=public)
        return schema


class SchemaView(SpectacularAPIView):
    """``/api/schema/``: drf-spectacular's view, its extensions resolved first, the public
    schema made once per process (:class:`ProcessSchemaGenerator`)."""

    generator_class = ProcessSchemaGenerator

    @extend_schema(**SCHEMA_KWARGS)  # documented as drf-spectacular documents its own
    def get(self, request, *args, **kwargs):
        load_schema_extensions()
        return super().get(request, *args, **kwargs)
