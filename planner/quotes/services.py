"""Quotes of a design revision: create, change and delete them (audited), send them and record
the customer's answer, re-price them into a new version, price them, export them as PDF, XLSX
or CSV, and compare two revisions' bills of materials with cost and power deltas.

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

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.http import Http404
from django.utils import timezone

from inventory.models import PriceBook
from planner.audit.log import audit_record
from planner.audit.models import AuditActionChoices
from planner.designs.adapters import exchange_rates, price_table
from planner.designs.bom import revision_bom
from planner.designs.cache import cached
from planner.designs.models import Design, DesignRevision
from planner.domain.outputs.bom import BillOfMaterials
from planner.domain.outputs.quote import (
    ExchangeRate,
    PricedQuote,
    QuoteError,
    QuoteTerms,
    price_quote,
    prices_for,
)
from planner.domain.outputs.quote_versions import (
    PriceMove,
    QuoteDiff,
    freeze,
    moved_prices,
    quote_diff,
    thaw,
)
from planner.quotes import files as quote_files
from planner.quotes.models import (
    QUOTE_EXPIRED,
    QUOTE_STATUS_LABELS,
    Quote,
    QuoteNumberSequence,
    QuoteStatusChoices,
)
from planner.teams.models import Team, TeamMembership, TeamRoleChoices
from planner.teams.selectors import PRICES_HIDDEN

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
EXPORT_FORMATS = {
    "pdf": "application/pdf",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "csv": "text/csv; charset=utf-8",
}
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


def _decimal_text(value: Decimal) -> str:
    """``12.5``, ``10``: a Decimal as exact text without trailing zeros (never ``1E+1``)."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


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
        key: _decimal_text(value) if isinstance(value, Decimal) else value
        for key, value in values.items()
        if value not in (0, "0", None, "")
    }


def _audit_quote(quote: Quote, actor, action: str, summary: str, details: dict) -> None:
    """Record an audit event about ``quote`` (its design, ``object_ref`` = its number)."""
    audit_record(
        actor=actor,
        action=action,
        design=quote.design,
        summary=summary,
        object_type="quote",
        object_ref=quote.number,
        details=details,
    )


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
    _check_currency(quote, timezone.localdate())
    year = timezone.localdate().year
    QuoteNumberSequence.objects.get_or_create(year=year)
    counter = QuoteNumberSequence.objects.select_for_update().get(year=year)
    counter.last += 1
    counter.save(update_fields=["last"])
    quote.year, quote.sequence = year, counter.last
    quote.number = quote_number(year, counter.last)
    quote.save()
    _audit_quote(
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
    locked = _locked(quote)
    if locked.status != QuoteStatusChoices.DRAFT:
        raise _refused(locked, "changed", "a draft", hint=_FROZEN_HINT)
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
        _check_currency(locked, timezone.localdate())
    changed = [name for name in changes if _plain(getattr(locked, name)) != before[name]]
    withdrawn = locked.approved_at is not None and not locked.margin_approved
    if withdrawn:
        locked.approved_by = locked.approved_at = locked.approved_margin_pct = None
    locked.save()
    if changed:
        _audit_quote(
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
    locked = _locked(quote)
    if locked.status != QuoteStatusChoices.DRAFT:
        raise _refused(locked, "deleted", "a draft", hint="A sent quote is kept.")
    previous = locked.previous
    _audit_quote(
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
        _audit_quote(
            previous,
            actor,
            AuditActionChoices.QUOTE_CHANGED,
            f"Quote {previous.label} is sent again: its re-priced version was deleted",
            {"change": "status", "status": {"old": "superseded", "new": "sent"}},
        )


# --- Lifecycle ----------------------------------------------------------------------------------

_FROZEN_HINT = "A sent quote does not change: re-price it to make a new version."


def _locked(quote: Quote) -> Quote:
    """``quote`` read again and locked until the transaction ends."""
    return Quote.objects.select_for_update().get(pk=quote.pk)


class QuoteStatusError(ValidationError):
    """A step the quote's status does not allow (keyed ``status``, or ``valid_until`` for a
    draft past its validity); ``quote_status`` is the status it is in. The API answers it 409
    (the request is well formed, the quote is not in a state to take it), pages 400."""

    def __init__(self, quote: Quote, field: str, message: str):
        super().__init__({field: message})
        self.quote_status = quote.lifecycle_status
        self.detail = message


def _refused(quote: Quote, action: str, allowed: str, *, hint: str = "") -> QuoteStatusError:
    """The error for a transition the quote's status does not allow, naming the status."""
    status = QUOTE_STATUS_LABELS[quote.lifecycle_status].lower()
    message = f"Quote {quote.label} is {status}: only {allowed} quote can be {action}."
    return QuoteStatusError(quote, "status", f"{message} {hint}".strip())


def _transition(quote: Quote, actor, status: str, summary: str, **details) -> Quote:
    """Store the new ``status`` of the locked ``quote`` (validated) and audit it."""
    old = quote.lifecycle_status
    quote.status = status
    quote.full_clean()
    quote.save()
    _audit_quote(
        quote,
        actor,
        AuditActionChoices.QUOTE_CHANGED,
        summary,
        {"change": "status", "status": {"old": old, "new": status}, **details},
    )
    return quote


def _require_price_right(may_view_prices: bool, what: str) -> None:
    if not may_view_prices:
        raise PermissionDenied(f"{PRICES_HIDDEN} {what}")


# --- Currencies and margin floors ---------------------------------------------------------------


def _check_currency(quote: Quote, day: date) -> None:
    """Refuse (field ``currency``) a quote in another currency than its book's when no
    exchange rate from the book's currency into it is valid on ``day``."""
    book_currency = quote.price_book.currency
    if quote.currency == book_currency or book_currency in exchange_rates(quote.currency, day):
        return
    raise ValidationError(
        {
            "currency": f"There is no exchange rate from {book_currency} (the currency of "
            f"{quote.price_book.name}) to {quote.currency} valid on {day.isoformat()}: quote "
            f"in {book_currency}, or ask a catalog editor to add the rate."
        }
    )


@dataclass(frozen=True)
class MarginFloor:
    """The margin floor that applies to a quote: ``team``'s ``floor_pct``."""

    team: Team
    floor_pct: Decimal

    def below(self, margin_pct) -> bool:
        return margin_pct is not None and Decimal(margin_pct) < self.floor_pct


def quote_margin_floor(quote: Quote) -> MarginFloor | None:
    """The highest margin floor among the teams the quote is made for: the design's team (for
    a private design, every team its owner belongs to) and the price book's team; ``None``
    when none of them has a floor."""
    design = quote.design
    if design.team_id is not None:
        teams = Team.objects.filter(pk=design.team_id)
    else:
        teams = Team.objects.filter(memberships__user_id=design.owner_id)
    if quote.price_book.team_id is not None:
        teams = teams | Team.objects.filter(pk=quote.price_book.team_id)
    team = (
        teams.filter(margin_floor_pct__isnull=False)
        .distinct()
        .order_by("-margin_floor_pct", "name")
        .first()
    )
    return None if team is None else MarginFloor(team=team, floor_pct=team.margin_floor_pct)


def _percent_text(value) -> str:
    return f"{_decimal_text(Decimal(value))} %"


def _check_margin_floor(quote: Quote) -> None:
    """Refuse (field ``margin_pct``) to send a quote below its margin floor unless a team
    owner approved its margin."""
    floor = quote_margin_floor(quote)
    if floor is None or not floor.below(quote.margin_pct) or quote.margin_approved:
        return
    raise QuoteStatusError(
        quote,
        "margin_pct",
        f"The margin of {_percent_text(quote.margin_pct)} is below the margin floor of "
        f"{_percent_text(floor.floor_pct)} of team {floor.team.name}: an owner of the team "
        f"must approve quote {quote.label} before it is sent.",
    )


def _approval_record(quote: Quote) -> dict | None:
    """The approval a sent quote keeps in its snapshot (None when none was needed)."""
    if not quote.margin_approved:
        return None
    floor = quote_margin_floor(quote)
    return {
        "by": quote.approved_by.get_username() if quote.approved_by else "",
        "at": quote.approved_at.isoformat(),
        "margin_pct": str(quote.approved_margin_pct),
        "floor_pct": None if floor is None else str(floor.floor_pct),
        "team": None if floor is None else floor.team.name,
    }


@transaction.atomic
def quote_approve(*, quote: Quote, actor, may_view_prices: bool) -> Quote:
    """An owner of the team whose margin floor the draft ``quote`` is below approves its
    margin, so that it may be sent; recorded in the audit log. Changing the margin afterwards
    withdraws the approval.

    Raises
    ------
    PermissionDenied
        ``actor`` is not an owner of that team, or may not see the quote's prices.
    django.core.exceptions.ValidationError
        The quote is not a draft (``status``), or its margin is not below a floor
        (``margin_pct``: nothing to approve); nothing is written.
    """
    _require_price_right(may_view_prices, "Approving a margin means reading it.")
    locked = _locked(quote)
    if locked.status != QuoteStatusChoices.DRAFT:
        raise _refused(locked, "approved", "a draft")
    floor = quote_margin_floor(locked)
    if floor is None or not floor.below(locked.margin_pct):
        what = (
            "no margin floor applies to it"
            if floor is None
            else (
                f"its margin of {_percent_text(locked.margin_pct)} is not below the floor of "
                f"{_percent_text(floor.floor_pct)} of team {floor.team.name}"
            )
        )
        raise QuoteStatusError(
            locked, "margin_pct", f"Quote {locked.label} needs no approval: {what}."
        )
    is_owner = TeamMembership.objects.filter(
        team=floor.team, user_id=getattr(actor, "pk", None), role=TeamRoleChoices.OWNER
    ).exists()
    if not is_owner:
        raise PermissionDenied(
            f"Only an owner of team {floor.team.name} may approve a margin below its floor."
        )
    locked.approved_by = actor
    locked.approved_at = timezone.now()
    locked.approved_margin_pct = locked.margin_pct
    locked.save(update_fields=["approved_by", "approved_at", "approved_margin_pct", "updated"])
    _audit_quote(
        locked,
        actor,
        AuditActionChoices.QUOTE_CHANGED,
        f"Quote {locked.label} approved at a margin of {_percent_text(locked.margin_pct)}, "
        f"below the floor of {_percent_text(floor.floor_pct)} of team {floor.team.name}",
        {
            "change": "approved",
            "margin_pct": str(locked.margin_pct),
            "floor_pct": str(floor.floor_pct),
            "team": floor.team.slug,
        },
    )
    return locked


def _snapshot(quote: Quote, document: QuoteDocument) -> dict:
    """What :func:`quote_send` stores: the priced quote and the names it is printed with."""
    return {
        **freeze(document.bom, document.priced),
        "priced_on": document.priced_on.isoformat(),
        "design": {"name": quote.design.name},
        "revision": quote.revision.number,
        "price_book": {"slug": quote.price_book.slug, "name": quote.price_book.name},
        "price_condition": quote.price_condition,
        "approval": _approval_record(quote),
        "customer": {"name": quote.customer, "address": quote.customer_address},
        "terms": quote.terms,
    }


@dataclass(frozen=True)
class QuoteGaps:
    """What a priced quote lacks: unpriced lines (left out of its total, which is then
    partial) and lines priced from an estimate."""

    lines: int
    unpriced_lines: int
    estimated_lines: int

    @classmethod
    def of(cls, priced: PricedQuote) -> QuoteGaps:
        return cls(len(priced.lines), priced.unpriced_lines, priced.estimated_lines)

    @property
    def any(self) -> bool:
        return bool(self.unpriced_lines or self.estimated_lines)

    def text(self) -> str:
        """E.g. "24 of 38 lines unpriced (the total is partial), 2 estimated"."""
        bits = []
        if self.unpriced_lines:
            bits.append(
                f"{self.unpriced_lines:,} of {self.lines:,} line{'s' if self.lines != 1 else ''} "
                "unpriced (the total is partial: priced lines only)"
            )
        if self.estimated_lines:
            bits.append(
                f"{self.estimated_lines:,} line{'s' if self.estimated_lines != 1 else ''} "
                "priced from an estimate"
            )
        return ", ".join(bits)


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
    _require_price_right(may_view_prices, "Sending a quote fixes its prices.")
    locked = _locked(quote)
    if locked.status != QuoteStatusChoices.DRAFT:
        raise _refused(locked, "sent", "a draft")
    today = timezone.localdate()
    if locked.valid_until < today:
        raise QuoteStatusError(
            locked,
            "valid_until",
            f"Quote {locked.label} was valid until {locked.valid_until}, which has passed: "
            "choose a later date before sending it.",
        )
    _check_currency(locked, today)
    _check_margin_floor(locked)
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
    return _transition(
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
    locked = _locked(quote)
    if locked.lifecycle_status == QUOTE_EXPIRED:
        raise _refused(
            locked,
            "accepted",
            "a sent, unexpired",
            hint=f"It was valid until {locked.valid_until}; re-price it to make a new version.",
        )
    if locked.status != QuoteStatusChoices.SENT:
        raise _refused(locked, "accepted", "a sent")
    locked.answered_at = timezone.now()
    return _transition(locked, actor, QuoteStatusChoices.ACCEPTED, f"Quote {locked.label} accepted")


@transaction.atomic
def quote_decline(*, quote: Quote, actor) -> Quote:
    """Record that the customer declined a sent (or expired) quote.

    Raises
    ------
    django.core.exceptions.ValidationError
        The quote is not sent (keyed ``status``).
    """
    locked = _locked(quote)
    if locked.status != QuoteStatusChoices.SENT:
        raise _refused(locked, "declined", "a sent or expired")
    locked.answered_at = timezone.now()
    return _transition(locked, actor, QuoteStatusChoices.DECLINED, f"Quote {locked.label} declined")


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
    _require_price_right(may_view_prices, "Re-pricing a quote fixes new prices.")
    locked = _locked(quote)
    if locked.status != QuoteStatusChoices.SENT:
        raise _refused(locked, "re-priced", "a sent or expired")
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
    _check_currency(new, timezone.localdate())
    new.save()
    _transition(
        locked,
        actor,
        QuoteStatusChoices.SUPERSEDED,
        f"Quote {locked.label} superseded by {new.label}",
        by=new.label,
    )
    _audit_quote(
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


# --- Pricing ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuoteDocument:
    """Everything a quote page, download or API answer shows.

    ``priced`` is ``None`` when prices are left out (quantities only). ``frozen`` documents
    are a sent quote's snapshot: the date, design name, revision, book name, customer name
    and address and terms are the ones it was sent with. Files print ``customer_name``,
    ``customer_address`` and ``terms`` from here, never from the quote.
    """

    quote: Quote
    bom: BillOfMaterials
    priced: PricedQuote | None
    priced_on: date
    frozen: bool = False
    design_name: str = ""
    revision_number: int = 0
    price_book_slug: str = ""
    price_book_name: str = ""
    customer_name: str = ""
    customer_address: str = ""
    terms: str = ""

    @property
    def with_prices(self) -> bool:
        return self.priced is not None

    def as_dict(self) -> dict:
        quote = self.quote
        result = {
            "number": quote.number,
            "version": quote.version,
            "label": quote.label,
            "status": quote.lifecycle_status,
            "frozen": self.frozen,
            "design": quote.design_id,
            "design_name": self.design_name,
            "revision": self.revision_number,
            "customer": self.customer_name,
            "customer_address": self.customer_address,
            "terms": self.terms,
            "valid_until": quote.valid_until.isoformat(),
            "currency": quote.currency,
            "price_book": self.price_book_slug,
            "price_condition": quote.price_condition,
            "priced_on": self.priced_on.isoformat(),
            "bom_notes": list(self.bom.notes),
            "with_prices": self.with_prices,
        }
        if self.priced is not None:
            result["notes"] = quote.notes  # internal: with the prices only
            result.update(self.priced.as_dict())
        else:
            result["prices_hidden"] = PRICES_HIDDEN
            result["lines"] = [
                {
                    "part": line.part,
                    "part_number": line.part_number,
                    "name": line.name,
                    "manufacturer": line.manufacturer,
                    "category": line.category,
                    "tier": line.tier,
                    "length_m": line.length_m,
                    "base_quantity": line.base_quantity,
                    "spares": line.spares,
                    "quantity": line.quantity,
                }
                for line in self.bom.ordered_lines()
            ]
        return result


def quote_price(quote: Quote, *, with_prices: bool = True) -> QuoteDocument:
    """The quote's bill of materials (with its spares), priced when asked: a draft from the
    price book as it stands, offers in other currencies converted with today's exchange rates;
    a sent quote from its snapshot.

    Raises
    ------
    django.core.exceptions.ValidationError
        The stored terms cannot be used (keyed by the field at fault).
    """
    if quote.frozen:
        return _frozen_document(quote, with_prices=with_prices)
    try:
        bom = revision_bom(quote.revision, spares_pct=quote.spares_pct or None)
    except ValueError as exc:  # BomError: bad spares
        raise ValidationError({"spares_pct": str(exc)}) from exc
    priced = None
    today = timezone.localdate()
    if with_prices:
        prices = prices_for(
            bom,
            price_table(quote.price_book),
            currency=quote.currency,
            condition=quote.price_condition,
            rates=exchange_rates(quote.currency, today),
        )
        terms = QuoteTerms(quote.currency, quote.discounts_pct or {}, quote.margin_pct)
        try:
            priced = price_quote(bom, prices, terms)
        except QuoteError as exc:
            field = exc.field.split(".")[0]
            raise ValidationError({field: exc.message}) from exc
    return QuoteDocument(
        quote=quote,
        bom=bom,
        priced=priced,
        priced_on=today,
        design_name=quote.design.name,
        revision_number=quote.revision.number,
        price_book_slug=quote.price_book.slug,
        price_book_name=quote.price_book.name,
        customer_name=quote.customer,
        customer_address=quote.customer_address,
        terms=quote.terms,
    )


def _frozen_document(quote: Quote, *, with_prices: bool) -> QuoteDocument:
    snapshot = quote.snapshot
    bom, priced = thaw(snapshot)
    # Quotes sent before the snapshot kept them: the quote's own (a sent quote never changes).
    customer = snapshot.get("customer") or {
        "name": quote.customer,
        "address": quote.customer_address,
    }
    return QuoteDocument(
        quote=quote,
        bom=bom,
        priced=priced if with_prices else None,
        priced_on=date.fromisoformat(snapshot["priced_on"]),
        frozen=True,
        design_name=snapshot["design"]["name"],
        revision_number=snapshot["revision"],
        price_book_slug=snapshot["price_book"]["slug"],
        price_book_name=snapshot["price_book"]["name"],
        customer_name=customer["name"],
        customer_address=customer["address"],
        terms=snapshot.get("terms", quote.terms),
    )


@dataclass(frozen=True)
class RateMove:
    """An exchange rate a sent quote used that another rate replaces today (``today`` None:
    the rate is gone)."""

    sent: ExchangeRate
    today: ExchangeRate | None


@dataclass(frozen=True)
class RepriceCheck:
    """Whether re-pricing a sent quote would change it: book prices that moved since it was
    sent (``price_moves``), exchange rates it used that have a newer value (``rate_moves``)
    and a newer revision of the design (``newer_revision``)."""

    price_moves: tuple[PriceMove, ...]
    newer_revision: int | None
    rate_moves: tuple[RateMove, ...] = ()

    @property
    def available(self) -> bool:
        return bool(self.price_moves) or bool(self.rate_moves) or self.newer_revision is not None

    def reasons(self) -> list[str]:
        reasons = []
        if self.price_moves:
            count = len(self.price_moves)
            reasons.append(
                f"the price book has changed the price of {count} part{'s' if count != 1 else ''}"
            )
        for move in self.rate_moves:
            pair = f"{move.sent.from_currency} to {move.sent.to_currency}"
            if move.today is None:
                reasons.append(f"the exchange rate from {pair} it used is no longer in the table")
            else:
                reasons.append(
                    f"the exchange rate from {pair} is {move.today.rate} from "
                    f"{move.today.valid_from} (sent at {move.sent.rate} from "
                    f"{move.sent.valid_from})"
                )
        if self.newer_revision is not None:
            reasons.append(f"the design has a newer revision ({self.newer_revision})")
        return reasons

    def as_dict(self) -> dict:
        """JSON-ready (prices in it: for users with the price right only)."""

        def money(value):
            return None if value is None else f"{value:.2f}"

        return {
            "available": self.available,
            "reasons": self.reasons(),
            "price_changes": [
                {
                    "part": move.part,
                    "length_m": move.length_m,
                    "sent": money(move.sent),
                    "sent_currency": move.sent_currency,
                    "today": money(move.today),
                    "today_currency": move.today_currency,
                }
                for move in self.price_moves
            ],
            "exchange_rate_changes": [
                {
                    "sent": move.sent.as_dict(),
                    "today": None if move.today is None else move.today.as_dict(),
                }
                for move in self.rate_moves
            ],
            "newer_revision": self.newer_revision,
        }


def quote_reprice_check(quote: Quote) -> RepriceCheck | None:
    """For a sent (or expired) quote: what a re-price would change, from the quote's price
    book and design as they are now; ``None`` for a quote that cannot be re-priced (a draft
    is priced from the book anyway)."""
    if quote.status != QuoteStatusChoices.SENT:
        return None
    _, priced = thaw(quote.snapshot)
    rates = exchange_rates(priced.currency, timezone.localdate())
    moves = moved_prices(
        priced, price_table(quote.price_book), condition=quote.price_condition, rates=rates
    )
    rate_moves = []
    for sent in priced.exchange_rates:
        today = rates.get(sent.from_currency)
        if today is None or (today.rate, today.valid_from) != (sent.rate, sent.valid_from):
            rate_moves.append(RateMove(sent=sent, today=today))
    latest = quote.design.latest_revision
    sent_revision = quote.snapshot["revision"]
    newer = latest.number if latest is not None and latest.number > sent_revision else None
    return RepriceCheck(price_moves=moves, newer_revision=newer, rate_moves=tuple(rate_moves))


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


@dataclass(frozen=True)
class ExportFile:
    content: bytes
    filename: str
    content_type: str


def quote_export(
    *, quote: Quote, actor, fmt: str, may_view_prices: bool, audience: str = "internal"
) -> ExportFile:
    """The priced quote as a PDF, XLSX or CSV file (a sent quote: as sent) for ``audience``
    (:data:`planner.quotes.files.AUDIENCES`: ``customer``, the copy without cost, discount,
    margin or sources, named ``<quote>-customer.<fmt>``; ``internal``, everything); the
    download is written to the audit log.

    Raises
    ------
    PermissionDenied
        ``may_view_prices`` is false: both copies are price documents.
    ValueError
        ``fmt`` is not one of :data:`EXPORT_FORMATS`, or ``audience`` is unknown.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"format: use one of {', '.join(EXPORT_FORMATS)}")
    if not may_view_prices:
        raise PermissionDenied(PRICES_HIDDEN + " Quote downloads contain prices.")
    if audience not in quote_files.AUDIENCES:
        raise ValueError(f"audience: use {' or '.join(quote_files.AUDIENCES)}")
    document = quote_price(quote)
    content = cached(
        "quote-file",
        [fmt, audience, _document_fingerprint(document)],
        lambda: quote_files.quote_file(document, fmt, audience=audience),
    )
    _audit_quote(
        quote,
        actor,
        AuditActionChoices.EXPORT_DOWNLOADED,
        f"Quote {quote.label} downloaded as {fmt.upper()} ({audience} copy)",
        {
            "format": fmt,
            "audience": audience,
            "revision": document.revision_number,
            "version": quote.version,
            "status": document.priced.status,
        },
    )
    stem = f"{quote_file_stem(quote)}{quote_files.file_suffix(audience)}"
    return ExportFile(content, f"{stem}.{fmt}", EXPORT_FORMATS[fmt])


#: Bump when a quote file's layout changes, so that files kept in the cache are made again.
FILES_VERSION = 2


def _document_fingerprint(document: QuoteDocument) -> str:
    """A hash of everything a quote file prints: the priced lines with their offers (grade
    and note included: :func:`~planner.domain.outputs.quote_versions.freeze`), the quote's
    own fields (its ``updated`` time changes with every save and status change) and the
    document's names, dates and texts. Two documents with the same fingerprint give the same
    file, so a file is made once and then read from the cache (:func:`quote_export`)."""
    quote = document.quote
    body = {
        "files": FILES_VERSION,
        "priced": freeze(document.bom, document.priced),
        "quote": [quote.pk, quote.label, quote.updated.isoformat() if quote.updated else ""],
        "document": [
            document.priced_on.isoformat(),
            document.frozen,
            document.design_name,
            document.revision_number,
            document.price_book_slug,
            document.price_book_name,
            document.customer_name,
            document.customer_address,
            document.terms,
        ],
    }
    text = json.dumps(body, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def quote_file_stem(quote: Quote) -> str:
    """``Q-2026-0042`` for a first version, ``Q-2026-0042-v2`` after."""
    return quote.number if quote.version == 1 else f"{quote.number}-v{quote.version}"


# --- Revision diff --------------------------------------------------------------------------------
