"""Requirements documents: defaults, and bad input refused naming the field (issue 39 item 7)."""

import dataclasses

import jsonschema
import pytest

from planner.analyses.explore.candidates import enumerate_candidates
from planner.analyses.explore.evaluate import evaluate_candidate
from planner.analyses.explore.front import explore_result
from planner.analyses.explore.requirements import (
    ROUTINGS,
    RequirementsError,
    load_requirements_text,
    parse_requirements,
)
from planner.analyses.explore.schema import REQUIREMENTS_SCHEMA


def refused(document, facts) -> dict[str, str]:
    """field -> message of every problem of ``document``."""
    with pytest.raises(RequirementsError) as caught:
        parse_requirements(document, facts)
    return {p["field"]: p["message"] for p in caught.value.problems}


def test_defaults_and_the_canonical_document(facts):
    req = parse_requirements({"gpus": 512}, facts)
    assert req.gpus_min == req.gpus_max == 512
    assert "DGX-H100" in req.servers and "QM9700" in req.leaves
    assert req.planes == (1,) and req.tiers == (2, 3) and req.ratios == (1.0,)
    assert req.topologies == ("rail-optimized", "clos")
    assert req.objectives == ("cost", "collective_time_s")
    assert req.max_candidates == 2000
    assert parse_requirements({"gpus": 100_000}, facts).max_candidates == 300
    doc = req.as_document()
    assert doc["servers"] == "any" and doc["switches"] == "any"
    assert parse_requirements(doc, facts) == req
    jsonschema.validate(doc, REQUIREMENTS_SCHEMA)


def test_a_ratio_range_tries_the_ladder_within_it(facts):
    req = parse_requirements({"gpus": 64, "oversubscription": {"min": 1, "max": 3}}, facts)
    assert req.ratios == (1.0, 1.5, 2.0, 3.0)
    req = parse_requirements({"gpus": 64, "oversubscription": ["3:1", 1.5]}, facts)
    assert req.ratios == (1.5, 3.0)


def test_unknown_keys_types_and_names_name_their_field(facts):
    problems = refused(
        {
            "gpus": "many",
            "servers": ["DGX-H100", "DGX-H999"],
            "switches": ["QM9700", 7],
            "planes": [3],
            "tiers": [4],
            "cabling": ["fibre"],
            "limits": {"power_kw": -1, "budget": {"amount": 1e6, "currency": "dollars"}},
            "workload": {"collectives": ["broadcast"], "routing": "magic"},
            "objectives": ["beauty"],
            "colour": "blue",
        },
        facts,
    )
    assert "whole number" in problems["gpus"]
    assert problems["servers[1]"] == "no GPU server 'DGX-H999' in the catalog"
    assert "catalog switch name" in problems["switches[1]"]
    assert "3 is not one of 1, 2, 4, 8" in problems["planes[0]"]
    assert "4 is not one of" in problems["tiers[0]"]
    assert "'fibre'" in problems["cabling[0]"]
    assert problems["limits.power_kw"] == "above 0 (got -1)"
    assert "3-letter currency" in problems["limits.budget.currency"]
    assert "'broadcast'" in problems["workload.collectives[0]"]
    assert "'magic'" in problems["workload.routing"]
    assert "'beauty'" in problems["objectives[0]"]
    assert problems["colour"].startswith("unknown key")


def test_impossible_ranges_and_contradictions(facts):
    problems = refused(
        {
            "gpus": {"min": 4096, "max": 1024},
            "oversubscription": {"min": 3, "max": 1},
        },
        facts,
    )
    assert problems["gpus"] == "min 4,096 is above max 1,024"
    assert problems["oversubscription"] == "min 3 is above max 1"
    problems = refused(
        {"gpus": 256, "servers": ["DGX-H100"], "speeds_gbps": [800], "planes": [1, 2]}, facts
    )
    assert "no allowed server runs 800G per plane" in problems["speeds_gbps"]
    problems = refused({"gpus": 256, "workload": {"job_gpus": [512]}}, facts)
    assert "does not fit the smallest allowed cluster" in problems["workload.job_gpus[0]"]
    problems = refused({"gpus": 64, "tiers": [1], "oversubscription": 3}, facts)
    assert "one tier has no uplinks" in problems["oversubscription"]
    problems = refused({"gpus": 64, "base": {"planes": 2}}, facts)
    assert "set by the explorer" in problems["base.planes"]
    problems = refused({"gpus": 64, "base": {"layout": {"rack_units": 5}}}, facts)
    assert any(field.startswith("base.layout") for field in problems), problems


def test_a_size_no_switch_reaches_is_refused_naming_the_field(facts):
    req = parse_requirements({"gpus": 1_048_576, "tiers": [3]}, facts)
    with pytest.raises(RequirementsError) as caught:
        enumerate_candidates(req, facts)
    first = caught.value.problems[0]
    assert first["field"] == "oversubscription"
    assert first["message"].startswith(
        "no catalog switch reaches 1:1 at 1,048,576 GPUs in 3 tier(s): the most any holds is"
    )


def test_no_whole_server_in_the_range_is_refused(facts):
    req = parse_requirements({"gpus": {"min": 100, "max": 140}, "servers": ["GB200-NVL72"]}, facts)
    with pytest.raises(RequirementsError) as caught:
        enumerate_candidates(req, facts)
    assert caught.value.problems[0]["field"] == "gpus"
    assert "72 GPUs per system" in caught.value.problems[0]["message"]


def test_text_errors_name_line_and_column():
    assert load_requirements_text("gpus: 64\nservers: [DGX-H100]\n") == {
        "gpus": 64,
        "servers": ["DGX-H100"],
    }
    assert load_requirements_text('{"gpus": 8}') == {"gpus": 8}
    with pytest.raises(RequirementsError) as caught:
        load_requirements_text("gpus: 64\nservers: [DGX-H100\n")
    assert "line 3, column 1" in str(caught.value)
    with pytest.raises(RequirementsError, match="mapping"):
        load_requirements_text("- 1\n- 2\n")


def test_the_routing_names_are_the_flow_engines():
    from planner.analyses.flow.routing import ROUTING_ALIASES
    from planner.analyses.flow.routing import ROUTINGS as ENGINE

    assert set(ROUTINGS) == (set(ENGINE) | set(ROUTING_ALIASES)) - {"opensm"}


def test_a_candidate_that_crashes_is_reported_never_dropped(facts):
    """A switch record the loader never makes (a port group without a count) makes the build
    raise a TypeError: the candidate is ``crashed`` with the exception, and the result keeps
    it; a candidate with no evaluation at all is listed as crashed too."""
    qm = facts.devices["QM9700"]
    group = dataclasses.replace(qm.port_groups[0], count=None)
    facts.devices["QM9700-BROKEN"] = dataclasses.replace(
        qm, slug="QM9700-BROKEN", port_groups=(group,)
    )
    try:
        req = parse_requirements(
            {"gpus": 64, "servers": ["DGX-H100"], "switches": ["QM9700"], "tiers": [2]}, facts
        )
        enumeration = enumerate_candidates(req, facts)
        good = enumeration.candidates[0]
        document = {**good.document, "switches": {"leaf": "QM9700-BROKEN"}}
        broken = dataclasses.replace(good, index=1, key="broken", document=document)
        enumeration = dataclasses.replace(
            enumeration,
            candidates=(good, broken, dataclasses.replace(good, index=2, key="lost")),
        )
        evaluations = {
            c.index: evaluate_candidate(c, req, facts) for c in enumeration.candidates[:2]
        }
        assert evaluations[1]["status"] == "crashed"
        assert evaluations[1]["reasons"][0].startswith("TypeError: ")
        result = explore_result(req, enumeration, evaluations)
        rows = {r["key"]: r for r in result["candidates"]}
        assert rows["broken"]["why"].startswith("crashed: TypeError")
        assert rows["lost"]["status"] == "crashed" and "not evaluated" in rows["lost"]["why"]
        assert result["counts"]["crashed"] == 2 and result["counts"]["feasible"] == 1
    finally:
        del facts.devices["QM9700-BROKEN"]
