"""Structured cabling (issue 19 items 2 and 4): panels, trunks, cords, channels, polarity and
BOM lines on the DGX H100 SuperPOD 1 SU example with patch-panel tiers."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from planner.analyses.validate import validate_fabric
from planner.domain.fabric import TIER
from planner.domain.layout_distances import layout_distances, run_lengths_m
from planner.domain.outputs.bom import bill_of_materials
from planner.domain.physical.structured import (
    PORTS_PER_PANEL,
    plan_structured,
    structured_channels,
    trunk_sizes,
)
from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, parse_spec

EXAMPLE = Path(__file__).resolve().parents[2] / "planner/domain/examples/h100-superpod-1su.yaml"


def _fabric(facts, cabling):
    doc = yaml.safe_load(EXAMPLE.read_text())
    doc["cabling"] = cabling
    return build_fabric(parse_spec(doc), facts)


@pytest.fixture(scope="module")
def one_su(facts):
    return _fabric(facts, {"server-leaf": "patch-panel", "leaf-spine": "patch-panel"})


def test_counts_on_one_su(one_su, facts):
    plan = plan_structured(one_su, one_su.settings.cabling, facts)
    server_leaf = one_su.link_tier == TIER["server-leaf"]
    # every node-leaf fiber (31 DGX x 8 ports) and leaf-spine fiber (256) goes through panels;
    # the 4 UFM links have no fiber part and stay point to point
    assert plan.structured[server_leaf].sum() == 31 * 8
    assert plan.structured.sum() == 31 * 8 + 256
    # each server rack's 32 links (4 DGX x 8) need 32 MPO legs: 144 + 144 + 144 (12+12+8)
    rack_of = one_su.node_rack[one_su.link_a]
    first_rack = plan.structured & server_leaf & (rack_of == rack_of[server_leaf][0])
    trunks = np.unique(plan.trunk[first_rack])
    assert [plan.trunks[t]["fibers"] for t in trunks] == trunk_sizes(32, "mpo12", "auto")
    assert trunk_sizes(32, "mpo12", "auto") == [144, 144, 144]
    # panels: ceil(ports / 24) per rack and tier, at the top units under the 2 U reserve
    ports_at = {}
    for link in np.flatnonzero(plan.structured):
        for panel in (plan.panel_a[link], plan.panel_b[link]):
            p = plan.panels[panel]
            ports_at[(p["tier"], p["rack"])] = ports_at.get((p["tier"], p["rack"]), 0) + 1
    per_site = {}
    for p in plan.panels:
        per_site[(p["tier"], p["rack"])] = per_site.get((p["tier"], p["rack"]), 0) + 1
        assert p["ru"] <= 46
    for site, ports in ports_at.items():
        assert per_site[site] == -(-ports // PORTS_PER_PANEL), site
    # two cords per link, both ports used once per panel
    keys = set()
    for link in np.flatnonzero(plan.structured):
        for panel, port in (
            (plan.panel_a[link], plan.port_a[link]),
            (plan.panel_b[link], plan.port_b[link]),
        ):
            assert (panel, port) not in keys
            keys.add((panel, port))


def test_lengths_follow_the_run_rule(one_su, facts):
    plan = plan_structured(one_su, one_su.settings.cabling, facts)
    link = int(np.flatnonzero(plan.structured)[0])
    node = int(one_su.link_a[link])
    panel = plan.panels[plan.panel_a[link]]
    layout = layout_distances(one_su.settings.layout)
    expected = run_lengths_m(
        layout,
        row_a=[0],
        position_a=[0],
        units_a=[48],
        ru_a=[one_su.node_ru[node]],
        row_b=[0],
        position_b=[0],
        units_b=[48],
        ru_b=[panel["ru"]],
        same_rack=[True],
    )[0]
    assert panel["rack"] == one_su.racks[one_su.node_rack[node]]["name"]
    assert plan.cord_a_m[link] == pytest.approx(expected)
    channels = structured_channels(one_su, one_su.settings.cabling, facts)
    assert channels.fiber_m[link] == pytest.approx(
        plan.cord_a_m[link] + plan.trunk_m[link] + plan.cord_b_m[link]
    )
    assert channels.mated_pairs[link] == 2 and channels.mpo_pairs[link] == 2
    kinds = [s.kind for s in channels.segments(link)]
    assert kinds == ["patch cord", "panel", "trunk", "panel", "patch cord"]


def test_point_to_point_is_unchanged(facts):
    doc = yaml.safe_load(EXAMPLE.read_text())
    fabric = build_fabric(parse_spec(doc), facts)
    assert fabric.settings.cabling is None
    channels = structured_channels(fabric, None, facts)
    assert not channels.mated_pairs.any()


def test_bom_lines(one_su, facts):
    plan = plan_structured(one_su, one_su.settings.cabling, facts)
    bom = bill_of_materials(one_su, facts)
    fibers = [line for line in bom.lines if line.category == "fiber"]
    cords = sum(line.quantity for line in fibers if line.part == "MFP7E10-Nxxx")
    assert cords == 2 * int(plan.structured.sum())
    assert sum(line.quantity for line in fibers if line.part == "PANEL-1U-4SLOT") == len(
        plan.panels
    )
    assert sum(line.quantity for line in fibers if line.part.startswith("TRUNK-")) == len(
        plan.trunks
    )
    assert all(line.length_m for line in fibers if line.part.startswith("TRUNK-"))
    assert not [n for n in bom.notes if "not in the catalog, listed" in n]


def test_polarity_error_on_a_mismatched_spec(facts):
    fabric = _fabric(facts, {"leaf-spine": {"type": "patch-panel", "polarity": "type-a"}})
    report = validate_fabric(fabric, facts)
    codes = {p.code: p for p in report.problems}
    assert "cabling-polarity" in codes
    problem = codes["cabling-polarity"]
    assert problem.severity == "error" and problem.count == 256
    assert all(i.startswith("link:") for i in problem.element_ids)


def test_mpo_and_polish_mismatch(facts):
    fabric = _fabric(
        facts,
        {
            "server-leaf": {
                "type": "patch-panel",
                "mpo": "mpo16",
                "trunk_fibers": 32,
                "polish": "upc",
            }
        },
    )
    codes = {p.code for p in validate_fabric(fabric, facts).problems}
    assert {"cabling-connector-mismatch", "cabling-polish-mismatch"} <= codes
    clean = _fabric(facts, {"server-leaf": "patch-panel"})
    assert not {p.code for p in validate_fabric(clean, facts).problems} & {
        "cabling-polarity",
        "cabling-connector-mismatch",
        "cabling-polish-mismatch",
    }


def test_spec_refuses_a_trunk_its_mpo_cannot_make():
    doc = yaml.safe_load(EXAMPLE.read_text())
    doc["cabling"] = {"leaf-spine": {"type": "patch-panel", "trunk_fibers": 16}}
    with pytest.raises(SpecError) as caught:
        parse_spec(doc)
    assert caught.value.problems[0][0] == "cabling.leaf-spine.trunk_fibers"


STRUCTURED = ("TRUNK-", "PANEL-", "PLATE-", "CASSETTE-", "HARNESS-", "MFP7E10-")


def _policy_lengths_m():
    """Every length the ordering policy orders a made-to-length part in, up to 100 m."""
    return [*range(1, 11), *range(15, 51, 5), *range(60, 101, 10)]


def test_quote_prices_the_structured_lines(one_su, facts):
    """Issue 19 item 4: the quote prices panels, plates, trunks by length and patch cords by
    length once the price book has offers for them. Trunks and cords are made to length, so
    their offers name a length and price only a line of that length; a panel or a plate is
    priced by an offer without a length. The amounts are this test's own, not catalog prices
    (the seed's book has no public price for these classes, seed/figures-found.md)."""
    from decimal import Decimal

    from planner.domain.outputs.quote import (
        PriceOffer,
        PriceTable,
        QuoteTerms,
        price_quote,
        prices_for,
    )

    bom = bill_of_materials(one_su, facts)
    lines = [line for line in bom.lines if line.part.startswith(STRUCTURED)]
    parts = {line.part for line in lines}
    assert {p.split("-")[0] for p in parts} == {"TRUNK", "PANEL", "PLATE", "MFP7E10"}
    sized = {p for p in parts if p.startswith(("TRUNK-", "MFP7E10-"))}
    assert all(line.length_m for line in lines if line.part in sized)
    offers = [
        PriceOffer(part, Decimal(100 + metres), "USD", length_m=float(metres), seller="test")
        for part in sorted(sized)
        for metres in _policy_lengths_m()
    ] + [PriceOffer(part, Decimal(50), "USD", seller="test") for part in sorted(parts - sized)]
    lengths = {slug: facts.parts[slug].get("lengths_m") or [] for slug in parts}
    table = PriceTable(offers, part_lengths_m=lengths)
    quote = price_quote(
        bom, prices_for(bom, table, currency="USD", condition="new"), QuoteTerms("USD")
    )
    priced = [p for p in quote.lines if p.line.part.startswith(STRUCTURED)]
    assert priced and all(p.priced for p in priced), [p.unpriced_reason for p in priced]
    for p in priced:
        if p.line.part in sized:  # the offer of the line's own length
            assert p.offer.length_m == p.line.length_m
            assert p.unit_book == 100 + Decimal(str(p.line.length_m))
        else:
            assert p.offer.length_m is None and p.unit_book == 50
        assert p.extended_cost == p.unit_cost * p.line.quantity
    fiber = next(c for c in quote.categories if c.category == "fiber")
    assert fiber.cost == sum((p.extended_cost for p in priced), Decimal(0))
    # a trunk length the book has no offer for stays unpriced and says which lengths it has
    trunk = next(line for line in lines if line.part.startswith("TRUNK-"))
    missing = [o for o in offers if not (o.part == trunk.part and o.length_m == trunk.length_m)]
    choice = PriceTable(missing, part_lengths_m=lengths).choose(
        trunk.part, trunk.length_m, currency="USD"
    )
    assert choice.offer is None and f"for {trunk.length_m:g} m" in choice.reason
