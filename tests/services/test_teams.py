"""Who may change a team's members, roles and price right (planner.teams.services).

Owners and staff manage; members and outsiders do not; nobody raises their own rights; a
team keeps an owner; every change is in the audit log with old → new.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured, PermissionDenied, ValidationError

from planner.audit.log import audit_events_for
from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.models import Design
from planner.teams import selectors, services
from planner.teams.models import Team, TeamMembership
from planner.teams.services import team_member_add, team_member_remove, team_member_update


@pytest.fixture
def people(django_user_model):
    make = django_user_model.objects.create_user
    users = {name: make(username=name) for name in ("owner", "member", "outsider", "newbie")}
    users["staff"] = make(username="staff", is_staff=True)
    team = Team.objects.create(name="Blue", slug="blue")
    TeamMembership.objects.create(team=team, user=users["owner"], role="owner")
    TeamMembership.objects.create(team=team, user=users["member"], role="viewer")
    return team, users


def _membership(team, username):
    return TeamMembership.objects.get(team=team, user__username=username)


@pytest.mark.parametrize(
    ("actor", "allowed"),
    [("owner", True), ("staff", True), ("member", False), ("outsider", False)],
)
def test_who_adds_a_member(people, actor, allowed):
    team, users = people
    if allowed:
        added = team_member_add(team=team, actor=users[actor], username="newbie", role="editor")
        assert (added.role, added.can_view_prices) == ("editor", False)
    else:
        with pytest.raises(PermissionDenied):
            team_member_add(team=team, actor=users[actor], username="newbie")
        assert not TeamMembership.objects.filter(user=users["newbie"]).exists()


@pytest.mark.parametrize(
    ("actor", "allowed"),
    [("owner", True), ("staff", True), ("member", False), ("outsider", False)],
)
def test_who_grants_the_price_right_and_sets_roles(people, actor, allowed):
    team, users = people
    member = _membership(team, "member")
    if allowed:
        team_member_update(
            membership=member, actor=users[actor], role="editor", can_view_prices=True
        )
    else:
        with pytest.raises(PermissionDenied):
            team_member_update(membership=member, actor=users[actor], can_view_prices=True)
    member.refresh_from_db()
    assert (member.role, member.can_view_prices) == (
        ("editor", True) if allowed else ("viewer", False)
    )


@pytest.mark.parametrize(
    ("actor", "allowed"),
    [("owner", True), ("staff", True), ("member", False), ("outsider", False)],
)
def test_who_removes_a_member(people, actor, allowed):
    team, users = people
    if allowed:
        team_member_remove(membership=_membership(team, "member"), actor=users[actor])
    else:
        with pytest.raises(PermissionDenied):
            team_member_remove(membership=_membership(team, "member"), actor=users[actor])
    assert TeamMembership.objects.filter(user=users["member"]).exists() is not allowed


def test_an_owner_cannot_give_themselves_the_price_right(people):
    team, users = people
    mine = _membership(team, "owner")
    with pytest.raises(PermissionDenied, match="raise your own rights"):
        team_member_update(membership=mine, actor=users["owner"], can_view_prices=True)
    mine.refresh_from_db()
    assert mine.can_view_prices is False
    # Staff may; and another owner may.
    team_member_update(membership=mine, actor=users["staff"], can_view_prices=True)
    mine.refresh_from_db()
    assert mine.can_view_prices is True


def test_an_owner_may_lower_their_own_rights_but_a_team_keeps_an_owner(people):
    team, users = people
    mine = _membership(team, "owner")
    with pytest.raises(ValidationError) as caught:
        team_member_update(membership=mine, actor=users["owner"], role="viewer")
    assert "role" in caught.value.message_dict
    with pytest.raises(ValidationError) as caught:
        team_member_remove(membership=mine, actor=users["owner"])
    assert "username" in caught.value.message_dict
    team_member_update(membership=_membership(team, "member"), actor=users["owner"], role="owner")
    team_member_update(membership=mine, actor=users["owner"], role="editor")
    assert _membership(team, "owner").role == "editor"
    # No longer an owner: managing is over for them.
    with pytest.raises(PermissionDenied):
        team_member_update(
            membership=_membership(team, "owner"), actor=users["owner"], role="owner"
        )


def test_adding_names_the_field(people):
    team, users = people
    with pytest.raises(ValidationError) as caught:
        team_member_add(team=team, actor=users["owner"], username="nobody")
    assert caught.value.message_dict == {"username": ["There is no user “nobody”."]}
    with pytest.raises(ValidationError) as caught:
        team_member_add(team=team, actor=users["owner"], username="member")
    assert "already in Blue" in caught.value.message_dict["username"][0]
    with pytest.raises(ValidationError) as caught:
        team_member_add(team=team, actor=users["owner"], username="newbie", role="boss")
    assert "role" in caught.value.message_dict


def test_every_change_is_audited_for_the_teams_owners(people):
    team, users = people
    team_member_add(team=team, actor=users["owner"], username="newbie", can_view_prices=True)
    team_member_update(membership=_membership(team, "newbie"), actor=users["owner"], role="editor")
    team_member_remove(membership=_membership(team, "newbie"), actor=users["owner"])
    events = AuditEvent.objects.filter(action=AuditActionChoices.TEAM_CHANGED).order_by("pk")
    assert [e.summary for e in events] == [
        "Added newbie to Blue as viewer with the price right",
        "newbie in Blue: role viewer → editor",
        "Removed newbie from Blue",
    ]
    assert events[1].details["role"] == {"old": "viewer", "new": "editor"}
    assert all(e.team_id == team.pk and e.actor == users["owner"] for e in events)
    assert set(audit_events_for(users["owner"])) >= set(events)
    assert not audit_events_for(users["member"]).filter(pk__in=events).exists()


def test_a_change_nobody_records_is_not_made(people, monkeypatch):
    """The teams app reaches the audit log only through the recorder installed at start-up:
    without it a change is refused, never made unrecorded."""
    team, users = people
    monkeypatch.setattr(services, "_record_team_change", None)
    with pytest.raises(ImproperlyConfigured, match="not recorded"):
        team_member_add(team=team, actor=users["owner"], username="newbie")
    assert not TeamMembership.objects.filter(user=users["newbie"]).exists()
    assert not AuditEvent.objects.filter(team=team).exists()


def test_a_removed_members_designs_shared_with_the_team_become_private(people):
    team, users = people
    shared = Design.objects.create(name="D1", owner=users["member"], team=team, sharing="team-read")
    own = Design.objects.create(name="D2", owner=users["owner"], team=team, sharing="team-edit")
    team_member_remove(membership=_membership(team, "member"), actor=users["owner"])
    shared.refresh_from_db()
    own.refresh_from_db()
    assert (shared.sharing, shared.team_id) == ("private", None)
    assert (own.sharing, own.team_id) == ("team-edit", team.pk)
    event = AuditEvent.objects.get(action=AuditActionChoices.TEAM_CHANGED)
    assert event.details["designs_made_private"] == ["D1"]


def test_who_sees_a_team(people):
    team, users = people
    assert list(selectors.team_list_for(users["member"])) == [team]
    assert list(selectors.team_list_for(users["outsider"])) == []
    assert list(selectors.team_list_for(users["staff"])) == [team]
    assert selectors.team_list_for(users["owner"]).get().member_count == 2
    assert [m.user.username for m in selectors.team_members(team)] == ["owner", "member"]
    assert selectors.team_can_manage(users["owner"], team)
    assert not selectors.team_can_manage(users["member"], team)
