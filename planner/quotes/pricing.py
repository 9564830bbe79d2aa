"""A quote priced: :func:`quote_price` gives the :class:`QuoteDocument` every page, download and
API answer shows. A draft is priced from its price book as the book stands
(:mod:`planner.domain.outputs.quote` applied to the revision's bill of materials, offers in other
currencies converted with the exchange rates valid today, :func:`check_currency`); a sent quote
is read from its snapshot. :func:`quote_reprice_check` says what re-pricing a sent quote would
change; :class:`QuoteGaps` what a priced quote lacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.core.exceptions import ValidationError
from django.utils import timezone

from planner.designs.adapters import exchange_rates, price_table
from planner.designs.bom import revision_bom
from planner.domain.outputs.bom import BillOfMaterials
from planner.domain.outputs.quote import (
    ExchangeRate,
    PricedQuote,
    QuoteError,
    QuoteTerms,
    price_quote,
    prices_for,
)
from planner.domain.outputs.quote_versions import PriceMove, moved_prices, thaw
from planner.quotes.models import Quote, QuoteStatusChoices
from planner.teams.selectors import PRICES_HIDDEN


def check_currency(quote: Quote, day: date) -> None:
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
