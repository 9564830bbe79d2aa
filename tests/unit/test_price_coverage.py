"""Every preset prices completely at the seed book, estimates marked (issue 37, item 1).

Each preset is built from the seed catalog files (no database), as the wizard saves it, and
priced at the seed book's offers (``inventory/library/seed/prices.yaml``) as a quote of new
parts in USD is: the lines by grade (:mod:`planner.domain.outputs.price_coverage`).
"""

from decimal import Decimal
from pathlib import Path

import pytest

from inventory.library.files import read_catalog_folder
from planner.domain.catalog import facts_from_records
from planner.domain.outputs.bom import CABINET_PART, bill_of_materials
from planner.domain.outputs.price_coverage import line_grade, price_coverage
from planner.domain.outputs.quote import PriceOffer, PriceTable, bom_cost
from planner.domain.pipeline import build_fabric
from planner.domain.presets import load_presets
from planner.domain.spec import parse_spec

SEED = Path(__file__).resolve().parents[2] / "inventory" / "library" / "seed"


def _table(prices, facts):
    offers = [
        PriceOffer(
            p.part,
            Decimal(str(p.price)),
            p.currency,
            p.condition,
            p.length_m,
            p.seller,
            p.date,
            p.url,
            reference=str(index),
            grade=p.grade,
        )
        for index, p in enumerate(prices)
    ]
    lengths = {
        slug: part.get("lengths_m") or []
        for slug, part in facts.parts.items()
        if part.get("category") in ("cable", "fiber")
    }
    return PriceTable(offers, part_lengths_m=lengths)


@pytest.fixture(scope="module")
def seed():
    files = read_catalog_folder(SEED)
    facts = facts_from_records(files.parts)
    notes = {str(index): p.note for index, p in enumerate(files.prices)}
    return facts, _table(files.prices, facts), notes, files.prices


def _priced(seed, slug, table=None):
    facts, seed_table, _, _ = seed
    table = seed_table if table is None else table
    preset = next(p for p in load_presets() if p.slug == slug)

    def price_of(part):
        offer = table.lowest(part, currency="USD", seen_only=True)
        return None if offer is None else float(offer.amount)

    fabric = build_fabric(parse_spec(preset.spec), facts, price_of=price_of)
    return bom_cost(bill_of_materials(fabric, facts), table=table, currency="USD")


@pytest.mark.parametrize("slug", [p.slug for p in load_presets()])
def test_every_preset_line_is_priced(seed, slug):
    """100 % of every preset's lines priced at the seed book; what is not a seen price is an
    estimate whose basis (the offer's note) is the line's reason."""
    priced = _priced(seed, slug)
    coverage = price_coverage(priced, notes=seed[2])
    left = [(line.part, line.reason) for line in coverage.unpriced]
    assert not left, f"{slug}: unpriced {left}"
    assert coverage.priced_pct == 100.0 and priced.complete
    assert sum(coverage.counts.values()) == coverage.lines == len(priced.lines)
    assert all(line.reason.startswith("Basis:") for line in coverage.estimated)
    # every rack line names a catalog part, priced from an estimate (no seen cabinet price)
    racks = [line for line in priced.lines if line.line.category == "rack"]
    assert racks and all(line.line.part in seed[0].parts for line in racks), slug
    assert {line_grade(line) for line in racks} == {"estimate"}, slug


def test_without_the_rack_offers_only_the_racks_go_unpriced(seed):
    """The rack rows of prices.yaml are what price the rack lines: a book without them leaves
    exactly the rack lines of a preset unpriced (the other lines as before)."""
    facts, _, notes, prices = seed
    rack_parts = {slug for slug, part in facts.parts.items() if part.get("category") == "rack"}
    table = _table([p for p in prices if p.part not in rack_parts], facts)
    priced = _priced(seed, "h100-superpod-4su-cluster", table)
    coverage = price_coverage(priced, notes=notes)
    assert [(line.part, line.category) for line in coverage.unpriced] == [
        ("DGX-H100-SuperPOD-rack", "rack"),
        (CABINET_PART, "rack"),
        (CABINET_PART, "rack"),
    ]


def test_h100_4su_prices_every_line_its_racks_from_estimates(seed):
    """The 4 SU SuperPOD: 14 lines, all priced; the DGX H100 from an estimate (its list price),
    the fibers from estimates (the nearest sold length), the switch and optics at reseller
    prices, and its compute racks (the RA's rack) and network racks (the generic cabinet) from
    the lowest of their estimates (the cabinet only: a 42U enclosure seen at a shop)."""
    priced = _priced(seed, "h100-superpod-4su")
    coverage = price_coverage(priced, notes=seed[2])
    assert coverage.lines == 14 and coverage.counts["unpriced"] == 0
    assert coverage.priced_pct == 100.0
    grades = {line.line.part: line_grade(line) for line in priced.lines}
    assert grades["DGX-H100"] == grades["MFP7E10-Nxxx"] == "estimate"
    assert grades["QM9700"] == grades["MMA4Z00-NS"] == "reseller"
    prices = seed[3]
    for part in ("DGX-H100-SuperPOD-rack", CABINET_PART):
        assert grades[part] == "estimate"
        rows = [p for p in prices if p.part == part and p.currency == "USD"]
        assert len(rows) >= 2 and all(p.grade == "estimate" and p.url for p in rows)
        (line,) = [x for x in priced.lines if x.line.part == part]
        assert line.unit_cost == min(Decimal(str(p.price)) for p in rows)  # the lowest wins
        assert "SR42UBDP" in seed[2][line.offer.reference]  # the basis names the model


def test_the_h100_cluster_prices_its_management_networks(seed):
    """The 4 SU cluster preset (issue 37): the OOB switches, Cat5e/Cat6 cords of every length,
    1G SFPs, QSAs, PDUs, UFM appliances and head nodes all priced (estimates with their basis),
    and its 3 rack lines (compute, network, management): 53 lines, none unpriced (from 21)."""
    priced = _priced(seed, "h100-superpod-4su-cluster")
    coverage = price_coverage(priced, notes=seed[2])
    assert coverage.lines == 53 and not coverage.unpriced
    racks = [(x.line.part, x.line.tier) for x in priced.lines if x.line.category == "rack"]
    assert racks == [
        ("DGX-H100-SuperPOD-rack", "compute"),
        (CABINET_PART, "network"),
        (CABINET_PART, "management"),
    ]
    grades = {}
    for line in priced.lines:
        grades.setdefault(line.line.part, set()).add(line_grade(line))
    for part in (
        "SN2201",
        "Cat5e-Cat6-RJ45-patch-cord",
        "NVIDIA-SFP-1G-BASE-T",
        "NVIDIA-QSA-QSFP-to-SFP",
        "PX3-5878I2R-P1Q2R1A15D5",
        "PX3-5747V-V2",
        "UFM-Enterprise-Appliance-NDR",
        "SuperPOD-H100-BCM-node",
        "DGX-H100-SuperPOD-rack",
        CABINET_PART,
    ):
        assert grades[part] == {"estimate"}, part
    cords = [line for line in coverage.estimated if line.part == "Cat5e-Cat6-RJ45-patch-cord"]
    assert len(cords) >= 10 and len({line.length_m for line in cords}) == len(cords)
    assert all("upper bound" in line.reason for line in cords)


def test_every_estimate_row_of_the_seed_book_names_its_basis(seed):
    estimates = [p for p in seed[3] if p.grade == "estimate"]
    assert len(estimates) >= 20
    for row in estimates:
        assert row.note.startswith("Basis:") and row.date, row.part


def test_a_list_price_and_an_msrp_offer_grade_list():
    table = PriceTable(
        [
            PriceOffer("A", Decimal(5), "USD", grade="datasheet"),
            PriceOffer("B", Decimal(7), "USD", condition="msrp", grade="secondary"),
        ]
    )
    from planner.domain.outputs.bom import BillOfMaterials, BomLine

    lines = tuple(BomLine(p, "", p, "", "switch", "leaf", None, 1, 0, 1, "device") for p in "AB")
    new = price_coverage(bom_cost(BillOfMaterials(lines, {}), table=table, currency="USD"))
    assert new.counts == {"list": 1, "reseller": 0, "estimate": 0, "unpriced": 1}
