"""Answers the schema fuzzing (test_schema_fuzz.py) found to be 500s or off the schema, each
pinned by a plain test: a delete of something still in use, a value the database refuses, an
API URL no route matches, a design without a team."""

from __future__ import annotations

import json

import pytest
from django.db import DataError, IntegrityError, OperationalError

from inventory.models import CATEGORY_MODELS, Manufacturer
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text


def test_deleting_a_manufacturer_with_parts_is_409_naming_them(
    api_client, catalog_editor, seed_catalog
):
    maker = Manufacturer.objects.get(slug="nvidia")
    response = api_client.delete("/api/inventory/manufacturers/nvidia/")
    assert response.status_code == 409, response.content
    detail = response.json()["detail"]
    parts = sum(
        model.objects.filter(manufacturer=maker).count() for model in CATEGORY_MODELS.values()
    )
    assert detail == f"{parts} catalog parts name nvidia; delete or move them first."
    assert Manufacturer.objects.filter(slug="nvidia").exists()


def test_a_nul_character_in_a_looked_up_slug_is_400(api_client, catalog_editor, seed_catalog):
    # PostgreSQL refuses NUL in text (DataError); SQLite finds no such manufacturer. Both 400.
    response = api_client.post(
        "/api/inventory/switches/",
        {"slug": "nul-switch", "name": "NUL", "manufacturer": "nvi\x00dia"},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert not CATEGORY_MODELS["switch"].objects.filter(slug="nul-switch").exists()


@pytest.mark.parametrize("body_format", ["multipart", "form"])
def test_a_nul_in_a_form_body_is_400_naming_the_field(
    api_client, catalog_editor, seed_catalog, body_format
):
    """A slug field (the price's book) refuses a NUL naming the field before it is looked up
    in the database, in form and multipart bodies too (JSON ones are checked as parsed)."""
    from urllib.parse import urlencode

    from inventory.models import Price

    before = Price.objects.count()
    data = {"book": "reseller\x00list", "part_category": "switch", "part_slug": "QM9700"}
    if body_format == "multipart":
        response = api_client.post("/api/inventory/prices/", {**data, "price": "1"})
    else:
        response = api_client.post(
            "/api/inventory/prices/",
            urlencode({**data, "price": "1"}),
            content_type="application/x-www-form-urlencoded",
        )
    assert response.status_code == 400, response.content
    assert "NUL" in response.json()["book"][0]
    assert Price.objects.count() == before


def test_an_api_url_no_route_matches_is_a_json_404(api_client):
    response = api_client.get("/api/planner/designs/-1/revisions/")  # <int:design_pk>
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not found."}


def test_a_page_url_no_route_matches_is_still_the_html_404(logged_in_client):
    response = logged_in_client.get("/designs/-1/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_design_without_a_team_reads_team_null(api_client, user, seed_catalog):
    from planner.designs.services import design_create
    from planner.domain.presets import EXAMPLES_DIR
    from planner.domain.spec import load_spec_text

    spec = {**load_spec_text((EXAMPLES_DIR / "h100-superpod-4su.yaml").read_text()), "servers": 4}
    design = design_create(owner=user, spec_document=spec)
    assert api_client.get(f"/api/planner/designs/{design.pk}/").json()["team"] is None


# --- no 500 from any input (issue 14): each original reproduction, answered 400 by name -------

SUMMARY = "/api/planner/summary/"


def _post_raw(client, url: str, body: str):
    return client.post(url, data=body.encode(), content_type="application/json")


def test_a_deeply_nested_yaml_spec_is_400_naming_the_depth_limit(api_client, seed_catalog):
    text = "[" * 1200 + "]" * 1200  # 2.4 KB: recursed through the YAML parser before
    response = api_client.post(SUMMARY, {"spec": text}, format="json")
    assert response.status_code == 400, response.content
    messages = [p["message"] for p in response.json()["problems"]]
    assert any("nested deeper than 64 levels" in m for m in messages), messages


def test_json_nested_100k_deep_is_400_naming_the_depth_limit(api_client):
    response = _post_raw(api_client, SUMMARY, '{"spec": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert response.status_code == 400, response.content
    assert "nested deeper than 64 levels" in response.json()["detail"]


def test_json_just_over_the_depth_limit_is_400_with_its_path(api_client):
    response = _post_raw(api_client, SUMMARY, '{"spec": {"a": ' + "[" * 70 + "]" * 70 + "}}")
    assert response.status_code == 400, response.content
    assert response.json()["detail"].startswith("JSON refused: spec.a.0.0")


def test_a_lone_surrogate_in_a_spec_name_is_400_on_the_field(api_client, seed_catalog):
    from planner.designs.models import Design

    spec = {**load_spec_text((EXAMPLES_DIR / "h100-superpod-1su.yaml").read_text())}
    spec["name"] = "bad \ud800 name"
    body = json.dumps({"spec": spec})  # ensure_ascii: the surrogate travels as \ud800
    assert "\\ud800" in body
    response = _post_raw(api_client, "/api/planner/designs/", body)
    assert response.status_code == 400, response.content
    assert "lone surrogate" in response.json()["spec.name"][0]
    assert not Design.objects.exists()


def test_a_lone_surrogate_in_yaml_spec_text_is_400_naming_the_field(api_client, seed_catalog):
    text = 'name: "bad \\ud800 name"\ntopology: rail-optimized\n'
    response = api_client.post(SUMMARY, {"spec": text}, format="json")
    assert response.status_code == 400, response.content
    problems = response.json()["problems"]
    assert any("lone surrogate" in p["message"] and "name" in p["message"] for p in problems)


def test_non_string_protocols_are_a_field_error(api_client, user, seed_catalog):
    user.is_superuser = user.is_staff = True  # a catalog editor, whatever the rules become
    user.save()
    data = {"slug": "bad-cable", "name": "Bad", "manufacturer": "nvidia", "protocols": [{}]}
    response = api_client.post("/api/inventory/cables/", data, format="json")
    assert response.status_code == 400, response.content
    assert "protocols" in response.json()
    assert "not a string" in str(response.json()["protocols"])


@pytest.mark.parametrize("bad", [[{}], [[]], [1], {"a": 1}, 5, [None, {"x": []}]])
def test_every_structured_catalog_field_rejects_bad_shapes_without_a_500(
    api_client, user, seed_catalog, bad
):
    from django.db.models import JSONField

    user.is_superuser = user.is_staff = True
    user.save()
    failures = []
    for category, model in CATEGORY_MODELS.items():
        route = {"switch": "switches"}.get(category, f"{category}s")
        url = f"/api/inventory/{route}/"
        for field in model._meta.get_fields():
            if not isinstance(field, JSONField):
                continue
            data = {"slug": f"shape-{category}", "name": "Shape", "manufacturer": "nvidia"}
            response = api_client.post(url, {**data, field.name: bad}, format="json")
            if response.status_code >= 500 or response.status_code == 404:
                failures.append((url, field.name, response.status_code))
            model.objects.filter(slug=f"shape-{category}").delete()
    assert not failures


def test_a_nul_in_a_job_parameter_is_400_naming_it_without_sql(api_client):
    body = '{"kind": "power", "parameters": {"note": "a\\u0000b"}}'
    response = _post_raw(api_client, "/api/simulation/jobs/", body)
    assert response.status_code == 400, response.content
    text = response.content.decode()
    assert "parameters.note" in response.json() and "NUL" in text
    assert "INSERT" not in text and "SELECT" not in text


def test_a_nul_in_a_query_parameter_is_400_naming_it(api_client, logged_in_client):
    response = api_client.get("/api/inventory/switches/", {"search": "nvi\x00dia"})
    assert response.status_code == 400, response.content
    assert "NUL" in response.json()["search"][0]
    page = logged_in_client.get("/designs/", {"q": "x\x00"})
    assert page.status_code == 400 and b"NUL" in page.content


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (DataError('invalid byte sequence for encoding "UTF8": 0x00\nINSERT INTO "x"'), 400),
        (IntegrityError('duplicate key value violates unique constraint "x_pkey" SELECT 1'), 409),
        (OperationalError('server closed the connection unexpectedly UPDATE "x" SET'), 503),
    ],
)
def test_database_errors_never_reach_a_client(error, code, rf):
    from planner.project.api.exceptions import exception_handler
    from planner.project.middleware import RequestTextMiddleware

    response = exception_handler(error, {})
    assert response.status_code == code
    page = RequestTextMiddleware(lambda r: None).process_exception(rf.get("/designs/"), error)
    assert page.status_code == code
    for text in (str(response.data), page.content.decode()):
        assert "INSERT" not in text and "SELECT" not in text and "UPDATE" not in text
        assert "UTF8" not in text and "x_pkey" not in text and "connection" not in text


@pytest.mark.parametrize(
    ("content_type", "body", "words"),
    [
        ("application/json", b'{"spec": {"servers": 8,}}', "The body is not valid JSON (line 1"),
        ("application/json", b"\xff\xfe{}", "The body is not utf-8 text (byte 1)."),
        ("multipart/form-data; boundary=", b"--x\r\n", "The body is not a readable multipart"),
    ],
)
def test_a_body_that_does_not_parse_is_refused_in_plain_words(
    api_client, content_type, body, words
):
    response = api_client.generic("POST", "/api/planner/designs/", body, content_type=content_type)
    assert response.status_code == 400, response.content
    detail = response.json()["detail"]
    assert detail.startswith(words), detail
    assert not any(raw in detail for raw in ("Expecting", "codec", "parse error", "boundary in"))
