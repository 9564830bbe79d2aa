"""Two revisions' bills of materials compared part by part, priced where a price book is given.

Split from :mod:`planner.domain.outputs.quote` (pricing one bill at a price table): a
:class:`BomDiff` lists each part, at each ordered length, whose quantity changed, with the
change priced by the same offers and rounding as a quote."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from planner.domain.outputs.bom import BillOfMaterials, BomLine
from planner.domain.outputs.bom_categories import CATEGORIES
from planner.domain.outputs.quote import (
    CurrencyMismatchError,
    PriceChoice,
    PriceKey,
    PriceOffer,
    QuoteError,
    _part_label,
    price_key,
    round_money,
)

__all__ = ["BomDiff", "BomDiffRow", "bom_diff"]


@dataclass(frozen=True)
class BomDiffRow:
    """One part (at one ordered length) whose quantity differs between two bills."""

    part: str
    name: str
    category: str
    length_m: float | None
    old_quantity: int
    new_quantity: int
    unit_price: Decimal | None  # book price used for the cost delta (None: unpriced)

    @property
    def delta(self) -> int:
        return self.new_quantity - self.old_quantity

    @property
    def change(self) -> str:
        """``added``, ``removed`` or ``changed``."""
        if self.old_quantity == 0:
            return "added"
        if self.new_quantity == 0:
            return "removed"
        return "changed"

    @property
    def cost_delta(self) -> Decimal | None:
        return None if self.unit_price is None else self.unit_price * self.delta

    @property
    def label(self) -> str:
        return _part_label((self.part, self.length_m))


@dataclass(frozen=True)
class BomDiff:
    """Parts added, removed and changed in quantity, with cost and power deltas."""

    rows: tuple[BomDiffRow, ...]
    currency: str | None
    cost_delta: Decimal | None  # priced rows only; None when no prices were given
    unpriced_parts: tuple[str, ...]  # rows that changed but have no price
    power_delta_w: float | None
    old_power_w: float | None
    new_power_w: float | None

    @property
    def added(self) -> tuple[BomDiffRow, ...]:
        return tuple(r for r in self.rows if r.change == "added")

    @property
    def removed(self) -> tuple[BomDiffRow, ...]:
        return tuple(r for r in self.rows if r.change == "removed")

    @property
    def changed(self) -> tuple[BomDiffRow, ...]:
        return tuple(r for r in self.rows if r.change == "changed")

    @property
    def cost_complete(self) -> bool:
        return self.cost_delta is not None and not self.unpriced_parts

    def as_dict(self, *, with_prices: bool = True) -> dict:
        """JSON-ready; ``with_prices=False`` leaves every price and cost out."""

        def row(r: BomDiffRow) -> dict:
            out = {
                "part": r.part,
                "name": r.name,
                "category": r.category,
                "length_m": r.length_m,
                "old_quantity": r.old_quantity,
                "new_quantity": r.new_quantity,
                "delta": r.delta,
                "change": r.change,
            }
            if with_prices:
                out["unit_price"] = None if r.unit_price is None else f"{r.unit_price:.2f}"
                out["cost_delta"] = None if r.cost_delta is None else f"{r.cost_delta:.2f}"
            return out

        result = {
            "added": [row(r) for r in self.added],
            "removed": [row(r) for r in self.removed],
            "changed": [row(r) for r in self.changed],
            "power": {
                "old_w": self.old_power_w,
                "new_w": self.new_power_w,
                "delta_w": self.power_delta_w,
            },
        }
        if with_prices:
            result["cost"] = {
                "currency": self.currency,
                "delta": None if self.cost_delta is None else f"{self.cost_delta:.2f}",
                "complete": self.cost_complete,
                "unpriced_parts": list(self.unpriced_parts),
            }
        return result


def _quantities(bom: BillOfMaterials) -> dict[PriceKey, tuple[BomLine, int]]:
    totals: dict[PriceKey, tuple[BomLine, int]] = {}
    for line in bom.ordered_lines():
        key = price_key(line)
        first, quantity = totals.get(key, (line, 0))
        totals[key] = (first, quantity + line.quantity)
    return totals


def _diff_order(key: PriceKey, line: BomLine):
    category = CATEGORIES.index(line.category) if line.category in CATEGORIES else len(CATEGORIES)
    return (category, key[0], -1.0 if key[1] is None else key[1])


def bom_diff(
    old: BillOfMaterials,
    new: BillOfMaterials,
    *,
    prices: Mapping[PriceKey, PriceChoice | PriceOffer | None] | None = None,
    currency: str | None = None,
    old_power_w: float | None = None,
    new_power_w: float | None = None,
) -> BomDiff:
    """What changed from ``old`` to ``new``: parts by (part, length), cost and power deltas.

    Parameters
    ----------
    old, new
        The two bills of materials (quantities summed over tiers per part and length).
    prices
        Price lookup per :func:`price_key` (book prices, no discount or margin); ``None``
        for no cost delta at all.
    currency
        The prices' currency (required with ``prices``; a price in another one raises
        :class:`CurrencyMismatchError`).
    old_power_w, new_power_w
        Power totals computed by the caller; the delta is ``None`` unless both are given.

    Examples
    --------
    >>> from planner.domain.outputs.bom import BillOfMaterials, BomLine
    >>> def bom(n):
    ...     line = BomLine("SW", "", "Switch", "acme", "switch", "leaf", None, n, 0, n, "device")
    ...     return BillOfMaterials(lines=(line,), spares_pct={})
    >>> diff = bom_diff(bom(2), bom(5), prices={("SW", None): PriceOffer("SW", Decimal(10), "USD")},
    ...                 currency="USD", old_power_w=100.0, new_power_w=250.0)
    >>> diff.changed[0].delta, diff.cost_delta, diff.power_delta_w
    (3, Decimal('30'), 150.0)

    Long because: one pass over both bills by (part, length) that prices each change as it goes, so
    that cost and power deltas come from the same rows.
    """
    if prices is not None and currency is None:
        raise QuoteError("currency", "give the currency of the prices")
    before, after = _quantities(old), _quantities(new)
    lines = {key: entry[0] for key, entry in (before | after).items()}  # newer names win
    rows = []
    for key in sorted(lines, key=lambda k: _diff_order(k, lines[k])):
        line = lines[key]
        old_quantity = before.get(key, (line, 0))[1]
        new_quantity = after.get(key, (line, 0))[1]
        if old_quantity == new_quantity:
            continue
        unit_price = None
        if prices is not None:
            found = prices.get(key)
            offer = found.offer if isinstance(found, PriceChoice) else found
            rate = found.rate if isinstance(found, PriceChoice) else None
            if offer is not None:
                if offer.currency == currency:
                    unit_price = Decimal(offer.amount)
                elif rate is not None and rate.from_currency == offer.currency:
                    unit_price = round_money(rate.convert(offer.amount), currency)
                else:
                    raise CurrencyMismatchError(
                        f"prices.{_part_label(key)}",
                        f"the offer is in {offer.currency}, not {currency}",
                    )
        rows.append(
            BomDiffRow(
                part=key[0],
                name=line.name,
                category=line.category,
                length_m=key[1],
                old_quantity=old_quantity,
                new_quantity=new_quantity,
                unit_price=unit_price,
            )
        )
    cost_delta = None
    unpriced: tuple[str, ...] = ()
    if prices is not None:
        cost_delta = sum((r.cost_delta for r in rows if r.cost_delta is not None), Decimal(0))
        unpriced = tuple(r.label for r in rows if r.unit_price is None)
    power_delta = None
    if old_power_w is not None and new_power_w is not None:
        power_delta = float(new_power_w) - float(old_power_w)
    return BomDiff(
        rows=tuple(rows),
        currency=currency if prices is not None else None,
        cost_delta=cost_delta,
        unpriced_parts=unpriced,
        power_delta_w=power_delta,
        old_power_w=old_power_w,
        new_power_w=new_power_w,
    )
