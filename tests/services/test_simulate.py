"""The ``simulate`` job: parameters, the runner on a saved design, Monte Carlo aggregation."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from planner.analyses.scenario import monte_carlo_summary
from planner.designs.services import design_create
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.jobs import monte_carlo
from simulation.jobs.heartbeat import process_identity
from simulation.jobs.lifecycle import claim
from simulation.services import job_enqueue, job_execute

ONE_SU = load_spec_text((EXAMPLES_DIR / "h100-superpod-1su.yaml").read_text(), name="1su")
RESULT_KEYS = {
    "completion_time_s",
    "algbw_gbps",
    "busbw_gbps",
    "bound_busbw_gbps",
    "efficiency",
    "max_link_utilization",
    "link_utilization",
    "hot_spots",
    "fct",
    "per_tier_load",
}


@pytest.fixture
def sent(monkeypatch):
    from simulation.tasks import run_job

    calls = []
    monkeypatch.setattr(run_job, "apply_async", lambda *a, **k: calls.append((a, k)))
    return calls


@pytest.fixture
def revision(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU).revisions.get()


def _run(user, revision, **parameters):
    job = job_enqueue(owner=user, kind="simulate", design_revision=revision, parameters=parameters)
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return job


def test_ring_allreduce_with_rail_routing_reaches_line_rate(user, revision, sent):
    job = _run(user, revision, traffic="all-reduce", routing="rail", size_bytes=1e9)
    result = job.result
    assert set(result) >= RESULT_KEYS
    assert result["busbw_gbps"] == pytest.approx(400, rel=1e-6)  # the NIC line rate, Gb/s
    assert result["bound_busbw_gbps"] == pytest.approx(400)
    assert result["efficiency"] == pytest.approx(1, rel=1e-6)
    assert result["algbw_gbps"] < result["busbw_gbps"]
    utilization = result["link_utilization"]
    assert utilization and all(key.startswith("link:") for key in utilization)
    assert all(0 < value <= 1 + 1e-9 for value in utilization.values())
    assert max(utilization.values()) == pytest.approx(result["max_link_utilization"], rel=1e-5)
    assert set(result["fct"]) >= {"p50", "p90", "p99", "max", "histogram"}
    assert sum(result["fct"]["histogram"]["counts"]) == result["flows"]
    assert "server-leaf" in result["per_tier_load"]
    assert result["hot_spots"] and "tier" in result["hot_spots"][0]
    assert job.parameters["design"] == revision.design_id
    assert job.progress_done == job.progress_total
    # same inputs: the succeeded job is reused
    again = job_enqueue(
        owner=user,
        kind="simulate",
        design_revision=revision,
        parameters={"traffic": "all-reduce", "routing": "rail", "size_bytes": 1e9},
    )
    assert again.reused and again.pk == job.pk


def test_parameters_are_checked(user, revision, sent):
    for bad in (
        {"traffic": "broadcast"},
        {"routing": "magic"},
        {"seeds": 3, "routing": "rail"},
        {"seed": -1},
        {"size_bytes": 0},
        {"unknown": 1},
    ):
        with pytest.raises(ValidationError):
            job_enqueue(owner=user, kind="simulate", design_revision=revision, parameters=bad)


def test_monte_carlo_runs_every_seed_and_aggregates(user, revision, sent, monkeypatch):
    sends = []
    monkeypatch.setattr(monte_carlo, "send_seeds", lambda *args: sends.append(args))
    job = _run(user, revision, traffic="permutation", routing="ecmp", seeds=3, seed=5)
    assert sends and sends[0][2] == [6, 7]  # the group of the extra seeds was sent
    mc = job.result["monte_carlo"]
    assert mc["seeds"] == 3 and [run["seed"] for run in mc["runs"]] == [5, 6, 7]
    times = [run["completion_time_s"] for run in mc["runs"]]
    assert mc["completion_time_s"]["max"] == max(times)
    assert mc["completion_time_s"]["p50"] == sorted(times)[1]
    assert job.result["link_utilization"]
    assert "seeds" in job.outcome


def test_monte_carlo_summary_percentiles():
    runs = [
        {"seed": s, "completion_time_s": t, "busbw_gbps": 400 / t, "max_link_utilization": 1}
        for s, t in enumerate([4.0, 1.0, 3.0, 2.0, 5.0])
    ]
    summary = monte_carlo_summary(runs)
    assert summary["seeds"] == 5
    assert summary["completion_time_s"]["p50"] == 3.0
    assert summary["completion_time_s"]["p90"] == pytest.approx(4.6)
    assert summary["completion_time_s"]["max"] == 5.0
    assert summary["busbw_gbps"]["max"] == 400.0
    assert [run["seed"] for run in summary["runs"]] == [0, 1, 2, 3, 4]


def test_a_seed_is_claimed_once(user, revision, sent):
    job = job_enqueue(
        owner=user,
        kind="simulate",
        design_revision=revision,
        parameters={"routing": "ecmp", "seeds": 2},
    )
    assert not monte_carlo.claim_seed(job.pk, 1, 1, "x")  # not running: nothing to claim
    claim(job.pk, "w1")
    assert monte_carlo.claim_seed(job.pk, 1, 1, "a")
    assert not monte_carlo.claim_seed(job.pk, 1, 1, "b")
    assert monte_carlo.claim_seed(job.pk, 1, 1, "b", steal_after=0)
    assert monte_carlo.simulate_seed_run(job_id=job.pk, attempt=1, seed=2, worker="c")
    assert not monte_carlo.simulate_seed_run(job_id=job.pk, attempt=1, seed=2, worker="d")
    assert "2" in monte_carlo.seed_state(job.pk)["done"]


def test_a_seed_whose_process_died_is_run_again_at_once(user, revision, sent):
    import socket
    import subprocess

    job = job_enqueue(
        owner=user,
        kind="simulate",
        design_revision=revision,
        parameters={"routing": "ecmp", "seeds": 3},
    )
    claim(job.pk, "w1")
    me = process_identity()
    assert monte_carlo.claim_seed(job.pk, 1, 1, f"w2 [{me}]")  # alive (this process): kept
    assert not monte_carlo.simulate_seed_run(job_id=job.pk, attempt=1, seed=1, worker="w3")
    gone = subprocess.Popen(["true"])
    gone.wait()
    host = socket.gethostname()
    assert monte_carlo.claim_seed(job.pk, 1, 2, f"w2 [pid {gone.pid} on {host}, t1]")
    assert monte_carlo.simulate_seed_run(
        job_id=job.pk, attempt=1, seed=2, worker="w3", process=me
    )  # the redelivered subtask: its first claimant died
    state = monte_carlo.seed_state(job.pk)
    assert "2" in state["done"] and state["claimed"]["2"]["by"] == f"w3 [{me}]"


def test_the_design_page_starts_a_simulation_and_the_job_page_shows_it(
    logged_in_client, user, revision, sent
):
    from django.urls import reverse

    from simulation.models import Job

    page = logged_in_client.get(reverse("planner:design-detail", args=[revision.design_id]))
    assert b'data-testid="simulate-form"' in page.content
    response = logged_in_client.post(
        reverse("simulation:job-start", args=[revision.design_id]),
        {"kind": "simulate", "traffic": "all-to-all", "routing": "adaptive", "seed": "1",
         "size_bytes": "1e8", "fail_links": "2", "seeds": "1"},
    )  # fmt: skip
    job = Job.objects.get(kind="simulate")
    assert response.status_code == 302 and str(job.pk) in response["Location"]
    assert job.parameters["fail_links"] == 2 and job.parameters["size_bytes"] == 1e8
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert job.result["failed_links"] == 2
    html = logged_in_client.get(reverse("simulation:job-detail", args=[job.pk])).content.decode()
    for testid in ("simulation-result", "utilization-histogram", "fct-cdf", "simulation-tiers",
                   "simulation-hot-spots"):  # fmt: skip
        assert f'data-testid="{testid}"' in html
    assert "<polyline" in html and "<rect" in html
    assert reverse("planner:design-canvas", args=[revision.design_id]) in html


def test_a_job_without_routing_follows_the_design_transport(logged_in_client, user, revision, sent):
    """The form's default routing is the design's (its transport settings, read from the head of
    the stored fabric without loading the rest); the job page names the mode and shows where a
    pause would spread."""
    from django.urls import reverse

    from planner.analyses.flow import ROUTING_LABELS
    from planner.analyses.scenario import transport_defaults
    from planner.designs.adapters import fabric_info
    from planner.designs.models import DesignRevision
    from planner.designs.selectors import revision_fabric_info
    from simulation.models import Job

    info = fabric_info(revision.topology)
    deferred = DesignRevision.objects.defer("topology").get(pk=revision.pk)
    assert revision_fabric_info(deferred) == info and "topology" in deferred.get_deferred_fields()
    expected = transport_defaults(info).routing
    page = logged_in_client.get(reverse("planner:design-detail", args=[revision.design_id]))
    assert f"Design's: {ROUTING_LABELS[expected]}</option>" in page.content.decode()
    logged_in_client.post(
        reverse("simulation:job-start", args=[revision.design_id]),
        {"kind": "simulate", "traffic": "incast", "routing": "", "size_bytes": "1e6"},
    )
    job = Job.objects.get(kind="simulate")
    assert job.parameters["routing"] == expected
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert job.result["congestion"]["hot_port_count"] >= 1
    html = logged_in_client.get(reverse("simulation:job-detail", args=[job.pk])).content.decode()
    assert ROUTING_LABELS[expected] in html
    assert 'data-testid="simulation-congestion"' in html and "link:" not in html


def test_the_job_page_says_why_a_run_is_below_the_bound(logged_in_client, user, seed_catalog, sent):
    """GB300 NVL72 XDR: ECMP's hash collisions hold the ring below 800 Gb/s and the job page
    names the shared link, the flows on it and the routings that split flows; static routing
    (d-mod-k) reaches the bound and the page says nothing of the kind."""
    from django.urls import reverse

    spec = load_spec_text((EXAMPLES_DIR / "gb300-nvl72-xdr.yaml").read_text(), name="gb300")
    revision = design_create(owner=user, spec_document=spec).revisions.get()
    ecmp = _run(user, revision, traffic="all-reduce", routing="ecmp", seed=0, size_bytes=1e9)
    limit = ecmp.result["limit"]
    assert limit["flows"] > 1
    assert ecmp.result["busbw_gbps"] == pytest.approx(800 / limit["flows"], rel=1e-6)
    html = logged_in_client.get(reverse("simulation:job-detail", args=[ecmp.pk])).content.decode()
    assert 'data-testid="simulation-limit"' in html
    assert f"{limit['flows']:.0f} flows share its 800 Gb/s" in html
    assert "InfiniBand adaptive routing" in html
    rail = _run(user, revision, traffic="all-reduce", routing="rail", size_bytes=1e9)
    assert rail.result["busbw_gbps"] == pytest.approx(800, rel=1e-6)
    html = logged_in_client.get(reverse("simulation:job-detail", args=[rail.pk])).content.decode()
    assert 'data-testid="simulation-limit"' not in html
