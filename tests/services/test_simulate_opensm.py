"""The ``simulate`` job routed by OpenSM (issue 38 item 3): the job runs the real OpenSM on the
saved design and shows its report; where the tools are missing the job is refused saying how
to install them, and the design page shows the option disabled with that reason."""

from __future__ import annotations

import os

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from planner.analyses.opensm import missing_tools
from planner.analyses.opensm import runner as opensm_runner
from planner.designs.services import design_create
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.services import job_enqueue, job_execute

ONE_SU = load_spec_text((EXAMPLES_DIR / "h100-superpod-1su.yaml").read_text(), name="1su")
INSTALL = "apt-get install opensm ibsim-utils libumad2sim0 infiniband-diags"


@pytest.fixture
def sent(monkeypatch):
    from simulation.tasks import run_job

    calls = []
    monkeypatch.setattr(run_job, "apply_async", lambda *a, **k: calls.append((a, k)))
    return calls


@pytest.fixture
def revision(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU).revisions.get()


@pytest.fixture
def no_tools(monkeypatch):
    """This server as if libumad2sim were not installed."""
    monkeypatch.setattr(opensm_runner, "UMAD2SIM_GLOB", "/nonexistent/libumad2sim.so")


def test_a_job_routed_by_opensm_runs_it_and_shows_its_report(
    logged_in_client, user, revision, sent
):
    if problem := missing_tools():
        if os.environ.get("CI"):
            pytest.fail(problem)
        pytest.skip(problem)
    page = logged_in_client.get(reverse("planner:design-detail", args=[revision.design_id]))
    html = page.content.decode()
    assert '<option value="opensm">Routed by OpenSM' in html
    assert 'data-testid="opensm-unavailable"' not in html
    logged_in_client.post(
        reverse("simulation:job-start", args=[revision.design_id]),
        {
            "kind": "simulate",
            "traffic": "all-to-all",
            "routing": "opensm",
            "opensm_engine": "ftree",
            "size_bytes": "1e8",
        },
    )
    from simulation.models import Job

    job = Job.objects.get(kind="simulate")
    assert job.parameters["opensm_engine"] == "ftree"
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    report = job.result["opensm"]
    assert report["routed_by"] == "ftree" and report["unrouted"] == 0
    assert not report["credit_loops"]
    html = logged_in_client.get(reverse("simulation:job-detail", args=[job.pk])).content.decode()
    assert "Routed by OpenSM (the real subnet manager&#x27;s tables)" in html
    assert "Forwarding tables: OpenSM 3.3.23 routed with ftree: 264 LIDs" in html
    assert "OpenSM routing engine" in html  # the parameter, by its label


def test_without_the_tools_the_job_is_refused_and_the_option_disabled(
    logged_in_client, user, revision, sent, no_tools
):
    with pytest.raises(ValidationError) as caught:
        job_enqueue(
            owner=user, kind="simulate", design_revision=revision, parameters={"routing": "opensm"}
        )
    assert INSTALL in str(caught.value) and "libumad2sim" in str(caught.value)
    html = logged_in_client.get(
        reverse("planner:design-detail", args=[revision.design_id])
    ).content.decode()
    assert '<option value="opensm" disabled title="OpenSM routing needs libumad2sim' in html
    assert "(unavailable)</option>" in html
    assert 'data-testid="opensm-unavailable"' in html and INSTALL in html
    # the sweep offers no opensm (it runs in the simulate job only)
    assert 'name="routing" value="opensm"' not in html
    response = logged_in_client.post(
        reverse("simulation:job-start", args=[revision.design_id]),
        {"kind": "simulate", "traffic": "all-reduce", "routing": "opensm"},
        follow=True,
    )
    assert response.status_code == 200 and INSTALL in response.content.decode()


def test_an_engine_needs_opensm_routing(user, revision, sent):
    with pytest.raises(ValidationError, match="opensm_engine: only for opensm routing"):
        job_enqueue(
            owner=user,
            kind="simulate",
            design_revision=revision,
            parameters={"routing": "rail", "opensm_engine": "ftree"},
        )
    with pytest.raises(ValidationError, match="opensm_engine"):
        job_enqueue(
            owner=user,
            kind="simulate",
            design_revision=revision,
            parameters={"routing": "opensm", "opensm_engine": "ar_updn"},
        )


def test_a_roce_design_is_refused_before_the_job_runs(seed_catalog, user, sent):
    spec = load_spec_text((EXAMPLES_DIR / "clos-3to1.yaml").read_text(), name="roce")
    roce = design_create(owner=user, spec_document=spec).revisions.get()
    with pytest.raises(ValidationError, match="opensm is for an InfiniBand design"):
        job_enqueue(
            owner=user, kind="simulate", design_revision=roce, parameters={"routing": "opensm"}
        )


def test_fabric_simulate_routes_with_opensm_and_prints_its_report(seed_catalog, tmp_path, capsys):
    from tests.services.test_fabric_cli import fabric

    spec = EXAMPLES_DIR / "h100-superpod-1su.yaml"
    assert fabric("simulate", spec, "--routing", "rail", "--opensm-engine", "ftree") != 0
    assert "--opensm-engine is for --routing opensm" in capsys.readouterr().err
    if problem := missing_tools():
        if os.environ.get("CI"):
            pytest.fail(problem)
        pytest.skip(problem)
    out = tmp_path / "flows.json"
    code = fabric(
        "simulate", spec, "--traffic", "permutation", "--routing", "opensm", "--opensm-engine",
        "ftree", "--size-bytes", 1e6, "--dump-flows", out,
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "permutation over 248 GPUs, opensm routing" in printed
    assert "OpenSM 3.3.23 routed with ftree: 264 LIDs, 3,024 switch-to-adapter routes" in printed
    assert out.exists()  # one path per flow: the flows' paths can be dumped
