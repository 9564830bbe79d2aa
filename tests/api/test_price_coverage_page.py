"""The price book's preset-coverage page: lines by grade per preset (issue 37, item 1)."""

import pytest
from django.urls import reverse
from django.utils import timezone

from inventory.models import PriceBook
from inventory.services import SEED_PRICE_BOOK
from planner.domain.presets import load_presets
from planner.quotes.coverage import preset_boms

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_presets(monkeypatch):
    """Two presets instead of all sixteen (each build costs ~0.2 s)."""
    chosen = tuple(p for p in load_presets() if p.slug in ("h100-superpod-4su", "gb300-nvl72-xdr"))
    monkeypatch.setattr("planner.quotes.coverage.load_presets", lambda: chosen)
    return chosen


def _lines(presets) -> int:
    """The presets' orderable bill-of-materials lines, counted from their real bills (not from
    the report)."""
    boms = preset_boms(presets)
    return sum(len(boms[p.slug].ordered_lines()) for p in presets)


def test_the_seed_book_page_counts_each_preset_by_grade(
    logged_in_client, prices_visible, two_presets
):
    detail = logged_in_client.get(reverse("inventory:price-book-detail", args=[SEED_PRICE_BOOK]))
    url = reverse("price-book-coverage", args=[SEED_PRICE_BOOK])
    assert url in detail.content.decode()  # reachable from the book
    page = logged_in_client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    # every line of both presets priced (issue 37: 100 %), racks included, estimates marked
    assert 'data-preset="h100-superpod-4su"' in html and 'data-preset="gb300-nvl72-xdr"' in html
    assert f"100.0 % of {_lines(two_presets)} lines priced" in html
    assert " unpriced." not in html
    assert "Basis: midpoint of the published range" in html  # the GB300 rack system's estimate
    assert "DGX-H100-SuperPOD-rack" in html and "SR42UBDP" in html  # the racks' estimate basis
    assert "not in the price book" not in html


def test_a_changed_offer_shows_at_once(logged_in_client, prices_visible, two_presets):
    """Archiving the DGX H100 rack's offers leaves the 4 SU's one compute-rack line unpriced,
    and the page says so at once (the report is cached per book's prices)."""
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    url = reverse("price-book-coverage", args=[SEED_PRICE_BOOK])
    lines = _lines(two_presets)
    assert f"100.0 % of {lines} lines priced" in logged_in_client.get(url).content.decode()
    archived = book.prices.filter(part_slug="DGX-H100-SuperPOD-rack").update(
        archived_at=timezone.now()
    )
    assert archived >= 1
    html = logged_in_client.get(url).content.decode()
    assert f"{round(100 * (lines - 1) / lines, 1)} % of {lines} lines priced" in html
    assert "DGX-H100-SuperPOD-rack" in html and "not in the price book" in html


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
    boms = preset_boms(two_presets)
    for row in data["presets"]:
        assert row["lines"] == len(boms[row["preset"]].ordered_lines())
        assert row["counts"]["unpriced"] == 0 and not row["unpriced"]
        assert row["priced_pct"] == 100.0 and row["complete"]
        assert all(line["reason"].startswith("Basis:") for line in row["estimated"])
    four_su = next(row for row in data["presets"] if row["preset"] == "h100-superpod-4su")
    assert {"DGX-H100-SuperPOD-rack", "Rack-cabinet-19in"} <= {
        line["part"] for line in four_su["estimated"]
    }
    assert api_client.get("/api/planner/price-books/nope/coverage/").status_code == 404
