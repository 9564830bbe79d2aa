"""The simulate job's storage-read traffic (issue 18 item 5): offered only for a design with a
storage (or converged) network, refused otherwise naming the traffic; run by the worker on the
storage network's elements, its per-node read rate agrees with the revision's analysis.

No worker: the task is recorded instead of sent, and the test runs it with ``job_execute``.
"""

from __future__ import annotations

import pytest

from planner.designs.services import design_create
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.models import Job
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
def with_storage(seed_catalog, user):
    spec = {**ONE_SU, "name": "1 SU with storage", "networks": {"storage": {}}}
    return design_create(owner=user, spec_document=spec)


@pytest.fixture
def without_storage(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU)


def _start(client, design, **parameters):
    return client.post(
        URL, {"kind": "simulate", "design": design.pk, "parameters": parameters}, format="json"
    )


def test_storage_read_runs_and_agrees_with_the_analysis(api_client, with_storage, sent):
    created = _start(api_client, with_storage, traffic="storage-read", routing="adaptive")
    assert created.status_code == 201, created.content
    job_execute(job_id=created.json()["id"], worker="w1")
    polled = api_client.get(f"{URL}{created.json()['id']}/").json()
    assert polled["status"] == "succeeded", polled.get("error")
    read = polled["result"]["storage_read"]
    analytic = with_storage.revisions.get(number=1).summary["networks"]["storage"]["bandwidth"]
    assert read["readers"] == 31 and read["network"] == "storage"
    assert analytic["exact"] is True
    for key in ("min", "mean", "max"):
        assert read["read_gbytes_per_node"][key] == pytest.approx(
            analytic["all_gbytes_per_node"], rel=1e-9
        )
    assert read["bottleneck_tiers"]
    assert "GB/s per node" in polled["outcome"]


def test_the_job_page_shows_the_read_rates(logged_in_client, api_client, with_storage, sent):
    created = _start(api_client, with_storage, traffic="storage-read", routing="adaptive")
    job_execute(job_id=created.json()["id"], worker="w1")
    job = Job.objects.get(pk=created.json()["id"])
    rate = job.result["storage_read"]["read_gbytes_per_node"]["min"]
    page = logged_in_client.get(f"/jobs/{job.pk}/").content.decode()
    assert 'data-testid="storage-read-help"' in page
    assert "Read per node, min" in page and f"{rate:,.2f} GB/s" in page
    assert "31 nodes" in page


def test_a_design_without_storage_gets_400_naming_the_traffic(api_client, without_storage, sent):
    response = _start(api_client, without_storage, traffic="storage-read")
    assert response.status_code == 400
    text = str(response.json()["parameters"])
    assert "traffic: storage-read" in text and "networks.storage" in text
    assert not Job.objects.exists() and not sent


def test_monte_carlo_seeds_are_refused_for_storage_read(api_client, with_storage, sent):
    response = _start(api_client, with_storage, traffic="storage-read", seeds=4)
    assert response.status_code == 400 and "seeds" in str(response.json()["parameters"])


def test_the_form_offers_storage_read_only_with_a_storage_network(
    logged_in_client, with_storage, without_storage
):
    option = '<option value="storage-read">'
    assert option in logged_in_client.get(f"/designs/{with_storage.pk}/").content.decode()
    assert option not in logged_in_client.get(f"/designs/{without_storage.pk}/").content.decode()
