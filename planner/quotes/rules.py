"""What every step of a quote's life follows (:mod:`planner.quotes.services` and its parts):
the quote is read again and locked (:func:`lock_quote`); a step its status does not allow is
refused with a :class:`QuoteStatusError` naming the status (:func:`refused`); every change is
written to the audit log (:func:`audit_quote`, :func:`transition`); and a step that fixes or
reads prices needs the price right (:func:`require_price_right`).
"""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError

from planner.audit.log import audit_record
from planner.audit.models import AuditActionChoices
from planner.quotes.models import QUOTE_STATUS_LABELS, Quote
from planner.teams.selectors import PRICES_HIDDEN


def decimal_text(value: Decimal) -> str:
    """``12.5``, ``10``: a Decimal as exact text without trailing zeros (never ``1E+1``)."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def percent_text(value) -> str:
    """``12.5 %``: a percentage as exact text."""
    return f"{decimal_text(Decimal(value))} %"


def audit_quote(quote: Quote, actor, action: str, summary: str, details: dict) -> None:
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


#: Why a sent quote cannot be changed, and what to do instead.
FROZEN_HINT = "A sent quote does not change: re-price it to make a new version."


def lock_quote(quote: Quote) -> Quote:
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


def refused(quote: Quote, action: str, allowed: str, *, hint: str = "") -> QuoteStatusError:
    """The error for a transition the quote's status does not allow, naming the status."""
    status = QUOTE_STATUS_LABELS[quote.lifecycle_status].lower()
    message = f"Quote {quote.label} is {status}: only {allowed} quote can be {action}."
    return QuoteStatusError(quote, "status", f"{message} {hint}".strip())


def transition(quote: Quote, actor, status: str, summary: str, **details) -> Quote:
    """Store the new ``status`` of the locked ``quote`` (validated) and audit it."""
    old = quote.lifecycle_status
    quote.status = status
    quote.full_clean()
    quote.save()
    audit_quote(
        quote,
        actor,
        AuditActionChoices.QUOTE_CHANGED,
        summary,
        {"change": "status", "status": {"old": old, "new": status}, **details},
    )
    return quote


def require_price_right(may_view_prices: bool, what: str) -> None:
    """Refuse (403) a step that fixes or reads prices to a user without the price right."""
    if not may_view_prices:
        raise PermissionDenied(f"{PRICES_HIDDEN} {what}")
