"""Answers the schema fuzzing (test_schema_fuzz.py) found to be 500s or off the schema, each
pinned by a plain test: a delete of something still in use, a value the database refuses, an
API URL no route matches, a design without a team."""

from __future__ import annotations

from inventory.models import CATEGORY_MODELS, Manufacturer


def test_deleting_a_manufacturer_with_parts_is_409_naming_them(api_client, seed_catalog):
    maker = Manufacturer.objects.get(slug="nvidia")
    response = api_client.delete("/api/inventory/manufacturers/nvidia/")
    assert response.status_code == 409, response.content
    detail = response.json()["detail"]
    assert detail.startswith("Still in use, so it cannot be deleted: ")
    some_part = CATEGORY_MODELS["switch"].objects.filter(manufacturer=maker).first()
    assert str(some_part) in detail or "more" in detail
    assert Manufacturer.objects.filter(slug="nvidia").exists()


def test_a_nul_character_in_a_looked_up_slug_is_400(api_client, seed_catalog):
    # PostgreSQL refuses NUL in text (DataError); SQLite finds no such manufacturer. Both 400.
    response = api_client.post(
        "/api/inventory/switches/",
        {"slug": "nul-switch", "name": "NUL", "manufacturer": "nvi\x00dia"},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert not CATEGORY_MODELS["switch"].objects.filter(slug="nul-switch").exists()


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
    from planner.domain.presets import EXAMPLES_DIR
    from planner.domain.spec import load_spec_text
    from planner.services import design_create

    spec = {**load_spec_text((EXAMPLES_DIR / "h100-superpod-4su.yaml").read_text()), "servers": 4}
    design = design_create(owner=user, spec_document=spec)
    assert api_client.get(f"/api/planner/designs/{design.pk}/").json()["team"] is None
