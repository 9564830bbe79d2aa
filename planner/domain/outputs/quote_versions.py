"""Sent quotes: the frozen snapshot of a priced quote, the line-by-line difference between two
versions, and the book prices that moved since a quote was sent.

Pure Python (no Django), :class:`~decimal.Decimal` arithmetic throughout.

- :func:`freeze` turns a bill of materials and its priced quote
  into JSON (amounts as exact decimal strings, never floats) and :func:`thaw` reads it back
  into equal dataclasses, so that every reader of a sent quote (page, API, PDF, XLSX, CSV)
  renders the same figures it was sent with, whatever the price book, catalog or design
  became since.
- :func:`quote_diff` compares two versions of a quote line by line: a line is a part at one
  ordered length in one tier; it is *added*, *removed* or *changed* (quantity, unit price,
  the offer it was priced from, priced or not), with the sell-total delta.
- :func:`moved_prices` lists the lines of a frozen quote whose book price differs from the
  one the price book gives today (the "re-price available" signal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from planner.domain.outputs.bom import BillOfMaterials, BomLine
from planner.domain.outputs.quote import (
    CategoryTotal,
    ExchangeRate,
    ExchangeRates,
    PriceChoice,
    PricedLine,
    PricedQuote,
    PriceOffer,
    PriceTable,
    format_money,
    price_key,
)

__all__ = [
    "SNAPSHOT_FORMAT",
    "PriceMove",
    "QuoteDiff",
    "QuoteDiffRow",
    "freeze",
    "moved_prices",
    "quote_diff",
    "thaw",
]

#: Version of the snapshot layout (bumped if it ever changes; :func:`thaw` checks it). Keys
#: added later (a line's exchange ``rate``) are optional: older snapshots read as before.
SNAPSHOT_FORMAT = 1


def _dec(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def _undec(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _offer_dict(offer: PriceOffer | None) -> dict | None:
    if offer is None:
        return None
    return {
        "part": offer.part,
        "amount": str(offer.amount),
        "currency": offer.currency,
        "condition": offer.condition,
        "length_m": offer.length_m,
        "seller": offer.seller,
        "as_of": offer.as_of,
        "source_url": offer.source_url,
        "reference": offer.reference,
        "grade": offer.grade,
        **({"note": offer.note} if offer.note else {}),
    }


def _offer(data: Mapping | None) -> PriceOffer | None:
    if data is None:
        return None
    return PriceOffer(**{**data, "amount": Decimal(data["amount"])})


def _total_dict(total: CategoryTotal) -> dict:
    return {
        "category": total.category,
        "lines": total.lines,
        "unpriced_lines": total.unpriced_lines,
        "quantity": total.quantity,
        "cost": str(total.cost),
        "sell": str(total.sell),
    }


def _total(data: Mapping) -> CategoryTotal:
    return CategoryTotal(**{**data, "cost": Decimal(data["cost"]), "sell": Decimal(data["sell"])})


def freeze(bom: BillOfMaterials, priced: PricedQuote) -> dict:
    """The priced quote as JSON: every line (the BOM line, the offer chosen with its seller,
    date and source, the exchange rate that converted it with its date and source, the
    discount, book, cost and sell prices), the category and network subtotals and the totals,
    exactly as computed.

    Examples
    --------
    >>> from planner.domain.outputs.quote import QuoteTerms, price_quote
    >>> line = BomLine("SW", "", "Switch", "acme", "switch", "leaf", None, 2, 0, 2, "device")
    >>> bom = BillOfMaterials(lines=(line,), spares_pct={})
    >>> priced = price_quote(bom, {("SW", None): PriceOffer("SW", Decimal("99.95"), "USD")},
    ...                      QuoteTerms("USD", margin_pct=10))
    >>> data = freeze(bom, priced)
    >>> data["priced"]["sell_total"], thaw(data) == (bom, priced)
    ('222.12', True)
    """
    return {
        "format": SNAPSHOT_FORMAT,
        "bom": {"spares_pct": dict(bom.spares_pct), "notes": list(bom.notes)},
        "priced": {
            "currency": priced.currency,
            "margin_pct": str(priced.margin_pct),
            "discounts_pct": {key: str(value) for key, value in priced.discounts_pct.items()},
            "lines": [
                {
                    "line": p.line.to_dict(),
                    "offer": _offer_dict(p.offer),
                    "unpriced_reason": p.unpriced_reason,
                    "discount_pct": str(p.discount_pct),
                    "unit_book": _dec(p.unit_book),
                    "unit_cost": _dec(p.unit_cost),
                    "unit_sell": _dec(p.unit_sell),
                    "extended_cost": _dec(p.extended_cost),
                    "extended_sell": _dec(p.extended_sell),
                    "rate": None if p.rate is None else p.rate.as_dict(),
                }
                for p in priced.lines
            ],
            "exchange_rates": [rate.as_dict() for rate in priced.exchange_rates],
            "categories": [_total_dict(c) for c in priced.categories],
            "networks": [_total_dict(c) for c in priced.networks],
            "cost_total": str(priced.cost_total),
            "sell_total": str(priced.sell_total),
            "unpriced_lines": priced.unpriced_lines,
            "unpriced_parts": list(priced.unpriced_parts),
        },
    }


def thaw(data: Mapping) -> tuple[BillOfMaterials, PricedQuote]:
    """The bill of materials and priced quote :func:`freeze` stored (equal to the originals).

    Raises
    ------
    ValueError
        ``data`` is not a snapshot of a known :data:`SNAPSHOT_FORMAT`.
    """
    if not isinstance(data, Mapping) or data.get("format") != SNAPSHOT_FORMAT:
        raise ValueError("not a quote snapshot of a known format")
    stored = data["priced"]
    lines = tuple(
        PricedLine(
            line=BomLine(**p["line"]),
            offer=_offer(p["offer"]),
            unpriced_reason=p["unpriced_reason"],
            discount_pct=Decimal(p["discount_pct"]),
            unit_book=_undec(p["unit_book"]),
            unit_cost=_undec(p["unit_cost"]),
            unit_sell=_undec(p["unit_sell"]),
            extended_cost=_undec(p["extended_cost"]),
            extended_sell=_undec(p["extended_sell"]),
            rate=None if p.get("rate") is None else ExchangeRate.from_dict(p["rate"]),
        )
        for p in stored["lines"]
    )
    priced = PricedQuote(
        currency=stored["currency"],
        margin_pct=Decimal(stored["margin_pct"]),
        discounts_pct={key: Decimal(value) for key, value in stored["discounts_pct"].items()},
        lines=lines,
        categories=tuple(_total(c) for c in stored["categories"]),
        cost_total=Decimal(stored["cost_total"]),
        sell_total=Decimal(stored["sell_total"]),
        unpriced_lines=stored["unpriced_lines"],
        unpriced_parts=tuple(stored["unpriced_parts"]),
        networks=tuple(_total(c) for c in stored["networks"]),
    )
    bom = BillOfMaterials(
        lines=tuple(p.line for p in lines),
        spares_pct=dict(data["bom"]["spares_pct"]),
        notes=tuple(data["bom"]["notes"]),
    )
    return bom, priced


# --- Version diff -------------------------------------------------------------------------------


def _label(part: str, length_m: float | None) -> str:
    return part if length_m is None else f"{part} ({length_m:g} m)"


@dataclass(frozen=True)
class QuoteDiffRow:
    """One line (a part at one length in one tier) that differs between two versions.

    ``changes`` names what differs: ``quantity``, ``price`` (the unit sell price), ``offer``
    (priced from another offer: seller, date or source) and ``priced`` / ``unpriced`` (the
    line gained or lost its price). Amounts of a version the line is not in are ``None``.
    """

    part: str
    name: str
    category: str
    tier: str
    length_m: float | None
    change: str  # "added", "removed" or "changed"
    changes: tuple[str, ...]
    old_quantity: int
    new_quantity: int
    old_unit_sell: Decimal | None
    new_unit_sell: Decimal | None
    old_extended_sell: Decimal | None
    new_extended_sell: Decimal | None
    old_source: str
    new_source: str

    @property
    def label(self) -> str:
        return _label(self.part, self.length_m)

    @property
    def quantity_delta(self) -> int:
        return self.new_quantity - self.old_quantity

    @property
    def sell_delta(self) -> Decimal | None:
        """Change of the line's extended sell price, as the totals see it (a side without a
        price counts as nothing); ``None`` when neither side has a price."""
        if self.old_extended_sell is None and self.new_extended_sell is None:
            return None
        return (self.new_extended_sell or Decimal("0.00")) - (
            self.old_extended_sell or Decimal("0.00")
        )

    @property
    def shows_quantity(self) -> bool:
        """Whether the row says something without prices (added, removed, other quantity)."""
        return self.change != "changed" or "quantity" in self.changes


@dataclass(frozen=True)
class QuoteDiff:
    """What changed from one version of a quote to the next: the rows that differ (in the new
    version's line order, removed lines after), how many lines are the same, and the totals.
    ``currency_changed`` means the totals are in different currencies (no delta then)."""

    rows: tuple[QuoteDiffRow, ...]
    unchanged_lines: int
    old_currency: str
    new_currency: str
    old_sell_total: Decimal
    new_sell_total: Decimal
    old_cost_total: Decimal
    new_cost_total: Decimal
    old_status: str
    new_status: str

    @property
    def currency_changed(self) -> bool:
        return self.old_currency != self.new_currency

    @property
    def sell_delta(self) -> Decimal | None:
        return None if self.currency_changed else self.new_sell_total - self.old_sell_total

    @property
    def cost_delta(self) -> Decimal | None:
        return None if self.currency_changed else self.new_cost_total - self.old_cost_total

    def of(self, change: str) -> tuple[QuoteDiffRow, ...]:
        return tuple(row for row in self.rows if row.change == change)

    @property
    def price_changes(self) -> tuple[QuoteDiffRow, ...]:
        """Lines in both versions whose unit price differs."""
        return tuple(row for row in self.of("changed") if "price" in row.changes)

    def as_dict(self, *, with_prices: bool = True) -> dict:
        """JSON-ready; ``with_prices=False`` keeps only quantities (rows that differ in price
        alone are left out, and so are the totals)."""

        def money(value: Decimal | None, currency: str | None = None) -> str | None:
            return format_money(value, currency or self.new_currency)

        def row(r: QuoteDiffRow) -> dict:
            out = {
                "part": r.part,
                "name": r.name,
                "category": r.category,
                "tier": r.tier,
                "length_m": r.length_m,
                "change": r.change,
                "old_quantity": r.old_quantity,
                "new_quantity": r.new_quantity,
                "quantity_delta": r.quantity_delta,
            }
            if with_prices:
                out["changes"] = list(r.changes)
                out.update(
                    old_unit_sell=money(r.old_unit_sell, self.old_currency),
                    new_unit_sell=money(r.new_unit_sell),
                    old_extended_sell=money(r.old_extended_sell, self.old_currency),
                    new_extended_sell=money(r.new_extended_sell),
                    sell_delta=money(r.sell_delta),
                    old_source=r.old_source,
                    new_source=r.new_source,
                )
            else:
                out["changes"] = [c for c in r.changes if c == "quantity"]
            return out

        rows = [r for r in self.rows if with_prices or r.shows_quantity]
        result = {
            "added": [row(r) for r in rows if r.change == "added"],
            "removed": [row(r) for r in rows if r.change == "removed"],
            "changed": [row(r) for r in rows if r.change == "changed"],
        }
        if with_prices:
            result["unchanged_lines"] = self.unchanged_lines
            result["totals"] = {
                "old_currency": self.old_currency,
                "new_currency": self.new_currency,
                "old_sell": money(self.old_sell_total, self.old_currency),
                "new_sell": money(self.new_sell_total),
                "sell_delta": money(self.sell_delta),
                "old_cost": money(self.old_cost_total, self.old_currency),
                "new_cost": money(self.new_cost_total),
                "cost_delta": money(self.cost_delta),
                "old_status": self.old_status,
                "new_status": self.new_status,
            }
        return result


def _keyed(priced: PricedQuote) -> dict[tuple, PricedLine]:
    """Lines by (tier, part, length, n-th occurrence): a line's identity across versions."""
    keyed: dict[tuple, PricedLine] = {}
    for p in priced.lines:
        base = (p.line.tier, p.line.part, p.line.length_m)
        n = 0
        while (*base, n) in keyed:
            n += 1
        keyed[(*base, n)] = p
    return keyed


def _source(p: PricedLine | None) -> str:
    return p.offer.describe() if p is not None and p.offer is not None else ""


def _offer_identity(offer: PriceOffer | None):
    if offer is None:
        return None
    return (offer.seller, offer.as_of, offer.source_url, offer.condition, offer.length_m)


def quote_diff(old: PricedQuote, new: PricedQuote) -> QuoteDiff:
    """Line-by-line difference from version ``old`` to version ``new`` of a quote.

    Examples
    --------
    >>> from planner.domain.outputs.quote import QuoteTerms, price_quote
    >>> def version(count, price):
    ...     line = BomLine("SW", "", "Switch", "acme", "switch", "leaf", None, count, 0, count,
    ...                    "device")
    ...     bom = BillOfMaterials(lines=(line,), spares_pct={})
    ...     offer = PriceOffer("SW", Decimal(price), "USD")
    ...     return price_quote(bom, {("SW", None): offer}, QuoteTerms("USD"))
    >>> diff = quote_diff(version(2, "100"), version(3, "90"))
    >>> row = diff.rows[0]
    >>> row.change, row.changes, row.sell_delta, diff.sell_delta
    ('changed', ('quantity', 'price'), Decimal('70.00'), Decimal('70.00'))
    """
    before, after = _keyed(old), _keyed(new)
    rows: list[QuoteDiffRow] = []
    unchanged = 0
    for key in [*after, *(k for k in before if k not in after)]:
        was, now = before.get(key), after.get(key)
        line = (now or was).line
        if was is None:
            change, changes = "added", ()
        elif now is None:
            change, changes = "removed", ()
        else:
            found = []
            if was.line.quantity != now.line.quantity:
                found.append("quantity")
            if was.priced and now.priced:
                if was.unit_sell != now.unit_sell:
                    found.append("price")
                if _offer_identity(was.offer) != _offer_identity(now.offer):
                    found.append("offer")
            elif now.priced:
                found.append("priced")
            elif was.priced:
                found.append("unpriced")
            if not found:
                unchanged += 1
                continue
            change, changes = "changed", tuple(found)
        rows.append(
            QuoteDiffRow(
                part=line.part,
                name=line.name,
                category=line.category,
                tier=line.tier,
                length_m=line.length_m,
                change=change,
                changes=changes,
                old_quantity=was.line.quantity if was else 0,
                new_quantity=now.line.quantity if now else 0,
                old_unit_sell=was.unit_sell if was else None,
                new_unit_sell=now.unit_sell if now else None,
                old_extended_sell=was.extended_sell if was else None,
                new_extended_sell=now.extended_sell if now else None,
                old_source=_source(was),
                new_source=_source(now),
            )
        )
    return QuoteDiff(
        rows=tuple(rows),
        unchanged_lines=unchanged,
        old_currency=old.currency,
        new_currency=new.currency,
        old_sell_total=old.sell_total,
        new_sell_total=new.sell_total,
        old_cost_total=old.cost_total,
        new_cost_total=new.cost_total,
        old_status=old.status,
        new_status=new.status,
    )


# --- Re-price available ---------------------------------------------------------------------


@dataclass(frozen=True)
class PriceMove:
    """A part (at one length) whose book price today differs from the one it was sent with;
    ``None`` on a side means unpriced there. Amounts are the offers' own, in
    ``sent_currency`` and ``today_currency`` (before any exchange rate)."""

    part: str
    length_m: float | None
    sent: Decimal | None
    today: Decimal | None
    sent_currency: str = ""
    today_currency: str = ""

    @property
    def label(self) -> str:
        return _label(self.part, self.length_m)


def moved_prices(
    priced: PricedQuote,
    table: PriceTable,
    *,
    condition: str,
    rates: ExchangeRates | None = None,
) -> tuple[PriceMove, ...]:
    """Parts of the frozen quote ``priced`` whose book price in ``table`` (the quote's book
    today, same currency and offer condition, offers in other currencies with ``rates``) is
    not the one the quote was sent with: another amount or currency, or a part that gained or
    lost its price. A new offer at the same amount (another seller or date) is not a move:
    re-pricing would print the same figures. Compared in the offers' own currencies, so a
    new exchange rate is not a move here (the caller compares rates).

    Examples
    --------
    >>> from planner.domain.outputs.quote import QuoteTerms, price_quote
    >>> line = BomLine("SW", "", "Switch", "acme", "switch", "leaf", None, 2, 0, 2, "device")
    >>> bom = BillOfMaterials(lines=(line,), spares_pct={})
    >>> sent = price_quote(bom, {("SW", None): PriceOffer("SW", Decimal("100"), "USD")},
    ...                    QuoteTerms("USD"))
    >>> moved_prices(sent, PriceTable([PriceOffer("SW", Decimal("100.00"), "USD")]),
    ...              condition="new")
    ()
    >>> moved_prices(sent, PriceTable([PriceOffer("SW", Decimal("120"), "USD")]),
    ...              condition="new")[0].today
    Decimal('120')
    """
    moves: dict[tuple, PriceMove] = {}
    seen: set[tuple] = set()
    for p in priced.lines:
        key = price_key(p.line)
        if key in seen:
            continue
        seen.add(key)
        choice: PriceChoice = table.choose(
            key[0], key[1], currency=priced.currency, condition=condition, rates=rates
        )
        today = None if choice.offer is None else Decimal(choice.offer.amount)
        today_currency = "" if choice.offer is None else choice.offer.currency
        sent = None if p.offer is None else Decimal(p.offer.amount)
        sent_currency = "" if p.offer is None else p.offer.currency
        if (today, today_currency) != (sent, sent_currency):
            moves[key] = PriceMove(
                part=key[0],
                length_m=key[1],
                sent=sent,
                today=today,
                sent_currency=sent_currency,
                today_currency=today_currency,
            )
    return tuple(moves.values())
