"""Monte Carlo coordination of a ``simulate`` job (ecmp, ``seeds`` > 1).

No result backend is used (STYLE.md §2.6), so no chord callback: the job's runner sends a
Celery group of ``simulation.simulate_seed`` subtasks (one per extra hash seed) and collects
their summaries from the job row itself (``result["monte_carlo"]`` while the job runs:
``claimed`` and ``done`` by seed). Every seed is claimed under a row lock by whoever reaches it
first, the runner included, so the job finishes even with one worker process (the runner then
computes the seeds itself), and a seed whose subtask was lost (claimed, not done for
``JOBS_HEARTBEAT_TIMEOUT_S``) is run by the runner; one whose subtask's pool process died is
run at once by the redelivered subtask.

The job's result is the first seed's full result plus ``monte_carlo`` = p50/p90/max of
completion time and busbw over all seeds (``engine.scenario.monte_carlo_summary``).
"""

from __future__ import annotations

from planner.analyses.reports import Progress, fabric_simulate, scenario_of
from planner.designs.adapters import fabric_unpack
from simulation.jobs.dispatch import send_seeds
from simulation.jobs.fanout import claim_part, collect_parts, part_done, parts_state
from simulation.models import Job

#: The section of the running job's result that holds the seeds' claims and summaries.
SECTION = "monte_carlo"


def claim_seed(job_id, attempt: int, seed: int, owner: str, *, steal_after: float | None = None):
    """Claim ``seed`` of the running job for ``owner``; False if taken (or the job is not
    running this attempt). With ``steal_after``, also take a seed claimed that long ago and
    still not done. A seed whose claiming process is gone (see
    :func:`~simulation.jobs.heartbeat.process_identity`) is free at once, so a seed subtask
    redelivered after its pool process died runs it again."""
    return claim_part(job_id, attempt, SECTION, seed, owner, steal_after=steal_after)


def seed_done(job_id, attempt: int, seed: int, summary: dict) -> None:
    """Record the summary of ``seed`` on the running job (nothing if the attempt is over)."""
    part_done(job_id, attempt, SECTION, seed, summary)


def seed_state(job_id) -> dict:
    """``{"claimed": {seed: {"by", "at"}}, "done": {seed: summary}}`` of the job's seeds."""
    return parts_state(job_id, SECTION)


def _simulate_seed(fabric, parameters: dict, seed: int) -> dict:
    return fabric_simulate(
        fabric=fabric, summary_only=True, hash_seed=seed, **scenario_of(parameters)
    )


def simulate_seed_run(
    *, job_id, attempt: int, seed: int, worker: str = "", process: str = ""
) -> bool:
    """Run one Monte Carlo seed of a running simulate job, unless someone took it already.

    The service of the ``simulation.simulate_seed`` subtask; ``process``
    (:func:`~simulation.jobs.heartbeat.process_identity`) is recorded with the claim. Returns
    whether it ran.
    """
    owner = worker or "subtask"
    if not claim_seed(job_id, attempt, seed, f"{owner} [{process}]" if process else owner):
        return False
    job = Job.objects.select_related("design_revision").get(pk=job_id)
    fabric = fabric_unpack(job.design_revision.topology)
    seed_done(job_id, attempt, seed, _simulate_seed(fabric, job.parameters, seed))
    return True


def simulate_monte_carlo(job: Job, on_progress: Progress) -> dict:
    """The ``simulate`` runner for ``seeds`` > 1: the first seed's full result here, the other
    seeds by whoever claims them first, then their summary under ``result["monte_carlo"]``.

    On a worker (``on_progress`` carries the ``attempt``) the extra seeds go out as subtasks;
    called directly, this process runs them all.
    """
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.scenario import monte_carlo_summary

    params = job.parameters
    seeds = int(params.get("seeds") or 1)
    base = int(params.get("seed") or 0)
    extra = [base + k for k in range(1, seeds)]
    attempt = getattr(on_progress, "attempt", None)
    if attempt is not None:
        Job.objects.filter(pk=job.pk).update(result=None)
        send_seeds(job.pk, attempt, extra)
    on_progress(0, 1, "loading the fabric")
    fabric = fabric_unpack(job.design_revision.topology)

    def first_seed(done, total, message="", **_ignored):
        # The bar counts seeds: the first seed's own steps are "0 of N seeds done".
        step = f": {message}" if message else ""
        on_progress(0, seeds, f"Monte Carlo: 0 of {seeds} seeds done (seed {base}{step})")

    result = fabric_simulate(fabric=fabric, on_progress=first_seed, **scenario_of(params))
    runs = {base: {k: result[k] for k in result if not isinstance(result[k], dict | list)}}
    if attempt is None:  # not on a worker (direct call): run the seeds here
        for s in extra:
            runs[s] = _simulate_seed(fabric, params, s)
    else:
        runs.update(_collect_seeds(job.pk, attempt, extra, fabric, params, on_progress))
    result["monte_carlo"] = monte_carlo_summary(list(runs.values()))
    return result


def _collect_seeds(job_id, attempt: int, extra: list[int], fabric, params, on_progress) -> dict:
    """Wait for the subtasks' seeds, running any unclaimed (or long-lost) seed here
    (:func:`~simulation.jobs.fanout.collect_parts`); returns the summaries by seed."""
    seeds = len(extra) + 1

    def report(done):
        count = len(done) + 1
        on_progress(count, seeds, f"Monte Carlo: {count} of {seeds} seeds done")

    done = collect_parts(
        job_id,
        attempt,
        SECTION,
        [str(s) for s in extra],
        lambda key: _simulate_seed(fabric, params, int(key)),
        report,
        owner=f"runner {job_id}",
    )
    return {int(k): v for k, v in done.items()}
