"""The message-size sweep job (issue 23 item 2) through the jobs API: started, run (no worker:
the task is recorded and run with ``job_execute``), read back; bad parameters are a 400
naming the parameter; the job page draws the chart and the table."""

from __future__ import annotations

import pytest

from planner.designs.services import design_create
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.models import Job
from simulation.services import job_execute

URL = "/api/simulation/jobs/"
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


def _start(client, design, **parameters):
    return client.post(
        URL, {"kind": "size_sweep", "design": design.pk, "parameters": parameters}, format="json"
    )


def test_a_size_sweep_runs_through_the_jobs_api(
    api_client, logged_in_client, seed_catalog, user, sent
):
    design = design_create(owner=user, spec_document=SMALL)
    created = _start(api_client, design, switch_latency_ns=600, overhead_us=1.5)
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["kind"] == "size_sweep" and body["parameters"]["routing"]
    job_execute(job_id=body["id"], worker="w1")
    job = api_client.get(f"{URL}{body['id']}/").json()
    assert job["status"] == "succeeded", job["error"]
    result = job["result"]
    points = result["points"]
    assert [p["size_bytes"] for p in points][:2] == [8, 16] and len(points) == 31
    assert points[0]["time_s"] >= result["steps"] * 1.5e-6  # every step's overhead at least
    assert points[-1]["busbw_gbytes_s"] > 100 * points[0]["busbw_gbytes_s"]
    assert all(p["source"].startswith("https://") for p in result["published"])
    page = logged_in_client.get(f"/jobs/{body['id']}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="size-sweep-chart"' in html and "8 GiB" in html and "GB/s" in html


@pytest.mark.parametrize(
    ("parameters", "field"),
    [
        ({"traffic": "all-to-all"}, "traffic: "),
        ({"gpus": 1}, "gpus: "),
        ({"overhead_us": -1}, "overhead_us: "),
        ({"routing": "teleport"}, "routing: "),
        ({"sizes": [8]}, "unknown parameter"),
    ],
)
def test_bad_size_sweep_parameters_are_400(api_client, seed_catalog, user, sent, parameters, field):
    design = design_create(owner=user, spec_document=SMALL)
    response = _start(api_client, design, **parameters)
    assert response.status_code == 400, response.content
    assert response.json()["parameters"][0].startswith(field)
    assert not Job.objects.exists()
