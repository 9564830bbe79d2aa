"""A budget that names only a price book costs the candidates with it and limits nothing."""

import pytest

from planner.analyses.explore.requirements import RequirementsError, parse_requirements


def test_a_price_book_alone_is_a_budget_without_a_limit(facts):
    document = {"gpus": 256, "limits": {"budget": {"price_book": "reseller-list-2026"}}}
    requirements = parse_requirements(document, facts)
    assert requirements.limits.budget.amount is None
    assert requirements.limits.budget.price_book == "reseller-list-2026"
    canonical = requirements.as_document()["limits"]["budget"]
    assert canonical == {"currency": "USD", "price_book": "reseller-list-2026"}
    assert parse_requirements(requirements.as_document(), facts) == requirements


def test_a_budget_without_amount_or_book_names_the_amount(facts):
    with pytest.raises(RequirementsError) as refused:
        parse_requirements({"gpus": 256, "limits": {"budget": {"currency": "EUR"}}}, facts)
    assert "limits.budget.amount" in {p["field"] for p in refused.value.problems}
