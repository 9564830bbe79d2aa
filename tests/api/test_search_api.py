"""Global search (issue 15 item 10): designs, parts and quotes, only what the user may see;
quote customers only for users with the price right."""

import pytest
from rest_framework.test import APIClient

from inventory.models import PriceBook
from planner.designs.services import design_create
from planner.quotes.services import quote_create
from planner.teams.models import Team, TeamMembership
from tests.factories import ONE_SU_SPEC

pytestmark = [pytest.mark.api, pytest.mark.django_db]


@pytest.fixture
def setting(seed_catalog, user, other_user, django_user_model):
    """alice (price right) shares "Pod North" with bob (viewer, no price right); carol's
    "Pod Secret" is private; each design has a quote for ACME."""
    team = Team.objects.create(name="Sales", slug="sales")
    TeamMembership.objects.create(team=team, user=user, role="owner", can_view_prices=True)
    TeamMembership.objects.create(team=team, user=other_user, role="viewer")
    carol = django_user_model.objects.create_user(username="carol", password="pw-carol-123!")
    shared = design_create(
        owner=user,
        spec_document={**ONE_SU_SPEC, "name": "Pod North"},
        team=team,
        sharing="team-read",
    )
    secret = design_create(owner=carol, spec_document={**ONE_SU_SPEC, "name": "Pod Secret"})
    book = PriceBook.objects.create(slug="test-book", name="Test book", currency="USD")
    quotes = [
        quote_create(design=design, actor=design.owner, customer="ACME Labs", price_book=book)
        for design in (shared, secret)
    ]
    return shared, secret, quotes


def _client(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_designs_parts_and_quotes_within_access(setting, user, other_user):
    shared, secret, quotes = setting
    found = _client(other_user).get("/api/search/", {"q": "pod"}).json()
    assert [hit["title"] for hit in found["designs"]] == ["Pod North"]
    found = _client(other_user).get("/api/search/", {"q": quotes[1].number}).json()
    assert found["quotes"] == []  # carol's quote: not bob's to see
    found = _client(other_user).get("/api/search/", {"q": quotes[0].number}).json()
    assert [hit["title"] for hit in found["quotes"]] == [quotes[0].number]
    assert "ACME" not in str(found)  # no price right: no customer


def test_quote_customers_only_with_the_price_right(setting, user, other_user):
    shared, _, quotes = setting
    assert _client(other_user).get("/api/search/", {"q": "acme"}).json()["quotes"] == []
    found = _client(user).get("/api/search/", {"q": "acme"}).json()
    assert [hit["title"] for hit in found["quotes"]] == [quotes[0].number]
    assert found["quotes"][0]["customer"] == "ACME Labs"


def test_parts_by_slug_part_number_and_alias(setting, user):
    from inventory.models import SwitchModel

    switch = SwitchModel.objects.get(slug="QM9700")
    alias = (switch.aliases or ["MQM9700-NS2F"])[0]
    client = _client(user)
    assert "QM9700" in [
        h["slug"] for h in client.get("/api/search/", {"q": "qm9700"}).json()["parts"]
    ]
    hits = client.get("/api/search/", {"q": alias}).json()["parts"]
    assert any(h["slug"] == "QM9700" for h in hits)
    assert client.get("/api/search/", {"q": "q"}).json()["parts"] == []  # too short


def test_search_is_in_the_schema(user):
    schema = _client(user).get("/api/schema/", {"format": "json"}).json()
    assert "/api/search/" in schema["paths"]


def test_search_and_home_pages(setting, client, user):
    client.force_login(user)
    page = client.get("/search/", {"q": "pod"}).content.decode()
    assert "Pod North" in page and "Pod Secret" not in page
    home = client.get("/").content.decode()
    assert "New design" in home and "Pod North" in home and "Pod Secret" not in home
    assert 'href="/help/"' in home


def test_search_without_q_is_a_400_naming_it(user):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(user)
    response = api.get("/api/search/")
    assert response.status_code == 400
    assert "q" in response.json()
    assert api.get("/api/search/", {"q": ""}).status_code == 200  # given but empty: no hits
