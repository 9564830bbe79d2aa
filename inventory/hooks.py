"""What the catalog asks of the rest of the product, without importing it.

The catalog sits just above teams (:mod:`planner.teams`, whose Team its price books point at)
and imports nothing of designs or the audit log. What it needs from them is asked through
:class:`CatalogHooks`, which the ``planner`` app plugs in when Django starts
(``planner.apps.PlannerConfig.ready``):

- who has the price right, and in which teams (price-book visibility and editing; this one
  could now ask :mod:`planner.teams.selectors` directly);
- which design revisions use a part (a used part cannot be deleted, only archived);
- where a catalog or price change is recorded (the audit log, in the same transaction);
- a part's recorded history.

One seam, one object: the catalog calls :func:`catalog_hooks`, never a module above it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from django.core.exceptions import ImproperlyConfigured

__all__ = ["CatalogHooks", "PartUsage", "catalog_hooks", "install_catalog_hooks"]


class PartUsage(Protocol):
    """The revisions that use a part: truthy when any does."""

    revision_count: int
    design_count: int

    def __bool__(self) -> bool: ...


class CatalogHooks(Protocol):
    """The answers the catalog needs from teams, designs and the audit log."""

    def user_can_view_prices(self, user) -> bool:
        """Whether ``user`` may see prices at all (staff, catalog editors, the price right)."""

    def price_team_ids(self, user, *, owners_only: bool = False) -> Iterable[int]:
        """Ids of the teams in which ``user`` has the price right (and is an owner, if asked):
        a queryset of ids is fine, it is used inside a filter."""

    def part_usage(self, part) -> PartUsage:
        """The design revisions, of every user and team, that use ``part``."""

    def record(self, *, actor, action: str, summary: str, team=None, **fields: Any) -> None:
        """Record a catalog or price change in the audit log (``catalog.changed``,
        ``catalog.deleted``, ``catalog.archived``, ``price.changed``, ``import.applied``), in
        the caller's transaction; ``team`` is a price book's team, if it has one."""

    def part_history(self, user, part) -> Sequence:
        """The recorded changes of ``part`` that ``user`` may read, newest first: events with
        ``created``, ``actor`` (a user or None), ``action``, ``get_action_display()``,
        ``summary`` and ``details`` (``{field: {"old", "new"}}`` under ``changes``)."""


_installed: CatalogHooks | None = None


def install_catalog_hooks(hooks: CatalogHooks) -> None:
    """Plug in the answers (called once at start-up by the app that provides them)."""
    global _installed
    _installed = hooks


def catalog_hooks() -> CatalogHooks:
    """The installed hooks; an error naming the missing app if none are."""
    if _installed is None:
        raise ImproperlyConfigured(
            "The catalog's hooks are not installed: add the 'planner' app to INSTALLED_APPS."
        )
    return _installed
