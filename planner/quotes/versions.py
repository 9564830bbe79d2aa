"""Versions of a quote: re-pricing a sent (or expired) quote makes the next version, a draft with
the same number and terms (:func:`quote_reprice`; the sent one is superseded), and
:func:`quote_version_diff` compares a version line by line with the one it was re-priced from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db import models, transaction
from django.utils import timezone

from planner.audit.models import AuditActionChoices
from planner.designs.models import DesignRevision
from planner.domain.outputs.quote_versions import QuoteDiff, quote_diff
from planner.quotes.models import Quote, QuoteStatusChoices
from planner.quotes.pricing import QuoteDocument, check_currency, quote_price
from planner.quotes.rules import audit_quote, lock_quote, refused, require_price_right, transition
from planner.teams.selectors import PRICES_HIDDEN


@transaction.atomic
def quote_reprice(
    *, quote: Quote, actor, may_view_prices: bool, revision: DesignRevision | None = None
) -> Quote:
    """Make the next version of a sent (or expired) quote from current prices.

    The new version is a draft with the same number and terms (customer and address, book,
    offers, currency, discounts, margin, spares, terms, notes), for ``revision`` (default: the
    design's latest), valid for as many days as the sent one was; the sent one becomes
    superseded.
    :func:`quote_version_diff` compares the two.

    Raises
    ------
    PermissionDenied
        ``may_view_prices`` is false.
    django.core.exceptions.ValidationError
        The quote is not sent or expired (keyed ``status``), the revision is not of its
        design, or its currency has no exchange rate today (``currency``); nothing is written.
    """
    require_price_right(may_view_prices, "Re-pricing a quote fixes new prices.")
    locked = lock_quote(quote)
    if locked.status != QuoteStatusChoices.SENT:
        raise refused(locked, "re-priced", "a sent or expired")
    sent_on = timezone.localdate(locked.sent_at) if locked.sent_at else locked.valid_until
    validity = max((locked.valid_until - sent_on).days, 1)
    version = (
        Quote.objects.filter(number=locked.number).aggregate(models.Max("version"))["version__max"]
        + 1
    )
    new = Quote(
        design=locked.design,
        revision=revision or locked.design.latest_revision,
        year=locked.year,
        sequence=locked.sequence,
        number=locked.number,
        version=version,
        previous=locked,
        customer=locked.customer,
        customer_address=locked.customer_address,
        terms=locked.terms,
        price_book=locked.price_book,
        price_condition=locked.price_condition,
        currency=locked.currency,
        discounts_pct=locked.discounts_pct,
        margin_pct=locked.margin_pct,
        spares_pct=locked.spares_pct,
        valid_until=timezone.localdate() + timedelta(days=validity),
        notes=locked.notes,
        created_by=actor if getattr(actor, "is_authenticated", False) else None,
    )
    new.full_clean()
    check_currency(new, timezone.localdate())
    new.save()
    transition(
        locked,
        actor,
        QuoteStatusChoices.SUPERSEDED,
        f"Quote {locked.label} superseded by {new.label}",
        by=new.label,
    )
    audit_quote(
        new,
        actor,
        AuditActionChoices.QUOTE_CHANGED,
        f"Quote {new.label} created from {locked.label} at current prices "
        f"(revision {new.revision.number})",
        {
            "change": "created",
            "revision": new.revision.number,
            "book": new.price_book.slug,
            "previous": locked.label,
        },
    )
    return new


@dataclass(frozen=True)
class QuoteVersionDiff:
    """A version of a quote against the version it was re-priced from."""

    old: QuoteDocument
    new: QuoteDocument
    diff: QuoteDiff

    def as_dict(self, *, with_prices: bool) -> dict:
        result = {
            "from": {
                "label": self.old.quote.label,
                "version": self.old.quote.version,
                "status": self.old.quote.lifecycle_status,
                "revision": self.old.revision_number,
                "priced_on": self.old.priced_on.isoformat(),
            },
            "to": {
                "label": self.new.quote.label,
                "version": self.new.quote.version,
                "status": self.new.quote.lifecycle_status,
                "revision": self.new.revision_number,
                "priced_on": self.new.priced_on.isoformat(),
            },
            "with_prices": with_prices,
            **self.diff.as_dict(with_prices=with_prices),
        }
        if not with_prices:
            result["prices_hidden"] = PRICES_HIDDEN
        return result


def quote_version_diff(quote: Quote) -> QuoteVersionDiff | None:
    """``quote`` line by line against the version it was re-priced from (``None`` for a first
    version). Prices are computed: the caller leaves them out for users without the right
    (:meth:`QuoteVersionDiff.as_dict`)."""
    if quote.previous_id is None:
        return None
    old, new = quote_price(quote.previous), quote_price(quote)
    return QuoteVersionDiff(old=old, new=new, diff=quote_diff(old.priced, new.priced))
