"""The jobs services that views, the API, the CLI and tasks call (keyword-only).

A thin facade: each concern lives in its own module of :mod:`simulation.jobs` (lifecycle,
kinds, Monte Carlo, sweeps, heartbeat, recovery; see its docstring for the map). Nothing here,
nor in :mod:`simulation.jobs`, imports :mod:`simulation.tasks`: tasks import these services and
services send tasks by name (:mod:`simulation.jobs.dispatch`).
"""

from planner.analyses.reports import fabric_power, fabric_simulate, fabric_validate
from simulation.jobs.config import max_attempts, recovery_interval_s
from simulation.jobs.errors import JobError, JobLimitError
from simulation.jobs.explore import explore_candidate_run
from simulation.jobs.heartbeat import process_identity
from simulation.jobs.lifecycle import job_cancel, job_enqueue, job_execute
from simulation.jobs.monte_carlo import simulate_seed_run
from simulation.jobs.recovery import (
    job_recover_stale,
    job_resend_lost,
    job_sweep_claim,
    new_sweep_token,
)
from simulation.jobs.sweep import sweep_run_part

__all__ = [
    "JobError",
    "JobLimitError",
    "fabric_power",
    "fabric_simulate",
    "fabric_validate",
    "explore_candidate_run",
    "job_cancel",
    "job_enqueue",
    "job_execute",
    "job_recover_stale",
    "job_resend_lost",
    "job_sweep_claim",
    "max_attempts",
    "new_sweep_token",
    "process_identity",
    "recovery_interval_s",
    "simulate_seed_run",
    "sweep_run_part",
]
