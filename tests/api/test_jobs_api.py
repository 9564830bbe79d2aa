"""Jobs API and pages: start, poll, cancel, permissions (other users' jobs are 404; no job on a
design you cannot read), the cap and a broker that is down.

No worker: the task is recorded instead of sent, and a test runs it with ``job_execute``.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from planner.designs.services import design_create, design_revise
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from planner.teams.models import Team, TeamMembership
from simulation.models import Job, JobStatusChoices
from simulation.services import job_execute

URL = "/api/simulation/jobs/"
ONE_SU = {**load_spec_text((EXAMPLES_DIR / "h100-superpod-4su.yaml").read_text()), "servers": 31}


@pytest.fixture
def sent(monkeypatch):
    from simulation.tasks import run_job

    calls = []
    monkeypatch.setattr(run_job, "apply_async", lambda *a, **kw: calls.append(kw["task_id"]))
    return calls


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU)


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _start(client, **data):
    return client.post(URL, data, format="json")


# Transactional: as in a real request, the task is sent when the view's transaction commits.
@pytest.mark.django_db(transaction=True)
def test_start_poll_and_result(api_client, design, sent):
    created = _start(api_client, kind="power", design=design.pk, parameters={"pue": 1.2})
    assert created.status_code == 201, created.content
    job = created.json()
    assert job["status"] == "queued" and job["reused"] is False
    assert (job["design"], job["revision"]) == (design.pk, 1)
    assert sent == [job["id"]]
    job_execute(job_id=job["id"], worker="w1")  # what the worker does
    polled = api_client.get(f"{URL}{job['id']}/").json()
    assert polled["status"] == "succeeded"
    assert polled["progress_done"] == polled["progress_total"] > 0
    assert polled["result"]["pue"] == 1.2 and polled["result"]["total_w"] > 0
    assert {"rack", "power_w", "limit_w"} <= set(polled["result"]["racks"][0])
    assert polled["attempts"] == 1 and polled["worker"] == "w1" and polled["heartbeat"]
    # The list omits results (they can be large) but carries the one-line outcome.
    listed = api_client.get(URL).json()["results"]
    assert [row["id"] for row in listed] == [job["id"]]
    assert "result" not in listed[0] and "kW" in listed[0]["outcome"]
    # Same inputs again: the finished job is returned (200, reused), nothing is sent.
    again = _start(api_client, kind="power", design=design.pk, parameters={"pue": 1.2})
    assert again.status_code == 200 and again.json()["reused"] is True
    assert again.json()["id"] == job["id"] and len(sent) == 1


def test_validate_on_a_named_revision(api_client, design, user, sent):
    design_revise(
        design=design, user=user, spec_document={**ONE_SU, "servers": 30}, base_revision=1
    )
    latest = _start(api_client, kind="validate", design=design.pk).json()
    assert latest["revision"] == 2
    first = _start(api_client, kind="validate", design=design.pk, revision=1).json()
    assert first["revision"] == 1
    assert _start(api_client, kind="validate", design=design.pk, revision=9).status_code == 404
    assert api_client.get(f"{URL}?design={design.pk}").json()["count"] == 2


def test_bad_requests_are_400(api_client, design, sent):
    assert _start(api_client, kind="validate").status_code == 400  # no design
    response = _start(api_client, kind="power", design=design.pk, parameters={"pue": "high"})
    assert response.status_code == 400 and "parameters" in response.json()
    assert _start(api_client, kind="teleport", design=design.pk).status_code == 400
    response = _start(
        api_client, kind="simulate", design=design.pk, parameters={"traffic": "broadcast"}
    )
    assert response.status_code == 400 and "parameters" in response.json()
    response = _start(api_client, kind="diagnostics", design=design.pk)
    assert response.status_code == 400 and "design" in response.json()
    assert not Job.objects.exists()


def test_other_users_jobs_are_404(api_client, other_user, sent):
    job = _start(api_client, kind="diagnostics").json()
    bob = _client(other_user)
    assert bob.get(f"{URL}{job['id']}/").status_code == 404
    assert bob.post(f"{URL}{job['id']}/cancel/").status_code == 404
    assert bob.get(URL).json()["count"] == 0
    assert bob.get(f"{URL}not-a-uuid/").status_code == 404
    assert Job.objects.get().status == "queued"


def test_no_job_on_a_design_you_cannot_read(design, other_user, sent):
    bob = _client(other_user)
    assert _start(bob, kind="validate", design=design.pk).status_code == 404
    assert _start(bob, kind="power", design=999_999).status_code == 404
    assert not Job.objects.exists()


def test_a_team_reader_may_run_jobs_on_a_shared_design(design, user, other_user, sent):
    team = Team.objects.create(name="Fabric", slug="fabric")
    TeamMembership.objects.create(team=team, user=user, role="owner")
    TeamMembership.objects.create(team=team, user=other_user, role="viewer")
    design.team, design.sharing = team, "team-read"
    design.save()
    response = _start(_client(other_user), kind="validate", design=design.pk)
    assert response.status_code == 201 and response.json()["owner"] == "bob"


def test_cancel_a_queued_job(api_client, sent, monkeypatch):
    from planner.project.celery import app

    monkeypatch.setattr(app.control, "revoke", lambda *a, **kw: None)
    job = _start(api_client, kind="diagnostics").json()
    response = api_client.post(f"{URL}{job['id']}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    # Cancelling again leaves it as it is.
    assert api_client.post(f"{URL}{job['id']}/cancel/").json()["status"] == "cancelled"


@pytest.mark.django_db(transaction=True)
def test_the_cap_is_429_and_a_dead_broker_leaves_the_job_queued(
    api_client, settings, sent, monkeypatch
):
    settings.JOBS_MAX_CONCURRENT_PER_USER = 1
    assert _start(api_client, kind="diagnostics").status_code == 201
    response = _start(api_client, kind="diagnostics")
    assert response.status_code == 429 and "limit is 1" in response.json()["detail"]

    Job.objects.update(status=JobStatusChoices.SUCCEEDED)
    from simulation.tasks import run_job

    def refused(*args, **kwargs):
        raise ConnectionRefusedError("[Errno 111] Connection refused")

    monkeypatch.setattr(run_job, "apply_async", refused)
    response = _start(api_client, kind="diagnostics")
    # Was 503 with a failed row: a job submitted while Redis is down now waits for it.
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "queued" and "job broker (Redis)" in body["progress_message"]
    assert "Errno" not in body["progress_message"]


def test_more_than_the_per_minute_rate_is_429_with_retry_after(api_client, settings, sent):
    settings.JOBS_MAX_PER_MINUTE_PER_USER = 2
    for _ in range(2):
        assert _start(api_client, kind="diagnostics").status_code == 201
        Job.objects.update(status=JobStatusChoices.SUCCEEDED)  # the concurrency cap is not hit
    response = _start(api_client, kind="diagnostics")
    assert response.status_code == 429 and "2 a minute" in response.json()["detail"]
    assert 1 <= int(response["Retry-After"]) <= 60
    assert Job.objects.count() == 2
    # A minute later the window has moved on.
    Job.objects.update(created=timezone.now() - timedelta(seconds=61))
    assert _start(api_client, kind="diagnostics").status_code == 201


def test_reading_jobs_recovers_a_lost_run(api_client, sent, settings):
    settings.JOBS_MAX_ATTEMPTS = 1
    job = _start(api_client, kind="diagnostics").json()
    past = timezone.now() - timedelta(minutes=10)
    Job.objects.filter(pk=job["id"]).update(
        status="running", heartbeat=past, started=past, attempts=1
    )
    polled = api_client.get(f"{URL}{job['id']}/").json()
    assert polled["status"] == "failed" and polled["error"].startswith("worker lost")


# --- pages -----------------------------------------------------------------------------------


def test_design_page_starts_jobs_and_shows_them(logged_in_client, design, sent):
    page = logged_in_client.get(f"/designs/{design.pk}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert 'data-testid="design-analysis"' in text and "Power budget" in text
    response = logged_in_client.post(f"/jobs/designs/{design.pk}/start/", {"kind": "power"})
    job = Job.objects.get()
    assert response.status_code == 302 and response.url == f"/jobs/{job.pk}/"
    assert job.kind == "power" and job.design_revision.number == 1
    job_execute(job_id=job.pk, worker="w1")
    text = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert str(job.pk) in text and "kW" in text
    detail = logged_in_client.get(f"/jobs/{job.pk}/").content.decode()
    for testid in ("power-by-category", "power-by-tier", "power-by-role", "rack-strip"):
        assert f'data-testid="{testid}"' in detail
    assert "Unknown / estimated share" in detail


def test_validation_page_groups_problems_by_rule(logged_in_client, user, design, sent):
    from simulation.services import job_enqueue

    job = job_enqueue(owner=user, kind="validate", design_revision=design.latest_revision)
    problems = [
        {
            "code": "reach-exceeded",
            "severity": "error",
            "message": f"link {i} is too long",
            "element_ids": [f"link:{i}"],
            "suggestion": "use SMF",
            "rule": "reach",
        }
        for i in range(3)
    ] + [
        {
            "code": "fiber-unknown",
            "severity": "warning",
            "message": "fiber type unknown",
            "element_ids": ["link:9"],
            "suggestion": "",
            "rule": "fiber",
        }
    ]
    Job.objects.filter(pk=job.pk).update(
        status="succeeded", result={"problems": problems, "summary": {}}, outcome="4 problems"
    )
    text = logged_in_client.get(f"/jobs/{job.pk}/").content.decode()
    assert 'data-testid="problem-groups"' in text
    assert "3 error" in text and "1 warning" in text
    assert text.index("<code>reach</code>") < text.index("<code>fiber</code>")  # errors first
    # links by device and port (issue 15), as every page names them (cage/lane, issue 33)
    assert "link:2" not in text
    assert re.search(r"gpu\d+ \d+/\d+ → leaf-su\d+-r\d+ \d+/\d+", text)


def test_pages_hide_other_users_jobs_and_designs(client, other_user, design, user, sent):
    from simulation.services import job_enqueue

    job = job_enqueue(owner=user, kind="validate", design_revision=design.latest_revision)
    client.force_login(other_user)
    assert client.get(f"/jobs/{job.pk}/").status_code == 404
    assert client.post(f"/jobs/{job.pk}/cancel/").status_code == 404
    assert client.post(f"/jobs/designs/{design.pk}/start/", {"kind": "validate"}).status_code == 404
    assert str(job.pk) not in client.get("/jobs/").content.decode()


def test_jobs_page_has_live_rows_and_cancel_buttons(logged_in_client, user, sent):
    from simulation.services import job_enqueue

    job = job_enqueue(owner=user, kind="diagnostics")
    text = logged_in_client.get("/jobs/").content.decode()
    assert "data-live-jobs" in text and f'data-job-id="{job.pk}"' in text
    assert f"/jobs/{job.pk}/cancel/" in text
    response = logged_in_client.post(f"/jobs/{job.pk}/cancel/", {"next": "/jobs/"})
    assert response.status_code == 302 and response.url == "/jobs/"
    assert Job.objects.get().status == "cancelled"
