"""App shell: health, schema, docs, token page, jobs API ownership."""

import json

from simulation.models import Job


def test_healthz_tells_an_outsider_only_up_or_down(client):
    response = client.get("/healthz")
    body = json.loads(response.content)
    assert body == {"status": "ok"} or body == {"status": "fail"}, body
    assert response.status_code == (200 if body["status"] == "ok" else 503)


def test_healthz_details_are_for_staff(client, user):
    user.is_staff = True
    user.save()
    client.force_login(user)
    body = json.loads(client.get("/healthz").content)
    assert body["database"]["ok"] is True and body["database"]["vendor"]
    assert set(body) >= {"status", "database", "broker"}


def test_healthz_details_for_the_bearer_of_the_token_only(client, settings):
    settings.HEALTHZ_TOKEN = "monitor-secret"
    right = client.get("/healthz", headers={"Authorization": "Bearer monitor-secret"})
    assert "database" in json.loads(right.content)
    for wrong in ("Bearer monitor-secre", "Token monitor-secret", "Bearer "):
        body = json.loads(client.get("/healthz", headers={"Authorization": wrong}).content)
        assert set(body) == {"status"}, (wrong, body)
    settings.HEALTHZ_TOKEN = ""  # no token set: an empty bearer is no key
    body = json.loads(client.get("/healthz", headers={"Authorization": "Bearer "}).content)
    assert set(body) == {"status"}


def _healthz_with_a_dead_broker(client, monkeypatch, **headers):
    from planner.project.celery import app
    from tests.conftest import reset_broker_connections

    monkeypatch.setattr(app.conf, "broker_url", "redis://127.0.0.1:1/0")
    reset_broker_connections(app)
    try:
        return client.get("/healthz", headers=headers)
    finally:
        monkeypatch.undo()
        reset_broker_connections(app)


def test_healthz_reports_a_dead_broker_without_saying_where_to_outsiders(client, monkeypatch):
    response = _healthz_with_a_dead_broker(client, monkeypatch)
    assert response.status_code == 503
    assert json.loads(response.content) == {"status": "fail"}
    assert b"127.0.0.1" not in response.content and b"Error" not in response.content


def test_healthz_names_the_broker_error_to_the_token(client, settings, monkeypatch):
    settings.HEALTHZ_TOKEN = "monitor-secret"
    response = _healthz_with_a_dead_broker(
        client, monkeypatch, Authorization="Bearer monitor-secret"
    )
    body = json.loads(response.content)
    assert response.status_code == 503
    assert body["status"] == "fail" and body["broker"]["ok"] is False
    assert body["broker"]["error"]


def test_openapi_schema_and_docs(logged_in_client):
    schema = logged_in_client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = json.loads(schema.content)["paths"]
    assert "/api/simulation/jobs/" in paths
    docs = logged_in_client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger-ui" in docs.content
    assert b"cdn." not in docs.content  # served from our own static files
    assert 'href="/">← Fabric Planner</a>' in docs.content.decode()  # a way back


def test_home_has_navigation(logged_in_client):
    html = logged_in_client.get("/").content.decode()
    for label in ("Catalog", "Designs", "Jobs", "API docs", "Log out", "alice"):
        assert label in html


def test_token_page_creates_token(logged_in_client, user):
    response = logged_in_client.post("/account/token/")
    assert response.status_code == 200
    assert user.auth_token.key in response.content.decode()


def test_jobs_are_private(api_client, other_user):
    mine = api_client.post("/api/simulation/jobs/", {"kind": "diagnostics"}, format="json")
    assert mine.status_code == 201
    theirs = Job.objects.create(owner=other_user, kind="diagnostics", input_hash="x")
    assert api_client.get(f"/api/simulation/jobs/{theirs.pk}/").status_code == 404
    listed = api_client.get("/api/simulation/jobs/").json()["results"]
    assert [row["id"] for row in listed] == [mine.json()["id"]]


def test_unknown_job_kind_is_rejected(api_client):
    response = api_client.post("/api/simulation/jobs/", {"kind": "nope"}, format="json")
    assert response.status_code == 400
    assert "kind" in response.json()
