"""The ``sweep`` job: a parameter sweep of the flow simulation spread over worker processes.

The points and runs are :class:`planner.analyses.sweep.SweepPlan`'s (failed links x message
size x placement x routing, ``seeds`` runs per point). The runner sends one
``simulation.sweep_run`` subtask per run (run numbers, never objects) and works through the
runs itself, last first, while the subtasks take them from the first: each run is claimed on
the job row by whoever reaches it first (:mod:`simulation.jobs.fanout`, as Monte Carlo seeds
are), so any number of worker processes, one included, share the work. While the job runs,
``result["sweep"]`` holds the runs' claims and summaries (the job page draws the points done
from it); at the end the result is :func:`planner.analyses.sweep.sweep_result` of the
summaries, read by run number, so it is the same whatever the number of workers and whoever
ran which run. A run depends on its number only, so a new attempt (a lost worker) keeps the
runs an earlier attempt finished.
"""

from __future__ import annotations

import logging

from planner.analyses.reports import Progress, fabric_simulate
from planner.analyses.sweep import SweepPlan, progress_text, run_summary, sweep_result
from planner.designs.adapters import fabric_unpack
from planner.designs.models import DesignRevision
from simulation.jobs.dispatch import send_sweep_runs
from simulation.jobs.fanout import claim_part, collect_parts, part_done, parts_restart
from simulation.models import Job

logger = logging.getLogger(__name__)

#: The section of the running job's result that holds the runs' claims and summaries.
SECTION = "sweep"
#: Fabrics kept unpacked in a worker process, by revision (a worker runs many runs of one).
_FABRICS: dict[tuple, object] = {}
_FABRICS_KEPT = 2


def revision_fabric(revision_id):
    """The fabric of a design revision, unpacked once per process (revisions never change)."""
    created = DesignRevision.objects.filter(pk=revision_id).values_list("created", flat=True)[0]
    key = (revision_id, created)
    if key not in _FABRICS:
        topology = DesignRevision.objects.filter(pk=revision_id).values_list("topology", flat=True)[
            0
        ]
        while len(_FABRICS) >= _FABRICS_KEPT:
            _FABRICS.pop(next(iter(_FABRICS)))
        _FABRICS[key] = fabric_unpack(topology)
    return _FABRICS[key]


def _run(fabric, plan: SweepPlan, run: int) -> dict:
    return run_summary(fabric_simulate(fabric=fabric, summary_only=True, **plan.run_scenario(run)))


def sweep_run_part(*, job_id, attempt: int, run: int, worker: str = "", process: str = "") -> bool:
    """Run one run of a running sweep job, unless someone took it already.

    The service of the ``simulation.sweep_run`` subtask; ``process``
    (:func:`~simulation.jobs.heartbeat.process_identity`) is recorded with the claim. Returns
    whether it ran.
    """
    owner = worker or "subtask"
    if not claim_part(job_id, attempt, SECTION, run, f"{owner} [{process}]" if process else owner):
        return False
    job = Job.objects.only("parameters", "design_revision_id").get(pk=job_id)
    plan = SweepPlan.from_parameters(job.parameters)
    summary = _run(revision_fabric(job.design_revision_id), plan, int(run))
    part_done(job_id, attempt, SECTION, run, summary)
    logger.info("sweep job %s: run %s done by %s [%s]", job_id, run, owner, process)
    return True


def run_sweep(job: Job, on_progress: Progress) -> dict:
    """The ``sweep`` runner: every run, by whoever claims it first, then the result by point.

    On a worker (``on_progress`` carries the ``attempt``) the runs go out as subtasks; called
    directly, this process runs them all.
    """
    plan = SweepPlan.from_parameters(job.parameters)
    attempt = getattr(on_progress, "attempt", None)
    on_progress(0, plan.run_count, "loading the fabric")
    fabric = revision_fabric(job.design_revision_id)
    if attempt is None:  # not on a worker (direct call): run them all here
        done = {}
        for run in range(plan.run_count):
            on_progress(len(done), plan.run_count, progress_text(plan, done))
            done[run] = _run(fabric, plan, run)
        return sweep_result(plan, done)
    state = parts_restart(job.pk, SECTION, keep_done=True)
    todo = [run for run in range(plan.run_count) if str(run) not in state["done"]]
    send_sweep_runs(job.pk, attempt, todo)

    def report(done):
        on_progress(len(done), plan.run_count, progress_text(plan, done))

    done = collect_parts(
        job.pk,
        attempt,
        SECTION,
        [str(run) for run in range(plan.run_count)][::-1],  # the subtasks start from the first
        lambda key: _run(fabric, plan, int(key)),
        report,
        owner=f"runner {job.pk}",
    )
    return sweep_result(plan, done)
