"""``python manage.py fabric explore REQUIREMENTS``: an exploration on the command line.

The same plan, evaluation and front as the ``explore`` job (:mod:`simulation.jobs.explore`),
in this one process (no worker: for thousands of candidates, start the job, whose candidates
spread over every worker). The front (``--all``: every candidate) is printed as JSON or CSV
(:data:`simulation.explore.COLUMNS`). Candidates are costed with the budget's price book, or
the seed reseller book when the requirements name none (the command line reads any book).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from inventory.models import PriceBook
from planner.analyses.explore.requirements import RequirementsError, load_requirements_text
from simulation.explore import front_rows, rows_csv
from simulation.jobs.explore import budget_of, explore_plan, progress_text
from simulation.jobs.parameters import requirement_problems


class ExploreCommandError(Exception):
    """The requirements cannot be read or explored; the message lists why, by field."""


def _refusal(path: Path, what: str, problems) -> ExploreCommandError:
    lines = "\n".join(f"  {line}" for line in requirement_problems(problems))
    return ExploreCommandError(f"{path}: {what}:\n{lines}")


def explore_file(path: Path, *, on_progress: Callable[[str], None] | None = None) -> dict:
    """The exploration of the requirements in ``path`` (the job's result)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ExploreCommandError(f"cannot read {path}: {exc}") from exc
    try:
        document = load_requirements_text(text)
    except RequirementsError as exc:
        raise _refusal(path, "not a requirements document", exc.problems) from exc
    if not isinstance(document, dict):
        raise ExploreCommandError(f"{path}: the requirements are a mapping (gpus, servers, ...)")
    slug = budget_of(document).get("price_book")
    if slug and not PriceBook.objects.filter(slug=slug).exists():
        raise ExploreCommandError(
            f"{path}: limits.budget.price_book: no price book “{slug}” in the catalog"
        )
    try:
        plan = explore_plan(document)
    except RequirementsError as exc:
        raise _refusal(path, "the requirements cannot be explored", exc.problems) from exc
    total = len(plan.enumeration.candidates)
    done: dict[str, dict] = {}
    for index in range(total):
        done[str(index)] = plan.evaluate(index)
        if on_progress is not None:
            on_progress(progress_text(done, total))
    return plan.result(done)


def front_text(result: dict, fmt: str, *, every: bool = False) -> str:
    """The front (every candidate with ``every``) as ``json`` or ``csv`` text."""
    rows = front_rows(result, every=every)
    if fmt == "csv":
        return rows_csv(rows)
    body = {
        "name": (result.get("requirements") or {}).get("name"),
        "objectives": result.get("objectives"),
        "counts": result.get("counts"),
        "front" if not every else "candidates": rows,
    }
    return json.dumps(body, indent=2) + "\n"
