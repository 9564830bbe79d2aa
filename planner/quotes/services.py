"""Quotes of a design revision: create, change and delete them (audited), send them and record
the customer's answer; the one door through which pages and the API reach every quote service.

This module holds the lifecycle; its parts hold the rest, and their public names are importable
from here: pricing (:mod:`planner.quotes.pricing`), margin floors and their approval
(:mod:`planner.quotes.approval`), re-priced versions (:mod:`planner.quotes.versions`) and
downloads as PDF, XLSX or CSV (:mod:`planner.quotes.exports`); the rules every step follows
(locking, refusals, the audit log) are :mod:`planner.quotes.rules`.

Lifecycle (:class:`~planner.quotes.models.QuoteStatusChoices`)::

    draft --(approve, if below the team's margin floor)--send--> sent --accept--> accepted
                     |  --decline--> declined
                     |  (valid_until passed: expired; may be declined or re-priced, not accepted)
                     +--re-price--> superseded, and a new draft version with the same number

Pricing is :mod:`planner.domain.outputs.quote` applied to the revision's bill of materials
(:func:`planner.outputs.services.revision_bom`, with the quote's spares) and the quote's price book
(:func:`planner.designs.adapters.price_table`); money is :class:`~decimal.Decimal` throughout,
rounded by the one rule of :data:`planner.domain.outputs.quote.ROUNDING_RULE`. Offers in another
currency than the quote's are converted with the exchange rate valid on the quote's date (the
day it is priced; for a sent quote the day it was sent:
:func:`planner.designs.adapters.exchange_rates`); a quote in a currency the book's own currency
has no rate into is refused (field ``currency``). A draft stores its terms, not its prices: it
is priced from the book as the book stands when it is opened, exported or downloaded. Sending
stores the priced quote with it (:func:`planner.domain.outputs.quote_versions.freeze`, in
``Quote.snapshot``: every line with its offer and exchange rate, the rates with their dates and
sources, and the margin approval); every later read of a sent quote is that snapshot, whatever
happens to the price book, the rates, the catalog or the design. Only drafts change or are
deleted.

A team may set a margin floor (``Team.margin_floor_pct``): a quote whose margin is below the
floor that applies to it (:func:`quote_margin_floor`) is sent only after an owner of that team
approves it (:func:`quote_approve`, in the audit log); changing the margin withdraws the
approval.

Who may see prices is decided by the caller
(:func:`planner.designs.selectors.user_can_view_prices`):
:func:`quote_price` leaves prices out when asked, and :func:`quote_export`, :func:`quote_send`
and :func:`quote_reprice` refuse without them (sending and re-pricing fix prices).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone

from inventory.models import PriceBook
from planner.audit.models import AuditActionChoices
from planner.designs.models import Design, DesignRevision
from planner.domain.outputs.quote_versions import freeze
from planner.quotes.approval import (
    MarginFloor,
    approval_record,
    check_margin_floor,
    quote_approve,
    quote_margin_floor,
)
from planner.quotes.exports import EXPORT_FORMATS, ExportFile, quote_export
from planner.quotes.models import QUOTE_EXPIRED, Quote, QuoteNumberSequence, QuoteStatusChoices
from planner.quotes.pricing import (
    QuoteDocument,
    QuoteGaps,
    RepriceCheck,
    check_currency,
    quote_price,
    quote_reprice_check,
)
from planner.quotes.rules import (
    FROZEN_HINT,
    QuoteStatusError,
    audit_quote,
    decimal_text,
    lock_quote,
    refused,
    require_price_right,
    transition,
)
from planner.quotes.versions import QuoteVersionDiff, quote_reprice, quote_version_diff

__all__ = [
    "EDITABLE_FIELDS",
    "EXPORT_FORMATS",
    "PRICE_TERMS",
    "ExportFile",
    "MarginFloor",
    "QuoteDocument",
    "QuoteGaps",
    "QuoteStatusError",
    "QuoteVersionDiff",
    "RepriceCheck",
    "quote_accept",
    "quote_approve",
    "quote_create",
    "quote_decline",
    "quote_delete",
    "quote_export",
    "quote_get",
    "quote_list",
    "quote_margin_floor",
    "quote_number",
    "quote_price",
    "quote_reprice",
    "quote_reprice_check",
    "quote_send",
    "quote_update",
    "quote_version_diff",
    "quote_versions",
]


#: What a quote's author may change after creating it (the number never changes).
EDITABLE_FIELDS = (
    "revision",
    "customer",
    "customer_address",
    "price_book",
    "price_condition",
    "currency",
    "discounts_pct",
    "margin_pct",
    "spares_pct",
    "valid_until",
    "terms",
    "notes",
)
#: Long texts whose old and new values the audit log does not copy (it names the field).
_AUDIT_TEXTS = ("customer_address", "terms", "notes")
#: Terms that give prices away (the discounts and margin turn the book's prices into the
#: customer's) and the internal notes: shown only to users with the price right.
PRICE_TERMS = ("discounts_pct", "margin_pct", "notes")
PRICE_TERMS_HIDDEN = (
    "Discounts, margin and internal notes of a quote are shown and changed only by users with "
    "the price right (a sales role in a team)."
)


def quote_list(design: Design):
    """Quotes of ``design`` (every version), newest first."""
    return design.quotes.select_related("revision", "price_book", "created_by", "previous")


def quote_versions(quote: Quote):
    """Every version of ``quote``'s number, first to last."""
    return quote_list(quote.design).filter(number=quote.number).order_by("version")


def quote_get(design: Design, pk) -> Quote:
    """Quote ``pk`` of ``design`` (404 if there is none)."""
    try:
        return quote_list(design).get(pk=pk)
    except (Quote.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404(f"Design {design.pk} has no quote {pk}.") from exc


def quote_number(year: int, sequence: int) -> str:
    """``Q-<year>-<sequence>``, the sequence zero-padded to four digits: ``Q-2026-0001``."""
    return f"Q-{year}-{sequence:04d}"


def _plain(value):
    """A field value as JSON (for the audit details)."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, DesignRevision):
        return value.number
    if isinstance(value, PriceBook):
        return value.slug
    return value


def _lines_text(value) -> str:
    """Typed multi-line text as stored: ``\n`` line ends, no trailing spaces on a line, no
    blank lines or spaces around the whole."""
    lines = [line.rstrip() for line in str(value or "").splitlines()]
    return "\n".join(lines).strip()


def _percent_map(values: Mapping | None) -> dict:
    """Drop zero entries so that stored maps stay small and compare equal; Decimals are
    stored as exact text (``"12.5"``), never floats."""
    if not isinstance(values, Mapping):
        return values  # clean() names the problem
    return {
        key: decimal_text(value) if isinstance(value, Decimal) else value
        for key, value in values.items()
        if value not in (0, "0", None, "")
    }


@transaction.atomic
def quote_create(
    *,
    design: Design,
    actor,
    customer: str,
    price_book: PriceBook,
    customer_address: str = "",
    terms: str = "",
    revision: DesignRevision | None = None,
    currency: str = "",
    price_condition: str = "new",
    discounts_pct: Mapping | None = None,
    margin_pct: Decimal | float | int | str = 0,
    spares_pct: Mapping | None = None,
    valid_until: date | None = None,
    notes: str = "",
) -> Quote:
    """Create a quote for ``revision`` (default: the latest) and give it the next number.

    The number is ``Q-<year>-<n>``, ``n`` counted on by the year's row of
    :class:`~planner.models.QuoteNumberSequence`, locked until this transaction ends: two
    quotes created at once get consecutive numbers, and a deleted quote's number is not
    given again.

    Raises
    ------
    django.core.exceptions.ValidationError
        A field is missing or out of range (keyed by the field).
    """
    revision = revision or design.latest_revision
    quote = Quote(
        design=design,
        revision=revision,
        customer=customer.strip(),
        customer_address=_lines_text(customer_address),
        terms=_lines_text(terms),
        price_book=price_book,
        price_condition=price_condition,
        currency=(currency or price_book.currency).strip().upper(),
        discounts_pct=_percent_map(discounts_pct or {}),
        margin_pct=margin_pct,
        spares_pct=_percent_map(spares_pct or {}),
        notes=notes,
        created_by=actor if getattr(actor, "is_authenticated", False) else None,
    )
    if valid_until is not None:
        quote.valid_until = valid_until
    quote.full_clean(exclude=["year", "sequence", "number"])
    check_currency(quote, timezone.localdate())
    year = timezone.localdate().year
    QuoteNumberSequence.objects.get_or_create(year=year)
    counter = QuoteNumberSequence.objects.select_for_update().get(year=year)
    counter.last += 1
    counter.save(update_fields=["last"])
    quote.year, quote.sequence = year, counter.last
    quote.number = quote_number(year, counter.last)
    quote.save()
    audit_quote(
        quote,
        actor,
        AuditActionChoices.QUOTE_CHANGED,
        f"Quote {quote.number} created for {quote.customer} (revision {revision.number})",
        {"change": "created", "revision": revision.number, "book": price_book.slug},
    )
    return quote


@transaction.atomic
def quote_update(*, quote: Quote, actor, **changes) -> Quote:
    """Change some of :data:`EDITABLE_FIELDS` of ``quote``; the audit log names them.

    Raises
    ------
    TypeError
        A field that may not be changed (the number, the design).
    django.core.exceptions.ValidationError
        A changed value is out of range (keyed by the field), or the quote is no longer a
        draft (keyed ``status``); nothing is saved.
    """
    unknown = sorted(set(changes) - set(EDITABLE_FIELDS))
    if unknown:
        raise TypeError(f"quote_update() cannot change {', '.join(unknown)}")
    locked = lock_quote(quote)
    if locked.status != QuoteStatusChoices.DRAFT:
        raise refused(locked, "changed", "a draft", hint=FROZEN_HINT)
    for name in ("discounts_pct", "spares_pct"):
        if name in changes:
            changes[name] = _percent_map(changes[name] or {})
    if "currency" in changes:
        changes["currency"] = str(changes["currency"] or "").strip().upper()
    if "customer" in changes:
        changes["customer"] = str(changes["customer"] or "").strip()
    for name in ("customer_address", "terms"):
        if name in changes:
            changes[name] = _lines_text(changes[name])
    before = {name: _plain(getattr(locked, name)) for name in changes}
    for name, value in changes.items():
        setattr(locked, name, value)
    locked.full_clean()
    if {"currency", "price_book"} & set(changes):
        check_currency(locked, timezone.localdate())
    changed = [name for name in changes if _plain(getattr(locked, name)) != before[name]]
    withdrawn = locked.approved_at is not None and not locked.margin_approved
    if withdrawn:
        locked.approved_by = locked.approved_at = locked.approved_margin_pct = None
    locked.save()
    if changed:
        audit_quote(
            locked,
            actor,
            AuditActionChoices.QUOTE_CHANGED,
            f"Quote {locked.number} changed: {', '.join(changed)}",
            {
                "change": "updated",
                "fields": {
                    name: {"old": before[name], "new": _plain(getattr(locked, name))}
                    for name in changed
                    if name not in _AUDIT_TEXTS
                },
                **({"approval": "withdrawn: the margin changed"} if withdrawn else {}),
            },
        )
    return locked


@transaction.atomic
def quote_delete(*, quote: Quote, actor) -> None:
    """Delete a draft ``quote``; its number is not given again. Deleting a re-priced draft
    (version 2 on) puts the version it superseded back to sent.

    Raises
    ------
    django.core.exceptions.ValidationError
        The quote was sent (keyed ``status``): a sent quote is kept.
    """
    locked = lock_quote(quote)
    if locked.status != QuoteStatusChoices.DRAFT:
        raise refused(locked, "deleted", "a draft", hint="A sent quote is kept.")
    previous = locked.previous
    audit_quote(
        locked,
        actor,
        AuditActionChoices.QUOTE_CHANGED,
        f"Quote {locked.label} for {locked.customer} deleted",
        {"change": "deleted"},
    )
    locked.delete()
    if previous is not None and previous.status == QuoteStatusChoices.SUPERSEDED:
        previous.status = QuoteStatusChoices.SENT
        previous.save(update_fields=["status", "updated"])
        audit_quote(
            previous,
            actor,
            AuditActionChoices.QUOTE_CHANGED,
            f"Quote {previous.label} is sent again: its re-priced version was deleted",
            {"change": "status", "status": {"old": "superseded", "new": "sent"}},
        )


def _snapshot(quote: Quote, document: QuoteDocument) -> dict:
    """What :func:`quote_send` stores: the priced quote and the names it is printed with."""
    return {
        **freeze(document.bom, document.priced),
        "priced_on": document.priced_on.isoformat(),
        "design": {"name": quote.design.name},
        "revision": quote.revision.number,
        "price_book": {"slug": quote.price_book.slug, "name": quote.price_book.name},
        "price_condition": quote.price_condition,
        "approval": approval_record(quote),
        "customer": {"name": quote.customer, "address": quote.customer_address},
        "terms": quote.terms,
    }


def _gaps_record(gaps: QuoteGaps, actor, confirmed: bool) -> dict | None:
    """What a sent quote keeps of its gaps: who sent it with them, when, how many lines."""
    if not gaps.any:
        return None
    return {
        "by": actor.get_username() if getattr(actor, "is_authenticated", False) else "",
        "at": timezone.now().isoformat(),
        "lines": gaps.lines,
        "unpriced_lines": gaps.unpriced_lines,
        "estimated_lines": gaps.estimated_lines,
        "unpriced_confirmed": confirmed and bool(gaps.unpriced_lines),
    }


@transaction.atomic
def quote_send(
    *, quote: Quote, actor, may_view_prices: bool, confirm_unpriced: bool = False
) -> Quote:
    """Send a draft: price it from the book now and store the priced quote with it.

    From then on the quote reads its snapshot (lines, offers with their source and date,
    discounts, margin, spares, currency, totals, the design's revision and name): no change
    to the price book, the catalog or the design alters it.

    Raises
    ------
    PermissionDenied
        ``may_view_prices`` is false: sending fixes prices the sender must see.
    django.core.exceptions.ValidationError
        The quote is not a draft (``status``), its validity has passed (``valid_until``), its
        margin is below its team's floor without an owner's approval (``margin_pct``, naming
        the margin and the floor), its currency has no exchange rate from the book's
        (``currency``), its terms cannot price it (the field at fault), or it has unpriced
        lines and ``confirm_unpriced`` is false (``confirm_unpriced``: sending a partial total
        is a decision); nothing is written.

    A quote sent with unpriced or estimated lines keeps who sent it, when and how many lines
    (``snapshot["gaps"]``, printed on the internal copy, never on the customer's).
    """
    require_price_right(may_view_prices, "Sending a quote fixes its prices.")
    locked = lock_quote(quote)
    if locked.status != QuoteStatusChoices.DRAFT:
        raise refused(locked, "sent", "a draft")
    today = timezone.localdate()
    if locked.valid_until < today:
        raise QuoteStatusError(
            locked,
            "valid_until",
            f"Quote {locked.label} was valid until {locked.valid_until}, which has passed: "
            "choose a later date before sending it.",
        )
    check_currency(locked, today)
    check_margin_floor(locked)
    document = quote_price(locked)
    gaps = QuoteGaps.of(document.priced)
    if gaps.unpriced_lines and not confirm_unpriced:
        raise ValidationError(
            {
                "confirm_unpriced": f"Quote {locked.label} has {gaps.text()}: confirm that it is "
                "sent with unpriced lines (confirm_unpriced), or price them first."
            }
        )
    locked.snapshot = {
        **_snapshot(locked, document),
        "gaps": _gaps_record(gaps, actor, confirm_unpriced),
    }
    locked.sent_at = timezone.now()
    locked.sent_by = actor if getattr(actor, "is_authenticated", False) else None
    return transition(
        locked,
        actor,
        QuoteStatusChoices.SENT,
        f"Quote {locked.label} sent to {locked.customer} (revision {locked.revision.number})",
        revision=locked.revision.number,
        lines=len(document.priced.lines),
        complete=document.priced.complete,
        unpriced_lines=gaps.unpriced_lines,
        estimated_lines=gaps.estimated_lines,
        unpriced_confirmed=bool(confirm_unpriced and gaps.unpriced_lines),
    )


@transaction.atomic
def quote_accept(*, quote: Quote, actor) -> Quote:
    """Record that the customer accepted a sent quote (not an expired one).

    Raises
    ------
    django.core.exceptions.ValidationError
        The quote is not sent, or it expired (keyed ``status``).
    """
    locked = lock_quote(quote)
    if locked.lifecycle_status == QUOTE_EXPIRED:
        raise refused(
            locked,
            "accepted",
            "a sent, unexpired",
            hint=f"It was valid until {locked.valid_until}; re-price it to make a new version.",
        )
    if locked.status != QuoteStatusChoices.SENT:
        raise refused(locked, "accepted", "a sent")
    locked.answered_at = timezone.now()
    return transition(locked, actor, QuoteStatusChoices.ACCEPTED, f"Quote {locked.label} accepted")


@transaction.atomic
def quote_decline(*, quote: Quote, actor) -> Quote:
    """Record that the customer declined a sent (or expired) quote.

    Raises
    ------
    django.core.exceptions.ValidationError
        The quote is not sent (keyed ``status``).
    """
    locked = lock_quote(quote)
    if locked.status != QuoteStatusChoices.SENT:
        raise refused(locked, "declined", "a sent or expired")
    locked.answered_at = timezone.now()
    return transition(locked, actor, QuoteStatusChoices.DECLINED, f"Quote {locked.label} declined")
