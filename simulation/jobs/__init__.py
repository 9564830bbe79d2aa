"""Jobs: the :class:`~simulation.models.Job` row as the state of a background run.

One concern per module; imports run down this list, never up (and never into
``simulation.tasks``: tasks import these modules through :mod:`simulation.services`)::

    lifecycle.py    submit, claim and take over, progress, finish, fail, cancel
    kinds.py        what each kind accepts and runs: diagnostics, validate, power, simulate,
                    sweep
    monte_carlo.py  the seeds of a Monte Carlo simulate and their aggregation
    sweep.py        the runs of a parameter sweep and their aggregation by point
    fanout.py       parts of a job (seeds, sweep runs) claimed on its row by any worker
    recovery.py     stale-heartbeat sweep (requeue or fail) and the sweep lease
    heartbeat.py    signs of life: the heartbeat thread, which process runs an attempt
    dispatch.py     sending tasks by name (on commit), revoking them
    config.py       the JOBS_* settings
    errors.py       why a job cannot start, or stops

What each kind runs is :mod:`planner.analyses.reports` (one path for jobs and the CLI).
Views, the API, the CLI and tasks call the keyword-only functions of :mod:`simulation.services`.
"""
