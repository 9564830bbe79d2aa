"""Issue 36 item 1: designs of the free leaf shapes are saved, then validated, budgeted and
simulated by the same jobs as every design (run in process, as the worker runs them)."""

from __future__ import annotations

import pytest

from planner.designs.services import design_create
from simulation.services import job_enqueue, job_execute

SHAPES = {
    "one-to-two": {
        "topology": "rail-optimized",
        "server": "DGX-H100",
        "servers": 8,
        "oversubscription": 0.5,
        "switches": {"leaf": "QM9700"},
    },
    "mlag-pair": {
        "topology": "clos",
        "server": "DGX-H100",
        "servers": 12,
        "tiers": 1,
        "switches": {"leaf": "QM9700"},
    },
}


@pytest.fixture
def sent(monkeypatch):
    from simulation.tasks import run_job

    monkeypatch.setattr(run_job, "apply_async", lambda *a, **k: None)


def _run(user, revision, kind, **parameters):
    job = job_enqueue(owner=user, kind=kind, design_revision=revision, parameters=parameters)
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return job.result


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_shape_validates_budgets_and_simulates(seed_catalog, user, sent, shape):
    design = design_create(owner=user, spec_document={"name": shape, **SHAPES[shape]})
    revision = design.revisions.get(number=1)
    assert revision.summary["oversubscription_text"]["leaf"] in (
        "1:2 down:up (0.5:1)",
        "— (no uplinks)",
    )
    report = _run(user, revision, "validate")
    assert not report["summary"]["counts_by_severity"].get("error"), report["problems"]
    power = _run(user, revision, "power")
    assert power["total_w"] > 0
    flow = _run(user, revision, "simulate", traffic="all-to-all", routing="spraying")
    assert flow["completion_time_s"] > 0
