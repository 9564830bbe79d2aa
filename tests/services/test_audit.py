"""The audit log: every design change, job run and import writes one event (who, what, which
design), a refused change writes none, secrets never reach ``details``, and each user reads
only the events of the teams they own, of their own designs and of their own actions."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError

from inventory.models import PriceBook
from inventory.services import (
    SEED_PRICE_BOOK,
    CatalogImportError,
    catalog_export_csv,
    catalog_import_csv,
    price_book_export_csv,
    price_book_import_csv,
)
from planner.audit.log import DETAILS_MAX_CHARS, audit_events_for, audit_record, clean_details
from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs import selectors
from planner.designs.models import Design
from planner.designs.services import (
    DesignError,
    design_create,
    design_delete,
    design_edit_topology,
    design_restore,
    design_revise,
    design_update,
)
from planner.teams.models import Team, TeamMembership
from simulation.services import job_cancel, job_enqueue
from tests.factories import TINY_SPEC


@pytest.fixture
def team(user, other_user, django_user_model):
    team = Team.objects.create(name="Fabric team", slug="fabric")
    TeamMembership.objects.create(team=team, user=user, role="editor")
    TeamMembership.objects.create(team=team, user=other_user, role="owner")
    return team


@pytest.fixture
def no_broker(monkeypatch):
    from simulation.tasks import run_job

    monkeypatch.setattr(run_job, "apply_async", lambda *args, **kwargs: None)


def _actions(**filters) -> list[str]:
    events = AuditEvent.objects.filter(**filters).order_by("pk")
    return list(events.values_list("action", flat=True))


def test_design_life_is_recorded_and_outlives_the_design(seed_catalog, user, team):
    design = design_create(owner=user, spec_document=TINY_SPEC, team=team, sharing="team-edit")
    created = AuditEvent.objects.get(action=AuditActionChoices.DESIGN_CREATED)
    assert created.action == AuditActionChoices.DESIGN_CREATED
    assert (created.actor, created.team) == (user, team)
    assert (created.design_ref, created.design_name) == (design.pk, "Tiny")
    assert created.details["gpus"] == 32

    revised = design_revise(
        design=design, user=user, spec_document={**TINY_SPEC, "servers": 6}, base_revision=1
    )
    document = selectors.revision_topology(revised)
    design_edit_topology(design=design, user=user, document=document, base_revision=2)
    restored = design_restore(design=design, user=user, number=1)
    design_update(design=design, actor=user, name="Renamed")
    design_update(design=design, actor=user, name="Renamed")  # no change, no event
    assert _actions(design_ref=design.pk) == [
        "design.created",
        "design.revised",
        "design.revised",
        "design.restored",
        "design.changed",
    ]
    restore_event = AuditEvent.objects.get(action="design.restored")
    assert restore_event.object_ref == str(restored.number) == "4"
    assert restore_event.details == {"restored": 1}
    changed = AuditEvent.objects.get(action="design.changed")
    assert changed.details["changes"] == {"name": {"old": "Tiny", "new": "Renamed"}}

    design_pk = design.pk
    design_delete(design=design, actor=user)
    deleted = AuditEvent.objects.get(action="design.deleted")
    assert not Design.objects.filter(pk=design_pk).exists()  # gone; the record of it is not
    assert (deleted.design_ref, deleted.design_name, deleted.team) == (design_pk, "Renamed", team)
    assert AuditEvent.objects.filter(design_ref=design_pk).count() == 6


def test_refused_change_records_nothing(seed_catalog, user):
    design = design_create(owner=user, spec_document=TINY_SPEC)
    before = AuditEvent.objects.count()
    with pytest.raises(DesignError):
        design_revise(
            design=design, user=user, spec_document={**TINY_SPEC, "server": "NOPE"}, base_revision=1
        )
    with pytest.raises(ValidationError):
        design_update(design=design, actor=user, sharing="team-read")  # no team
    assert AuditEvent.objects.count() == before


def test_jobs_submitted_and_cancelled(seed_catalog, user, no_broker):
    design = design_create(owner=user, spec_document=TINY_SPEC)
    job = job_enqueue(owner=user, kind="validate", design_revision=design.latest_revision)
    reused_or_new = job_enqueue(owner=user, kind="diagnostics", parameters={"echo": "hi"})
    job_cancel(job=job)
    job_cancel(job=job)  # already cancelled: nothing new
    events = list(AuditEvent.objects.filter(object_type="job").order_by("pk"))
    assert [(e.action, e.object_ref) for e in events] == [
        ("job.submitted", str(job.pk)),
        ("job.submitted", str(reused_or_new.pk)),
        ("job.cancelled", str(job.pk)),
    ]
    assert events[0].design_ref == design.pk and "revision 1 of “Tiny”" in events[0].summary
    assert events[1].design_ref is None and events[1].actor == user


def test_imports_are_recorded_without_prices(seed_catalog, user):
    text = catalog_export_csv("switch")
    catalog_import_csv(category="switch", text=text, origin="switches.csv", actor=user)
    event = AuditEvent.objects.filter(action="import.applied", actor=user).get()
    assert event.object_ref == "switches.csv" and event.design_ref is None
    assert "unchanged" in event.summary

    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    prices = price_book_export_csv(book)
    count = price_book_import_csv(book=book, text=prices, origin="book.csv", actor=user)
    priced = AuditEvent.objects.filter(object_type="price-book").get()
    assert priced.details["rows"] == count and priced.details["file"] == "book.csv"
    assert (priced.details["added"], priced.details["removed"]) == (0, 0)
    first_price = book.prices.order_by("pk").first().price
    assert str(first_price) not in json.dumps(priced.details)

    with pytest.raises(CatalogImportError):
        catalog_import_csv(category="switch", text="slug,name\nx,y\n", actor=user)
    assert AuditEvent.objects.filter(action="import.applied", actor=user).count() == 2


def test_details_never_keep_secrets_and_stay_small(user):
    event = audit_record(
        actor=user,
        action=AuditActionChoices.EXPORT_DOWNLOADED,
        summary="x" * 500,
        details={
            "format": "csv",
            "password": "hunter2",
            "headers": {"Authorization": "Token abc", "accept": "text/csv"},
            "api_key": "k",
            "rows": list(range(500)),
            "blob": "y" * 10_000,
        },
    )
    event.refresh_from_db()
    text = json.dumps(event.details)
    assert "hunter2" not in text and "Token abc" not in text and '"k"' not in text
    assert event.details["format"] == "csv"
    assert event.details["headers"] == {"accept": "text/csv"}
    assert len(event.details["rows"]) == 51  # 50 and a note of the rest
    assert len(text) <= DETAILS_MAX_CHARS
    assert len(event.summary) == 300
    assert clean_details(None) == {}


def test_unknown_action_is_refused(user):
    with pytest.raises(ValidationError):
        audit_record(actor=user, action="design.teleported", summary="nope")
    assert not AuditEvent.objects.filter(summary="nope").exists()


def test_who_reads_which_events(seed_catalog, user, other_user, team, django_user_model):
    viewer = django_user_model.objects.create_user(username="vic", password="pw-vic-123!")
    stranger = django_user_model.objects.create_user(username="sam", password="pw-sam-123!")
    root = django_user_model.objects.create_superuser(username="root", password="pw-root-123!")
    TeamMembership.objects.create(team=team, user=viewer, role="viewer")
    shared = design_create(owner=user, spec_document=TINY_SPEC, team=team, sharing="team-read")
    private = design_create(owner=user, spec_document={**TINY_SPEC, "name": "Mine"})
    theirs = design_create(owner=stranger, spec_document={**TINY_SPEC, "name": "Theirs"})

    def designs_seen(who):
        events = audit_events_for(who).filter(design_ref__isnull=False)
        return set(events.values_list("design_ref", flat=True))

    # the catalog's events (the seed import) are read by everyone signed in
    for who in (user, other_user, viewer, stranger, root):
        assert audit_events_for(who).filter(action="import.applied", object_type="parts")

    # alice (editor) owns both her designs; bob (team owner) reads the team's design only
    assert designs_seen(user) == {shared.pk, private.pk}
    assert designs_seen(other_user) == {shared.pk}
    assert designs_seen(viewer) == set()
    assert designs_seen(stranger) == {theirs.pk}
    assert designs_seen(root) >= {shared.pk, private.pk, theirs.pk}
    assert set(audit_events_for(root)) >= set(AuditEvent.objects.all())

    # a deleted private design's events stay readable to the owner who deleted it
    private_pk = private.pk
    design_delete(design=private, actor=user)
    assert private_pk in designs_seen(user)
    assert private_pk not in designs_seen(other_user)


def test_filters_by_design_and_team_name_page_and_api(seed_catalog, user, team, client):
    from rest_framework.test import APIClient

    shared = design_create(owner=user, spec_document=TINY_SPEC, team=team, sharing="team-read")
    mine = design_create(owner=user, spec_document={**TINY_SPEC, "name": "Solo pod"})
    api = APIClient()
    api.force_authenticate(user)

    def api_designs(**params):
        events = api.get("/api/planner/audit/", {**params, "page_size": 1000}).json()["results"]
        return {event["design"] for event in events if event["design"]}

    assert api_designs(design_name="solo") == {mine.pk}
    assert api_designs(team_name="fabric T") == {shared.pk}
    assert api_designs(team_name="nobody") == set()
    # the id and slug filters keep working, and go with the name ones
    assert api_designs(design=shared.pk) == {shared.pk}
    assert api_designs(team="fabric") == {shared.pk}
    assert api_designs(design_name="solo", design=shared.pk) == set()

    client.force_login(user)
    page = client.get("/audit/", {"design_name": "Solo"})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="design_name"' in html and 'name="team_name"' in html
    assert [row.design_ref for row in page.context["page"]] == [mine.pk]
    by_team = client.get("/audit/", {"team_name": "fabric"}).context["page"]
    assert {row.design_ref for row in by_team} == {shared.pk}
    # a design link in the table (?design=<id>) still filters, kept as a hidden field
    by_id = client.get("/audit/", {"design": shared.pk})
    assert {row.design_ref for row in by_id.context["page"]} == {shared.pk}
    assert f'type="hidden" name="design" value="{shared.pk}"' in by_id.content.decode()
    assert "(every design)" in by_id.content.decode()
