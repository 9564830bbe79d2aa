"""Cost and power of designs, for the designs list and the wizard's live summary.

Power is a revision's ``summary["power_w"]``, the power budget computed when the revision is
built (:func:`planner.designs.services.design_build`); a revision saved before that gets it on its
first read here and keeps it. Cost is the bill of materials at the seed price book (new
condition, its own currency, no discounts; :func:`planner.quotes.services.bom_cost`), only for users
with the price right: callers pass the book from :func:`cost_book`, ``None`` otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

from django.core.cache import cache

from inventory.models import PriceBook
from inventory.permissions import price_books_for
from inventory.services import SEED_PRICE_BOOK
from planner.analyses.reports import fabric_power
from planner.designs.adapters import catalog_facts, price_table
from planner.designs.cache import cached, price_fingerprint
from planner.designs.models import DesignRevision
from planner.designs.selectors import revision_fabric
from planner.designs.services import design_build
from planner.domain.outputs.bom import BillOfMaterials, bill_of_materials
from planner.domain.outputs.quote import bom_cost
from planner.teams.selectors import user_can_view_prices

#: A revision's bill of materials is fixed by its topology; keep it a while between pages.
BOM_CACHE_SECONDS = 600
CURRENCY_SIGNS = {"USD": "$", "EUR": "€", "GBP": "£"}


@dataclass(frozen=True)
class Cost:
    """A bill of materials priced at a book: its total, and how many lines and distinct parts
    have no price. A total is never partial: with any line unpriced it is ``None`` (as a
    quote, a missing price is never counted as zero)."""

    total: Decimal | None
    currency: str
    unpriced_lines: int
    unpriced_parts: int

    @property
    def complete(self) -> bool:
        return self.unpriced_lines == 0

    def as_dict(self) -> dict:
        return {
            "total": None if self.total is None else f"{self.total:.2f}",
            "currency": self.currency,
            "complete": self.complete,
            "unpriced_lines": self.unpriced_lines,
            "unpriced_parts": self.unpriced_parts,
            "text": cost_text(self),
        }


def cost_book(user) -> PriceBook | None:
    """The book costs are shown at (the seed reseller book), or ``None`` when ``user`` may
    not see prices or read that book."""
    if not user_can_view_prices(user):
        return None
    return price_books_for(user).filter(slug=SEED_PRICE_BOOK).first()


def bom_cost_at(bom: BillOfMaterials, book: PriceBook, table=None) -> Cost:
    """``bom`` at ``book`` (``table``: its :func:`price_table`, when already read)."""
    priced = bom_cost(bom, table=table or price_table(book), currency=book.currency)
    return Cost(
        total=priced.cost_total if priced.complete else None,
        currency=book.currency,
        unpriced_lines=priced.unpriced_lines,
        unpriced_parts=len(priced.unpriced_parts),
    )


def fabric_cost(fabric, book: PriceBook) -> Cost:
    """A built (perhaps unsaved, e.g. the wizard's) fabric's bill of materials at ``book``."""
    return bom_cost_at(bill_of_materials(fabric, catalog_facts()), book)


def power_text(watts) -> str:
    """``1234500`` -> ``"1,234.5 kW"``; under 1 kW in W; ``None`` -> ``"—"``.

    Examples
    --------
    >>> power_text(1234500), power_text(950), power_text(None)
    ('1,234.5 kW', '950 W', '—')
    """
    if watts is None:
        return "—"
    if watts < 1000:
        return f"{watts:,.0f} W"
    return f"{watts / 1000:,.1f} kW"


def cost_text(cost: Cost | None) -> str:
    """``$12,345,678``, ``12,345 CHF``; with parts unpriced, ``unpriced (3 parts)`` (a partial
    total would read as the price of the design).

    Examples
    --------
    >>> cost_text(Cost(Decimal("12345678.40"), "USD", 0, 0))
    '$12,345,678'
    >>> cost_text(Cost(None, "USD", 2, 1))
    'unpriced (1 part)'
    """
    if cost is None:
        return "—"
    if cost.total is None:
        n = cost.unpriced_parts
        return f"unpriced ({n} part{'s' if n != 1 else ''})"
    sign = CURRENCY_SIGNS.get(cost.currency)
    amount = f"{cost.total:,.0f}"
    return f"{sign}{amount}" if sign else f"{amount} {cost.currency}"


def _bom_key(design) -> str:
    # Ids can come back after a rollback; the design's last change time pins the revision.
    return f"planner:bom:{design.latest_id}:{design.updated.timestamp()}"


def _revision_bom_and_power(revision_id: int, facts) -> tuple[BillOfMaterials, float]:
    """The revision's BOM (cached) and power (stored in its summary when it was missing)."""
    revision = DesignRevision.objects.get(pk=revision_id)
    fabric = revision_fabric(revision)
    power = (revision.summary or {}).get("power_w")
    if power is None:
        power = float(fabric_power(fabric=fabric, facts=facts)["total_w"])
        DesignRevision.objects.filter(pk=revision_id).update(
            summary={**(revision.summary or {}), "power_w": power}
        )
    return bill_of_materials(fabric, facts), power


def design_figures(designs, *, book: PriceBook | None) -> dict[int, dict]:
    """``{design id: {"power_w", "power", "cost"?}}`` for designs annotated by
    :func:`planner.designs.selectors.design_list_for` (``latest_id``, ``latest_summary``); cost only
    when ``book`` is given (the caller checked the price right).

    Each design's cost is kept in the cache (:mod:`planner.designs.cache`) by its latest
    revision, the catalog and ``book``'s prices, so a list of designs seen before reads no
    BOM and no price table.
    """
    facts = None
    table = None
    prices = price_fingerprint(book) if book is not None else None
    figures = {}
    for design in designs:
        summary = design.latest_summary or {}
        power = summary.get("power_w")
        row = {"power_w": power, "power": power_text(power)}
        revision_id = getattr(design, "latest_id", None)
        if revision_id is None:
            figures[design.pk] = row
            continue
        bom = None
        if power is None:
            facts = facts or catalog_facts()
            try:
                bom, power = _revision_bom_and_power(revision_id, facts)
            except ValueError:  # a stored topology that no longer reads: no figures
                figures[design.pk] = row
                continue
            cache.set(_bom_key(design), bom, BOM_CACHE_SECONDS)
            row.update(power_w=power, power=power_text(power))
        if book is not None:

            def priced(design=design, bom=bom) -> Cost | None:
                nonlocal facts, table
                bom = bom or cache.get(_bom_key(design))
                if bom is None:
                    facts = facts or catalog_facts()
                    try:
                        bom, _ = _revision_bom_and_power(design.latest_id, facts)
                    except ValueError:  # a stored topology that no longer reads
                        return None
                    cache.set(_bom_key(design), bom, BOM_CACHE_SECONDS)
                table = table or price_table(book)
                return bom_cost_at(bom, book, table)

            cost = cached("design-cost", [_bom_key(design), prices], priced)
            if cost is None:
                figures[design.pk] = row
                continue
            row["cost"] = cost
            row["cost_text"] = cost_text(cost)
        figures[design.pk] = row
    return figures


def spec_summary(document: dict | str, *, user) -> dict:
    """An unsaved spec's summary (:func:`planner.designs.services.design_build`) and, for
    ``user`` with the price right, ``cost`` at the seed price book (the wizard's live summary
    and ``POST /api/planner/summary/``).

    Both are kept in the cache (:mod:`planner.designs.cache`) by the spec's text, the catalog
    and, for the cost, the book and its prices; the price right is checked on every call. A
    spec that names its own ``price_book`` is built each time (that book is checked for the
    user in the build).

    Raises
    ------
    planner.designs.services.DesignError
        The spec cannot be built (never kept).
    """
    built: list = []

    def build():
        if not built:
            built.extend(design_build(spec_document=document, user=user))
        return built

    if isinstance(document, str) or "price_book" in document:
        key = None
        summary = build()[2]
    else:
        key = json.dumps(document, sort_keys=True, default=str)
        summary = cached("spec-summary", [key], lambda: build()[2])
    answer = {**summary, "spec": document}
    book = cost_book(user)
    if book is not None:

        def priced() -> dict:
            return fabric_cost(build()[1], book).as_dict()

        answer["cost"] = (
            priced() if key is None else cached("spec-cost", [key, price_fingerprint(book)], priced)
        )
    return answer
