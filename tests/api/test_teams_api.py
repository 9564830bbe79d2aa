"""Teams and sharing through HTTP: the teams API, the Team page, the design's share control
(page and API) and the styled 404 that is the same for a design absent and one not shared."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.models import Design
from planner.teams.models import Team, TeamMembership


@pytest.fixture
def world(django_user_model):
    make = django_user_model.objects.create_user
    users = {name: make(username=name) for name in ("olga", "mia", "otto", "nina")}
    users["stella"] = make(username="stella", is_staff=True)
    team = Team.objects.create(name="Blue", slug="blue")
    TeamMembership.objects.create(team=team, user=users["olga"], role="owner")
    TeamMembership.objects.create(team=team, user=users["mia"], role="viewer")
    design = Design.objects.create(name="Zebra-42", owner=users["olga"])
    return team, users, design


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _unmasked(html: str) -> str:
    """The page without its CSRF token (masked anew on every response)."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)


def test_team_list_and_detail_for_members_only(world):
    team, users, _ = world
    listed = _api(users["mia"]).get("/api/teams/").json()
    assert listed == [
        {
            "slug": "blue",
            "name": "Blue",
            "member_count": 2,
            "my_role": "viewer",
            "can_manage": False,
        }
    ]
    detail = _api(users["mia"]).get("/api/teams/blue/").json()
    assert detail["members"] == [
        {"username": "olga", "role": "owner", "can_view_prices": False},
        {"username": "mia", "role": "viewer", "can_view_prices": False},
    ]
    members = _api(users["mia"]).get("/api/teams/blue/members/")
    assert members.status_code == 200 and members.json() == detail["members"]  # owners first
    assert _api(users["otto"]).get("/api/teams/").json() == []
    for url in ("/api/teams/blue/", "/api/teams/blue/members/", "/api/teams/blue/members/mia/"):
        assert _api(users["otto"]).get(url).status_code == 404, url
    assert _api(users["stella"]).get("/api/teams/blue/").json()["can_manage"] is True


@pytest.mark.parametrize(
    ("actor", "expected"), [("olga", 201), ("stella", 201), ("mia", 403), ("otto", 404)]
)
def test_adding_a_member(world, actor, expected):
    team, users, _ = world
    response = _api(users[actor]).post(
        "/api/teams/blue/members/",
        {"username": "nina", "role": "editor", "can_view_prices": True},
        format="json",
    )
    assert response.status_code == expected, response.content
    added = TeamMembership.objects.filter(team=team, user=users["nina"])
    assert added.exists() is (expected == 201)
    if expected == 201:
        assert response.json() == {"username": "nina", "role": "editor", "can_view_prices": True}


def test_member_changes_and_their_400s(world):
    team, users, _ = world
    olga = _api(users["olga"])
    response = olga.patch("/api/teams/blue/members/mia/", {"can_view_prices": True}, format="json")
    assert response.json() == {"username": "mia", "role": "viewer", "can_view_prices": True}
    response = olga.patch("/api/teams/blue/members/mia/", {"role": "boss"}, format="json")
    assert response.status_code == 400 and "role" in response.json()
    # A PATCH that names no field it may change (a misspelt one) is a 400 naming the key.
    response = olga.patch("/api/teams/blue/members/mia/", {"rol": "owner"}, format="json")
    assert response.status_code == 400 and "rol" in response.json()
    assert team.memberships.get(user__username="mia").role == "viewer"
    response = olga.post("/api/teams/blue/members/", {"username": "ghost"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"username": ["There is no user “ghost”."]}
    # Olga cannot give herself the price right, nor leave the team without an owner.
    response = olga.patch("/api/teams/blue/members/olga/", {"can_view_prices": True}, format="json")
    assert response.status_code == 403 and "own rights" in response.json()["detail"]
    response = olga.delete("/api/teams/blue/members/olga/")
    assert response.status_code == 400 and "at least one owner" in response.json()["username"][0]
    # Mia, a viewer, cannot change anyone, herself included.
    mia = _api(users["mia"])
    assert (
        mia.patch("/api/teams/blue/members/mia/", {"role": "owner"}, format="json").status_code
        == 403
    )
    assert mia.delete("/api/teams/blue/members/olga/").status_code == 403
    assert olga.delete("/api/teams/blue/members/mia/").status_code == 204
    assert list(team.memberships.values_list("user__username", flat=True)) == ["olga"]
    assert AuditEvent.objects.filter(action=AuditActionChoices.TEAM_CHANGED).count() == 2


def test_sharing_through_the_api_is_for_the_owner(world):
    team, users, design = world
    url = f"/api/planner/designs/{design.pk}/"
    body = {"team": "blue", "sharing": "team-read"}
    assert _api(users["mia"]).patch(url, body, format="json").status_code == 404  # not shared
    assert _api(users["olga"]).patch(url, body, format="json").status_code == 200
    assert _api(users["mia"]).get(url).status_code == 200
    assert _api(users["mia"]).patch(url, {"sharing": "private"}, format="json").status_code == 403
    event = AuditEvent.objects.get(action=AuditActionChoices.DESIGN_CHANGED)
    assert event.details["changes"]["sharing"] == {"old": "private", "new": "team-read"}
    # A team the owner is not in is refused, naming the field.
    Team.objects.create(name="Red", slug="red")
    response = _api(users["olga"]).patch(url, {"team": "red"}, format="json")
    assert response.status_code == 400 and "team" in response.json()


def test_the_share_control_on_the_design_page(client, world):
    team, users, design = world
    client.force_login(users["olga"])
    page = client.get(f"/designs/{design.pk}/").content.decode()
    assert 'data-testid="share-form"' in page and '<option value="blue">Blue</option>' in page
    response = client.post(f"/designs/{design.pk}/share/", {"sharing": "team-edit", "team": "blue"})
    assert response.status_code == 302
    design.refresh_from_db()
    assert (design.team, design.sharing) == (team, "team-edit")
    # Shared without a team: 400 with the reason next to the field, nothing changed.
    response = client.post(f"/designs/{design.pk}/share/", {"sharing": "team-read", "team": ""})
    assert response.status_code == 400
    assert "Choose the team to share with" in response.content.decode()
    design.refresh_from_db()
    assert design.sharing == "team-edit"
    response = client.post(f"/designs/{design.pk}/share/", {"sharing": "private", "team": "blue"})
    design.refresh_from_db()
    assert (design.team, design.sharing) == (None, "private")
    # A teammate sees no share control, and may not post one.
    design.team, design.sharing = team, "team-read"
    design.save()
    client.force_login(users["mia"])
    assert 'data-testid="share-form"' not in client.get(f"/designs/{design.pk}/").content.decode()
    response = client.post(f"/designs/{design.pk}/share/", {"sharing": "private"})
    assert response.status_code == 403 and 'data-testid="forbidden"' in response.content.decode()


def test_absent_and_not_shared_designs_answer_the_same_styled_404(client, world):
    team, users, design = world
    client.force_login(users["mia"])
    hidden = client.get(f"/designs/{design.pk}/")
    absent = client.get(f"/designs/{design.pk + 1000}/")
    assert hidden.status_code == absent.status_code == 404
    text = _unmasked(hidden.content.decode())
    assert text == _unmasked(absent.content.decode())
    assert 'data-testid="not-found"' in text and 'class="topbar"' in text
    assert "ask the person who sent it to share it with your team" in text
    assert "Zebra-42" not in text and "olga" not in text and "Traceback" not in text
    # Teams too: a team you are not in is the same page.
    client.force_login(users["otto"])
    assert 'data-testid="not-found"' in client.get("/teams/blue/").content.decode()


def test_the_team_page_for_owners_and_members(client, world):
    team, users, _ = world
    client.force_login(users["olga"])
    page = client.get("/teams/blue/").content.decode()
    assert 'data-testid="add-member"' in page and 'aria-label="Role of mia"' in page
    response = client.post("/teams/blue/", {"username": "nina", "role": "editor"})
    assert response.status_code == 302
    response = client.post("/teams/blue/", {"username": "ghost", "role": "viewer"})
    assert response.status_code == 400 and "There is no user “ghost”." in response.content.decode()
    response = client.post(
        "/teams/blue/members/nina/", {"m-nina-role": "viewer", "m-nina-can_view_prices": "on"}
    )
    assert response.status_code == 302
    assert team.memberships.get(user__username="nina").can_view_prices is True
    assert client.post("/teams/blue/members/nina/remove/").status_code == 302
    assert not team.memberships.filter(user__username="nina").exists()
    client.force_login(users["mia"])
    page = client.get("/teams/blue/").content.decode()
    assert 'data-testid="add-member"' not in page and "ask one of the team's owners" in page
    assert client.post("/teams/blue/", {"username": "nina"}).status_code == 403
    assert client.post("/teams/blue/members/olga/remove/").status_code == 403
    assert "Blue" in client.get("/teams/").content.decode()
