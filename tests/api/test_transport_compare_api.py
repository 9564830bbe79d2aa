"""A revision's transport settings and its InfiniBand vs RoCEv2 comparison (issue 20 item 3):
the API route and the design page's section, with prices only for the price right."""

from __future__ import annotations

from decimal import Decimal

import pytest

from inventory.models import Price, PriceBook
from inventory.services import SEED_PRICE_BOOK
from planner.designs.services import design_create
from tests.factories import TINY_SPEC

BASE = "/api/planner"


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=TINY_SPEC)


def _url(design, number=1):
    return f"{BASE}/designs/{design.pk}/revisions/{number}/transport-comparison/"


def test_api_compares_the_design_with_its_other_transport(api_client, design):
    body = api_client.get(_url(design)).json()
    assert body["settings"]["transport"] == "infiniband" and body["settings_origin"] == "design"
    assert body["settings"]["infiniband"]["routing_engine"] == "ar_updn"
    comparison = body["comparison"]
    assert comparison["current"] == "infiniband" and not comparison["capped"]
    ib, roce = comparison["sides"]
    assert ib["switches"]["leaf"] == "QM9700" and roce["switches"]["leaf"] == "SN5600"
    assert roce["counterparts"][0]["original"] == "QM9700" and roce["counterparts"][0]["reason"]
    assert all(run["busbw_gbps"] > 0 for side in (ib, roce) for run in side["flows"])
    assert ib["power"]["switches_w"] > 0 and roce["power"]["switches_w"] > 0
    assert body["cost"] is None  # no price book asked for


def test_prices_need_the_price_right(api_client, design):
    response = api_client.get(_url(design), {"price_book": SEED_PRICE_BOOK})
    assert response.status_code == 403


def test_priced_at_the_book_asked_for(prices_visible, api_client, design):
    response = api_client.get(_url(design), {"price_book": SEED_PRICE_BOOK})
    assert response.status_code == 200, response.content
    cost = response.json()["cost"]
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    lowest = min(
        Price.objects.filter(
            book=book, part_slug="QM9700", currency=book.currency, condition="new"
        ).values_list("price", flat=True)
    )
    ib = response.json()["comparison"]["sides"][0]
    switches = next(g for g in cost["sides"]["infiniband"]["groups"] if g["group"] == "switches")
    assert Decimal(switches["cost"]) == Decimal(lowest) * sum(ib["switch_counts"].values())
    assert cost["currency"] == book.currency
    differences = {d["group"]: d for d in cost["differences"]}
    assert differences["switches"]["comparable"]  # the seed book prices QM9700 and SN5600
    roce = next(g for g in cost["sides"]["roce"]["groups"] if g["group"] == "switches")
    expected = Decimal(roce["cost"]) - Decimal(switches["cost"])
    assert Decimal(differences["switches"]["difference"]) == expected
    unknown = api_client.get(_url(design), {"price_book": "no-such-book"})
    assert unknown.status_code == 400 and "price_book" in unknown.json()


def test_other_users_designs_and_missing_revisions_are_404(other_user, api_client, design):
    theirs = design_create(owner=other_user, spec_document={**TINY_SPEC, "name": "theirs"})
    assert api_client.get(_url(theirs)).status_code == 404
    assert api_client.get(_url(design, 9)).status_code == 404


def test_design_page_shows_the_section_without_prices(logged_in_client, design):
    html = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert 'data-testid="transport"' in html and 'data-testid="transport-settings"' in html
    assert "This design runs <strong>InfiniBand</strong>" in html
    assert 'data-testid="transport-switches-roce"' in html and "SN5600" in html
    assert 'data-testid="transport-flows"' in html and "Gb/s" in html
    assert 'data-testid="transport-features"' in html and "docs.nvidia.com/networking" in html
    assert 'data-testid="transport-cost-' not in html  # no price right


def test_design_page_shows_costs_with_the_price_right(prices_visible, logged_in_client, design):
    html = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert 'data-testid="transport-cost-infiniband"' in html
    assert 'data-testid="transport-cost-difference"' in html


@pytest.mark.parametrize("slug", ["gb300-nvl72-xdr", "h100-superpod-4su"])
def test_a_preset_compares_with_no_unpriced_line_at_the_seed_book(
    prices_visible, api_client, logged_in_client, user, slug
):
    """Issue 37: the GB300 comparison once showed "0.00 USD (2 unpriced lines)". At the seed
    book every side that builds is priced completely, and the design page says no line is
    unpriced."""
    from planner.domain.presets import load_presets

    preset = next(p for p in load_presets() if p.slug == slug)
    design = design_create(owner=user, spec_document=preset.spec)
    body = api_client.get(_url(design), {"price_book": SEED_PRICE_BOOK}).json()
    built = {t: side for t, side in body["cost"]["sides"].items() if side is not None}
    assert "infiniband" in built
    for transport, side in built.items():
        assert side["complete"] and not side["unpriced_parts"], (transport, side["unpriced_parts"])
        assert all(g["unpriced_lines"] == 0 for g in side["groups"]), transport
    html = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert 'data-testid="transport-cost-infiniband"' in html  # the cost row is shown
    assert "unpriced line" not in html and "Not compared, for unpriced lines" not in html
