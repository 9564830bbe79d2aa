"""Reads of designs, scoped by who may see and change them.

Sharing rules:

- the owner always reads and writes (and alone deletes, or changes team and sharing);
- members of the design's team read it when sharing is ``team-read`` or ``team-edit``;
- members with role editor or owner write it when sharing is ``team-edit``;
- anyone else does not see it: 404, never 403, so ids do not leak. A user who can read but not
  write gets 403 on a write.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import IntegerField, JSONField, OuterRef, Q, QuerySet, Subquery
from django.http import Http404

from planner.models import (
    WRITE_ROLES,
    Design,
    DesignRevision,
    DesignSharingChoices,
    Team,
    TeamMembership,
)

SHARED = (DesignSharingChoices.TEAM_READ, DesignSharingChoices.TEAM_EDIT)


def _visible(user) -> Q:
    teams = TeamMembership.objects.filter(user_id=user.pk).values("team_id")
    return Q(owner_id=user.pk) | Q(sharing__in=SHARED, team_id__in=teams)


def design_list_for(user) -> QuerySet[Design]:
    """Designs ``user`` may open, newest change first, with ``latest_number`` and
    ``latest_summary`` (of the latest revision) annotated."""
    if not getattr(user, "is_authenticated", False):
        return Design.objects.none()
    latest = DesignRevision.objects.filter(design=OuterRef("pk")).order_by("-number")
    return (
        Design.objects.filter(_visible(user))
        .select_related("owner", "team")
        .annotate(
            latest_number=Subquery(latest.values("number")[:1], output_field=IntegerField()),
            latest_summary=Subquery(latest.values("summary")[:1], output_field=JSONField()),
        )
    )


def design_can_write(user, design: Design) -> bool:
    """Whether ``user`` may add revisions to ``design`` and rename it."""
    if design.owner_id == user.pk:
        return True
    return (
        design.sharing == DesignSharingChoices.TEAM_EDIT
        and design.team_id is not None
        and TeamMembership.objects.filter(
            team_id=design.team_id, user_id=user.pk, role__in=WRITE_ROLES
        ).exists()
    )


def design_can_manage(user, design: Design) -> bool:
    """Whether ``user`` may delete ``design`` or change its team and sharing (owner only)."""
    return design.owner_id == user.pk


def design_get_for(user, pk, *, write: bool = False, manage: bool = False) -> Design:
    """The design ``pk`` if ``user`` may read it (and write or manage it, when asked).

    Raises
    ------
    Http404
        The design does not exist or ``user`` may not read it.
    PermissionDenied
        ``user`` may read it but not make the change asked for.
    """
    try:
        design = design_list_for(user).get(pk=pk)
    except (Design.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404("No such design.") from exc
    if manage and not design_can_manage(user, design):
        raise PermissionDenied("Only the design's owner may delete it or change its sharing.")
    if write and not design_can_write(user, design):
        raise PermissionDenied("You may view this design but not change it.")
    return design


def revision_get(design: Design, number) -> DesignRevision:
    """Revision ``number`` of ``design`` (404 if there is none)."""
    try:
        return design.revisions.select_related("created_by").get(number=number)
    except (DesignRevision.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404(f"Design {design.pk} has no revision {number}.") from exc


def revision_list(design: Design) -> QuerySet[DesignRevision]:
    """Revisions of ``design``, newest first, without the stored topology."""
    return design.revisions.select_related("created_by").defer("topology").order_by("-number")


def teams_for(user) -> QuerySet[Team]:
    """Teams ``user`` belongs to (the ones a design of theirs may be shared with)."""
    return Team.objects.filter(memberships__user_id=user.pk).order_by("name")
