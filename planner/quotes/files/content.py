"""What every copy of a quote file says, whatever its format: the audiences (:data:`AUDIENCES`),
the customer's lines (:func:`customer_quote_lines`), the totals block (:func:`total_rows`), the
terms, the marks and notes of estimated prices, and the texts of each line (description, price
source). The writers (:mod:`.pdf`, :mod:`.xlsx`, :mod:`.csv`) lay these out.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from planner.presentation import NETWORK_LABELS
from planner.quotes.models import address_lines

DASH = "\u2014"  # "—": no amount (the line or category is unpriced)


#: Who a quote file is for (the ``audience`` of a download): its version.
CUSTOMER = "customer"
INTERNAL = "internal"
AUDIENCES = {
    CUSTOMER: "the customer's copy: part, description, quantity, unit price and line total per "
    "line, totals and terms; no cost, discount, margin or offer source",
    INTERNAL: "the sales team's copy: everything, with book price, discount, unit cost, margin, "
    "offer source and internal notes",
}
#: Printed on every page of an internal PDF and at the top of an internal XLSX.
INTERNAL_MARK = "Internal: costs, discounts and sources. Not for the customer."
#: Subtotal labels of the customer's copy (the internal one shows the category names).
CATEGORY_LABELS = {
    "server": "Servers",
    "management": "Management systems",
    "pdu": "Rack PDUs",
    "switch": "Switches",
    "psu": "Power supplies",
    "nic": "NICs",
    "transceiver": "Transceivers",
    "cable": "Cables",
    "fiber": "Fibers",
    "rack": "Racks",
}
NOT_PRICED = "not priced"  # a line without a price, in the customer's copy
#: The mark of a line priced from an estimate (an offer graded ``estimate``), on every copy.
ESTIMATE_MARK = "\u2020"
#: The footnote of the mark: the customer's copy, and the internal one (whose source column
#: gives each estimate's basis).
ESTIMATE_NOTE = (
    f"{ESTIMATE_MARK} Estimated price: no public price of this part was found; the price is an "
    "estimate on a stated basis (the nearest model or length priced), not an offer."
)
ESTIMATE_NOTE_INTERNAL = (
    f"{ESTIMATE_MARK} Estimated price (the offer is graded estimate): its basis is in the "
    "source column. Confirm it with the vendor before the quote is final."
)


def is_estimated(line) -> bool:
    """Whether a priced line's price is an estimate (:attr:`PriceOffer.estimated`)."""
    return line.offer is not None and line.offer.estimated


def as_text(value) -> str:
    return "" if value is None else str(value)


def price_source(line) -> str:
    """Where a line's price comes from (internal copy): the offer's seller and date, and the
    exchange rate that converted it into the quote's currency."""
    if line.offer is None:
        return ""
    offer = line.offer
    text = offer.describe()
    if offer.estimated:
        text = f"{ESTIMATE_MARK} estimate: {offer.note or text}"
    if line.rate is None:
        return text
    return f"{text}; {offer.amount} {offer.currency} at {line.rate.describe()}"


def length_text(value: float | None) -> str:
    return "" if value is None else f"{value:g} m"


def customer_block(document) -> tuple[str, list[str]]:
    """The customer's name and the lines of the address (blank ones left out) of ``document``
    (a sent quote's: as sent)."""
    return as_text(document.customer_name).strip(), address_lines(document.customer_address)


def sent_gaps_text(document) -> str:
    """For the internal copy only: how many lines a sent quote lacked prices for (or priced
    from an estimate), and who confirmed sending it so, when; "" when it had none or is a
    draft. Never printed on the customer's copy."""
    gaps = (document.quote.snapshot or {}).get("gaps") if document.frozen else None
    if not gaps:
        return ""
    bits = []
    if gaps["unpriced_lines"]:
        bits.append(
            f"{gaps['unpriced_lines']:,} of {gaps['lines']:,} lines unpriced (the total is partial)"
        )
    if gaps["estimated_lines"]:
        count = gaps["estimated_lines"]
        bits.append(f"{count:,} line{'s' if count != 1 else ''} priced from an estimate")
    text = f"Sent with {' and '.join(bits)}"
    if gaps.get("unpriced_confirmed"):
        at = gaps["at"][:16].replace("T", " ")
        text += f"; confirmed by {as_text(gaps['by']) or 'an unknown user'} on {at} UTC"
    return text + "."


def terms_text(document) -> str:
    """The quote's own terms for the customer (payment, delivery, warranty), "" for none."""
    return as_text(document.terms).strip()


def line_description(bom_line, *, with_length: bool = False, shown: str | None = None) -> str:
    """A line's name (or maker), its part number when it differs from the part ``shown`` next
    to it (the catalog part by default), and, when asked, its ordered length:
    ``"NVIDIA 400G cable (MCP4Y10-N003), 3 m"``."""
    description = bom_line.name or bom_line.manufacturer
    shown = bom_line.part if shown is None else shown
    if bom_line.part_number and bom_line.part_number != shown:
        description = f"{description} ({bom_line.part_number})"
    if with_length and bom_line.length_m is not None:
        description = f"{description}, {length_text(bom_line.length_m)}"
    return as_text(description)


@dataclass(frozen=True)
class CustomerLine:
    """A line of the customer's copy: one orderable item (a part at one length, ``part`` its
    orderable part number when the catalog has one), its tiers added together. ``unit_sell``
    and ``extended_sell`` are ``None`` when it has no price."""

    part: str
    description: str
    quantity: int
    unit_sell: Decimal | None
    extended_sell: Decimal | None
    estimated: bool = False  # priced from an estimate (its description ends with the mark)


def customer_quote_lines(priced) -> list[CustomerLine]:
    """The lines of the customer's copy: the priced quote's lines of one part at one length
    (and one unit price) as one line, in the order they first come; quantities and line
    totals add up (a unit price times the summed quantity is the sum of the line totals).

    The customer is not told which tier of the fabric a part goes to (the internal copy is).
    """
    merged: dict[tuple, list] = {}
    for line in priced.lines:
        bom_line = line.line
        key = (bom_line.part, bom_line.length_m, line.unit_sell)
        if key not in merged:
            # the part number to order (a cable's is that of its length), else the part
            part = bom_line.part_number or bom_line.part
            description = line_description(bom_line, with_length=True, shown=part)
            if is_estimated(line):
                description = f"{description} {ESTIMATE_MARK}"
            merged[key] = [part, description, 0, line.unit_sell, None, is_estimated(line)]
        item = merged[key]
        item[2] += bom_line.quantity
        if line.extended_sell is not None:
            item[4] = (item[4] or Decimal("0.00")) + line.extended_sell
    return [CustomerLine(*item) for item in merged.values()]


def file_suffix(audience: str) -> str:
    """What a file name gets for ``audience``: ``-customer`` for the customer's copy (the
    internal one keeps the plain name it always had)."""
    return "-customer" if audience == CUSTOMER else ""


def check_audience(audience: str) -> None:
    if audience not in AUDIENCES:
        raise ValueError(f"audience: use {' or '.join(AUDIENCES)}, not {audience!r}")


def network_label(network: str) -> str:
    """``compute`` -> "Compute", ``oob`` -> "Out-of-band management"."""
    return NETWORK_LABELS.get(network, network.capitalize())


@dataclass(frozen=True)
class TotalRow:
    """A row of the totals block: a category or network subtotal, the total, or (internal
    copy) the cost and margin. ``priced`` is false when nothing in it has a price: its amount
    is then shown as "—", never as 0.00."""

    label: str
    amount: Decimal
    priced: bool
    note: str = ""
    bold: bool = False


def total_rows(priced, *, audience: str) -> list[TotalRow]:
    """The totals block of ``audience``'s copy: category and network subtotals and the total;
    the internal copy adds the cost and the margin."""
    customer = audience == CUSTOMER
    rows = []
    categories = [
        (CATEGORY_LABELS.get(c.category, c.category) if customer else c.category, c)
        for c in priced.categories
    ]
    networks = [(f"{network_label(n.category)} network", n) for n in priced.networks]
    for label, category in categories + networks:
        priced_lines = category.lines - category.unpriced_lines
        if not priced_lines:
            note = NOT_PRICED if customer else "unpriced"
        elif category.unpriced_lines and customer:
            note = f"excludes lines {NOT_PRICED}"
        elif category.unpriced_lines:
            note = f"incomplete: {category.unpriced_lines} unpriced"
        else:
            note = ""
        rows.append(TotalRow(label, category.sell, bool(priced_lines), note))
    any_priced = any(line.priced for line in priced.lines)
    label = "Total" if priced.complete else "Total of priced lines"
    # The customer's copy says it in its label and terms.
    note = "" if priced.complete or customer else priced.status
    rows.append(TotalRow(label, priced.sell_total, any_priced, note, bold=True))
    if not customer and any_priced:
        margin = f"{priced.margin_pct} % of the sell price (quote terms)"
        rows.append(TotalRow("Cost", priced.cost_total, True))
        rows.append(TotalRow("Margin", priced.margin_total, True, margin))
    return rows


def design_text(document) -> str:
    return f"{document.design_name}, revision {document.revision_number}"


def customer_terms(document) -> list[str]:
    """The terms printed on the customer's copy (what the figures mean and how long they hold)."""
    quote, priced = document.quote, document.priced
    terms = [
        f"Prices are in {quote.currency} and valid until {quote.valid_until.isoformat()} "
        f"(quote {quote.label}).",
        "Quantities include spares.",
        "Each line total is the quantity times the unit price; the total is the sum of the "
        "line totals.",
    ]
    if not priced.complete:
        terms.append(
            f'Lines marked "{NOT_PRICED}" have no price in this quote and are not in the total.'
        )
    if priced.estimated_lines:
        terms.append(ESTIMATE_NOTE)
    return terms
