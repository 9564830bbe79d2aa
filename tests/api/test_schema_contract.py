"""The OpenAPI schema says what the server accepts (issue 34 item 6): paging from 1, filters
not blank, a job on a design names it and one on no design names none, bodies with nested
objects as JSON only, a partial update names a field. Each schema statement is checked
against the server's answer."""

from __future__ import annotations

import pytest

from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text

SMALL_SPEC = {**load_spec_text((EXAMPLES_DIR / "h100-superpod-4su.yaml").read_text()), "servers": 8}


@pytest.fixture
def schema(api_client):
    return api_client.get("/api/schema/?format=json").json()


def _operation(schema, path, method):
    return schema["paths"][path][method]


def _query(operation) -> dict:
    return {p["name"]: p["schema"] for p in operation["parameters"] if p["in"] == "query"}


def _resolved(schema, body):
    while "$ref" in body:
        body = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
    return body


def test_paging_starts_at_one_as_the_server_reads_it(api_client, schema):
    query = _query(_operation(schema, "/api/planner/designs/", "get"))
    assert query["page"]["minimum"] == 1 and query["page_size"]["minimum"] == 1
    assert api_client.get("/api/planner/designs/", {"page_size": "0"}).status_code == 400


def test_a_text_filter_is_documented_not_blank(api_client, schema):
    import re

    owner = _query(_operation(schema, "/api/planner/designs/", "get"))["owner"]
    assert owner["minLength"] == 1
    pattern = re.compile(owner["pattern"])
    assert pattern.search("alice") and not pattern.search("  ") and not pattern.search("a\x00")
    for blank in ("", "  "):
        response = api_client.get("/api/planner/designs/", {"owner": blank})
        assert response.status_code == 400 and "owner" in response.json()
    search = _query(_operation(schema, "/api/planner/designs/", "get"))["search"]
    assert "minLength" not in search  # DRF's search reads an empty term as "no search"
    assert api_client.get("/api/planner/designs/", {"search": ""}).status_code == 200


def test_a_job_names_its_design_exactly_when_its_kind_works_on_one(api_client, schema):
    body = _operation(schema, "/api/simulation/jobs/", "post")["requestBody"]["content"]
    assert set(body) == {"application/json"}
    submission = body["application/json"]["schema"]
    branches = {b["properties"]["kind"]["enum"][0]: b for b in submission["oneOf"]}
    assert "design" in branches["validate"]["required"] and "not" not in branches["validate"]
    assert "design" not in branches["diagnostics"]["required"] and "not" in branches["diagnostics"]
    # each kind documents its own parameters, and no other
    simulate = branches["simulate"]["properties"]["parameters"]
    assert simulate["additionalProperties"] is False
    assert simulate["properties"]["seeds"]["type"] == "integer"
    assert "adaptive" in simulate["properties"]["routing"]["enum"]
    assert branches["validate"]["properties"]["parameters"]["properties"] == {}
    without = api_client.post("/api/simulation/jobs/", {"kind": "validate"}, format="json")
    assert without.status_code == 400 and "design" in without.json()
    design = api_client.post("/api/planner/designs/", {"spec": SMALL_SPEC}, format="json")
    with_one = {"kind": "diagnostics", "design": design.json()["id"]}
    refused = api_client.post("/api/simulation/jobs/", with_one, format="json")
    assert refused.status_code == 400 and "design" in refused.json()


@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/api/planner/designs/", "post"),
        ("/api/planner/designs/{design_pk}/revisions/", "post"),
        ("/api/planner/designs/{design_pk}/topology/preview/", "post"),
        ("/api/planner/designs/{design_pk}/topology/", "patch"),
        ("/api/inventory/switches/", "post"),
    ],
)
def test_a_body_with_nested_objects_is_documented_as_json_only(schema, path, method):
    content = _operation(schema, path, method)["requestBody"]["content"]
    assert set(content) == {"application/json"}, (path, set(content))


def test_flat_bodies_and_uploads_keep_their_form_encodings(schema):
    manufacturers = _operation(schema, "/api/inventory/manufacturers/", "post")
    assert "multipart/form-data" in manufacturers["requestBody"]["content"]
    upload = _operation(schema, "/api/planner/designs/{design_pk}/cabling/", "post")
    assert set(upload["requestBody"]["content"]) == {"multipart/form-data"}


def test_the_multipart_spec_body_the_schema_no_longer_offers_is_refused(api_client):
    """What schemathesis found: a spec sent as a form field is not a spec."""
    response = api_client.post("/api/planner/designs/", {"spec": "servers"}, format="multipart")
    assert response.status_code == 400 and "spec" in response.json()


def test_a_partial_update_names_at_least_one_field(api_client, schema):
    request_body = _operation(schema, "/api/planner/designs/{id}/", "patch")["requestBody"]
    assert request_body["required"] is True
    body = request_body["content"]
    assert _resolved(schema, body["application/json"]["schema"])["minProperties"] == 1
    design = api_client.post("/api/planner/designs/", {"spec": SMALL_SPEC}, format="json").json()
    empty = api_client.patch(f"/api/planner/designs/{design['id']}/", {}, format="json")
    assert empty.status_code == 400


def test_query_text_is_documented_without_nul_as_the_server_refuses_it(api_client, schema):
    import re

    search = _query(_operation(schema, "/api/planner/designs/", "get"))["search"]
    assert not re.search(search["pattern"], "a\x00b") and re.search(search["pattern"], "ab")
    response = api_client.get("/api/planner/designs/", {"search": "a\x00b"})
    assert response.status_code == 400 and "search" in response.json()
