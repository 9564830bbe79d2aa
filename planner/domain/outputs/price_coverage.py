"""How completely a price book prices a bill of materials: each quoted line by the grade of
the offer that priced it.

Grades of a line (:data:`GRADES`), from the offer :class:`~planner.domain.outputs.quote.PriceTable`
chose for it:

- ``list``: a vendor's list price (an offer graded ``datasheet``, or one of condition
  ``msrp``);
- ``reseller``: a price seen at a reseller or quoted by a third party (graded ``secondary``);
- ``estimate``: an offer graded ``estimate``, whose note states its basis (the nearest model
  or length priced, a published range's midpoint);
- ``unpriced``: no offer fits the line (the reason says why).

Examples
--------
>>> from decimal import Decimal
>>> from planner.domain.outputs.bom import BillOfMaterials, BomLine
>>> from planner.domain.outputs.quote import PriceOffer, PriceTable, bom_cost
>>> def line(part, category):
...     return BomLine(part, "", part, "", category, "compute", None, 1, 0, 1, "device")
>>> bom = BillOfMaterials((line("SW", "switch"), line("SRV", "server"), line("NIC", "nic")), {})
>>> table = PriceTable([PriceOffer("SW", Decimal(10), "USD", grade="secondary"),
...                     PriceOffer("SRV", Decimal(99), "USD", grade="estimate")])
>>> coverage = price_coverage(bom_cost(bom, table=table, currency="USD"))
>>> coverage.counts, coverage.priced_pct
({'list': 0, 'reseller': 1, 'estimate': 1, 'unpriced': 1}, 66.7)
>>> coverage.unpriced[0].part, coverage.unpriced[0].reason
('NIC', 'not in the price book')
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.domain.outputs.quote import PricedLine, PricedQuote

__all__ = [
    "GRADES",
    "GRADE_LABELS",
    "CoverageLine",
    "PriceCoverage",
    "line_grade",
    "price_coverage",
]

#: Grades of a quoted line, best first.
GRADES = ("list", "reseller", "estimate", "unpriced")
GRADE_LABELS = {
    "list": "List price",
    "reseller": "Reseller",
    "estimate": "Estimate",
    "unpriced": "Unpriced",
}


def line_grade(line: PricedLine) -> str:
    """The grade (:data:`GRADES`) of a priced line."""
    offer = line.offer
    if offer is None:
        return "unpriced"
    if offer.grade == "estimate":
        return "estimate"
    if offer.grade == "datasheet" or offer.condition == "msrp":
        return "list"
    return "reseller"


@dataclass(frozen=True)
class CoverageLine:
    """A line that is not priced from a seen price: its part, ordered length, category and
    why (the unpriced reason, or the estimate's seller and basis)."""

    part: str
    length_m: float | None
    category: str
    grade: str
    reason: str

    def as_dict(self) -> dict:
        return {
            "part": self.part,
            "length_m": self.length_m,
            "category": self.category,
            "grade": self.grade,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class PriceCoverage:
    """Lines of a priced bill by grade; ``unpriced`` and ``estimated`` list those lines."""

    lines: int
    counts: dict[str, int]
    unpriced: tuple[CoverageLine, ...] = ()
    estimated: tuple[CoverageLine, ...] = ()

    @property
    def ordered_counts(self) -> list[int]:
        """The counts in :data:`GRADES` order (for a table's columns)."""
        return [self.counts[grade] for grade in GRADES]

    @property
    def priced(self) -> int:
        return self.lines - self.counts["unpriced"]

    @property
    def priced_pct(self) -> float:
        """Share of lines priced (any grade), percent to one decimal (100.0 for no lines)."""
        return round(100.0 * self.priced / self.lines, 1) if self.lines else 100.0

    @property
    def complete(self) -> bool:
        return self.counts["unpriced"] == 0

    def as_dict(self) -> dict:
        return {
            "lines": self.lines,
            "counts": dict(self.counts),
            "priced_pct": self.priced_pct,
            "complete": self.complete,
            "unpriced": [line.as_dict() for line in self.unpriced],
            "estimated": [line.as_dict() for line in self.estimated],
        }


def price_coverage(priced: PricedQuote, *, notes: dict[str, str] | None = None) -> PriceCoverage:
    """Count ``priced``'s lines by grade (:func:`line_grade`).

    ``notes`` maps an offer's ``reference`` to its note (an estimate's basis), shown as the
    reason of an estimated line when given.
    """
    counts = dict.fromkeys(GRADES, 0)
    unpriced, estimated = [], []
    for line in priced.lines:
        grade = line_grade(line)
        counts[grade] += 1
        if grade == "unpriced":
            reason = line.unpriced_reason
        elif grade == "estimate":
            reason = (notes or {}).get(line.offer.reference, "") or line.offer.describe()
        else:
            continue
        item = CoverageLine(line.line.part, line.line.length_m, line.line.category, grade, reason)
        (unpriced if grade == "unpriced" else estimated).append(item)
    return PriceCoverage(len(priced.lines), counts, tuple(unpriced), tuple(estimated))
