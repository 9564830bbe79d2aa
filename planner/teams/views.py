"""The Team pages: my teams, and a team's members (owners and staff manage them here)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from planner.teams import selectors, services
from planner.teams.forms import MemberAddForm, MemberChangeForm
from planner.teams.models import TeamMembership, TeamRoleChoices


@require_GET
def team_list(request):
    """The teams the user is in (staff: every team), with their role and the price right."""
    teams = list(selectors.team_list_for(request.user))
    mine = {
        m.team_id: m for m in TeamMembership.objects.filter(user_id=request.user.pk, team__in=teams)
    }
    rows = [{"team": team, "membership": mine.get(team.pk)} for team in teams]
    return render(request, "teams/team_list.html", {"rows": rows})


def _errors(exc: ValidationError) -> list[str]:
    return [message for messages_ in exc.message_dict.values() for message in messages_]


@require_http_methods(["GET", "POST"])
def team_detail(request, team_slug):
    """A team's members; its owners (and staff) add members here (POST)."""
    team = selectors.team_get_for(request.user, team_slug)
    can_manage = selectors.team_can_manage(request.user, team)
    form = MemberAddForm(request.POST or None)
    if request.method == "POST":
        if not can_manage:
            raise PermissionDenied(services.MANAGE_DENIED)
        if form.is_valid():
            try:
                membership = services.team_member_add(
                    team=team, actor=request.user, **form.cleaned_data
                )
            except ValidationError as exc:
                for field, errors in exc.message_dict.items():
                    for message in errors:
                        form.add_error(field if field in form.fields else None, message)
            else:
                messages.success(request, f"Added {membership.user.get_username()} to {team.name}.")
                return redirect("teams:team-detail", team_slug=team.slug)
    memberships = list(selectors.team_members(team))
    owners = sum(1 for m in memberships if m.role == TeamRoleChoices.OWNER)
    members = [
        {
            "membership": m,
            "form": MemberChangeForm(
                initial={"role": m.role, "can_view_prices": m.can_view_prices},
                prefix=f"m-{m.user.get_username()}",
            ),
            "is_me": m.user_id == request.user.pk,
            "last_owner": m.role == TeamRoleChoices.OWNER and owners == 1,
        }
        for m in memberships
    ]
    context = {
        "team": team,
        "members": members,
        "can_manage": can_manage,
        "form": form,
        "designs_shared": team.designs.exclude(sharing="private").count(),
        "price_books": team.price_books.count(),
    }
    return render(request, "teams/team_detail.html", context, status=400 if form.errors else 200)


@require_POST
def member_change(request, team_slug, username):
    """Set a member's role and price right (owners and staff)."""
    team = selectors.team_get_for(request.user, team_slug)
    membership = selectors.membership_get(team, username)
    form = MemberChangeForm(request.POST, prefix=f"m-{username}")
    if not form.is_valid():
        messages.error(request, f"{username}: choose one of the roles.")
        return redirect("teams:team-detail", team_slug=team.slug)
    try:
        services.team_member_update(membership=membership, actor=request.user, **form.cleaned_data)
    except PermissionDenied as exc:
        if not selectors.team_can_manage(request.user, team):
            raise  # not an owner: the 403 page
        messages.error(request, str(exc))  # an owner raising their own rights
    except ValidationError as exc:
        messages.error(request, f"{username}: {' '.join(_errors(exc))}")
    else:
        messages.success(request, f"Saved {username}'s role and price right.")
    return redirect("teams:team-detail", team_slug=team.slug)


@require_POST
def member_remove(request, team_slug, username):
    """Remove a member (owners and staff)."""
    team = selectors.team_get_for(request.user, team_slug)
    membership = selectors.membership_get(team, username)
    try:
        services.team_member_remove(membership=membership, actor=request.user)
    except ValidationError as exc:
        messages.error(request, f"{username}: {' '.join(_errors(exc))}")
    else:
        messages.success(request, f"Removed {username} from {team.name}.")
    return redirect("teams:team-detail", team_slug=team.slug)
