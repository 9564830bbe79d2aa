"""A parameter sweep through the jobs API (kind ``sweep``): started, run, read back by point;
bad parameters answered 400 naming the field, and nothing queued.

No worker: the task is recorded instead of sent, and the test runs it with ``job_execute``.
"""

from __future__ import annotations

import pytest

from planner.designs.services import design_create
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.jobs import sweep
from simulation.models import Job
from simulation.services import job_execute

URL = "/api/simulation/jobs/"
ONE_SU = load_spec_text((EXAMPLES_DIR / "h100-superpod-1su.yaml").read_text(), name="1su")


@pytest.fixture
def sent(monkeypatch):
    from simulation.tasks import run_job

    calls = []
    monkeypatch.setattr(run_job, "apply_async", lambda *a, **kw: calls.append(kw["task_id"]))
    monkeypatch.setattr(sweep, "send_sweep_runs", lambda *args: calls.append(args))
    return calls


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU)


def _start(client, design, **parameters):
    return client.post(
        URL, {"kind": "sweep", "design": design.pk, "parameters": parameters}, format="json"
    )


def test_a_sweep_runs_through_the_jobs_api(api_client, design, sent):
    created = _start(
        api_client, design, traffic="permutation", routing=["ecmp", "spraying"], fail_links=[0, 2]
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["kind"] == "sweep" and body["status"] == "queued"
    assert body["parameters"]["fail_links"] == [0, 2] and body["parameters"]["seeds"] == 1
    job_execute(job_id=body["id"], worker="w1")
    job = api_client.get(f"{URL}{body['id']}/").json()
    assert job["status"] == "succeeded", job["error"]
    points = job["result"]["points"]
    assert [(p["fail_links"], p["routing"]) for p in points] == [
        (0, "ecmp"),
        (0, "spraying"),
        (2, "ecmp"),
        (2, "spraying"),
    ]
    assert all(p["busbw_gbps"]["p50"] > 0 for p in points)
    again = _start(
        api_client, design, traffic="permutation", routing=["spraying", "ecmp"], fail_links=[2, 0]
    )
    assert again.status_code == 200 and again.json()["reused"]  # the same sweep, normalized


@pytest.mark.parametrize(
    ("parameters", "field"),
    [
        ({"routing": ["ecmp", "teleport"]}, "routing: "),
        ({"fail_links": [-1, 2]}, "fail_links: "),
        ({"seeds": 0}, "seeds: "),
        ({"size_bytes": [0]}, "size_bytes: "),
        ({"fail_links": list(range(40)), "routing": ["ecmp", "spraying", "rail"]}, "fail_links × "),
    ],
)
def test_bad_parameters_are_400_naming_the_field(api_client, design, sent, parameters, field):
    response = _start(api_client, design, **parameters)
    assert response.status_code == 400, response.content
    message = response.json()["parameters"][0]
    assert message.startswith(field), message
    assert not Job.objects.exists()
