"""Priced quotes of a bill of materials, and the difference between two bills.

Pure Python (no Django), :class:`~decimal.Decimal` arithmetic throughout: amounts never pass
through a float.

Pricing rules
-------------
- **Offer**: each BOM line is priced from one offer of the price book (:class:`PriceTable`):
  the lowest offer of the quote's condition (new, msrp or used) in the quote's currency. For a
  cable or fiber ordered at a length, an offer for exactly that length wins; an offer without
  a length counts only when the part comes in one length (its part number fixes the length).
- **Exchange rates**: when no offer in the quote's currency fits a line, offers in another
  currency count if an exchange rate from that currency to the quote's is given
  (:class:`ExchangeRate`, the rate valid on the quote's date); the lowest converted offer wins.
  Without a rate the line is *unpriced*, with the reason.
- **Discount** (percent per category) comes off the book price and gives the unit cost:
  ``unit_cost = book_price * (1 - discount / 100)``.
- **Margin** is a share of the sell price (the sales-engineer convention, not a markup on
  cost): ``unit_sell = unit_cost / (1 - margin / 100)``; a 20 % margin on a cost of 80 sells
  at 100. The margin must stay below 100 %.
- **Rounding** (:data:`ROUNDING_RULE`, stated once here): amounts are rounded half-up
  (:data:`ROUNDING`) to the minor unit of the quote's currency (:func:`minor_unit`: cents for
  USD or EUR, whole yen for JPY) at three places only, on every line: the converted book price
  (a book price in the quote's own currency is used as the book gives it), the unit cost and
  the unit sell price. Extended prices are ``quantity * rounded unit``, never rounded again;
  subtotals and totals are exact sums of the extended prices, so the printed document adds up.
- **Nothing ordered**: a BOM line of quantity 0 (a rack-scale system's trays or a device's
  PSUs when no spares are asked) is not quoted
  (:meth:`~planner.domain.outputs.bom.BillOfMaterials.ordered_lines`).
- **Unpriced parts** are listed with their reason and never counted as zero: totals then cover
  the priced lines only and say ``incomplete: N parts unpriced``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from planner.domain.outputs.bom import BillOfMaterials, BomLine
from planner.domain.outputs.bom_categories import CATEGORIES, NETWORK_TIERS

__all__ = [
    "bom_cost",
    "prices_for",
    "CONDITIONS",
    "MINOR_UNITS",
    "ROUNDING",
    "ROUNDING_RULE",
    "CategoryTotal",
    "CurrencyMismatchError",
    "ExchangeRate",
    "PriceChoice",
    "PriceOffer",
    "PriceTable",
    "PricedLine",
    "PricedQuote",
    "QuoteError",
    "QuoteTerms",
    "price_key",
    "format_money",
    "minor_unit",
    "price_quote",
    "round_cents",
    "round_money",
]

CENT = Decimal("0.01")
HUNDRED = Decimal(100)
CONDITIONS = ("new", "msrp", "used")
LENGTH_TOLERANCE_M = 0.005
#: The one rounding mode of quote amounts.
ROUNDING = ROUND_HALF_UP
#: Decimal places of a currency's minor unit, from ISO 4217 (list one, column "Minor unit";
#: source: https://www.six-group.com/en/products-services/financial-information/data-standards.html,
#: provenance: datasheet). A currency not listed here is taken to have cents (2 places), as
#: most ISO 4217 currencies do; add it here if it does not.
MINOR_UNITS = {
    **dict.fromkeys(("BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG"), 0),
    **dict.fromkeys(("RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF"), 0),
    **dict.fromkeys(("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"), 3),
    "CLF": 4,
    "UYW": 4,
}
DEFAULT_MINOR_UNIT = 2
ROUNDING_RULE = (
    "Converted book prices, unit costs and unit sell prices are rounded half-up to the "
    "currency's minor unit (the cent; the whole yen for JPY) on each line; extended prices are "
    "quantity × rounded unit price; totals are exact sums of the lines."
)
MARGIN_RULE = "Margin is a share of the sell price: sell = cost / (1 − margin)."
DISCOUNT_RULE = "Discounts come off the price-book price per category and give the unit cost."
_CURRENCY = re.compile(r"[A-Z]{3}")

#: How a BOM line finds its price: (part slug, ordered length in metres or None).
PriceKey = tuple[str, float | None]


class QuoteError(ValueError):
    """Quote terms or prices that cannot be used; ``field`` names the input at fault."""

    def __init__(self, field_name: str, message: str):
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


class CurrencyMismatchError(QuoteError):
    """A price in another currency than the quote's (prices are never converted)."""


def minor_unit(currency: str) -> int:
    """Decimal places of ``currency``'s minor unit (:data:`MINOR_UNITS`, else 2).

    >>> minor_unit("USD"), minor_unit("JPY"), minor_unit("KWD")
    (2, 0, 3)
    """
    return MINOR_UNITS.get(currency, DEFAULT_MINOR_UNIT)


def round_money(amount: Decimal, currency: str) -> Decimal:
    """``amount`` rounded half-up to ``currency``'s minor unit (the one rounding of quotes).

    >>> round_money(Decimal("2.345"), "USD"), round_money(Decimal("1234.5"), "JPY")
    (Decimal('2.35'), Decimal('1235'))
    """
    return amount.quantize(Decimal(1).scaleb(-minor_unit(currency)), rounding=ROUNDING)


def format_money(amount: Decimal | None, currency: str) -> str | None:
    """``amount`` as exact text with ``currency``'s decimal places (``None`` stays ``None``).

    >>> format_money(Decimal("1125"), "USD"), format_money(Decimal("1125"), "JPY")
    ('1125.00', '1125')
    """
    return None if amount is None else f"{amount:.{minor_unit(currency)}f}"


def round_cents(amount: Decimal) -> Decimal:
    """``amount`` rounded to the cent, half-up.

    Examples
    --------
    >>> round_cents(Decimal("2.345")), round_cents(Decimal("2.3449"))
    (Decimal('2.35'), Decimal('2.34'))
    """
    return amount.quantize(CENT, rounding=ROUNDING)


def _percent(value, where: str, *, below_100: bool = False) -> Decimal:
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError) as exc:
        raise QuoteError(where, f"{value!r} is not a number of percent") from exc
    if not number.is_finite() or number < 0 or number > HUNDRED:
        raise QuoteError(where, f"{value} is outside 0..100 percent")
    if below_100 and number == HUNDRED:
        raise QuoteError(where, "a margin of 100 % would make the sell price infinite")
    return number


def price_key(line: BomLine) -> PriceKey:
    """The key a BOM line is priced by: its part and its ordered length."""
    return (line.part, line.length_m)


@dataclass(frozen=True)
class PriceOffer:
    """One offer of a price book: a unit price in a currency, with where it came from."""

    part: str
    amount: Decimal
    currency: str
    condition: str = "new"
    length_m: float | None = None
    seller: str = ""
    as_of: str = ""
    source_url: str = ""
    reference: str = ""  # e.g. the price row's id
    grade: str = ""  # provenance grade of the price: datasheet, secondary or estimate
    note: str = ""  # the offer's note (an estimate's basis)

    @property
    def estimated(self) -> bool:
        """Whether the price is an estimate (graded ``estimate``), not a seen price."""
        return self.grade == "estimate"

    def describe(self) -> str:
        """Seller, date and length, for a quote line's "source" column."""
        bits = [self.seller or "unnamed seller"]
        if self.as_of:
            bits.append(self.as_of)
        if self.length_m is not None:
            bits.append(f"{self.length_m:g} m")
        if self.condition != "new":
            bits.append(self.condition)
        return ", ".join(bits)


@dataclass(frozen=True)
class ExchangeRate:
    """One unit of ``from_currency`` is worth ``rate`` units of ``to_currency`` from the day
    ``valid_from`` (ISO date) until a later rate of the pair; with where it came from.

    >>> ExchangeRate("USD", "EUR", Decimal("0.9"), "2026-01-05", "ECB").convert(Decimal("10"))
    Decimal('9.0')
    """

    from_currency: str
    to_currency: str
    rate: Decimal
    valid_from: str
    source: str = ""
    source_url: str = ""
    reference: str = ""  # e.g. the rate row's id

    def convert(self, amount: Decimal) -> Decimal:
        """``amount`` of ``from_currency`` in ``to_currency``, unrounded."""
        return Decimal(amount) * self.rate

    def describe(self) -> str:
        """``1 USD = 0.9 EUR (2026-01-05, ECB)``."""
        origin = ", ".join(bit for bit in (self.valid_from, self.source) if bit)
        return f"1 {self.from_currency} = {self.rate} {self.to_currency} ({origin})"

    def as_dict(self) -> dict:
        return {
            "from_currency": self.from_currency,
            "to_currency": self.to_currency,
            "rate": str(self.rate),
            "valid_from": self.valid_from,
            "source": self.source,
            "source_url": self.source_url,
            "reference": self.reference,
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> ExchangeRate:
        return cls(**{**data, "rate": Decimal(data["rate"])})


#: Exchange rates to a quote's currency, by the currency they convert from.
ExchangeRates = Mapping[str, ExchangeRate]


@dataclass(frozen=True)
class PriceChoice:
    """The offer chosen for a price key, or ``None`` with the reason it is unpriced; ``rate``
    converts the offer into the quote's currency when it is in another one."""

    offer: PriceOffer | None
    reason: str = ""
    rate: ExchangeRate | None = None


def _offer_order(offer: PriceOffer):
    return (offer.amount, offer.seller, offer.as_of, offer.reference)


def _same_length(a: float | None, b: float) -> bool:
    return a is not None and abs(a - b) <= LENGTH_TOLERANCE_M


class PriceTable:
    """The offers of one price book, and the rule that picks one per BOM line.

    Parameters
    ----------
    offers
        Every offer of the book (all conditions, currencies and lengths).
    part_lengths_m
        Catalog lengths per part (``lengths_m``); a part with at most one length is a fixed
        length part number, so an offer without a length applies to it.
    """

    def __init__(
        self,
        offers: Iterable[PriceOffer],
        *,
        part_lengths_m: Mapping[str, Iterable[float]] | None = None,
    ):
        self._offers: dict[str, list[PriceOffer]] = {}
        for offer in offers:
            self._offers.setdefault(offer.part, []).append(offer)
        for part_offers in self._offers.values():
            part_offers.sort(key=_offer_order)
        self._lengths = {part: tuple(v) for part, v in (part_lengths_m or {}).items()}

    def lowest(
        self, part: str, *, currency: str, condition: str = "new", seen_only: bool = False
    ) -> PriceOffer | None:
        """The lowest offer for ``part`` in ``currency`` and ``condition``, at any length;
        ``seen_only`` leaves out offers graded ``estimate`` (media choice is steered by prices
        seen, never by an estimate)."""
        for offer in self._offers.get(part, ()):
            if seen_only and offer.grade == "estimate":
                continue
            if offer.currency == currency and offer.condition == condition:
                return offer
        return None

    def choose(
        self,
        part: str,
        length_m: float | None,
        *,
        currency: str,
        condition: str = "new",
        rates: ExchangeRates | None = None,
    ) -> PriceChoice:
        """The offer for a line of ``part`` ordered at ``length_m``, or why there is none.

        An offer in ``currency`` wins; when none fits, the lowest offer in a currency that
        ``rates`` converts from (compared after conversion), with its rate.

        Examples
        --------
        >>> table = PriceTable([
        ...     PriceOffer("AOC", Decimal("120"), "USD", length_m=3.0),
        ...     PriceOffer("AOC", Decimal("150"), "USD", length_m=5.0),
        ... ], part_lengths_m={"AOC": [3, 5, 7]})
        >>> table.choose("AOC", 5.0, currency="USD").offer.amount
        Decimal('150')
        >>> table.choose("AOC", 7.0, currency="USD").reason
        'no new offer in USD for 7 m (offers for 3, 5 m)'
        >>> usd_eur = ExchangeRate("USD", "EUR", Decimal("0.9"), "2026-01-05")
        >>> table.choose("AOC", 5.0, currency="EUR", rates={"USD": usd_eur}).rate.rate
        Decimal('0.9')
        """
        offers = self._offers.get(part, ())
        if not offers:
            return PriceChoice(None, "not in the price book")
        native = [o for o in offers if o.currency == currency]
        found = self._fit(part, native, length_m, currency, condition) if native else None
        if found is not None and found.offer is not None:
            return found
        usable = {
            code: rate
            for code, rate in (rates or {}).items()
            if code != currency and rate.to_currency == currency
        }
        foreign = sorted(
            (o for o in offers if o.currency in usable),
            key=lambda o: (usable[o.currency].convert(o.amount), *_offer_order(o)),
        )
        converted = None
        if foreign:
            label = ", ".join(sorted({o.currency for o in foreign}))
            converted = self._fit(part, foreign, length_m, label, condition)
        if converted is not None and converted.offer is not None:
            return PriceChoice(converted.offer, rate=usable[converted.offer.currency])
        if found is not None:
            return found
        if converted is not None:
            return converted
        others = sorted({o.currency for o in offers})
        reason = f"no offer in {currency} (offers in {', '.join(others)})"
        if rates is not None:
            reason += f" and no exchange rate from {', '.join(others)} to {currency}"
        return PriceChoice(None, reason)

    def _fit(
        self,
        part: str,
        offers: list[PriceOffer],
        length_m: float | None,
        currency: str,
        condition: str,
    ) -> PriceChoice:
        """The first of ``offers`` (in order of preference) that fits the line, or why none."""
        fitting = [o for o in offers if o.condition == condition]
        if not fitting:
            others = sorted({o.condition for o in offers})
            return PriceChoice(
                None, f"no {condition} offer in {currency} (offers: {', '.join(others)})"
            )
        if length_m is None:
            unsized = [o for o in fitting if o.length_m is None]
            if unsized:
                return PriceChoice(unsized[0])
            return PriceChoice(None, "its offers are per length and the line names no length")
        exact = [
            o for o in fitting if o.length_m is not None and _same_length(o.length_m, length_m)
        ]
        if exact:
            return PriceChoice(exact[0])
        lengths = self._lengths.get(part, ())
        unsized = [o for o in fitting if o.length_m is None]
        if unsized and len(lengths) <= 1:
            return PriceChoice(unsized[0])
        sized = sorted({o.length_m for o in fitting if o.length_m is not None})
        listed = f" (offers for {', '.join(f'{v:g}' for v in sized)} m)" if sized else ""
        if unsized and not sized:
            listed = " (its offers name no length and the part comes in several)"
        return PriceChoice(None, f"no {condition} offer in {currency} for {length_m:g} m{listed}")


@dataclass(frozen=True)
class QuoteTerms:
    """Currency, discounts per category and margin of a quote (percent values 0..100)."""

    currency: str
    discounts_pct: Mapping[str, Decimal | float | int | str] = field(default_factory=dict)
    margin_pct: Decimal | float | int | str = 0

    def checked(self) -> tuple[str, dict[str, Decimal], Decimal]:
        """``(currency, discounts, margin)`` as Decimals; raises :class:`QuoteError`."""
        if not isinstance(self.currency, str) or not _CURRENCY.fullmatch(self.currency):
            raise QuoteError("currency", f"{self.currency!r} is not a three-letter ISO 4217 code")
        discounts = {}
        for category, value in self.discounts_pct.items():
            if category not in CATEGORIES:
                raise QuoteError(
                    f"discounts_pct.{category}",
                    f"unknown category; use one of {', '.join(CATEGORIES)}",
                )
            discounts[category] = _percent(value, f"discounts_pct.{category}")
        margin = _percent(self.margin_pct, "margin_pct", below_100=True)
        return self.currency, discounts, margin


@dataclass(frozen=True)
class PricedLine:
    """A BOM line with its prices; every price is ``None`` when the line is unpriced."""

    line: BomLine
    offer: PriceOffer | None
    unpriced_reason: str
    discount_pct: Decimal
    unit_book: Decimal | None
    unit_cost: Decimal | None
    unit_sell: Decimal | None
    extended_cost: Decimal | None
    extended_sell: Decimal | None
    # The rate that converted the offer into the quote's currency (None: the same currency);
    # ``unit_book`` is the converted, rounded book price.
    rate: ExchangeRate | None = None

    @property
    def priced(self) -> bool:
        return self.offer is not None


@dataclass(frozen=True)
class CategoryTotal:
    """Subtotal of one category: priced lines only; ``unpriced_lines`` says what is missing."""

    category: str
    lines: int
    unpriced_lines: int
    quantity: int
    cost: Decimal
    sell: Decimal

    @property
    def complete(self) -> bool:
        return self.unpriced_lines == 0


@dataclass(frozen=True)
class PricedQuote:
    """A priced bill of materials: lines, category subtotals and totals."""

    currency: str
    margin_pct: Decimal
    discounts_pct: dict[str, Decimal]
    lines: tuple[PricedLine, ...]
    categories: tuple[CategoryTotal, ...]
    cost_total: Decimal
    sell_total: Decimal
    unpriced_lines: int
    unpriced_parts: tuple[str, ...]  # distinct part slugs (with length when ordered by length)
    # subtotals per network of the cluster (``compute`` and the BOM's network tiers), only
    # when the bill has a network beside the compute fabric; ``category`` holds the network
    networks: tuple[CategoryTotal, ...] = ()

    @property
    def complete(self) -> bool:
        return self.unpriced_lines == 0

    @property
    def estimated_lines(self) -> int:
        """Lines priced from an offer graded ``estimate`` (not a seen price)."""
        return sum(1 for line in self.lines if line.offer and line.offer.grade == "estimate")

    @property
    def margin_total(self) -> Decimal:
        return self.sell_total - self.cost_total

    @property
    def exchange_rates(self) -> tuple[ExchangeRate, ...]:
        """The rates that converted offers into the quote's currency, each once."""
        return tuple({line.rate: None for line in self.lines if line.rate is not None})

    @property
    def status(self) -> str:
        """``complete`` or ``incomplete: N parts unpriced``."""
        if self.complete:
            return "complete"
        count = len(self.unpriced_parts)
        return f"incomplete: {count} part{'s' if count != 1 else ''} unpriced"

    def as_dict(self) -> dict:
        """JSON-ready: amounts as exact strings with the currency's decimal places (two for
        cents), never floats.

        Long because: one JSON literal of every field of the quote, its lines and totals.
        """

        def money(value: Decimal | None) -> str | None:
            return format_money(value, self.currency)

        return {
            "currency": self.currency,
            "margin_pct": str(self.margin_pct),
            "discounts_pct": {k: str(v) for k, v in self.discounts_pct.items()},
            "rules": {"discount": DISCOUNT_RULE, "margin": MARGIN_RULE, "rounding": ROUNDING_RULE},
            "lines": [
                {
                    "part": p.line.part,
                    "part_number": p.line.part_number,
                    "name": p.line.name,
                    "manufacturer": p.line.manufacturer,
                    "category": p.line.category,
                    "tier": p.line.tier,
                    "length_m": p.line.length_m,
                    "base_quantity": p.line.base_quantity,
                    "spares": p.line.spares,
                    "quantity": p.line.quantity,
                    "priced": p.priced,
                    "unpriced_reason": p.unpriced_reason,
                    "discount_pct": str(p.discount_pct),
                    "unit_book": money(p.unit_book),
                    "unit_cost": money(p.unit_cost),
                    "unit_sell": money(p.unit_sell),
                    "extended_cost": money(p.extended_cost),
                    "extended_sell": money(p.extended_sell),
                    "source": None
                    if p.offer is None
                    else {
                        "seller": p.offer.seller,
                        "as_of": p.offer.as_of,
                        "url": p.offer.source_url,
                        "condition": p.offer.condition,
                        "length_m": p.offer.length_m,
                        "reference": p.offer.reference,
                        "amount": str(p.offer.amount),
                        "currency": p.offer.currency,
                        "exchange_rate": None if p.rate is None else p.rate.as_dict(),
                    },
                }
                for p in self.lines
            ],
            "exchange_rates": [rate.as_dict() for rate in self.exchange_rates],
            "categories": [
                {
                    "category": c.category,
                    "lines": c.lines,
                    "unpriced_lines": c.unpriced_lines,
                    "quantity": c.quantity,
                    "cost": money(c.cost),
                    "sell": money(c.sell),
                }
                for c in self.categories
            ],
            "networks": [
                {
                    "network": c.category,
                    "lines": c.lines,
                    "unpriced_lines": c.unpriced_lines,
                    "quantity": c.quantity,
                    "cost": money(c.cost),
                    "sell": money(c.sell),
                }
                for c in self.networks
            ],
            "totals": {
                "cost": money(self.cost_total),
                "sell": money(self.sell_total),
                "margin": money(self.margin_total),
                "complete": self.complete,
                "status": self.status,
                "unpriced_lines": self.unpriced_lines,
                "unpriced_parts": list(self.unpriced_parts),
            },
        }


def _part_label(key: PriceKey) -> str:
    part, length_m = key
    return part if length_m is None else f"{part} ({length_m:g} m)"


def price_quote(
    bom: BillOfMaterials,
    prices: Mapping[PriceKey, PriceChoice | PriceOffer | None],
    terms: QuoteTerms,
) -> PricedQuote:
    """Price every line of ``bom``.

    Parameters
    ----------
    bom
        The bill of materials (quantities include spares).
    prices
        The price lookup result per :func:`price_key`: a :class:`PriceChoice`, a bare
        :class:`PriceOffer`, or ``None``; a key that is missing means unpriced.
    terms
        Currency, discounts per category, margin.

    Returns
    -------
    PricedQuote
        Lines in BOM order, category subtotals in :data:`CATEGORIES` order, totals of the
        priced lines, and the unpriced parts.

    Raises
    ------
    QuoteError
        A percentage outside 0..100, a margin of 100 %, an unknown category, a bad currency.
    CurrencyMismatchError
        An offer is in another currency than ``terms.currency`` and its choice brings no
        exchange rate between the two.

    Examples
    --------
    >>> from planner.domain.outputs.bom import BillOfMaterials, BomLine
    >>> line = BomLine("SW", "", "Switch", "acme", "switch", "leaf", None, 2, 0, 2, "device")
    >>> quote = price_quote(
    ...     BillOfMaterials(lines=(line,), spares_pct={}),
    ...     {("SW", None): PriceOffer("SW", Decimal("100"), "USD")},
    ...     QuoteTerms("USD", {"switch": 10}, margin_pct=25),
    ... )
    >>> quote.lines[0].unit_cost, quote.lines[0].unit_sell, quote.sell_total
    (Decimal('90.00'), Decimal('120.00'), Decimal('240.00'))

    Long because: one pass over the bill's lines that picks each line's offer, converts, rounds and
    totals per category; the nested helper shares the rates.
    """
    currency, discounts, margin = terms.checked()
    keep = (HUNDRED - margin) / HUNDRED
    lines: list[PricedLine] = []
    unpriced: dict[PriceKey, None] = {}
    for line in bom.ordered_lines():
        key = price_key(line)
        found = prices.get(key)
        choice = found if isinstance(found, PriceChoice) else PriceChoice(found)
        discount = discounts.get(line.category, Decimal(0))
        offer = choice.offer
        if offer is None:
            unpriced[key] = None
            reason = choice.reason or "no price given"
            lines.append(PricedLine(line, None, reason, discount, *([None] * 5)))
            continue
        rate = choice.rate if offer.currency != currency else None
        if offer.currency != currency and (
            rate is None
            or (rate.from_currency, rate.to_currency) != (offer.currency, currency)
            or not rate.rate.is_finite()
            or rate.rate <= 0
        ):
            raise CurrencyMismatchError(
                f"prices.{_part_label(key)}",
                f"the offer is in {offer.currency} but the quote is in {currency}, and no "
                f"exchange rate from {offer.currency} to {currency} was given",
            )
        try:
            amount = Decimal(offer.amount)
        except (InvalidOperation, TypeError, ValueError) as exc:
            raise QuoteError(
                f"prices.{_part_label(key)}", f"{offer.amount!r} is not a price"
            ) from exc
        if not amount.is_finite() or amount < 0:
            raise QuoteError(f"prices.{_part_label(key)}", f"{offer.amount} is not a price")
        book = amount if rate is None else round_money(rate.convert(amount), currency)
        unit_cost = round_money(book * (HUNDRED - discount) / HUNDRED, currency)
        unit_sell = round_money(unit_cost / keep, currency)
        lines.append(
            PricedLine(
                line=line,
                offer=offer,
                unpriced_reason="",
                discount_pct=discount,
                unit_book=book,
                unit_cost=unit_cost,
                unit_sell=unit_sell,
                extended_cost=unit_cost * line.quantity,
                extended_sell=unit_sell * line.quantity,
                rate=rate,
            )
        )

    zero = round_money(Decimal(0), currency)

    def subtotal(name: str, group: list[PricedLine]) -> CategoryTotal:
        priced = [p for p in group if p.priced]
        return CategoryTotal(
            category=name,
            lines=len(group),
            unpriced_lines=len(group) - len(priced),
            quantity=sum(p.line.quantity for p in group),
            cost=sum((p.extended_cost for p in priced), zero),
            sell=sum((p.extended_sell for p in priced), zero),
        )

    categories = []
    for category in CATEGORIES:
        in_category = [p for p in lines if p.line.category == category]
        if in_category:
            categories.append(subtotal(category, in_category))
    networks = []
    if any(p.line.tier in NETWORK_TIERS for p in lines):
        for network in ("compute", *NETWORK_TIERS):
            group = [p for p in lines if network_of(p.line.tier) == network]
            if group:
                networks.append(subtotal(network, group))
    priced_lines = [p for p in lines if p.priced]
    return PricedQuote(
        currency=currency,
        margin_pct=margin,
        discounts_pct=discounts,
        lines=tuple(lines),
        categories=tuple(categories),
        cost_total=sum((p.extended_cost for p in priced_lines), zero),
        sell_total=sum((p.extended_sell for p in priced_lines), zero),
        unpriced_lines=len(lines) - len(priced_lines),
        unpriced_parts=tuple(_part_label(key) for key in unpriced),
        networks=tuple(networks),
    )


def network_of(tier: str) -> str:
    """The cluster network a bill-of-materials tier belongs to: a network tier (storage,
    converged, inband, oob, management) is its own, every other tier is the compute fabric.

    >>> network_of("leaf-spine"), network_of("oob")
    ('compute', 'oob')
    """
    return tier if tier in NETWORK_TIERS else "compute"


def prices_for(
    bom: BillOfMaterials,
    table: PriceTable,
    *,
    currency: str,
    condition: str,
    rates: ExchangeRates | None = None,
):
    """The offer chosen for every line of ``bom`` (:meth:`PriceTable.choose`), by price key."""
    keys = {price_key(line) for line in bom.ordered_lines()}
    return {
        key: table.choose(key[0], key[1], currency=currency, condition=condition, rates=rates)
        for key in keys
    }


def bom_cost(
    bom: BillOfMaterials,
    *,
    table: PriceTable,
    currency: str,
    rates: ExchangeRates | None = None,
) -> PricedQuote:
    """``bom`` priced at ``table``'s new-condition offers in ``currency`` (others converted
    with ``rates``), with no discounts and no margin (the cost figure of the designs list and
    the wizard); parts without an offer are unpriced (``unpriced_parts``), never zero."""
    prices = prices_for(bom, table, currency=currency, condition="new", rates=rates)
    return price_quote(bom, prices, QuoteTerms(currency))
