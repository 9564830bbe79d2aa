"""Who is in which team, and who has the price right (sales: prices, price books, priced quotes)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import Case, Count, IntegerField, QuerySet, Value, When
from django.http import Http404

from planner.teams.models import Team, TeamMembership, TeamRoleChoices


def user_can_view_prices(user) -> bool:
    """Whether ``user`` may see prices (price books, offers, priced quotes).

    Superusers, staff and catalog editors (``inventory.edit_catalog``, who keep the price
    books) may; anyone else needs a team membership with ``can_view_prices`` (the sales
    role). The right is per user, not per design; which books a user reads is
    :func:`inventory.permissions.price_books_for`.
    """
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_superuser or user.is_staff or user.has_perm("inventory.edit_catalog"):
        return True
    return TeamMembership.objects.filter(user_id=user.pk, can_view_prices=True).exists()


def teams_for(user) -> QuerySet[Team]:
    """Teams ``user`` belongs to (the ones a design of theirs may be shared with)."""
    return Team.objects.filter(memberships__user_id=user.pk).order_by("name")


PRICES_HIDDEN = "Prices are shown only to users with the price right (a sales role in a team)."


def quote_require_prices(may_view_prices: bool) -> None:
    """Raise :class:`PermissionDenied` (with the reason) unless prices may be shown."""
    if not may_view_prices:
        raise PermissionDenied(PRICES_HIDDEN)


# --- teams' pages: who sees a team, who manages its members -------------------------------


#: Roles from the most rights to the fewest.
ROLE_ORDER = (TeamRoleChoices.OWNER, TeamRoleChoices.EDITOR, TeamRoleChoices.VIEWER)


def team_list_for(user) -> QuerySet[Team]:
    """Teams ``user`` may open: their own; staff open every team. Each with ``member_count``."""
    if not getattr(user, "is_authenticated", False):
        return Team.objects.none()
    teams = Team.objects.all()
    if not user.is_staff:
        teams = teams.filter(
            pk__in=TeamMembership.objects.filter(user_id=user.pk).values("team_id")
        )
    # Counted apart from the filter above (a join on memberships would count only the user).
    return teams.annotate(member_count=Count("memberships", distinct=True)).order_by("name")


def team_get_for(user, slug) -> Team:
    """The team ``slug`` if ``user`` may open it (a member, or staff).

    Raises
    ------
    Http404
        No such team, or ``user`` is not in it: the same answer, so names do not leak.
    """
    try:
        return team_list_for(user).get(slug=slug)
    except (Team.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404("No such team.") from exc


def team_can_manage(user, team: Team) -> bool:
    """Whether ``user`` may add and remove members, set roles and the price right: the team's
    owners and staff."""
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff or user.is_superuser:
        return True
    return TeamMembership.objects.filter(
        team_id=team.pk, user_id=user.pk, role=TeamRoleChoices.OWNER
    ).exists()


def team_members(team: Team) -> QuerySet[TeamMembership]:
    """The members of ``team``, owners first, then by user name."""
    rank = Case(
        *(When(role=role, then=Value(i)) for i, role in enumerate(ROLE_ORDER)),
        default=Value(len(ROLE_ORDER)),
        output_field=IntegerField(),
    )
    return (
        TeamMembership.objects.filter(team_id=team.pk)
        .select_related("user")
        .annotate(role_rank=rank)
        .order_by("role_rank", "user__username")
    )


def membership_get(team: Team, username: str) -> TeamMembership:
    """``username``'s membership of ``team`` (404 if they are not in it)."""
    try:
        return team_members(team).get(user__username=username)
    except TeamMembership.DoesNotExist as exc:
        raise Http404("No such member.") from exc
