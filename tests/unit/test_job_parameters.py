"""Each job kind's parameters are one serializer: its checks and its documented schema agree.

The schema the API documents (``parameters.json_schema()``) is built from the same fields that
check a submission, so every bound it states is the bound the server enforces: a number at
its documented maximum is taken, one just above it is refused naming the parameter.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from simulation.jobs.kinds import KINDS
from simulation.jobs.parameters import (
    DiagnosticsParameters,
    SimulateParameters,
    SweepParameters,
    WhatifParameters,
)

#: What a kind needs to be valid at all (the what-if's failed ids).
BASE = {"whatif": {"failed": ["node:spine-01"]}}
#: The kinds whose parameters are checked without the catalog: an exploration's requirements
#: name catalog parts (tests/services/test_explore_jobs.py checks them against the catalog).
PURE_KINDS = sorted(kind for kind in KINDS if kind != "explore")


def _problems(kind_parameters, raw: dict) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        kind_parameters.clean(raw)
    return [str(m) for m in caught.value.message_dict["parameters"]]


def _numbers(kind: str):
    schema = KINDS[kind].parameters.json_schema()
    for name, field in schema["properties"].items():
        if field.get("type") in ("integer", "number") and "maximum" in field:
            yield name, field


@pytest.mark.parametrize("kind", PURE_KINDS)
def test_the_documented_bounds_are_the_checked_ones(kind):
    parameters = KINDS[kind].parameters
    checked = 0
    for name, field in _numbers(kind):
        ok = {**BASE.get(kind, {}), name: field["maximum"]}
        if name == "flowlets":
            ok["routing"] = "flowlet"
        if name == "seeds" and kind == "simulate":
            ok["routing"] = "ecmp"
        if name == "seeds" and kind == "sweep":
            continue  # the runs cap (points x seeds) is a rule of two fields, below
        assert parameters.clean(ok)[name] == field["maximum"]
        over = {**ok, name: field["maximum"] + 1}
        assert _problems(parameters, over)[0].startswith(f"{name}: "), name
        checked += 1
    assert checked or kind == "validate"


@pytest.mark.parametrize("kind", PURE_KINDS)
def test_no_other_parameter_is_accepted(kind):
    schema = KINDS[kind].parameters.json_schema()
    assert schema["additionalProperties"] is False
    (problem,) = _problems(KINDS[kind].parameters, {**BASE.get(kind, {}), "teleport": 1})
    assert problem.startswith("unknown parameter(s) teleport (accepted: ")


def test_every_problem_is_listed_each_naming_its_parameter():
    problems = _problems(SimulateParameters, {"traffic": "gossip", "seed": -1, "size_bytes": "x"})
    assert sorted(p.split(":")[0] for p in problems) == ["seed", "size_bytes", "traffic"]


def test_null_and_an_empty_choice_are_not_given():
    cleaned = SimulateParameters.clean({"traffic": "", "routing": None, "seed": None})
    assert cleaned["traffic"] == "all-reduce" and cleaned["seed"] == 0 and "routing" not in cleaned
    assert DiagnosticsParameters.clean({"echo": None}) == {"echo": ""}


def test_rules_over_two_parameters_name_the_first():
    (problem,) = _problems(
        SweepParameters,
        {"fail_links": list(range(11)), "seed": 1, "size_bytes": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]},
    )
    assert problem.startswith("fail_links × size_bytes: 11 × 10 = 110 points")
    (problem,) = _problems(WhatifParameters, {"traffic": "all-to-all"})
    assert problem.startswith("failed: a list of element or domain ids")


def test_a_sweep_axis_is_one_value_or_a_list_sorted_without_repeats():
    cleaned = SweepParameters.clean({"fail_links": [4, 0, 4], "placement": "fragmented"})
    assert cleaned["fail_links"] == [0, 4] and cleaned["placement"] == ["fragmented"]
    (problem,) = _problems(SweepParameters, {"size_bytes": []})
    assert problem == "size_bytes: give at least one value (or leave it out)"
