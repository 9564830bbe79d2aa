"""The ``explore`` job: the candidates of a requirements document evaluated over every worker.

The job has no design revision; its parameters are the canonical requirements document
(:func:`planner.analyses.explore.requirements.parse_requirements`, then ``as_document()``).
The runner enumerates the candidates (:func:`~planner.analyses.explore.candidates.
enumerate_candidates`, deterministic) and sends one ``simulation.explore_candidate`` subtask
per candidate (its index, never the candidate), then works through the candidates itself, last
first, while the subtasks take them from the first: each candidate is claimed on the job row by
whoever reaches it first (:mod:`simulation.jobs.fanout`, as sweep runs are), so any number of
worker processes, one included, share the work. Every process enumerates the job's candidates
once and keeps them (by job and catalog state), and reads the price book's offers once (by
book, its ``updated`` time and a digest of its offers).

While the job runs, ``result["explore"]`` holds the candidates' claims and evaluations; at the
end the result is :func:`~planner.analyses.explore.front.explore_result` of the evaluations
read by index, so it is the same whatever the number of workers and whoever evaluated which
candidate (except each evaluation's ``seconds``, its timing). An evaluation depends on its
index only, so a new attempt (a lost worker) keeps the candidates an earlier attempt finished.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError

from inventory.models import Price, PriceBook
from inventory.permissions import price_books_pickable_for, user_can_read_price_book
from inventory.services import SEED_PRICE_BOOK
from planner.analyses.errors import JobInputError
from planner.analyses.explore.candidates import enumerate_candidates
from planner.analyses.explore.front import explore_result
from planner.analyses.explore.requirements import RequirementsError, parse_requirements
from planner.analyses.reports import Progress
from planner.designs.adapters import catalog_facts, catalog_fingerprint, price_table
from planner.presentation import count
from simulation.jobs.dispatch import send_parts
from simulation.jobs.fanout import claim_part, collect_parts, part_done, parts_restart
from simulation.models import Job

logger = logging.getLogger(__name__)

#: The section of the running job's result that holds the candidates' claims and evaluations.
SECTION = "explore"
#: The subtask that evaluates one candidate (:mod:`simulation.tasks`).
EXPLORE_CANDIDATE = "simulation.explore_candidate"
#: Plans and price tables kept in a worker process (a worker evaluates many candidates of one).
_PLANS: dict[tuple, ExplorePlan] = {}
_PRICES: dict[tuple, Any] = {}
_KEPT = 2


def problem_lines(problems) -> list[str]:
    """The problems of a requirements document as ``"<field>: <why>"`` lines."""
    lines = []
    for problem in problems or []:
        if isinstance(problem, dict):
            field, message = problem.get("field") or "", problem.get("message") or ""
        else:
            field, message = "", str(problem)
        lines.append(f"{field}: {message}" if field else str(message))
    return lines or ["the requirements cannot be read"]


def budget_of(document: dict) -> dict:
    """The ``limits.budget`` mapping of a requirements document (empty when it has none)."""
    limits = document.get("limits") if isinstance(document, dict) else None
    budget = limits.get("budget") if isinstance(limits, dict) else None
    return budget if isinstance(budget, dict) else {}


def _keep(cache: dict, key, value):
    while len(cache) >= _KEPT:
        cache.pop(next(iter(cache)))
    cache[key] = value
    return value


def _book_key(slug: str | None) -> tuple | None:
    """What the offers of price book ``slug`` are now: its id, ``updated`` time and a digest
    of its offers (an offer changed in place does not touch the book); None without one."""
    book = (
        PriceBook.objects.filter(slug=slug).values_list("pk", "updated").first() if slug else None
    )
    if book is None:
        return None
    rows = Price.objects.filter(book_id=book[0]).order_by("pk")
    rows = rows.values_list("pk", "price", "currency", "length_m", "condition", "archived_at")
    return (*book, hashlib.sha256(repr(list(rows)).encode()).hexdigest())


def book_prices(slug: str | None) -> tuple:
    """``(key, price table, book currency, price_of)`` of the price book ``slug``, read once per
    process while the book and its offers are unchanged; ``(None, None, None, None)`` without
    a book (or when none has that slug: the parameters were checked when the job was made)."""
    key = _book_key(slug)
    if key is None:
        return None, None, None, None
    if key not in _PRICES:
        book = PriceBook.objects.get(pk=key[0])
        table = price_table(book)

        def price_of(part: str) -> float | None:
            offer = table.lowest(part, currency=book.currency, condition="new", seen_only=True)
            return None if offer is None else float(offer.amount)

        _keep(_PRICES, key, (key, table, book.currency, price_of))
    return _PRICES[key]


@dataclass(frozen=True)
class ExplorePlan:
    """A job's parsed requirements, its candidates and the prices they are costed with."""

    requirements: Any
    enumeration: Any
    facts: Any
    prices: Any
    currency: str
    price_of: Any

    def evaluate(self, index: int) -> dict:
        """The evaluation of candidate ``index``; an exception the evaluation lets out is
        reported as a crashed candidate (never dropped)."""
        # Lazy: it loads the flow simulation (numba, about 1 s); the pages need not.
        from planner.analyses.explore.evaluate import evaluate_candidate

        candidate = self.enumeration.candidates[index]
        try:
            return evaluate_candidate(
                candidate,
                self.requirements,
                self.facts,
                prices=self.prices,
                currency=self.currency,
                price_of=self.price_of,
            )
        except Exception as exc:  # noqa: BLE001 - a crashed candidate is reported, not lost
            logger.exception("explore candidate %s crashed", candidate.key)
            return {
                "index": candidate.index,
                "key": candidate.key,
                "label": candidate.label,
                "axes": candidate.axes,
                "status": "crashed",
                "reasons": [f"{type(exc).__name__}: {exc}"],
                "metrics": {},
                "limits": [],
                "seconds": 0.0,
            }

    def result(self, evaluations: dict) -> dict:
        """The job's result from the evaluations (by index, any order)."""
        return explore_result(
            self.requirements,
            self.enumeration,
            {int(index): evaluation for index, evaluation in evaluations.items()},
        )


def book_slug(document: dict, owner=None) -> str | None:
    """The price book a plan costs candidates with: the budget's, else the seed reseller book
    when ``owner`` may read its prices (``owner=None``: the command line, which may), else
    none (the candidates then have no cost)."""
    named = budget_of(document).get("price_book")
    if named:
        return named
    book = PriceBook.objects.filter(slug=SEED_PRICE_BOOK).first()
    if book is None or (owner is not None and not user_can_read_price_book(owner, book)):
        return None
    return book.slug


def explore_plan(document: dict, *, owner=None) -> ExplorePlan:
    """The plan of a requirements document, with the catalog and the price book
    (:func:`book_slug`) as they are now (raises ``RequirementsError`` when the catalog no
    longer allows it)."""
    facts = catalog_facts(for_new=True)
    _, prices, book_currency, price_of = book_prices(book_slug(document, owner))
    requirements = parse_requirements(document, facts)
    enumeration = enumerate_candidates(requirements, facts, price_of=price_of)
    currency = str(budget_of(document).get("currency") or book_currency or "USD")
    return ExplorePlan(requirements, enumeration, facts, prices, currency, price_of)


def job_plan(job: Job) -> ExplorePlan:
    """The plan of an explore job, made once per process (by job, catalog and prices)."""
    slug = book_slug(job.parameters, job.owner)
    key = (str(job.pk), catalog_fingerprint(), _book_key(slug))
    if key not in _PLANS:
        _keep(_PLANS, key, explore_plan(job.parameters, owner=job.owner))
    return _PLANS[key]


def progress_text(done: dict, total: int) -> str:
    """``"12 of 40 candidates: 8 feasible, 3 infeasible, 1 crashed"``."""
    statuses = [evaluation.get("status") for evaluation in done.values()]
    parts = [
        f"{statuses.count(status):,} {status}"
        for status in ("feasible", "infeasible", "crashed")
        if statuses.count(status)
    ]
    text = f"{len(done):,} of {count(total, 'candidate')} evaluated"
    return f"{text}: {', '.join(parts)}" if parts else text


def explore_candidate_run(
    *, job_id, attempt: int, index: int, worker: str = "", process: str = ""
) -> bool:
    """Evaluate candidate ``index`` of a running explore job, unless someone took it already.

    The service of the ``simulation.explore_candidate`` subtask; ``process``
    (:func:`~simulation.jobs.heartbeat.process_identity`) is recorded with the claim. Returns
    whether it ran.
    """
    owner = worker or "subtask"
    if not claim_part(
        job_id, attempt, SECTION, index, f"{owner} [{process}]" if process else owner
    ):
        return False
    job = Job.objects.select_related("owner").only("parameters", "owner").get(pk=job_id)
    evaluation = job_plan(job).evaluate(int(index))
    part_done(job_id, attempt, SECTION, index, evaluation)
    logger.info("explore job %s: candidate %s done by %s [%s]", job_id, index, owner, process)
    return True


def run_explore(job: Job, on_progress: Progress) -> dict:
    """The ``explore`` runner: every candidate, by whoever claims it first, then the front.

    On a worker (``on_progress`` carries the ``attempt``) the candidates go out as subtasks;
    called directly, this process evaluates them all.
    """
    on_progress(0, 1, "enumerating the candidates")
    try:
        plan = job_plan(job)
    except RequirementsError as exc:  # the catalog changed since the job was checked
        lines = "; ".join(problem_lines(exc.problems))
        raise JobInputError(f"the requirements cannot be explored: {lines}") from None
    total = len(plan.enumeration.candidates)
    attempt = getattr(on_progress, "attempt", None)
    if attempt is None:  # not on a worker (direct call): evaluate them all here
        done: dict[str, dict] = {}
        for index in range(total):
            on_progress(len(done), total, progress_text(done, total))
            done[str(index)] = plan.evaluate(index)
        return plan.result(done)
    state = parts_restart(job.pk, SECTION, keep_done=True)
    todo = [index for index in range(total) if str(index) not in state["done"]]
    send_parts(EXPLORE_CANDIDATE, job.pk, attempt, todo)
    done = collect_parts(
        job.pk,
        attempt,
        SECTION,
        [str(index) for index in range(total)][::-1],  # the subtasks start from the first
        lambda key: plan.evaluate(int(key)),
        lambda done: on_progress(len(done), total, progress_text(done, total)),
        owner=f"runner {job.pk}",
    )
    return plan.result(done)


def check_price_book(parameters: dict, owner) -> None:
    """The budget's price book is read only if ``owner`` may see its prices: a book they may
    not pick is refused as if it did not exist, one they may pick but not read says so. Raises
    ``ValidationError`` keyed ``parameters`` naming ``limits.budget.price_book``."""
    slug = budget_of(parameters).get("price_book")
    if not slug:
        return
    book = price_books_pickable_for(owner).filter(slug=slug).first()
    if book is None:
        raise ValidationError(
            {"parameters": [f"limits.budget.price_book: no price book “{slug}” in the catalog"]}
        )
    if not user_can_read_price_book(owner, book):
        raise ValidationError(
            {
                "parameters": [
                    f"limits.budget.price_book: you may not see the prices of “{book.name}”; "
                    "a budget needs a book whose prices you may read (the price right of a "
                    "team)"
                ]
            }
        )


def check_requirements(parameters: dict, owner) -> None:
    """Before the job is made: the budget's price book (:func:`check_price_book`), then the
    enumeration itself, so that requirements nothing survives (``oversubscription: no catalog
    switch reaches 1:1 at 1,048,576 GPUs ...``) are refused naming the field, not failed on a
    worker. Raises ``ValidationError`` keyed ``parameters``."""
    check_price_book(parameters, owner)
    try:
        explore_plan(parameters, owner=owner)
    except RequirementsError as exc:
        raise ValidationError({"parameters": problem_lines(exc.problems)}) from None


def money(amount, currency: str) -> str:
    """``12,345,678 USD`` (whole units; prices of a fabric are large)."""
    return f"{amount:,.0f} {currency}"


def explore_outcome(result: dict) -> str:
    """``"40 candidates: 31 feasible, 6 infeasible; front of 5, from 12,345,678 USD"``."""
    counts = result.get("counts") or {}
    parts = [
        f"{counts[status]:,} {status}"
        for status in ("feasible", "infeasible", "crashed")
        if counts.get(status)
    ]
    text = count(counts.get("enumerated") or 0, "candidate")
    if parts:
        text += ": " + ", ".join(parts)
    front = set(result.get("front") or [])
    costs = [
        c["metrics"]
        for c in result.get("candidates") or []
        if c.get("index") in front and (c.get("metrics") or {}).get("cost") is not None
    ]
    if front:
        text += f"; front of {len(front):,}"
    if costs:
        cheapest = min(costs, key=lambda m: m["cost"])
        text += f", from {money(cheapest['cost'], cheapest.get('currency') or '')}".rstrip()
    return text
