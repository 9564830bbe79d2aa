"""Pruning before building and limits after (issue 39 item 2): each prune and each broken
limit names its field and why; the cap is deterministic and says so."""

import pytest

from planner.analyses.explore.candidates import enumerate_candidates
from planner.analyses.explore.evaluate import evaluate_candidate
from planner.analyses.explore.requirements import RequirementsError, parse_requirements

H100 = {"servers": ["DGX-H100"], "tiers": [2]}


def _pruned(enumeration, field):
    return [p for p in enumeration.pruned if p["field"] == field]


def test_switches_of_another_transport_or_speed_are_pruned_with_the_reason(facts):
    req = parse_requirements(
        {
            "gpus": 64,
            **H100,
            "switches": {"leaf": ["QM9700", "SN5600"], "spine": ["QM9700", "SN5600", "Q3400-RA"]},
            "transports": ["infiniband"],
        },
        facts,
    )
    enumeration = enumerate_candidates(req, facts)
    pairs = {(c.axes["leaf"], c.axes["spine"]) for c in enumeration.candidates}
    assert ("QM9700", "QM9700") in pairs and ("QM9700", "SN5600") not in pairs
    reasons = " | ".join(p["reason"] for p in _pruned(enumeration, "transports"))
    assert "SN5600 is an ethernet switch; allowed: infiniband" in reasons
    assert "the spine SN5600 speaks ethernet, the leaf infiniband" in reasons


def test_a_nic_that_cannot_split_and_one_tier_rails_are_pruned(facts):
    req = parse_requirements(
        {"gpus": 64, **H100, "switches": ["QM9700"], "planes": [1, 8], "tiers": [1, 2]}, facts
    )
    enumeration = enumerate_candidates(req, facts)
    assert {c.axes["planes"] for c in enumeration.candidates} == {1}
    assert "lists no split into 8 planes" in _pruned(enumeration, "planes")[0]["reason"]
    rail_one = [
        p for p in _pruned(enumeration, "tiers") if "one tier of a rail-optimized" in p["reason"]
    ]
    assert rail_one and rail_one[0]["axes"]["tiers"] == 1
    assert any(
        c.axes["topology"] == "clos" and c.axes["tiers"] == 1 for c in enumeration.candidates
    )


def test_a_media_probe_prunes_a_cage_no_part_mates(facts):
    req = parse_requirements({"gpus": 64, **H100, "switches": ["SN5400", "QM9700"]}, facts)
    enumeration = enumerate_candidates(req, facts)
    assert {c.axes["leaf"] for c in enumeration.candidates} == {"QM9700"}
    media = _pruned(enumeration, "switches.leaf")
    assert media and media[0]["reason"].startswith("media (server-leaf): no transceiver fits")
    assert "SN5400" in media[0]["reason"]


def test_roce_candidates_configure_what_the_nic_needs(facts):
    req = parse_requirements({"gpus": 64, **H100, "switches": ["SN5600", "7060X6-32PE"]}, facts)
    enumeration = enumerate_candidates(req, facts)
    by_leaf = {c.axes["leaf"]: c for c in enumeration.candidates}
    assert by_leaf["SN5600"].document["transport"] == {"type": "roce", "load_balancing": "ecmp"}
    assert by_leaf["7060X6-32PE"].document["transport"]["lossless_dscp"] == [24, 26]
    for candidate in (by_leaf["SN5600"], by_leaf["7060X6-32PE"]):
        assert evaluate_candidate(candidate, req, facts)["status"] == "feasible"


def test_a_budget_below_the_lower_bound_prunes_everything_naming_it(facts, seed_prices):
    _, price_of = seed_prices
    req = parse_requirements(
        {"gpus": 256, **H100, "switches": ["QM9700"], "limits": {"budget": 100_000}}, facts
    )
    with pytest.raises(RequirementsError) as caught:
        enumerate_candidates(req, facts, price_of=price_of)
    first = caught.value.problems[0]
    assert first["field"] == "limits.budget"
    assert (
        "before optics and cables" in first["message"]
        and "over the budget of 100,000" in (first["message"])
    )


def test_broken_limits_make_a_candidate_infeasible_naming_them(facts, seed_prices):
    table, price_of = seed_prices
    req = parse_requirements(
        {
            "gpus": 64,
            **H100,
            "switches": ["QM9700"],
            "topologies": ["clos"],
            "limits": {"max_gpus_lost_rack": 8, "power_kw": 60, "racks": 100},
        },
        facts,
    )
    (candidate,) = enumerate_candidates(req, facts, price_of=price_of).candidates
    out = evaluate_candidate(candidate, req, facts, prices=table, price_of=price_of)
    assert out["status"] == "infeasible"
    limits = {row["field"]: row for row in out["limits"]}
    assert limits["limits.racks"]["ok"] is True
    assert limits["limits.max_gpus_lost_rack"]["ok"] is False
    assert limits["limits.power_kw"]["ok"] is False
    assert any(r.startswith("limits.max_gpus_lost_rack: ") for r in out["reasons"])
    assert any(r.startswith("limits.power_kw: ") for r in out["reasons"])


def test_the_cap_keeps_an_even_spread_and_says_so(facts):
    document = {
        "gpus": 256,
        **H100,
        "switches": ["QM9700", "QM9790", "SN5600"],
        "oversubscription": {"min": 1, "max": 4},
    }
    every = enumerate_candidates(parse_requirements(document, facts), facts)
    capped = enumerate_candidates(
        parse_requirements({**document, "max_candidates": 5}, facts), facts
    )
    assert len(every.candidates) == 30 and len(capped.candidates) == 5
    assert [c.key for c in capped.candidates] == [every.candidates[i].key for i in range(0, 30, 6)]
    assert [c.index for c in capped.candidates] == list(range(5))
    assert capped.bounds["capped"] == {"enumerated": 30, "kept": 5, "rule": "evenly spread"}
    (cap,) = _pruned(capped, "max_candidates")
    assert cap["count"] == 25 and "evenly spread" in cap["reason"]


def test_port_speed_uplinks_are_a_candidate_of_their_own(facts):
    req = parse_requirements(
        {
            "gpus": 256,
            "servers": ["DGX-B300"],
            "switches": ["SN5600"],
            "planes": [2],
            "tiers": [2],
            "topologies": ["rail-optimized"],
            "uplinks": ["link", "port"],
        },
        facts,
    )
    link, port = enumerate_candidates(req, facts).candidates
    assert link.axes["uplink_gbps"] == 400 and "uplink_speed_gbps" not in link.document
    assert port.axes["uplink_gbps"] == 800 and port.document["uplink_speed_gbps"] == 800
    assert port.key == link.key + "|up800G" and port.label.endswith("800G uplinks")
    fewer = evaluate_candidate(port, req, facts)["metrics"]
    more = evaluate_candidate(link, req, facts)["metrics"]
    assert fewer["links"] < more["links"]  # half the switch-to-switch links, twice as fast
    assert fewer["bisection_gbps"] == more["bisection_gbps"]
