"""Margin floors: a team may set one (``Team.margin_floor_pct``); a quote whose margin is below
the floor that applies to it (:func:`quote_margin_floor`) is sent only after an owner of that
team approves it (:func:`quote_approve`, in the audit log; :func:`check_margin_floor` refuses to
send it before). Changing the margin withdraws the approval
(:func:`planner.quotes.services.quote_update`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from planner.audit.models import AuditActionChoices
from planner.quotes.models import Quote, QuoteStatusChoices
from planner.quotes.rules import (
    QuoteStatusError,
    audit_quote,
    lock_quote,
    percent_text,
    refused,
    require_price_right,
)
from planner.teams.models import Team, TeamMembership, TeamRoleChoices


@dataclass(frozen=True)
class MarginFloor:
    """The margin floor that applies to a quote: ``team``'s ``floor_pct``."""

    team: Team
    floor_pct: Decimal

    def below(self, margin_pct) -> bool:
        return margin_pct is not None and Decimal(margin_pct) < self.floor_pct


def quote_margin_floor(quote: Quote) -> MarginFloor | None:
    """The highest margin floor among the teams the quote is made for: the design's team (for
    a private design, every team its owner belongs to) and the price book's team; ``None``
    when none of them has a floor."""
    design = quote.design
    if design.team_id is not None:
        teams = Team.objects.filter(pk=design.team_id)
    else:
        teams = Team.objects.filter(memberships__user_id=design.owner_id)
    if quote.price_book.team_id is not None:
        teams = teams | Team.objects.filter(pk=quote.price_book.team_id)
    team = (
        teams.filter(margin_floor_pct__isnull=False)
        .distinct()
        .order_by("-margin_floor_pct", "name")
        .first()
    )
    return None if team is None else MarginFloor(team=team, floor_pct=team.margin_floor_pct)


def check_margin_floor(quote: Quote) -> None:
    """Refuse (field ``margin_pct``) to send a quote below its margin floor unless a team
    owner approved its margin."""
    floor = quote_margin_floor(quote)
    if floor is None or not floor.below(quote.margin_pct) or quote.margin_approved:
        return
    raise QuoteStatusError(
        quote,
        "margin_pct",
        f"The margin of {percent_text(quote.margin_pct)} is below the margin floor of "
        f"{percent_text(floor.floor_pct)} of team {floor.team.name}: an owner of the team "
        f"must approve quote {quote.label} before it is sent.",
    )


def approval_record(quote: Quote) -> dict | None:
    """The approval a sent quote keeps in its snapshot (None when none was needed)."""
    if not quote.margin_approved:
        return None
    floor = quote_margin_floor(quote)
    return {
        "by": quote.approved_by.get_username() if quote.approved_by else "",
        "at": quote.approved_at.isoformat(),
        "margin_pct": str(quote.approved_margin_pct),
        "floor_pct": None if floor is None else str(floor.floor_pct),
        "team": None if floor is None else floor.team.name,
    }


@transaction.atomic
def quote_approve(*, quote: Quote, actor, may_view_prices: bool) -> Quote:
    """An owner of the team whose margin floor the draft ``quote`` is below approves its
    margin, so that it may be sent; recorded in the audit log. Changing the margin afterwards
    withdraws the approval.

    Raises
    ------
    PermissionDenied
        ``actor`` is not an owner of that team, or may not see the quote's prices.
    django.core.exceptions.ValidationError
        The quote is not a draft (``status``), or its margin is not below a floor
        (``margin_pct``: nothing to approve); nothing is written.
    """
    require_price_right(may_view_prices, "Approving a margin means reading it.")
    locked = lock_quote(quote)
    if locked.status != QuoteStatusChoices.DRAFT:
        raise refused(locked, "approved", "a draft")
    floor = quote_margin_floor(locked)
    if floor is None or not floor.below(locked.margin_pct):
        what = (
            "no margin floor applies to it"
            if floor is None
            else (
                f"its margin of {percent_text(locked.margin_pct)} is not below the floor of "
                f"{percent_text(floor.floor_pct)} of team {floor.team.name}"
            )
        )
        raise QuoteStatusError(
            locked, "margin_pct", f"Quote {locked.label} needs no approval: {what}."
        )
    is_owner = TeamMembership.objects.filter(
        team=floor.team, user_id=getattr(actor, "pk", None), role=TeamRoleChoices.OWNER
    ).exists()
    if not is_owner:
        raise PermissionDenied(
            f"Only an owner of team {floor.team.name} may approve a margin below its floor."
        )
    locked.approved_by = actor
    locked.approved_at = timezone.now()
    locked.approved_margin_pct = locked.margin_pct
    locked.save(update_fields=["approved_by", "approved_at", "approved_margin_pct", "updated"])
    audit_quote(
        locked,
        actor,
        AuditActionChoices.QUOTE_CHANGED,
        f"Quote {locked.label} approved at a margin of {percent_text(locked.margin_pct)}, "
        f"below the floor of {percent_text(floor.floor_pct)} of team {floor.team.name}",
        {
            "change": "approved",
            "margin_pct": str(locked.margin_pct),
            "floor_pct": str(floor.floor_pct),
            "team": floor.team.slug,
        },
    )
    return locked
