"""What-if failures through the API (issue 24): the synchronous answer, an unknown id as a 400
naming it, and the job (kind whatif) that runs the collective before and after (no worker:
the task is recorded and run with ``job_execute``), read back and shown on its page."""

from __future__ import annotations

import pytest

from planner.designs.services import design_create
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.models import Job
from simulation.services import job_execute

JOBS = "/api/simulation/jobs/"
SMALL = {
    **load_spec_text((EXAMPLES_DIR / "h100-superpod-4su.yaml").read_text()),
    "servers": 4,
    "name": "4 servers",
}


@pytest.fixture
def sent(monkeypatch):
    from simulation.tasks import run_job

    calls = []
    monkeypatch.setattr(run_job, "apply_async", lambda *a, **kw: calls.append(kw["task_id"]))
    return calls


def _url(design) -> str:
    return f"/api/planner/designs/{design.pk}/revisions/1/what-if/"


def test_what_if_answers_at_once_and_names_an_unknown_id(api_client, seed_catalog, user):
    design = design_create(owner=user, spec_document=SMALL)
    domains = api_client.get(_url(design)).json()
    kinds = {k["kind"]: k["ids"] for k in domains["kinds"]}
    rack = kinds["rack"][0]
    answer = api_client.post(_url(design), {"failed": [f"rack:{rack}"]}, format="json")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["revision"] == 1 and body["gpus"]["total"] == 32
    assert body["gpus"]["lost"] % 8 == 0
    assert body["bisection"]["before_gbps"] >= body["bisection"]["after_gbps"]
    bad = api_client.post(
        _url(design), {"failed": [f"rack:{rack}", "node:no-such-spine"]}, format="json"
    )
    assert bad.status_code == 400
    assert "node:no-such-spine" in bad.json()["failed"][0]
    assert list(bad.json()) == ["failed"]
    assert api_client.post(_url(design), {"failed": []}, format="json").status_code == 400


def test_the_whatif_job_runs_before_and_after(
    api_client, logged_in_client, seed_catalog, user, sent
):
    design = design_create(owner=user, spec_document=SMALL)
    created = api_client.post(
        JOBS,
        {
            "kind": "whatif",
            "design": design.pk,
            "parameters": {"failed": ["link:0"], "size_bytes": 1e8, "routing": "spraying"},
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    job_execute(job_id=body["id"], worker="w1")
    job = api_client.get(f"{JOBS}{body['id']}/").json()
    assert job["status"] == "succeeded", job["error"]
    result = job["result"]
    assert result["whatif"]["gpus"]["lost"] == 1  # link 0 is one GPU's only NIC link
    assert result["before"]["ranks"] == 32 and result["after"]["ranks"] == 31
    assert result["after"]["completion_time_s"] > 0 and "link:0" in job["outcome"]
    page = logged_in_client.get(f"/jobs/{body['id']}/").content.decode()
    assert 'data-testid="whatif-runs"' in page and "Before the failure" in page and " ms" in page


@pytest.mark.parametrize(
    ("parameters", "field"),
    [
        ({"failed": ["node:nope"]}, "failed: no device"),
        ({"failed": []}, "failed: "),
        ({"failed": ["link:0"], "traffic": "incast"}, "traffic: "),
        ({"failed": ["link:0"], "routing": "teleport"}, "routing: "),
        ({"failed": ["link:0"], "gpus": 8}, "unknown parameter"),
    ],
)
def test_bad_whatif_parameters_are_400(api_client, seed_catalog, user, sent, parameters, field):
    design = design_create(owner=user, spec_document=SMALL)
    response = api_client.post(
        JOBS, {"kind": "whatif", "design": design.pk, "parameters": parameters}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["parameters"][0].startswith(field)
    assert not Job.objects.exists()


def test_a_team_viewer_may_ask_a_what_if_and_a_stranger_may_not(
    seed_catalog, user, other_user, django_user_model
):
    from rest_framework.test import APIClient

    from planner.teams.models import Team, TeamMembership, TeamRoleChoices

    team = Team.objects.create(name="Ops", slug="ops")
    TeamMembership.objects.create(team=team, user=user, role=TeamRoleChoices.OWNER)
    viewer = django_user_model.objects.create_user("vera", password="x")
    TeamMembership.objects.create(team=team, user=viewer, role=TeamRoleChoices.VIEWER)
    design = design_create(owner=user, spec_document=SMALL, team=team, sharing="team-read")
    revisions = design.revisions.count()
    client = APIClient()
    client.force_authenticate(viewer)
    answer = client.post(_url(design), {"failed": ["tier:spine"]}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["gpus"]["total"] == 32 and design.revisions.count() == revisions
    client.force_authenticate(other_user)
    assert client.post(_url(design), {"failed": ["tier:spine"]}, format="json").status_code == 404
