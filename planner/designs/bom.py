"""A revision's bill of materials and power, and what changed between two revisions
(parts, power, and the cost at a price book). Outputs and quotes build on these."""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping

from django.core.exceptions import ValidationError

from inventory.models import PriceBook
from inventory.permissions import price_books_for
from planner.analyses.reports import fabric_power
from planner.designs import selectors
from planner.designs.adapters import catalog_facts, price_table
from planner.designs.models import DesignRevision
from planner.designs.selectors import revision_fabric
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric
from planner.domain.outputs import (
    BillOfMaterials,
    bill_of_materials,
)
from planner.domain.outputs.bom_diff import BomDiff, bom_diff
from planner.domain.outputs.quote import prices_for
from planner.teams.selectors import quote_require_prices, user_can_view_prices


class OutputError(Exception):
    """An output that cannot be produced (``code``, ``message``); nothing was written."""

    def __init__(self, code: str, message: str):
        self.code = code
        self.message = message
        super().__init__(message)


def revision_fabric_or_error(revision: DesignRevision) -> Fabric:
    """The stored fabric of ``revision``.

    Raises
    ------
    OutputError
        ``topology-unreadable``: the stored topology is damaged or not a fabric.
    """
    try:
        return selectors.revision_fabric(revision)
    except (zlib.error, json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
        raise OutputError(
            "topology-unreadable",
            f"Revision {revision.number} of “{revision.design.name}” has a stored topology that "
            "cannot be read, so nothing can be exported from it. Restore an earlier revision or "
            "save the spec again to rebuild it.",
        ) from None


def revision_bom(
    revision: DesignRevision,
    *,
    spares_pct: Mapping[str, float] | None = None,
    facts: CatalogFacts | None = None,
) -> BillOfMaterials:
    """The bill of materials of ``revision`` (see :mod:`planner.domain.outputs.bom`).

    Raises
    ------
    OutputError
        The stored topology cannot be read.
    planner.domain.outputs.BomError
        A bad spares percentage (``field`` = ``spares_pct.<category>``).
    """
    fabric = revision_fabric_or_error(revision)
    return bill_of_materials(fabric, facts or catalog_facts(), spares_pct=spares_pct)


def revision_power_w(revision: DesignRevision) -> float:
    """Total power of a revision's fabric in W (:func:`planner.analyses.power.power_budget`;
    figures missing from the catalog are not in it)."""
    return float(fabric_power(fabric=revision_fabric(revision), facts=catalog_facts())["total_w"])


def revision_bom_diff(
    old: DesignRevision,
    new: DesignRevision,
    *,
    price_book: PriceBook | None = None,
    condition: str = "new",
) -> BomDiff:
    """Parts added, removed and changed from ``old`` to ``new``, the power delta, and the cost
    delta at ``price_book``'s prices (its own currency, no discounts) when a book is given.
    The caller decides whether the user may see the cost."""
    old_bom, new_bom = revision_bom(old), revision_bom(new)
    prices = None
    currency = None
    if price_book is not None:
        currency = price_book.currency
        table = price_table(price_book)
        prices = prices_for(
            BillOfMaterials(lines=old_bom.lines + new_bom.lines, spares_pct={}),
            table,
            currency=currency,
            condition=condition,
        )
    return bom_diff(
        old_bom,
        new_bom,
        prices=prices,
        currency=currency,
        old_power_w=revision_power_w(old),
        new_power_w=revision_power_w(new),
    )


def revision_bom_diff_for(
    user, old: DesignRevision, new: DesignRevision, *, price_book_slug: str | None = None
) -> dict:
    """:func:`revision_bom_diff` as JSON for ``user``: with the cost delta only when a price
    book is named, and then only for users who may see prices.

    Raises
    ------
    PermissionDenied
        A price book was named but ``user`` may not see prices.
    django.core.exceptions.ValidationError
        No price book has that slug (field ``price_book``).
    """
    book = None
    if price_book_slug:
        quote_require_prices(user_can_view_prices(user))
        book = price_books_for(user).filter(slug=price_book_slug).first()
        if book is None:
            raise ValidationError({"price_book": f"No price book {price_book_slug!r}."})
    return revision_bom_diff(old, new, price_book=book).as_dict(with_prices=book is not None)
