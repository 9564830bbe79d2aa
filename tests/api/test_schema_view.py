"""``/api/schema/`` is made once per process: the same document as a fresh generation, for
every reader, and a schema filtered for one user is never kept."""

from __future__ import annotations

import json

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


def test_the_yaml_and_json_documents_are_the_same_schema(api_client):
    import yaml

    as_json = api_client.get("/api/schema/?format=json").json()
    as_yaml = yaml.safe_load(api_client.get("/api/schema/").content)
    assert as_yaml == as_json


def test_a_schema_for_one_user_is_made_each_time():
    generator = schema_view.ProcessSchemaGenerator()
    first = generator.get_schema(request=None, public=False)
    second = schema_view.ProcessSchemaGenerator().get_schema(request=None, public=False)
    assert first is not second
    assert first == second
