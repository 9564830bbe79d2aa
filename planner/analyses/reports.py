"""The analyses a job kind runs, as one code path for jobs and ``manage.py fabric``.

Each wraps a pure engine function and returns its report as a dict (what a job stores).
"""

from __future__ import annotations

from collections.abc import Callable

from planner.analyses.power import power_budget
from planner.analyses.validate import validate_fabric

Progress = Callable[..., None]

#: The ``simulate`` parameters that describe one scenario (``seeds`` is Monte Carlo's).
SCENARIO_KEYS = (
    "traffic",
    "routing",
    "seed",
    "size_bytes",
    "fail_links",
    "placement",
    "flowlets",
    "pfc_mode",
    "opensm_engine",
)


def fabric_validate(*, fabric, facts, on_progress: Progress | None = None) -> dict:
    """Validate a fabric's links (``engine.validate.validate_fabric``); the report as a dict.

    The one code path of the ``validate`` job and ``manage.py fabric validate``.
    """
    return validate_fabric(fabric, facts, on_progress=on_progress).as_dict()


def fabric_power(*, fabric, facts, pue=None, on_progress: Progress | None = None) -> dict:
    """Power and thermal budget of a fabric (``engine.power.power_budget``) as a dict.

    The one code path of the ``power`` job and ``manage.py fabric power``.
    """
    return power_budget(fabric, facts, pue=pue, on_progress=on_progress).as_dict()


def fabric_simulate(
    *,
    fabric,
    on_progress: Progress | None = None,
    summary_only: bool = False,
    keep=None,
    facts=None,
    **scenario,
) -> dict:
    """Flow simulation of one scenario (``engine.scenario.run_scenario``) as a dict.

    The one code path of the ``simulate`` job (each Monte Carlo seed too) and
    ``manage.py fabric simulate``. ``facts`` (catalog facts) is needed by the traffics that
    run on the storage network (``storage-read``).
    """
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.scenario import run_scenario

    return run_scenario(
        fabric,
        on_progress=on_progress,
        summary_only=summary_only,
        keep=keep,
        facts=facts,
        **scenario,
    )


def scenario_of(parameters: dict) -> dict:
    """The scenario keys of a ``simulate`` job's parameters."""
    return {k: parameters[k] for k in SCENARIO_KEYS if k in parameters}
