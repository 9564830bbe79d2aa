"""Issue 15 item 2: a job failure the user caused names the device or field and what to do;
no exception text, class or traceback reaches the job row, its pages or the API."""

from __future__ import annotations

import dataclasses

import pytest
from django.urls import reverse

from planner.designs.adapters import fabric_unpack
from planner.designs.services import design_create, design_edit_topology
from planner.domain.canvas import edit_document
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.jobs import kinds
from simulation.services import job_enqueue, job_execute

ONE_SU = load_spec_text((EXAMPLES_DIR / "h100-superpod-1su.yaml").read_text(), name="1su")
NDR = {"a_part": "980-9I51A-00NS00", "b_part": "MMA4Z00-NS", "cable": "MFP7E10-Nxxx"}
RAW = ("ValueError", "Traceback", "NotImplementedError", "Error:")


@pytest.fixture
def sent(monkeypatch):
    from simulation.tasks import run_job

    monkeypatch.setattr(run_job, "apply_async", lambda *a, **k: None)


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU)


def _edited(design, user):
    """The issue's edit: one more server, with one NIC link (to a new leaf)."""
    document = edit_document(fabric_unpack(design.revisions.get(number=1).topology))
    document["nodes"] += [
        {"name": "dgx-0042", "model": "DGX-H100", "role": "server"},
        {"name": "leaf-lab", "model": "QM9700", "role": "leaf"},
    ]
    document["links"].append({"a": "dgx-0042", "a_port": 1, "b": "leaf-lab", "b_port": 1, **NDR})
    return design_edit_topology(design=design, user=user, document=document, base_revision=1)


def _failed(user, revision, **parameters):
    job = job_enqueue(owner=user, kind="simulate", design_revision=revision, parameters=parameters)
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "failed"
    return job


def test_simulating_servers_with_different_nic_links_names_the_server(
    user, design, sent, logged_in_client, api_client
):
    job = _failed(user, _edited(design, user), traffic="all-reduce", routing="rail")
    assert job.error.startswith("Server dgx-0042 has 1 NIC link while the others have 8")
    assert "run Validate to see the links at fault" in job.error
    assert not any(raw in job.error for raw in RAW), job.error
    page = logged_in_client.get(reverse("simulation:job-detail", args=[job.pk])).content.decode()
    assert "dgx-0042 has 1 NIC link" in page and "ValueError" not in page
    body = api_client.get(f"/api/simulation/jobs/{job.pk}/").json()
    assert body["error"] == job.error


def test_a_job_asking_more_gpus_than_the_fabric_has_names_the_field(user, design, sent):
    revision = design.revisions.get(number=1)
    from planner.analyses import traffic

    with pytest.raises(traffic.JobInputError, match="gpus: 1,000 GPUs asked, the fabric has 248"):
        traffic.place_job(_network(revision), 1000)


def _network(revision):
    from planner.analyses.flow import Network

    return Network.from_fabric(fabric_unpack(revision.topology))


def test_an_internal_error_shows_no_exception_text(user, design, sent, monkeypatch):
    def broken(job, on_progress):
        raise KeyError("/srv/secret/path")

    kind = dataclasses.replace(kinds.KINDS["simulate"], runner=broken)
    monkeypatch.setitem(kinds.KINDS, "simulate", kind)
    job = _failed(user, design.revisions.get(number=1), traffic="all-reduce", routing="rail")
    assert "internal error" in job.error and f"job {job.pk}" in job.error
    assert "KeyError" not in job.error and "secret" not in job.error
