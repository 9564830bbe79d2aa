"""Quotes of a design revision: create, change and delete them (audited), price them, export
them as PDF or XLSX, and compare two revisions' bills of materials with cost and power deltas.

Pricing is :mod:`planner.domain.outputs.quote` applied to the revision's bill of materials
(:func:`planner.outputs.services.revision_bom`, with the quote's spares) and the quote's price book
(:func:`planner.designs.adapters.price_table`). A quote stores its terms, not its prices: it is
priced
from the book as the book stands when it is opened, exported or downloaded.

Who may see prices is decided by the caller
(:func:`planner.designs.selectors.user_can_view_prices`):
:func:`quote_price` leaves prices out when asked, and :func:`quote_export` refuses without
them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone

from inventory.models import PriceBook
from planner.audit.log import audit_record
from planner.audit.models import AuditActionChoices
from planner.designs.adapters import price_table
from planner.designs.bom import revision_bom
from planner.designs.models import Design, DesignRevision
from planner.domain.outputs.bom import BillOfMaterials
from planner.domain.outputs.quote import (
    PricedQuote,
    QuoteError,
    QuoteTerms,
    price_quote,
    prices_for,
)
from planner.quotes.models import Quote, QuoteNumberSequence
from planner.teams.selectors import PRICES_HIDDEN

__all__ = [
    "EDITABLE_FIELDS",
    "EXPORT_FORMATS",
    "PRICE_TERMS",
    "ExportFile",
    "QuoteDocument",
    "quote_create",
    "quote_delete",
    "quote_export",
    "quote_get",
    "quote_list",
    "quote_number",
    "quote_price",
    "quote_update",
]

#: What a quote's author may change after creating it (the number never changes).
EDITABLE_FIELDS = (
    "revision",
    "customer",
    "price_book",
    "price_condition",
    "currency",
    "discounts_pct",
    "margin_pct",
    "spares_pct",
    "valid_until",
    "notes",
)
#: Terms that give prices away (the discounts and margin turn the book's prices into the
#: customer's) and the internal notes: shown only to users with the price right.
PRICE_TERMS = ("discounts_pct", "margin_pct", "notes")
EXPORT_FORMATS = {
    "pdf": "application/pdf",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
PRICE_TERMS_HIDDEN = (
    "Discounts, margin and internal notes of a quote are shown and changed only by users with "
    "the price right (a sales role in a team)."
)


def quote_list(design: Design):
    """Quotes of ``design``, newest first."""
    return design.quotes.select_related("revision", "price_book", "created_by")


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


def _percent_map(values: Mapping | None) -> dict:
    """Drop zero entries so that stored maps stay small and compare equal."""
    if not isinstance(values, Mapping):
        return values  # clean() names the problem
    return {
        key: float(value) if isinstance(value, Decimal) else value
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
        A changed value is out of range (keyed by the field); nothing is saved.
    """
    unknown = sorted(set(changes) - set(EDITABLE_FIELDS))
    if unknown:
        raise TypeError(f"quote_update() cannot change {', '.join(unknown)}")
    locked = Quote.objects.select_for_update().get(pk=quote.pk)
    for name in ("discounts_pct", "spares_pct"):
        if name in changes:
            changes[name] = _percent_map(changes[name] or {})
    if "currency" in changes:
        changes["currency"] = str(changes["currency"] or "").strip().upper()
    if "customer" in changes:
        changes["customer"] = str(changes["customer"] or "").strip()
    before = {name: _plain(getattr(locked, name)) for name in changes}
    for name, value in changes.items():
        setattr(locked, name, value)
    locked.full_clean()
    locked.save()
    changed = [name for name in changes if _plain(getattr(locked, name)) != before[name]]
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
                    if name != "notes"
                },
            },
        )
    return locked


@transaction.atomic
def quote_delete(*, quote: Quote, actor) -> None:
    """Delete ``quote``; its number is not given again."""
    _audit_quote(
        quote,
        actor,
        AuditActionChoices.QUOTE_CHANGED,
        f"Quote {quote.number} for {quote.customer} deleted",
        {"change": "deleted"},
    )
    quote.delete()


# --- Pricing ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuoteDocument:
    """Everything a quote page, download or API answer shows.

    ``priced`` is ``None`` when prices are left out (quantities only).
    """

    quote: Quote
    bom: BillOfMaterials
    priced: PricedQuote | None
    priced_on: date

    @property
    def with_prices(self) -> bool:
        return self.priced is not None

    def as_dict(self) -> dict:
        quote = self.quote
        result = {
            "number": quote.number,
            "design": quote.design_id,
            "revision": quote.revision.number,
            "customer": quote.customer,
            "valid_until": quote.valid_until.isoformat(),
            "currency": quote.currency,
            "price_book": quote.price_book.slug,
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
                for line in self.bom.lines
            ]
        return result


def quote_price(quote: Quote, *, with_prices: bool = True) -> QuoteDocument:
    """The bill of materials of the quote's revision (with its spares), priced when asked.

    Raises
    ------
    django.core.exceptions.ValidationError
        The stored terms cannot be used (keyed by the field at fault).
    """
    try:
        bom = revision_bom(quote.revision, spares_pct=quote.spares_pct or None)
    except ValueError as exc:  # BomError: bad spares
        raise ValidationError({"spares_pct": str(exc)}) from exc
    priced = None
    if with_prices:
        prices = prices_for(
            bom,
            price_table(quote.price_book),
            currency=quote.currency,
            condition=quote.price_condition,
        )
        terms = QuoteTerms(quote.currency, quote.discounts_pct or {}, quote.margin_pct)
        try:
            priced = price_quote(bom, prices, terms)
        except QuoteError as exc:
            field = exc.field.split(".")[0]
            raise ValidationError({field: exc.message}) from exc
    return QuoteDocument(quote=quote, bom=bom, priced=priced, priced_on=timezone.localdate())


@dataclass(frozen=True)
class ExportFile:
    content: bytes
    filename: str
    content_type: str


def quote_export(*, quote: Quote, actor, fmt: str, may_view_prices: bool) -> ExportFile:
    """The priced quote as a PDF or XLSX file; the download is written to the audit log.

    Raises
    ------
    PermissionDenied
        ``may_view_prices`` is false: the files are price documents.
    ValueError
        ``fmt`` is not one of :data:`EXPORT_FORMATS`.
    """
    from planner.quotes import files as quote_files

    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"format: use one of {', '.join(EXPORT_FORMATS)}")
    if not may_view_prices:
        raise PermissionDenied(PRICES_HIDDEN + " Quote downloads contain prices.")
    document = quote_price(quote)
    render = quote_files.quote_pdf if fmt == "pdf" else quote_files.quote_xlsx
    content = render(document)
    _audit_quote(
        quote,
        actor,
        AuditActionChoices.EXPORT_DOWNLOADED,
        f"Quote {quote.number} downloaded as {fmt.upper()}",
        {"format": fmt, "revision": quote.revision.number, "status": document.priced.status},
    )
    return ExportFile(content, f"{quote.number}.{fmt}", EXPORT_FORMATS[fmt])


# --- Revision diff --------------------------------------------------------------------------------
