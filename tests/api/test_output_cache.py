"""Outputs of immutable revisions kept in the cache (issue 34 item 7, planner.outputs.cache):
what the cache answers is what a fresh computation gives, a catalog or price change makes
the next answer fresh, and no price reaches a user without the price right through it."""

from __future__ import annotations

import zlib
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.test import Client

from inventory.models import CATEGORY_MODELS, Price, PriceBook
from inventory.services import SEED_PRICE_BOOK
from inventory.services.price_books import price_save
from planner.designs import figures
from planner.designs.adapters import catalog_facts
from planner.designs.selectors import revision_fabric
from planner.designs.services import design_build, design_create
from planner.domain.outputs import cabling_csv_lines
from planner.outputs.cache import output_key, revision_ref
from tests.factories import TINY_SPEC

pytestmark = pytest.mark.django_db


@pytest.fixture
def design(user):
    return design_create(owner=user, spec_document=TINY_SPEC)


def _cabling(client, design) -> bytes:
    response = client.get(
        f"/api/planner/designs/{design.pk}/revisions/{design.latest_revision.number}/cabling/"
    )
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def _cabling_key(design) -> str:
    revision = design.latest_revision
    parts = [revision_ref(revision), "cabling-csv", design.name, {}, "", None, None]
    return output_key("export", parts)


def test_a_kept_cabling_plan_is_the_one_computed_afresh(api_client, design):
    cache.clear()
    first = _cabling(api_client, design)  # computed, then kept
    assert cache.get(_cabling_key(design)) is not None
    again = _cabling(api_client, design)  # from the cache
    fresh = "".join(
        cabling_csv_lines(revision_fabric(design.latest_revision), catalog_facts())
    ).encode()
    assert first == again == fresh
    assert fresh.count(b"\n") > 4  # a plan with cables, not an empty file


def test_a_catalog_change_gives_a_new_key_and_a_fresh_plan(api_client, design):
    cache.clear()
    real = _cabling(api_client, design)
    key = _cabling_key(design)
    # What is kept under the key is what is answered ...
    cache.set(key, zlib.compress(b"kept,answer\n"))
    assert _cabling(api_client, design) == b"kept,answer\n"
    # ... until any catalog part is saved: then the key is another one and the plan is fresh.
    switch = CATEGORY_MODELS["switch"].objects.get(slug="QM9700")
    switch.save()
    assert _cabling_key(design) != key
    assert _cabling(api_client, design) == real


def _seed_price(slug: str) -> Price:
    return Price.objects.filter(book__slug=SEED_PRICE_BOOK, part_slug=slug).order_by("pk").first()


def test_a_price_change_reprices_the_kept_live_summary(api_client, prices_visible):
    cache.clear()
    first = api_client.post("/api/planner/summary/", {"spec": TINY_SPEC}, format="json").json()
    price = _seed_price("QM9700")
    price.price = Decimal(price.price) * 2
    price_save(price=price)
    second = api_client.post("/api/planner/summary/", {"spec": TINY_SPEC}, format="json").json()
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    fresh = figures.fabric_cost(design_build(spec_document=TINY_SPEC)[1], book).as_dict()
    assert second["cost"] == fresh
    assert second["cost"]["total"] != first["cost"]["total"]
    # The summary itself (no price in it) is the same as a fresh build's.
    assert {k: v for k, v in second.items() if k not in ("cost", "spec")} == design_build(
        spec_document=TINY_SPEC
    )[2]


def test_no_price_through_the_cache_without_the_price_right(prices_visible, other_user, design):
    """Alice (sales) fills the cache with priced answers; Bob, without the price right, asks
    for the same spec, a design page of the same revision shared with him, and gets none."""
    cache.clear()
    alice = Client()
    alice.force_login(prices_visible)
    priced = alice.post("/api/planner/summary/", {"spec": TINY_SPEC}, "application/json").json()
    assert priced["cost"]["total"]
    alice_page = alice.get(f"/designs/{design.pk}/").content.decode()
    total = f"{Decimal(priced['cost']['total']):,.0f}"
    assert total in alice_page  # the page shows the design's cost to her

    bob = Client()
    bob.force_login(other_user)
    answer = bob.post("/api/planner/summary/", {"spec": TINY_SPEC}, "application/json").json()
    assert "cost" not in answer
    assert answer == {k: v for k, v in priced.items() if k != "cost"}
    design.sharing, design.team = "team-read", prices_visible.team_memberships.get().team
    design.save()
    from planner.teams.models import TeamMembership

    TeamMembership.objects.create(team=design.team, user=other_user, can_view_prices=False)
    bob_page = bob.get(f"/designs/{design.pk}/")
    assert bob_page.status_code == 200
    assert total not in bob_page.content.decode()
