"""Who is in which team, and who has the price right (sales: prices, price books, priced quotes)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet

from planner.teams.models import Team, TeamMembership


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
