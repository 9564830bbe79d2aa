"""The ``sweep`` job: parameters checked naming the field, every run claimed once on the job
row, the result by point, and runs an earlier attempt finished kept by the next."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from planner.designs.services import design_create
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation.jobs import sweep
from simulation.jobs.fanout import parts_state
from simulation.jobs.lifecycle import claim
from simulation.models import Job
from simulation.services import job_enqueue, job_execute

ONE_SU = load_spec_text((EXAMPLES_DIR / "h100-superpod-1su.yaml").read_text(), name="1su")
SMALL = {
    "traffic": "permutation",
    "routing": ["ecmp", "spraying"],
    "fail_links": [0, 4],
    "seeds": 2,
    "size_bytes": 1e7,
}


@pytest.fixture
def sent(monkeypatch):
    """Job tasks and sweep subtasks are recorded instead of sent."""
    from simulation.tasks import run_job

    calls = {"jobs": [], "runs": []}
    monkeypatch.setattr(run_job, "apply_async", lambda *a, **k: calls["jobs"].append((a, k)))
    monkeypatch.setattr(sweep, "send_sweep_runs", lambda *args: calls["runs"].append(args))
    return calls


@pytest.fixture
def revision(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU).revisions.get()


def _enqueue(user, revision, **parameters):
    return job_enqueue(owner=user, kind="sweep", design_revision=revision, parameters=parameters)


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"routing": ["ecmp", "warp"]}, "routing: each one of"),
        ({"fail_links": [0, -1]}, "fail_links: whole numbers from 0 to 10,000 (got -1)"),
        ({"fail_links": 2.5}, "fail_links: whole numbers"),
        ({"fail_links": [float("inf")]}, "fail_links: whole numbers"),
        ({"fail_links": {"to": 4}}, "fail_links: whole numbers"),
        ({"routing": [{"mode": "ecmp"}]}, "routing: each one of"),
        ({"size_bytes": float("nan")}, "size_bytes: numbers from 1"),
        ({"seeds": -2}, "seeds: a number from 1 to 100"),
        ({"size_bytes": []}, "size_bytes: give at least one value"),
        ({"placement": ["scattered"]}, "placement: each one of contiguous, fragmented"),
        ({"traffic": "storage-read"}, "traffic: one of"),
        ({"fail_links": list(range(51)), "routing": ["ecmp", "rail"]}, "fail_links × routing: "),
        ({"fail_links": list(range(20)), "seeds": 60}, "seeds: 20 points × 60 seeds = 1,200"),
        ({"flowlets": 4, "routing": "ecmp"}, "flowlets: only for flowlet routing"),
        ({"colour": "red"}, "unknown parameter(s) colour"),
        ({"fail_links": [0, 9999]}, "fail_links: at most 256, the switch-to-switch links"),
    ],
)
def test_parameters_are_checked_naming_the_field(user, revision, sent, parameters, message):
    with pytest.raises(ValidationError) as caught:
        _enqueue(user, revision, **parameters)
    text = caught.value.message_dict["parameters"][0]
    assert message in text, text
    assert not Job.objects.exists()


def test_parameters_are_normalized(user, revision, sent):
    job = _enqueue(
        user,
        revision,
        fail_links=[8, 0, 4, 4],
        routing=["spraying", "adaptive", "ecmp"],  # adaptive is spraying's old name
        placement="fragmented",
        size_bytes=[1e9, 1e6],
    )
    assert job.parameters["fail_links"] == [0, 4, 8]
    assert job.parameters["routing"] == ["ecmp", "spraying"]  # the modes' own order
    assert job.parameters["placement"] == ["fragmented"]
    assert job.parameters["size_bytes"] == [1e6, 1e9]
    assert job.parameters["seeds"] == 1 and job.parameters["traffic"] == "all-reduce"
    plain = _enqueue(user, revision, fail_links=[0, 2])
    assert plain.parameters["routing"] == ["ib-ar"]  # the design's: InfiniBand with AR


def test_a_sweep_runs_every_point_and_aggregates_by_point(user, revision, sent):
    job = _enqueue(user, revision, **SMALL)
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert sent["runs"] and sent["runs"][0][2] == list(range(8))  # one subtask per run
    result = job.result
    assert "sweep" not in result  # the claims are gone; the points stay
    assert (result["points_total"], result["runs_total"], result["points_done"]) == (4, 8, 4)
    assert result["varying"] == ["fail_links", "routing"]
    by_point = {(p["fail_links"], p["routing"]): p for p in result["points"]}
    assert set(by_point) == {(0, "ecmp"), (0, "spraying"), (4, "ecmp"), (4, "spraying")}
    for point in result["points"]:
        busbw = point["busbw_gbps"]
        assert 0 < busbw["min"] <= busbw["p50"] <= busbw["p90"] <= busbw["max"]
        assert [run["seed"] for run in point["runs"]] == [0, 1]
        assert point["bound_busbw_gbps"] == pytest.approx(400)
    assert by_point[(4, "ecmp")]["failed_links"] == 4
    # spraying levels the load: a permutation reaches line rate, per-flow ECMP hashing does not
    p50 = {key: point["busbw_gbps"]["p50"] for key, point in by_point.items()}
    assert p50[(0, "spraying")] > p50[(0, "ecmp")]
    assert (job.progress_done, job.progress_total) == (8, 8)
    assert job.outcome.startswith("4 points × 2 seeds over failed links × routing: busbw p50 ")


def test_each_run_is_claimed_once_and_only_by_the_running_attempt(user, revision, sent):
    job = _enqueue(user, revision, **SMALL)
    assert not sweep.sweep_run_part(job_id=job.pk, attempt=1, run=3, worker="w2")  # queued
    claim(job.pk, "w1")
    assert sweep.sweep_run_part(job_id=job.pk, attempt=1, run=3, worker="w2")
    assert not sweep.sweep_run_part(job_id=job.pk, attempt=1, run=3, worker="w3")  # done
    assert not sweep.sweep_run_part(job_id=job.pk, attempt=2, run=4, worker="w3")  # old attempt
    state = parts_state(job.pk, "sweep")
    assert set(state["done"]) == {"3"} and state["done"]["3"]["seed"] == 1
    assert state["done"]["3"]["failed_links"] == 0 and state["claimed"]["3"]["by"] == "w2"


def test_a_new_attempt_keeps_the_runs_an_earlier_attempt_finished(user, revision, sent):
    job = _enqueue(user, revision, **SMALL)
    claim(job.pk, "w1")
    assert sweep.sweep_run_part(job_id=job.pk, attempt=1, run=0, worker="w2")
    kept = parts_state(job.pk, "sweep")["done"]["0"]
    Job.objects.filter(pk=job.pk).update(status="queued")  # the worker was lost: queued again
    job_execute(job_id=job.pk, worker="w3")
    job.refresh_from_db()
    assert job.status == "succeeded" and job.attempts == 2, job.error
    assert sent["runs"][-1][2] == list(range(1, 8))  # run 0 was not sent again
    assert job.result["points"][0]["runs"][0]["busbw_gbps"] == kept["busbw_gbps"]


def test_the_design_page_starts_a_sweep_and_the_pages_draw_it_as_points_complete(
    logged_in_client, user, revision, sent
):
    from django.urls import reverse

    design_url = reverse("planner:design-detail", args=[revision.design_id])
    assert b'data-testid="sweep-form"' in logged_in_client.get(design_url).content
    response = logged_in_client.post(
        reverse("simulation:job-start", args=[revision.design_id]),
        {"kind": "sweep", "traffic": "permutation", "fail_to": "4", "fail_step": "2",
         "routing": ["ecmp", "spraying"], "placement": ["contiguous"], "sizes": "1e7",
         "seeds": "2", "seed": "0"},
    )  # fmt: skip
    job = Job.objects.get(kind="sweep")
    assert response.status_code == 302 and str(job.pk) in response["Location"]
    assert job.parameters["fail_links"] == [0, 2, 4]
    assert job.parameters["routing"] == ["ecmp", "spraying"]
    assert job.parameters["size_bytes"] == [1e7] and job.parameters["seeds"] == 2
    page_url = reverse("simulation:job-detail", args=[job.pk])
    chart_url = reverse("simulation:job-sweep-chart", args=[job.pk])
    html = logged_in_client.get(page_url).content.decode()
    assert "data-sweep-chart" in html and chart_url in html
    assert 'data-testid="sweep-waiting"' in html and "0 of 6 points done" in html

    claim(job.pk, "w1")  # a worker runs it; two subtasks finish the first point
    for run in (0, 1):
        assert sweep.sweep_run_part(job_id=job.pk, attempt=1, run=run, worker="w2")
    partial = logged_in_client.get(chart_url).content.decode()
    assert "1 of 6 points done (2 of 12 runs)" in partial
    assert partial.count("<circle") == 2  # p50 and p90 of the one point done
    assert "<html" not in partial  # the fragment alone, for the page to swap in

    Job.objects.filter(pk=job.pk).update(status="queued")
    job_execute(job_id=job.pk, worker="w1")
    html = logged_in_client.get(page_url).content.decode()
    assert "6 of 6 points done (12 of 12 runs)" in html
    assert html.count('data-testid="sweep-series"') == 2  # ecmp and spraying
    assert html.count("<polyline") == 4  # p50 and p90 of each
    assert 'data-testid="sweep-legend"' in html and "Failed links" in html
    assert "non-blocking bound 400.0 Gb/s" in html
    assert 'data-testid="sweep-points"' in html and "Gb/s" in html
    design_page = logged_in_client.get(design_url).content.decode()
    assert 'data-testid="design-sweep"' in design_page and chart_url in design_page
    other = job_enqueue(owner=user, kind="simulate", design_revision=revision, parameters={})
    not_sweep = reverse("simulation:job-sweep-chart", args=[other.pk])
    assert logged_in_client.get(not_sweep).status_code == 404


def test_a_bad_sweep_form_says_what_to_fix(logged_in_client, revision, sent):
    from django.urls import reverse

    response = logged_in_client.post(
        reverse("simulation:job-start", args=[revision.design_id]),
        {"kind": "sweep", "fail_to": "1000", "fail_step": "1"},
        follow=True,
    )
    assert "Failed links: 0 to 1,000 in steps of 1 is 1,001 values" in response.content.decode()
    response = logged_in_client.post(
        reverse("simulation:job-start", args=[revision.design_id]),
        {"kind": "sweep", "routing": ["warp"]},
        follow=True,
    )
    assert "Routing: each one of" in response.content.decode()
    assert not Job.objects.exists()
