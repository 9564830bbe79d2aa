"""Issue 15 items 6 and 7: job results read in device and port names, labelled parameters,
counts by severity, honest Monte Carlo progress, and overlays of an older revision."""

from __future__ import annotations

import re

import pytest
from django.template import Context, Template

from planner import presentation as planner_presentation
from planner.designs.adapters import fabric_unpack
from planner.designs.services import design_create, design_revise
from planner.domain.names import link_name
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from simulation import presentation
from simulation.services import job_enqueue, job_execute

ONE_SU = load_spec_text((EXAMPLES_DIR / "h100-superpod-1su.yaml").read_text(), name="1su")
RAW_LINK = re.compile(r"link:\d+")


@pytest.fixture
def sent(monkeypatch):
    from simulation.tasks import run_job

    monkeypatch.setattr(run_job, "apply_async", lambda *a, **k: None)
    from simulation.jobs import monte_carlo

    monkeypatch.setattr(monte_carlo, "send_seeds", lambda *a: None)


@pytest.fixture
def revision(seed_catalog, user):
    return design_create(owner=user, spec_document=ONE_SU).revisions.get()


def _run(user, revision, kind, **parameters):
    job = job_enqueue(owner=user, kind=kind, design_revision=revision, parameters=parameters)
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return job


# --- one formatter per kind ---------------------------------------------------------------------


def test_number_filters_write_separators_units_and_counts():
    text = Template(
        "{% load units %}{{ gpus|count:'GPU' }} | {{ price|money:'USD' }} | {{ heat|unit:'BTU/h' }}"
        " | {{ big|thousands }} | {{ none|money }}"
    ).render(Context({"gpus": 1016, "price": 32870, "heat": 4620858, "big": 1234567, "none": None}))
    assert text == "1,016 GPUs | 32,870.00 USD | 4,620,858 BTU/h | 1,234,567 | —"


def test_problem_counts_are_by_severity():
    problems = [{"severity": "warning"}] + [{"severity": "info"}] * 3
    from simulation.jobs.kinds import _outcome_validate

    assert _outcome_validate({"problems": problems}) == "1 warning, 3 notes"
    report = presentation.validation_context({"problems": problems})
    assert report["counts_text"] == "1 warning, 3 notes"


def test_diff_rows_use_labels_units_and_say_removed():
    rows = planner_presentation.diff_rows(
        {
            "bisection_gbps": {"old": 409600, "new": 204800, "delta": -204800},
            "oversubscription.leaf": {"old": 1, "new": None, "delta": -1},
            "links.leaf-spine": {"old": None, "new": 256, "delta": 256},
        }
    )
    assert rows == [
        ("Bisection bandwidth", "409,600 Gb/s", "204,800 Gb/s", "-204,800 Gb/s"),
        ("Leaf oversubscription", "1:1", "removed", ""),
        ("Links Leaf – spine", "not set", "256", ""),
    ]


# --- names, not ids ----------------------------------------------------------------------------


def test_problem_elements_read_as_device_ports(revision):
    fabric = fabric_unpack(revision.topology)
    ids = [f"link:{i}" for i in range(40)] + ["node:" + fabric.node_name[0]]
    report = presentation.validation_context(
        {"problems": [{"severity": "error", "code": "x", "message": "m", "element_ids": ids}]},
        presentation.ElementNames(fabric),
    )
    problem = report["groups"][0]["problems"][0]
    first = problem["elements"][0]
    a, b = int(fabric.link_a[0]), int(fabric.link_b[0])
    # named as every output names the link (planner.domain.names): cage/lane ports
    assert first == link_name(fabric, 0)
    assert re.fullmatch(rf"{fabric.node_name[a]} \d+/\d+ → {fabric.node_name[b]} \d+/\d+", first)
    assert not any(RAW_LINK.search(e) for e in problem["elements"])
    assert problem["more_elements"] == "+10 links, 1 device more"


def test_simulation_page_names_hot_spots_and_lists_parameters(
    user, revision, sent, logged_in_client
):
    job = _run(user, revision, "simulate", traffic="permutation", routing="ecmp", seed=3)
    page = logged_in_client.get(f"/jobs/{job.pk}/").content.decode()
    hot = page[page.index('data-testid="simulation-hot-spots"') :]
    hot = hot[: hot.index("</table>")]
    assert re.search(r"\S+ \d+/\d+ → \S+ \d+/\d+", hot) and (", up" in hot or ", down" in hot)
    assert not RAW_LINK.search(hot)
    params = page[page.index('data-testid="job-parameters"') :]
    params = params[: params.index("</dl>")]
    assert "<dt>Traffic</dt><dd>permutation</dd>" in params
    assert "<dt>Seed</dt><dd>3</dd>" in params
    assert "{" not in page[page.index("job-attempts") : page.index("job-parameters")]
    assert "Attempts 0" not in page and "Ran once" in page
    assert "248 GPUs" in page  # ranks, as a count
    assert 'data-testid="fct-y-axis"' in page and "Flows finished" in page


def test_power_page_names_its_racks(user, revision, sent, logged_in_client):
    job = _run(user, revision, "power")
    page = logged_in_client.get(f"/jobs/{job.pk}/").content.decode()
    names = page[page.index('data-testid="rack-names"') :]
    names = names[: names.index("</div>")]
    for rack in job.result["racks"]:
        assert f">{rack['rack']}</span>" in names


# --- Monte Carlo progress -----------------------------------------------------------------------


def test_monte_carlo_progress_counts_seeds(user, revision, sent, monkeypatch):
    writes = []
    from simulation.jobs.lifecycle import ProgressWriter

    original = ProgressWriter.__call__

    def record(self, done, total, message="", **kw):
        writes.append((done, total, message))
        return original(self, done, total, message, **kw)

    monkeypatch.setattr(ProgressWriter, "__call__", record)
    from simulation.jobs import monte_carlo

    # the runner takes each seed
    monkeypatch.setattr(monte_carlo, "claim_seed", lambda *a, **k: True)
    job = _run(user, revision, "simulate", traffic="permutation", routing="ecmp", seeds=3)
    seed_steps = [w for w in writes if w[1] == 3]
    assert seed_steps, writes
    # Until the last seed is done the bar is never full, and the words count seeds.
    assert all(done < total for done, total, _ in writes[:-1]), writes
    assert all(re.search(r"\d of 3 seeds done", m) for _, _, m in seed_steps)
    assert seed_steps[-1][:2] == (3, 3)
    assert job.progress_done == job.progress_total == 3


def test_attempts_read_in_words(user, revision, sent):
    job = job_enqueue(owner=user, kind="validate", design_revision=revision, parameters={})
    assert presentation.attempts_text(job, 3) == "Waiting for a worker"
    job.attempts, job.status = 2, "running"
    assert presentation.attempts_text(job, 3).startswith("Run 2 of at most 3")


# --- overlays of an older revision -------------------------------------------------------------


def test_overlays_offer_and_map_an_older_revisions_simulation(user, revision, sent, api_client):
    _run(user, revision, "simulate", traffic="permutation", routing="ecmp")
    design = revision.design
    spec = {**revision.spec, "servers": 30}
    design_revise(design=design, user=user, spec_document=spec, base_revision=1)
    url = f"/api/planner/designs/{design.pk}/revisions/2/overlays/"
    mine = api_client.get(url).json()
    assert mine["links"] == {} and mine["jobs"] == []
    assert mine["older"] == {"util": 1}
    older = api_client.get(url, {"from": 1}).json()
    assert older["source_revision"] == 1 and older["revision"] == 2
    assert older["links"] and older["unmatched_links"] >= 0

    # A mapped link joins the same device ports in revision 2 as in revision 1.
    def ends(fabric, i):
        return tuple(
            sorted(
                [
                    (fabric.node_name[int(fabric.link_a[i])], int(fabric.link_a_port[i])),
                    (fabric.node_name[int(fabric.link_b[i])], int(fabric.link_b_port[i])),
                ]
            )
        )

    one = fabric_unpack(revision.topology)
    two = fabric_unpack(design.revisions.get(number=2).topology)
    where = {ends(two, i): i for i in range(len(two.link_a))}
    own = api_client.get(f"/api/planner/designs/{design.pk}/revisions/1/overlays/").json()
    matched = 0
    for key, value in own["links"].items():
        j = where.get(ends(one, int(key.split(":")[1])))
        if j is not None:
            assert older["links"][f"link:{j}"] == value
            matched += 1
    assert matched == len(older["links"]) > 0
    assert matched + older["unmatched_links"] == len(own["links"])
    assert api_client.get(url, {"from": "x"}).status_code == 400
    assert api_client.get(url, {"from": 9}).status_code == 404
