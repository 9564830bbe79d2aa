"""The audit log: who did what, when, to which design (item 6 of the reliability issue).

Services call :func:`audit_record` inside their own transaction, so an event is written if and
only if the change it describes is: a rolled-back change leaves no event. Events are never
updated. :func:`audit_events_for` is the one read of them, scoped to what a user may see.

What is recorded
----------------
``actor`` (the user, or ``None`` for the system), ``action`` (:class:`AuditActionChoices`),
the design (its team, id and name are copied, so events outlive a deleted design), a one-line
``summary``, the object acted on (``object_type`` and ``object_ref``, e.g. ``"revision"`` and
``"3"``) and small JSON ``details``. Secrets are never stored: keys that name one (password,
token, secret, key, authorization, cookie, session) are dropped from ``details`` wherever they
nest, and long values are cut (see :func:`clean_details`).

Who reads it
------------
Owners of a team read the events of that team's designs; a design's owner reads the events of
their designs (the designs app, above the log, says who owns which: :func:`install_design_owners`);
everyone reads the events they caused themselves; everyone signed in reads the
catalog's events (parts and manufacturers created, changed, archived, deleted, imported);
events about price books and offers, which hold price figures, are read only by those who may
read the book (see :func:`audit_events_for`); superusers read all events.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from django.db.models import Q, QuerySet

from planner.audit.models import AuditActionChoices, AuditEvent
from planner.teams.models import Team, TeamMembership, TeamRoleChoices
from planner.teams.selectors import user_can_view_prices

__all__ = [
    "DETAILS_MAX_CHARS",
    "SECRET_KEY_PATTERN",
    "audit_can_read",
    "audit_events_for",
    "audit_record",
    "audit_teams_for",
    "clean_details",
    "install_design_owners",
    "part_history_for",
    "record_team_change",
]

#: Keys dropped from ``details`` at any depth: they may hold a credential.
SECRET_KEY_PATTERN = re.compile(
    r"pass(word|wd|phrase)?|secret|token|api[-_]?key|^key$|_key$|authori[sz]ation|cookie|"
    r"session|credential|csrf",
    re.IGNORECASE,
)
#: The largest ``details`` stored, as compact JSON; beyond it values are cut or dropped.
DETAILS_MAX_CHARS = 4000
STRING_MAX_CHARS = 300
LIST_MAX_ITEMS = 50
MAX_DEPTH = 4
SUMMARY_MAX_CHARS = AuditEvent._meta.get_field("summary").max_length
OBJECT_REF_MAX_CHARS = AuditEvent._meta.get_field("object_ref").max_length
OBJECT_TYPE_MAX_CHARS = AuditEvent._meta.get_field("object_type").max_length


def _no_designs(user) -> list[int]:
    return []


#: ``user -> ids`` of the designs ``user`` owns (a values query is fine: it is used inside a
#: filter); set by :func:`install_design_owners`.
_owned_design_ids: Callable[[Any], Iterable[int]] = _no_designs


def install_design_owners(owned_design_ids: Callable[[Any], Iterable[int]]) -> None:
    """Say who owns which design: ``owned_design_ids(user)`` gives the ids of the designs
    ``user`` owns, whose events they read (:func:`audit_events_for`).

    Called once at start-up by the designs app (``planner.apps.PlannerConfig.ready``), which
    stands above the log: the log names a design by its id and imports nothing of designs.
    Until it is called a design's owner reads its events only as their actor or as an owner
    of its team.
    """
    global _owned_design_ids
    _owned_design_ids = owned_design_ids


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clean(value, depth: int):
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return f"{{{len(value)} keys}}"
        return {
            str(key): _clean(item, depth + 1)
            for key, item in value.items()
            if not SECRET_KEY_PATTERN.search(str(key))
        }
    if isinstance(value, list | tuple | set | frozenset):
        items = list(value)
        if depth >= MAX_DEPTH:
            return f"[{len(items)} items]"
        cleaned = [_clean(item, depth + 1) for item in items[:LIST_MAX_ITEMS]]
        if len(items) > LIST_MAX_ITEMS:
            cleaned.append(f"… {len(items) - LIST_MAX_ITEMS} more")
        return cleaned
    if value is None or isinstance(value, bool | int | float):
        return value
    return _clip(str(value), STRING_MAX_CHARS)


def clean_details(details: dict | None) -> dict:
    """``details`` made safe and small to store.

    Keys naming a secret are dropped at every depth, strings are cut to 300 characters, lists
    to 50 items, nesting to 4 levels, and while the JSON is over :data:`DETAILS_MAX_CHARS`
    characters the largest top-level value is replaced by a note of its size.

    >>> clean_details({"name": "x", "password": "hunter2", "nested": {"api_key": "k", "n": 1}})
    {'name': 'x', 'nested': {'n': 1}}
    """
    if not details:
        return {}
    if not isinstance(details, dict):
        details = {"value": details}
    cleaned = _clean(details, 0)
    while len(json.dumps(cleaned, default=str)) > DETAILS_MAX_CHARS:
        sizes = {key: len(json.dumps(value, default=str)) for key, value in cleaned.items()}
        largest = max(sizes, key=sizes.get)
        if isinstance(cleaned[largest], str) and cleaned[largest].startswith("(cut:"):
            del cleaned[largest]  # even the notes do not fit
        else:
            cleaned[largest] = f"(cut: {sizes[largest]:,} characters)"
    return cleaned


def audit_record(
    *,
    actor,
    action: str,
    design=None,
    team: Team | None = None,
    summary: str,
    object_type: str = "",
    object_ref: str = "",
    details: dict | None = None,
) -> AuditEvent:
    """Write one audit event and return it.

    Call it from a service, inside the service's transaction, after the change succeeded.

    Parameters
    ----------
    actor
        The user who acted; ``None`` or an anonymous user for the system.
    action
        One of :class:`planner.audit.models.AuditActionChoices`.
    design
        The design acted on; its team, id and name are copied onto the event.
    team
        For an event about no design: the team whose readers it concerns (a team's price
        book); a design's team wins.
    summary
        One line saying what happened (cut to 300 characters).
    object_type, object_ref
        What inside the design (or outside, for imports) was acted on, e.g. ``"revision"``,
        ``"4"``; ``"job"``, the job id; ``"price-book"``, its slug.
    details
        Small JSON-able mapping (see :func:`clean_details`; secrets are dropped).

    Raises
    ------
    django.core.exceptions.ValidationError
        ``action`` is not an :class:`AuditActionChoices` value.
    """
    if actor is not None and not getattr(actor, "is_authenticated", False):
        actor = None
    event = AuditEvent(
        actor=actor,
        action=action,
        summary=_clip(str(summary), SUMMARY_MAX_CHARS),
        object_type=_clip(str(object_type), OBJECT_TYPE_MAX_CHARS),
        object_ref=_clip(str(object_ref), OBJECT_REF_MAX_CHARS),
        details=clean_details(details),
        team_id=team.pk if team is not None else None,
    )
    if design is not None:
        event.design_ref = design.pk
        event.design_name = design.name[: AuditEvent._meta.get_field("design_name").max_length]
        event.team_id = design.team_id
    event.full_clean(exclude=["actor", "team"])
    event.save()
    return event


def record_team_change(*, team: Team, actor, summary: str, details: dict) -> AuditEvent:
    """Record a change of ``team``'s members or rights (``team.changed``), read by its owners.

    The teams app, below the log, records through this (installed at start-up by
    ``planner.apps.PlannerConfig.ready``, :func:`planner.teams.services.install_team_recorder`).
    """
    return audit_record(
        actor=actor,
        action=AuditActionChoices.TEAM_CHANGED,
        team=team,
        summary=summary,
        object_type="team",
        object_ref=team.slug,
        details=details,
    )


def audit_teams_for(user) -> QuerySet[Team]:
    """Teams whose audit events ``user`` reads: the teams they own."""
    return Team.objects.filter(
        memberships__user_id=user.pk, memberships__role=TeamRoleChoices.OWNER
    ).order_by("name")


def _price_events() -> Q:
    """Events that may carry price figures: price books, offers, price imports."""
    return Q(action=AuditActionChoices.PRICE_CHANGED) | Q(
        action=AuditActionChoices.IMPORT_APPLIED, design_ref__isnull=True, object_type="price-book"
    )


def _catalog_events() -> Q:
    """Events about catalog parts and manufacturers (no prices): read by everyone signed in."""
    return Q(
        action__in=[
            AuditActionChoices.CATALOG_CHANGED,
            AuditActionChoices.CATALOG_DELETED,
            AuditActionChoices.CATALOG_ARCHIVED,
        ]
    ) | Q(action=AuditActionChoices.IMPORT_APPLIED, design_ref__isnull=True, object_type="parts")


def audit_events_for(user) -> QuerySet[AuditEvent]:
    """Audit events ``user`` may read, newest first (none for an anonymous user).

    - events of designs: those of teams ``user`` owns, of designs ``user`` owns, and those
      ``user`` caused;
    - catalog events (parts and manufacturers created, changed, archived, deleted, imported):
      everyone signed in;
    - price events (price books, offers and exchange rates, with their figures): users who
      may read the book (:func:`inventory.permissions.price_books_for`: staff all, users with
      the price right, catalog editors among them, the public books' and exchange rates'
      events and those of their teams where they have it);
    - a superuser reads all of them.
    """
    if not getattr(user, "is_authenticated", False):
        return AuditEvent.objects.none()
    events = AuditEvent.objects.select_related("actor", "team")
    if user.is_superuser:
        return events
    owned_teams = TeamMembership.objects.filter(user_id=user.pk, role=TeamRoleChoices.OWNER).values(
        "team_id"
    )
    prices = _price_events()
    visible = (
        Q(team_id__in=owned_teams) | Q(design_ref__in=_owned_design_ids(user)) | Q(actor_id=user.pk)
    ) & ~prices
    visible |= _catalog_events()
    if user.is_staff:
        visible |= prices
    elif user_can_view_prices(user):
        priced_teams = TeamMembership.objects.filter(user_id=user.pk, can_view_prices=True).values(
            "team_id"
        )
        visible |= prices & (Q(team__isnull=True) | Q(team_id__in=priced_teams))
    return events.filter(visible)


def part_history_for(user, part) -> QuerySet[AuditEvent]:
    """The audit events of one catalog part ``user`` may read (everyone signed in), newest
    first: its creation, changes, archiving (by category and slug)."""
    return audit_events_for(user).filter(
        _catalog_events(), object_type=part.CATEGORY, object_ref=part.slug
    )


def audit_can_read(user) -> bool:
    """Whether ``user`` has an audit log to read: everyone signed in reads the catalog's."""
    return bool(getattr(user, "is_authenticated", False))
