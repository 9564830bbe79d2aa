"""The price book's preset-coverage page: lines by grade per preset (issue 37, item 1)."""

import pytest
from django.urls import reverse

from inventory.models import PriceBook
from inventory.services import SEED_PRICE_BOOK
from planner.domain.presets import load_presets

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_presets(monkeypatch):
    """Two presets instead of all sixteen (each build costs ~0.2 s)."""
    chosen = tuple(p for p in load_presets() if p.slug in ("h100-superpod-4su", "gb300-nvl72-xdr"))
    monkeypatch.setattr("planner.quotes.coverage.load_presets", lambda: chosen)
    return chosen


def test_the_seed_book_page_counts_each_preset_by_grade(
    logged_in_client, prices_visible, two_presets
):
    detail = logged_in_client.get(reverse("inventory:price-book-detail", args=[SEED_PRICE_BOOK]))
    url = reverse("price-book-coverage", args=[SEED_PRICE_BOOK])
    assert url in detail.content.decode()  # reachable from the book
    page = logged_in_client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    # 4 SU: 14 lines, 2 unpriced (its two racks); GB300: 12 lines, 1 unpriced (network rack)
    assert 'data-preset="h100-superpod-4su"' in html and 'data-preset="gb300-nvl72-xdr"' in html
    assert "88.5 % of 26 lines priced" in html
    assert "Basis: midpoint of the published range" in html  # the GB300 rack's estimate
    assert "DGX-H100-SuperPOD-rack" in html and "not in the price book" in html


def test_a_new_offer_shows_at_once(logged_in_client, prices_visible, two_presets, catalog_editor):
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    url = reverse("price-book-coverage", args=[SEED_PRICE_BOOK])
    assert "88.5 % of 26 lines priced" in logged_in_client.get(url).content.decode()
    book.prices.create(
        part_category="rack",
        part_slug="DGX-H100-SuperPOD-rack",
        price=1,
        currency="USD",
        grade="estimate",
        note="Basis: test",
    )
    assert "92.3 % of 26 lines priced" in logged_in_client.get(url).content.decode()


def test_without_the_price_right_403_and_an_unreadable_book_404(
    logged_in_client, user, prices_visible
):
    from planner.teams.models import Team

    other = Team.objects.create(name="Other", slug="other")
    PriceBook.objects.create(slug="theirs", name="Theirs", team=other)
    assert logged_in_client.get(reverse("price-book-coverage", args=["theirs"])).status_code == 404
    assert logged_in_client.get(reverse("price-book-coverage", args=["nope"])).status_code == 404
    user.team_memberships.update(can_view_prices=False)
    seed = reverse("price-book-coverage", args=[SEED_PRICE_BOOK])
    assert logged_in_client.get(seed).status_code == 403


def test_the_api_gives_the_same_figures(api_client, prices_visible, two_presets):
    answer = api_client.get(f"/api/planner/price-books/{SEED_PRICE_BOOK}/coverage/")
    assert answer.status_code == 200
    data = answer.json()
    assert data["price_book"] == SEED_PRICE_BOOK and data["currency"] == "USD"
    four_su = next(row for row in data["presets"] if row["preset"] == "h100-superpod-4su")
    assert four_su["lines"] == 14 and four_su["counts"]["unpriced"] == 2
    assert four_su["priced_pct"] == 85.7 and not four_su["complete"]
    assert all(line["reason"].startswith("Basis:") for line in four_su["estimated"])
    assert api_client.get("/api/planner/price-books/nope/coverage/").status_code == 404
