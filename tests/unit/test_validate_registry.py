"""The validator's registry: a check registered in a family module runs without touching the
runner, and every code of the rule catalog has exactly one registered implementation."""

import numpy as np
import pytest

from planner.analyses.rules_catalog import RULES, RuleInfo, rule_sort_key
from planner.analyses.validate import registry, validate_fabric
from planner.analyses.validate.context import Finding
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

CLOS = {
    "name": "clos",
    "topology": "clos",
    "server": "XE9680",
    "servers": 24,
    "oversubscription": 3,
    "switches": {"leaf": "SN5600"},
}


@pytest.fixture(scope="module")
def clos(facts):
    return build_fabric(parse_spec(CLOS), facts)


@pytest.fixture
def rule_27(monkeypatch):
    """A new catalog row, as adding rule 27 to rules_catalog.py would make."""
    info = RuleInfo("test-rule-27", "27", "warning", "device", "a rule added in a test")
    monkeypatch.setitem(RULES, info.code, info)
    return info


def test_a_registered_group_check_runs_without_touching_the_runner(clos, facts, rule_27):
    seen = []

    @registry.register(stage="group", order=999, codes=(rule_27.code,))
    def uplinks_of_leaves(ctx, g):
        seen.append(g.tier)
        if g.tier == "leaf-spine":
            yield Finding(rule_27.code, f"{g.a.slug} uplink at {g.speed}G")

    try:
        report = validate_fabric(clos, facts)
    finally:
        registry.unregister(uplinks_of_leaves)
    (problem,) = report.by_code(rule_27.code)
    uplinks = np.flatnonzero(clos.link_tier == clos.link_tier.max())
    assert problem.rule == "27" and problem.severity == "warning"
    assert problem.count == uplinks.size
    assert problem.element_ids == [f"link:{int(i)}" for i in uplinks]
    assert set(seen) == {"server-leaf", "leaf-spine"}
    assert rule_27.code in report.rules_run
    # Unregistered: gone from the next run, and nothing else changed.
    again = validate_fabric(clos, facts)
    assert not again.by_code(rule_27.code)
    assert [p for p in report.problems if p.code != rule_27.code] == again.problems


def test_a_registered_fabric_check_runs_and_its_codes_are_held_to_it(clos, facts, rule_27):
    @registry.register(stage="fabric", order=999, codes=(rule_27.code,))
    def every_node(ctx):
        ctx.out.add(rule_27.code, "every node", nodes=np.arange(ctx.fabric.node_count))

    try:
        report = validate_fabric(clos, facts)
    finally:
        registry.unregister(every_node)
    assert report.by_code(rule_27.code)[0].count == clos.node_count

    @registry.register(stage="fabric", order=999)
    def undeclared(ctx):
        ctx.out.add(rule_27.code, "a code the check does not declare", nodes=[0])

    try:
        with pytest.raises(ValueError, match="does not declare"):
            validate_fabric(clos, facts)
    finally:
        registry.unregister(undeclared)


def test_registration_refuses_unknown_codes_and_a_second_owner():
    with pytest.raises(ValueError, match="not in the rule catalog"):
        registry.register(stage="group", order=1, codes=("no-such-code",))(lambda ctx, g: ())
    with pytest.raises(ValueError, match="owned by"):
        registry.register(stage="group", order=1, codes=("reach-exceeded",))(lambda ctx, g: ())
    with pytest.raises(ValueError, match="unknown stage"):
        registry.register(stage="later", order=1)(lambda ctx: None)


def test_every_catalog_code_has_exactly_one_registered_check():
    owners = registry.owners()
    assert {code: names for code, names in owners.items() if len(names) != 1} == {}
    for check in registry.checks():
        for code in check.shares:  # a shared code is owned by another check
            assert owners[code] != [check.name], (check.name, code)
    numbered = {info.rule for info in RULES.values() if info.rule.isdigit()}
    assert sorted(numbered, key=rule_sort_key) == [str(i) for i in range(1, 27)]
