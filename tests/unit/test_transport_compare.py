"""InfiniBand vs RoCEv2 for one design (issue 20 item 3): the same spec built with each
transport's switches, priced, powered and simulated (pure: no database)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from planner.analyses.flow import ROUTINGS
from planner.analyses.scenario import run_scenario
from planner.analyses.transport_compare import (
    compare_transports,
    counterpart_switch,
    price_comparison,
)
from planner.analyses.transport_features import TRAFFIC
from planner.domain.outputs.quote import PriceOffer, PriceTable
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

TINY = {
    "name": "Tiny",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 4,
    "switches": {"leaf": "QM9700"},
}
IB_PRICE, ETH_PRICE = Decimal("30000"), Decimal("50000")


@pytest.fixture(scope="module")
def comparison(facts):
    return compare_transports(TINY, facts)


def _protocols(facts, side):
    return {p for slug in side.switches.values() for p in facts.devices[slug].protocols}


def test_ib_design_uses_ib_switches_and_roce_build_ethernet_ones(facts, comparison):
    ib, roce = comparison.sides
    assert comparison.current == "infiniband" and ib.current and not roce.current
    assert _protocols(facts, ib) == {"infiniband"}
    assert _protocols(facts, roce) == {"ethernet"}
    assert roce.switches["leaf"] == "SN5600"  # Spectrum-4: 100G lanes like QM9700, same maker
    assert ib.settings["transport"] == "infiniband" and roce.settings["transport"] == "roce"
    assert ib.switch_counts["leaf"] == 8 and sum(roce.switch_counts.values()) > 0
    json.dumps(comparison.as_dict())  # JSON-ready, and it holds no price


def test_costs_differ_as_the_price_book_says(comparison):
    table = PriceTable(
        [
            PriceOffer("QM9700", IB_PRICE, "USD", seller="test"),
            PriceOffer("SN5600", ETH_PRICE, "USD", seller="test"),
        ]
    )
    priced = price_comparison(comparison, table, currency="USD")
    ib, roce = comparison.sides
    switches = {
        t: next(g for g in priced["sides"][t]["groups"] if g["group"] == "switches")
        for t in ("infiniband", "roce")
    }
    assert Decimal(switches["infiniband"]["cost"]) == IB_PRICE * sum(ib.switch_counts.values())
    assert Decimal(switches["roce"]["cost"]) == ETH_PRICE * sum(roce.switch_counts.values())
    # Optics are not in this book: unpriced, never counted as zero, and named.
    assert not priced["sides"]["roce"]["complete"] and priced["sides"]["roce"]["unpriced_parts"]
    # A difference only where both sides are fully priced: the switches, not the total.
    assert priced["difference"] is None
    differences = {d["group"]: d for d in priced["differences"]}
    assert Decimal(differences["switches"]["difference"]) == Decimal(
        switches["roce"]["cost"]
    ) - Decimal(switches["infiniband"]["cost"])
    assert not differences["optics"]["comparable"] and differences["optics"]["difference"] is None
    totals = {t: Decimal(priced["sides"][t]["total"]) for t in ("infiniband", "roce")}
    assert totals["roce"] - totals["infiniband"] == Decimal(priced["difference_priced_only"])


def test_busbw_comes_from_the_simulator_under_each_transports_routing(facts, comparison):
    ib, roce = comparison.sides
    assert {r.routing for r in ib.flows} <= set(ROUTINGS) and len(ib.flows) == 2
    assert {r.routing for r in roce.flows} <= set(ROUTINGS) and len(roce.flows) == 2
    assert "ecmp" in {r.routing for r in roce.flows} and "rail" in {r.routing for r in ib.flows}
    # InfiniBand: adaptive routing is opensm's default, so the AR run is the design's setting.
    assert [r.routing for r in ib.flows if r.configured] == [ib.flows[0].routing]
    fabric = build_fabric(parse_spec(TINY), facts)
    for run in ib.flows:
        direct = run_scenario(fabric, traffic=TRAFFIC, routing=run.routing, summary_only=True)
        assert run.busbw_gbps == pytest.approx(direct["busbw_gbps"], rel=1e-6)
        assert run.bound_busbw_gbps == 400  # one 400G NIC per GPU


def test_power_from_the_power_budget(comparison):
    ib, roce = comparison.sides
    # QM9700 747 W and SN5600 940 W typical (catalog), times the switch counts.
    assert ib.power["switches_w"] == pytest.approx(747 * sum(ib.switch_counts.values()))
    assert roce.power["switches_w"] == pytest.approx(940 * sum(roce.switch_counts.values()))
    assert any("InfiniBand vs" in r for r in comparison.reasons["power"])


def test_features_carry_sources_and_this_design(comparison):
    keys = {f.key for f in comparison.features}
    assert {"sharp", "adaptive-routing", "multi-tenancy", "vendor-choice"} <= keys
    for feature in comparison.features:
        assert feature.sources and feature.this_design
    sharp = next(f for f in comparison.features if f.key == "sharp")
    assert "Quantum-2" in sharp.this_design and "are listed for SHARP" in sharp.this_design
    assert sharp.sources[0].url.startswith("https://docs.nvidia.com/")


def test_counterparts_both_ways_and_when_none_fits(facts):
    assert counterpart_switch(facts, "QM9700", 400, "roce").chosen == "SN5600"
    back = counterpart_switch(facts, "SN5600", 400, "infiniband")
    assert back.chosen == "QM9700" and "QM9790" in back.alternatives
    none = counterpart_switch(facts, "QM9700", 3, "roce")
    assert none.chosen is None and "3G" in none.reason


def test_an_ethernet_design_gets_an_infiniband_build(facts):
    spec = {**TINY, "switches": {"leaf": "SN5600"}, "media": {"server-leaf": "MMF"}}
    result = compare_transports(spec, facts)
    ib, roce = result.sides
    assert result.current == "roce" and roce.current
    assert _protocols(facts, ib) == {"infiniband"}
    assert not any("media." in note for note in ib.notes)  # a media kind is kept


def test_explicit_media_parts_are_made_auto_on_the_other_side(facts):
    spec = {**TINY, "media": {"server-leaf": {"cable": "no-such-cable"}}}
    roce = compare_transports(spec, facts, gpus=10**6).side("roce")
    assert any("media.server-leaf" in note for note in roce.notes)


def test_large_designs_are_capped(facts):
    result = compare_transports(TINY, facts, gpus=20_000, max_gpus=8_192)
    assert result.capped and all(not side.built and not side.flows for side in result.sides)
    assert "20,000 GPUs" in result.notes[0] and result.side("roce").counterparts
    assert price_comparison(result, PriceTable([]), currency="USD")["differences"] == []
    assert result.side("roce").switch_counts == {}  # not built, no stored counts given
    counted = compare_transports(
        TINY, facts, gpus=20_000, max_gpus=8_192, current_counts={"leaf": 8, "spine": 4}
    )
    assert counted.side("infiniband").switch_counts == {"leaf": 8, "spine": 4}
    assert set(counted.side("infiniband").switches) == {"leaf", "spine"}


def test_a_counterpart_that_cannot_be_built_gives_way_to_the_next(facts):
    # XDR DGX B300 on Quantum-3: at 800G the first Ethernet candidates have no optics for the
    # B300's flat-top OSFP224 cages in the catalog; each failure is said, the next one tried.
    spec = {**TINY, "server": "DGX-B300", "switches": {"leaf": "Q3400-RA"}}
    roce = compare_transports(spec, facts).side("roce")
    # the first Ethernet candidate (a Spectrum-6 switch of 200G lanes like the Q3400-RA) is
    # refused with its reason (today: ConnectX-8 runs no 800G Ethernet on one port)
    failed, _, reason = roce.notes[0].removeprefix("Not built with ").partition(": ")
    assert roce.notes[0].startswith("Not built with ") and failed in facts.devices
    assert reason
    assert roce.counterparts[0].chosen != failed
    assert "could not be built" in roce.counterparts[0].reason
