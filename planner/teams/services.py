"""Writes of teams: add and remove members, set their role and the price right.

Every write is checked (the team's owners and staff only), runs in one transaction and is in
the audit log (``team.changed``, with old → new), read by the team's owners. The log stands
above teams (an event belongs to a team): it is reached through the recorder it installs at
start-up (:func:`install_team_recorder`), never imported.

Rules
-----
- Only the team's owners and staff manage members (:func:`team_can_manage`); anyone else gets
  :class:`~django.core.exceptions.PermissionDenied`.
- Nobody raises their own rights: a user who is not staff cannot give themselves a higher
  role or the price right (an owner can still lower their own).
- A team keeps at least one owner: the last owner is neither demoted nor removed.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured, PermissionDenied, ValidationError
from django.db import transaction

from planner.teams.models import Team, TeamMembership, TeamRoleChoices
from planner.teams.selectors import ROLE_ORDER, team_can_manage

MANAGE_DENIED = "Only the team's owners (or staff) may change its members."
OWN_RIGHTS = "You cannot raise your own rights; ask another owner of the team."
LAST_OWNER = "A team keeps at least one owner: make someone else owner first."


def _rank(role: str) -> int:
    """0 for owner (most rights), larger for fewer rights."""
    return ROLE_ORDER.index(role)


def _require_manager(team: Team, actor) -> None:
    if not team_can_manage(actor, team):
        raise PermissionDenied(MANAGE_DENIED)


def _is_staff(actor) -> bool:
    return bool(getattr(actor, "is_staff", False) or getattr(actor, "is_superuser", False))


def _other_owners(membership: TeamMembership) -> bool:
    return (
        TeamMembership.objects.filter(team_id=membership.team_id, role=TeamRoleChoices.OWNER)
        .exclude(pk=membership.pk)
        .exists()
    )


#: ``record(team=, actor=, summary=, details=)``: writes a team change to the audit log, in the
#: caller's transaction; set by :func:`install_team_recorder`.
_record_team_change: Callable[..., None] | None = None


def install_team_recorder(record: Callable[..., None]) -> None:
    """Say where a team change is recorded: ``record(team=, actor=, summary=, details=)``.

    Called once at start-up (``planner.apps.PlannerConfig.ready``) with the audit log's
    :func:`planner.audit.log.record_team_change`.
    """
    global _record_team_change
    _record_team_change = record


def _audit(team: Team, actor, summary: str, details: dict) -> None:
    if _record_team_change is None:  # a change nobody records is refused, never made silently
        raise ImproperlyConfigured(
            "Team changes are not recorded: add the 'planner' app to INSTALLED_APPS."
        )
    _record_team_change(team=team, actor=actor, summary=summary, details=details)


@transaction.atomic
def team_member_add(
    *,
    team: Team,
    actor,
    username: str,
    role: str = TeamRoleChoices.VIEWER,
    can_view_prices: bool = False,
) -> TeamMembership:
    """Add user ``username`` to ``team`` with ``role`` and, if asked, the price right.

    Raises
    ------
    PermissionDenied
        ``actor`` is neither an owner of the team nor staff.
    ValidationError
        Keyed by field: ``username`` (no such user, or already a member), ``role``.
    """
    _require_manager(team, actor)
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ValidationError({"username": f"There is no user “{username}”."})
    if TeamMembership.objects.filter(team_id=team.pk, user_id=user.pk).exists():
        raise ValidationError({"username": f"{username} is already in {team.name}."})
    if user.pk == getattr(actor, "pk", None) and not _is_staff(actor):
        raise PermissionDenied(OWN_RIGHTS)  # an owner is in the team already: unreachable
    membership = TeamMembership(team=team, user=user, role=role, can_view_prices=can_view_prices)
    membership.full_clean()
    membership.save()
    _audit(
        team,
        actor,
        f"Added {username} to {team.name} as {membership.get_role_display().lower()}"
        + (" with the price right" if can_view_prices else ""),
        {
            "member": username,
            "role": {"old": None, "new": role},
            "can_view_prices": {"old": None, "new": can_view_prices},
        },
    )
    return membership


@transaction.atomic
def team_member_update(
    *,
    membership: TeamMembership,
    actor,
    role: str | None = None,
    can_view_prices: bool | None = None,
) -> TeamMembership:
    """Set a member's ``role`` and/or price right (``None`` keeps the value).

    Raises
    ------
    PermissionDenied
        ``actor`` is neither an owner nor staff, or raises their own rights.
    ValidationError
        ``role``: not a role, or the last owner would be demoted.
    """
    team = membership.team
    _require_manager(team, actor)
    membership = TeamMembership.objects.select_for_update().get(pk=membership.pk)
    before = {"role": membership.role, "can_view_prices": membership.can_view_prices}
    if role is not None:
        membership.role = role
    if can_view_prices is not None:
        membership.can_view_prices = can_view_prices
    membership.full_clean()
    self_change = membership.user_id == getattr(actor, "pk", None)
    if self_change and not _is_staff(actor):
        raises_role = _rank(membership.role) < _rank(before["role"])
        raises_prices = membership.can_view_prices and not before["can_view_prices"]
        if raises_role or raises_prices:
            raise PermissionDenied(OWN_RIGHTS)
    if (
        before["role"] == TeamRoleChoices.OWNER
        and membership.role != TeamRoleChoices.OWNER
        and not _other_owners(membership)
    ):
        raise ValidationError({"role": LAST_OWNER})
    changed = {
        key: {"old": old, "new": getattr(membership, key)}
        for key, old in before.items()
        if old != getattr(membership, key)
    }
    if not changed:
        return membership
    membership.save()
    username = membership.user.get_username()
    words = []
    if "role" in changed:
        words.append(f"role {changed['role']['old']} → {changed['role']['new']}")
    if "can_view_prices" in changed:
        words.append("price right " + ("granted" if membership.can_view_prices else "revoked"))
    _audit(
        team,
        actor,
        f"{username} in {team.name}: {', '.join(words)}",
        {"member": username, **changed},
    )
    return membership


@transaction.atomic
def team_member_remove(*, membership: TeamMembership, actor) -> None:
    """Remove a member from their team; their designs shared with it become private.

    Raises
    ------
    PermissionDenied
        ``actor`` is neither an owner of the team nor staff.
    ValidationError
        ``username``: the last owner.
    """
    team = membership.team
    _require_manager(team, actor)
    if membership.role == TeamRoleChoices.OWNER and not _other_owners(membership):
        raise ValidationError({"username": LAST_OWNER})
    username = membership.user.get_username()
    # A design is shared only with a team its owner is in (Design.clean): the member's designs
    # shared with this team become private.
    shared = team.designs.filter(owner_id=membership.user_id).exclude(sharing="private")
    made_private = sorted(shared.values_list("name", flat=True))
    shared.update(sharing="private", team=None)
    details = {
        "member": username,
        "role": {"old": membership.role, "new": None},
        "can_view_prices": {"old": membership.can_view_prices, "new": None},
        "designs_made_private": made_private,
    }
    membership.delete()
    summary = f"Removed {username} from {team.name}"
    if made_private:
        summary += f"; {len(made_private)} of their designs shared with it became private"
    _audit(team, actor, summary, details)
