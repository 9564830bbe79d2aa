"""The message-size sweep job (issue 23 item 2) through the jobs API: started, run (no worker:
the task is recorded and run with ``job_execute``), read back; bad parameters are a 400
naming the parameter; the job page draws the chart, the table and the published figures
beside ours. The arithmetic (rail rings, latency, busbw) is in tests/unit/test_flow_latency.py;
here the smallest design that has a fabric: 2 servers."""

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
    "servers": 2,
    "name": "2 servers",
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
    assert result["rings"] == "rail" and result["ring_count"] == 8 and result["gpus"] == 16
    assert points[0]["time_s"] >= result["steps"] * 1.5e-6  # every step's overhead at least
    assert points[-1]["busbw_gbytes_s"] > 300  # 8 rails of 400G, not one NIC
    assert all(p["source"].startswith("https://") for p in result["published"])
    page = logged_in_client.get(f"/jobs/{body['id']}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="size-sweep-chart"' in html and "8 GiB" in html and "GB/s" in html
    assert 'data-testid="size-sweep-published"' in html and "NVIDIA/nccl-tests/issues/290" in html
    assert "Not modelled" in html and "NVLink" in html
    assert "<dt>Switch latency</dt><dd>600 ns</dd>" in html, html.split("job-parameters")[1][:600]
    assert "e-0" not in html  # tiny bandwidths written out, not 4.5e-05
    assert "µs (mean" not in html and "plus 1.50 µs per step" in html  # no nested brackets


BAD = [
    ({"traffic": "all-to-all"}, "traffic: "),
    ({"rings": "tree"}, "rings: "),
    ({"gpus": 1}, "gpus: "),
    ({"overhead_us": -1}, "overhead_us: "),
    ({"routing": "teleport"}, "routing: "),
    ({"sizes": [8]}, "unknown parameter"),
    ({"gpus": 12}, "gpus: whole servers of 8 GPUs"),  # refused now, not a failed job
    ({"gpus": 24}, "gpus: at most the 16 GPUs"),
]


def test_bad_size_sweep_parameters_are_400(api_client, seed_catalog, user, sent):
    design = design_create(owner=user, spec_document=SMALL)
    for parameters, field in BAD:
        response = _start(api_client, design, **parameters)
        assert response.status_code == 400, (parameters, response.content)
        assert response.json()["parameters"][0].startswith(field), parameters
    assert not Job.objects.exists()


def test_design_page_form_names_a_bad_field_beside_it(logged_in_client, seed_catalog, user, sent):
    design = design_create(owner=user, spec_document=SMALL)
    url = f"/jobs/designs/{design.pk}/start/"
    for value, shown in (
        ("1e309", "Switch latency (ns): a number (got “1e309”)"),
        ("-1", "Switch latency (ns): a number from 0 to 1,000,000 (got -1)."),
    ):
        response = logged_in_client.post(url, {"kind": "size_sweep", "switch_latency_ns": value})
        assert response.status_code == 302 and response["Location"].endswith("#analysis-heading")
        html = logged_in_client.get(response["Location"]).content.decode()
        form = html.split('data-testid="size-sweep-form"')[1]
        assert 'data-testid="job-error"' in form.split("</form>")[1][:300], html
        assert shown in form
        assert 'ul class="messages"' not in html  # not at the top of the page
    assert not Job.objects.exists()
