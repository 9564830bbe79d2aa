"""Who may change the catalog and who may read or change a price book: one place, used by the
API, the pages, the imports and the audit log.

- **Reading the catalog** (parts, manufacturers, "works with") is for everyone signed in.
- **Changing the catalog** (create, change, archive, delete parts and manufacturers; imports
  through the web) needs the catalog-editor permission ``inventory.edit_catalog``, granted in
  the admin (a user's or group's permissions). Staff and superusers have it.
- **Price books**: a public book (no team: the list book) is read by everyone with the price
  right (:func:`user_can_view_prices`, answered by teams through :mod:`inventory.hooks`) and
  changed by catalog editors only. A team's book is confidential (a reseller's negotiated
  prices): it is read only by that team's members with the price right and by staff, and
  changed by the team's owners with the price right and by staff. A catalog editor who is not
  staff keeps the public books, not other teams' books.
- **Exchange rates** are read by everyone signed in and changed by catalog editors
  (:class:`CanEditCatalog`).

The command line (``manage.py catalog ...``) is not checked here: shell access is admin access.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet
from rest_framework.permissions import SAFE_METHODS, BasePermission

from inventory.hooks import catalog_hooks
from inventory.models import PriceBook

__all__ = [
    "CATALOG_EDITOR_NEEDED",
    "EDIT_CATALOG",
    "PRICE_BOOK_EDITOR_NEEDED",
    "CanEditCatalog",
    "CanEditPriceBooks",
    "CanViewPrices",
    "price_books_for",
    "price_books_pickable_for",
    "user_can_view_prices",
    "user_can_edit_catalog",
    "user_can_edit_price_book",
    "user_can_read_price_book",
]

#: The catalog-editor permission (declared in ``Manufacturer.Meta.permissions``).
EDIT_CATALOG = "inventory.edit_catalog"

CATALOG_EDITOR_NEEDED = (
    "Changing the catalog needs the catalog-editor permission (inventory.edit_catalog); "
    "ask an administrator to grant it."
)
PRICE_BOOK_EDITOR_NEEDED = (
    "Changing this price book needs the catalog-editor permission, or, for a team's book, "
    "the team's owner role with the price right (can_view_prices)."
)


def user_can_edit_catalog(user) -> bool:
    """Whether ``user`` may create, change, archive and delete catalog entries.

    Staff and superusers may; anyone else needs ``inventory.edit_catalog`` (directly or
    through a group).
    """
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", True):
        return False
    return bool(user.is_staff or user.is_superuser or user.has_perm(EDIT_CATALOG))


def user_can_view_prices(user) -> bool:
    """Whether ``user`` may see prices at all (decided by teams; see :mod:`inventory.hooks`)."""
    return catalog_hooks().user_can_view_prices(user)


def _priced_teams(user, *, owners_only: bool = False):
    return catalog_hooks().price_team_ids(user, owners_only=owners_only)


def _is_staff(user) -> bool:
    return bool(
        getattr(user, "is_authenticated", False)
        and getattr(user, "is_active", True)
        and (user.is_staff or user.is_superuser)
    )


def price_books_for(user) -> QuerySet[PriceBook]:
    """The price books ``user`` may read (none without the price right), by name: the public
    books, and the books of the teams in which they have the price right (staff: every book).
    """
    books = PriceBook.objects.select_related("team").order_by("name")
    if not user_can_view_prices(user):
        return books.none()
    if _is_staff(user):
        return books
    return books.filter(Q(team__isnull=True) | Q(team_id__in=_priced_teams(user)))


def user_can_read_price_book(user, book: PriceBook) -> bool:
    """Whether ``user`` may see the prices of ``book`` (and of quotes priced from it)."""
    return price_books_for(user).filter(pk=book.pk).exists()


def price_books_pickable_for(user) -> QuerySet[PriceBook]:
    """The books ``user`` may choose for a quote or a spec: every public book (prices stay
    hidden without the price right) and the team books they may read."""
    return PriceBook.objects.filter(
        Q(team__isnull=True) | Q(pk__in=price_books_for(user).values("pk"))
    ).order_by("name")


def user_can_edit_price_book(user, book: PriceBook) -> bool:
    """Whether ``user`` may change ``book`` and its offers.

    A public book is changed by catalog editors; a team's book by the team's owners who have
    the price right, and by staff (a catalog editor who is not staff does not see it).
    """
    if book.team_id is None:
        return user_can_edit_catalog(user)
    if _is_staff(user):
        return True
    if not getattr(user, "is_authenticated", False):
        return False
    return book.team_id in set(_priced_teams(user, owners_only=True))


class CanEditCatalog(BasePermission):
    """Reads for everyone signed in; writes for catalog editors (403 otherwise)."""

    message = CATALOG_EDITOR_NEEDED

    def has_permission(self, request, view):
        if request.method in SAFE_METHODS:
            return True
        return user_can_edit_catalog(request.user)


class CanEditPriceBooks(BasePermission):
    """Reads pass; writes need the right to change some price book (a catalog editor, or an
    owner with the price right of a team), then of the object's book (403 otherwise)."""

    message = PRICE_BOOK_EDITOR_NEEDED

    def has_permission(self, request, view):
        if request.method in SAFE_METHODS:
            return True
        user = request.user
        return user_can_edit_catalog(user) or (
            getattr(user, "is_authenticated", False)
            and bool(set(_priced_teams(user, owners_only=True)))
        )

    def has_object_permission(self, request, view, obj):
        if request.method in SAFE_METHODS:
            return True
        return user_can_edit_price_book(request.user, getattr(obj, "book", obj))


class CanViewPrices(BasePermission):
    """Price books and prices are for staff and members with the price right (403 otherwise).

    Which books a user reads, and which they change, is decided per book by the views'
    querysets (:func:`price_books_for`, 404 for an unreadable book) and
    :func:`user_can_edit_price_book` (403).
    """

    message = (
        "Prices are shown to staff and to team members with the price right (can_view_prices)."
    )

    def has_permission(self, request, view):
        return user_can_view_prices(request.user)
