"""``/api/schema/`` is made once per process: the same document as a fresh generation, for
every reader, and a schema filtered for one user is never kept."""

from __future__ import annotations

import json

import yaml
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer

from planner.project.api import schema_view


def test_the_kept_schema_is_the_one_a_fresh_generation_makes(api_client):
    schema_view._PUBLIC_SCHEMAS.clear()
    first = api_client.get("/api/schema/?format=json")
    assert first.status_code == 200
    assert len(schema_view._PUBLIC_SCHEMAS) == 1
    kept = next(iter(schema_view._PUBLIC_SCHEMAS.values()))
    again = api_client.get("/api/schema/?format=json")
    assert again.json() == first.json()
    assert next(iter(schema_view._PUBLIC_SCHEMAS.values())) is kept  # not made again
    fresh = SchemaGenerator().get_schema(request=None, public=True)
    assert json.loads(OpenApiJsonRenderer().render(fresh)) == first.json()
    # Filtered for a user (here none: no operation is left), made afresh and never kept.
    filtered = schema_view.ProcessSchemaGenerator().get_schema(request=None, public=False)
    assert filtered["paths"] == {} and len(schema_view._PUBLIC_SCHEMAS) == 1


def test_the_yaml_and_json_documents_are_the_same_schema(api_client):
    as_json = api_client.get("/api/schema/?format=json").json()
    as_yaml = yaml.safe_load(api_client.get("/api/schema/").content)
    assert as_yaml == as_json
